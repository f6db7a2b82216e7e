/** mulberry32: a tiny seeded PRNG, so that a property test is reproducible and a failure replays. */
export function seededRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The seeds of a property test's cases: `count` seeds from 1, the same every run. With
 * WAFCTL_TEST_SEED set (the suite's order, CONTRIBUTING.md), a window of that seed's own, so a run
 * with another seed tries other cases; a failure names its seed, and the same WAFCTL_TEST_SEED
 * replays it.
 */
export function caseSeeds(count: number): number[] {
  const suite = Number(process.env.WAFCTL_TEST_SEED);
  const first = Number.isSafeInteger(suite) && suite > 0 ? 1 + (suite % 100_000) * 10_000 : 1;
  return Array.from({ length: count }, (_, i) => first + i);
}

/** Where a property test's cases came from, for its failure message. */
export function replayHint(seeds: readonly number[]): string {
  const suite = process.env.WAFCTL_TEST_SEED;
  const from = `seeds ${seeds[0]}..${seeds.at(-1)}`;
  return suite === undefined ? from : `${from}, WAFCTL_TEST_SEED=${suite}`;
}

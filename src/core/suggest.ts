/** "Did you mean" for unknown fields, enum values, permission names and timezones. */

/** Levenshtein distance, case-insensitive: `Handle Rules` is one typo away from `Handle rules`, not two. */
export function editDistance(a: string, b: string): number {
  const left = a.toLowerCase();
  const right = b.toLowerCase();
  let previous = Array.from({ length: right.length + 1 }, (_, i) => i);
  for (let i = 1; i <= left.length; i++) {
    const current = [i];
    for (let j = 1; j <= right.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (left[i - 1] === right[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length] ?? 0;
}

/**
 * The closest candidate when it is close enough to be a plausible typo: at most 2 edits, and fewer
 * than half of the input's length (so "ab" does not suggest "cd"). Ties go to the first candidate.
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(2, Math.ceil(input.length / 2) - 1);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance = editDistance(input, candidate);
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * Issue 50: a signal is answered inside one large file, not only between files. yaml's reading of a
 * file pauses every few thousand lexer tokens and between documents (parse-yaml.ts
 * `readingDocuments`), and a mapping over the key limit is cut before it is composed. No test here
 * waits for time: the load is interrupted as it says it starts the file, and what yaml composed
 * after that is counted.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadDesiredState } from '../../src/config/load.js';
import { parsingYamlFile } from '../../src/config/parse-yaml.js';
import { formatProblem } from '../../src/config/problems.js';
import { PAUSE } from '../../src/config/steps.js';
import { startCli } from '../helpers/cli.js';

/** Documents yaml's Composer has composed, and the keys of each mapping of the last one. */
const composed = vi.hoisted(() => ({ count: 0, keys: [] as number[] }));
vi.mock('yaml', async (importOriginal) => {
  const yaml = await importOriginal<typeof import('yaml')>();
  class Composer extends yaml.Composer {
    override *next(token: Parameters<typeof yaml.Composer.prototype.next>[0]) {
      if (token.type === 'document') composed.count += 1;
      yield* super.next(token);
    }
    override *end(forceDoc?: boolean, endOffset?: number) {
      for (const doc of super.end(forceDoc, endOffset)) {
        composed.keys = [];
        yaml.visit(doc, { Map: (_, map) => void composed.keys.push(map.items.length) });
        yield doc;
      }
    }
  }
  return { ...yaml, Composer };
});

/**
 * The replay: one file (just under the 5 MiB limit), one mapping of 300,000 keys; the tab in the
 * comment sends it to yaml's reader, not the fast one (fast-read.ts).
 */
const bigMapping = () =>
  `# \t\nsettings:\n${Array.from({ length: 300_000 }, (_, i) => `  k${i}: ${i}\n`).join('')}`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-interrupt-file-'));
  await writeFile(join(dir, 'big.yaml'), bigMapping());
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a signal inside one file', () => {
  it('yaml reading pauses every few thousand tokens, and between documents', () => {
    const text = `${'a: 1\n'.repeat(50_000)}---\nb: 2\n---\nc: 3\n`;
    const steps = parsingYamlFile('f.yaml', text, {});
    let pauses = 0;
    let next = steps.next();
    while (!next.done) {
      expect(next.value).toBe(PAUSE);
      pauses += 1;
      next = steps.next();
    }
    // 50,000 lines of four tokens each: ten pauses while lexing, and more between the documents.
    expect(pauses).toBeGreaterThanOrEqual(13);
    expect(next.value.problems.map((problem) => problem.message)).toEqual([
      'a mapping holds more than 1000 keys: wafctl configurations never need that many',
    ]);
  });

  it('a load interrupted as it starts a 300,000-key file stops before yaml composes it', async () => {
    composed.count = 0;
    const controller = new AbortController();
    const reason = new Error('stop');
    const log = (step: string) => {
      if (step.endsWith('big.yaml')) controller.abort(reason);
    };
    await expect(loadDesiredState([dir], { cwd: dir, env: {}, signal: controller.signal, log })).rejects.toBe(
      reason,
    );
    expect(composed.count).toBe(0);
  });

  it('an oversized mapping is refused at its first key, composed only one key past the limit', () => {
    const text = `# \t\nsettings:\n${Array.from({ length: 5_000 }, (_, i) => `  k${i}: ${i}\n`).join('')}`;
    const steps = parsingYamlFile('f.yaml', text, {});
    let next = steps.next();
    while (!next.done) next = steps.next();
    expect(next.value.problems.map(formatProblem)).toEqual([
      'f.yaml:3:3 settings: a mapping holds more than 1000 keys: wafctl configurations never need that many',
    ]);
    expect(composed.keys).toEqual([1, 1001]);
  });

  it('the wafctl binary, sent SIGTERM as it starts the file: one line, exit 143', async () => {
    const run = startCli(['validate', dir], { env: { WAFCTL_DEBUG: '1' } });
    await run.stderrMatches(/^load: validating .*big\.yaml$/m);
    run.child.kill('SIGTERM');
    const result = await run.result;
    expect(result.code).toBe(143);
    expect(result.stderr.split('\n').filter((line) => !line.startsWith('load: '))).toEqual([
      '',
      'Interrupted (SIGTERM): stopped; the firewall was not changed.',
      '',
    ]);
  });
});

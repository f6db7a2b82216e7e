/**
 * Issue 41: SIGINT/SIGTERM during a long load. Validation is synchronous, and Node runs a signal's
 * handler only when no JavaScript is running, so the loader pauses between files (config/load.ts,
 * `betweenFiles`): there a pending signal reaches its handler, and a load whose run was interrupted
 * (`Io.interrupted`, `LoadOptions.signal`) stops. No test here waits for time to pass: the signal
 * is sent once the run says it is validating its first file, with many files still to go.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { runWafctl } from '../../src/cli/program.js';
import { loadDesiredState, loadEnvironment } from '../../src/config/load.js';
import { readProject } from '../../src/config/project.js';
import { startCli } from '../helpers/cli.js';
import { rulesYaml } from '../helpers/fixtures.js';
import { ExitCalled, testIo } from '../helpers/io.js';

let dir: string;

/**
 * `count` files of `rules` rules each, every rule its own (host, description). `crlf`: CRLF line
 * ends, which send every file to yaml's reader, the slower of the two (fast-read.ts).
 */
async function writeRules(into: string, count: number, rules: number, crlf = false): Promise<string[]> {
  await mkdir(into, { recursive: true });
  const names: string[] = [];
  for (let f = 0; f < count; f++) {
    const name = `rules-${String(f).padStart(3, '0')}.yaml`;
    const specs = Array.from({ length: rules }, (_, i) => ({ description: `rule ${f}-${i}` }));
    const text = rulesYaml(specs);
    await writeFile(join(into, name), crlf ? text.replaceAll('\n', '\r\n') : text);
    names.push(name);
  }
  return names;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wafctl-interrupt-load-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a load checks its interrupt between files', () => {
  it('loadDesiredState stops before the next file once the signal is aborted, throwing its reason', async () => {
    const root = join(dir, 'small');
    await writeRules(root, 4, 2);
    const controller = new AbortController();
    const reason = new Error('stop');
    const steps: string[] = [];
    const log = (step: string) => {
      steps.push(step);
      if (step.endsWith('rules-001.yaml')) controller.abort(reason);
    };
    await expect(
      loadDesiredState([root], { cwd: dir, env: {}, signal: controller.signal, log }),
    ).rejects.toBe(reason);
    expect(steps).toEqual([
      `validating ${join(root, 'rules-000.yaml')}`,
      `validating ${join(root, 'rules-001.yaml')}`,
    ]);
  });

  it('loadEnvironment too, in each of its steps (reading every file, then validating)', async () => {
    const root = join(dir, 'environment');
    await writeRules(join(root, 'base'), 3, 2);
    await writeFile(
      join(root, 'wafctl.yaml'),
      'environments:\n  production:\n    url: https://waf.example.com\n    token_env: WAF_TOKEN\n    paths: [base]\n',
    );
    const project = await readProject(root, dir);
    const environment = project?.environments[0];
    if (project === undefined || environment === undefined) throw new Error('no environment');
    const controller = new AbortController();
    const steps: string[] = [];
    const log = (step: string) => {
      steps.push(step);
      if (steps.length === 4) controller.abort(new Error('stop'));
    };
    const loading = loadEnvironment(project, environment, {
      cwd: dir,
      env: {},
      signal: controller.signal,
      log,
    });
    await expect(loading).rejects.toThrow('stop');
    expect(steps.map((step) => step.replace(/ .*\//, ' '))).toEqual([
      'reading rules-000.yaml',
      'reading rules-001.yaml',
      'reading rules-002.yaml',
      'validating rules-000.yaml',
    ]);
  });

  it("in a run, a signal during validation ends it with the signal's code and one line", async () => {
    const root = join(dir, 'in-process');
    const names = await writeRules(root, 5, 2);
    const run = testIo({ env: { WAFCTL_DEBUG: '1' } });
    let signalled = false;
    // The run's stderr: the test signals the run as it starts validating its second file.
    const stderr = Object.assign(
      new Writable({
        write(chunk: Buffer | string, _encoding, done) {
          const text = String(chunk);
          run.io.stderr.write(text);
          if (!signalled && text.includes(`validating ${join(root, names[1] as string)}`)) {
            signalled = true;
            // The default handler says so and exits; a test's `exit` throws instead, and the run goes
            // on to the next pause, where its interrupt stops the load.
            expect(() => run.signal('SIGTERM')).toThrow(ExitCalled);
          }
          done();
        },
      }),
      { isTTY: false },
    );
    const io: Io = { ...run.io, stderr };
    const code = await runWafctl(['validate', root], io);
    expect(code).toBe(143);
    expect(run.exitCode()).toBe(143);
    expect(run.stdout()).toBe('');
    const lines = run.stderr().split('\n');
    expect(lines.filter((line) => !line.startsWith('load: '))).toEqual([
      '',
      'Interrupted (SIGTERM): stopped; the firewall was not changed.',
      '',
    ]);
    expect(lines.filter((line) => line.startsWith('load: '))).toEqual(
      names.slice(0, 2).map((name) => `load: validating ${join(root, name)}`),
    );
  });
});

describe('the wafctl binary, signalled while it validates many large files', () => {
  /**
   * Files of the run: validating them all takes seconds (~0.3 s a file on a laptop; every file is
   * read before the first is validated), far longer than a signal takes to arrive, so a run signalled
   * as it starts its first file still has most of them to go. Without the pauses between files it
   * would validate them all, print that the configuration is valid and exit 0.
   */
  const FILES = 40;
  let root: string;
  let names: string[];

  beforeAll(async () => {
    root = join(dir, 'large');
    names = await writeRules(root, FILES, 2_000, true);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s: one line, exit %i, before the last file', async (signal, code) => {
    const run = startCli(['validate', root], { env: { WAFCTL_DEBUG: '1' } });
    // The run is in its CPU phase: every file is read, and the first is being validated.
    await run.stderrMatches(/^load: validating .*rules-000\.yaml$/m);
    run.child.kill(signal);
    const result = await run.result;
    expect(result.code).toBe(code);
    expect(result.stdout).toBe('');
    const lines = result.stderr.split('\n');
    expect(lines.filter((line) => !line.startsWith('load: '))).toEqual([
      '',
      `Interrupted (${signal}): stopped; the firewall was not changed.`,
      '',
    ]);
    // It stopped between two files, long before the last one.
    const validated = lines.filter((line) => line.startsWith('load: validating '));
    expect(validated.length).toBeLessThan(FILES);
    expect(validated.at(-1)).not.toContain(names.at(-1));
  });
});

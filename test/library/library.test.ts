/* biome-ignore-all lint/suspicious/noTemplateCurlyInString: `${VAR}` in configuration is data here */
/**
 * The library (src/library/): each function gives the very document the CLI prints with
 * `--format json` for the same emulator and configuration, reads nothing from the process, and
 * throws wafctl's errors with their codes. The packed package is proven by scripts/pack-proof.sh.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apply, drift, exportState, isWafctlError, plan, validate } from '../../src/library/index.js';
import type { TokenConnection } from '../../src/library/types.js';
import { runCli } from '../helpers/cli.js';
import { E2E_TOKEN, startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';
import { EXAMPLES } from '../helpers/fixtures.js';

let firewall: TestFirewall;
let connection: TokenConnection;
const cleanups: string[] = [];

beforeEach(async () => {
  firewall = await startTestFirewall();
  connection = { url: firewall.url, token: E2E_TOKEN };
});

afterEach(async () => {
  await firewall.close();
  for (const dir of cleanups.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wafctl-library-'));
  cleanups.push(dir);
  return dir;
}

/** The CLI's `--format json` output, parsed; `env` holds WAF_URL and WAF_TOKEN of the emulator. */
async function cliJson(args: string[], cwd?: string): Promise<unknown> {
  const result = await runCli([...args, '--format', 'json'], { env: firewall.env, ...(cwd && { cwd }) });
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout);
}

/** The library's document as JSON, so that a field set to undefined would count as missing. */
const asJson = (document: unknown): unknown => JSON.parse(JSON.stringify(document));

const GROUP = `groups:
  - name: soc
    description: \${WAFCTL_VAR_DESCRIPTION}
    permissions: []
`;

describe('validate', () => {
  it("gives validate --format json's document: valid, invalid, and each environment of a project", async () => {
    const valid = await validate({ cwd: EXAMPLES });
    expect(valid).toEqual(await cliJson(['validate'], EXAMPLES));
    expect(valid).toMatchObject({ valid: true, files: 7, groups: 4 });

    const broken = await writeConfig({ 'groups.yaml': 'groups:\n  - name: soc\n    colour: red\n' });
    cleanups.push(broken);
    const invalid = await validate({ cwd: broken, paths: ['.'] });
    expect(invalid).toEqual(await cliJson(['validate', '.'], broken));
    expect(invalid).toMatchObject({ valid: false, problems: [{ file: 'groups.yaml', line: 3 }] });

    const project = await writeConfig({
      'wafctl.yaml': `environments:\n  staging:\n    url: ${firewall.url}\n    token_env: T\n    paths: [base]\n  production:\n    url: http://127.0.0.1:1\n    token_env: T\n    paths: [base, prod]\n`,
      'base/groups.yaml': GROUP.replace('${WAFCTL_VAR_DESCRIPTION}', 'base'),
      'prod/groups.yaml': 'groups:\n  - name: soc\n    colour: red\n',
    });
    cleanups.push(project);
    const environments = await validate({ cwd: project });
    expect(environments).toEqual(await cliJson(['validate'], project));
    expect(environments).toMatchObject({ valid: false, environments: { staging: { valid: true } } });
  });

  it('reads `${VAR}` from the variables given, never from the process', async () => {
    const dir = await writeConfig({ 'groups.yaml': GROUP });
    cleanups.push(dir);
    process.env.WAFCTL_VAR_DESCRIPTION = 'from the process';
    try {
      const unset = await validate({ cwd: dir });
      expect(unset).toMatchObject({
        valid: false,
        problems: [{ message: expect.stringContaining('WAFCTL_VAR_DESCRIPTION') }],
      });
      expect(await validate({ cwd: dir, env: { WAFCTL_VAR_DESCRIPTION: 'given' } })).toMatchObject({
        valid: true,
        groups: 1,
      });
    } finally {
      delete process.env.WAFCTL_VAR_DESCRIPTION;
    }
  });
});

describe('plan and drift', () => {
  it('give the documents plan and drift print with --format json, whole and selected', async () => {
    const planned = await plan({ cwd: EXAMPLES, connection });
    expect(asJson(planned)).toStrictEqual(await cliJson(['plan', '.'], EXAMPLES));
    expect(planned.summary.create).toBeGreaterThan(0);

    const selected = await plan({ cwd: EXAMPLES, connection, kind: ['groups'], exclude: ['group.soc*'] });
    expect(asJson(selected)).toStrictEqual(
      await cliJson(['plan', '--kind', 'groups', '--exclude', 'group.soc*'], EXAMPLES),
    );
    expect(selected.changes.every((change) => change.kind === 'group')).toBe(true);

    const drifted = await drift({ cwd: EXAMPLES, connection });
    expect(asJson(drifted)).toStrictEqual(await cliJson(['drift'], EXAMPLES));
    expect(drifted).toMatchObject({ drift: true, objects: planned.changes.length });
  });

  it('notes and debug lines go to the hooks given; nothing is printed', async () => {
    const notes: string[] = [];
    const debug: string[] = [];
    const written: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((chunk: string) => written.push(chunk) > 0) as typeof write;
    try {
      await plan({
        cwd: EXAMPLES,
        connection,
        onNote: (line) => notes.push(line),
        onDebug: (line) => debug.push(line),
      });
    } finally {
      process.stdout.write = write;
    }
    expect(written).toEqual([]);
    expect(debug.some((line) => line.startsWith('load: '))).toBe(true);
    expect(debug.some((line) => /GET .*\/api\/v1\/groups/.test(line))).toBe(true);
  });
});

describe('apply', () => {
  /** The report without its timing, which two runs never share. */
  const timeless = (report: unknown) => ({ ...(asJson(report) as object), duration_ms: 0 });

  it('gives the report apply --auto-approve --format json prints, on a firewall in the same state', async () => {
    const other = await startTestFirewall();
    try {
      const texts: string[] = [];
      const report = await apply({ cwd: EXAMPLES, connection, onText: (text) => texts.push(text) });
      const result = await runCli(['apply', '--auto-approve', '--format', 'json'], {
        env: other.env,
        cwd: EXAMPLES,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(timeless(report)).toStrictEqual(timeless(JSON.parse(result.stdout)));
      expect(report).toMatchObject({ succeeded: true, exit_code: 0, summary: { failed: 0 } });
      expect(texts[0]).toMatch(/Plan: \d+ to add/);
      expect(texts.at(-1)).toMatch(/Apply complete/);
    } finally {
      await other.close();
    }
    expect((await plan({ cwd: EXAMPLES, connection })).changes).toEqual([]);
  });

  it('asks `confirm` with the plan; declined or refused at the gate, nothing is written and the report says why', async () => {
    const asked: string[] = [];
    const declined = await apply({ cwd: EXAMPLES, connection, confirm: (text) => asked.push(text) < 0 });
    expect(asked[0]).toMatch(/Plan: \d+ to add/);
    expect(declined).toMatchObject({ exit_code: 1, succeeded: false, summary: { done: 0 } });
    expect(declined.results.every((result) => result.outcome === 'not_started')).toBe(true);
    expect(declined.results[0]?.reason).toBe('declined at the prompt');

    const refused = await apply({
      cwd: EXAMPLES,
      connection,
      failOn: ['broadens_access', 'weakens_protection'],
    });
    const cli = await runCli(
      ['apply', '--auto-approve', '--fail-on', 'broadens_access,weakens_protection', '--format', 'json'],
      { env: firewall.env, cwd: EXAMPLES },
    );
    expect(cli.code).toBe(refused.exit_code);
    expect(timeless(refused)).toStrictEqual(timeless(JSON.parse(cli.stdout)));
    expect((await plan({ cwd: EXAMPLES, connection })).summary.create).toBeGreaterThan(0);

    const approved = await apply({ cwd: EXAMPLES, connection, confirm: async () => true });
    expect(approved).toMatchObject({ succeeded: true, exit_code: 0 });
  });

  it('stops when the signal is aborted: before loading, an error; before the writes, an interrupted report', async () => {
    const early = new AbortController();
    early.abort(new Error('stopped early'));
    await expect(apply({ cwd: EXAMPLES, connection, signal: early.signal })).rejects.toThrow('stopped early');

    const controller = new AbortController();
    // Aborted once the plan is shown, before the first write.
    const report = await apply({
      cwd: EXAMPLES,
      connection,
      signal: controller.signal,
      onText: () => controller.abort(),
    });
    expect(report).toMatchObject({ exit_code: 130, succeeded: false, summary: { done: 0 } });
    expect(report.results.every((result) => result.outcome === 'interrupted')).toBe(true);
  });
});

describe('exportState', () => {
  it('gives the files export --dir writes, and writes them only when asked', async () => {
    await runCli(['apply', '--auto-approve', EXAMPLES], { env: firewall.env });
    const root = await tempDir();
    const cli = await runCli(['export', '--dir', 'cli'], { env: firewall.env, cwd: root });
    expect(cli.code, cli.stderr).toBe(0);
    const exported = await exportState({ cwd: root, connection, dir: 'library' });
    expect(await readdir(root)).toEqual(['cli']);
    const names = (await readdir(join(root, 'cli'))).sort();
    expect(exported.files.map((file) => file.name).sort()).toEqual(names);
    for (const file of exported.files)
      expect(file.text).toBe(
        (await readFile(join(root, 'cli', file.name), 'utf8')).replace('../cli', '../library'),
      );

    await exportState({ cwd: root, connection, dir: 'library', write: true, kind: ['groups'] });
    expect(await readdir(join(root, 'library'))).toEqual(['groups.yaml']);
  });
});

describe('errors', () => {
  it("throws wafctl's errors with their codes, before any request for the caller's mistakes", async () => {
    const broken = await writeConfig({ 'groups.yaml': 'groups: 3\n' });
    cleanups.push(broken);
    await firewall.resetStats();
    const failures = await Promise.all([
      plan({ cwd: broken, connection }).catch((error: unknown) => error),
      plan({ cwd: EXAMPLES, connection, kind: ['widgets'] }).catch((error: unknown) => error),
      exportState({ cwd: EXAMPLES, connection: { url: '', token: 't' } }).catch((error: unknown) => error),
      apply({ cwd: EXAMPLES, connection, failOn: ['weakens' as 'weakens_protection'] }).catch(
        (error: unknown) => error,
      ),
    ]);
    expect(failures.map((error) => isWafctlError(error) && error.code)).toEqual([
      'CONFIG_INVALID',
      'USAGE',
      'CONNECTION',
      'USAGE',
    ]);
    expect((await firewall.stats()).total).toBe(0);
    const refused = await drift({ cwd: EXAMPLES, connection: { ...connection, token: 'wrong-token' } }).catch(
      (error: unknown) => error,
    );
    expect(isWafctlError(refused) && refused.code).toBe('API_ERROR');
    expect(isWafctlError(new Error('x'))).toBe(false);
  });

  it('refuses a root whose wafctl.yaml declares environments without `environment`, as the CLI does without --env', async () => {
    const project = await writeConfig({
      'wafctl.yaml': `environments:\n  staging:\n    url: ${firewall.url}\n    token_env: T\n    paths: [base]\n`,
      'base/groups.yaml': GROUP.replace('${WAFCTL_VAR_DESCRIPTION}', 'base'),
    });
    cleanups.push(project);
    await expect(plan({ cwd: project, connection })).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining('declares environments (staging)'),
    });
  });

  it('stops loading when the signal is aborted, with its reason', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped by the caller'));
    await expect(validate({ cwd: EXAMPLES, signal: controller.signal })).rejects.toThrow(
      'stopped by the caller',
    );
    // A structural signal (not Node's AbortSignal) is followed too.
    const listeners: (() => void)[] = [];
    const like = {
      aborted: false,
      reason: new Error('structural'),
      addEventListener: (_type: 'abort', listener: () => void) => listeners.push(listener),
      removeEventListener: () => undefined,
    };
    const running = validate({ cwd: EXAMPLES, signal: like });
    like.aborted = true;
    for (const listener of listeners) listener();
    await expect(running).rejects.toThrow('structural');
  });
});

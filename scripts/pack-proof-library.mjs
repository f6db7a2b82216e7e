// The library's part of the package proof (scripts/pack-proof.sh runs it in the directory where the
// tarball is installed, and nothing else: no zod, no yaml, no @types): `import { ... } from 'wafctl'`
// runs and gives the documents the installed CLI prints with `--format json`, against an emulator
// the installed CLI serves; and a TypeScript consumer type-checks against the shipped declarations
// with `--strict` and `skipLibCheck: false`, with this repository's tsc. Its `@ts-expect-error` lines
// fail the check if the declarations were `any`.
//
// Usage (from the install directory): node REPO/scripts/pack-proof-library.mjs REPO CONFIG_DIR
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

const [repo, config] = process.argv.slice(2);
if (repo === undefined || config === undefined)
  throw new Error('usage: pack-proof-library.mjs REPO CONFIG_DIR');

/** Runs in the install directory: `wafctl` resolves to the installed package only. */
const CONSUMER_MJS = `
import { spawn, spawnSync } from 'node:child_process';
import { deepStrictEqual, equal, ok } from 'node:assert/strict';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { apply, drift, exportState, isWafctlError, plan, validate } from 'wafctl';

const [config] = process.argv.slice(2);
const cli = fileURLToPath(new URL('node_modules/wafctl/dist/wafctl.mjs', import.meta.url));
const token = 'pack-proof-library-token-7d1e';
const emulator = spawn(process.execPath, [cli, 'emulator', '--port', '0'], {
  env: { PATH: process.env.PATH, WAF_EMULATOR_ADMIN_TOKEN: token },
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const [url] = await once(createInterface(emulator.stdout), 'line');
  const connection = { url, token };
  /** The installed CLI's --format json in \`cwd\`, against the same emulator (its URL and token in \`env\`). */
  const jsonIn = (cwd, env, ...args) => {
    const run = spawnSync(process.execPath, [cli, ...args, '--format', 'json'], {
      cwd,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    });
    ok([0, 2].includes(run.status), \`wafctl \${args.join(' ')} exited \${run.status}: \${run.stderr}\`);
    return JSON.parse(run.stdout);
  };
  /** The installed CLI's --format json for the same configuration and emulator. */
  const json = (...args) => jsonIn(config, { WAF_URL: url, WAF_TOKEN: token }, ...args);
  const same = (document) => JSON.parse(JSON.stringify(document));
  deepStrictEqual(await validate({ cwd: config }), json('validate'));
  const planned = await plan({ cwd: config, connection });
  deepStrictEqual(same(planned), json('plan'));
  const drifted = await drift({ cwd: config, connection });
  deepStrictEqual(same(drifted), json('drift'));
  // One environment of a wafctl.yaml, as --env NAME: its paths, its URL and the token its variable holds.
  const project = mkdtempSync(join(tmpdir(), 'wafctl-pack-proof-'));
  try {
    cpSync(config, join(project, 'base'), { recursive: true });
    writeFileSync(
      join(project, 'wafctl.yaml'),
      \`environments:\\n  proof:\\n    url: \${url}\\n    token_env: PROOF_TOKEN\\n    paths: [base]\\n\`,
    );
    const env = { PROOF_TOKEN: token };
    const inEnvironment = await plan({ cwd: project, environment: 'proof', env });
    deepStrictEqual(same(inEnvironment), jsonIn(project, env, 'plan', '--env', 'proof'));
    deepStrictEqual(same(inEnvironment), same(planned));
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
  const applied = await apply({ cwd: config, connection });
  ok(applied.succeeded && applied.summary.done === planned.changes.length, 'the apply did not apply the plan');
  deepStrictEqual(json('plan').changes, []);
  const exported = await exportState({ cwd: config, connection });
  ok(exported.files.length > 0, 'the export gave no file');
  const refused = await plan({ cwd: config, connection: { url, token: 'not-the-token' } }).catch((error) => error);
  equal(isWafctlError(refused) && refused.code, 'API_ERROR');
  console.log(
    \`library: validate, plan (\${planned.changes.length} changes; and one environment's, as --env) and drift (\${drifted.objects} objects) as the CLI's --format json; apply (\${applied.summary.done} done, then the CLI plans no change); exportState (\${exported.files.length} files)\`,
  );
} finally {
  emulator.kill();
}
`;

/** Type-checked only: every function, option and document of the shipped declarations. */
const CONSUMER_MTS = `
import { apply, drift, exportState, isWafctlError, plan, validate } from 'wafctl';
import type {
  AbortSignalLike,
  ApplyReport,
  ApplyResult,
  DriftDocument,
  EnvironmentsValidationDocument,
  ErrorCode,
  ExportedState,
  FirewallConnection,
  PlanChange,
  PlanDocument,
  ValidationDocument,
} from 'wafctl';

const connection: FirewallConnection = { url: 'http://127.0.0.1:8080', token: 'token' };
const signIn: FirewallConnection = { url: 'http://127.0.0.1:8080', username: 'bot', password: 'secret', timeoutSeconds: 5 };
const signal: AbortSignalLike = { aborted: false, addEventListener() {}, removeEventListener() {} };

export async function review(cwd: string): Promise<string[]> {
  const checked: ValidationDocument | EnvironmentsValidationDocument = await validate({ cwd, env: {} });
  if (!checked.valid && 'problems' in checked) return checked.problems.map((p) => \`\${p.file}:\${p.line}:\${p.col} \${p.message}\`);
  try {
    const document: PlanDocument = await plan({ cwd, connection, kind: ['groups'], onNote: () => undefined });
    const risky: PlanChange[] = document.changes.filter((change) =>
      change.impact.some((impact) => impact.class === 'weakens_protection'),
    );
    const report: DriftDocument = await drift({ cwd, paths: ['.'], connection: signIn, signal, clock: { now: () => 0 } });
    const exported: ExportedState = await exportState({ cwd, connection, dir: 'live', write: false });
    const counted: number = report.objects + exported.files.length + document.summary.impact.broadens_access;
    const applied: ApplyReport = await apply({ cwd, connection, failOn: ['broadens_access'], confirm: async (text) => text.length > 0 });
    const failed: ApplyResult[] = applied.results.filter((result) => result.outcome === 'failed');
    // @ts-expect-error: not a class --fail-on takes
    await apply({ cwd, connection, failOn: ['weakens'] });
    // @ts-expect-error: the counts are numbers
    const wrong: string = document.summary.create;
    // @ts-expect-error: an option the library does not have
    await plan({ cwd, connection, targets: ['group.soc'] });
    // @ts-expect-error: a connection has a token or a sign-in
    await plan({ cwd, connection: { url: 'http://127.0.0.1:8080' } });
    const staged: PlanDocument = await plan({ cwd, environment: 'staging', env: { TOKEN: 't' } });
    await exportState({ cwd, environment: 'staging', connection: { timeoutSeconds: 5 } });
    // @ts-expect-error: an environment declares its URL and credentials: not with a connection's
    await plan({ cwd, environment: 'staging', connection });
    // @ts-expect-error: a firewall is named: a connection or an environment
    await drift({ cwd });
    return [...risky.map((change) => \`\${change.kind}.\${change.key}\`), String(counted + failed.length + staged.changes.length), wrong];
  } catch (error) {
    if (!isWafctlError(error)) throw error;
    const code: ErrorCode = error.code;
    return [code, error.message, String(error.userFault)];
  }
}
`;

/**
 * docs/library.md's examples (its ```ts blocks), each a module of its own, type-checked with the
 * consumer. They use `process` and `console`, which the consumer's libraries (ES2022, no @types)
 * lack: declared here, and nothing else.
 */
const examples = [
  ...readFileSync(resolve(repo, 'docs/library.md'), 'utf8').matchAll(/^```ts\n([\s\S]*?)^```$/gm),
].map(([, code]) => code);
if (examples.length === 0) throw new Error('docs/library.md has no ```ts example');
const GLOBALS = `declare const process: { env: Record<string, string | undefined> };
declare const console: { log(...data: unknown[]): void; error(...data: unknown[]): void };
`;
const exampleFiles = examples.map((_code, i) => `example-${i + 1}.mts`);

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    lib: ['es2022'],
    types: [],
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
  },
  files: ['consumer.mts', 'globals.d.ts', ...exampleFiles],
};

writeFileSync('consumer.mjs', CONSUMER_MJS);
writeFileSync('consumer.mts', CONSUMER_MTS);
writeFileSync('globals.d.ts', GLOBALS);
for (const [i, code] of examples.entries()) writeFileSync(exampleFiles[i], code);
writeFileSync('tsconfig.json', `${JSON.stringify(TSCONFIG, null, 2)}\n`);
const tsc = resolve(repo, 'node_modules/typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
console.log(
  `library: consumer.mts and the ${examples.length} examples of docs/library.md type-check against the shipped declarations (--strict, skipLibCheck false, no @types)`,
);
execFileSync(process.execPath, ['consumer.mjs', resolve(config)], { stdio: 'inherit' });

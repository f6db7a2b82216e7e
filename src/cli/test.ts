/**
 * `wafctl test [PATH...] [--env NAME]... [--live] [--format text|json|junit] [--out FILE]`: the
 * configuration's rule tests (`tests:`), run against its application rules (offline), or with
 * `--live` against the live firewall's. Exit 0 when every case passes, 1 when one fails or cannot be
 * evaluated, or on any error; a configuration that declares no case is an error (a pipeline step
 * that tests nothing is a mistake). With environments declared in wafctl.yaml: offline, every one
 * (as validate), or those --env selects; with --live, --env is required (as plan). With `--out
 * FILE`, the report in `--format` goes to FILE and the text report to stdout.
 */
import { Command, Option } from 'commander';
import { usageError } from '../core/errors.js';
import type { EvalRule } from '../core/rules/types.js';
// Types only: erased, so the renderers and the evaluator load when the command runs.
import type { TestRun } from '../plan/render/tests.js';
import type { Io } from './io.js';
import { addConnectionOptions, addFleetOptions, type ConnectionFlags, type FleetFlags } from './options.js';
import { colorEnabled, writeOut, writeTextFile } from './output.js';
import type { TrustFlags, Workspace } from './workspace.js';

const FORMATS = ['text', 'json', 'junit'] as const;

interface TestFlags extends ConnectionFlags, TrustFlags, FleetFlags {
  env: string[];
  live?: boolean;
  format: (typeof FORMATS)[number];
  out?: string;
  color?: boolean;
  /** `--concurrency N`: environments at once (when the command takes it). */
  concurrency?: number;
}

/** `wafctl test`'s options and help; `done` is given the exit code. */
export function testCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addFleetOptions(
      new Command('test')
        .description(
          "run the configuration's rule tests (tests:) against its application rules, or with --live the live firewall's (exit 1 when a case fails)",
        )
        .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
        .option(
          '--live',
          "test against the live firewall's application rules (which one: --env NAME, or --url and the other connection flags)",
        )
        .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text'))
        .option(
          '--out <FILE>',
          'write the report in --format to FILE (replaced atomically); stdout then shows the text report',
        ),
      "test these environments of wafctl.yaml: a name, a glob ('prod-*') or all, the default without --live; repeatable",
    ),
  ).action(async (paths: string[], _flags: TestFlags, command: Command) =>
    done(await test(paths, command.optsWithGlobals<TestFlags>(), io)),
  );
}

/** The connection flags given, which only `--live` uses. */
const CONNECTION_FLAGS: [keyof ConnectionFlags, string][] = [
  ['url', '--url'],
  ['tokenFile', '--token-file'],
  ['passwordFile', '--password-file'],
  ['emulatorState', '--emulator-state'],
  ['timeout', '--timeout'],
];

async function test(paths: string[], flags: TestFlags, io: Io): Promise<number> {
  const given = CONNECTION_FLAGS.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
  if (!flags.live && given.length > 0) {
    throw usageError(
      `${given.join(' and ')} ${given.length === 1 ? 'applies' : 'apply'} to --live only: without it, the cases run against the configuration's rules, offline`,
    );
  }
  // Heavy modules (yaml, zod, the evaluator's re2js) load here, not at start-up.
  const { openWorkspace } = await import('./workspace.js');
  const { fleetSelection } = await import('./environments.js');
  const { ALL_ENVIRONMENTS } = await import('../config/project.js');
  const workspace = await openWorkspace(io, paths, flags);
  // Offline, every environment when none is named (as validate); live, one must be (as plan).
  const names =
    workspace.project !== undefined && flags.env.length === 0 && !flags.live ? [ALL_ENVIRONMENTS] : flags.env;
  const selection = await fleetSelection(
    io,
    workspace,
    paths,
    flags,
    {
      option: '--env',
      needed:
        'pass --env NAME (or --env all) to choose the firewall to test against; nothing was read from it. Without --live, wafctl test runs every environment offline.',
    },
    { given: names },
  );
  if (selection === undefined || !selection.several) {
    // One run: its error is the command's, printed alone.
    return print(io, flags, [await runOne(io, paths, flags, workspace, selection?.names[0])]);
  }
  return runEvery(io, paths, flags, workspace, selection.names);
}

/**
 * Several environments, two at a time: every report printed (a failed environment's place says so),
 * then each failed environment's error, as plan and drift print them.
 */
async function runEvery(
  io: Io,
  paths: readonly string[],
  flags: TestFlags,
  workspace: Workspace,
  names: readonly string[],
): Promise<number> {
  const { reportEnvironmentError } = await import('./multi-environment.js');
  const { mapLimited } = await import('../kinds/normalize.js');
  const { concurrencyOf, settle } = await import('../ops/environments.js');
  const { redact } = await import('../core/secrets.js');
  const settled = await mapLimited(names, concurrencyOf(flags.concurrency), (name) =>
    settle(name, () => runOne(io, paths, flags, workspace, name)),
  );
  const runs = settled.map(
    ({ name, value, error }) =>
      value ?? { name, error: redact(error instanceof Error ? error.message : String(error)) },
  );
  let code = await print(io, flags, runs);
  for (const { name, error } of settled) {
    if (error !== undefined) code = Math.max(code, reportEnvironmentError(io, error, name));
  }
  return code;
}

/** Prints the runs (and writes `--out`); 0 when every run has a report and every case passed. */
async function print(io: Io, flags: TestFlags, runs: readonly TestRun[]): Promise<number> {
  const { renderTests } = await import('../plan/render/tests.js');
  const color = colorEnabled(io, flags.color);
  if (flags.out === undefined) writeOut(io, renderTests(runs, flags.format, { color }));
  else {
    await writeTextFile(io, flags.out, renderTests(runs, flags.format, { color: false }), { atomic: true });
    writeOut(io, renderTests(runs, 'text', { color }));
  }
  return runs.every((run) => run.report?.passed === true) ? 0 : 1;
}

/**
 * One run: the PATHs' configuration, or environment `name`'s; its cases (refused when there is
 * none, before any request) against its own rules, or the live firewall's.
 */
async function runOne(
  io: Io,
  paths: readonly string[],
  flags: TestFlags,
  workspace: Workspace,
  name?: string,
): Promise<TestRun> {
  const { loadWorkspaceConfig } = await import('./workspace.js');
  const { environmentNamed } = await import('../ops/project.js');
  const { casesOf, runTests, sourceFiles } = await import('../ops/test/run.js');
  const { configuredRules } = await import('../ops/test/rules.js');
  const { project } = workspace;
  const environment =
    name === undefined || project === undefined ? undefined : environmentNamed(project, name);
  // Where the connection is (and what --env refuses with it) is checked before anything is read.
  const connection = flags.live ? await liveConnection(io, paths, flags, name) : undefined;
  // The work tree's cases, even with a trusted ref: this is the developer's tool, not the gate.
  const { config } = await loadWorkspaceConfig(io, workspace, { paths, environment }, 'work tree');
  const where = sourceFiles(paths, environment);
  casesOf(config, where);
  const rules = connection === undefined ? configuredRules(config.state) : await connection.read();
  const source = { source: connection === undefined ? 'configuration' : 'live', environment: name } as const;
  return { name, report: runTests(config, rules, source, where) };
}

/** The live firewall of the run (environment `name`'s, or the connection flags'), and how to read its rules. */
async function liveConnection(
  io: Io,
  paths: readonly string[],
  flags: TestFlags,
  name: string | undefined,
): Promise<{ read: () => Promise<EvalRule[]> }> {
  const { selectEnvironment } = await import('./environments.js');
  const { withApiClient } = await import('./connection.js');
  const { liveRules } = await import('../ops/test/rules.js');
  const { HYDRATION_CONCURRENCY } = await import('../ops/defaults.js');
  // `get`'s selection: the same checks (--url with --env, an unset url_env), reading a firewall.
  const selected = await selectEnvironment(
    io,
    paths,
    { ...flags, env: name === undefined ? [] : [name] },
    'get',
  );
  const environment = selected?.connection;
  return {
    read: () =>
      withApiClient(io, flags, (api) => liveRules(api, { concurrency: HYDRATION_CONCURRENCY }), {
        environment,
      }),
  };
}

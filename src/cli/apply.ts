/**
 * `wafctl apply`: plan, show the plan, confirm, apply, report. With `--plan FILE`, apply exactly a
 * saved plan, without a prompt: refused when made against another server, rebuilt from the live
 * objects (refused when stale), then gated exactly as a fresh plan. Exit 0 only if everything applied
 * (and with `--wait`, every rule written is synced to its firewalls: src/ops/apply/wait.ts);
 * 130/143 when SIGINT/SIGTERM stopped it (interrupt.ts). With several environments (`--env all`, or
 * `--env` repeated), all or nothing at the gate. This file reads the flags, loads what is applied and
 * opens the connections; the workflow itself is src/ops/apply/workflow.ts, given the run's I/O.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { LoadedConfig } from '../config/validate-sources.js';
import { usageError, WafctlError } from '../core/errors.js';
import {
  CHANGES_TRUST,
  FAILS_TESTS,
  type FailOnClass,
  IMPACT_CLASSES,
  type PlanTrust,
} from '../core/model.js';
import type { BehaviourTests } from '../ops/apply/replan.js';
import { DEFAULT_WAIT_TIMEOUT_MS, formatDuration, readDuration } from '../ops/apply/wait-timeout.js';
import type { ApplyIo, ApplySettings, ApplySource, LoadedEnvironment } from '../ops/apply/workflow.js';
import { DEFAULT_BATCH_SIZE, DEFAULT_PARALLELISM, SIGNAL_EXIT_CODES } from '../ops/defaults.js';
import type { EnvironmentConnection, LoadTarget } from '../ops/project.js';
import type { ApplyOutput } from './apply-output.js';
import type { InterruptSignal, Io } from './io.js';
import {
  addConnectionOptions,
  addFleetOptions,
  addSelectionOptions,
  type ConnectionFlags,
  type FleetFlags,
  parseFailOn,
  parsePositiveInt,
  type SelectionFlags,
} from './options.js';
import { colorEnabled, writeErr } from './output.js';
import type { TrustFlags, Workspace } from './workspace.js';

export interface ApplyFlags extends FleetFlags, ConnectionFlags, SelectionFlags, TrustFlags {
  format: 'text' | 'json';
  report?: string;
  env: string[];
  autoApprove?: boolean;
  plan?: string;
  parallelism: number;
  batchSize: number;
  force?: boolean;
  allowPartial?: boolean;
  failOn?: FailOnClass[];
  color?: boolean;
  wait?: boolean;
  /** Milliseconds. */
  waitTimeout?: number;
  /** `--concurrency N`: environments at once. */
  concurrency?: number;
}

/** For commander: `--wait-timeout`'s milliseconds (wait-timeout.ts `readDuration`). */
function parseWaitTimeout(value: string): number {
  const ms = readDuration(value);
  if (ms === undefined) {
    throw new InvalidArgumentError(
      '--wait-timeout must be a positive duration, e.g. 90s, 5m or 1m30s (a bare number is seconds).',
    );
  }
  return ms;
}

/** `--wait`'s settings: asked by `--wait`, or by `--wait-timeout` alone, which implies it. */
function waitOf(flags: ApplyFlags): ApplySettings['wait'] {
  if (flags.wait !== true && flags.waitTimeout === undefined) return undefined;
  return { timeoutMs: flags.waitTimeout ?? DEFAULT_WAIT_TIMEOUT_MS };
}

function refuse(message: string): WafctlError {
  return new WafctlError('PLAN_REFUSED', message, { userFault: true });
}

/** `wafctl apply`'s options and help; `done` is given the exit code. */
export function applyCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addSelectionOptions(addFleetOptions(new Command('apply')))
      .description('plan, then create, update and delete to match the configuration')
      .argument('[PATH...]', 'files or directories of YAML configuration (default: .)')
      .option('--auto-approve', 'do not ask for confirmation')
      .option(
        '--plan <FILE>',
        'apply a plan saved by `plan --out` (refused if it is stale), judged by the policy of the configuration at PATH (or --trusted-ref), not the one it records',
      )
      .option(
        '--parallelism <N>',
        'write calls in flight',
        parsePositiveInt('--parallelism'),
        DEFAULT_PARALLELISM,
      )
      .option(
        '--batch-size <N>',
        'objects per bulk call',
        parsePositiveInt('--batch-size'),
        DEFAULT_BATCH_SIZE,
      )
      .option('--force', 'apply even when deletes exceed the safety threshold')
      .option(
        '--fail-on <CLASS,...>',
        `apply nothing and exit 3 when a change has one of these security impact classes: ${IMPACT_CLASSES.join(', ')}; or ${CHANGES_TRUST}: the work tree changes what --trusted-ref pins; or ${FAILS_TESTS}: a rule test does not pass after the plan`,
        parseFailOn,
      )
      .option(
        '--wait',
        'after the writes, wait until every action of the application rules created, replaced or updated is synced to its firewall; exit 1 naming each rule and firewall in sync error or not synced by --wait-timeout',
      )
      .option(
        '--wait-timeout <DURATION>',
        `how long --wait waits, e.g. 90s, 5m or 1m30s (default: ${formatDuration(DEFAULT_WAIT_TIMEOUT_MS)}); implies --wait`,
        parseWaitTimeout,
      )
      .option(
        '--allow-partial',
        'when some objects could not be planned, apply the changes of the others (default: apply nothing)',
      )
      .addOption(
        new Option(
          '--format <FORMAT>',
          'json: print the apply report (every change and its outcome) on stdout as JSON, and the plan and progress on stderr',
        )
          .choices(['text', 'json'])
          .default('text'),
      )
      .option('--report <FILE>', 'also write the JSON apply report to FILE'),
  ).action(async (paths: string[], _flags: ApplyFlags, command: Command) =>
    done(await apply(paths, command.optsWithGlobals<ApplyFlags>(), io)),
  );
}

/**
 * Runs the apply; whatever stops it before a report is written (a usage, configuration or connection
 * error, a failed read, a signal) still gives the one report `--format json` and `--report` promise.
 */
async function apply(paths: string[], flags: ApplyFlags, io: Io): Promise<number> {
  const { applyOutput } = await import('./apply-output.js');
  const output = applyOutput(io, flags);
  const stopListening = output.stopOnSignal();
  try {
    return await applyWith(paths, flags, io, output);
  } catch (error) {
    const { exitCodeOf } = await import('./report-error.js');
    // The error that stopped the run is the one reported; a report that cannot be written is said too.
    await output.stopped(error, exitCodeOf(error)).catch((failure: unknown) => {
      writeErr(io, `Error: ${failure instanceof Error ? failure.message : String(failure)}`);
    });
    throw error;
  } finally {
    stopListening();
  }
}

async function applyWith(paths: string[], flags: ApplyFlags, io: Io, output: ApplyOutput): Promise<number> {
  // A saved plan was approved when it was reviewed; a fresh one needs a person at a terminal.
  const interactive = flags.plan === undefined && !flags.autoApprove;
  if (interactive && !io.stdin.isTTY) {
    throw refuse(
      'refusing to apply without confirmation: no terminal to ask on. Pass --auto-approve to apply.',
    );
  }
  const { environmentFlags, severalEnvironments } = await import('./environments.js');
  const { applyToEnvironments, applyToFirewall } = await import('../ops/apply/workflow.js');

  // Checked before any request; a saved plan already holds only the changes it was made with.
  const { selectionOf } = await import('../ops/selection/selection.js');
  const selection = selectionOf(flags);
  if (selection !== undefined && flags.plan !== undefined) {
    throw usageError(
      '--target, --exclude and --kind select the changes of a fresh plan: a saved plan applies exactly the changes it holds (select them with `plan --out`)',
    );
  }
  const settings: ApplySettings = {
    failOn: flags.failOn ?? [],
    allowPartial: flags.allowPartial === true,
    force: flags.force === true,
    interactive,
    parallelism: flags.parallelism,
    batchSize: flags.batchSize,
    selection,
    color: colorEnabled(io, flags.color),
    wait: waitOf(flags),
    concurrency: flags.concurrency,
  };
  const run = await applyIo(io, output);
  const roots = paths.length > 0 ? paths : ['.'];
  const several = await severalEnvironments(io, roots, flags, 'apply');
  if (several !== undefined) {
    if (flags.plan !== undefined) {
      throw usageError(
        `--plan applies one saved plan, made for one environment: give one --env NAME with --plan, not ${several.length} (${several.join(', ')})`,
      );
    }
    return applyToEnvironments(
      several,
      (name) => loadEnvironment(io, roots, environmentFlags(flags, name)),
      settings,
      run,
    );
  }

  // Configuration problems and unreadable saved plans are reported before any network call, and so
  // is a saved plan made against another server (no request, not even a sign-in, reaches it).
  const { source, environment } = await loadSource(io, roots, flags);
  const { withApiClient } = await import('./connection.js');
  return withApiClient(io, flags, (api) => applyToFirewall(source, api, settings, run), { environment });
}

/** The I/O the apply workflow is given: this run's output, prompt, progress, signals and clock. */
async function applyIo(io: Io, output: ApplyOutput): Promise<ApplyIo> {
  const { noteWriter } = await import('./planning.js');
  const { progressReporter } = await import('./progress.js');
  const { interruptOnSignals } = await import('./interrupt.js');
  const { reportEnvironmentError } = await import('./multi-environment.js');
  return {
    output,
    tell: (line) => writeErr(io, line),
    note: (line, name) => noteWriter(io, { environment: name === undefined ? undefined : { name } })(line),
    confirm: () => askToApply(io, output.prompt),
    // One environment: a live line on a terminal; several at once: one line per call, each named.
    progress: (name) =>
      name === undefined
        ? progressReporter(io.stderr, (line) => writeErr(io, line))
        : progressReporter(undefined, (line) => writeErr(io, `${name}: ${line}`)),
    interrupt: () => interruptOnSignals(io),
    // The API client's clock; the system's when the run has none.
    now: () => (io.clock?.now ?? Date.now)(),
    sleep: io.clock?.sleep?.bind(io.clock),
    timer: io.clock?.timer?.bind(io.clock),
    failed: (error, name) => reportEnvironmentError(io, error, name),
  };
}

/** One of several environments: its configuration, and how to connect to its firewall. */
async function loadEnvironment(
  io: Io,
  roots: readonly string[],
  flags: ApplyFlags,
): Promise<LoadedEnvironment> {
  const { loadSelected } = await import('./planning.js');
  const { openApiClient } = await import('./connection.js');
  const { config, environment, trust } = await loadSelected(io, roots, flags, 'apply');
  return { config, trust, connect: () => openApiClient(io, flags, { environment }) };
}

/**
 * What one firewall's apply plans from, and the environment it connects to: the configuration at
 * PATHs (or `--env NAME`'s), or with `--plan FILE` the saved plan, judged by the policy in force
 * (`savedPlanJudge`) and refused when made against another server than this run's.
 */
async function loadSource(
  io: Io,
  roots: readonly string[],
  flags: ApplyFlags,
): Promise<{ source: ApplySource; environment: EnvironmentConnection | undefined }> {
  if (flags.plan === undefined) {
    const { loadSelected } = await import('./planning.js');
    const { config, environment, trust } = await loadSelected(io, roots, flags, 'apply');
    return { source: { from: 'config', config, trust, environment: environment?.name }, environment };
  }
  const { readSavedPlan, assertMadeAgainst, recordedPolicyDiffers } = await import(
    '../ops/apply/saved-plan.js'
  );
  const { baseUrlInUse } = await import('./planning.js');
  const saved = await readSavedPlan(flags.plan, { cwd: io.cwd });
  // With --plan, the PATHs (default: the current directory) give the policy it is judged by.
  const { policy, trust, tests, environment } = await savedPlanJudge(io, roots, flags);
  const differ = recordedPolicyDiffers(saved, policy);
  if (differ.length > 0) {
    const from = trust === undefined ? 'the configuration' : `the trusted ref ${trust.ref}`;
    writeErr(
      io,
      `Note: ${flags.plan} records other ${differ.join(', ')} than those in force: it is judged by those of ${from}, not by what the file says.`,
    );
  }
  const here = baseUrlInUse(flags, io.env, environment);
  if (here !== undefined) assertMadeAgainst(saved, here);
  const source: ApplySource = { from: 'saved', saved, policy, trust, tests, environment: environment?.name };
  return { source, environment };
}

/**
 * Asks the person at the terminal. Undefined when they approved; else the exit code: 1 when they
 * said anything but `yes`, 130/143 when Ctrl-C or a signal cancelled the question.
 */
async function askToApply(io: Io, prompt: Io['stdout']): Promise<number | undefined> {
  const { confirm } = await import('./confirm.js');
  // Ctrl-C at the prompt, or SIGINT/SIGTERM sent to the process: the same cancel.
  const interrupt = new AbortController();
  let received: InterruptSignal = 'SIGINT';
  const stopListening = io.onSignal((signal) => {
    received = signal;
    interrupt.abort();
  });
  const answer = await confirm(io.stdin, prompt, undefined, interrupt.signal).finally(stopListening);
  if (answer === 'approved') return undefined;
  // Terraform's words and codes: not an error, the person at the terminal said no.
  writeErr(io, '\nApply cancelled.');
  return answer === 'interrupted' ? SIGNAL_EXIT_CODES[received] : 1;
}

/**
 * What `apply --plan FILE` is judged by and where it connects: the policy in force (the trusted ref's,
 * or the configuration's at PATHs), never the settings the file records, whoever wrote them, and with
 * `--fail-on fails_tests` the configuration's rule tests, never the Behaviour the file records; with
 * `--env NAME`, that environment's policy and connection (a root with environments needs one).
 */
async function savedPlanJudge(io: Io, paths: readonly string[], flags: ApplyFlags) {
  const { selectWorkspace } = await import('./environments.js');
  const { assertTrustGate } = await import('./workspace.js');
  const { planPolicy } = await import('./planning.js');
  const { selected, workspace } = await selectWorkspace(io, paths, flags, 'apply');
  assertTrustGate(workspace, flags.failOn);
  const target = { paths, environment: selected?.environment };
  const tested = flags.failOn?.includes(FAILS_TESTS) === true;
  const { policy, trust, tests } = await judgeInForce(io, workspace, target, tested).catch(
    async (error: unknown) => {
      const { ConfigError } = await import('../config/problems.js');
      if (error instanceof ConfigError) {
        const what = tested ? 'policy and rule tests' : 'policy';
        const fields = 'settings.firewall_actions, settings.safety, manage, tests';
        writeErr(
          io,
          `Note: apply --plan judges the saved plan by the ${what} of the configuration (${fields}), read from ${paths.join(' ')}: give the configuration's PATH (apply --plan ${flags.plan} config/), or --trusted-ref.`,
        );
      }
      throw error;
    },
  );
  return { policy: planPolicy(policy), trust, tests, environment: selected?.connection };
}

/**
 * The policy in force, and when `tested` (`--fail-on fails_tests`) the configuration's rule tests.
 * The tests run on the live rules with the plan's changes, whose extra targets and operators
 * (`settings.extra_*`, not policy) only the whole configuration holds: so with the flag the whole
 * configuration is loaded, as a fresh apply loads it (its objects validated, its variables read);
 * without it only the policy is, so that objects can neither fail nor leak.
 */
async function judgeInForce(
  io: Io,
  workspace: Workspace,
  target: LoadTarget,
  tested: boolean,
): Promise<{ policy: LoadedConfig; trust?: PlanTrust | undefined; tests?: BehaviourTests | undefined }> {
  const { policyInForce, loadWorkspaceConfig } = await import('./workspace.js');
  if (!tested) return policyInForce(io, workspace, target);
  const { config, trust } = await loadWorkspaceConfig(io, workspace, target);
  if (config.state.tests.length === 0) return { policy: config, trust };
  const { catalogExtensions } = await import('../config/rule-catalog-settings.js');
  return {
    policy: config,
    trust,
    tests: { tests: config.state.tests, extensions: catalogExtensions(config.state) },
  };
}

/**
 * `wafctl apply`: plan, show the plan, confirm, apply, report. With `--plan FILE`, apply exactly a
 * saved plan, without a prompt: refused when made against another server, rebuilt from the live
 * objects (refused when stale), then gated exactly as a fresh plan. Exit 0 only if everything applied;
 * 130/143 when SIGINT/SIGTERM stopped it (interrupt.ts).
 */
import { Command, Option } from 'commander';
import type { ApiClient } from '../api/index.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { exitCodeFor, usageError, WafctlError } from '../core/errors.js';
import { CHANGES_TRUST, type FailOnClass, IMPACT_CLASSES, type Plan } from '../core/model.js';
import type { GateOptions } from '../ops/apply/gate.js';
import type { ApplyReport, CallEvent } from '../ops/apply/model.js';
import type { Selection } from '../plan/targets.js';
import type { ApplyOutput } from './apply-output.js';
import { EXIT_CODES, type InterruptSignal, type Io } from './io.js';
import {
  addConnectionOptions,
  addEnvironmentOption,
  addSelectionOptions,
  type ConnectionFlags,
  DEFAULT_BATCH_SIZE,
  DEFAULT_PARALLELISM,
  parseFailOn,
  parsePositiveInt,
  type SelectionFlags,
  selectionOf,
} from './options.js';
import { colorEnabled, writeErr } from './output.js';
import type { TrustFlags } from './workspace.js';

export interface ApplyFlags extends ConnectionFlags, SelectionFlags, TrustFlags {
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
}

function refuse(message: string): WafctlError {
  return new WafctlError('PLAN_REFUSED', message, { userFault: true });
}

export function applyCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addSelectionOptions(addEnvironmentOption(new Command('apply')))
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
        `apply nothing and exit 3 when a change has one of these security impact classes: ${IMPACT_CLASSES.join(', ')}; or ${CHANGES_TRUST}: the work tree changes what --trusted-ref pins`,
        parseFailOn,
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

  const { withApiClient } = await import('./connection.js');
  const { baseUrlInUse, loadSelected, environmentHeading, withTrust } = await import('./planning.js');
  const { severalEnvironments } = await import('./environments.js');
  const { renderTextPlan } = await import('../plan/render/text.js');
  const { readSavedPlan, assertMadeAgainst, recordedPolicyDiffers } = await import(
    '../ops/apply/saved-plan.js'
  );
  const { replanSavedPlan } = await import('../ops/apply/replan.js');
  const { applyGate } = await import('../ops/apply/gate.js');
  const { renderApplyReport } = await import('../ops/apply/report.js');
  const { applySucceeded } = await import('../ops/apply/model.js');
  const { progressReporter } = await import('./progress.js');
  const { interruptOnSignals } = await import('./interrupt.js');
  const { applyReportDocument, unappliedReportDocument } = await import('../ops/apply/report-document.js');

  // Checked before any request; a saved plan already holds only the changes it was made with.
  const selection = await selectionOf(flags);
  if (selection !== undefined && flags.plan !== undefined) {
    throw usageError(
      '--target, --exclude and --kind select the changes of a fresh plan: a saved plan applies exactly the changes it holds (select them with `plan --out`)',
    );
  }
  const several = await severalEnvironments(io, paths.length > 0 ? paths : ['.'], flags, 'apply');
  if (several !== undefined) {
    if (flags.plan !== undefined) {
      throw usageError(
        `--plan applies one saved plan, made for one environment: give one --env NAME with --plan, not ${several.length} (${several.join(', ')})`,
      );
    }
    const { applyEnvironments } = await import('./apply-environments.js');
    return applyEnvironments(io, paths, several, flags, { interactive, selection, output });
  }

  // Configuration problems and unreadable saved plans are reported before any network call, and so
  // is a saved plan made against another server (no request, not even a sign-in, reaches it).
  // With --plan, the PATHs (default: the current directory) give the policy it is judged by.
  const roots = paths.length > 0 ? paths : ['.'];
  const source =
    flags.plan === undefined
      ? ({ from: 'config', ...(await loadSelected(io, roots, flags, 'apply')) } as const)
      : ({
          from: 'saved',
          saved: await readSavedPlan(flags.plan, { cwd: io.cwd }),
          ...(await savedPlanJudge(io, roots, flags)),
        } as const);
  if (source.from === 'saved') {
    const differ = recordedPolicyDiffers(source.saved, source.policy);
    if (differ.length > 0) {
      const from = source.trust === undefined ? 'the configuration' : `the trusted ref ${source.trust.ref}`;
      writeErr(
        io,
        `Note: ${flags.plan} records other ${differ.join(', ')} than those in force: it is judged by those of ${from}, not by what the file says.`,
      );
    }
  }
  const connection = source.flags;
  const here = baseUrlInUse(connection, io.env);
  if (source.from === 'saved' && here !== undefined) assertMadeAgainst(source.saved, here);

  return withApiClient(io, connection, async (api) => {
    const concurrency = flags.parallelism;
    // A saved plan is rebuilt from the live objects and its intent: nothing it says about what a
    // change does (fields, before/after, impact, warnings) is believed.
    const { plan, username } =
      source.from === 'saved'
        ? {
            plan: withTrust(
              await replanSavedPlan(source.saved, api, concurrency, source.policy),
              source.trust,
            ),
            username: source.saved.username,
          }
        : {
            plan: withTrust(
              await freshPlan(source.config, api, { io, connection, concurrency, selection }),
              source.trust,
            ),
            username: source.config.state.settings.username,
          };
    const heading = environmentHeading(connection);
    if (heading !== undefined) output.show(heading);
    output.show(renderTextPlan(plan, { color: colorEnabled(io, flags.color) }));

    const gate = applyGate(plan, gateOptions(flags, interactive, username));
    const notApplied = async (reason: string, exitCode: number) => {
      if (output.wanted)
        await output.report(unappliedReportDocument(plan, reason, { exitCode, durationMs: 0 }));
      return exitCode;
    };
    if (gate.verdict === 'nothing') return notApplied('no changes', 0);
    if (gate.verdict === 'refuse') {
      await notApplied(gate.error.message, exitCodeFor(gate.error));
      throw gate.error;
    }
    if (gate.verdict === 'confirm') {
      const declined = await askToApply(io, output.prompt);
      if (declined !== undefined) return notApplied('declined at the prompt', declined);
    }

    const progress = progressReporter(io.stderr, (line) => writeErr(io, line));
    // Until the report is out: a signal stops the apply cleanly instead of killing it mid-way.
    const interruption = interruptOnSignals(io);
    try {
      const started = now(io);
      const report = await applyChanges(plan, api, flags, {
        username,
        onCall: progress.onCall,
        signal: interruption.signal,
      });
      progress.finish();
      output.show(`\n${renderApplyReport(report)}`);
      const exitCode = interruption.exitCode() ?? (applySucceeded(report) ? 0 : 1);
      if (output.wanted) {
        await output.report(applyReportDocument(report, { exitCode, durationMs: now(io) - started }));
      }
      return exitCode;
    } finally {
      interruption.dispose();
    }
  });
}

/** A fresh plan of the configuration, restricted to the selection (`--target`, ...) when there is one. */
export async function freshPlan(
  config: LoadedConfig,
  api: ApiClient,
  options: { io: Io; connection: ConnectionFlags; concurrency: number; selection: Selection | undefined },
): Promise<Plan> {
  const { refreshAndPlan } = await import('../ops/refresh.js');
  const { noteWriter } = await import('./planning.js');
  const { selectPlan } = await import('../plan/targets.js');
  const whole = await refreshAndPlan(config, api, {
    concurrency: options.concurrency,
    warn: noteWriter(options.io, options.connection),
  });
  return options.selection === undefined ? whole : selectPlan(whole, options.selection);
}

/** The gate's options from the flags (src/ops/apply/gate.ts). */
export function gateOptions(flags: ApplyFlags, interactive: boolean, username: string): GateOptions {
  return {
    failOn: flags.failOn ?? [],
    allowPartial: flags.allowPartial === true,
    force: flags.force === true,
    interactive,
    username,
  };
}

/** Milliseconds on the run's clock (the API client's; the system's when the run has none). */
export const now = (io: Io): number => (io.clock?.now ?? Date.now)();

/** Carries out an approved plan with the flags' parallelism and batch size. */
export async function applyChanges(
  plan: Plan,
  api: ApiClient,
  flags: ApplyFlags,
  options: {
    username: string;
    onCall: (event: CallEvent) => void;
    signal: AbortSignal;
  },
): Promise<ApplyReport> {
  const { applyPlan } = await import('../ops/apply/applier.js');
  return applyPlan(plan, api, { parallelism: flags.parallelism, batchSize: flags.batchSize, ...options });
}

/**
 * Asks the person at the terminal. Undefined when they approved; else the exit code: 1 when they
 * said anything but `yes`, 130/143 when Ctrl-C or a signal cancelled the question.
 */
export async function askToApply(io: Io, prompt: Io['stdout']): Promise<number | undefined> {
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
  return answer === 'interrupted' ? EXIT_CODES[received] : 1;
}

/**
 * What `apply --plan FILE` is judged by and where it connects: the policy in force (the trusted ref's,
 * or the configuration's at PATHs), never the settings the file records, whoever wrote them; with
 * `--env NAME`, that environment's policy and connection (a root with environments needs one). A
 * note says when the file records other settings.
 */
async function savedPlanJudge(io: Io, paths: readonly string[], flags: ApplyFlags) {
  const { selectWorkspace } = await import('./environments.js');
  const { policyInForce, assertTrustGate } = await import('./workspace.js');
  const { planPolicy } = await import('./planning.js');
  const { selected, workspace } = await selectWorkspace(io, paths, flags, 'apply');
  assertTrustGate(workspace, flags.failOn);
  const target = { paths, environment: selected?.environment };
  const { policy, trust } = await policyInForce(io, workspace, target).catch(async (error: unknown) => {
    const { ConfigError } = await import('../config/problems.js');
    if (error instanceof ConfigError) {
      writeErr(
        io,
        `Note: apply --plan judges the saved plan by the policy of the configuration (settings.firewall_actions, settings.safety, manage), read from ${paths.join(' ')}: give the configuration's PATH (apply --plan ${flags.plan} config/), or --trusted-ref.`,
      );
    }
    throw error;
  });
  return {
    flags: selected === undefined ? flags : { ...flags, environment: selected.connection },
    policy: planPolicy(policy),
    trust,
  };
}

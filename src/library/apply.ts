/**
 * `apply`: the CLI's apply workflow (ops/apply/workflow.ts `applyToFirewall`: plan, gate, approve,
 * write, report), given the library's I/O instead of the terminal's, and the apply report
 * `wafctl apply --format json` prints. A refusal at the gate (`failOn`, the safety threshold,
 * objects that could not be planned) and a declined approval are answers: the report says so
 * (`exit_code`, each change `not_started` with its reason).
 */
import type { FailOnClass as CoreFailOnClass } from '../core/model.js';
import type { ApplyReportJson } from '../ops/apply/report-document.js';
import { DEFAULT_WAIT_TIMEOUT_MS } from '../ops/apply/wait-timeout.js';
import { type ApplyIo, type ApplySettings, applyToFirewall } from '../ops/apply/workflow.js';
import { DEFAULT_BATCH_SIZE, DEFAULT_PARALLELISM, SIGNAL_EXIT_CODES } from '../ops/defaults.js';
import { selectionOf } from '../ops/selection/selection.js';
import { abortSignalOf, apiClientOf, type Same } from './context.js';
import type { ApplyReport } from './documents.js';
import { loadConfiguration } from './plan.js';
import type { ApplyOptions, FailOnClass } from './types.js';

// The public FailOnClass (types.ts) is the core's.
const sameClasses: Same<FailOnClass, CoreFailOnClass> = true;
void sameClasses;

/** The gate's and the applier's settings from the options (the CLI's from its flags). */
function settingsOf(options: ApplyOptions): ApplySettings {
  // Their types and values are checked at the entry point (options.ts): the classes, the numbers.
  return {
    failOn: [...(options.failOn ?? [])],
    allowPartial: options.allowPartial === true,
    force: options.force === true,
    interactive: options.confirm !== undefined,
    parallelism: options.parallelism ?? DEFAULT_PARALLELISM,
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    selection: selectionOf(options),
    color: false,
    wait: waitOf(options),
  };
}

/** `wait` and `waitTimeoutSeconds` (which implies it), as the CLI's `--wait` and `--wait-timeout`. */
function waitOf({ wait, waitTimeoutSeconds: seconds }: ApplyOptions): ApplySettings['wait'] {
  if (wait !== true && seconds === undefined) return undefined;
  return { timeoutMs: seconds === undefined ? DEFAULT_WAIT_TIMEOUT_MS : seconds * 1000 };
}

/** The workflow's I/O: text and notes to the caller's hooks, the report kept, the caller's signal. */
function applyIo(options: ApplyOptions, keep: (document: ApplyReportJson) => void): ApplyIo {
  let shown = '';
  const note = (line: string) => options.onNote?.(line);
  return {
    output: {
      show: (text) => {
        shown = text;
        options.onText?.(text);
      },
      wanted: true,
      report: async (document) => keep(document),
      reportEnvironments: async () => undefined,
    },
    tell: note,
    note,
    // Called with the plan just shown; 1 (declined), as a `no` at the CLI's prompt.
    confirm: async () => ((await options.confirm?.(shown)) === true ? undefined : 1),
    progress: () => ({ onCall: () => undefined, finish: () => undefined }),
    interrupt: () => {
      const signal = abortSignalOf(options.signal) ?? new AbortController().signal;
      return {
        signal,
        exitCode: () => (signal.aborted ? SIGNAL_EXIT_CODES.SIGINT : undefined),
        dispose: () => undefined,
      };
    },
    now: () => (options.clock?.now ?? Date.now)(),
    sleep: options.clock?.sleep?.bind(options.clock),
    failed: () => 1,
  };
}

/**
 * Applies the configuration (one environment's, with `environment`) to the firewall of
 * `options.connection` or of the environment; gives the apply report.
 */
export async function applyConfiguration(options: ApplyOptions): Promise<ApplyReport> {
  // Bad options and configuration errors are reported before any request, as in the CLI.
  const settings = settingsOf(options);
  const { config, environment } = await loadConfiguration(options, 'apply');
  const api = await apiClientOf(options, environment);
  let report: ApplyReportJson | undefined;
  const io = applyIo(options, (document) => {
    report = document;
  });
  try {
    await applyToFirewall({ from: 'config', config, environment: environment?.name }, api, settings, io);
  } catch (error) {
    // A refusal at the gate is reported first: the report is the answer, as `--format json` prints it.
    if (report === undefined) throw error;
  }
  if (report === undefined) throw new Error('the apply workflow gave no report');
  return report;
}

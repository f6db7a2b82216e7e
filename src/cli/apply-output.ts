/**
 * Where apply writes: the plan, progress and text report for people, and the JSON apply report for
 * machines (`--format json`: on stdout, and then everything for people goes to stderr; `--report
 * FILE`: written there, whatever the format). Exactly one report is written in every run that wants
 * one: applied, refused at the gate, declined, with nothing to do (src/ops/apply/report-document.ts),
 * and also when the run stops before it has a plan: a usage, configuration or connection error, a
 * failed read, a signal (`stopped`, `stopOnSignal`).
 */
import { renderJsonApplyReports, stoppedReportDocument } from '../ops/apply/report-document.js';
import type { ApplyReporter } from '../ops/apply/workflow.js';
import { SIGNAL_EXIT_CODES } from '../ops/defaults.js';
import { stopAtOnce } from './interrupt.js';
import type { Io } from './io.js';
import { writeErr, writeOut, writeTextFile, writeTextFileNow } from './output.js';

export interface ApplyOutputFlags {
  format: 'text' | 'json';
  report?: string | undefined;
}

/** The apply workflow's output (ops/apply/workflow.ts): text for people on stdout, or on stderr with `--format json`. */
export interface ApplyOutput extends ApplyReporter {
  /** Where the prompt is asked. */
  readonly prompt: Io['stdout'];
  /** The report of a run that `error` stopped before it had a plan, unless a report was written. */
  stopped(error: unknown, exitCode: number): Promise<void>;
  /**
   * Until a report is written, a SIGINT or SIGTERM writes the stopped report (at once), says so and
   * exits, as the default handler does (interrupt.ts); later layers (the prompt, the apply's own
   * interrupt) take the signal while they listen, and writing a report stops it listening. Returns
   * the function that stops listening (safe to call twice).
   */
  stopOnSignal(): () => void;
}

/** The output of one apply run: its text and its one JSON report, as the flags ask. */
export function applyOutput(io: Io, flags: ApplyOutputFlags): ApplyOutput {
  const json = flags.format === 'json';
  const wanted = json || flags.report !== undefined;
  let written = false;
  let stopListening: (() => void) | undefined;
  const write = async (text: string) => {
    written = true;
    stopListening?.(); // a report is out: a signal now stops the run as it would without one
    if (json) writeOut(io, text);
    if (flags.report !== undefined) await writeTextFile(io, flags.report, text);
  };
  /** The report of a run stopped before it had a plan (loaded with apply.ts, so a signal need not wait). */
  const stoppedText = (error: unknown, exitCode: number) =>
    `${JSON.stringify(stoppedReportDocument(error, { exit_code: exitCode, duration_ms: 0 }), null, 2)}\n`;
  return {
    show: (text) => (json ? writeErr(io, text) : writeOut(io, text)),
    prompt: json ? io.stderr : io.stdout,
    wanted,
    report: (document) => write(`${JSON.stringify(document, null, 2)}\n`),
    reportEnvironments: ({ documents, errors }) => write(renderJsonApplyReports(documents, errors)),
    async stopped(error, exitCode) {
      if (wanted && !written) await write(stoppedText(error, exitCode));
    },
    stopOnSignal() {
      if (!wanted || written) return () => {};
      const stop = io.onSignal((signal) => {
        const code = SIGNAL_EXIT_CODES[signal];
        written = true;
        const why = new Error(`interrupted (${signal}) before the apply: the firewall was not changed`);
        const text = stoppedText(why, code);
        if (json) writeOut(io, text);
        const failure = flags.report === undefined ? undefined : writeTextFileNow(io, flags.report, text);
        if (failure !== undefined) writeErr(io, `Error: ${failure}`);
        stopAtOnce(io, signal);
      });
      stopListening = stop;
      return stop;
    },
  };
}

/**
 * Where apply writes: the plan, progress and text report for people, and the JSON apply report for
 * machines (`--format json`: on stdout, and then everything for people goes to stderr; `--report
 * FILE`: written there, whatever the format). The report is written whenever a plan was made: applied,
 * refused at the gate, declined, or with nothing to do (src/ops/apply/report-document.ts).
 */
import type { ApplyReportJson } from '../ops/apply/report-document.js';
import type { Io } from './io.js';
import { writeErr, writeOut, writeTextFile } from './output.js';

export interface ApplyOutputFlags {
  format: 'text' | 'json';
  report?: string | undefined;
}

export interface ApplyOutput {
  /** Text for people: stdout, or stderr with `--format json`. */
  show(text: string): void;
  /** Where the prompt is asked. */
  readonly prompt: Io['stdout'];
  /** One environment's report. */
  report(document: ApplyReportJson): Promise<void>;
  /** Several environments' reports, in order (`null` for one that could not be planned). */
  reportEnvironments(documents: readonly (readonly [string, ApplyReportJson | null])[]): Promise<void>;
  /** Whether a report is wanted at all (else building one is skipped). */
  readonly wanted: boolean;
}

export function applyOutput(io: Io, flags: ApplyOutputFlags): ApplyOutput {
  const json = flags.format === 'json';
  const write = async (text: string) => {
    if (json) writeOut(io, text);
    if (flags.report !== undefined) await writeTextFile(io, flags.report, text);
  };
  return {
    show: (text) => (json ? writeErr(io, text) : writeOut(io, text)),
    prompt: json ? io.stderr : io.stdout,
    wanted: json || flags.report !== undefined,
    report: (document) => write(`${JSON.stringify(document, null, 2)}\n`),
    async reportEnvironments(documents) {
      const { renderJsonApplyReports } = await import('../ops/apply/report-document.js');
      await write(renderJsonApplyReports(documents));
    },
  };
}

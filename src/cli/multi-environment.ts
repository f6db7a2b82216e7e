/**
 * `plan` and `drift` with several environments (`--env all`, globs, or `--env` repeated): each
 * environment runs as if it alone were selected — its own configuration, connection and secrets —
 * `--concurrency` at a time (default 2), and the outputs are combined in the order wafctl.yaml
 * declares the environments. The exit code is the worst of theirs: 1 (an error) over 3 (a `--fail-on`
 * class) over 2 (changes or drift) over 0; an environment that fails never stops the others nor hides
 * their output, which is printed before the errors.
 *
 * Memory does not grow with the fleet: an environment's plan, live objects and client are dropped
 * once its output is rendered; what is kept of it is that text and its summary row. Text and
 * markdown open with the summary table, so they are written once every environment is done (markdown
 * is bounded by `--max-chars`); JSON is written as the environments finish, in declared order (only
 * those finished ahead of an earlier one wait), with `summary` last.
 */
import { exitCodeFor, usageError, WafctlError } from '../core/errors.js';
import { type EnvironmentSummary, environmentsSummarySchema, errorLine } from '../core/fleet-summary.js';
import type { ImpactClass } from '../core/impact-classes.js';
import { PLAN_FORMAT_VERSION } from '../core/plan-document.js';
import { mapLimited } from '../kinds/normalize.js';
import { concurrencyOf, OrderedOutput, type Settled, settle, worse } from '../ops/environments.js';
import {
  failedSummary,
  markdownSummaryBudget,
  markdownSummaryTable,
  resultOf,
  type SummaryRow,
  textSection,
  textSummaryTable,
} from '../plan/render/environments.js';
import { MARKDOWN_MAX_CHARS, MARKDOWN_MIN_CHARS } from '../plan/render/markdown.js';
import { markdownText } from '../plan/render/markdown-text.js';
import { type EnvironmentFlags, environmentFlags } from './environments.js';
import type { Io } from './io.js';
import { writeOut, writeTextFile } from './output.js';
import { reportError } from './report-error.js';

/** What one environment's run gives: its output, as it alone would print it (without a heading). */
export interface EnvironmentResult {
  output: string;
  /** 0, or 2: changes (`plan --detailed-exitcode`) or drift. */
  code: number;
  /** A refusal that comes after the output (`--fail-on`, the plan's problems). */
  refusal?: WafctlError | undefined;
  /** Its changes (plan) or drifted objects (drift), for the summary. */
  count: number;
  /** The worst impact class of its changes, for the summary. */
  impact: ImpactClass | null;
}

export interface SeveralOptions {
  command: 'plan' | 'drift';
  format: 'text' | 'markdown' | 'json';
  /** `--max-chars`: the markdown document as a whole. */
  maxChars?: number | undefined;
  /** The markdown marker of the command's output, kept once, at the top of the document. */
  marker: string;
  /** `drift --report FILE`: the combined output is also written there. */
  report?: string | undefined;
  /** `--concurrency N`: environments at once (default ENVIRONMENT_CONCURRENCY). */
  concurrency?: number | undefined;
}

/** What is kept of an environment once its output is written: its row, exit code and failure. */
interface Finished extends SummaryRow {
  code: number;
  /** Its error, or the refusal that came after its output. */
  failure?: unknown;
}

// The names are wafctl.yaml's, as markdown text: a name such as `www.example.com` links nothing.
const markdownHeader = (options: SeveralOptions, names: readonly string[]): string =>
  `${options.marker}\n## wafctl ${options.command}: ${names.map((name) => markdownText(name)).join(', ')}\n\n`;

const markdownSection = (name: string, body: string): string => `\n## ${markdownText(name)}\n\n${body}`;

/**
 * Each environment's share of `--max-chars` (what is left after the document's own lines, split
 * evenly); refused when it is below what the renderer needs for one environment.
 */
export function markdownShare(options: SeveralOptions, names: readonly string[]): number {
  const total = options.maxChars ?? MARKDOWN_MAX_CHARS;
  const overhead =
    markdownHeader(options, names).length +
    markdownSummaryBudget(names) +
    names.reduce((n, name) => n + markdownSection(name, '').length, 0);
  const share = Math.floor((total - overhead) / names.length);
  if (share < MARKDOWN_MIN_CHARS) {
    const needed = overhead + MARKDOWN_MIN_CHARS * names.length;
    throw usageError(
      `--max-chars ${total} is too small for ${names.length} environments (${names.join(', ')}): each section needs at least ${MARKDOWN_MIN_CHARS} characters; give at least ${needed}${needed > MARKDOWN_MAX_CHARS ? ', which is over the limit: select fewer environments' : ''}.`,
    );
  }
  return share;
}

/**
 * Runs `run` for every environment, `--concurrency` at a time, with `flags` narrowed to it (`--env
 * NAME`, and with markdown its share of `--max-chars`), prints the combined output (opened by the
 * summary table, or with JSON its `summary`), then each environment's error (`Error: NAME: ...`),
 * and returns the exit code.
 */
export async function runSeveral<F extends EnvironmentFlags>(
  io: Io,
  names: readonly string[],
  flags: F,
  options: SeveralOptions,
  run: (flags: F) => Promise<EnvironmentResult>,
): Promise<number> {
  // Checked before any request.
  const share = options.format === 'markdown' ? markdownShare(options, names) : undefined;
  const output = severalOutput(io, options, names);
  const finished = await mapLimited([...names.keys()], concurrencyOf(options.concurrency), async (index) => {
    const name = names[index] ?? '';
    const outcome = await settle(name, () =>
      run({ ...environmentFlags(flags, name), ...(share === undefined ? {} : { maxChars: share }) }),
    );
    output.put(index, outcome.value?.output);
    // Only the row is kept: the output is written or held as text, the plan is gone with `run`'s scope.
    return finishedOf(options.command, outcome);
  });
  await output.end(finished);
  let code = 0;
  for (const { name, code: own, failure } of finished) {
    code = worse(code, failure === undefined ? own : reportEnvironmentError(io, failure, name));
  }
  return code;
}

/** An environment's row, exit code and failure, from what its run gave or threw. */
function finishedOf(command: SeveralOptions['command'], outcome: Settled<EnvironmentResult>): Finished {
  const { name, value, error } = outcome;
  if (value === undefined) {
    return { name, summary: failedSummary(error), code: exitCodeFor(error), failure: error };
  }
  const { count, impact, refusal, code } = value;
  const summary: EnvironmentSummary = {
    result: resultOf(command, count),
    count,
    impact,
    error: refusal === undefined ? null : errorLine(refusal),
  };
  return { name, summary, code, failure: refusal };
}

/**
 * Reports an environment's error as `Error: NAME: ...` and returns its exit code; a message that
 * already starts by naming the environment (`environment NAME: TOKEN is not set ...`) is not
 * prefixed a second time.
 */
export function reportEnvironmentError(io: Io, error: unknown, name: string): number {
  const message = error instanceof WafctlError ? error.message : '';
  return reportError(io, error, message.startsWith(`environment ${name}:`) ? '' : `${name}: `);
}

/** The combined output: each environment's section given as it finishes, the whole ended with the rows. */
interface SeveralOutput {
  put(index: number, output: string | undefined): void;
  end(rows: readonly Finished[]): Promise<void>;
}

/**
 * Writes JSON as the sections come, in declared order; holds text and markdown sections (text only)
 * until the summary table that opens them is known. `--report` gets the same output, once it is whole.
 */
function severalOutput(io: Io, options: SeveralOptions, names: readonly string[]): SeveralOutput {
  const streamed = options.format === 'json';
  const kept: string[] = [];
  const emit = (text: string) => {
    if (streamed) writeOut(io, text);
    if (!streamed || options.report !== undefined) kept.push(text);
  };
  if (streamed) emit(JSON_HEAD);
  const ordered = new OrderedOutput<string | undefined>((output, index) =>
    emit(sectionOf(options, names, index, output)),
  );
  return {
    put: (index, output) => ordered.put(index, output),
    async end(rows) {
      const opening = streamed ? '' : openingOf(options, names, rows);
      const closing = streamed ? jsonTail(rows) : '';
      writeOut(io, streamed ? closing : `${opening}${kept.join('')}`);
      if (options.report !== undefined) {
        await writeTextFile(io, options.report, `${opening}${kept.join('')}${closing}`);
      }
    },
  };
}

/** Versioned as one environment's document is (schemas/plan.schema.json, drift-report.schema.json). */
const JSON_HEAD = `{\n  "format_version": ${PLAN_FORMAT_VERSION},\n  "environments": {\n`;

/** `json`, written with two-space indentation, as at `depth` levels into the document. */
const nested = (json: unknown, depth: number): string =>
  JSON.stringify(json, null, 2).replaceAll('\n', `\n${'  '.repeat(depth)}`);

/** The end of the JSON document: each environment's `summary`, by name. */
function jsonTail(rows: readonly Finished[]): string {
  const summary = environmentsSummarySchema.parse(
    Object.fromEntries(rows.map(({ name, summary: row }) => [name, row])),
  );
  return `  },\n  "summary": ${nested(summary, 1)}\n}\n`;
}

/** What opens text and markdown: the markdown document's header, and the summary table. */
function openingOf(options: SeveralOptions, names: readonly string[], rows: readonly Finished[]): string {
  return options.format === 'markdown'
    ? `${markdownHeader(options, names)}${markdownSummaryTable(rows)}`
    : textSummaryTable(rows);
}

/** The `index`-th environment's section; `output` undefined: it failed (its error is printed at the end). */
function sectionOf(
  options: SeveralOptions,
  names: readonly string[],
  index: number,
  output: string | undefined,
): string {
  const name = names[index] ?? '';
  const what = options.command === 'plan' ? 'plan' : 'drift report';
  if (options.format === 'json') {
    // A failed environment is null: its error is on stderr, and the exit code is 1.
    const document = output === undefined ? null : (JSON.parse(output) as unknown);
    const comma = index < names.length - 1 ? ',' : '';
    return `    ${JSON.stringify(name)}: ${nested(document, 2)}${comma}\n`;
  }
  if (options.format === 'markdown') {
    // The body without its own marker line: the document has one, at the top.
    const body =
      output === undefined
        ? `_No ${what}: this environment failed (see the job log)._\n`
        : output.startsWith(`${options.marker}\n`)
          ? output.slice(options.marker.length + 1)
          : output;
    return markdownSection(name, body);
  }
  return textSection(name, output, `No ${what}`, index);
}

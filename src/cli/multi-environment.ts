/**
 * `plan` and `drift` with several environments (`--env all`, or `--env` repeated): each environment
 * runs as if it alone were selected — its own configuration, connection and secrets — two at a time,
 * and the outputs are combined in the order wafctl.yaml declares the environments. The exit code is
 * the worst of theirs: 1 (an error) over 3 (a `--fail-on` class) over 2 (changes or drift) over 0; an
 * environment that fails never hides the others' output, which is printed before the errors.
 */
import { exitCodeFor, usageError, WafctlError } from '../core/errors.js';
import { PLAN_FORMAT_VERSION } from '../core/plan-document.js';
import { mapLimited } from '../kinds/normalize.js';
import { ENVIRONMENT_CONCURRENCY, type Settled, settle, worse } from '../ops/environments.js';
import { textSections } from '../plan/render/environments.js';
import { MARKDOWN_MAX_CHARS, MARKDOWN_MIN_CHARS } from '../plan/render/markdown.js';
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
}

type Outcome = Settled<EnvironmentResult>;

const markdownHeader = (options: SeveralOptions, names: readonly string[]): string =>
  `${options.marker}\n## wafctl ${options.command}: ${names.join(', ')}\n`;

const markdownSection = (name: string, body: string): string => `\n## ${name}\n\n${body}`;

/**
 * Each environment's share of `--max-chars` (what is left after the document's own lines, split
 * evenly); refused when it is below what the renderer needs for one environment.
 */
export function markdownShare(options: SeveralOptions, names: readonly string[]): number {
  const total = options.maxChars ?? MARKDOWN_MAX_CHARS;
  const overhead =
    markdownHeader(options, names).length +
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
 * Runs `run` for every environment, with `flags` narrowed to it (`--env NAME`, and with markdown its
 * share of `--max-chars`), prints the combined output, then each environment's error
 * (`Error: NAME: ...`), and returns the exit code.
 */
export async function runSeveral<F extends object>(
  io: Io,
  names: readonly string[],
  flags: F,
  options: SeveralOptions,
  run: (flags: F & { env: string[] }) => Promise<EnvironmentResult>,
): Promise<number> {
  // Checked before any request.
  const share = options.format === 'markdown' ? markdownShare(options, names) : undefined;
  const outcomes = await mapLimited(names, ENVIRONMENT_CONCURRENCY, (name) =>
    settle(name, () => run({ ...flags, env: [name], ...(share === undefined ? {} : { maxChars: share }) })),
  );
  const combined = combine(options, names, outcomes);
  writeOut(io, combined);
  if (options.report !== undefined) await writeTextFile(io, options.report, combined);
  let code = 0;
  for (const { name, value, error } of outcomes) {
    const failure = error ?? value?.refusal;
    if (failure !== undefined) code = worse(code, reportEnvironmentError(io, failure, name));
    else code = worse(code, value?.code ?? exitCodeFor(error));
  }
  return code;
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

function combine(options: SeveralOptions, names: readonly string[], outcomes: readonly Outcome[]): string {
  const what = options.command === 'plan' ? 'plan' : 'drift report';
  const output = (i: number): string | undefined => outcomes[i]?.value?.output;
  if (options.format === 'json') {
    // A failed environment is null: its error is on stderr, and the exit code is 1.
    const environments = Object.fromEntries(
      names.map((name, i) => {
        const shown = output(i);
        return [name, shown === undefined ? null : (JSON.parse(shown) as unknown)];
      }),
    );
    // Versioned as one environment's document is (schemas/plan.schema.json, drift-report.schema.json).
    return `${JSON.stringify({ format_version: PLAN_FORMAT_VERSION, environments }, null, 2)}\n`;
  }
  if (options.format === 'markdown') {
    const sections = names.map((name, i) => {
      const shown = output(i);
      // The body without its own marker line: the document has one, at the top.
      const body =
        shown === undefined
          ? `_No ${what}: this environment failed (see the job log)._\n`
          : shown.startsWith(`${options.marker}\n`)
            ? shown.slice(options.marker.length + 1)
            : shown;
      return markdownSection(name, body);
    });
    return `${markdownHeader(options, names)}${sections.join('')}`;
  }
  return textSections(
    names,
    names.map((_, i) => output(i)),
    `No ${what}`,
  );
}

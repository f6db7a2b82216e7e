/** The job summary of apply and pull (pure); plan and drift put their markdown there instead. */
import type { Invocation } from './invocation.js';

/** The most of a command's log the job summary holds: its head and its tail, the middle elided. */
export const SUMMARY_LOG_LIMIT = 60_000;

/**
 * The job summary of apply and pull: a heading with the outcome, and the command's log as text,
 * without terminal colours.
 */
export function commandSummary(
  run: Invocation,
  code: number,
  hasChanges: boolean,
  log: string,
  enforcement?: string,
): string {
  // A code span: the name (letters, digits, `.`, `-`, `_`: invocation.ts) could read `www.example.com`
  // or `GH-1`, which GitHub would link as text, and links nothing in code. This layer imports none of
  // src/ (plan/render/markdown-text.ts makes other data inert); a name holds no backtick to escape.
  const where = run.environments.length === 1 ? ` (\`${run.environments[0]}\`)` : '';
  const outcome =
    code === 0 ? 'succeeded' : code === 3 ? 'refused by fail-on (exit 3)' : `failed (exit ${code})`;
  const lines = [`### wafctl ${run.command}${where}: ${outcome}`, ''];
  if (run.command === 'apply') lines.push(`Changes: ${hasChanges ? 'yes' : 'none'}`, '');
  if (enforcement !== undefined) lines.push(`Enforcement: ${enforcement}`, '');
  let text = stripColours(log).trimEnd();
  if (text.length > SUMMARY_LOG_LIMIT) {
    const half = SUMMARY_LOG_LIMIT / 2;
    const elided = text.length - SUMMARY_LOG_LIMIT;
    text = `${text.slice(0, half)}\n[... ${elided} characters left out: the whole log is in the step's output ...]\n${text.slice(-half)}`;
  }
  if (text !== '') {
    // A fence longer than any run of backticks in the log, so the log cannot close it.
    const longest = (text.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 2);
    const fence = '`'.repeat(longest + 1);
    lines.push(`${fence}text`, text, fence, '');
  }
  return `${lines.join('\n')}\n`;
}

/** What an apply report's `enforcement` (`--wait`) says, summed up: `result` and counts only. */
interface EnforcementJson {
  result?: unknown;
  timeout_ms?: unknown;
  summary?: { rules?: unknown; synced?: unknown; actions?: unknown };
}

const WAIT_RESULTS: Readonly<Record<string, string>> = {
  enforced: 'every action synced',
  not_enforced: 'NOT enforced: some actions are in sync error or not read back as written',
  timed_out: 'NOT enforced: some actions were not synced by the timeout',
  interrupted: 'not known: the wait was interrupted (the writes are done)',
  unreadable: 'not known: the rules could not be read back (the writes are done)',
};

/**
 * The job summary's enforcement line from the JSON apply report `apply --wait --report` wrote: what
 * the wait found, and how many actions of how many rules are synced (the log names each one that is
 * not). Undefined without a report or an `enforcement` in it.
 */
export function enforcementSummary(reportText: string | undefined): string | undefined {
  let enforcement: EnforcementJson | undefined;
  try {
    enforcement = (JSON.parse(reportText ?? '') as { enforcement?: EnforcementJson }).enforcement;
  } catch {
    return undefined;
  }
  const said = WAIT_RESULTS[String(enforcement?.result)];
  if (said === undefined) return undefined;
  const { rules, synced, actions } = enforcement?.summary ?? {};
  const counts = [rules, synced, actions].every((n) => typeof n === 'number')
    ? ` (${synced} of ${actions} actions synced, ${rules} application rule${rules === 1 ? '' : 's'})`
    : '';
  return `${said}${counts}`;
}

const ESC = String.fromCharCode(27);
const COLOURS = new RegExp(`${ESC}\\[[0-9;]*[A-Za-z]`, 'g');

function stripColours(text: string): string {
  return text.replace(COLOURS, '');
}

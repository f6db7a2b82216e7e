/** Terraform-style text plan. Returns a string; colour only when asked (the CLI decides). */
import { styleText } from 'node:util';
import type { Action, Change, ImpactClass, Plan } from '../../core/model.js';
import { printable } from '../../core/text.js';
import { type BehaviourEntry, textBehaviourSection } from './behaviour.js';
import { type BodyLine, changeBody } from './body.js';
import { readOnlyEntries, readOnlyHeadline } from './read-only.js';
import { hasImpactSection, textImpactSection } from './security.js';
import {
  actionsUsed,
  duplicatesLines,
  headline,
  LEGEND,
  NO_CHANGES,
  noteLine,
  partialLine,
  planLine,
  problemLine,
  renamedFromText,
  SYMBOL,
  suggestionLine,
  unmanagedLine,
  warningLine,
} from './summary.js';
import { textTrustSection } from './trust.js';

export interface TextOptions {
  color: boolean;
}

type Style = Parameters<typeof styleText>[0];
const ACTION_STYLE: Record<Action, Style> = {
  create: 'green',
  update: 'yellow',
  delete: 'red',
  replace: 'magenta',
};
const SIGN_STYLE: Record<string, Style> = { '+': 'green', '-': 'red', '~': 'yellow' };
const IMPACT_STYLE: Record<ImpactClass, Style> = {
  weakens_protection: 'red',
  broadens_access: 'yellow',
  reduces_audit: 'yellow',
};

/** The plan as text for a terminal (coloured when `options.color`): warnings first, then every change. */
export function renderTextPlan(plan: Plan, options: TextOptions): string {
  // The CLI has already decided (TTY, NO_COLOR, --no-color); styleText must not second-guess it.
  const paint = (style: Style, text: string) =>
    options.color ? styleText(style, text, { validateStream: false }) : text;
  const out: string[] = [];

  // Safety warnings first: apply refuses such a plan without --force, which must not hide at the end
  // of thousands of lines of details.
  const warnings = [partialLine(plan), ...plan.warnings.map(warningLine)].filter(
    (line) => line !== undefined,
  );
  for (const warning of warnings) out.push(`${paint('yellow', 'Warning:')} ${warning}`);
  if (warnings.length > 0) out.push('');
  // What the plan was judged by, before the judgement.
  for (const line of textTrustSection(plan)) out.push(line);

  for (const line of judgementLines(plan, paint)) out.push(line);
  if (plan.changes.length > 0) {
    out.push(
      '',
      'wafctl will perform the following actions:',
      '',
      'Resource actions are indicated with the following symbols:',
    );
    for (const action of actionsUsed(plan)) {
      out.push(`${paint(ACTION_STYLE[action], SYMBOL[action].padStart(3))} ${LEGEND[action]}`);
    }
    out.push('');
    for (const change of plan.changes) {
      for (const line of renderChange(change, paint, plan.usernames)) out.push(line);
      out.push('');
    }
  }

  for (const line of readOnlyLines(plan, paint)) out.push(line);
  for (const problem of plan.problems) {
    out.push(`${paint('red', 'Error:')} ${problemLine(problem)}`);
  }
  const notes = plan.notes ?? [];
  const suggestions = plan.rename_suggestions ?? [];
  for (const note of notes) out.push(`${paint('cyan', 'Note:')} ${noteLine(note)}`);
  const duplicates = duplicatesLines(plan);
  for (const line of duplicates) out.push(`${paint('cyan', 'Note:')} ${line}`);
  for (const suggestion of suggestions) out.push(`${paint('cyan', 'Hint:')} ${suggestionLine(suggestion)}`);
  const unmanaged = unmanagedLine(plan);
  if (unmanaged) out.push(unmanaged);
  if (
    plan.problems.length > 0 ||
    notes.length > 0 ||
    duplicates.length > 0 ||
    suggestions.length > 0 ||
    unmanaged
  )
    out.push('');

  out.push(plan.changes.length > 0 ? paint('bold', planLine(plan)) : NO_CHANGES);
  return `${out.join('\n')}\n`;
}

const BEHAVIOUR_STYLE: Record<BehaviourEntry['what'], Style> = {
  changes: 'yellow',
  fails: 'red',
  error: 'red',
};

/**
 * The reviewer's first questions, answered before the details (and in full: one line a reason): the
 * Security impact section, then the Behaviour section (what the rule tests do after the plan).
 */
function judgementLines(plan: Plan, paint: (style: Style, text: string) => string): string[] {
  const impact = hasImpactSection(plan)
    ? textImpactSection(plan, (klass, text) => paint(IMPACT_STYLE[klass], text))
    : [];
  const behaviour = textBehaviourSection(plan, (what, text) => paint(BEHAVIOUR_STYLE[what], text));
  const lines = [...impact, ...(impact.length > 0 && behaviour.length > 0 ? [''] : []), ...behaviour];
  // The details open with a blank line of their own.
  if (lines.length > 0 && plan.changes.length === 0) lines.push('');
  return lines;
}

function renderChange(
  change: Change,
  paint: (style: Style, text: string) => string,
  usernames?: Readonly<Record<string, string>>,
): string[] {
  const symbol = paint(ACTION_STYLE[change.action], SYMBOL[change.action].padStart(3));
  const renamed = renamedFromText(change);
  const lines = [
    paint('bold', `  # ${headline(change)}`),
    ...(renamed === undefined ? [] : [`  # ${renamed}`]),
    `${symbol} ${change.kind} ${printable(JSON.stringify(change.key))} {`,
  ];
  for (const line of changeBody(change, usernames)) lines.push(renderLine(line, paint));
  lines.push('    }');
  return lines;
}

/** The read-only objects that differ: a headline, then each one's expected and live values. */
function readOnlyLines(plan: Plan, paint: (style: Style, text: string) => string): string[] {
  const headline = readOnlyHeadline(plan);
  if (headline === undefined) return [];
  const lines = [`${paint('yellow', 'Read-only:')} ${headline}.`];
  for (const entry of readOnlyEntries(plan)) {
    lines.push(`  ${paint('yellow', '!')} ${entry.address} {`);
    for (const line of entry.lines) lines.push(renderLine(line, paint));
    lines.push('    }');
  }
  lines.push('');
  return lines;
}

function renderLine(line: BodyLine, paint: (style: Style, text: string) => string): string {
  const style = SIGN_STYLE[line.sign];
  const sign = style ? paint(style, line.sign) : line.sign;
  const note = line.note ? ` ${paint('red', line.note)}` : '';
  return `      ${'    '.repeat(line.depth)}${sign} ${line.text}${note}`;
}

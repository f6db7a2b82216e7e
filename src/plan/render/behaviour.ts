/**
 * The Behaviour section (src/plan/behaviour.ts), shared by the text and markdown renderers: what the
 * plan does to the configuration's rule tests, after the Security impact section and before the
 * details. Each test whose outcome changes (`admin panel from outside: block -> log`) and each that
 * does not pass after the plan, with why; only those, so the section stays short.
 */
import type { BehaviourChange, FailingTest, Plan, PlanBehaviour } from '../../core/model.js';
import type { Outcome } from '../../core/rules/evaluate.js';
import { plural, printable } from '../../core/text.js';
import { codeSpan, markdownText } from './markdown-text.js';

/** One line of the section: a test whose outcome changes, or one that does not pass after the plan. */
export interface BehaviourEntry {
  what: 'changes' | 'fails' | 'error';
  /** The test's name, as written (escaped by the renderer). */
  name: string;
  /** `block -> log`, or why it does not pass (or cannot be evaluated); escaped by the renderer. */
  text: string;
}

/**
 * `4 tests; 1 changes its outcome, 1 fails after this plan.`, or `2 tests; no outcome changes, all
 * pass after this plan.`: said even when nothing changes, so a reviewer knows the tests ran.
 */
export function behaviourHeadline(behaviour: PlanBehaviour): string {
  const changed = behaviour.changed.length;
  const fails = behaviour.failing.filter((test) => test.status === 'fail').length;
  const errors = behaviour.failing.length - fails;
  const parts = [
    changed === 0
      ? 'no outcome changes'
      : `${changed} ${changed === 1 ? 'changes its outcome' : 'change their outcome'}`,
  ];
  if (fails > 0) parts.push(`${fails} ${fails === 1 ? 'fails' : 'fail'}`);
  if (errors > 0) parts.push(`${errors} cannot be evaluated`);
  if (fails + errors === 0) parts.push(behaviour.tests === 1 ? 'it passes' : 'all pass');
  return `${plural(behaviour.tests, 'test')}; ${parts.join(', ')} after this plan.`;
}

/** The changed tests, then the failing ones, each in the configuration's order. */
export function behaviourEntries(behaviour: PlanBehaviour): BehaviourEntry[] {
  return [
    ...behaviour.changed.map((test) => ({ what: 'changes' as const, name: test.name, text: flip(test) })),
    ...behaviour.failing.map(failure),
  ];
}

/**
 * `block -> log`; when the action stays and another rule decides, each side names its rule:
 * `block (shop.example.com/Block admin) -> block (shop.example.com/Block admin area)`.
 */
function flip({ before, after }: BehaviourChange): string {
  const rules = before.action.toLowerCase() === after.action.toLowerCase();
  return `${outcomeText(before, rules)} -> ${outcomeText(after, rules)}`;
}

function outcomeText(outcome: Outcome, withRule: boolean): string {
  return withRule && outcome.rule !== undefined ? `${outcome.action} (${outcome.rule})` : outcome.action;
}

function failure(test: FailingTest): BehaviourEntry {
  return { what: test.status === 'error' ? 'error' : 'fails', name: test.name, text: test.reason };
}

const TEXT_SIGN: Record<BehaviourEntry['what'], string> = { changes: '~', fails: '✗', error: '✗' };
/** What the text says before an entry's text: a test that cannot be evaluated says so. */
const TEXT_LEAD: Record<BehaviourEntry['what'], string> = {
  changes: '',
  fails: '',
  error: 'cannot be evaluated: ',
};

/** The text section, or nothing when the configuration has no tests; `paint` colours each sign. */
export function textBehaviourSection(
  plan: Pick<Plan, 'behaviour'>,
  paint: (what: BehaviourEntry['what'], text: string) => string = (_what, text) => text,
): string[] {
  const { behaviour } = plan;
  if (behaviour === undefined) return [];
  return [
    `Behaviour: ${behaviourHeadline(behaviour)}`,
    ...behaviourEntries(behaviour).map(
      (entry) =>
        `  ${paint(entry.what, TEXT_SIGN[entry.what])} ${printable(entry.name)}: ${TEXT_LEAD[entry.what]}${printable(entry.text)}`,
    ),
  ];
}

const MARKDOWN_LABEL: Record<BehaviourEntry['what'], string> = {
  changes: 'changes',
  fails: 'fails',
  error: 'cannot be evaluated',
};

/** The markdown section (a heading, the headline, a list), or nothing without tests. */
export function markdownBehaviourSection(plan: Pick<Plan, 'behaviour'>): string[] {
  const { behaviour } = plan;
  if (behaviour === undefined) return [];
  const entries = behaviourEntries(behaviour);
  const lines = ['#### Behaviour', '', markdownText(behaviourHeadline(behaviour)), ''];
  for (const entry of entries) {
    lines.push(
      `- **${MARKDOWN_LABEL[entry.what]}** ${codeSpan(printable(entry.name))}: ${markdownText(entry.text)}`,
    );
  }
  if (entries.length > 0) lines.push('');
  return lines;
}

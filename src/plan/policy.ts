/**
 * `--fail-on CLASS,...`: the pipeline's policy gate over the planner's security impact. Pure: the
 * commands decide what to do (exit 3; apply writes nothing).
 */
import { WafctlError } from '../core/errors.js';
import {
  CHANGES_TRUST,
  type Change,
  FAILS_TESTS,
  type FailingTest,
  type FailOnClass,
  IMPACT_CLASSES,
  type ImpactClass,
  type Plan,
} from '../core/model.js';
import { printable } from '../core/text.js';
import { changesWith } from './render/security.js';
import { address } from './render/summary.js';

/** Classes named by `--fail-on` that some change has, each with the changes that have it. */
export function failOnMatches(
  plan: Plan,
  classes: readonly FailOnClass[],
  /** Also the read-only objects that differ (drift, compare: what was done by hand). */
  { readOnly = false }: { readOnly?: boolean } = {},
): { class: ImpactClass; changes: Judged[] }[] {
  // A drift report's enforcement findings too (plans have none): a rule not enforced weakens protection.
  const judged: Judged[] = [
    ...plan.changes,
    ...(readOnly ? (plan.read_only ?? []) : []),
    ...(plan.enforcement ?? []),
  ];
  return IMPACT_CLASSES.filter((klass) => classes.includes(klass))
    .map((klass) => ({
      class: klass,
      changes: judged.filter((change) => change.impact.some((i) => i.class === klass)),
    }))
    .filter((match) => match.changes.length > 0);
}

/** What `--fail-on` judges: a change, a read-only object that differs, or a rule not enforced. */
type Judged = Pick<Change, 'kind' | 'key' | 'impact'>;

const SHOWN = 5;

/** One reason of a refusal: the class, what of the plan has it, and the section that lists it. */
interface RefusalPart {
  class: FailOnClass;
  text: string;
  section: string;
}

/**
 * The refusal when the plan has a `--fail-on` class (exit 3), or undefined. Names the classes and the
 * first few changes (or tests, or trust changes); the plan printed before it lists every reason.
 */
export function failOnRefusal(
  plan: Plan,
  classes: readonly FailOnClass[],
  consequence: string,
  options: { readOnly?: boolean } = {},
): WafctlError | undefined {
  const parts: RefusalPart[] = failOnMatches(plan, classes, options).map(({ class: klass, changes }) => ({
    class: klass,
    text: `${changesWith(changes.length, klass)} (${firstFew(changes.map(address))})`,
    section: 'Security impact',
  }));
  const trust = classes.includes(CHANGES_TRUST) ? (plan.trust?.changes ?? []) : [];
  if (trust.length > 0) parts.push({ class: CHANGES_TRUST, text: trustPart(trust), section: 'Trust' });
  const failing = classes.includes(FAILS_TESTS) ? (plan.behaviour?.failing ?? []) : [];
  if (failing.length > 0) parts.push({ class: FAILS_TESTS, text: testsPart(failing), section: 'Behaviour' });
  if (parts.length === 0) return undefined;
  const named = parts.map((part) => part.class).join(',');
  return new WafctlError(
    'POLICY_REFUSED',
    `--fail-on ${named}: ${parts.map((part) => part.text).join('; ')}; see the ${sections(parts)} above. ${consequence}`,
    { userFault: true },
  );
}

/** The first SHOWN names, then `and N more`. */
function firstFew(names: readonly string[]): string {
  const more = names.length > SHOWN ? ` and ${names.length - SHOWN} more` : '';
  return `${names.slice(0, SHOWN).join(', ')}${more}`;
}

/** `the work tree changes what the trusted ref pins: environment production (url), variables`. */
function trustPart(changes: NonNullable<Plan['trust']>['changes']): string {
  const subjects = [...new Set(changes.map((change) => printable(change.subject)))];
  return `the work tree changes what the trusted ref pins (${firstFew(subjects)}), which this plan did not use`;
}

/** `2 tests do not pass after this plan ("admin panel", "login spraying")`: failing or not evaluable. */
function testsPart(failing: readonly FailingTest[]): string {
  const n = failing.length;
  const names = failing.map((test) => JSON.stringify(printable(test.name)));
  return `${n} ${n === 1 ? 'test does' : 'tests do'} not pass after this plan (${firstFew(names)})`;
}

/** `Security impact section`, `Security impact and Trust sections`, `A, B and C sections`. */
function sections(parts: readonly RefusalPart[]): string {
  const names = [...new Set(parts.map((part) => part.section))];
  const last = names.pop() ?? '';
  return names.length === 0 ? `${last} section` : `${names.join(', ')} and ${last} sections`;
}

/**
 * `--fail-on CLASS,...`: the pipeline's policy gate over the planner's security impact. Pure: the
 * commands decide what to do (exit 3; apply writes nothing).
 */
import { WafctlError } from '../core/errors.js';
import {
  CHANGES_TRUST,
  type Change,
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
  const judged: Judged[] = [...plan.changes, ...(readOnly ? (plan.read_only ?? []) : [])];
  return IMPACT_CLASSES.filter((klass) => classes.includes(klass))
    .map((klass) => ({
      class: klass,
      changes: judged.filter((change) => change.impact.some((i) => i.class === klass)),
    }))
    .filter((match) => match.changes.length > 0);
}

/** What `--fail-on` judges: a change, or a read-only object that differs. */
type Judged = Pick<Change, 'kind' | 'key' | 'impact'>;

const SHOWN = 5;

/**
 * The refusal when a change has a `--fail-on` class (exit 3), or undefined. Names the classes and the
 * first few changes; the plan printed before it lists every reason.
 */
export function failOnRefusal(
  plan: Plan,
  classes: readonly FailOnClass[],
  consequence: string,
  options: { readOnly?: boolean } = {},
): WafctlError | undefined {
  const matches = failOnMatches(plan, classes, options);
  const trust = classes.includes(CHANGES_TRUST) ? (plan.trust?.changes ?? []) : [];
  if (matches.length === 0 && trust.length === 0) return undefined;
  const parts = matches.map(({ class: klass, changes }) => {
    const names = changes.slice(0, SHOWN).map(address).join(', ');
    const more = changes.length > SHOWN ? ` and ${changes.length - SHOWN} more` : '';
    return `${changesWith(changes.length, klass)} (${names}${more})`;
  });
  if (trust.length > 0) parts.push(trustPart(trust));
  const named = [...matches.map((match) => match.class), ...(trust.length > 0 ? [CHANGES_TRUST] : [])].join(
    ',',
  );
  return new WafctlError(
    'POLICY_REFUSED',
    `--fail-on ${named}: ${parts.join('; ')}; see the ${sections(matches.length > 0, trust.length > 0)} above. ${consequence}`,
    { userFault: true },
  );
}

/** `the work tree changes what the trusted ref pins: environment production (url), variables`. */
function trustPart(changes: NonNullable<Plan['trust']>['changes']): string {
  const subjects = [...new Set(changes.map((change) => printable(change.subject)))];
  const names = subjects.slice(0, SHOWN).join(', ');
  const more = subjects.length > SHOWN ? ` and ${subjects.length - SHOWN} more` : '';
  return `the work tree changes what the trusted ref pins (${names}${more}), which this plan did not use`;
}

function sections(impact: boolean, trust: boolean): string {
  if (impact && trust) return 'Security impact and Trust sections';
  return impact ? 'Security impact section' : 'Trust section';
}

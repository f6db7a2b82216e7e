/**
 * The application rules a rule test runs against, as the evaluator reads them (core/rules/types.ts
 * `EvalRule`): the configuration's, or the live firewall's, read through the family's descriptor as
 * a plan reads them (hydrated where the listing is incomplete, normalised to the configuration's
 * shape). Every live rule counts, whatever `manage` says: rules outside wafctl's scope decide
 * traffic too.
 */
import type { ApiClient } from '../../api/index.js';
import type { DesiredState } from '../../config/schema.js';
import type { EvalRule } from '../../core/rules/types.js';
import { applicationRulesKind, evalRuleOf } from '../../kinds/application-rules.js';

/** The configuration's application rules, in the order it declares them. */
export function configuredRules(state: Pick<DesiredState, 'application_rules'>): EvalRule[] {
  return state.application_rules.map(evalRuleOf);
}

/** The live firewall's application rules, every one (GET-one calls in flight: `concurrency`). */
export async function liveRules(
  api: ApiClient,
  { concurrency }: { concurrency: number },
): Promise<EvalRule[]> {
  const records = await applicationRulesKind.fetchAll(api, { concurrency });
  return records.map((record) => evalRuleOf(record.attributes));
}

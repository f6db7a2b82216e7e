/**
 * Application rules: keyed by `<rq_host>/<description>` (the API has no unique key of its own).
 * Conditions and actions cannot be updated: a change to them replaces the rule. List rows that do
 * not carry the full `actions` array and `conditions` are hydrated with GET-one, and only those.
 */
import type { ApplicationRule } from '../api/index.js';
import type { Kind } from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

export const applicationRuleKey = (rqHost: string, description: string | null): string =>
  `${rqHost}/${description ?? ''}`;

function normalize(rule: ApplicationRule) {
  return {
    rq_host: rule.rq_host,
    description: rule.description ?? '',
    priority: rule.priority,
    enabled: rule.enabled,
    duration: rule.duration,
    start_time: rule.start_time,
    conditions: sortedSet(
      rule.conditions.map((c) => ({
        operator: c.operator,
        not_op: c.not_op ?? false,
        expressions: sortedSet(c.expressions.map((e) => e.expression)),
        targets: sortedSet(c.targets.map((t) => t.target)),
      })),
    ),
    actions: sortedSet(
      rule.actions.map((a) => ({ firewall_action: a.firewall_action, firewall_name: a.firewall_name })),
    ),
  };
}

export const applicationRulesKind: Kind<'application_rules'> = {
  name: 'application_rule',
  section: 'application_rules',
  immutable: ['conditions', 'actions'],
  key: (rule) => applicationRuleKey(rule.rq_host, rule.description),
  attributes: (rule) => ({
    rq_host: rule.rq_host,
    description: rule.description,
    priority: rule.priority,
    enabled: rule.enabled,
    duration: rule.duration,
    start_time: rule.start_time,
    conditions: sortedSet(
      rule.conditions.map((c) => ({
        operator: c.operator,
        not_op: c.not_op,
        expressions: sortedSet(c.expressions),
        targets: sortedSet(c.targets),
      })),
    ),
    actions: sortedSet(
      rule.actions.map((a) => ({ firewall_action: a.firewall_action, firewall_name: a.firewall_name })),
    ),
  }),
  async fetchAll(api, { concurrency }) {
    const rows = await api.applicationRules.list();
    const rules = await mapLimited(rows, concurrency, (row) =>
      row.complete ? Promise.resolve(row) : api.applicationRules.get(row.id),
    );
    return rules.map((rule) => ({
      id: rule.id,
      key: applicationRuleKey(rule.rq_host, rule.description),
      attributes: normalize(rule),
    }));
  },
};

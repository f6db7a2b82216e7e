/**
 * Application rules: keyed by `<rq_host>/<description>` (the API has no unique key of its own).
 * Conditions and actions cannot be updated: a change to them replaces the rule. List rows that do
 * not carry the full `actions` array and `conditions` are hydrated with GET-one, and only those.
 */
import type {
  ApiClient,
  ApplicationRule,
  ApplicationRuleInput,
  ApplicationRuleUpdate,
} from '../api/index.js';
import type { Attributes } from '../plan/model.js';
import { attributesById, indexIds, type Kind, REREAD_CONCURRENCY, type RemoteRecord } from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

export const applicationRuleKey = (rqHost: string, description: string | null): string =>
  `${rqHost}/${description ?? ''}`;

/** A rule in the configuration's shape: expressions and targets as plain strings. */
interface RuleFields {
  rq_host: string;
  description: string;
  priority: string;
  enabled: boolean;
  duration: number | null;
  start_time: number | null;
  conditions: readonly {
    operator: string;
    not_op: boolean;
    expressions: readonly string[];
    targets: readonly string[];
  }[];
  actions: readonly { firewall_action: string; firewall_name: string }[];
}

/** The comparable record of a rule, desired or remote: every list a set in canonical order. */
function attributesOf(rule: RuleFields) {
  return {
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
  };
}

/** The API's rule in the configuration's shape (server fields dropped, documented defaults applied). */
const fromRemote = (rule: ApplicationRule): RuleFields => ({
  ...rule,
  description: rule.description ?? '',
  conditions: rule.conditions.map((c) => ({
    operator: c.operator,
    not_op: c.not_op ?? false,
    expressions: c.expressions.map((e) => e.expression),
    targets: c.targets.map((t) => t.target),
  })),
});

type RuleAttributes = ReturnType<typeof attributesOf>;

function toInput(attributes: Attributes, username: string): ApplicationRuleInput {
  const a = attributes as RuleAttributes;
  return {
    rq_host: a.rq_host,
    description: a.description,
    priority: a.priority,
    enabled: a.enabled,
    duration: a.duration,
    start_time: a.start_time,
    username,
    conditions: a.conditions.map((c) => ({
      operator: c.operator,
      not_op: c.not_op,
      expressions: c.expressions.map((expression) => ({ expression })),
      targets: c.targets.map((target) => ({ target })),
    })),
    actions: a.actions,
  };
}

const keyOfAttributes = (attributes: Attributes): string =>
  applicationRuleKey(String(attributes.rq_host), String(attributes.description));

/** Listed rows as records; only the incomplete ones are hydrated with a GET-one. */
async function recordsOf(
  api: ApiClient,
  rows: readonly ApplicationRule[],
  concurrency: number,
): Promise<RemoteRecord[]> {
  // Only incomplete rows go through the limiter: queueing 10,000 complete ones cost ~20 ms.
  const incomplete = rows.filter((row) => !row.complete);
  const hydrated = await mapLimited(incomplete, concurrency, (row) => api.applicationRules.get(row.id));
  const byId = new Map(incomplete.map((row, i) => [row.id, hydrated[i]]));
  return rows.map((row) => {
    const rule = byId.get(row.id) ?? row;
    return {
      id: rule.id,
      key: applicationRuleKey(rule.rq_host, rule.description),
      attributes: attributesOf(fromRemote(rule)),
      createdAt: rule.timestamp_create,
    };
  });
}

export const applicationRulesKind: Kind<'application_rules'> = {
  name: 'application_rule',
  section: 'application_rules',
  immutable: ['conditions', 'actions'],
  attributes: attributesOf,
  fetchAll: async (api, { concurrency }) => recordsOf(api, await api.applicationRules.list(), concurrency),
  keyOf: keyOfAttributes,
  writer: {
    bulkCreate: true,
    bulkUpdate: true,
    bulkDelete: true,
    deletesFirst: false,
    async create({ api, username }, objects) {
      await api.applicationRules.create(objects.map((object) => toInput(object, username)));
    },
    async update({ api }, changes) {
      // Every change of one call carries the same changed fields (conditions and actions never:
      // they are immutable), so one body serves them all.
      const attrs = changes[0]?.after as ApplicationRuleUpdate | undefined;
      if (attrs === undefined) return;
      const ids = changes.map((c) => c.id);
      if (ids.length === 1) await api.applicationRules.update(ids[0]!, attrs);
      else await api.applicationRules.updateMany(ids, attrs);
    },
    async delete({ api }, ids) {
      await api.applicationRules.delete(ids);
    },
    async idsByKey({ api }, objects) {
      // A filtered re-read: only the hosts of these rules.
      const hosts = [...new Set(objects.map((o) => String(o.rq_host)))];
      const rows = await api.applicationRules.list({ rq_host_list: hosts });
      const records = rows.map((r) => ({ id: r.id, key: applicationRuleKey(r.rq_host, r.description) }));
      return indexIds(records, new Set(objects.map(keyOfAttributes)));
    },
    async current({ api }, ids) {
      const rows = await api.applicationRules.list({ id_list: [...ids] });
      return attributesById(await recordsOf(api, rows, REREAD_CONCURRENCY), ids);
    },
  },
};

/**
 * Application rules: keyed by `<rq_host>/<description>` (the API has no unique key of its own).
 * Conditions and actions cannot be updated: a change to them replaces the rule. List rows that do
 * not carry the full `actions` array and `conditions` are hydrated with GET-one, and only those.
 */
import * as z from 'zod';
import type {
  ApiClient,
  ApplicationRule,
  ApplicationRuleInput,
  ApplicationRuleUpdate,
} from '../api/index.js';
import { canonicalJson } from '../core/canonical.js';
import { actionClass } from '../core/firewall-actions.js';
import {
  added,
  type ImpactContext,
  type ImpactRule,
  type ImpactSubject,
  listed,
  listField,
  reasonIf,
  removed,
  turned,
} from '../core/impact.js';
import type { Attributes } from '../core/model.js';
import type { EvalAction, EvalCondition, EvalRule } from '../core/rules/types.js';
import { setOf } from '../core/set-schema.js';
import { flag, fromMicros, text } from './cells.js';
import {
  attributesById,
  changedValues,
  type DesiredLookup,
  defineGet,
  defineKind,
  indexIds,
  kindObject,
  nonEmptyString,
  REREAD_CONCURRENCY,
  type RemoteRecord,
  shared,
} from './kind.js';
import { mapLimited, sortedSet } from './normalize.js';

const condition = z.strictObject({
  operator: nonEmptyString,
  not_op: z.boolean().default(false),
  expressions: setOf(nonEmptyString, 'expression', { min: 1 }),
  targets: setOf(nonEmptyString, 'target', { min: 1 }).meta({
    description: 'e.g. path, query, request:<header>, request_body:x-www-form-urlencoded:<name>.',
  }),
});

const action = z.strictObject({ firewall_action: nonEmptyString, firewall_name: nonEmptyString });

/**
 * Characters no host name (nor `host:port`, IP literal or IDN) can hold: `/`, which would also make
 * the natural key `<rq_host>/<description>` ambiguous (`a/b` + `c` and `a` + `b/c`), whitespace and
 * control characters. Globs (`*.example.com`) and ports stay allowed. The same pattern goes into the
 * editor schema.
 */
const NOT_IN_HOST_CHARS = String.raw`/\s\x00-\x1f\x7f-\x9f`;
const NOT_IN_HOST = new RegExp(`[${NOT_IN_HOST_CHARS}]`, 'u');
/** Also the editor schema's `pattern`: its source reads the same with or without the `u` flag. */
const HOST_PATTERN = new RegExp(`^[^${NOT_IN_HOST_CHARS}]*$`, 'u');

const hex = (c: string) => (c.codePointAt(0) ?? 0).toString(16).padStart(4, '0');

function notInHost(host: string): string {
  const found = NOT_IN_HOST.exec(host)?.[0] ?? '';
  const code = `U+${hex(found).toUpperCase()}`;
  const what =
    found === '/'
      ? "'/'"
      : found === ' '
        ? 'spaces'
        : /\s/u.test(found)
          ? `whitespace (${code})`
          : `control characters (${code})`;
  // JSON.stringify leaves DEL, C1 controls and Unicode spaces as they are: invisible on a terminal.
  const got = [...JSON.stringify(host)]
    .map((c) => (c !== ' ' && c !== '/' && NOT_IN_HOST.test(c) ? `\\u${hex(c)}` : c))
    .join('');
  return `rq_host must be a host name: it cannot contain ${what}, got ${got}`;
}

const rqHost = nonEmptyString.regex(HOST_PATTERN, { error: (issue) => notInHost(String(issue.input)) }).meta({
  description:
    "Host header (natural key, with description): a host name, optionally with a port or * globs; no '/', whitespace or control characters.",
});

export const applicationRuleSchema = kindObject(
  {
    rq_host: rqHost,
    description: nonEmptyString.meta({ description: 'Unique per rq_host (natural key, with rq_host).' }),
  },
  {
    priority: nonEmptyString,
    enabled: z.boolean().default(true),
    duration: z.int().min(0).nullable().default(null),
    start_time: z.int().min(0).nullable().default(null).meta({ description: 'UNIX microseconds.' }),
    conditions: setOf(condition, 'condition', { min: 1 }).meta({
      description: 'Immutable: a change replaces the rule.',
    }),
    actions: setOf(action, 'action', {
      min: 1,
      label: (a) => `"${a.firewall_action}" on "${a.firewall_name}"`,
    }).meta({ description: 'Immutable: a change replaces the rule.' }),
  },
);

/** An application rule's natural key: `RQ_HOST/DESCRIPTION`. */
export const applicationRuleKey = (rqHost: string, description: string | null): string =>
  `${rqHost}/${description ?? ''}`;

const listOf = <T>(value: unknown): readonly T[] => (Array.isArray(value) ? (value as T[]) : []);

/**
 * A rule as the rule-test evaluator reads it (core/rules/types.ts): its key and the fields that
 * decide, from a declared rule or a live one's attributes (the same shape).
 */
export function evalRuleOf(attributes: Attributes): EvalRule {
  const rqHost = String(attributes.rq_host ?? '');
  const description = typeof attributes.description === 'string' ? attributes.description : null;
  return {
    key: applicationRuleKey(rqHost, description),
    rq_host: rqHost,
    priority: String(attributes.priority ?? ''),
    enabled: attributes.enabled !== false,
    conditions: listOf<EvalCondition>(attributes.conditions),
    actions: listOf<EvalAction>(attributes.actions),
  };
}

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

/**
 * The comparable record of a rule, desired or remote: every list a set in canonical order. Its
 * conditions and actions are the given objects themselves where they are already canonical: both
 * sources hand over objects of exactly these fields (the configuration's strict schema, `fromRemote`),
 * and a configuration of 100,000 rules is not copied a second time.
 */
function attributesOf(rule: RuleFields) {
  const conditions = rule.conditions.map(canonicalCondition);
  const unchanged = conditions.every((c, i) => c === rule.conditions[i]);
  return {
    rq_host: rule.rq_host,
    description: rule.description,
    priority: rule.priority,
    enabled: rule.enabled,
    duration: rule.duration,
    start_time: rule.start_time,
    conditions: sortedSet(unchanged ? rule.conditions : conditions),
    actions: sortedSet(rule.actions),
  };
}

/** A condition with its expressions and targets in canonical order: itself when they already are. */
function canonicalCondition(condition: RuleFields['conditions'][number]) {
  const expressions = sortedSet(condition.expressions);
  const targets = sortedSet(condition.targets);
  if (expressions === condition.expressions && targets === condition.targets) return condition;
  return { operator: condition.operator, not_op: condition.not_op, expressions, targets };
}

/**
 * The API's rule in the configuration's shape (server fields dropped, documented defaults applied),
 * only the fields compared: not a spread of the whole row, which copies every server field.
 */
const fromRemote = (rule: ApplicationRule): RuleFields => ({
  rq_host: rule.rq_host,
  description: rule.description ?? '',
  priority: rule.priority,
  enabled: rule.enabled,
  duration: rule.duration,
  start_time: rule.start_time,
  conditions: rule.conditions.map((c) => ({
    operator: c.operator,
    not_op: c.not_op ?? false,
    expressions: c.expressions.map((e) => e.expression),
    targets: c.targets.map((t) => t.target),
  })),
  actions: rule.actions.map((a) => ({ firewall_action: a.firewall_action, firewall_name: a.firewall_name })),
});

type RuleAttributes = ReturnType<typeof attributesOf>;

function toInput(a: RuleAttributes, username: string): ApplicationRuleInput {
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

/**
 * Whether a listed rule holds exactly these (canonical) attributes, read in place from the row.
 * Member by member in order: a row listing the desired sets' members in their canonical order is
 * equal to them; a row in another order, or different, is told apart by the full normalisation.
 * Every compared field is checked here (test/kinds/kinds.test.ts changes each one in turn). A
 * special case of the one equality (`sameJson`): its scalars compare with `===`, which agrees with it
 * on JSON scalars (`-0` is `0`; the test pins that too). Exported for that test only.
 */
export function matchesRow(want: RuleAttributes, row: ApplicationRule): boolean {
  if (
    row.rq_host !== want.rq_host ||
    (row.description ?? '') !== want.description ||
    row.priority !== want.priority ||
    row.enabled !== want.enabled ||
    row.duration !== want.duration ||
    row.start_time !== want.start_time ||
    row.conditions.length !== want.conditions.length ||
    row.actions.length !== want.actions.length
  ) {
    return false;
  }
  for (let i = 0; i < want.conditions.length; i++) {
    const c = row.conditions[i];
    const w = want.conditions[i];
    if (
      c === undefined ||
      w === undefined ||
      c.operator !== w.operator ||
      (c.not_op ?? false) !== w.not_op ||
      !sameValues(c.expressions, w.expressions, 'expression') ||
      !sameValues(c.targets, w.targets, 'target')
    ) {
      return false;
    }
  }
  for (let i = 0; i < want.actions.length; i++) {
    const a = row.actions[i];
    const w = want.actions[i];
    if (a?.firewall_action !== w?.firewall_action || a?.firewall_name !== w?.firewall_name) return false;
  }
  return true;
}

/** `[{expression: 'a'}, ...]` holds `['a', ...]`, in that order. */
function sameValues<F extends string>(
  list: readonly Record<F, string>[],
  values: readonly string[],
  field: F,
): boolean {
  if (list.length !== values.length) return false;
  for (let i = 0; i < list.length; i++) if (list[i]?.[field] !== values[i]) return false;
  return true;
}

const keyOfAttributes = (attributes: Attributes): string =>
  applicationRuleKey(String(attributes.rq_host), String(attributes.description));

/**
 * Listed rows as records, read as they arrive: a page's rows are let go of once turned into records.
 * A row that holds exactly its desired rule (`matchesRow`, the usual case in a plan) gets the desired
 * attributes without a record being built; another is normalised and shared when equal (`shared`).
 * Only the incomplete ones are hydrated with a GET-one, once the listing is complete.
 */
async function recordsOf(
  api: ApiClient,
  pages: AsyncIterable<readonly ApplicationRule[]> | Iterable<readonly ApplicationRule[]>,
  concurrency: number,
  desired: DesiredLookup<RuleAttributes> = () => undefined,
): Promise<RemoteRecord<RuleAttributes>[]> {
  const recordOf = (rule: ApplicationRule): RemoteRecord<RuleAttributes> => {
    const key = applicationRuleKey(rule.rq_host, rule.description);
    const mine = desired(key);
    return {
      id: rule.id,
      key,
      attributes:
        mine !== undefined && matchesRow(mine, rule) ? mine : shared(mine, attributesOf(fromRemote(rule))),
      createdAt: rule.timestamp_create,
      ...provenanceOf(rule),
    };
  };
  const records: (RemoteRecord<RuleAttributes> | ApplicationRule)[] = [];
  // Only incomplete rows go through the limiter: queueing 10,000 complete ones cost ~20 ms.
  const incomplete: { at: number; row: ApplicationRule }[] = [];
  for await (const rows of pages) {
    for (const row of rows) {
      if (!row.complete) incomplete.push({ at: records.length, row });
      records.push(row.complete ? recordOf(row) : row);
    }
  }
  const hydrated = await mapLimited(incomplete, concurrency, ({ row }) => api.applicationRules.get(row.id));
  incomplete.forEach(({ at }, i) => {
    records[at] = recordOf(hydrated[i] as ApplicationRule);
  });
  // Every row left is a record now: the incomplete ones were replaced just above.
  return records as RemoteRecord<RuleAttributes>[];
}

/**
 * What drift reads of a rule besides its attributes: who last changed it and when (`username`,
 * `timestamp_update` in microseconds, as milliseconds), and each action's `sync_status` (issue 44).
 * Only what the row gives: an absent field stays absent.
 */
function provenanceOf(rule: ApplicationRule): Pick<RemoteRecord, 'changedBy' | 'changedAt' | 'enforcement'> {
  const micros = rule.timestamp_update;
  return {
    ...(rule.username === undefined || rule.username === '' ? {} : { changedBy: rule.username }),
    ...(micros === undefined ? {} : { changedAt: Math.floor(micros / 1000) }),
    enforcement: rule.actions.map((a) => ({ firewall: a.firewall_name, status: a.sync_status })),
  };
}

/**
 * `waf-eu-1:synced waf-us-1:error`: each action's firewall and `sync_status` as the API gave it (an
 * unknown value shown as is); actions without one are left out, and a rule without any is empty.
 */
export function syncCell(rule: Pick<ApplicationRule, 'actions'>): string {
  return rule.actions
    .filter((a) => a.sync_status !== undefined)
    .map((a) => `${a.firewall_name}:${a.sync_status}`)
    .join(' ');
}

type RuleAction = RuleFields['actions'][number];
type RuleCondition = RuleAttributes['conditions'][number];

/** A missing `enabled` is the default, true. A disabled rule blocks, allows and matches nothing. */
const isEnabled = (rule: Attributes | undefined): rule is Attributes =>
  rule !== undefined && rule.enabled !== false;
const actionsOf = (rule: Attributes) => listField<RuleAction>(rule, 'actions');

/** The rule names more than one firewall (before or after): reasons then say which one. */
function spansFirewalls(subject: ImpactSubject): boolean {
  const all = [subject.before, subject.after].flatMap((rule) => (rule ? actionsOf(rule) : []));
  return new Set(all.map((a) => a.firewall_name)).size > 1;
}

/** `block`, or `block on waf-eu-1` when the rule spans several firewalls. */
function actionLabels(subject: ImpactSubject, actions: readonly RuleAction[]): string[] {
  const several = spansFirewalls(subject);
  return actions.map((a) => (several ? `${a.firewall_action} on ${a.firewall_name}` : a.firewall_action));
}

/**
 * A firewall that blocked the rule's matches and no longer does: `action block -> log (blocking ->
 * observing)`, one reason per firewall. Only while the rule stays enabled: a disable or a delete has
 * its own row, and a rule that was disabled blocked nothing.
 */
function blockingLost(subject: ImpactSubject, { firewallActions }: ImpactContext): string[] {
  const { before, after } = subject;
  if (!isEnabled(before) || !isEnabled(after)) return [];
  const classOf = (a: RuleAction) => actionClass(firewallActions, a.firewall_action);
  const was = actionsOf(before);
  const now = actionsOf(after);
  const firewalls = new Set(was.filter((a) => classOf(a) === 'blocking').map((a) => a.firewall_name));
  return [...firewalls].flatMap((firewall) => {
    const onIt = (a: RuleAction) => a.firewall_name === firewall;
    const then = was.filter(onIt);
    const next = now.filter(onIt);
    if (next.some((a) => classOf(a) === 'blocking')) return [];
    const on = spansFirewalls(subject) ? ` on ${firewall}` : '';
    const names = (list: readonly RuleAction[]) => list.map((a) => a.firewall_action).join(', ');
    if (next.length === 0) {
      return [`blocking action removed: ${names(then.filter((a) => classOf(a) === 'blocking'))}${on}`];
    }
    const classes = [...new Set(next.map(classOf))].map((c) =>
      c === 'unknown' ? 'unknown: not a known blocking action' : c,
    );
    return [`action ${names(then)} -> ${names(next)}${on} (blocking -> ${classes.join(', ')})`];
  });
}

/**
 * Allowing actions in force after the change that were not before: added to an enabled rule, on a
 * created enabled rule, or switched on with the rule (`enabled: false -> true`).
 */
function allowingAdded(subject: ImpactSubject, { firewallActions }: ImpactContext): string[] {
  if (!isEnabled(subject.after)) return [];
  const allowing = (rule: Attributes) =>
    actionsOf(rule).filter((a) => actionClass(firewallActions, a.firewall_action) === 'allowing');
  if (subject.before !== undefined && !isEnabled(subject.before)) {
    return listed(
      'enabled with an allowing action',
      'enabled with allowing actions',
      actionLabels(subject, allowing(subject.after)),
    ).map((reason) => `${reason} (enabled: false -> true)`);
  }
  const fresh = added(subject, allowing);
  return listed('allowing action added', 'allowing actions added', actionLabels(subject, fresh));
}

/**
 * What the rule matches changed (conditions are immutable: this is a replace). A `not_op` flip is
 * named as such, since it inverts the match; any other difference is `match changed: conditions`
 * (the plan's details show which).
 */
function matchChanged(subject: ImpactSubject): string[] {
  if (!isEnabled(subject.before) || !isEnabled(subject.after)) return [];
  const conditions = (rule: Attributes) => listField<RuleCondition>(rule, 'conditions');
  const gone = removed(subject, conditions);
  const come = added(subject, conditions);
  if (gone.length === 0 && come.length === 0) return [];
  // Conditions that differ only by `not_op`: as many went as came, and without it they are equal.
  const bare = (list: readonly RuleCondition[]) => list.map(({ not_op: _, ...rest }) => canonicalJson(rest));
  const flipped =
    gone.length === come.length && bare(gone).sort().join('\n') === bare(come).sort().join('\n');
  if (flipped) return [...new Set(gone.map((c) => `match changed: not_op ${c.not_op} -> ${!c.not_op}`))];
  return ['match changed: conditions'];
}

/** What a rule change does to protection (README: "Security impact"). */
const ruleImpact: readonly ImpactRule[] = [
  {
    class: 'weakens_protection',
    reasons: (s) => reasonIf(s.action === 'delete' && isEnabled(s.before), 'deleted'),
  },
  {
    class: 'weakens_protection',
    reasons: (s) => reasonIf(turned(s, 'enabled', true, false), 'disabled (enabled: true -> false)'),
  },
  { class: 'weakens_protection', reasons: blockingLost },
  { class: 'weakens_protection', reasons: allowingAdded },
  { class: 'weakens_protection', reasons: matchChanged },
];

export const applicationRulesKind = defineKind({
  name: 'application_rule',
  section: 'application_rules',
  noun: 'application rule',
  keyFields: ['rq_host', 'description'],
  schema: applicationRuleSchema,
  immutable: ['conditions', 'actions'],
  // The PUT's attrs take the description (the spec shows it), never the rq_host.
  fixedKeyFields: ['rq_host'],
  attributes: attributesOf,
  fetchAll: async (api, { concurrency, desired }) =>
    recordsOf(api, api.applicationRules.pages(), concurrency, desired),
  impact: ruleImpact,
  writer: {
    bulkCreate: true,
    bulkUpdate: true,
    bulkDelete: true,
    deletesFirst: false,
    async create({ api, username }, objects) {
      // Every id the answer gives, in no stated order, and unchecked: the applier proves each one by
      // re-reading it (`current`), so an old, made-up or repeated id never counts as a new rule.
      return api.applicationRules.create(objects.map((object) => toInput(object, username)));
    },
    async update({ api }, changes) {
      // Every change of one call carries the same changed fields (conditions and actions never:
      // they are immutable), so one body serves them all.
      const first = changes[0];
      if (first === undefined) return;
      const attrs: ApplicationRuleUpdate = changedValues(first);
      const ids = changes.map((c) => c.id);
      if (ids.length === 1) await api.applicationRules.update(ids[0]!, attrs);
      else await api.applicationRules.updateMany(ids, attrs);
    },
    async delete({ api }, ids) {
      await api.applicationRules.delete(ids);
    },
    async idsByKey({ api }, objects) {
      // A filtered re-read: only the hosts of these rules. Every id with the key, old ones included:
      // the applier tells them apart and checks conditions and actions with `current`.
      const hosts = [...new Set(objects.map((o) => String(o.rq_host)))];
      const rows = await api.applicationRules.list({ rq_host_list: hosts });
      const records = rows.map((r) => ({ id: r.id, key: applicationRuleKey(r.rq_host, r.description) }));
      return indexIds(records, new Set(objects.map(keyOfAttributes)));
    },
    async current({ api }, ids) {
      // Also what proves a create: a row of an id the answer gave, normalised as fetchAll does.
      const rows = await api.applicationRules.list({ id_list: [...ids] });
      return attributesById(await recordsOf(api, [rows], REREAD_CONCURRENCY), ids);
    },
  },
  get: defineGet<ApplicationRule>({
    columns: [
      { header: 'ID', cell: (r) => r.id },
      { header: 'RQ_HOST', cell: (r) => r.rq_host },
      { header: 'DESCRIPTION', cell: (r) => text(r.description) },
      { header: 'PRIORITY', cell: (r) => r.priority },
      { header: 'ENABLED', cell: (r) => flag(r.enabled) },
      { header: 'SYNC', cell: syncCell },
      { header: 'USERNAME', cell: (r) => text(r.username) },
      { header: 'CREATED', cell: (r) => fromMicros(r.timestamp_create) },
      { header: 'UPDATED', cell: (r) => fromMicros(r.timestamp_update) },
    ],
    list: (api, filters) => api.iterateWithFilters('application-rules', filters),
    // Some servers list a rule with a single action, or without its conditions.
    complete: async (api, row) => (row.complete ? row : api.applicationRules.get(row.id)),
    find: { by: 'id', one: (api, id) => api.applicationRules.get(id) },
  }),
});

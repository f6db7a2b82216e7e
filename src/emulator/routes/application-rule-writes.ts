/**
 * Creating, updating and deleting application rules. Every bulk operation is all-or-nothing: the
 * whole request is validated (and every id resolved) before the first record changes.
 *
 * Every write of a rule records who made it and when, and its actions start synchronizing again
 * (sync.ts). `username` is the spec's "Creator": on create, the body's `username` (the spec's create
 * body carries it, and the listing's `username` filters match it), a non-empty string bounded like
 * the other short texts; without one, the acting user (the caller: the token's or the signed-in
 * user, `admin` for the admin token). The spec leaves open what an update records: here, the acting
 * user, so that a hand change through the API names who made it. `timestamp_update` is the time of
 * the write.
 */
import { z } from 'zod';
import { APPLICATION_RULES } from '../collections.js';
import type { ApplicationRule, RuleCondition } from '../records.js';
import { changed, fail, type RouteContext, type RouteResult } from '../router.js';
import type { Store } from '../store.js';
import { type SyncSettings, startSync } from '../sync.js';
import {
  MAX_LENGTH,
  microseconds,
  nonEmptyString,
  nonEmptyText,
  parseWith,
  shortText,
  text,
} from '../validation.js';

export const WRITE_MESSAGES = {
  created: 'Rules created',
  createError: 'Error creating rules',
  updated: 'Rules updated',
  updateError: 'Error updating the rule',
  deleted: 'Rules deleted',
  deleteError: 'Error deleting rules.',
} as const;

const description = text(MAX_LENGTH.description).nullable();
const actionInput = z.strictObject({ firewall_action: nonEmptyString, firewall_name: nonEmptyString });
const conditionInput = z.strictObject({
  operator: nonEmptyString,
  not_op: z.boolean().default(false),
  expressions: z.array(z.strictObject({ expression: nonEmptyText(MAX_LENGTH.expression) })).min(1),
  targets: z.array(z.strictObject({ target: nonEmptyText(MAX_LENGTH.target) })).min(1),
});
const ruleInput = z.strictObject({
  actions: z.array(actionInput).min(1),
  conditions: z.array(conditionInput).min(1),
  description,
  priority: nonEmptyString,
  rq_host: nonEmptyString,
  username: nonEmptyString.optional(),
  enabled: z.boolean().default(true),
  duration: z.int().min(0).nullable().default(null),
  start_time: microseconds.nullable().default(null),
  alert_set_ids: z.array(shortText).default([]),
});
const createBody = z.strictObject({ rules: z.array(ruleInput).min(1) });

/** The fields an update may change; conditions and actions are immutable (replace the rule instead). */
const attrsSchema = z.strictObject({
  description,
  priority: nonEmptyString,
  enabled: z.boolean(),
  duration: z.int().min(0).nullable(),
  start_time: microseconds.nullable(),
});
const IMMUTABLE_FIELDS = ['conditions', 'actions'] as const;
const updateOneBody = z.strictObject({ attrs: attrsSchema.partial() });
const updateManyBody = z.strictObject({ attrs: attrsSchema.partial(), rule_ids: z.array(nonEmptyString) });
const deleteBody = z.strictObject({ rule_ids: z.array(nonEmptyString) });

type RuleInput = z.output<typeof ruleInput>;
type Attrs = z.output<typeof updateOneBody>['attrs'];

/** Who a write is made by, and when: what every write of a rule records. */
interface WriteStamp {
  username: string;
  /** `timestamp_update` (and `timestamp_create` of a new rule): bumped, so one request's rules differ. */
  micros: number;
  /** The clock as it is: when the actions' sync starts. */
  clockMicros: number;
  sync: SyncSettings;
}

function stampOf({ store, caller, sync }: RouteContext): WriteStamp {
  return { username: caller.username, micros: store.nowMicros(), clockMicros: store.clockMicros(), sync };
}

function buildRule(store: Store, input: RuleInput, stamp: WriteStamp): ApplicationRule {
  const id = store.nextId('application_rule');
  const conditions = input.conditions.map((c): RuleCondition => {
    const conditionId = store.nextId('condition');
    return {
      id: conditionId,
      application_rule_id: id,
      operator: c.operator,
      not_op: c.not_op,
      expressions: c.expressions.map((e) => ({ expression: e.expression, condition_id: conditionId })),
      targets: c.targets.map((t) => ({ target: t.target, condition_id: conditionId })),
    };
  });
  return {
    id,
    actions: input.actions.map((a) =>
      startSync({ ...a, application_rule_id: id }, stamp.clockMicros, stamp.sync),
    ),
    conditions,
    alert_set_ids: input.alert_set_ids,
    description: input.description,
    duration: input.duration,
    enabled: input.enabled,
    priority: input.priority,
    rq_host: input.rq_host,
    rule_set: null,
    rule_set_id: null,
    service: null,
    start_time: input.start_time,
    timestamp_create: stamp.micros,
    timestamp_update: stamp.micros,
    // The creator the client names, else whoever calls.
    username: input.username ?? stamp.username,
  };
}

export function createRules(context: RouteContext): RouteResult {
  const { body, store } = context;
  const parsed = parseWith(createBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.createError, parsed.errors);
  const rules = parsed.value.rules.map((input) => buildRule(store, input, stampOf(context)));
  for (const rule of rules) store.collection(APPLICATION_RULES).set(rule.id, rule);
  return changed(WRITE_MESSAGES.created, { rule_ids: rules.map((r) => r.id) });
}

/** Explains an attempt to change an immutable field better than "unrecognized key" would. */
function immutableFieldErrors(body: unknown): string[] {
  if (typeof body !== 'object' || body === null || !('attrs' in body)) return [];
  const attrs = body.attrs;
  if (typeof attrs !== 'object' || attrs === null) return [];
  return IMMUTABLE_FIELDS.filter((field) => field in attrs).map(
    (field) => `attrs.${field}: immutable; delete the rule and create a new one`,
  );
}

function unknownIds(store: Store, ids: readonly string[]): string[] {
  const rules = store.collection(APPLICATION_RULES);
  return ids.filter((id) => !rules.has(id)).map((id) => `rule_ids: no rule with id '${id}'`);
}

function applyAttrs(context: RouteContext, ids: readonly string[], attrs: Attrs): RouteResult {
  const unique = [...new Set(ids)];
  const stamp = stampOf(context);
  const rules = context.store.collection(APPLICATION_RULES);
  for (const id of unique) {
    const rule = rules.get(id);
    if (rule === undefined) continue;
    rules.set(id, {
      ...rule,
      description: attrs.description === undefined ? rule.description : attrs.description,
      priority: attrs.priority ?? rule.priority,
      enabled: attrs.enabled ?? rule.enabled,
      duration: attrs.duration === undefined ? rule.duration : attrs.duration,
      start_time: attrs.start_time === undefined ? rule.start_time : attrs.start_time,
      actions: rule.actions.map((action) => startSync(action, stamp.clockMicros, stamp.sync)),
      timestamp_update: stamp.micros,
      username: stamp.username,
    });
  }
  return changed(WRITE_MESSAGES.updated, { rule_ids: unique });
}

export function updateOneRule(context: RouteContext): RouteResult {
  const { body, store, params } = context;
  const id = params.application_rule_id ?? '';
  const immutable = immutableFieldErrors(body);
  if (immutable.length > 0) return fail(WRITE_MESSAGES.updateError, immutable);
  const parsed = parseWith(updateOneBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.updateError, parsed.errors);
  const missing = unknownIds(store, [id]);
  if (missing.length > 0) return fail(WRITE_MESSAGES.updateError, missing);
  return applyAttrs(context, [id], parsed.value.attrs);
}

export function updateManyRules(context: RouteContext): RouteResult {
  const { body, store } = context;
  const immutable = immutableFieldErrors(body);
  if (immutable.length > 0) return fail(WRITE_MESSAGES.updateError, immutable);
  const parsed = parseWith(updateManyBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.updateError, parsed.errors);
  const missing = unknownIds(store, parsed.value.rule_ids);
  if (missing.length > 0) return fail(WRITE_MESSAGES.updateError, missing);
  return applyAttrs(context, parsed.value.rule_ids, parsed.value.attrs);
}

export function deleteRules({ body, store }: RouteContext): RouteResult {
  const parsed = parseWith(deleteBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.deleteError, parsed.errors);
  const missing = unknownIds(store, parsed.value.rule_ids);
  if (missing.length > 0) return fail(WRITE_MESSAGES.deleteError, missing);
  const unique = [...new Set(parsed.value.rule_ids)];
  for (const id of unique) store.collection(APPLICATION_RULES).delete(id);
  return changed(WRITE_MESSAGES.deleted, { rule_ids: unique });
}

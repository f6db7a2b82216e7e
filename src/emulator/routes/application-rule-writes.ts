/**
 * Creating, updating and deleting application rules. Every bulk operation is all-or-nothing: the
 * whole request is validated (and every id resolved) before the first record changes.
 */
import { z } from 'zod';
import { APPLICATION_RULES } from '../collections.js';
import type { ApplicationRule, RuleCondition } from '../records.js';
import { changed, fail, type RouteContext, type RouteResult } from '../router.js';
import type { Store } from '../store.js';
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

/** A freshly created action is reported as already synced: the emulator has no firewall to push to. */
const INITIAL_SYNC_STATUS = 'synced';

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
  username: nonEmptyString,
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

function buildRule(store: Store, input: RuleInput): ApplicationRule {
  const id = store.nextId('application_rule');
  const now = store.nowMicros();
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
    actions: input.actions.map((a) => ({ ...a, application_rule_id: id, sync_status: INITIAL_SYNC_STATUS })),
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
    timestamp_create: now,
    timestamp_update: now,
    username: input.username,
  };
}

export function createRules({ body, store }: RouteContext): RouteResult {
  const parsed = parseWith(createBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.createError, parsed.errors);
  const rules = parsed.value.rules.map((input) => buildRule(store, input));
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

function applyAttrs(store: Store, ids: readonly string[], attrs: Attrs): RouteResult {
  const unique = [...new Set(ids)];
  const now = store.nowMicros();
  const rules = store.collection(APPLICATION_RULES);
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
      timestamp_update: now,
    });
  }
  return changed(WRITE_MESSAGES.updated, { rule_ids: unique });
}

export function updateOneRule({ body, store, params }: RouteContext): RouteResult {
  const id = params.application_rule_id ?? '';
  const immutable = immutableFieldErrors(body);
  if (immutable.length > 0) return fail(WRITE_MESSAGES.updateError, immutable);
  const parsed = parseWith(updateOneBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.updateError, parsed.errors);
  const missing = unknownIds(store, [id]);
  if (missing.length > 0) return fail(WRITE_MESSAGES.updateError, missing);
  return applyAttrs(store, [id], parsed.value.attrs);
}

export function updateManyRules({ body, store }: RouteContext): RouteResult {
  const immutable = immutableFieldErrors(body);
  if (immutable.length > 0) return fail(WRITE_MESSAGES.updateError, immutable);
  const parsed = parseWith(updateManyBody, body);
  if (!parsed.ok) return fail(WRITE_MESSAGES.updateError, parsed.errors);
  const missing = unknownIds(store, parsed.value.rule_ids);
  if (missing.length > 0) return fail(WRITE_MESSAGES.updateError, missing);
  return applyAttrs(store, parsed.value.rule_ids, parsed.value.attrs);
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

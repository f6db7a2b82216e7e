/**
 * Enforcement findings of a drift report (issue 44). A rule saved through the API is not yet
 * protection: each of its actions is synchronized to its firewall and reports a `sync_status`. A
 * managed rule (one the configuration declares, matched by the plan) with an action that is not
 * enforced is drift even when its fields match the configuration, classed `weakens_protection`:
 *
 * - a sync error, at once (`not enforced on waf-eu-1: sync error`);
 * - pending, or a value wafctl does not know (shown as is), for longer than the grace after the
 *   rule's last change (`not enforced on waf-eu-1: pending for 2 h`): a rule just written is still
 *   on its way. A record that does not say when it changed is judged not enforced at once: nothing
 *   shows that it is still on its way.
 *
 * An action without a `sync_status` says nothing, and is not judged (a server that does not report
 * synchronization has no findings). An unmanaged rule's synchronization is not wafctl's concern.
 * How a status is read is src/core/sync-status.ts's. Pure: the time is given.
 */
import type { EnforcementFinding, Plan } from '../core/model.js';
import { inScope } from '../core/scope.js';
import { syncState } from '../core/sync-status.js';
import { inRegistryOrder } from '../kinds/index.js';
import type { ActionSync } from '../kinds/kind.js';
import { attributionOf } from './attribution.js';
import type { KindPlanInput, RemoteObject } from './planner.js';

/** How long an action may stay pending after its rule's last change before drift reports it. */
export const ENFORCEMENT_GRACE_MS = 15 * 60_000;

export interface EnforcementOptions {
  /** The time the statuses are judged at, in UNIX milliseconds (drift's clock). */
  now: number;
  /** Default ENFORCEMENT_GRACE_MS. */
  graceMs?: number;
}

type Firewall = EnforcementFinding['firewalls'][number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** `20 min`, `2 h`, `3 d`: how long, rounded down, in the unit a person reads it in. */
export function durationText(ms: number): string {
  if (ms < 2 * HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < 48 * HOUR) return `${Math.floor(ms / HOUR)} h`;
  return `${Math.floor(ms / (24 * HOUR))} d`;
}

/** An action's firewall and status when it is not enforced at `now` (see the module comment). */
function notEnforced(
  action: ActionSync,
  age: number | undefined,
  graceMs: number,
): { firewall: Firewall; reason: string } | undefined {
  const { firewall, status } = action;
  if (status === undefined) return undefined;
  const state = syncState(status);
  if (state === 'synced') return undefined;
  if (state !== 'error' && age !== undefined && age <= graceMs) return undefined;
  // Raw, as every impact reason: the renderers make it printable where they write it.
  const on = `not enforced on ${firewall}`;
  const shown = JSON.stringify(status);
  const what =
    state === 'error'
      ? `sync error${status === 'error' ? '' : ` (${shown})`}`
      : `${state === 'pending' ? 'pending' : `sync status ${shown}`}${age === undefined ? ' (the record gives no update time)' : ` for ${durationText(age)}`}`;
  return { firewall: { firewall, status, state }, reason: `${on}: ${what}` };
}

/**
 * The ids of the kind's live objects the configuration manages: in scope, not read-only, and
 * declared under their key or matched by a rename, and not deleted by the plan (a duplicate).
 */
function managedIds(input: KindPlanInput, plan: Plan): Set<string> {
  const declared = new Set(input.desired.map((object) => object.key));
  const renamed = new Set<string>();
  const deleted = new Set<string>();
  for (const change of plan.changes) {
    if (change.kind !== input.kind || change.action === 'create') continue;
    if (change.action === 'delete') deleted.add(change.id);
    else if (change.renamed_from !== undefined) renamed.add(change.id);
  }
  const managed = new Set<string>();
  for (const remote of input.remote) {
    if (remote.readOnly !== undefined || deleted.has(remote.id)) continue;
    const mine = renamed.has(remote.id) || declared.has(remote.key);
    if (mine && inScope(remote.attributes, input.scope)) managed.add(remote.id);
  }
  return managed;
}

/** The finding of one managed object, when some of its actions are not enforced. */
function findingOf(
  kind: string,
  remote: RemoteObject,
  { now, graceMs = ENFORCEMENT_GRACE_MS }: EnforcementOptions,
): EnforcementFinding | undefined {
  const age = remote.changedAt === undefined ? undefined : Math.max(0, now - remote.changedAt);
  const found = (remote.enforcement ?? []).flatMap((action) => notEnforced(action, age, graceMs) ?? []);
  if (found.length === 0) return undefined;
  const reasons = [...new Set(found.map((f) => f.reason))];
  return {
    kind,
    key: remote.key,
    id: remote.id,
    ...attributionOf(remote),
    firewalls: found.map((f) => f.firewall),
    impact: reasons.map((reason) => ({ class: 'weakens_protection' as const, reason })),
  };
}

const byKeyThenId = (a: RemoteObject, b: RemoteObject): number =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** The managed objects not enforced on some firewall, in the registry's order, then by key. */
export function enforcementFindings(
  inputs: readonly KindPlanInput[],
  plan: Plan,
  options: EnforcementOptions,
): EnforcementFinding[] {
  const findings: EnforcementFinding[] = [];
  for (const input of inRegistryOrder(inputs, (input) => input.kind)) {
    const judged = input.remote.filter((remote) => (remote.enforcement?.length ?? 0) > 0);
    if (judged.length === 0) continue;
    const managed = managedIds(input, plan);
    for (const remote of judged.filter((r) => managed.has(r.id)).sort(byKeyThenId)) {
      const finding = findingOf(input.kind, remote, options);
      if (finding !== undefined) findings.push(finding);
    }
  }
  return findings;
}

/** The plan with its enforcement findings (`enforcement`), when there are some. */
export function withEnforcement(
  plan: Plan,
  inputs: readonly KindPlanInput[],
  options: EnforcementOptions,
): Plan {
  const enforcement = enforcementFindings(inputs, plan, options);
  return enforcement.length === 0 ? plan : { ...plan, enforcement };
}

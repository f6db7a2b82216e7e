/**
 * `apply --plan`: a saved plan's changes rebuilt from the live objects and the plan's intent, so what
 * is shown, what is sent, the security impact `--fail-on` judges and the safety threshold all come
 * from the same data, at apply time.
 *
 * Every live object the plan touches is re-read first. The plan applies only as it was made, or not
 * at all: an object whose fingerprint changed, that is gone, or a planned create whose key now exists
 * makes it stale; a change the planner could not have made (an update of an immutable field, a prune
 * outside the recorded scope, a "duplicate" without a live twin, one object changed twice) makes it
 * inconsistent. Then, for each change:
 *
 * - create: the object sent is the saved `after`; its key is derived from it.
 * - update: `before` is the live record (its fingerprint verified), `after` the saved whole object
 *   (the file's `target`), sent as it is; `fields` are the differences between the two.
 * - replace: the live record, and the saved `after` as the new object.
 * - a rename (`renamed_from`, an update or a replace): the live object must still have the old key
 *   the plan records, and no other live object the new key (else stale); only a rename may change
 *   the key, and only key fields the kind updates in place may change in an update.
 * - delete: the live record.
 *
 * Impact and safety warnings are then computed by src/plan/assess.ts, as the planner does, with the
 * policy in force (`PlanPolicy`: the configuration's or the trusted ref's, never what the file
 * records) and the live in-scope counts; the scope checks above use its `manage` too. So is the
 * Behaviour section, when the configuration's rule tests are given (`--fail-on fails_tests`): the
 * tests run on the live application rules (read even when the plan changes none) and on them with
 * the rebuilt changes applied, whatever Behaviour the file records or leaves out.
 */
import type { ApiClient } from '../../api/index.js';
import { fingerprint, sameJson } from '../../core/canonical.js';
import { WafctlError } from '../../core/errors.js';
import type {
  Attributes,
  Change,
  ChangeOf,
  DeleteChange,
  Plan,
  ReplaceChange,
  SafetyWarning,
} from '../../core/model.js';
import { inScope, type ManageScope } from '../../core/scope.js';
import { applicationRulesKind } from '../../kinds/application-rules.js';
import { KINDS, type Kind, type RemoteRecord } from '../../kinds/index.js';
import { attachImpact, safetyWarning, summarize } from '../../plan/assess.js';
import { type BehaviourInput, planBehaviour } from '../../plan/behaviour.js';
import { type PlanPolicy, type SavedChange, type SavedPlan, scopeIn } from './saved-plan.js';

/** What was found wrong with a saved plan against the live state. */
interface Findings {
  stale: string[];
  inconsistent: string[];
}

/** The configuration's rule tests, and what its settings add to the catalog: what the Behaviour runs. */
export type BehaviourTests = Pick<BehaviourInput, 'tests' | 'extensions'>;

/**
 * The plan a saved plan applies as now: its changes rebuilt from the live objects it touches, with
 * impact and safety warnings judged by `policy`, and with `tests` its Behaviour section; refused when
 * stale or inconsistent (see above).
 */
export async function replanSavedPlan(
  saved: SavedPlan,
  api: ApiClient,
  concurrency: number,
  /** The policy in force (never the one the file records: whoever can edit the file could edit that). */
  policy: PlanPolicy,
  /** The configuration's rule tests (never the file's Behaviour: whoever can edit the file could drop it). */
  tests?: BehaviourTests,
): Promise<Plan> {
  const planned = KINDS.filter((kind) => saved.changes.some((c) => c.kind === kind.name));
  // The tests run on every live rule, so they are read even when the plan changes none.
  const read =
    tests === undefined || planned.includes(applicationRulesKind)
      ? planned
      : [...planned, applicationRulesKind];
  const fetched = await Promise.all(read.map((kind) => kind.fetchAll(api, { concurrency })));
  const remote = new Map(read.map((kind, i) => [kind, fetched[i] ?? []]));
  const findings: Findings = { stale: [], inconsistent: [] };
  const changes: Change[] = [];
  const warnings: SafetyWarning[] = [];
  for (const kind of planned) {
    const records = remote.get(kind) ?? [];
    const scope = scopeIn(policy.scopes, kind);
    const intents = saved.changes.filter((c) => c.kind === kind.name);
    const rebuilt = rebuildKind(kind, intents, records, scope, findings);
    attachImpact(rebuilt, kind.impact, { firewallActions: policy.firewallActions });
    for (const change of rebuilt) changes.push(change);
    const warning = deleteWarning(kind, rebuilt, records, scope, policy);
    if (warning) warnings.push(warning);
  }
  refuseIf(findings.stale, `Saved plan is stale; nothing was applied. Run plan again.`);
  refuseIf(
    findings.inconsistent,
    `Saved plan ${saved.path} does not agree with itself or the live state (was it edited?); nothing was applied. Run plan again.`,
  );
  // Only the changes are known: what a plan leaves alone (unchanged, unmanaged) needs the configuration.
  const summary = summarize(changes, { unchanged: 0, unmanaged: 0 });
  const plan: Plan = { summary, changes, problems: saved.problems, warnings };
  const live = remote.get(applicationRulesKind) ?? [];
  const judged =
    tests === undefined ? plan : { ...plan, behaviour: planBehaviour({ live, changes, ...tests }) };
  // Still partial: apply shows that the plan it applies was made for a selection.
  return saved.targets === undefined ? judged : { ...judged, targets: saved.targets };
}

/** The safety threshold's warning for one kind's rebuilt changes, counted as the planner counts them. */
function deleteWarning(
  kind: Kind,
  rebuilt: readonly Change[],
  records: readonly RemoteRecord[],
  scope: ManageScope,
  policy: PlanPolicy,
): SafetyWarning | undefined {
  const deletes = rebuilt.filter((c) => c.action === 'delete');
  // An object the server refuses to change is not one a plan can delete.
  const existing = records.filter((r) => r.readOnly === undefined && inScope(r.attributes, scope)).length;
  const duplicates = deletes.filter((c) => c.duplicate_of !== undefined).length;
  return safetyWarning(kind.name, { deletes: deletes.length, duplicates, existing }, policy.safety);
}

function refuseIf(reasons: readonly string[], headline: string): void {
  if (reasons.length === 0) return;
  throw new WafctlError('PLAN_REFUSED', `${headline}\n${reasons.map((r) => `  ${r}`).join('\n')}`, {
    userFault: true,
  });
}

function rebuildKind(
  kind: Kind,
  intents: readonly SavedChange[],
  records: readonly RemoteRecord[],
  scope: ManageScope,
  findings: Findings,
): Change[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const keys = new Set(records.map((r) => r.key));
  const deleted = new Set(intents.flatMap((c) => (c.action === 'delete' ? [c.id] : [])));
  const seen = new Set<string>();
  const changes: Change[] = [];
  const outside = (what: string) => `${what} is outside the manage scope the plan records`;
  for (const intent of intents) {
    if (intent.action === 'create') {
      const { after } = intent;
      const key = kind.keyOf(after);
      const where = `${kind.name}.${key}`;
      if (keys.has(key)) findings.stale.push(`${where} was planned as a create but now exists`);
      else if (!inScope(after, scope)) findings.inconsistent.push(outside(`${where} (a create)`));
      changes.push({
        kind: kind.name,
        key,
        action: 'create',
        fields: Object.keys(after),
        before: null,
        after,
        impact: [],
      });
      continue;
    }
    const live = byId.get(intent.id);
    if (live === undefined) {
      findings.stale.push(`${kind.name}.${intent.key} (id ${intent.id}) no longer exists`);
      continue;
    }
    const where = `${kind.name}.${live.key} (id ${live.id})`;
    if (fingerprint(live.id, live.attributes) !== intent.fingerprint) {
      findings.stale.push(`${where} changed since the plan was made`);
      continue;
    }
    const problem = (reason: string) => findings.inconsistent.push(`${where}${reason}`);
    if (seen.has(live.id)) problem(' is changed more than once');
    seen.add(live.id);
    if (!inScope(live.attributes, scope)) findings.inconsistent.push(outside(where));
    if (live.readOnly !== undefined) problem(' is read-only on the server: the planner never changes it');
    const existing: Existing = { kind, live, problem };
    if (intent.action === 'delete') {
      changes.push(deleteOf(existing, intent.duplicate_of, { byId, deleted, prune: scope.prune }));
      continue;
    }
    if (intent.renamed_from !== undefined) {
      existing.renamed_from = intent.renamed_from;
      const key = kind.keyOf(intent.after);
      if (live.key !== intent.renamed_from)
        problem(` is renamed from "${intent.renamed_from}", which is not its key`);
      else if (key === live.key) problem(': a rename must change its key');
      else if (keys.has(key))
        findings.stale.push(`${where} was planned to be renamed to "${key}", which now exists`);
    }
    // What it leaves must stay in scope, as the planner's changes do: an edited file could otherwise
    // move an object (by a rename, or any field `match` reads) out of wafctl's reach.
    if (!inScope(intent.after, scope)) findings.inconsistent.push(outside(`${where} (its new state)`));
    changes.push(
      intent.action === 'update' ? updateOf(existing, intent.after) : replaceOf(existing, intent.after),
    );
  }
  return changes;
}

/** A live object a saved change touches, and where to report what the planner could not have made. */
interface Existing {
  kind: Kind;
  live: RemoteRecord;
  problem(reason: string): void;
  /** The old key of a rename (already checked to be the live key): the change is keyed by the new one. */
  renamed_from?: string;
}

const baseOf = ({ kind, live, renamed_from }: Existing, after: Attributes) => ({
  kind: kind.name,
  key: renamed_from === undefined ? live.key : kind.keyOf(after),
  id: live.id,
  fingerprint: fingerprint(live.id, live.attributes),
  impact: [],
  ...(renamed_from === undefined ? {} : { renamed_from }),
});

/** Key fields a rename may not change in place (`fixedKeyFields`); none unless it is a rename. */
const fixedKeys = ({ kind, renamed_from }: Existing): readonly string[] =>
  renamed_from === undefined ? [] : (kind.fixedKeyFields ?? []);

/** From the live object to the saved one: the fields that differ are what is shown and judged. */
function updateOf(existing: Existing, after: Attributes): ChangeOf<'update'> {
  const { kind, live, problem } = existing;
  const fields = differences(live.attributes, after);
  const fixed = fixedKeys(existing);
  const immutable = fields.filter((field) => kind.immutable.includes(field) || fixed.includes(field));
  if (immutable.length > 0)
    problem(`: an update cannot change ${immutable.join(', ')} (it would replace the object)`);
  if (existing.renamed_from === undefined && kind.keyOf(after) !== live.key)
    problem(': an update cannot change its key');
  return { ...baseOf(existing, after), action: 'update', fields, before: live.attributes, after };
}

function replaceOf(existing: Existing, after: Attributes): ReplaceChange {
  const { kind, live, problem } = existing;
  const fields = differences(live.attributes, after);
  const fixed = fixedKeys(existing);
  const forcedBy = fields.filter((field) => kind.immutable.includes(field) || fixed.includes(field));
  if (forcedBy.length === 0) problem(': a replacement must change an immutable field');
  if (existing.renamed_from === undefined && kind.keyOf(after) !== live.key)
    problem(': a replacement cannot change its key');
  return {
    ...baseOf(existing, after),
    action: 'replace',
    fields,
    forced_by: forcedBy,
    before: live.attributes,
    after,
  };
}

function deleteOf(
  existing: Existing,
  duplicateOf: string | undefined,
  context: { byId: ReadonlyMap<string, RemoteRecord>; deleted: ReadonlySet<string>; prune: boolean },
): DeleteChange {
  const { kind, live, problem } = existing;
  const change: DeleteChange = {
    ...baseOf(existing, live.attributes),
    action: 'delete',
    fields: Object.keys(live.attributes),
    before: live.attributes,
    after: null,
  };
  if (duplicateOf === undefined) {
    if (!context.prune) problem(` is deleted, but the plan records prune: false for ${kind.section}`);
    return change;
  }
  // A duplicate's delete has no security impact (a copy survives): only when a copy really does.
  const twin = context.byId.get(duplicateOf);
  if (twin === undefined || twin.id === live.id || twin.key !== live.key || context.deleted.has(twin.id)) {
    problem(` is deleted as a duplicate of id ${duplicateOf}, which is not a surviving object with its key`);
  }
  return { ...change, duplicate_of: duplicateOf };
}

/** Fields whose values differ between two records of one kind (a field missing on one side differs). */
function differences(before: Attributes, after: Attributes): string[] {
  const fields = [
    ...Object.keys(after),
    ...Object.keys(before).filter((field) => !Object.hasOwn(after, field)),
  ];
  return fields.filter((field) => !sameJson(before[field], after[field]));
}

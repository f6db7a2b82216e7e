/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`). The file is the JSON plan plus the username
 * rules are created with. Applying one applies exactly that plan, or nothing: every remote object it
 * touches is re-read first, and a changed fingerprint or a planned-create key that now exists makes
 * it stale.
 */
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { ApiClient } from '../api/index.js';
import { WafctlError } from '../errors.js';
import { KINDS } from '../kinds/index.js';
import { fingerprint } from '../plan/fingerprint.js';
import { type Change, IMPACT_CLASSES, KIND_NAMES, type Plan } from '../plan/model.js';
import { planToJson } from '../plan/render/json.js';

const attributes = z.record(z.string(), z.unknown());
// Required: `apply --plan --fail-on` judges the impact the reviewer saw, which depends on settings
// the saved plan does not carry.
const impact = z.array(z.object({ class: z.enum(IMPACT_CLASSES), reason: z.string() }));
const base = { kind: z.enum(KIND_NAMES), key: z.string(), fields: z.array(z.string()), impact };
const changeSchema = z.discriminatedUnion('action', [
  z.object({ ...base, action: z.literal('create'), before: z.null(), after: attributes }),
  z.object({
    ...base,
    action: z.literal('update'),
    id: z.string(),
    before: attributes,
    after: attributes,
    target: attributes,
    fingerprint: z.string(),
  }),
  z.object({
    ...base,
    action: z.literal('replace'),
    id: z.string(),
    forced_by: z.array(z.string()),
    before: attributes,
    after: attributes,
    fingerprint: z.string(),
  }),
  z.object({
    ...base,
    action: z.literal('delete'),
    id: z.string(),
    before: attributes,
    after: z.null(),
    fingerprint: z.string(),
    reason: z.literal('duplicate').optional(),
    duplicate_of: z.string().optional(),
  }),
]);
const count = z.number().int().min(0);
/** The JSON plan of `plan --format json` (the contract's format_version 1, with wafctl's additions). */
export const planDocumentSchema = z.object({
  format_version: z.literal(1),
  summary: z.object({
    create: count,
    update: count,
    replace: count,
    delete: count,
    unchanged: count,
    unmanaged: count,
    impact: z.object({ weakens_protection: count, broadens_access: count, reduces_audit: count }),
  }),
  changes: z.array(changeSchema),
  problems: z.array(z.object({ kind: z.enum(KIND_NAMES), key: z.string(), message: z.string() })),
  warnings: z.array(
    z.object({
      kind: z.enum(KIND_NAMES),
      deletes: count,
      duplicates: count.optional(),
      existing: count,
      max_delete_percent: z.number(),
    }),
  ),
});
/** `plan --out`: the JSON plan plus the username rules are created with. */
const savedPlanSchema = planDocumentSchema.extend({ username: z.string().min(1) });

export interface SavedPlan {
  plan: Plan;
  username: string;
}

export function renderSavedPlan(plan: Plan, username: string): string {
  return `${JSON.stringify({ ...planToJson(plan), username }, null, 2)}\n`;
}

export async function readSavedPlan(path: string): Promise<SavedPlan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new WafctlError('USAGE', `cannot read the saved plan ${path}: ${reason}`, { userFault: true });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WafctlError('USAGE', `${path} is not a saved plan: it is not JSON`, { userFault: true });
  }
  const parsed = savedPlanSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(root)';
    throw new WafctlError(
      'USAGE',
      `${path} is not a saved plan of this wafctl: ${where}: ${issue?.message}`,
      {
        userFault: true,
      },
    );
  }
  const doc = parsed.data;
  const changes = doc.changes.map((c): Change => {
    if (c.action === 'replace') {
      const { forced_by, ...rest } = c;
      return { ...rest, forcedBy: forced_by };
    }
    if (c.action === 'delete') {
      const { reason: _reason, duplicate_of, ...rest } = c;
      return duplicate_of === undefined ? rest : { ...rest, duplicateOf: duplicate_of };
    }
    return c;
  });
  return {
    username: doc.username,
    plan: {
      summary: doc.summary,
      changes,
      problems: doc.problems,
      warnings: doc.warnings.map((w) => ({
        kind: w.kind,
        deletes: w.deletes,
        duplicates: w.duplicates ?? 0,
        existing: w.existing,
        maxDeletePercent: w.max_delete_percent,
      })),
    },
  };
}

/** Re-reads what the plan touches; throws `Saved plan is stale` naming every object that moved. */
export async function assertNotStale(plan: Plan, api: ApiClient, concurrency: number): Promise<void> {
  const kinds = KINDS.filter((kind) => plan.changes.some((c) => c.kind === kind.name));
  const remote = await Promise.all(kinds.map((kind) => kind.fetchAll(api, { concurrency })));
  const reasons: string[] = [];
  kinds.forEach((kind, i) => {
    const records = remote[i] ?? [];
    const byId = new Map(records.map((r) => [r.id, r]));
    const keys = new Set(records.map((r) => r.key));
    for (const change of plan.changes.filter((c) => c.kind === kind.name)) {
      const where = `${change.kind}.${change.key}`;
      if (change.action === 'create') {
        if (keys.has(change.key)) reasons.push(`${where} was planned as a create but now exists`);
        continue;
      }
      const now = byId.get(change.id);
      if (now === undefined) reasons.push(`${where} (id ${change.id}) no longer exists`);
      else if (fingerprint(now.id, now.attributes) !== change.fingerprint) {
        reasons.push(`${where} (id ${change.id}) changed since the plan was made`);
      }
    }
  });
  if (reasons.length > 0) {
    throw new WafctlError(
      'PLAN_REFUSED',
      `Saved plan is stale; nothing was applied. Run plan again.\n${reasons.map((r) => `  ${r}`).join('\n')}`,
      { userFault: true },
    );
  }
}

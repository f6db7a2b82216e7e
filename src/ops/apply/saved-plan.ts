/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`): the file format.
 *
 * The file is the JSON plan, plus what applying it needs and nothing can be trusted to recompute: the
 * base URL it was made against (never a secret), the username rules are created with, and the
 * settings the plan was judged by (`settings.safety`, `settings.firewall_actions`, `manage`).
 *
 * The file is hostile input. Reading it keeps only the *intent* of each change: what to create, the
 * whole object an update leaves (`target`), what a replacement creates, what to delete; with the id
 * and fingerprint of the live object each was planned from. Everything a reviewer is shown and
 * judged by (fields, before/after, impact, warnings, summary) is rebuilt at apply time from the live
 * objects and that intent (src/ops/apply/replan.ts); what the file says of them is validated, never read.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { WafctlError } from '../../core/errors.js';
import type { FirewallActions } from '../../core/firewall-actions.js';
import {
  type Attributes,
  IMPACT_CLASSES,
  KIND_NAMES,
  type KindName,
  type Plan,
  type PlanProblem,
} from '../../core/model.js';
import type { ManageScope } from '../../core/scope.js';
import { KINDS, type Kind } from '../../kinds/index.js';
import type { SafetySettings } from '../../plan/assess.js';
import { planToJson } from '../../plan/render/json.js';

/** A saved plan larger than this is refused before it is parsed. */
export const MAX_SAVED_PLAN_BYTES = 256 * 1024 * 1024;

const attributes = z.record(z.string(), z.unknown());
const impact = z.array(z.strictObject({ class: z.enum(IMPACT_CLASSES), reason: z.string() }));
const base = { kind: z.enum(KIND_NAMES), key: z.string(), fields: z.array(z.string()), impact };
const changeSchema = z.discriminatedUnion('action', [
  z.strictObject({ ...base, action: z.literal('create'), before: z.null(), after: attributes }),
  z.strictObject({
    ...base,
    action: z.literal('update'),
    id: z.string(),
    before: attributes,
    after: attributes,
    target: attributes,
    fingerprint: z.string(),
  }),
  z.strictObject({
    ...base,
    action: z.literal('replace'),
    id: z.string(),
    forced_by: z.array(z.string()),
    before: attributes,
    after: attributes,
    fingerprint: z.string(),
  }),
  z.strictObject({
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
  summary: z.strictObject({
    create: count,
    update: count,
    replace: count,
    delete: count,
    unchanged: count,
    unmanaged: count,
    impact: z.strictObject({ weakens_protection: count, broadens_access: count, reduces_audit: count }),
  }),
  changes: z.array(changeSchema),
  problems: z.array(z.strictObject({ kind: z.enum(KIND_NAMES), key: z.string(), message: z.string() })),
  warnings: z.array(
    z.strictObject({
      kind: z.enum(KIND_NAMES),
      deletes: count,
      duplicates: count.optional(),
      existing: count,
      max_delete_percent: z.number(),
    }),
  ),
});

const actionList = z.array(z.string());
const scopeSchema = z.strictObject({ prune: z.boolean(), match: z.record(z.string(), z.array(z.string())) });
/** `manage`, by section as in the configuration (`application_rules: {prune, match}`). */
const manageSchema = z.strictObject(
  Object.fromEntries(KINDS.map((kind) => [kind.section, scopeSchema])) as Record<
    (typeof KINDS)[number]['section'],
    typeof scopeSchema
  >,
);
/** `plan --out`: the JSON plan plus where it was made and what it was judged by. */
const savedPlanSchema = planDocumentSchema
  .extend({
    base_url: z.string().min(1),
    username: z.string().min(1),
    settings: z.strictObject({
      safety: z.strictObject({
        max_delete_percent: z.number().min(0).max(100),
        min_existing: z.number().int().min(0),
      }),
      firewall_actions: z.strictObject({ blocking: actionList, observing: actionList, allowing: actionList }),
    }),
    manage: manageSchema,
  })
  .strict();

/** What a saved plan records besides its changes: all of it is used by `apply --plan`. */
export interface SavedPlanContext {
  /** Where the plan was made: `normalizeBaseUrl` of the URL in use, or `embedded`. */
  baseUrl: string;
  /** Sent as `username` when creating application rules. */
  username: string;
  safety: SafetySettings;
  firewallActions: FirewallActions;
  /** Each kind's `manage` scope. */
  scopes: Record<KindName, ManageScope>;
}

/**
 * The intent of one saved change. `key` only names the object in a message when its live object is
 * gone; every other key is derived from the objects themselves.
 */
export type SavedChange =
  | { action: 'create'; kind: KindName; key: string; after: Attributes }
  | { action: 'update'; kind: KindName; key: string; id: string; fingerprint: string; target: Attributes }
  | { action: 'replace'; kind: KindName; key: string; id: string; fingerprint: string; after: Attributes }
  | {
      action: 'delete';
      kind: KindName;
      key: string;
      id: string;
      fingerprint: string;
      duplicateOf?: string;
    };

export interface SavedPlan extends SavedPlanContext {
  /** The file it was read from, for messages. */
  path: string;
  changes: SavedChange[];
  /** Objects nothing was planned for: they can only make apply refuse, so they are kept. */
  problems: PlanProblem[];
}

export function renderSavedPlan(plan: Plan, context: SavedPlanContext): string {
  const manage = Object.fromEntries(KINDS.map((kind) => [kind.section, context.scopes[kind.name]]));
  const document = {
    ...planToJson(plan),
    base_url: context.baseUrl,
    username: context.username,
    settings: {
      safety: {
        max_delete_percent: context.safety.maxDeletePercent,
        min_existing: context.safety.minExisting,
      },
      firewall_actions: context.firewallActions,
    },
    manage,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}

function unreadable(path: string, reason: string): WafctlError {
  return new WafctlError('USAGE', `cannot read the saved plan ${path}: ${reason}`, { userFault: true });
}

/** The file's text, refused past `maxBytes` (checked before reading a regular file, and while reading). */
async function readBounded(path: string, maxBytes: number): Promise<string> {
  const tooLarge = () => unreadable(path, `it is larger than ${maxBytes} bytes`);
  try {
    const info = await stat(path);
    if (info.isFile() && info.size > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of createReadStream(path)) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    if (error instanceof WafctlError) throw error;
    throw unreadable(path, (error as NodeJS.ErrnoException).code ?? String(error));
  }
}

/** What applying a saved change needs: its intent, without what the file says it does. */
function intentOf(c: z.output<typeof changeSchema>): SavedChange {
  const { kind, key } = c;
  switch (c.action) {
    case 'create':
      return { action: c.action, kind, key, after: c.after };
    case 'update':
      return { action: c.action, kind, key, id: c.id, fingerprint: c.fingerprint, target: c.target };
    case 'replace':
      return { action: c.action, kind, key, id: c.id, fingerprint: c.fingerprint, after: c.after };
    case 'delete': {
      const intent = { action: c.action, kind, key, id: c.id, fingerprint: c.fingerprint };
      return c.duplicate_of === undefined ? intent : { ...intent, duplicateOf: c.duplicate_of };
    }
  }
}

export async function readSavedPlan(path: string, options: { maxBytes?: number } = {}): Promise<SavedPlan> {
  const text = await readBounded(path, options.maxBytes ?? MAX_SAVED_PLAN_BYTES);
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
      `${path} is not a saved plan of this wafctl: ${where}: ${issue?.message}. Run plan --out again.`,
      { userFault: true },
    );
  }
  const doc = parsed.data;
  const changes = doc.changes.map(intentOf);
  const { safety, firewall_actions } = doc.settings;
  return {
    path,
    baseUrl: doc.base_url,
    username: doc.username,
    safety: { maxDeletePercent: safety.max_delete_percent, minExisting: safety.min_existing },
    firewallActions: firewall_actions,
    scopes: scopesByKind((kind) => doc.manage[kind.section]),
    changes,
    problems: doc.problems,
  };
}

/** Each kind's `manage` scope, read by `scopeOf`. */
export function scopesByKind(scopeOf: (kind: Kind) => ManageScope): Record<KindName, ManageScope> {
  const scopes: Partial<Record<KindName, ManageScope>> = {};
  for (const kind of KINDS) scopes[kind.name] = scopeOf(kind);
  return scopes as Record<KindName, ManageScope>;
}

/**
 * The base URL as a saved plan records and compares it: scheme, host (lower-case, default port
 * dropped) and path without trailing slashes; never a user, password, query or fragment, so it holds
 * no secret. `embedded` stays `embedded` (the embedded emulator's port changes on every run).
 * Undefined when `url` is not a URL (the connection reports that itself).
 */
export function normalizeBaseUrl(url: string): string | undefined {
  if (url === 'embedded') return url;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return undefined;
  }
}

/** Refuses a saved plan made against another server than `current` (a `normalizeBaseUrl` result). */
export function assertMadeAgainst(saved: SavedPlan, current: string): void {
  if (saved.baseUrl === current) return;
  throw new WafctlError(
    'PLAN_REFUSED',
    `the saved plan ${saved.path} was made against ${saved.baseUrl}, not ${current}: nothing was applied. Apply it against ${saved.baseUrl}, or run plan --out against ${current}.`,
    { userFault: true },
  );
}

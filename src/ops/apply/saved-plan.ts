/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`): the file format.
 *
 * The file is the JSON plan, plus what applying it needs and nothing can be trusted to recompute: the
 * base URL it was made against (never a secret) and the username rules are created with; and, for
 * people, the settings the plan was judged by (`settings.safety`, `settings.firewall_actions`,
 * `manage`), which `apply --plan` does not use: it judges by the policy in force (`PlanPolicy`). It
 * is written and read by one codec: the plan document's (src/core/plan-document.ts), extended by
 * these fields.
 *
 * The file is hostile input. Reading it keeps only the *intent* of each change: what to create, the
 * whole object an update leaves (`target`), what a replacement creates, what to delete; with the id
 * and fingerprint of the live object each was planned from. Everything a reviewer is shown and
 * judged by (fields, before/after, objects, impact, warnings, summary) is rebuilt at apply time from
 * the live objects and that intent (src/ops/apply/replan.ts); what the file says of them is
 * validated, never read.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import * as z from 'zod';
import { sameJson } from '../../core/canonical.js';
import { WafctlError } from '../../core/errors.js';
import type { FirewallActions } from '../../core/firewall-actions.js';
import type { Attributes, Change, KindName, Plan, PlanProblem, PlanTargets } from '../../core/model.js';
import { PLAN_FORMAT_VERSION, planDocumentSchema } from '../../core/plan-document.js';
import { type SafetySettings, safetyCodec } from '../../core/safety.js';
import type { ManageScope } from '../../core/scope.js';
import { KIND_NAMES, KINDS, type Kind } from '../../kinds/index.js';

/** A saved plan larger than this is refused before it is parsed. */
export const MAX_SAVED_PLAN_BYTES = 256 * 1024 * 1024;

/**
 * What a plan is judged by: the safety threshold, what each firewall action means, and each kind's
 * `manage` scope. A saved plan records the policy it was made with, for people; `apply --plan` judges
 * it by the policy in force when it applies (the configuration's, or the trusted ref's), never by
 * what the file says.
 */
export interface PlanPolicy {
  safety: SafetySettings;
  firewallActions: FirewallActions;
  /** Each kind's `manage` scope. */
  scopes: Record<KindName, ManageScope>;
}

/** What a saved plan records besides its changes. */
export interface SavedPlanContext extends PlanPolicy {
  /** Where the plan was made: `normalizeBaseUrl` of the URL in use, or `embedded`. */
  baseUrl: string;
  /** Sent as `username` when creating application rules. */
  username: string;
}

const strings = z.array(z.string()).readonly();

/** The kinds with a `manage` scope: a singleton section (settings) has none, and none is recorded. */
const SCOPED = KINDS.filter((kind) => !kind.singleton);
const NO_SCOPE: ManageScope = { prune: false, match: {} };
const scopeSchema = z.strictObject({ prune: z.boolean(), match: z.record(z.string(), strings) });

/** `manage`, by section as in the configuration (`application_rules: {prune, match}`) <-> by kind name. */
const manageCodec = z.codec(
  z.strictObject(Object.fromEntries(SCOPED.map((kind) => [kind.section, scopeSchema]))),
  z.record(z.string(), scopeSchema),
  {
    decode: (manage) => scopesByKind((kind) => manage[kind.section]!),
    encode: (scopes) => Object.fromEntries(SCOPED.map((kind) => [kind.section, scopeIn(scopes, kind)])),
  },
);

/** A plan made by this wafctl names only its families. */
function registeredKinds(
  doc: {
    changes: readonly { kind: string }[];
    problems: readonly { kind: string }[];
    warnings: readonly { kind: string }[];
  },
  ctx: z.RefinementCtx,
): void {
  for (const list of ['changes', 'problems', 'warnings'] as const) {
    doc[list].forEach(({ kind }, i) => {
      if (KIND_NAMES.includes(kind)) return;
      const expected = KIND_NAMES.map((name) => JSON.stringify(name)).join('|');
      ctx.addIssue({
        code: 'custom',
        path: [list, i, 'kind'],
        message: `Invalid option: expected one of ${expected}`,
      });
    });
  }
}

/** `plan --out`: the JSON plan plus where it was made and what it was judged by. */
const savedPlanJson = planDocumentSchema
  .extend({
    base_url: z.string().min(1),
    username: z.string().min(1),
    settings: z.strictObject({
      safety: safetyCodec,
      firewall_actions: z.strictObject({ blocking: strings, observing: strings, allowing: strings }),
    }),
    manage: manageCodec,
  })
  .strict()
  .superRefine(registeredKinds);

/** The saved plan file <-> the plan and its context, both ways. */
const savedPlanCodec = z.codec(savedPlanJson, z.custom<{ plan: Plan; context: SavedPlanContext }>(), {
  decode: ({ format_version: _, base_url, username, settings, manage, ...plan }) => ({
    plan,
    context: {
      baseUrl: base_url,
      username,
      safety: settings.safety,
      firewallActions: settings.firewall_actions,
      scopes: manage,
    },
  }),
  encode: ({ plan, context }) => ({
    format_version: PLAN_FORMAT_VERSION,
    ...plan,
    base_url: context.baseUrl,
    username: context.username,
    settings: { safety: context.safety, firewall_actions: context.firewallActions },
    manage: context.scopes,
  }),
});

/**
 * The intent of one saved change. `key` only names the object in a message when its live object is
 * gone; every other key is derived from the objects themselves.
 */
export type SavedChange =
  | { action: 'create'; kind: KindName; key: string; after: Attributes }
  /**
   * `after`: the whole object the update leaves (the file's `target`). `renamed_from`: the key the
   * live object had when planned, which its key may change from.
   */
  | {
      action: 'update' | 'replace';
      kind: KindName;
      key: string;
      id: string;
      fingerprint: string;
      after: Attributes;
      renamed_from?: string;
    }
  | {
      action: 'delete';
      kind: KindName;
      key: string;
      id: string;
      fingerprint: string;
      duplicate_of?: string;
    };

export interface SavedPlan extends SavedPlanContext {
  /** The file it was read from, for messages. */
  path: string;
  changes: SavedChange[];
  /** Objects nothing was planned for: they can only make apply refuse, so they are kept. */
  problems: PlanProblem[];
  /** A partial plan's selection (`--target`, ...): it holds only the selected changes. */
  targets?: PlanTargets;
}

/** The saved plan file's text: `plan` and its `context`, encoded as `plan --out` writes them. */
export function renderSavedPlan(plan: Plan, context: SavedPlanContext): string {
  return `${JSON.stringify(z.encode(savedPlanCodec, { plan, context }), null, 2)}\n`;
}

function unreadable(path: string, reason: string): WafctlError {
  return new WafctlError('USAGE', `cannot read the saved plan ${path}: ${reason}`, { userFault: true });
}

/** The file's text, refused past `maxBytes` (checked before reading a regular file, and while reading). */
async function readBounded(path: string, maxBytes: number, cwd: string | undefined): Promise<string> {
  const tooLarge = () => unreadable(path, `it is larger than ${maxBytes} bytes`);
  const where = cwd === undefined ? path : resolve(cwd, path);
  try {
    const info = await stat(where);
    if (info.isFile() && info.size > maxBytes) throw tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of createReadStream(where)) {
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
function intentOf(change: Change): SavedChange {
  const { kind, key } = change;
  switch (change.action) {
    case 'create':
      return { action: change.action, kind, key, after: change.after };
    case 'update':
    case 'replace': {
      const { action, id, fingerprint, after, renamed_from } = change;
      const intent = { action, kind, key, id, fingerprint, after };
      return renamed_from === undefined ? intent : { ...intent, renamed_from };
    }
    case 'delete': {
      const { action, id, fingerprint, duplicate_of } = change;
      const intent = { action, kind, key, id, fingerprint };
      return duplicate_of === undefined ? intent : { ...intent, duplicate_of };
    }
  }
}

/**
 * The saved plan at `path`: each change's intent (what it would do is rebuilt at apply time:
 * replan.ts), refused when too large, not JSON, or not a saved plan of this wafctl.
 */
export async function readSavedPlan(
  path: string,
  /** `cwd`: what a relative `path` is relative to (messages show `path` as given). */
  options: { maxBytes?: number; cwd?: string } = {},
): Promise<SavedPlan> {
  const text = await readBounded(path, options.maxBytes ?? MAX_SAVED_PLAN_BYTES, options.cwd);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WafctlError('USAGE', `${path} is not a saved plan: it is not JSON`, { userFault: true });
  }
  const parsed = savedPlanCodec.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(root)';
    throw new WafctlError(
      'USAGE',
      `${path} is not a saved plan of this wafctl: ${where}: ${issue?.message}. Run plan --out again.`,
      { userFault: true },
    );
  }
  const { plan, context } = parsed.data;
  return {
    path,
    ...context,
    changes: plan.changes.map(intentOf),
    problems: plan.problems,
    ...(plan.targets === undefined ? {} : { targets: plan.targets }),
  };
}

/** The scope recorded for `kind` (a saved plan records one for every kind but a singleton). */
export function scopeIn(scopes: Readonly<Record<KindName, ManageScope>>, kind: Kind): ManageScope {
  if (kind.singleton) return NO_SCOPE;
  const scope = scopes[kind.name];
  if (scope === undefined) throw new Error(`no manage scope recorded for ${kind.name}`);
  return scope;
}

/** Each kind's `manage` scope, read by `scopeOf`. */
export function scopesByKind(scopeOf: (kind: Kind) => ManageScope): Record<KindName, ManageScope> {
  const scopes: Partial<Record<KindName, ManageScope>> = {};
  for (const kind of SCOPED) scopes[kind.name] = scopeOf(kind);
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

/** The parts of the policy a saved plan records that differ from the policy in force (which judges it). */
export function recordedPolicyDiffers(saved: PlanPolicy, inForce: PlanPolicy): string[] {
  const parts: [string, unknown, unknown][] = [
    ['settings.safety', saved.safety, inForce.safety],
    ['settings.firewall_actions', saved.firewallActions, inForce.firewallActions],
    ['manage', saved.scopes, inForce.scopes],
  ];
  return parts.filter(([, recorded, current]) => !sameJson(recorded, current)).map(([name]) => name);
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

/**
 * The apply report as JSON (`apply --format json`, `apply --report FILE`): what an apply did, for a
 * pipeline to read. Its zod schema is the source of `schemas/apply-report.schema.json` and of the
 * document's types; the report in memory is described by the schemas of model.ts (a field both have
 * has the document's name: `server_message`, `exit_code`, `duration_ms`), and the encoder
 * (`applyReportEncoder`) goes from one to the other, checking both, so the three cannot diverge. One
 * document per environment; with several, `applyReportEnvironments` wraps them. docs/apply.md ("The
 * apply report (JSON)") documents every field.
 *
 * Nothing here comes from the token: the API's messages are already redacted by the client
 * (src/api/errors.ts), and every message and reason is passed through `redact` once more, as the
 * text report's lines are by the client.
 */
import * as z from 'zod';
import { documentJsonSchema } from '../../core/document-schemas.js';
import { type EnvironmentSummary, environmentsSummarySchema, errorLine } from '../../core/fleet-summary.js';
import type { Change, Plan } from '../../core/model.js';
import { redact } from '../../core/secrets.js';
import { plural } from '../../core/text.js';
import { KIND_NAMES } from '../../kinds/index.js';
import { address } from '../../plan/render/summary.js';
import {
  type ApplyReport,
  applyReportSchema,
  ENFORCEMENT_STATES,
  type Enforcement,
  type Operation,
  type OperationResult,
  type Outcome,
  operationSchema,
  WAIT_RESULTS,
} from './model.js';
import { failed } from './recovery.js';
import { whyNotEnforced } from './report.js';

export const APPLY_REPORT_FORMAT_VERSION = 1 as const;
export const APPLY_REPORT_SCHEMA_FILE = 'apply-report.schema.json';

/**
 * The outcome of one operation, as a stable string:
 * - `done`: the API confirmed it (a create: and a re-read by the ids it gave proved it);
 * - `done_verified`: an answer was ambiguous (no answer, a 5xx, an unreadable 2xx, a 303, a create's
 *   ids that are not new or that a re-read did not bear out), and the work was then verified: found
 *   done by re-reading, or found missing and sent again successfully;
 * - `failed`: the API refused it, the answer was lost and the re-read failed too, or no attempt could
 *   be proven (`error` says);
 * - `skipped`: not sent, because of another operation's failure (`reason` says);
 * - `interrupted`: not started, the apply was interrupted (SIGINT/SIGTERM) before its turn;
 * - `not_started`: nothing was sent, because the apply as a whole was not carried out: refused at
 *   the gate (`--fail-on`, the safety threshold, objects that could not be planned), declined at the
 *   prompt, or, with several environments, another environment was refused (`reason` says).
 */
export const APPLY_OUTCOMES = [
  'done',
  'done_verified',
  'failed',
  'skipped',
  'interrupted',
  'not_started',
] as const;
export type ApplyOutcome = (typeof APPLY_OUTCOMES)[number];

const count = z.int().min(0);

const errorSchema = z.strictObject({
  /** The error as the text report shows it (`[PUT] /api/v1/groups/42: 400 ...`). */
  message: z.string(),
  /** The request that failed, when the error names one. */
  method: z.string().optional(),
  path: z.string().optional(),
  /** The HTTP status, when the server answered. */
  status: z.int().optional(),
  /** The `message` of the server's answer, when it had one. */
  server_message: z.string().optional(),
});

const resultSchema = z.strictObject({
  kind: z.string(),
  key: z.string(),
  /** `family.key`, as plans print it. */
  address: z.string(),
  /** The planned change: a replacement is two operations, a create then a delete (or the reverse). */
  action: z.enum(['create', 'update', 'replace', 'delete']),
  /** What this entry sent. */
  operation: operationSchema,
  /**
   * The id of the object operated on: the existing object's for an update or a delete; for a create,
   * the new object's as the re-read that proved it found it, else (not done) null.
   */
  id: z.string().nullable(),
  /** For the create half of a replacement: the id of the object it replaces. */
  replaces: z.string().optional(),
  outcome: z.enum(APPLY_OUTCOMES),
  /** With `failed`. */
  error: errorSchema.optional(),
  /** With `skipped`, `interrupted` and `not_started`. */
  reason: z.string().optional(),
});

const refusedSchema = z.strictObject({
  kind: z.string(),
  key: z.string(),
  address: z.string(),
  message: z.string(),
});

/**
 * One action of a rule the apply wrote, as `apply --wait` last read it: a planned one (the change's
 * `after.actions`), or one read back that the plan did not give the rule.
 */
const enforcedActionSchema = z.strictObject({
  kind: z.string(),
  key: z.string(),
  address: z.string(),
  /** The rule written: a create's (or a replacement's) new rule, or the rule updated. */
  id: z.string(),
  firewall: z.string(),
  /** As read back; for an action not read back, or never read, as planned. */
  firewall_action: z.string().optional(),
  /** With `changed`: the `firewall_action` the plan gave this firewall. */
  planned_action: z.string().optional(),
  /** The action's `sync_status` as the API gave it; absent when it gave none. */
  status: z.string().optional(),
  /**
   * Read back as written, what the status says: `synced` (the only state that is enforced),
   * `pending`, `error`, `unknown` (a value wafctl does not know, none, or the rule was never read).
   * Not as written: `missing` (the rule was not found, or has no action on this firewall),
   * `changed` (another `firewall_action` on this firewall), `unplanned` (an action on a firewall the
   * plan did not give the rule: moved or added).
   */
  state: z.enum(ENFORCEMENT_STATES),
  /** With every state but `synced`: why the action is not enforced, as the text report says it. */
  reason: z.string().optional(),
});

/**
 * `apply --wait`: whether the application rules the apply created, replaced or updated reached
 * their firewalls (docs/apply.md, "Waiting for enforcement"). Absent without `--wait`.
 */
const enforcementDocumentSchema = z.strictObject({
  /**
   * `enforced`: every planned action read back as written and synced; `not_enforced`: none left
   * pending, some in error or not read back as written (`missing`, `changed`, `unplanned`);
   * `timed_out`: some not settled by the timeout (the reads in flight then are cancelled);
   * `interrupted`: a signal stopped the wait (the writes are done); `unreadable`: the rules could
   * not be read back (`error` says why).
   */
  result: z.enum(WAIT_RESULTS),
  timeout_ms: z.number().min(0),
  /** From the end of the writes to the end of the wait. */
  waited_ms: z.number().min(0),
  /** Rounds of reads (each reads only the rules not yet settled). */
  polls: count,
  /** API calls the reads made. */
  requests: count,
  summary: z.strictObject({
    /** Rules waited for. */
    rules: count,
    /** Entries of `actions`, then how many are in each state. */
    actions: count,
    synced: count,
    pending: count,
    error: count,
    unknown: count,
    missing: count,
    changed: count,
    unplanned: count,
  }),
  /**
   * Every planned action of every rule waited for, and every action read back that was not planned,
   * by address then firewall (as the text lists them).
   */
  actions: z.array(enforcedActionSchema),
  /** With `unreadable`. */
  error: errorSchema.optional(),
});

export const applyReportDocumentSchema = z.strictObject({
  format_version: z.literal(APPLY_REPORT_FORMAT_VERSION),
  /** The exit code of the apply. */
  exit_code: z.int().min(0),
  /** Whether everything planned was applied: every operation done, nothing refused. */
  succeeded: z.boolean(),
  /** Wall-clock time of the apply, in milliseconds. */
  duration_ms: z.number().min(0),
  /** API calls made by the apply (not counting the reads that planned it). */
  requests: count,
  summary: z.strictObject({
    /** Operations in `results`. */
    operations: count,
    done: count,
    done_verified: count,
    failed: count,
    skipped: count,
    interrupted: count,
    not_started: count,
    /** Entries of `refused`. */
    refused: count,
    /** Operations done (or done_verified), by what they did: Terraform's "added, changed, destroyed". */
    created: count,
    updated: count,
    deleted: count,
  }),
  /** One entry per operation, by family (the registry's order), key, then operation. */
  results: z.array(resultSchema),
  /** Objects the plan could not include (duplicates, protected objects): nothing was sent for them. */
  refused: z.array(refusedSchema),
  /** With `--wait`: whether the rules written reached their firewalls. */
  enforcement: enforcementDocumentSchema.optional(),
  /**
   * What stopped the run before a plan was applied or refused: a usage, configuration or connection
   * error, a failed read of the firewall, an interrupt. `results` is then empty: nothing was sent.
   */
  error: errorSchema.optional(),
});

/** One environment's apply report, as JSON. */
export type ApplyReportJson = z.output<typeof applyReportDocumentSchema>;
type ResultJson = ApplyReportJson['results'][number];

/** What the report does not know by itself: the caller's clock and exit code (bounds: the document's). */
const metaSchema = z.object({
  /** The exit code the command returns. */
  exit_code: z.number(),
  /** Wall-clock milliseconds of the apply (from the caller's clock). */
  duration_ms: z.number(),
  /** API calls made; default the applier's own count (`report.requests`). */
  requests: z.number().optional(),
});
export type ApplyReportMeta = z.output<typeof metaSchema>;

const operationOrder = (operation: Operation) => operationSchema.options.indexOf(operation);

function compareResults(a: OperationResult, b: OperationResult): number {
  const byKind = KIND_NAMES.indexOf(a.change.kind) - KIND_NAMES.indexOf(b.change.kind);
  if (byKind !== 0) return byKind;
  if (a.change.key !== b.change.key) return a.change.key < b.change.key ? -1 : 1;
  const byOperation = operationOrder(a.operation) - operationOrder(b.operation);
  if (byOperation !== 0) return byOperation;
  const [ia, ib] = [idOf(a) ?? '', idOf(b) ?? ''];
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

function idOf({ change, operation, outcome }: OperationResult): string | null {
  if (operation !== 'create') return change.action === 'create' ? null : change.id;
  return outcome.status === 'done' && outcome.id !== undefined ? outcome.id : null;
}

function outcomeJson(outcome: Outcome): Pick<ResultJson, 'outcome' | 'error' | 'reason'> {
  switch (outcome.status) {
    case 'done':
      return { outcome: outcome.ambiguous ? 'done_verified' : 'done' };
    case 'failed': {
      const request = outcome.request;
      const error = {
        message: redact(outcome.message),
        ...(request === undefined ? {} : { method: request.method, path: redact(request.path) }),
        ...(request?.status === undefined ? {} : { status: request.status }),
        ...(request?.server_message === undefined ? {} : { server_message: redact(request.server_message) }),
      };
      return { outcome: 'failed', error };
    }
    case 'skipped':
      return { outcome: 'skipped', reason: redact(outcome.reason) };
    case 'interrupted':
      return { outcome: 'interrupted', reason: 'not started: the apply was interrupted' };
  }
}

function resultJson(result: OperationResult): ResultJson {
  const { change, operation } = result;
  const replaces = change.action === 'replace' && operation === 'create' ? { replaces: change.id } : {};
  return {
    kind: change.kind,
    key: change.key,
    address: address(change),
    action: change.action,
    operation,
    id: idOf(result),
    ...replaces,
    ...outcomeJson(result.outcome),
  };
}

type EnforcementJson = z.output<typeof enforcementDocumentSchema>;

/** What `apply --wait` found, as the document says it: actions by address then firewall, counted. */
function enforcementJson(enforcement: Enforcement): EnforcementJson {
  const actions = enforcement.actions.map((action) => {
    const { change, id, firewall, firewall_action, planned_action, status, state } = action;
    return {
      kind: change.kind,
      key: change.key,
      address: address(change),
      id,
      firewall,
      ...(firewall_action === undefined ? {} : { firewall_action }),
      ...(planned_action === undefined ? {} : { planned_action }),
      ...(status === undefined ? {} : { status }),
      state,
      ...(state === 'synced' ? {} : { reason: redact(whyNotEnforced(action, enforcement)) }),
    };
  });
  const states = Object.fromEntries(
    ENFORCEMENT_STATES.map((state) => [state, actions.filter((a) => a.state === state).length]),
  ) as Record<(typeof ENFORCEMENT_STATES)[number], number>;
  return {
    result: enforcement.result,
    timeout_ms: enforcement.timeoutMs,
    waited_ms: enforcement.waitedMs,
    polls: enforcement.polls,
    requests: enforcement.requests,
    summary: { rules: enforcement.rules, actions: actions.length, ...states },
    actions,
    ...(enforcement.error === undefined ? {} : { error: outcomeJson(enforcement.error).error }),
  };
}

/** The document of `report` (`format_version` 1): results in order, counted. */
function encodeReport(report: ApplyReport, meta: ApplyReportMeta): ApplyReportJson {
  const results = [...report.results].sort(compareResults).map(resultJson);
  const outcomes = (outcome: ApplyOutcome) => results.filter((r) => r.outcome === outcome).length;
  const done = (operation: Operation) =>
    results.filter((r) => r.operation === operation && r.outcome.startsWith('done')).length;
  const refused = report.refused.map((problem) => ({
    kind: problem.kind,
    key: problem.key,
    address: address(problem),
    message: redact(problem.message),
  }));
  return {
    format_version: APPLY_REPORT_FORMAT_VERSION,
    exit_code: meta.exit_code,
    succeeded: refused.length === 0 && results.every((r) => r.outcome.startsWith('done')),
    duration_ms: meta.duration_ms,
    requests: meta.requests ?? report.requests ?? 0,
    summary: {
      operations: results.length,
      done: outcomes('done'),
      done_verified: outcomes('done_verified'),
      failed: outcomes('failed'),
      skipped: outcomes('skipped'),
      interrupted: outcomes('interrupted'),
      not_started: outcomes('not_started'),
      refused: refused.length,
      created: done('create'),
      updated: done('update'),
      deleted: done('delete'),
    },
    results,
    refused,
    ...(report.enforcement === undefined ? {} : { enforcement: enforcementJson(report.enforcement) }),
  };
}

/**
 * The apply report's codec, one way (a report is written, never read back): the report in memory and
 * what the caller knows of it, checked against their schemas (model.ts), encoded, and checked against
 * the document's schema: the schema is the contract, a document that does not match it is a bug
 * here, not output.
 */
const applyReportEncoder = z
  .object({ report: applyReportSchema, meta: metaSchema })
  .transform(({ report, meta }) => encodeReport(report, meta))
  .pipe(applyReportDocumentSchema);

/** The apply report document of one environment, checked against its schema. */
export function applyReportDocument(report: ApplyReport, meta: ApplyReportMeta): ApplyReportJson {
  return applyReportEncoder.parse({ report, meta });
}

/**
 * The report of a run that stopped before it had a plan to apply (`error` says why: the message the
 * run printed, and the request it names): nothing was sent, every count is 0.
 */
export function stoppedReportDocument(error: unknown, meta: ApplyReportMeta): ApplyReportJson {
  const { error: json } = outcomeJson(failed(error));
  const document = applyReportDocument({ results: [], refused: [], requests: 0 }, { ...meta, requests: 0 });
  return applyReportDocumentSchema.parse({ ...document, succeeded: false, error: json });
}

/** The operations of a change: a replacement is a create and a delete. */
const OPERATIONS: Record<Change['action'], readonly Operation[]> = {
  create: ['create'],
  update: ['update'],
  replace: ['create', 'delete'],
  delete: ['delete'],
};

/**
 * The report of a plan that was not carried out (refused at the gate, declined at the prompt, or
 * held back with the other environments): every operation `not_started`, with `reason`. A plan
 * without changes gives an empty report.
 */
export function unappliedReportDocument(plan: Plan, reason: string, meta: ApplyReportMeta): ApplyReportJson {
  const document = applyReportDocument(
    { results: [], refused: plan.problems, requests: 0 },
    { ...meta, requests: 0 },
  );
  const results = plan.changes
    .flatMap((change) =>
      OPERATIONS[change.action].map(
        (operation): OperationResult => ({
          change,
          operation,
          outcome: { status: 'done' },
        }),
      ),
    )
    .sort(compareResults)
    .map((result) => ({ ...resultJson(result), outcome: 'not_started' as const, reason: redact(reason) }));
  return applyReportDocumentSchema.parse({
    ...document,
    succeeded: results.length === 0 && document.refused.length === 0,
    summary: { ...document.summary, operations: results.length, not_started: results.length },
    results,
  });
}

/** The apply report of one environment, as the JSON text written (two-space indent, a final newline). */
export function renderJsonApplyReport(report: ApplyReport, meta: ApplyReportMeta): string {
  return `${JSON.stringify(applyReportDocument(report, meta), null, 2)}\n`;
}

/**
 * Several environments' reports in one document: `{"format_version": 1, "environments": {NAME: DOC}}`,
 * in the order given.
 */
export const applyReportEnvironmentsSchema = z.strictObject({
  format_version: z.literal(APPLY_REPORT_FORMAT_VERSION),
  /**
   * null for an environment that could not be planned: its own error is in `errors` (and on stderr),
   * or another environment's configuration problem stopped the run before any was planned.
   */
  environments: z.record(z.string(), applyReportDocumentSchema.nullable()),
  /** The error of each environment that could not be loaded or planned, by name. */
  errors: z.record(z.string(), errorSchema).optional(),
  /** One row per environment, as the table of several environments (issue 45). */
  summary: environmentsSummarySchema.optional(),
});

export type ApplyReportEnvironmentsJson = z.output<typeof applyReportEnvironmentsSchema>;

export function applyReportEnvironments(
  environments: readonly (readonly [name: string, document: ApplyReportJson | null])[],
  /** The errors of the environments that could not be loaded or planned. */
  errors: readonly (readonly [name: string, error: unknown])[] = [],
): ApplyReportEnvironmentsJson {
  const byName = errors.map(([name, error]) => [name, outcomeJson(failed(error)).error] as const);
  const errorOf = new Map(byName);
  return applyReportEnvironmentsSchema.parse({
    format_version: APPLY_REPORT_FORMAT_VERSION,
    environments: Object.fromEntries(environments),
    ...(byName.length === 0 ? {} : { errors: Object.fromEntries(byName) }),
    summary: Object.fromEntries(
      environments.map(([name, document]) => [name, applySummary(document, errorOf.get(name))]),
    ),
  });
}

/**
 * An environment's row: `applied: N operations`, `no changes`, `not applied` (refused, declined, or
 * stopped by another environment: all or nothing), `not planned` (another environment's problem
 * stopped the run first), or `failed` with its error on one line.
 */
function applySummary(
  document: ApplyReportJson | null,
  error: { message: string } | undefined,
): EnvironmentSummary {
  const failure = error ?? document?.error;
  if (document === null && failure === undefined) {
    return { result: 'not planned', count: null, impact: null, error: null };
  }
  if (document === null || failure !== undefined) {
    return {
      result: 'failed',
      count: null,
      impact: null,
      error: failure ? errorLine(failure.message) : null,
    };
  }
  const { done, done_verified: verified, operations } = document.summary;
  const applied = done + verified;
  if (operations === 0 && document.succeeded)
    return { result: 'no changes', count: 0, impact: null, error: null };
  const result = document.succeeded ? `applied: ${plural(applied, 'operation')}` : 'not applied';
  return { result, count: applied, impact: null, error: null };
}

export function renderJsonApplyReports(
  environments: readonly (readonly [name: string, document: ApplyReportJson | null])[],
  errors: readonly (readonly [name: string, error: unknown])[] = [],
): string {
  return `${JSON.stringify(applyReportEnvironments(environments, errors), null, 2)}\n`;
}

/** What `apply --format json` and `apply --report FILE` write: one environment's document, or several. */
export const applyReportFileSchema = z.union([applyReportDocumentSchema, applyReportEnvironmentsSchema]);

/** `schemas/apply-report.schema.json`. */
export function buildApplyReportJsonSchema(): string {
  return documentJsonSchema(applyReportFileSchema, {
    file: APPLY_REPORT_SCHEMA_FILE,
    title: 'wafctl apply report',
    description:
      'The JSON apply report: `wafctl apply --format json` and `apply --report FILE`. One environment\'s document, or `{"format_version": 1, "environments": {NAME: document}}` for several.',
  });
}

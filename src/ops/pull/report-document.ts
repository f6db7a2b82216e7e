/**
 * The pull report as JSON (`pull --format json`): what a pull wrote (or, with `--dry-run`, would
 * write), for a pipeline that opens the pull request to read. Its zod schema is the source of
 * `schemas/pull-report.schema.json`, and the document is built through it, so the two cannot
 * diverge. docs/drift-and-pull.md ("Reports (`--format`)") documents every field.
 */
import * as z from 'zod';
import { documentJsonSchema } from '../../core/document-schemas.js';
import { redact } from '../../core/secrets.js';
import { address } from '../../plan/render/summary.js';
import type { PullResult } from './pull.js';

export const PULL_REPORT_FORMAT_VERSION = 1 as const;
export const PULL_REPORT_SCHEMA_FILE = 'pull-report.schema.json';

const count = z.int().min(0);

export const pullReportDocumentSchema = z.strictObject({
  format_version: z.literal(PULL_REPORT_FORMAT_VERSION),
  /** The environment pulled (`--env NAME`), null without environments. */
  environment: z.string().nullable(),
  /** `--dry-run`: nothing was written; `files` are those that would change. */
  dry_run: z.boolean(),
  /** Objects whose changes are in `files`. */
  objects: z.strictObject({ updated: count, removed: count, adopted: count }),
  /** Each file written (or that would be), in the order pull made them. */
  files: z.array(
    z.strictObject({
      file: z.string(),
      /** The file did not exist. */
      created: z.boolean(),
      /** The other environments that read this file too: the change applies to them. */
      shared_with: z.array(z.string()),
    }),
  ),
  /**
   * Changed fields written into the environment's own path (`file`) instead of the file other
   * environments read that declares them (`instead_of`, left untouched).
   */
  kept_in_own_path: z.array(
    z.strictObject({
      address: z.string(),
      fields: z.array(z.string()),
      file: z.string(),
      instead_of: z.string(),
    }),
  ),
  /** Objects nothing was pulled for: a value not written literally, a protected object. */
  conflicts: z.array(
    z.strictObject({
      address: z.string(),
      file: z.string(),
      line: z.int().min(1),
      col: z.int().min(1),
      reason: z.string(),
    }),
  ),
  /** Live objects no file declares that were not adopted: the next apply deletes them. */
  not_adopted: z.array(z.string()),
  /**
   * Who made the hand changes pulled (issue 44), newest first: each object updated, replaced or
   * adopted whose live record says who changed it last (`changed_by`) or when (`changed_at`, ISO 8601
   * UTC), each field only when the record gives it. An addition, absent when no record says.
   */
  credits: z
    .array(
      z.strictObject({
        address: z.string(),
        changed_by: z.string().optional(),
        changed_at: z.string().optional(),
      }),
    )
    .optional(),
});

export type PullReportJson = z.output<typeof pullReportDocumentSchema>;

/** What the result does not say by itself. */
export interface PullReportMeta {
  /** The environment's name, with `--env`. */
  environment: string | undefined;
  dryRun: boolean;
}

/** The pull report document (`format_version` 1), checked against its schema. */
export function pullReportDocument(result: PullResult, meta: PullReportMeta): PullReportJson {
  const { decision, files, shared, unadopted, credits } = result;
  const sharedWith = new Map(shared.map((entry) => [entry.file, entry.environments]));
  const document: PullReportJson = {
    format_version: PULL_REPORT_FORMAT_VERSION,
    environment: meta.environment ?? null,
    dry_run: meta.dryRun,
    objects: { updated: decision.updated, removed: decision.removed, adopted: decision.adopted },
    files: files.map(({ file, created }) => ({ file, created, shared_with: sharedWith.get(file) ?? [] })),
    kept_in_own_path: decision.kept.map((kept) => ({
      address: address(kept),
      fields: kept.fields,
      file: kept.file,
      instead_of: kept.insteadOf,
    })),
    conflicts: decision.conflicts.map(({ file, line, col, reason, ...object }) => ({
      address: address(object),
      file,
      line,
      col,
      reason: redact(reason),
    })),
    not_adopted: [...new Set(unadopted.map(address))],
    ...(credits.length === 0 ? {} : { credits: [...credits] }),
  };
  // The schema is the contract: a document that does not match it is a bug here, not output.
  return pullReportDocumentSchema.parse(document);
}

/** `schemas/pull-report.schema.json`: `pull --format json`. */
export function buildPullReportJsonSchema(): string {
  return documentJsonSchema(pullReportDocumentSchema, {
    file: PULL_REPORT_SCHEMA_FILE,
    title: 'wafctl pull report',
    description:
      "The JSON pull report: `wafctl pull --format json`: the files pull wrote (or would write, with `--dry-run`), the changes kept in the environment's own path instead of a file other environments read, the conflicts and the live objects not adopted. Fields of format_version 1 never change meaning; more may be added.",
  });
}

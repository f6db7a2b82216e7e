/**
 * The plan is plain data: a list of typed changes plus counts, problems and warnings. Renderers turn
 * it into strings, the applier into API calls, `plan --out` into a file. Nothing here does I/O.
 */

export const KIND_NAMES = ['group', 'application_rule', 'notification', 'schedule'] as const;
export type KindName = (typeof KIND_NAMES)[number];

/** A comparable record: the desired shape of one object, server fields dropped, sets sorted. */
export type Attributes = Record<string, unknown>;

/** The security consequences a reviewer must see, worst first (see src/core/impact.ts). */
export const IMPACT_CLASSES = ['weakens_protection', 'broadens_access', 'reduces_audit'] as const;
export type ImpactClass = (typeof IMPACT_CLASSES)[number];

/** One security consequence of a change, and why, in words a reviewer reads in the plan. */
export interface Impact {
  class: ImpactClass;
  reason: string;
}

interface ChangeBase {
  kind: KindName;
  /** The natural key: the name, or `<rq_host>/<description>` for application rules. */
  key: string;
  /** Names of the fields that differ (all fields of the object for create and delete). */
  fields: string[];
  /** What this change does to the firewall's security, possibly nothing (attached by the planner). */
  impact: Impact[];
}

export interface CreateChange extends ChangeBase {
  action: 'create';
  before: null;
  after: Attributes;
}

export interface UpdateChange extends ChangeBase {
  action: 'update';
  id: string;
  /** The changed fields only, old and new values. */
  before: Attributes;
  after: Attributes;
  /** The whole object as it will be after the update (ignored fields keep their remote value). */
  target: Attributes;
  /** Fingerprint of the remote record the plan was computed from (saved plans detect staleness). */
  fingerprint: string;
}

export interface ReplaceChange extends ChangeBase {
  action: 'replace';
  id: string;
  before: Attributes;
  after: Attributes;
  /** The immutable fields whose change forces the replacement. */
  forcedBy: string[];
  fingerprint: string;
}

export interface DeleteChange extends ChangeBase {
  action: 'delete';
  id: string;
  before: Attributes;
  after: null;
  fingerprint: string;
  /**
   * Set when the object is deleted as a duplicate: another in-scope remote object with the same
   * natural key (this id) survives. Without it, the delete is a prune.
   */
  duplicateOf?: string;
}

export type Change = CreateChange | UpdateChange | ReplaceChange | DeleteChange;
export type Action = Change['action'];

/** Something that stops the plan for one object (the rest of the plan stands). */
export interface PlanProblem {
  kind: KindName;
  key: string;
  message: string;
}

/** Pure deletes above the configured share of a kind's existing objects. */
export interface SafetyWarning {
  kind: KindName;
  /** Pure deletes, duplicates included. */
  deletes: number;
  /** How many of `deletes` are duplicates of a surviving object. */
  duplicates: number;
  existing: number;
  maxDeletePercent: number;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  unchanged: number;
  unmanaged: number;
  /** Changes with at least one impact of each class. */
  impact: Record<ImpactClass, number>;
}

export interface Plan {
  summary: PlanSummary;
  changes: Change[];
  problems: PlanProblem[];
  warnings: SafetyWarning[];
}

/**
 * The plan is plain data: a list of typed changes plus counts, problems and warnings. Renderers turn
 * it into strings, the applier into API calls, `plan --out` into a file. Nothing here does I/O.
 */

/** A family's name in plans (`group`, `application_rule`, ...): the registry in src/kinds/ lists them. */
export type KindName = string;

/** A comparable record: the desired shape of one object, server fields dropped, sets sorted. */
export type Attributes = Record<string, unknown>;

/** The security consequences a reviewer must see, worst first (see src/core/impact.ts). */
export const IMPACT_CLASSES = ['weakens_protection', 'broadens_access', 'reduces_audit'] as const;
export type ImpactClass = (typeof IMPACT_CLASSES)[number];

/**
 * The plan's types are derived from its document's schema (src/core/plan-document.ts): every change
 * holds the whole object `before` (null for a create) and `after` (null for a delete), and `fields`.
 */
export type {
  Action,
  Change,
  ChangeOf,
  CreateChange,
  DeleteChange,
  Impact,
  Plan,
  PlanNote,
  PlanProblem,
  PlanSummary,
  PlanTargets,
  RenameSuggestion,
  ReplaceChange,
  SafetyWarning,
  UnmanagedObject,
} from './plan-document.js';

/**
 * The impact classes, apart from the plan model (model.ts) and the plan document (plan-document.ts)
 * that both use them: the document's schema is built from them without importing the model, and the
 * CLI's options list them without loading zod.
 */

/** The security consequences a reviewer must see, worst first (see src/core/impact.ts). */
export const IMPACT_CLASSES = ['weakens_protection', 'broadens_access', 'reduces_audit'] as const;
/** One of `IMPACT_CLASSES`. */
export type ImpactClass = (typeof IMPACT_CLASSES)[number];

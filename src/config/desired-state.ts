/**
 * The loaded configuration, built once every check passed: each family's objects from the documents
 * that passed the schema, and what the files set once merged across them.
 */
import type * as z from 'zod';
import type { ManageScope } from '../core/scope.js';
import type { DesiredObjects, Kind, Section } from '../kinds/index.js';
import type { Environment } from './env.js';
import { isSuperseded } from './overlay.js';
import type { LocatedTestCase } from './rule-test-schema.js';
import type { DesiredState, Family, settingsSchema } from './schema.js';
import type { CheckedDocument } from './validate-document.js';

/** The username of `settings.username` when neither the files nor WAF_USERNAME set one. */
const DEFAULT_USERNAME = 'wafctl';

/** What the files set once merged across them (each without a conflict). */
export interface Merged {
  manage: Record<Section, ManageScope>;
  settings: z.output<typeof settingsSchema>;
  /** The expectation sections (`admins:`) the files write. */
  expected: Record<string, Record<string, unknown>>;
  /** The rule tests across the files (rule-tests.ts). */
  tests: readonly LocatedTestCase[];
}

/**
 * A family's objects across the documents, in order, but those a later path of an environment
 * overrides or removes (overlay.ts). A singleton's section is one object: held as a list of one, like
 * every section, and only the last path's is loaded.
 */
function objectsOf(valid: readonly CheckedDocument[], kind: Kind): unknown[] {
  return valid.flatMap(({ document, output }) => {
    const objects = output[kind.section];
    if (kind.singleton) {
      return objects === undefined || isSuperseded(document, kind.section, -1) ? [] : [objects];
    }
    if (!Array.isArray(objects)) return [];
    return objects.filter((_, index) => !isSuperseded(document, kind.section, index));
  });
}

/** The desired state of the documents that passed every check; `env` gives WAF_USERNAME. */
export function desiredState(
  family: Family,
  valid: readonly CheckedDocument[],
  merged: Merged,
  env: Environment,
): DesiredState {
  // Each section's schema made these objects.
  const objects = family.bySection((kind) => objectsOf(valid, kind)) as DesiredObjects;
  const envUsername = env.WAF_USERNAME;
  return {
    ...objects,
    expected: merged.expected,
    manage: merged.manage,
    settings: {
      username: merged.settings.username ?? (envUsername ? envUsername : DEFAULT_USERNAME),
      safety: merged.settings.safety,
      firewall_actions: merged.settings.firewall_actions,
      extra_targets: merged.settings.extra_targets,
      extra_operators: merged.settings.extra_operators,
    },
    tests: merged.tests,
  };
}

/**
 * Refresh: read the live state of the kinds a configuration uses and plan against it. This is the
 * one place in src/plan that does I/O (through the kinds); `planChanges` itself stays pure.
 *
 * All kinds are fetched concurrently. A listing that does not add up (IncompleteListingError) aborts
 * the whole plan: deletes planned from a partial listing would destroy objects that exist.
 */
import type { ApiClient } from '../api/index.js';
import { formatLocation } from '../config/natural-keys.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { KINDS } from '../kinds/index.js';
import type { ImpactDirection } from './impact.js';
import type { Plan } from './model.js';
import { type KindPlanInput, planChanges } from './planner.js';

export interface RefreshOptions {
  /** GET-one calls in flight at once while hydrating. */
  concurrency: number;
  /** `drift` classifies the security impact of what changed outside wafctl (see impact.ts). */
  impactDirection?: ImpactDirection;
}

export async function refreshAndPlan(
  config: LoadedConfig,
  api: ApiClient,
  options: RefreshOptions,
): Promise<Plan> {
  const { state, sources } = config;
  // A kind that no file declares and whose manage block does not prune can have no change: skip it.
  const used = KINDS.filter((kind) => state[kind.section].length > 0 || state.manage[kind.section].prune);
  const remote = await Promise.all(used.map((kind) => kind.fetchAll(api, options)));
  const inputs: KindPlanInput[] = used.map((kind, i) => ({
    kind: kind.name,
    immutable: kind.immutable,
    impact: kind.impact,
    scope: state.manage[kind.section],
    remote: remote[i] ?? [],
    desired: state[kind.section].map((object) => {
      const attributes = kind.attributes(object);
      const key = kind.keyOf(attributes);
      const location = sources[kind.section].get(key);
      return {
        key,
        attributes,
        protect: object.protect,
        ignoreChanges: object.ignore_changes,
        ...(location ? { source: formatLocation(location) } : {}),
      };
    }),
  }));
  return planChanges(inputs, {
    safety: {
      maxDeletePercent: state.settings.safety.max_delete_percent,
      minExisting: state.settings.safety.min_existing,
    },
    firewallActions: state.settings.firewall_actions,
    ...(options.impactDirection === undefined ? {} : { impactDirection: options.impactDirection }),
  });
}

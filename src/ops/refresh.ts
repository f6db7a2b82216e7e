/**
 * Refresh: read the live state of the kinds a configuration uses and plan against it. This is the
 * one place in src/plan that does I/O (through the kinds); `planChanges` itself stays pure.
 *
 * All kinds are fetched concurrently. A listing that does not add up (IncompleteListingError) aborts
 * the whole plan: deletes planned from a partial listing would destroy objects that exist.
 */

import * as z from 'zod';
import type { ApiClient } from '../api/index.js';
import { type DeclaredSources, formatLocation } from '../config/natural-keys.js';
import { declaredObjects, scopeOf } from '../config/schema.js';
import { type LoadedConfig, sourcesOf } from '../config/validate-sources.js';
import type { ImpactDirection } from '../core/impact.js';
import type { Attributes, Plan } from '../core/model.js';
import { safetyCodec } from '../core/safety.js';
import { KINDS, type Kind } from '../kinds/index.js';
import { type DesiredObject, type KindPlanInput, type PlanOptions, planChanges } from '../plan/planner.js';

export interface RefreshOptions {
  /** GET-one calls in flight at once while hydrating. */
  concurrency: number;
  /** `drift` classifies the security impact of what changed outside wafctl (see impact.ts). */
  impactDirection?: ImpactDirection;
}

/** A declared object as the planner takes it; its `FILE:LINE:COL` is built only if a problem asks. */
class Declared implements DesiredObject {
  constructor(
    readonly key: string,
    readonly attributes: Attributes,
    readonly protect: boolean,
    readonly ignoreChanges: readonly string[],
    readonly sources: DeclaredSources,
  ) {}

  get source(): string | undefined {
    const location = this.sources.get(this.key);
    return location && formatLocation(location);
  }
}

/**
 * The planner's inputs for `kinds` (default: the kinds the configuration uses — a kind that no file
 * declares and whose manage block does not prune can have no change), with their live objects.
 */
export async function refreshInputs(
  config: LoadedConfig,
  api: ApiClient,
  options: RefreshOptions,
  kinds: readonly Kind[] = KINDS.filter(
    (kind) => declaredObjects(config.state, kind).length > 0 || scopeOf(config.state, kind).prune,
  ),
): Promise<KindPlanInput[]> {
  const { state } = config;
  const desired = kinds.map((kind) =>
    declaredObjects(state, kind).map((object) => {
      const attributes = kind.attributes(object);
      return new Declared(
        kind.keyOf(attributes),
        attributes,
        object.protect,
        object.ignore_changes,
        sourcesOf(config, kind),
      );
    }),
  );
  const remote = await Promise.all(
    kinds.map((kind, i) => {
      const byKey = new Map((desired[i] ?? []).map((object) => [object.key, object.attributes]));
      return kind.fetchAll(api, { ...options, desired: (key) => byKey.get(key) });
    }),
  );
  return kinds.map((kind, i) => ({
    kind: kind.name,
    immutable: kind.immutable,
    impact: kind.impact,
    scope: scopeOf(state, kind),
    remote: remote[i] ?? [],
    desired: desired[i] ?? [],
  }));
}

/** The planner's options from the configuration's settings. */
export function planOptions(config: LoadedConfig, impactDirection?: ImpactDirection): PlanOptions {
  const { settings } = config.state;
  return {
    safety: z.decode(safetyCodec, settings.safety),
    firewallActions: settings.firewall_actions,
    ...(impactDirection === undefined ? {} : { impactDirection }),
  };
}

export async function refreshAndPlan(
  config: LoadedConfig,
  api: ApiClient,
  options: RefreshOptions,
): Promise<Plan> {
  const inputs = await refreshInputs(config, api, options);
  return planChanges(inputs, planOptions(config, options.impactDirection));
}

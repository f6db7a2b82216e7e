/**
 * What plan, drift and apply share: load the configuration, refresh the live state, plan. Loaded
 * lazily by those commands (it pulls in zod, yaml and the client), so `--version` stays fast.
 */

import * as z from 'zod';
import { scopeOf } from '../config/schema.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { WafctlError } from '../core/errors.js';
import type { ImpactDirection } from '../core/impact.js';
import type { FailOnClass, Plan, PlanTrust } from '../core/model.js';
import { safetyCodec } from '../core/safety.js';
import {
  normalizeBaseUrl,
  type PlanPolicy,
  type SavedPlanContext,
  scopesByKind,
} from '../ops/apply/saved-plan.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import type { EnvironmentConnection } from '../ops/project.js';
import { refreshAndPlan } from '../ops/refresh.js';
import { selectionOf } from '../ops/selection/selection.js';
import type { Selection } from '../plan/targets.js';
import { apiUrl, EMBEDDED, withApiClient } from './connection.js';
import type { EnvironmentCommand, EnvironmentFlags } from './environments.js';
import type { Io } from './io.js';
import type { ConnectionFlags, SelectionFlags } from './options.js';
import { writeErr } from './output.js';

export interface PlannedConfig {
  config: LoadedConfig;
  /** With `--target`, `--exclude` or `--kind`, only the selected changes (src/plan/targets.ts). */
  plan: Plan;
  /** The selection that made the plan partial, if any. */
  selection?: Selection | undefined;
  /** The environment `--env` selected, if any: the plan was made against its firewall. */
  environment?: EnvironmentConnection | undefined;
}

/**
 * The configuration (one environment's, with `--env NAME`) planned against its firewall: its
 * selected changes, with its Trust section when there is one.
 */
export async function loadAndPlan(
  io: Io,
  paths: readonly string[],
  given: EnvironmentFlags & Partial<SelectionFlags> & { failOn?: readonly FailOnClass[] | undefined },
  /** `drift`: classify the security impact of what was changed outside wafctl (drift reports). */
  impactDirection: ImpactDirection = 'apply',
): Promise<PlannedConfig> {
  // Bad selections, configuration errors (and the choice of environment) are reported before any
  // network call.
  const selection = selectionOf(given);
  const { config, environment, trust } = await loadSelected(
    io,
    paths,
    given,
    impactDirection === 'drift' ? 'drift' : 'plan',
  );
  const plan = await withApiClient(
    io,
    given,
    (api) =>
      refreshAndPlan(config, api, {
        concurrency: HYDRATION_CONCURRENCY,
        impactDirection,
        warn: noteWriter(io, { environment }),
        selection,
        trust,
        ...(io.clock?.now ? { now: io.clock.now } : {}),
      }),
    { environment },
  );
  return { config, plan, environment, selection };
}

/** Refresh notes on stderr, naming the environment when there is one (several may run at once). */
export function noteWriter(
  io: Io,
  { environment }: { environment?: { name: string } | undefined },
): (line: string) => void {
  const where = environment === undefined ? '' : `${environment.name}: `;
  return (line) => writeErr(io, `Note: ${where}${line}.`);
}

/** The configuration a run loads, the environment it connects to, and what it trusts. */
export interface SelectedConfig {
  config: LoadedConfig;
  /** The environment `--env` selected, if any: its connection. */
  environment?: EnvironmentConnection | undefined;
  /** The Trust section, with a trusted ref (workspace.ts). */
  trust?: PlanTrust | undefined;
}

/**
 * The configuration to plan: with `--env NAME`, that environment's (its paths, overlays and vars),
 * and its connection; without, the PATHs', as before (refused when the root declares environments:
 * `selectEnvironment`). With a trusted ref, judged by its policy, with `trust` saying what the work
 * tree changes in it (workspace.ts).
 */
export async function loadSelected(
  io: Io,
  paths: readonly string[],
  given: EnvironmentFlags & { failOn?: readonly FailOnClass[] | undefined },
  command: EnvironmentCommand,
): Promise<SelectedConfig> {
  const { selectWorkspace } = await import('./environments.js');
  const { loadWorkspaceConfig, assertTrustGate } = await import('./workspace.js');
  const { selected, workspace } = await selectWorkspace(io, paths, given, command);
  assertTrustGate(workspace, given.failOn);
  const { config, trust } = await loadWorkspaceConfig(io, workspace, {
    paths,
    environment: selected?.environment,
  });
  return { config, environment: selected?.connection, trust };
}

/** The plan's problems make the command fail, after the plan itself has been shown. */
export function assertNoProblems(plan: Plan): void {
  const refusal = problemsRefusal(plan);
  if (refusal) throw refusal;
}

/** The error `assertNoProblems` throws, or undefined when the plan has no problems. */
export function problemsRefusal(plan: Plan): WafctlError | undefined {
  const n = plan.problems.length;
  if (n === 0) return undefined;
  return new WafctlError(
    'PLAN_REFUSED',
    `${n} ${n === 1 ? 'object' : 'objects'} could not be planned (see the errors above); nothing was planned for ${n === 1 ? 'it' : 'them'}.`,
    { userFault: true },
  );
}

/**
 * The base URL in use, as a saved plan records and compares it (`normalizeBaseUrl`), by the
 * connection's precedence (`apiUrl`); `embedded` for the embedded emulator. Undefined when none is
 * given or it is not a URL: opening the connection then fails with its own message.
 */
export function baseUrlInUse(
  flags: ConnectionFlags,
  env: Io['env'],
  environment?: EnvironmentConnection,
): string | undefined {
  const url = apiUrl(flags, env, environment);
  if (url === undefined) return undefined;
  return url === EMBEDDED ? EMBEDDED : normalizeBaseUrl(url);
}

/** What `plan --out` records besides the plan: where it was made, and the settings it was judged by. */
export function savedPlanContext(config: LoadedConfig, baseUrl: string): SavedPlanContext {
  return { baseUrl, username: config.state.settings.username, ...planPolicy(config) };
}

/** The policy a configuration judges plans by (its own, or the trusted one it was given). */
export function planPolicy(config: Pick<LoadedConfig, 'state'>): PlanPolicy {
  const { settings } = config.state;
  return {
    safety: z.decode(safetyCodec, settings.safety),
    firewallActions: settings.firewall_actions,
    scopes: scopesByKind((kind) => scopeOf(config.state, kind)),
  };
}

/**
 * What plan, drift and apply share: load the configuration, refresh the live state, plan. Loaded
 * lazily by those commands (it pulls in zod, yaml and the client), so `--version` stays fast.
 */

import * as z from 'zod';
import { loadDesiredState } from '../config/load.js';
import { scopeOf } from '../config/schema.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { WafctlError } from '../core/errors.js';
import type { ImpactDirection } from '../core/impact.js';
import type { Plan } from '../core/model.js';
import { safetyCodec } from '../core/safety.js';
import { normalizeBaseUrl, type SavedPlanContext, scopesByKind } from '../ops/apply/saved-plan.js';
import { refreshAndPlan } from '../ops/refresh.js';
import { EMBEDDED, withApiClient } from './connection.js';
import type { Io } from './io.js';
import type { ConnectionFlags } from './options.js';
import { HYDRATION_CONCURRENCY } from './options.js';
import { writeErr } from './output.js';

export interface PlannedConfig {
  config: LoadedConfig;
  plan: Plan;
}

export async function loadAndPlan(
  io: Io,
  paths: readonly string[],
  flags: ConnectionFlags,
  /** `drift`: classify the security impact of what was changed outside wafctl (drift reports). */
  impactDirection: ImpactDirection = 'apply',
): Promise<PlannedConfig> {
  // Configuration errors are reported before any network call.
  await refuseEnvironments(io, paths, impactDirection === 'drift' ? 'drift' : 'plan');
  const config = await loadDesiredState(paths, { cwd: io.cwd, env: io.env });
  const plan = await withApiClient(io, flags, (api) =>
    refreshAndPlan(config, api, {
      concurrency: HYDRATION_CONCURRENCY,
      impactDirection,
      warn: (line) => writeErr(io, `Note: ${line}.`),
    }),
  );
  return { config, plan };
}

/**
 * A configuration whose wafctl.yaml declares environments is one environment at a time, selected with
 * `--env`; the commands that talk to an API do not take `--env` yet, so they refuse, naming the
 * environments, rather than read every environment's paths as one configuration. `validate` checks
 * each environment.
 */
const DONE_PER_ENVIRONMENT = {
  plan: 'planned',
  apply: 'applied',
  drift: 'checked for drift',
  pull: 'pulled',
};

export async function refuseEnvironments(
  io: Io,
  paths: readonly string[],
  command: keyof typeof DONE_PER_ENVIRONMENT,
): Promise<void> {
  const { readProject, projectRoot } = await import('../config/project.js');
  const project = await readProject(await projectRoot(paths, io.cwd), io.cwd);
  if (project === undefined) return;
  const names = project.environments.map((environment) => environment.name).join(', ');
  throw new WafctlError(
    'USAGE',
    `${project.file} declares environments (${names}), which are ${DONE_PER_ENVIRONMENT[command]} one at a time with --env NAME, and ${command} does not take --env yet: nothing was read from the firewall. \`wafctl validate\` checks every environment.`,
    { userFault: true },
  );
}

/** The plan's problems make the command fail, after the plan itself has been shown. */
export function assertNoProblems(plan: Plan): void {
  const n = plan.problems.length;
  if (n === 0) return;
  throw new WafctlError(
    'PLAN_REFUSED',
    `${n} ${n === 1 ? 'object' : 'objects'} could not be planned (see the errors above); nothing was planned for ${n === 1 ? 'it' : 'them'}.`,
    { userFault: true },
  );
}

/**
 * The base URL in use, as a saved plan records and compares it (`normalizeBaseUrl`): `--url`, else
 * WAF_URL; `embedded` for the embedded emulator. Undefined when none is given or it is not a URL:
 * opening the connection then fails with its own message.
 */
export function baseUrlInUse(flags: ConnectionFlags, env: Io['env']): string | undefined {
  const url = flags.url ?? env.WAF_URL;
  if (url === undefined || url === '') return undefined;
  return url === EMBEDDED ? EMBEDDED : normalizeBaseUrl(url);
}

/** What `plan --out` records besides the plan: where it was made, and the settings it was judged by. */
export function savedPlanContext(config: LoadedConfig, baseUrl: string): SavedPlanContext {
  const { settings } = config.state;
  return {
    baseUrl,
    username: settings.username,
    safety: z.decode(safetyCodec, settings.safety),
    firewallActions: settings.firewall_actions,
    scopes: scopesByKind((kind) => scopeOf(config.state, kind)),
  };
}

/**
 * `plan` and `drift`: load the configuration (one environment's, with `environment`), read the live
 * state through the caller's connection or the environment's, plan (ops/refresh.ts, as `wafctl plan`
 * and `wafctl drift` do), and give the JSON document the CLI prints with `--format json`. A plan with
 * problems or impact classes is an answer: the caller reads `problems` and each change's `impact`
 * (the CLI's `--fail-on` and exit codes are its own).
 */
import type { LoadedConfig } from '../config/validate-sources.js';
import { driftToJson } from '../core/drift-document.js';
import type { ImpactDirection } from '../core/impact.js';
import type { Plan } from '../core/model.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import { type EnvironmentConnection, loadTarget } from '../ops/project.js';
import { refreshAndPlan } from '../ops/refresh.js';
import { selectionOf } from '../ops/selection/selection.js';
import { planToJson } from '../plan/render/json.js';
import { apiClientOf, loadOptionsOf } from './context.js';
import type { DriftDocument, PlanDocument } from './documents.js';
import { selectEnvironment } from './environment.js';
import type { PlanOptions } from './types.js';

/** What a call plans: the configuration, and the environment selected (where its firewall is), if any. */
export interface SelectedConfiguration {
  config: LoadedConfig;
  environment: EnvironmentConnection | undefined;
}

/**
 * The configuration at `paths`, or with `environment` that environment's (its paths, overlays and
 * vars); `verb` names what the call does, when a root with environments is given none.
 */
export async function loadConfiguration(options: PlanOptions, verb: string): Promise<SelectedConfiguration> {
  const paths = options.paths ?? ['.'];
  const selected = await selectEnvironment(options, paths, verb);
  const target = { paths, environment: selected?.environment };
  const config = await loadTarget(selected?.project, target, loadOptionsOf(options, selected?.project));
  return { config, environment: selected?.connection };
}

/** The plan of `options`, selected; `drift` classifies the impact of what changed outside wafctl. */
async function planOf(options: PlanOptions, impactDirection: ImpactDirection): Promise<Plan> {
  // Bad selections and configuration errors are reported before any request, as in the CLI.
  const selection = selectionOf(options);
  const verb = impactDirection === 'drift' ? 'check for drift' : 'plan';
  const { config, environment } = await loadConfiguration(options, verb);
  const api = await apiClientOf(options, environment);
  return refreshAndPlan(config, api, {
    concurrency: HYDRATION_CONCURRENCY,
    impactDirection,
    selection,
    ...(options.onNote && { warn: options.onNote }),
    ...(options.clock?.now ? { now: options.clock.now } : {}),
  });
}

/** What `wafctl plan --format json` prints. */
export async function planDocument(options: PlanOptions): Promise<PlanDocument> {
  return planToJson(await planOf(options, 'apply'));
}

/** What `wafctl drift --format json` prints. */
export async function driftDocument(options: PlanOptions): Promise<DriftDocument> {
  return driftToJson(await planOf(options, 'drift'));
}

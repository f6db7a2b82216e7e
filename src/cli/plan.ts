/** `wafctl plan`: fetch, diff and print; `--out` saves the JSON plan for `apply --plan`. */
import { Command, Option } from 'commander';
import { usageError } from '../core/errors.js';
import { worstImpact } from '../core/fleet-summary.js';
import type { FailOnClass } from '../core/model.js';
import { ENV_PLACEHOLDER } from './environments.js';
import type { Io } from './io.js';
import type { EnvironmentResult } from './multi-environment.js';
import {
  addConnectionOptions,
  addFleetOptions,
  addReviewOptions,
  addSelectionOptions,
  type ConnectionFlags,
  type FleetFlags,
  FORMATS,
  type SelectionFlags,
} from './options.js';
import { colorEnabled, writeOut, writeTextFile } from './output.js';
import type { PlannedConfig } from './planning.js';
import type { TrustFlags } from './workspace.js';

interface PlanFlags extends FleetFlags, ConnectionFlags, SelectionFlags, TrustFlags {
  env: string[];
  format: (typeof FORMATS)[number];
  out?: string;
  detailedExitcode?: boolean;
  failOn?: FailOnClass[];
  maxChars?: number;
  color?: boolean;
  /** `--concurrency N`: environments at once. */
  concurrency?: number;
}

/** `wafctl plan`'s options and help; `done` is given the exit code. */
export function planCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addFleetOptions(
      addSelectionOptions(
        addReviewOptions(
          new Command('plan')
            .description('fetch the live state, diff it against the configuration and print the plan')
            .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
            .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text'))
            .option(
              '--out <FILE>',
              `also save the plan (JSON) for \`apply --plan\`; with several environments, ${ENV_PLACEHOLDER} in FILE is each one's name`,
            )
            .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are'),
          { behaviour: true },
        ),
      ),
    ),
  ).action(async (paths: string[], _flags: PlanFlags, command: Command) =>
    done(await plan(paths, command.optsWithGlobals<PlanFlags>(), io)),
  );
}

async function plan(paths: string[], flags: PlanFlags, io: Io): Promise<number> {
  const { severalEnvironments } = await import('./environments.js');
  const several = await severalEnvironments(io, paths, flags, 'plan');
  if (several !== undefined) {
    if (flags.out !== undefined && !flags.out.includes(ENV_PLACEHOLDER)) {
      throw usageError(
        `--out saves one environment's plan, and ${several.length} are selected (${several.join(', ')}): put ${ENV_PLACEHOLDER} in the file name (e.g. --out 'plans/${ENV_PLACEHOLDER}.json') to save one plan per environment`,
      );
    }
    const { runSeveral } = await import('./multi-environment.js');
    const { MARKDOWN_MARKER } = await import('../plan/render/markdown.js');
    return runSeveral(
      io,
      several,
      flags,
      {
        command: 'plan',
        format: flags.format,
        maxChars: flags.maxChars,
        marker: MARKDOWN_MARKER,
        concurrency: flags.concurrency,
      },
      async (one) => {
        const { result, planned } = await planOne(paths, one, io);
        await savePlan(io, one, planned);
        return result;
      },
    );
  }
  const { environmentHeading } = await import('../plan/render/environments.js');
  const { result, planned } = await planOne(paths, flags, io);
  const heading = flags.format === 'text' ? environmentHeading(planned.environment?.name) : undefined;
  if (heading !== undefined) writeOut(io, heading);
  writeOut(io, result.output);
  await savePlan(io, flags, planned);
  if (result.refusal) throw result.refusal;
  return result.code;
}

/** `--out`: the plan, saved for `apply --plan`; `{env}` in the name is the environment's. */
async function savePlan(io: Io, flags: PlanFlags, planned: PlannedConfig): Promise<void> {
  const { out } = flags;
  if (out === undefined) return;
  const { baseUrlInUse, savedPlanContext } = await import('./planning.js');
  const { renderSavedPlan } = await import('../ops/apply/saved-plan.js');
  const { environment } = planned;
  const file = environment === undefined ? out : out.replaceAll(ENV_PLACEHOLDER, environment.name);
  // Always known here (the plan was fetched through it); were it not, `apply --plan` refuses ''.
  const baseUrl = baseUrlInUse(flags, io.env, environment) ?? '';
  await writeTextFile(io, file, renderSavedPlan(planned.plan, savedPlanContext(planned.config, baseUrl)));
}

/** One environment's (or the PATHs') plan, rendered; the refusal, if any, is the caller's to report. */
async function planOne(
  paths: string[],
  flags: PlanFlags,
  io: Io,
): Promise<{ result: EnvironmentResult; planned: PlannedConfig }> {
  const { loadAndPlan, problemsRefusal } = await import('./planning.js');
  const { renderTextPlan } = await import('../plan/render/text.js');
  const { renderMarkdownPlan } = await import('../plan/render/markdown.js');
  const { renderJsonPlan } = await import('../plan/render/json.js');
  const { failOnRefusal } = await import('../plan/policy.js');

  const planned = await loadAndPlan(io, paths, flags);
  const { plan } = planned;
  const environment = planned.environment?.name;
  const output = {
    text: () => renderTextPlan(plan, { color: colorEnabled(io, flags.color) }),
    markdown: () =>
      renderMarkdownPlan(plan, {
        // Two environments' comments must not look alike: the title names it, not only the marker.
        ...(environment === undefined ? {} : { title: `wafctl plan: ${environment}` }),
        ...(flags.maxChars === undefined ? {} : { maxChars: flags.maxChars }),
      }),
    json: () => renderJsonPlan(plan),
  }[flags.format]();
  // The policy gate first (exit 3), as apply does; the plan's problems are in the output either way.
  const refusal =
    failOnRefusal(plan, flags.failOn ?? [], 'The plan was printed; nothing was applied.') ??
    problemsRefusal(plan);
  const code = flags.detailedExitcode && plan.changes.length > 0 ? 2 : 0;
  const summary = { count: plan.changes.length, impact: worstImpact(plan.summary.impact) };
  return { result: { output, code, refusal, ...summary }, planned };
}

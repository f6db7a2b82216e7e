/** `wafctl plan`: fetch, diff and print; `--out` saves the JSON plan for `apply --plan`. */
import { Command, Option } from 'commander';
import type { ImpactClass } from '../core/model.js';
import type { Io } from './io.js';
import {
  addConnectionOptions,
  addEnvironmentOption,
  addReviewOptions,
  type ConnectionFlags,
  FORMATS,
} from './options.js';
import { colorEnabled, writeOut, writeTextFile } from './output.js';

interface PlanFlags extends ConnectionFlags {
  env: string[];
  format: (typeof FORMATS)[number];
  out?: string;
  detailedExitcode?: boolean;
  failOn?: ImpactClass[];
  maxChars?: number;
  color?: boolean;
}

export function planCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addEnvironmentOption(
      addReviewOptions(
        new Command('plan')
          .description('fetch the live state, diff it against the configuration and print the plan')
          .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
          .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text'))
          .option('--out <FILE>', 'also save the plan (JSON) for `apply --plan`')
          .option('--detailed-exitcode', 'exit 0 when there are no changes, 2 when there are'),
      ),
    ),
  ).action(async (paths: string[], _flags: PlanFlags, command: Command) =>
    done(await plan(paths, command.optsWithGlobals<PlanFlags>(), io)),
  );
}

async function plan(paths: string[], flags: PlanFlags, io: Io): Promise<number> {
  const { loadAndPlan, assertNoProblems, baseUrlInUse, savedPlanContext, environmentHeading } = await import(
    './planning.js'
  );
  const { renderTextPlan } = await import('../plan/render/text.js');
  const { renderMarkdownPlan } = await import('../plan/render/markdown.js');
  const { renderJsonPlan } = await import('../plan/render/json.js');
  const { renderSavedPlan } = await import('../ops/apply/saved-plan.js');
  const { failOnRefusal } = await import('../plan/policy.js');

  const { plan, config, flags: connection } = await loadAndPlan(io, paths, flags);
  const rendered = {
    text: () => renderTextPlan(plan, { color: colorEnabled(io, flags.color) }),
    markdown: () =>
      renderMarkdownPlan(plan, flags.maxChars === undefined ? {} : { maxChars: flags.maxChars }),
    json: () => renderJsonPlan(plan),
  }[flags.format]();
  const heading = flags.format === 'text' ? environmentHeading(connection) : undefined;
  if (heading !== undefined) writeOut(io, heading);
  writeOut(io, rendered);
  if (flags.out !== undefined) {
    // Always known here (the plan was fetched through it); were it not, `apply --plan` refuses ''.
    const baseUrl = baseUrlInUse(connection, io.env) ?? '';
    await writeTextFile(io, flags.out, renderSavedPlan(plan, savedPlanContext(config, baseUrl)));
  }
  // The policy gate first (exit 3), as apply does; the plan's problems are in the output either way.
  const refusal = failOnRefusal(plan, flags.failOn ?? [], 'The plan was printed; nothing was applied.');
  if (refusal) throw refusal;
  assertNoProblems(plan);
  return flags.detailedExitcode && plan.changes.length > 0 ? 2 : 0;
}

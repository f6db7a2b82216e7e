/**
 * `wafctl drift`: the plan's comparison, reported as drift for nightly jobs. Exit 0 none, 2 drift, 1
 * error, 3 a change has a `--fail-on` class.
 */
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
import { writeOut, writeTextFile } from './output.js';

interface DriftFlags extends ConnectionFlags {
  env: string[];
  format: (typeof FORMATS)[number];
  report?: string;
  failOn?: ImpactClass[];
  maxChars?: number;
}

export function driftCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addEnvironmentOption(
      addReviewOptions(
        new Command('drift')
          .description('report objects whose live state differs from the configuration (exit 2 on drift)')
          .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
          .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text'))
          .option('--report <FILE>', 'also write the report, in the same format, to FILE'),
      ),
    ),
  ).action(async (paths: string[], _flags: DriftFlags, command: Command) =>
    done(await drift(paths, command.optsWithGlobals<DriftFlags>(), io)),
  );
}

async function drift(paths: string[], flags: DriftFlags, io: Io): Promise<number> {
  const { loadAndPlan, assertNoProblems, environmentHeading } = await import('./planning.js');
  const { renderTextDrift, renderMarkdownDrift, renderJsonDrift } = await import('../plan/render/drift.js');
  const { failOnRefusal } = await import('../plan/policy.js');

  const { plan, flags: connection } = await loadAndPlan(io, paths, flags, 'drift');
  const report = {
    text: () => renderTextDrift(plan),
    markdown: () =>
      renderMarkdownDrift(plan, flags.maxChars === undefined ? {} : { maxChars: flags.maxChars }),
    json: () => renderJsonDrift(plan),
  }[flags.format]();
  // The heading is stdout's, not the --report file's: the report stays what it is without --env.
  const heading = flags.format === 'text' ? environmentHeading(connection) : undefined;
  if (heading !== undefined) writeOut(io, heading);
  writeOut(io, report);
  if (flags.report !== undefined) await writeTextFile(io, flags.report, report);
  const refusal = failOnRefusal(plan, flags.failOn ?? [], 'The report was printed.');
  if (refusal) throw refusal;
  assertNoProblems(plan);
  return plan.changes.length > 0 ? 2 : 0;
}

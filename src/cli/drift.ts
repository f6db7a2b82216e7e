/**
 * `wafctl drift`: the plan's comparison, reported as drift for nightly jobs. Exit 0 none, 2 drift, 1
 * error, 3 a change has a `--fail-on` class.
 */
import { Command, Option } from 'commander';
import { worstImpact } from '../core/fleet-summary.js';
import { driftCount, type FailOnClass } from '../core/model.js';
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
import { writeOut, writeTextFile } from './output.js';
import type { TrustFlags } from './workspace.js';

interface DriftFlags extends FleetFlags, ConnectionFlags, SelectionFlags, TrustFlags {
  env: string[];
  format: (typeof FORMATS)[number];
  report?: string;
  failOn?: FailOnClass[];
  maxChars?: number;
  /** `--concurrency N`: environments at once. */
  concurrency?: number;
}

/** `wafctl drift`'s options and help; `done` is given the exit code. */
export function driftCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addFleetOptions(
      addSelectionOptions(
        addReviewOptions(
          new Command('drift')
            .description('report objects whose live state differs from the configuration (exit 2 on drift)')
            .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
            .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text'))
            .option(
              '--report <FILE>',
              'also write the report, in the same format, to FILE (with several environments: the combined report)',
            ),
        ),
      ),
    ),
  ).action(async (paths: string[], _flags: DriftFlags, command: Command) =>
    done(await drift(paths, command.optsWithGlobals<DriftFlags>(), io)),
  );
}

async function drift(paths: string[], flags: DriftFlags, io: Io): Promise<number> {
  const { assertNoBehaviourGate } = await import('./workspace.js');
  assertNoBehaviourGate('drift', flags.failOn);
  const { severalEnvironments } = await import('./environments.js');
  const several = await severalEnvironments(io, paths, flags, 'drift');
  if (several !== undefined) {
    const { runSeveral } = await import('./multi-environment.js');
    const { DRIFT_MARKDOWN_MARKER } = await import('../plan/render/markdown.js');
    return runSeveral(
      io,
      several,
      flags,
      {
        command: 'drift',
        format: flags.format,
        maxChars: flags.maxChars,
        marker: DRIFT_MARKDOWN_MARKER,
        report: flags.report,
        concurrency: flags.concurrency,
      },
      async (one) => (await driftOne(paths, one, io)).result,
    );
  }
  const { environmentHeading } = await import('../plan/render/environments.js');
  const { result, environment } = await driftOne(paths, flags, io);
  // The heading is stdout's, not the --report file's: the report stays what it is without --env.
  const heading = flags.format === 'text' ? environmentHeading(environment) : undefined;
  if (heading !== undefined) writeOut(io, heading);
  writeOut(io, result.output);
  if (flags.report !== undefined) await writeTextFile(io, flags.report, result.output);
  if (result.refusal) throw result.refusal;
  return result.code;
}

/** One environment's (or the PATHs') drift report; the refusal, if any, is the caller's to report. */
async function driftOne(
  paths: string[],
  flags: DriftFlags,
  io: Io,
): Promise<{ result: EnvironmentResult; environment: string | undefined }> {
  const { loadAndPlan, problemsRefusal } = await import('./planning.js');
  const { renderTextDrift, renderMarkdownDrift, renderJsonDrift } = await import('../plan/render/drift.js');
  const { failOnRefusal } = await import('../plan/policy.js');

  const planned = await loadAndPlan(io, paths, flags, 'drift');
  const { plan } = planned;
  const environment = planned.environment?.name;
  const output = {
    text: () => renderTextDrift(plan, { planCommand: planCommandFor(paths, environment) }),
    markdown: () =>
      renderMarkdownDrift(plan, {
        ...(environment === undefined ? {} : { environment }),
        ...(flags.maxChars === undefined ? {} : { maxChars: flags.maxChars }),
      }),
    json: () => renderJsonDrift(plan),
  }[flags.format]();
  // What was done by hand includes read-only objects: an administrator added to `admins`.
  const refusal =
    failOnRefusal(plan, flags.failOn ?? [], 'The report was printed.', { readOnly: true }) ??
    problemsRefusal(plan);
  const count = driftCount(plan);
  const impact = worstImpact(plan.summary.impact);
  return { result: { output, code: count > 0 ? 2 : 0, refusal, count, impact }, environment };
}

/** The plan command that shows this drift in full: the same PATHs and environment. */
function planCommandFor(paths: readonly string[], environment: string | undefined): string {
  const quoted = (word: string) =>
    /^[\w./:@=+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
  const given = paths.length === 1 && paths[0] === '.' ? [] : paths;
  return [
    'wafctl plan',
    ...given.map(quoted),
    ...(environment === undefined ? [] : ['--env', quoted(environment)]),
  ].join(' ');
}

/**
 * `wafctl pull [PATH...] [--adopt] [--kind KIND...] [--dry-run] [--env NAME [--write-shared]]
 * [--format text|markdown|json]`: write live changes back into the files where the objects are
 * declared, comments and layout kept. Exit 0 written or nothing to do, 1 an error or a conflict (the
 * rest is still written, unless --dry-run). Live objects in a pruned scope that no file declares and
 * that were not adopted are named on stderr: the next apply deletes them.
 *
 * `--env NAME` pulls one environment of wafctl.yaml (its paths, vars and firewall): each changed value
 * goes into the path that set it, unless other environments read that path too: then into the
 * environment's own path, so that a hand change on one firewall does not change the others' next
 * plans (`--write-shared` writes the shared path instead; ops/pull/decide.ts). One environment per
 * run: two environments' firewalls may disagree on a value their shared base sets, and pulling both
 * would write it twice, the second over the first.
 *
 * What pull did is said on stdout, where a CI job turns it into a pull request: the summary (text),
 * a pull-request body (markdown) or the report document (json), each naming the changed files other
 * environments read and the changes kept in the environment's own path (ops/pull/summary.ts). The
 * `--dry-run` diff is text's only: the pull request shows the diff. Errors and warnings stay on stderr.
 */
import { Command, Option } from 'commander';
import { usageError, WafctlError } from '../core/errors.js';
import { plural, printable } from '../core/text.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import type { PullResult } from '../ops/pull/pull.js';
import type { Io } from './io.js';
import {
  addConnectionOptions,
  addEnvironmentOption,
  type ConnectionFlags,
  FAMILIES,
  FORMATS,
} from './options.js';
import { writeErr, writeOut, writeTextFile } from './output.js';
import type { TrustFlags } from './workspace.js';

/** How many of the objects the next apply would delete the warning names. */
const SHOWN_UNADOPTED = 10;

/**
 * The warning that the next apply deletes live objects no file declares (in a pruned scope), which
 * this pull did not adopt; undefined when there are none. `names` are their addresses, one per object.
 */
export function unadoptedWarning(names: readonly string[], adopt: boolean): string | undefined {
  const n = names.length;
  if (n === 0) return undefined;
  const unique = [...new Set(names)];
  const shown = unique.slice(0, SHOWN_UNADOPTED).join(', ');
  const more = unique.length > SHOWN_UNADOPTED ? ` and ${unique.length - SHOWN_UNADOPTED} more` : '';
  const one = n === 1;
  const why = adopt
    ? `could not be adopted (see above)`
    : `${one ? 'was' : 'were'} not adopted (use --adopt)`;
  return `Warning: ${plural(n, 'live object')} ${one ? 'is' : 'are'} not in the files and ${why}; apply would delete ${one ? 'it' : 'them'}: ${shown}${more}.`;
}

interface PullFlags extends ConnectionFlags, TrustFlags {
  adopt?: boolean;
  kind?: string[];
  dryRun?: boolean;
  env?: string[];
  writeShared?: boolean;
  format: (typeof FORMATS)[number];
}

/** `wafctl pull`'s options and help; `done` is given the exit code. */
export function pullCommand(io: Io, done: (code: number) => void): Command {
  return addConnectionOptions(
    addEnvironmentOption(
      new Command('pull')
        .description('write live changes back into the YAML files that declare the objects (comments kept)')
        .argument('[PATH...]', 'files or directories of YAML configuration', ['.'])
        .option('--adopt', 'also append in-scope live objects that no file declares')
        .option('--kind <KIND...>', `only these kinds: ${FAMILIES}`)
        .option('--dry-run', 'print a unified diff of every file that would change, and write nothing')
        .option(
          '--write-shared',
          "with --env: write a hand change into the shared path that declares it (every environment reading it), not into the environment's own path",
        )
        .addOption(
          new Option('--format <FORMAT>', 'output format (markdown: a pull-request body)')
            .choices(FORMATS)
            .default('text'),
        ),
      "pull this environment of wafctl.yaml: its paths, vars and firewall; each value goes into the path that set it, or the environment's own path when other environments read that one",
    ),
  ).action(async (paths: string[], _flags: PullFlags, command: Command) =>
    done(await pull(paths, command.optsWithGlobals<PullFlags>(), io)),
  );
}

async function pull(paths: string[], flags: PullFlags, io: Io): Promise<number> {
  const { resolveKinds } = await import('../ops/export/kind-names.js');
  const { preparePull } = await import('../ops/pull/pull.js');
  const { withApiClient } = await import('./connection.js');

  // A bad --kind, the choice of environment and configuration problems are reported before any
  // network call.
  const kinds = resolveKinds(flags.kind);
  const { config, connection, env, environment } = await loadForPull(io, paths, flags);
  if (flags.writeShared && environment === undefined) {
    throw usageError(
      '--write-shared takes --env NAME: without environments, every file is written where it declares the value',
    );
  }
  const result = await withApiClient(
    io,
    flags,
    (api) =>
      preparePull(config, api, {
        paths,
        kinds,
        adopt: flags.adopt === true,
        concurrency: HYDRATION_CONCURRENCY,
        warn: (line) => writeErr(io, `Note: ${line}.`),
        env,
        cwd: io.cwd,
        writeShared: flags.writeShared === true,
        ...(environment === undefined ? {} : { environment }),
      }),
    { environment: connection },
  );
  await warnings(io, result, flags.adopt === true);
  await showOrWrite(io, result, flags);
  await report(io, result, flags, environment?.name);
  const n = result.decision.conflicts.length;
  if (n > 0) {
    const written = result.files.length > 0 && !flags.dryRun ? '; the rest was written' : '';
    const message = `${plural(n, 'object')} could not be pulled (see above)${written}.`;
    throw new WafctlError('PLAN_REFUSED', message, { userFault: true });
  }
  return 0;
}

/** On stderr: objects not adopted, what the next apply would delete, and each conflict. */
async function warnings(io: Io, { leftOut, unadopted, decision }: PullResult, adopt: boolean) {
  const { address } = await import('../plan/render/summary.js');
  for (const { kind, id, key, reason } of leftOut) {
    writeErr(io, `Warning: ${kind} ${printable(id)} (${printable(key)}) not adopted: ${printable(reason)}.`);
  }
  const deleted = unadoptedWarning(unadopted.map(address), adopt);
  if (deleted !== undefined) writeErr(io, deleted);
  for (const c of decision.conflicts) {
    writeErr(
      io,
      `Error: ${printable(c.file)}:${c.line}:${c.col}: ${address(c)}: ${printable(c.reason)}; nothing was pulled for it.`,
    );
  }
}

/** With --dry-run, the diff of each file (text only: a pull request shows its own); else the files written. */
async function showOrWrite(io: Io, result: PullResult, flags: PullFlags): Promise<void> {
  if (!flags.dryRun) {
    const { assertUnchanged } = await import('../ops/pull/pull.js');
    await assertUnchanged(result.files, io.cwd);
    for (const file of result.files) await writeTextFile(io, file.file, file.after, { atomic: true });
    return;
  }
  if (flags.format !== 'text') return;
  const { createTwoFilesPatch } = await import('diff');
  for (const file of result.files) {
    const from = file.created ? '/dev/null' : `a/${file.file}`;
    writeOut(
      io,
      createTwoFilesPatch(from, `b/${file.file}`, file.before, file.after, '', '', { context: 3 }),
    );
  }
}

/** What pull did, on stdout, in the chosen format. */
async function report(io: Io, result: PullResult, flags: PullFlags, environment: string | undefined) {
  const meta = { environment, dryRun: flags.dryRun === true };
  if (flags.format === 'json') {
    const { pullReportDocument } = await import('../ops/pull/report-document.js');
    writeOut(io, JSON.stringify(pullReportDocument(result, meta), null, 2));
    return;
  }
  const { pullMarkdown, pullSummaryLines } = await import('../ops/pull/summary.js');
  if (flags.format === 'markdown') writeOut(io, pullMarkdown(result, meta));
  else for (const line of pullSummaryLines(result, meta)) writeOut(io, line);
}

/**
 * The configuration to pull and where to connect: without `--env`, the PATHs' (refused on a root
 * that declares environments, asking for --env NAME: `selectEnvironment`); with `--env NAME`, that
 * environment's paths and vars, and its connection. Several environments are refused here, saying
 * why (see the module comment).
 */
async function loadForPull(io: Io, paths: readonly string[], flags: PullFlags) {
  const { withEnvironmentVars } = await import('../config/env.js');
  const { ALL_ENVIRONMENTS } = await import('../config/project.js');
  const { selectWorkspace } = await import('./environments.js');
  const { openWorkspace, loadWorkspaceConfig } = await import('./workspace.js');
  const { pullEnvironment } = await import('../ops/pull/environment.js');
  const given = [...new Set(flags.env ?? [])];
  if (given.length > 1 || given.includes(ALL_ENVIRONMENTS)) {
    const { project } = await openWorkspace(io, paths, flags);
    if (project !== undefined) {
      const names = given.includes(ALL_ENVIRONMENTS)
        ? project.environments.map((environment) => environment.name)
        : given;
      throw usageError(
        `pull takes one environment per run, not ${names.join(', ')}: environments that share a path could each write a different value into the same file; pull them one at a time (--env NAME), reviewing each. Nothing was read from the firewall.`,
      );
    }
  }
  const { selected, workspace } = await selectWorkspace(io, paths, flags, 'pull');
  // With a trusted ref, its allow-list and `manage` (what --adopt may take) apply (workspace.ts).
  const { config } = await loadWorkspaceConfig(io, workspace, { paths, environment: selected?.environment });
  if (selected === undefined) {
    return { config, connection: undefined, env: io.env, environment: undefined };
  }
  const { project, environment: spec } = selected;
  const environment = await pullEnvironment(project, spec, io.cwd);
  return {
    config,
    connection: selected.connection,
    env: withEnvironmentVars(io.env, { name: spec.name, vars: spec.vars }),
    environment,
  };
}

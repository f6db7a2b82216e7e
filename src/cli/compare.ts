/**
 * `wafctl compare A B [PATH] [--desired] [--format text|markdown|json] [--fail-on CLASS,...]`: what
 * differs between two environments of the root's wafctl.yaml (issue 31). Each difference is the change
 * from A to B, classified as if it were a plan applied to A: A's objects are the planner's remote side
 * and B's its desired side, per family, by natural key, prune on (an object only in A is a delete).
 *
 * Without `--desired` the two firewalls are compared: both are read at once, each through its own
 * connection and secrets exactly as `--env NAME` connects (its `url`/`url_env`, `token_env` or
 * sign-in), as `export` reads them (members by username, read-only built-ins left out, ids and
 * timestamps not compared), in every family whatever either environment's `manage` says: it is the
 * report of how the environments drifted apart. A family either server lacks or hides (its listing
 * answers 404 or 403) is skipped with a note naming the environment, and not compared. A's
 * configuration is loaded first, for its `settings.firewall_actions` (what each action means to the
 * security impact). An environment that fails is reported as `Error: NAME: ...` and nothing is
 * compared. With `--desired` the two configurations are compared instead, offline. Exit 0 no
 * differences, 2 differences, 3 a `--fail-on` class matched.
 */
import { Command, Option } from 'commander';
import { DEFAULT_TIMEOUT_SECONDS } from '../api/timeouts.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import type { ComparedEnvironments } from '../core/compare-document.js';
import { usageError } from '../core/errors.js';
import { driftCount, type FailOnClass, type Plan } from '../core/model.js';
import { printable } from '../core/text.js';
import type { ComparedSide, LiveSide } from '../ops/compare/compare.js';
import { HYDRATION_CONCURRENCY } from '../ops/defaults.js';
import type { Io } from './io.js';
import { addReviewOptions, addTrustOption, FORMATS, parseTimeout } from './options.js';
import { writeErr, writeOut } from './output.js';
import type { TrustFlags, Workspace } from './workspace.js';

interface CompareFlags extends TrustFlags {
  desired?: boolean;
  format: (typeof FORMATS)[number];
  failOn?: FailOnClass[];
  maxChars?: number;
  timeout?: number;
}

/** `wafctl compare`'s options and help; `done` is given the exit code. */
export function compareCommand(io: Io, done: (code: number) => void): Command {
  return addTrustOption(
    addReviewOptions(
      new Command('compare')
        .description(
          'compare two environments of wafctl.yaml, their live firewalls (default) or their configurations (--desired): each difference as the change from A to B, with its security impact (exit 0 none, 2 differences, 3 a --fail-on class)',
        )
        .argument('<A>', 'the environment compared from')
        .argument('<B>', 'the environment compared to')
        .argument('[PATH]', 'the configuration root (default: the current directory)')
        .option(
          '--desired',
          "compare the environments' configurations (offline, no URL or token read), not their firewalls",
        )
        .option(
          '--timeout <SECONDS>',
          `without --desired: give up on an API request not answered in full within SECONDS (default: ${DEFAULT_TIMEOUT_SECONDS}, env: WAF_TIMEOUT)`,
          parseTimeout('--timeout'),
        )
        .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text')),
    ),
  ).action(async (from: string, to: string, path: string | undefined, flags: CompareFlags) =>
    done(await compare(from, to, path === undefined ? [] : [path], flags, io)),
  );
}

async function compare(
  from: string,
  to: string,
  paths: string[],
  flags: CompareFlags,
  io: Io,
): Promise<number> {
  const { PROJECT_FILE } = await import('../config/project.js');
  const { planOptions } = await import('../ops/refresh.js');
  const { comparePlan, desiredSide } = await import('../ops/compare/compare.js');
  const { openWorkspace, loadWorkspaceConfig, assertNoBehaviourGate } = await import('./workspace.js');
  assertNoBehaviourGate('compare', flags.failOn);
  const workspace = await openWorkspace(io, paths, flags);
  const { project, root } = workspace;
  if (project === undefined) {
    throw usageError(
      `compare needs environments declared in ${PROJECT_FILE} at the configuration root (${root}), which declares none`,
    );
  }
  const { assertDeclared, environmentNamed } = await import('../ops/project.js');
  assertDeclared(project, [from, to]);
  // With a trusted ref, each side is judged by its environment's trusted policy (workspace.ts).
  const load = async (name: string): Promise<LoadedConfig> =>
    (await loadWorkspaceConfig(io, workspace, { paths, environment: environmentNamed(project, name) }))
      .config;
  const a = await load(from);
  const sides = flags.desired
    ? { before: desiredSide(a), after: desiredSide(await load(to)) }
    : await readLiveSides(workspace, [from, to], flags, io);
  if ('code' in sides) return sides.code;
  const plan = comparePlan(sides.before, sides.after, planOptions(a));
  writeOut(io, await render(plan, { from, to, live: !flags.desired }, flags));

  const { failOnRefusal } = await import('../plan/policy.js');
  // How the environments differ includes their read-only objects (an administrator only one has).
  const refusal = failOnRefusal(plan, flags.failOn ?? [], 'The comparison was printed.', { readOnly: true });
  if (refusal) throw refusal;
  const { assertNoProblems } = await import('./planning.js');
  assertNoProblems(plan);
  return driftCount(plan) > 0 ? 2 : 0;
}

/** The comparison in the format asked for. */
async function render(plan: Plan, compared: ComparedEnvironments, flags: CompareFlags): Promise<string> {
  const { renderTextCompare, renderMarkdownCompare, renderJsonCompare } = await import(
    '../plan/render/compare.js'
  );
  return {
    text: () => renderTextCompare(plan, compared),
    markdown: () => renderMarkdownCompare(plan, compared, flags.maxChars),
    json: () => renderJsonCompare(plan, compared),
  }[flags.format]();
}

/**
 * Both environments' live objects, read concurrently, each with its own connection (its URL checked
 * before any request). When either fails, each failure is reported as `Error: NAME: ...` and the exit
 * code returned: nothing is compared. Objects export would leave out are left out of the comparison
 * too, each with a warning.
 */
async function readLiveSides(
  workspace: Workspace,
  names: readonly [string, string],
  flags: CompareFlags,
  io: Io,
): Promise<{ before: ComparedSide; after: ComparedSide } | { code: number }> {
  const { environmentConnection } = await import('./environments.js');
  const { withApiClient } = await import('./connection.js');
  const { readLiveSide } = await import('../ops/compare/compare.js');
  const { noteWriter } = await import('./planning.js');
  const { reportEnvironmentError } = await import('./multi-environment.js');
  const { worse } = await import('../ops/environments.js');
  // Both URLs (and their variables) are checked before either firewall is read.
  const connections = await Promise.all(names.map((name) => environmentConnection(workspace, name, io)));
  const timeout = flags.timeout === undefined ? {} : { timeout: flags.timeout };
  const results = await Promise.allSettled(
    connections.map((environment) =>
      withApiClient(
        io,
        timeout,
        (api) =>
          readLiveSide(api, {
            concurrency: HYDRATION_CONCURRENCY,
            warn: noteWriter(io, { environment }),
          }),
        { environment },
      ),
    ),
  );
  let code = 0;
  const read: LiveSide[] = [];
  results.forEach((result, i) => {
    if (result.status === 'fulfilled') read.push(result.value);
    else code = worse(code, reportEnvironmentError(io, result.reason, names[i] ?? ''));
  });
  if (code !== 0) return { code };
  const sides = read.map(({ side, leftOut }, i) => {
    for (const { kind, id, key, reason } of leftOut) {
      writeErr(
        io,
        `Warning: ${names[i]}: ${kind} ${printable(id)} (${printable(key)}) left out of the comparison: ${printable(reason)}.`,
      );
    }
    return side;
  });
  return { before: sides[0] as ComparedSide, after: sides[1] as ComparedSide };
}

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
import type { DeclaredObject } from '../config/schema.js';
import type { LoadedConfig } from '../config/validate-sources.js';
import { usageError } from '../core/errors.js';
import {
  type Attributes,
  type Change,
  driftCount,
  type FailOnClass,
  type Plan,
  readOnlyAsChange,
} from '../core/model.js';
import { printable } from '../core/text.js';
import type { Kind } from '../kinds/index.js';
import type { PlanOptions } from '../plan/planner.js';
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

/** The compare comment's sticky marker: never overwrites a plan or drift comment. */
export const COMPARE_MARKDOWN_MARKER = '<!-- wafctl-compare -->';

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

/**
 * A side of a comparison: the objects of each family, as the configuration would declare them;
 * undefined for a family a live side skipped (the server lacks or hides it: kinds/read-families.ts).
 */
type Side = (kind: Kind) => readonly DeclaredObject[] | undefined;

/** A side's expectation of a family's read-only object (`admins:`), in file form; undefined: none. */
type Expected = (kind: Kind) => Record<string, unknown> | undefined;

async function compare(
  from: string,
  to: string,
  paths: string[],
  flags: CompareFlags,
  io: Io,
): Promise<number> {
  const { PROJECT_FILE } = await import('../config/project.js');
  const { declaredObjects } = await import('../config/schema.js');
  const { planOptions } = await import('../ops/refresh.js');
  const { openWorkspace, loadWorkspaceConfig } = await import('./workspace.js');
  const workspace = await openWorkspace(io, paths, flags);
  const { project, root } = workspace;
  if (project === undefined) {
    throw usageError(
      `compare needs environments declared in ${PROJECT_FILE} at the configuration root (${root}), which declares none`,
    );
  }
  const { assertDeclared, environmentNamed } = await import('./environments.js');
  assertDeclared(project, [from, to]);
  // With a trusted ref, each side is judged by its environment's trusted policy (workspace.ts).
  const load = async (name: string): Promise<LoadedConfig> =>
    (await loadWorkspaceConfig(io, workspace, { paths, environment: environmentNamed(project, name) }))
      .config;
  const a = await load(from);
  let plan: Plan;
  if (flags.desired) {
    const b = await load(to);
    const expected =
      (config: LoadedConfig): Expected =>
      (kind) =>
        kind.expectation === undefined ? undefined : config.state.expected[kind.expectation.section];
    plan = await comparePlan(
      { objects: (kind) => declaredObjects(a.state, kind), expected: expected(a) },
      { objects: (kind) => declaredObjects(b.state, kind), expected: expected(b) },
      planOptions(a),
    );
  } else {
    const sides = await readLiveSides(workspace, [from, to], flags, io);
    if ('code' in sides) return sides.code;
    plan = await comparePlan(sides.before, sides.after, planOptions(a));
  }
  const live = !flags.desired;

  const rendered = {
    text: () => renderTextCompare(plan, from, to, live),
    markdown: async () => {
      const { renderMarkdownPlan } = await import('../plan/render/markdown.js');
      return renderMarkdownPlan(plan, {
        title: `wafctl compare: ${compareHeadline(plan, from, to, live)}`,
        marker: COMPARE_MARKDOWN_MARKER,
        impactTitle: impactTitle(from, to),
        describe: (change) => describe(change, from, to),
        planLine: false,
        ...(flags.maxChars === undefined ? {} : { maxChars: flags.maxChars }),
      });
    },
    json: async () => {
      const { planToJson } = await import('../plan/render/json.js');
      const compared = live ? 'live' : 'desired';
      return `${JSON.stringify({ from, to, compared, ...planToJson(plan) }, null, 2)}\n`;
    },
  }[flags.format];
  writeOut(io, await rendered());

  const { failOnRefusal } = await import('../plan/policy.js');
  // How the environments differ includes their read-only objects (an administrator only one has).
  const refusal = failOnRefusal(plan, flags.failOn ?? [], 'The comparison was printed.', { readOnly: true });
  if (refusal) throw refusal;
  const { assertNoProblems } = await import('./planning.js');
  assertNoProblems(plan);
  return driftCount(plan) > 0 ? 2 : 0;
}

/**
 * Both environments' live objects, read concurrently, each with its own connection (its URL checked
 * before any request). When either fails, each failure is reported as `Error: NAME: ...` and the exit
 * code returned: nothing is compared. Objects export would leave out (no key, a key shared by two
 * objects, values the configuration refuses) are left out of the comparison too, each with a warning.
 */
async function readLiveSides(
  workspace: Workspace,
  names: readonly [string, string],
  flags: CompareFlags,
  io: Io,
): Promise<{ before: ComparedSide; after: ComparedSide } | { code: number }> {
  const { environmentConnection } = await import('./environments.js');
  const { withApiClient } = await import('./connection.js');
  const { readLiveExport } = await import('../ops/export/export.js');
  const { KINDS } = await import('../kinds/index.js');
  const { HYDRATION_CONCURRENCY } = await import('./options.js');
  const { reportEnvironmentError, worse } = await import('./multi-environment.js');
  // Both URLs (and their variables) are checked before either firewall is read.
  const connections = await Promise.all(names.map((name) => environmentConnection(workspace, name, io)));
  const results = await Promise.allSettled(
    connections.map((environment) =>
      withApiClient(
        io,
        { ...(flags.timeout === undefined ? {} : { timeout: flags.timeout }), environment },
        (api) =>
          readLiveExport(api, KINDS, {
            concurrency: HYDRATION_CONCURRENCY,
            warn: (line) => writeErr(io, `Note: ${environment.name}: ${line}.`),
          }),
      ),
    ),
  );
  let code = 0;
  const read: import('../ops/export/export.js').LiveExport[] = [];
  results.forEach((result, i) => {
    const name = names[i] ?? '';
    if (result.status === 'fulfilled') read.push(result.value);
    else code = worse(code, reportEnvironmentError(io, result.reason, name));
  });
  if (code !== 0) return { code };
  const sides = read.map((live, i) => {
    for (const { kind, id, key, reason } of live.leftOut) {
      writeErr(
        io,
        `Warning: ${names[i]}: ${kind} ${printable(id)} (${printable(key)}) left out of the comparison: ${printable(reason)}.`,
      );
    }
    return liveSide(live);
  });
  return { before: sides[0] as ComparedSide, after: sides[1] as ComparedSide };
}

/**
 * A firewall's exportable objects as the configuration would declare them: each object export writes
 * (defaults omitted, members by username) read back through its family's schema, so both sides of a
 * live comparison go through `kind.attributes` exactly as declared objects do.
 */
function liveSide(live: import('../ops/export/export.js').LiveExport): ComparedSide {
  const sectionOf = (kind: Kind) => live.sections.find((candidate) => candidate.section === kind.section);
  return {
    objects: (kind) =>
      sectionOf(kind)?.objects.map((object) => {
        const parsed = kind.schema.parse(object) as Record<string, unknown>;
        return { protect: false, ignore_changes: [], ...parsed } as DeclaredObject;
      }),
    // The read-only object as export writes its expectation (`admins: {users: [...]}`).
    expected: (kind) => sectionOf(kind)?.expectation?.object,
  };
}

/** One side of a comparison: its objects, and its expectations of read-only objects. */
interface ComparedSide {
  objects: Side;
  expected: Expected;
}

/**
 * The plan that would turn A's objects into B's: A's as the remote side (id: their key), B's as the
 * desired side, every family either has, scope "everything" and prune on; no field is immutable (a
 * difference is a difference, not a replacement). Both sides are compared as written: `protect` and
 * `ignore_changes` hide nothing, and members are not resolved through a user directory (desired:
 * there is no firewall; live: both sides are already by username). A family is compared only when
 * both sides read it, and a singleton (settings) only when both have it. Safety warnings (a plan's
 * delete limit) do not apply to a comparison.
 */
async function comparePlan(a: ComparedSide, b: ComparedSide, options: PlanOptions): Promise<Plan> {
  const { KINDS } = await import('../kinds/index.js');
  const { planChanges } = await import('../plan/planner.js');
  const inputs = KINDS.flatMap((kind) => {
    const before = a.objects(kind);
    const after = b.objects(kind);
    // A family one side could not read is not compared: its objects on the other would all differ.
    if (before === undefined || after === undefined) return [];
    const expected = readOnlySide(kind, a);
    if (before.length === 0 && after.length === 0 && expected.length === 0) return [];
    if (kind.singleton && (before.length === 0 || after.length === 0)) return [];
    const remote = before.map((object) => {
      const attributes = kind.attributes(object);
      const key = kind.keyOf(attributes);
      return { key, id: key, attributes };
    });
    const desired = after.map((object) => {
      const attributes = kind.attributes(object);
      return { key: kind.keyOf(attributes), attributes, protect: false, ignoreChanges: [] };
    });
    return [
      {
        kind: kind.name,
        // A comparison has no replacements: a field that cannot be updated in place still just differs.
        immutable: [],
        impact: kind.impact,
        scope: { prune: !kind.singleton, match: {} },
        remote: [...remote, ...readOnlySide(kind, b)],
        desired,
        expected: expected.map(({ key, attributes }) => ({ key, attributes })),
      },
    ];
  });
  const plan = planChanges(inputs, options);
  return { ...plan, warnings: [] };
}

/**
 * A side's read-only object as the planner compares it (kinds/kind.ts `expectation`): B's as the
 * live read-only record, A's as what is expected, so that a difference reads A -> B.
 */
function readOnlySide(
  kind: Kind,
  side: ComparedSide,
): { key: string; id: string; attributes: Attributes; readOnly: string }[] {
  const expectation = kind.expectation;
  const object = side.expected(kind);
  if (expectation === undefined || object === undefined) return [];
  const attributes = expectation.attributes(object);
  return [{ key: expectation.key, id: expectation.key, attributes, readOnly: 'built in' }];
}

export function compareHeadline(plan: Plan, from: string, to: string, live = false): string {
  const n = driftCount(plan);
  return `${live ? 'live ' : ''}${from} -> ${to}: ${n === 0 ? 'no differences' : `${n} ${n === 1 ? 'difference' : 'differences'}`}`;
}

const impactTitle = (from: string, to: string): string => `Security impact of ${from} -> ${to}`;

/** A difference in words: where the object is, or which fields differ. */
function describe(change: Change, from: string, to: string): string {
  const fields = change.fields.map(printable).join(', ');
  switch (change.action) {
    case 'create':
      return `only in ${to}`;
    case 'delete':
      return `only in ${from}`;
    case 'update':
      return `differs (${fields})`;
    case 'replace':
      return `differs (${fields}; applying it would replace the object)`;
  }
}

const SIGN: Record<Change['action'], string> = { create: '+', delete: '-', update: '~', replace: '~' };

async function renderTextCompare(plan: Plan, from: string, to: string, live: boolean): Promise<string> {
  const { changeBody } = await import('../plan/render/body.js');
  const { hasImpactSection, textImpactSection } = await import('../plan/render/security.js');
  const { address, problemLine } = await import('../plan/render/summary.js');
  const out = [`Compare ${compareHeadline(plan, from, to, live)}`];
  if (hasImpactSection(plan)) {
    // The reviewer's first question, before the details.
    for (const line of textImpactSection(plan, (_klass, text) => text, impactTitle(from, to))) out.push(line);
    out.push('');
    // A read-only object (the built-in admins group) differs as it is: neither side's wafctl changes it.
    const readOnly = (plan.read_only ?? []).map((entry) => ({ ...readOnlyAsChange(entry), readOnly: true }));
    for (const change of [...plan.changes, ...readOnly]) {
      const what =
        'readOnly' in change ? `${change.fields.join(', ')} differ (read-only)` : describe(change, from, to);
      out.push(`  ${SIGN[change.action]} ${address(change)}: ${what}`);
      for (const line of changeBody(change)) {
        const note = line.note ? ` ${line.note}` : '';
        out.push(`      ${'    '.repeat(line.depth)}${line.sign} ${line.text}${note}`);
      }
      out.push('');
    }
  }
  for (const problem of plan.problems) out.push(`Error: ${problemLine(problem)}`);
  return `${out.join('\n')}\n`;
}

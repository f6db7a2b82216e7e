/**
 * `wafctl compare A B [PATH] --desired [--format text|markdown|json] [--fail-on CLASS,...]`: what differs
 * between two environments of the root's wafctl.yaml, offline, desired against desired (issue 31).
 * Each difference is the change from A to B, classified as if it were a plan applied to A: A's
 * declared objects are the planner's remote side and B's its desired side, per family, by natural
 * key, prune on (an object only in A is a delete). Exit 0 no differences, 2 differences, 3 a
 * `--fail-on` class matched. Live comparison (without `--desired`) is not available yet.
 */
import { Command, Option } from 'commander';
import { usageError } from '../core/errors.js';
import type { Change, ImpactClass, Plan } from '../core/model.js';
import { printable } from '../core/text.js';
import type { Io } from './io.js';
import { addReviewOptions, FORMATS } from './options.js';
import { writeOut } from './output.js';

interface CompareFlags {
  desired?: boolean;
  format: (typeof FORMATS)[number];
  failOn?: ImpactClass[];
  maxChars?: number;
}

/** The compare comment's sticky marker: never overwrites a plan or drift comment. */
export const COMPARE_MARKDOWN_MARKER = '<!-- wafctl-compare -->';

export function compareCommand(io: Io, done: (code: number) => void): Command {
  return addReviewOptions(
    new Command('compare')
      .description(
        'compare two environments of wafctl.yaml: each difference as the change from A to B, with its security impact (exit 0 none, 2 differences, 3 a --fail-on class)',
      )
      .argument('<A>', 'the environment compared from')
      .argument('<B>', 'the environment compared to')
      .argument('[PATH]', 'the configuration root (default: the current directory)')
      .option('--desired', "compare the environments' configurations (offline), not their firewalls")
      .addOption(new Option('--format <FORMAT>', 'output format').choices(FORMATS).default('text')),
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
  if (!flags.desired) {
    throw usageError(
      'live comparison (firewall against firewall) is not available yet: pass --desired to compare the two environments’ configurations',
    );
  }
  const { readProject, projectRoot, PROJECT_FILE } = await import('../config/project.js');
  const { loadEnvironment } = await import('../config/load.js');
  const root = await projectRoot(paths, io.cwd);
  const project = await readProject(root, io.cwd);
  if (project === undefined) {
    throw usageError(
      `compare needs environments declared in ${PROJECT_FILE} at the configuration root (${root}), which declares none`,
    );
  }
  const names = project.environments.map((environment) => environment.name);
  const unknown = [from, to].filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw usageError(
      `unknown environment ${[...new Set(unknown)].map((name) => JSON.stringify(name)).join(', ')}: ${project.file} declares ${names.join(', ')}`,
    );
  }
  const spec = (name: string) => project.environments.find((environment) => environment.name === name);
  const options = { cwd: io.cwd, env: io.env };
  const a = await loadEnvironment(project, spec(from) as NonNullable<ReturnType<typeof spec>>, options);
  const b = await loadEnvironment(project, spec(to) as NonNullable<ReturnType<typeof spec>>, options);
  const plan = await comparePlan(a, b);

  const rendered = {
    text: () => renderTextCompare(plan, from, to),
    markdown: async () => {
      const { renderMarkdownPlan } = await import('../plan/render/markdown.js');
      return renderMarkdownPlan(plan, {
        title: `wafctl compare: ${compareHeadline(plan, from, to)}`,
        marker: COMPARE_MARKDOWN_MARKER,
        impactTitle: impactTitle(from, to),
        describe: (change) => describe(change, from, to),
        planLine: false,
        ...(flags.maxChars === undefined ? {} : { maxChars: flags.maxChars }),
      });
    },
    json: async () => {
      const { planToJson } = await import('../plan/render/json.js');
      return `${JSON.stringify({ from, to, ...planToJson(plan) }, null, 2)}\n`;
    },
  }[flags.format];
  writeOut(io, await rendered());

  const { failOnRefusal } = await import('../plan/policy.js');
  const refusal = failOnRefusal(plan, flags.failOn ?? [], 'The comparison was printed.');
  if (refusal) throw refusal;
  const { assertNoProblems } = await import('./planning.js');
  assertNoProblems(plan);
  return plan.changes.length > 0 ? 2 : 0;
}

/**
 * The plan that would turn A's configuration into B's: A's declared objects as the remote side (id:
 * their key), B's as the desired side, every family either declares, scope "everything" and prune
 * on; no field is immutable (a difference is a difference, not a replacement). Both sides are compared as written: `protect` and `ignore_changes` hide nothing, and members are
 * not resolved through a user directory (there is no firewall). A singleton (settings) is compared
 * only when both declare it. Safety warnings (a plan's delete limit) do not apply to a comparison.
 */
async function comparePlan(
  a: import('../config/validate-sources.js').LoadedConfig,
  b: import('../config/validate-sources.js').LoadedConfig,
): Promise<Plan> {
  const { declaredObjects } = await import('../config/schema.js');
  const { KINDS } = await import('../kinds/index.js');
  const { planChanges } = await import('../plan/planner.js');
  const { planOptions } = await import('../ops/refresh.js');
  const inputs = KINDS.flatMap((kind) => {
    const before = declaredObjects(a.state, kind);
    const after = declaredObjects(b.state, kind);
    if (before.length === 0 && after.length === 0) return [];
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
        remote,
        desired,
      },
    ];
  });
  const plan = planChanges(inputs, planOptions(a));
  return { ...plan, warnings: [] };
}

export function compareHeadline(plan: Plan, from: string, to: string): string {
  const n = plan.changes.length;
  return `${from} -> ${to}: ${n === 0 ? 'no differences' : `${n} ${n === 1 ? 'difference' : 'differences'}`}`;
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

async function renderTextCompare(plan: Plan, from: string, to: string): Promise<string> {
  const { changeBody } = await import('../plan/render/body.js');
  const { textImpactSection } = await import('../plan/render/security.js');
  const { address, problemLine } = await import('../plan/render/summary.js');
  const out = [`Compare ${compareHeadline(plan, from, to)}`];
  if (plan.changes.length > 0) {
    // The reviewer's first question, before the details.
    for (const line of textImpactSection(plan, (_klass, text) => text, impactTitle(from, to))) out.push(line);
    out.push('');
    for (const change of plan.changes) {
      out.push(`  ${SIGN[change.action]} ${address(change)}: ${describe(change, from, to)}`);
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

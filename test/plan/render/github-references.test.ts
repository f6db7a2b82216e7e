/**
 * Issue 50, finding 4: no mention, reference or link from data. Every markdown document wafctl
 * writes (plan, drift, compare, the summary of several environments, pull's pull-request body, the
 * Action's job summary), holding hostile data where data goes (descriptions, keys, usernames, file
 * names, environment names, messages), is rendered by a GFM renderer and read as GitHub reads it
 * (test/helpers/github-markdown.ts): no `<a>`, and no text GitHub would turn into a mention, an issue
 * reference or a link; yet a reader sees every character of the data, and code shows it verbatim.
 */
import { describe, expect, it } from 'vitest';
import { readInputs } from '../../../src/action/inputs.js';
import { resolveInvocation } from '../../../src/action/invocation.js';
import { commandSummary } from '../../../src/action/summary.js';
import type { EnvironmentFlags } from '../../../src/cli/environments.js';
import { runSeveral } from '../../../src/cli/multi-environment.js';
import type { Plan } from '../../../src/core/model.js';
import { KINDS } from '../../../src/kinds/index.js';
import type { PullResult } from '../../../src/ops/pull/pull.js';
import { pullMarkdown } from '../../../src/ops/pull/summary.js';
import { withAttribution } from '../../../src/plan/attribution.js';
import { withEnforcement } from '../../../src/plan/enforcement.js';
import { type KindPlanInput, planChanges, type RemoteObject } from '../../../src/plan/planner.js';
import { renderMarkdownCompare } from '../../../src/plan/render/compare.js';
import { renderMarkdownDrift } from '../../../src/plan/render/drift.js';
import { failedSummary, markdownSummaryTable } from '../../../src/plan/render/environments.js';
import {
  DRIFT_MARKDOWN_MARKER,
  MARKDOWN_MIN_CHARS,
  renderMarkdownPlan,
} from '../../../src/plan/render/markdown.js';
import {
  activeReferences,
  codeText,
  referencesIn,
  rendered,
  visibleText,
  withoutZeroWidth,
} from '../../helpers/github-markdown.js';
import { testIo } from '../../helpers/io.js';

/** What the issue names: a team, an issue, GH-, bare URLs, an autolink and an e-mail address. */
const HOSTILE = [
  '@octo-org/security',
  '#1',
  'GH-42',
  'https://evil.example/x',
  'www.evil.example',
  '<https://evil.example>',
  'x@evil.example',
  'octo/repo#7',
  'octo/repo@1a2b3c4',
  'mailto:x@evil.example',
  'ftp://evil.example',
];
const ALL = HOSTILE.join(' ');
/** An environment name may read as a link too (letters, digits, `.`, `-`, `_`). */
const ENVIRONMENT = 'www.evil.example';

const NOW = Date.parse('2026-11-27T10:00:00Z');
const impact = KINDS.find((kind) => kind.name === 'application_rule')?.impact ?? [];

const rule = (description: string, priority = 'high') => ({
  rq_host: 'shop.example.com',
  description,
  priority,
  enabled: true,
  conditions: [{ operator: 'match', not_op: false, expressions: [ALL], targets: ['path'] }],
  actions: [{ firewall_action: 'block', firewall_name: `waf ${ALL}` }],
});
const declared = (description: string) => ({
  key: `shop.example.com/${description}`,
  attributes: rule(description),
  protect: false,
  ignoreChanges: [],
});
const live = (id: string, description: string, fields: Partial<RemoteObject>, priority = 'high') => ({
  id,
  key: `shop.example.com/${description}`,
  attributes: rule(description, priority),
  enforcement: [{ firewall: `waf ${ALL}`, status: 'synced' }],
  ...fields,
});

/**
 * Hostile data in every place a drift report shows: rules changed, made and broken by hand (their
 * descriptions and keys hold ALL), each record naming someone hostile, an admins group changed by
 * `#1`, and a rule declared outside the manage scope in a file named like a link.
 */
function inputs(): KindPlanInput[] {
  return [
    {
      kind: 'application_rule',
      impact,
      immutable: ['conditions', 'actions'],
      scope: { prune: true, match: { rq_host: ['shop.example.com'] } },
      desired: [
        declared(`A ${ALL}`),
        declared(`B ${ALL}`),
        declared(`D ${ALL}`),
        {
          key: 'www.evil.example/Outside',
          attributes: { ...rule('Outside'), rq_host: 'www.evil.example' },
          protect: false,
          ignoreChanges: [],
          source: 'www.evil.example/#1.yaml:1:1',
        },
      ],
      remote: [
        live(
          '1',
          `A ${ALL}`,
          { changedBy: '@octo-org/security', changedAt: Date.parse('2026-11-27T08:02:13Z') },
          'low',
        ),
        live('2', `B ${ALL}`, {
          changedBy: ALL,
          changedAt: Date.parse('2026-11-26T08:02:00Z'),
          enforcement: [{ firewall: `waf ${ALL}`, status: 'error' }],
        }),
        live('3', `C ${ALL}`, { changedBy: 'x@evil.example', changedAt: Date.parse('2026-11-27T09:30:59Z') }),
      ],
    },
    {
      kind: 'group',
      immutable: [],
      scope: { prune: false, match: {} },
      desired: [],
      expected: [{ key: 'admins', attributes: { users: ['u-1'] } }],
      remote: [
        {
          id: 'g-1',
          key: 'admins',
          readOnly: 'the built-in administrators group',
          attributes: { name: 'admins', description: ALL, users: ['u-1', 'u-2'] },
          changedBy: '#1',
          changedAt: NOW,
        },
      ],
    },
  ];
}

function hostileDrift(): Plan {
  const planned = planChanges(inputs(), { impactDirection: 'drift' });
  return withEnforcement(withAttribution(planned, inputs()), inputs(), { now: NOW });
}

/** A plan with the same data, and every section a plan has, each holding ALL. */
function hostilePlan(): Plan {
  const planned = planChanges(inputs());
  return {
    ...planned,
    usernames: { 'u-2': '@octo-org/security' },
    notes: [{ kind: 'group', key: ALL, message: `note ${ALL}` }],
    rename_suggestions: [{ kind: 'group', from: ALL, to: `${ALL} 2` }],
    targets: { target: [`group.${ALL}`], exclude: [`group.#2 ${ALL}`], kind: ['group'] },
    trust: {
      ref: '@octo-org/main #1',
      commit: '1a2b3c4d5e6f7a8b',
      changes: [{ subject: `environment ${ENVIRONMENT}`, change: `url: ${ALL}` }],
    },
    behaviour: {
      tests: 2,
      changed: [
        {
          name: `test ${ALL}`,
          before: { action: 'block', rule: `shop.example.com/A ${ALL}` },
          after: { action: 'block', rule: `shop.example.com/B ${ALL}` },
        },
      ],
      failing: [
        {
          name: `fails ${ALL}`,
          status: 'fail',
          expected: { action: 'block' },
          actual: { action: 'none' },
          reason: `expected block ${ALL}`,
        },
      ],
    },
  };
}

/** Where each hostile string must be seen, in full, by a reader of the rendered document. */
function expectAllShown(markdown: string): void {
  const text = visibleText(markdown);
  for (const hostile of HOSTILE) expect(text).toContain(hostile);
}

describe('a drift report holding hostile data', () => {
  const markdown = renderMarkdownDrift(hostileDrift(), { environment: ENVIRONMENT });

  it('renders no link and no mention or reference, in any section', () => {
    // Every section is there: the data is where the issue saw it reach the report raw.
    for (const heading of ['Who changed what', 'Security impact', 'Read-only', 'Not enforced', 'Error'])
      expect(markdown).toContain(heading);
    expect(activeReferences(markdown)).toEqual([]);
  });

  it('still shows every character of it, and keeps the usernames readable', () => {
    expectAllShown(markdown);
    const { texts } = rendered(markdown);
    const who = texts.map((node) => node.text.replaceAll('\u200b', ''));
    expect(who).toContain('@octo-org/security, 2026-11-27 08:02 UTC: ');
    expect(visibleText(markdown)).toContain('(changed by #1, 2026-11-27 10:00 UTC)');
    expect(visibleText(markdown)).toContain(`wafctl drift (${ENVIRONMENT}): Drift detected`);
  });

  it('neutralises with a zero-width space, in the markdown source as an entity', () => {
    expect(markdown).toContain('- @&#8203;octo-org/security, 2026-11-27 08:02 UTC: `');
    expect(markdown).toContain('(changed by #&#8203;1, 2026-11-27 10:00 UTC)');
    expect(markdown).toContain(`### wafctl drift (www&#8203;.evil.example): Drift detected`);
  });

  it('leaves code verbatim: GitHub links nothing in code spans, <code> or fenced blocks', () => {
    const code = codeText(markdown);
    // The addresses (code spans, the <summary>'s <code>) and the diffs (fenced) hold the data as it is.
    expect(code).toContain(`application_rule.shop.example.com/A ${ALL}`);
    expect(code).toContain(`- application_rule.shop.example.com/C ${ALL}`);
    expect(code).toContain(`"${ALL}"`);
    expect(referencesIn(code)).not.toEqual([]);
    expect(codeText(markdown)).not.toContain('\u200b');
  });

  it('keeps within the least --max-chars, the added characters counted', () => {
    const least = renderMarkdownDrift(hostileDrift(), {
      environment: ENVIRONMENT,
      maxChars: MARKDOWN_MIN_CHARS,
    });
    expect(least.length).toBeLessThanOrEqual(MARKDOWN_MIN_CHARS);
    expect(least).toMatch(/not shown/);
    expect(activeReferences(least)).toEqual([]);
  });
});

describe('a plan holding hostile data', () => {
  const markdown = renderMarkdownPlan(hostilePlan(), { title: `wafctl plan: ${ENVIRONMENT}` });

  it('renders no link and no mention or reference, in any section', () => {
    for (const heading of ['Trust', 'Behaviour', 'Note', 'Hint', 'Error', 'partial'])
      expect(markdown).toContain(heading);
    expect(activeReferences(markdown)).toEqual([]);
    expectAllShown(markdown);
  });

  it('shows the file name of a problem and the username of a member as they are', () => {
    expect(visibleText(markdown)).toContain('declared at www.evil.example/#1.yaml:1:1');
    expect(codeText(markdown)).toContain('"@octo-org/security (u-2)"');
  });
});

describe('a comparison holding hostile data', () => {
  it('renders no link and no mention or reference, environment names included', () => {
    const markdown = renderMarkdownCompare(hostilePlan(), { from: ENVIRONMENT, to: 'GH-1', live: true });
    expect(activeReferences(markdown)).toEqual([]);
    expectAllShown(markdown);
    expect(visibleText(markdown)).toContain(`wafctl compare: live ${ENVIRONMENT} -> GH-1:`);
  });
});

describe('the summary table of several environments', () => {
  it('renders no link from a name or an error message', () => {
    // A row has room for a short error only (MARKDOWN_ROW_CHARS): a longer one is cut, then escaped.
    const error = '@octo-org/security #1 <https://evil.example> | x@evil.example';
    const table = markdownSummaryTable([
      { name: ENVIRONMENT, summary: failedSummary(new Error(error)) },
      { name: 'GH-1', summary: failedSummary(new Error(ALL)) },
    ]);
    expect(rendered(table).html).toContain('<table>');
    expect(activeReferences(table)).toEqual([]);
    const cells = rendered(table)
      .texts.map((node) => withoutZeroWidth(node.text))
      .filter((text) => text.trim() !== '');
    expect(cells.slice(4)).toEqual([
      ENVIRONMENT,
      'failed',
      error,
      'GH-1',
      'failed',
      expect.stringMatching(/^@octo-org\/security #1 GH-42 https:\/\/evil\.example\/x .*…$/),
    ]);
  });
});

describe('the markdown of several environments', () => {
  it('names each environment as text that links nothing, in its heading and its section', async () => {
    const { io, stdout } = testIo();
    const drift = renderMarkdownDrift(hostileDrift(), { environment: ENVIRONMENT });
    const options = { command: 'drift', format: 'markdown', marker: DRIFT_MARKDOWN_MARKER } as const;
    const flags: EnvironmentFlags = {};
    await runSeveral(io, [ENVIRONMENT, 'GH-1'], flags, options, async (one) => {
      if (one.env?.[0] === 'GH-1') throw new Error(ALL);
      return { output: drift, code: 2, count: 4, impact: null };
    });
    const markdown = stdout();
    expect(markdown).toContain('## wafctl drift: www&#8203;.evil.example, GH-&#8203;1\n');
    expect(markdown).toContain('\n## GH-&#8203;1\n');
    expect(activeReferences(markdown)).toEqual([]);
    expectAllShown(markdown);
  });
});

/** A pull whose records, files, environments and conflicts hold hostile data. */
function hostilePull(): PullResult {
  return {
    decision: {
      edits: new Map(),
      conflicts: [
        {
          kind: 'group',
          key: ALL,
          file: 'www.evil.example/#1.yaml',
          line: 3,
          col: 5,
          reason: `protected ${ALL}`,
        },
      ],
      kept: [
        {
          kind: 'group',
          key: ALL,
          fields: [`field ${ALL}`],
          file: `own/${ALL}.yaml`,
          insteadOf: 'base/groups.yaml',
          sharedWith: ['GH-1', ENVIRONMENT],
        },
      ],
      updated: 1,
      removed: 0,
      adopted: 0,
    },
    files: [{ file: 'https://evil.example/groups.yaml', before: '', after: 'x', created: true }],
    leftOut: [],
    unadopted: [],
    shared: [{ file: 'https://evil.example/groups.yaml', environments: ['GH-1', ENVIRONMENT] }],
    credits: [
      { address: `group.${ALL}`, changed_by: '@octo-org/security', changed_at: '2026-11-27T08:02:30.000Z' },
      { address: 'group.b', changed_by: ALL, changed_at: `not a date ${ALL}` },
    ],
  };
}

describe("pull's pull-request body holding hostile data", () => {
  const markdown = pullMarkdown(hostilePull(), { environment: ENVIRONMENT, dryRun: false });

  it('renders no link and no mention or reference: the credits notify no one', () => {
    expect(markdown).toContain('Hand changes by @&#8203;octo-org/security (2026-11-27 08:02 UTC)');
    expect(activeReferences(markdown)).toEqual([]);
    expectAllShown(markdown);
    expect(visibleText(markdown)).toContain(`### wafctl pull (${ENVIRONMENT})`.slice(4));
  });

  it('keeps file names and addresses verbatim in code', () => {
    const code = codeText(markdown);
    expect(code).toContain('https://evil.example/groups.yaml');
    expect(code).toContain('www.evil.example/#1.yaml:3:5');
    expect(code).toContain(`group.${ALL}`);
  });
});

describe("the Action's job summary of apply and pull", () => {
  it('names the environment in code, and its log in a fence: nothing links', () => {
    for (const environment of [ENVIRONMENT, 'GH-1']) {
      const resolution = resolveInvocation({ ...readInputs({}), command: 'apply', environment });
      if (!resolution.ok) throw new Error(resolution.refusal);
      const summary = commandSummary(resolution.invocation, 0, true, `applied ${ALL}\n\`\`\`\n${ALL}\n`);
      expect(activeReferences(summary)).toEqual([]);
      expect(visibleText(summary)).toContain(`wafctl apply (${environment}): succeeded`);
      expect(codeText(summary)).toContain(`applied ${ALL}`);
    }
  });
});

/**
 * A firewall is as big as its users make it: 130,000 changes in one kind must plan and render
 * (spreading them into a call once overflowed the stack, see test/source/no-spread-arguments.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCOPE } from '../../src/core/scope.js';
import { renderTable } from '../../src/ops/get/table.js';
import { planChanges } from '../../src/plan/planner.js';
import { renderMarkdownDrift, renderTextDrift } from '../../src/plan/render/drift.js';
import { renderJsonPlan } from '../../src/plan/render/json.js';
import { renderMarkdownPlan } from '../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../src/plan/render/text.js';

const CHANGES = 130_000;

describe('130,000 changes in one kind', () => {
  const desired = Array.from({ length: CHANGES }, (_, i) => ({
    key: `n-${i}`,
    attributes: { name: `n-${i}`, enabled: i % 2 === 0 },
    protect: false,
    ignoreChanges: [],
  }));
  // Every other one exists with the other `enabled`: 65,000 updates and 65,000 creates.
  const remote = desired
    .filter((_, i) => i % 2 === 1)
    .map((d, i) => ({ id: String(i), key: d.key, attributes: { ...d.attributes, enabled: true } }));
  const plan = planChanges([{ kind: 'notification', immutable: [], desired, remote, scope: DEFAULT_SCOPE }]);

  it('plans', () => {
    expect(plan.changes).toHaveLength(CHANGES);
    expect(plan.summary).toMatchObject({ create: CHANGES / 2, update: CHANGES / 2 });
  });

  it('renders as text, markdown and JSON, and as a drift report', () => {
    expect(renderTextPlan(plan, { color: false })).toMatch(
      /Plan: 65000 to add, 65000 to change, 0 to destroy\.\n$/,
    );
    expect(renderMarkdownPlan(plan)).toMatch(
      / more changes not shown \(see the JSON plan \/ job log\)\._\n$/,
    );
    expect(JSON.parse(renderJsonPlan(plan)).changes).toHaveLength(CHANGES);
    // The headline, the Security impact line, one line per change, the closing hint and a final newline.
    expect(renderTextDrift(plan).split('\n')).toHaveLength(CHANGES + 4);
    expect(renderMarkdownDrift(plan).length).toBeLessThanOrEqual(65_536);
  });

  it('lists 160,000 rows as a table', () => {
    const rows = Array.from({ length: 160_000 }, (_, i) => [String(i), `rule ${i}`]);
    const table = renderTable(['ID', 'DESCRIPTION'], rows, { color: false });
    expect(table.split('\n')[160_000]).toBe('159999  rule 159999');
  });
});

/**
 * The proof that a family is one descriptor: a toy family, registered here in the test tree only
 * (test/kinds/toy/), goes through validate -> plan -> render -> apply (its API module played by an
 * in-memory store) with no line of the engine knowing it. If a step still lists the families by hand,
 * the toy falls out of it and this fails. toy-family-emulator.test.ts runs the same family against
 * a real emulator.
 */
import { describe, expect, it } from 'vitest';
import { buildJsonSchema } from '../../src/config/json-schema.js';
import { type ValidationResult, validateSources } from '../../src/config/validate-sources.js';
import { KINDS } from '../../src/kinds/index.js';
import { applyPlan } from '../../src/ops/apply/applier.js';
import { planOptions, refreshInputs } from '../../src/ops/refresh.js';
import { planChanges } from '../../src/plan/planner.js';
import { renderJsonPlan } from '../../src/plan/render/json.js';
import { renderTextPlan } from '../../src/plan/render/text.js';
import type { Widget, WidgetInput, WidgetsApi, WidgetUpdate } from './toy/api.js';
import { widgetsKind } from './toy/descriptor.js';
import { noApi, TOY_CONFIG } from './toy/fixtures.js';

/** The live widgets in memory (id -> widget): the family's API module without a server. */
class WidgetStore implements WidgetsApi {
  readonly objects = new Map<string, WidgetInput>();
  readonly calls: string[] = [];
  private next = 1;

  add(widget: WidgetInput): string {
    const id = `w-${this.next++}`;
    this.objects.set(id, widget);
    return id;
  }

  async list(): Promise<Widget[]> {
    return [...this.objects].map(([id, widget]) => ({ id, ...widget }));
  }

  async create(widget: WidgetInput): Promise<Widget> {
    const id = this.add(widget);
    this.calls.push(`create ${id}`);
    return { id, ...widget };
  }

  async update(id: string, attrs: WidgetUpdate): Promise<Widget> {
    const current = this.objects.get(id);
    if (current === undefined) throw new Error(`no widget ${id}`);
    const widget = { ...current, ...attrs };
    this.objects.set(id, widget);
    this.calls.push(`update ${id}`);
    return { id, ...widget };
  }

  async delete(ids: readonly string[]): Promise<void> {
    for (const id of ids) this.objects.delete(id);
    this.calls.push(`delete ${ids.join(',')}`);
  }
}

function validate(store: WidgetStore, text: string): ValidationResult {
  return validateSources([{ file: 'widgets.yaml', text }], {
    env: {},
    kinds: [...KINDS, widgetsKind(store)],
  });
}

function loaded(store: WidgetStore, text: string) {
  const result = validate(store, text);
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.config;
}

describe('a family registered in the test tree only', () => {
  it('validates: its section, its schema with defaults, its manage block, its natural key', () => {
    const config = loaded(new WidgetStore(), TOY_CONFIG);
    const state = config.state as unknown as Record<string, unknown>;
    expect(state.widgets).toEqual([
      { name: 'big', size: 3, color: 'blue', tags: [], protect: false, ignore_changes: [] },
      { name: 'small', size: 1, color: 'red', tags: ['b', 'a'], protect: false, ignore_changes: [] },
      { name: 'fresh', size: 2, color: 'red', tags: [], protect: false, ignore_changes: [] },
    ]);
    expect((config.state.manage as Record<string, unknown>).widgets).toEqual({ prune: true, match: {} });
    const sources = (config.sources as Record<string, { get(key: string): unknown }>).widgets;
    expect(sources?.get('small')).toMatchObject({
      file: 'widgets.yaml',
      line: 5,
      col: 5,
      path: 'widgets[1]',
    });
  });

  it('reports its problems at file:line:col, in its own words', () => {
    const result = validate(
      new WidgetStore(),
      'widgets:\n  - name: a\n    colour: red\n  - name: a\n    size: 0\nmanage:\n  widgets:\n    match:\n      colr: ["x*"]\n',
    );
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`);
    expect(problems.join('\n')).toMatch(/widgets\.yaml:3:5 .*colour.*did you mean "color"/);
    expect(problems.join('\n')).toMatch(
      /widgets\.yaml:4:5 duplicate widget "a": also declared at widgets\.yaml:2:5/,
    );
    expect(problems.join('\n')).toMatch(/widgets\.yaml:5:11 /);
    // `match` may name the family's scalar string fields: `color` (an enum), `name`; not a typo.
    expect(problems.join('\n')).toMatch(/widgets\.yaml:9:7 .*colr/);
  });

  it('without the family, the same file is refused: nothing knows widgets but its descriptor', () => {
    const result = validateSources([{ file: 'widgets.yaml', text: TOY_CONFIG }], { env: {} });
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.problems[0]?.message).toMatch(/widgets/);
  });

  it('is in the editor schema made from its registry', () => {
    const schema = JSON.parse(buildJsonSchema([...KINDS, widgetsKind(new WidgetStore())]));
    expect(schema.properties.widgets.items.properties.color.enum).toEqual(['red', 'green', 'blue']);
    expect(Object.keys(schema.properties.manage.properties)).toContain('widgets');
    expect(JSON.parse(buildJsonSchema()).properties.widgets).toBeUndefined();
  });

  it('plans, renders and applies through the engine, and the next plan is empty', async () => {
    const store = new WidgetStore();
    const kind = widgetsKind(store);
    const big = store.add({ name: 'big', size: 5, color: 'blue', tags: [] });
    const small = store.add({ name: 'small', size: 1, color: 'green', tags: [] });
    const old = store.add({ name: 'old', size: 1, color: 'red', tags: [] });
    const config = loaded(store, TOY_CONFIG);

    const plan = planChanges(
      await refreshInputs(config, noApi, { concurrency: 2 }, [kind]),
      planOptions(config),
    );
    const summary = plan.changes.map(
      (c) => `${c.action} ${c.kind}.${c.key} [${c.impact.map((i) => i.reason)}]`,
    );
    expect(summary.sort()).toEqual([
      'create widget.fresh []',
      'delete widget.old []',
      'replace widget.small [tag added: a,tag added: b]',
      'update widget.big [shrunk]',
    ]);
    expect(plan.changes.find((c) => c.action === 'replace')).toMatchObject({ forced_by: ['color'] });

    const text = renderTextPlan(plan, { color: false });
    expect(text).toContain('# widget.big will be updated in-place');
    expect(text).toContain('~ size = 5 -> 3');
    expect(text).toContain('# widget.small will be replaced');
    expect(text).toContain('~ color = "green" -> "red" # forces replacement');
    expect(text).toContain('Plan: 2 to add, 1 to change, 2 to destroy.');
    const json = JSON.parse(renderJsonPlan(plan));
    expect(json.changes.map((c: { kind: string }) => c.kind)).toEqual([
      'widget',
      'widget',
      'widget',
      'widget',
    ]);
    expect(json.summary.impact).toMatchObject({ weakens_protection: 1, broadens_access: 1 });

    const report = await applyPlan(plan, noApi, {
      parallelism: 2,
      batchSize: 10,
      username: 'test',
      kinds: [kind],
    });
    expect(report.results.map((r) => r.outcome.status)).not.toContain('failed');
    expect(store.calls).toContain(`update ${big}`);
    expect(store.calls).toContain(`delete ${old}`);
    expect(store.objects.has(small)).toBe(false);
    expect([...store.objects.values()].map((w) => w.name).sort()).toEqual(['big', 'fresh', 'small']);

    const again = planChanges(
      await refreshInputs(config, noApi, { concurrency: 2 }, [kind]),
      planOptions(config),
    );
    expect(again.changes).toEqual([]);
    expect(again.summary.unchanged).toBe(3);
  });
});

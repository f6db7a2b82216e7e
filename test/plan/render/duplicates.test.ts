/** A duplicate's delete says why in every rendering, and survives a saved plan's round trip. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FIREWALL_ACTIONS } from '../../../src/core/firewall-actions.js';
import { planDocumentSchema } from '../../../src/core/plan-document.js';
import { readSavedPlan, renderSavedPlan } from '../../../src/ops/apply/saved-plan.js';
import { DEFAULT_SAFETY } from '../../../src/plan/assess.js';
import { renderTextDrift } from '../../../src/plan/render/drift.js';
import { renderJsonPlan } from '../../../src/plan/render/json.js';
import { renderMarkdownPlan } from '../../../src/plan/render/markdown.js';
import { renderTextPlan } from '../../../src/plan/render/text.js';
import { duplicatePlan } from '../fixtures.js';

describe('a duplicate delete', () => {
  it('is headed "destroyed (duplicate of ID)" in text and markdown, unlike a prune', () => {
    const text = renderTextPlan(duplicatePlan(), { color: false });
    expect(text).toContain(
      '  # application_rule.shop.example.com/Block admin will be destroyed (duplicate of 42)\n',
    );
    expect(text).toContain('  # application_rule.shop.example.com/Old will be destroyed\n');
    expect(text).toContain('      - id          = "41"\n');
    expect(text.trimEnd().split('\n').at(-1)).toBe('Plan: 0 to add, 0 to change, 2 to destroy.');

    const markdown = renderMarkdownPlan(duplicatePlan());
    expect(markdown).toContain(
      '<summary><code>- application_rule.shop.example.com/Block admin</code> will be destroyed (duplicate of 42)</summary>',
    );
  });

  it('reads as a duplicate in a drift report', () => {
    expect(renderTextDrift(duplicatePlan())).toContain(
      '    - application_rule.shop.example.com/Block admin: a duplicate of id 42 (apply would delete it)\n',
    );
  });

  it('carries "reason": "duplicate" and the survivor in the JSON plan; a prune carries neither', () => {
    const doc = JSON.parse(renderJsonPlan(duplicatePlan())) as { changes: Record<string, unknown>[] };
    expect(doc.changes).toEqual([
      expect.objectContaining({ action: 'delete', id: '41', reason: 'duplicate', duplicate_of: '42' }),
      expect.objectContaining({ action: 'delete', id: '7' }),
    ]);
    expect(doc.changes[1]).not.toHaveProperty('reason');
    expect(planDocumentSchema.strict().safeParse(doc).error?.issues ?? []).toEqual([]);
  });

  it('keeps its reason through plan --out and apply --plan', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'wafctl-dup-')), 'plan.json');
    const all = { prune: true, match: {} };
    const scopes = { group: all, application_rule: all, notification: all, schedule: all };
    const context = {
      baseUrl: 'embedded',
      username: 'bot',
      safety: DEFAULT_SAFETY,
      firewallActions: DEFAULT_FIREWALL_ACTIONS,
      scopes,
    };
    await writeFile(path, renderSavedPlan(duplicatePlan(), context));
    const { changes } = await readSavedPlan(path);
    expect(changes.map((c) => [c.action, c.action === 'delete' ? c.duplicate_of : undefined])).toEqual([
      ['delete', '42'],
      ['delete', undefined],
    ]);
  });
});

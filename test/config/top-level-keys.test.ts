/**
 * Issue 42: the top-level keys a problem lists come from the registry (through the document schema),
 * not from a list written by hand, which had left `network_rule_settings` out.
 */
import { describe, expect, it } from 'vitest';
import { documentSchema } from '../../src/config/schema.js';
import { validateSources } from '../../src/config/validate-sources.js';
import { KINDS, type Kind } from '../../src/kinds/index.js';

/** The keys named by the problem of a document that is no mapping, beside one that is. */
function namedKeys(kinds?: readonly Kind[]): string[] {
  const text = 'settings: {}\n---\njust text\n';
  const result = validateSources([{ file: 'waf.yaml', text }], { env: {}, ...(kinds ? { kinds } : {}) });
  if (result.ok) throw new Error('expected a problem');
  const [problem] = result.problems;
  expect(problem?.message).toMatch(/^the top level must be a mapping \(keys: .*\), got string "just text"$/);
  return /\(keys: ([^)]*)\)/.exec(problem?.message ?? '')?.[1]?.split(', ') ?? [];
}

describe('the top level must be a mapping', () => {
  it("names every registered family's section and expectation section", () => {
    const keys = namedKeys();
    for (const kind of KINDS) {
      expect(keys).toContain(kind.section);
      if (kind.expectation !== undefined) expect(keys).toContain(kind.expectation.section);
    }
    expect(keys).toContain('network_rule_settings');
  });

  it("names exactly the document schema's keys: the families' and manage, settings, variables", () => {
    const keys = namedKeys();
    expect(keys).toEqual(Object.keys(documentSchema.shape));
    expect(keys).toEqual(expect.arrayContaining(['manage', 'settings', 'variables']));
  });

  it("names the sections of the families validated with, a test's own registry too", () => {
    const [groups] = KINDS;
    if (groups === undefined) throw new Error('no family registered');
    const keys = namedKeys([groups]);
    expect(keys).toContain(groups.section);
    for (const kind of KINDS.slice(1)) expect(keys).not.toContain(kind.section);
  });
});

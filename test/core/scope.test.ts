import { describe, expect, it } from 'vitest';
import { matchableFields } from '../../src/config/schema.js';
import { globMatcher } from '../../src/core/glob.js';
import { inScope, type ManageScope, scopeMismatch } from '../../src/core/scope.js';
import { KINDS, type Section } from '../../src/kinds/index.js';

const matchesGlob = (glob: string, value: string) => globMatcher(glob)(value);
const within = (scope: ManageScope, fields: Record<string, unknown>) => inScope(fields, scope);

describe('manage.match globs', () => {
  it('* matches any run (dots included), ? one character, the rest literally', () => {
    expect(matchesGlob('*.example.com', 'shop.example.com')).toBe(true);
    expect(matchesGlob('*.example.com', 'a.b.example.com')).toBe(true);
    expect(matchesGlob('*.example.com', 'example.com')).toBe(false);
    expect(matchesGlob('*.example.com', 'shop.example.com.evil')).toBe(false);
    expect(matchesGlob('waf-??-1', 'waf-eu-1')).toBe(true);
    expect(matchesGlob('a.c', 'abc')).toBe(false);
    expect(matchesGlob('(x)+[y]', '(x)+[y]')).toBe(true);
    expect(matchesGlob('Shop', 'shop')).toBe(false);
  });

  it('an empty match is everything; otherwise every listed field must match one of its globs', () => {
    expect(within({ prune: true, match: {} }, { name: 'anything' })).toBe(true);
    const scope = { prune: true, match: { rq_host: ['*.example.com', 'example.com'], priority: ['high'] } };
    expect(within(scope, { rq_host: 'example.com', priority: 'high' })).toBe(true);
    expect(within(scope, { rq_host: 'shop.example.com', priority: 'low' })).toBe(false);
    expect(within(scope, { rq_host: 'shop.example.org', priority: 'high' })).toBe(false);
    expect(within(scope, { priority: 'high' })).toBe(false);
  });
});

describe('scopeMismatch: why an object is outside', () => {
  const scope = { prune: false, match: { rq_host: ['*.example.com'], priority: ['high', 'medium'] } };

  it('names the first listed field that fails, its value and its globs; undefined when in scope', () => {
    expect(scopeMismatch({ rq_host: 'shop.example.com', priority: 'high' }, scope)).toBeUndefined();
    expect(scopeMismatch({ rq_host: 'shop.other.org', priority: 'low' }, scope)).toEqual({
      field: 'rq_host',
      value: 'shop.other.org',
      globs: ['*.example.com'],
    });
    expect(scopeMismatch({ rq_host: 'shop.example.com', priority: 'low' }, scope)).toEqual({
      field: 'priority',
      value: 'low',
      globs: ['high', 'medium'],
    });
    expect(scopeMismatch({ priority: 'high' }, scope)).toEqual({
      field: 'rq_host',
      value: undefined,
      globs: ['*.example.com'],
    });
  });
});

describe('validate and the planner match the same values', () => {
  // A singleton section (network_rule_settings) has no manage scope: nothing of it is matched.
  const FULL: Partial<Record<Section, Record<string, unknown>>> = {
    groups: { name: 'soc', description: 'team' },
    application_rules: {
      rq_host: 'shop.example.com',
      description: 'Block admin',
      priority: 'high',
      conditions: [{ operator: 'match', expressions: ['^/admin'], targets: ['path'] }],
      actions: [{ firewall_action: 'block', firewall_name: 'waf-eu-1' }],
    },
    notifications: {
      name: 'splunk',
      type: 'generic',
      settings: { destination_address: '10.0.0.5', destination_port: 514, format: 'cef', protocol: 'udp' },
    },
    schedules: {
      name: 'weekly',
      hosts: ['shop.example.com'],
      type: 'summary',
      schedule: 'weekly',
      send_to: ['a@example.com'],
      send_via: 'email',
      timezone: 'UTC',
    },
  };

  // validate checks the loaded object, the planner its attributes: every field `match` can name
  // must be the same value in both, or the two would disagree about what is in scope.
  it.each(KINDS.filter((kind) => !kind.singleton).map((kind) => [kind.section, kind] as const))(
    '%s: every matchable field reaches the attributes unchanged',
    (section, kind) => {
      const loaded = kind.schema.parse(FULL[section as Section]);
      const attributes = kind.attributes(loaded);
      const fields = matchableFields(kind);
      expect(fields.length).toBeGreaterThan(0);
      for (const field of fields) expect(attributes[field], field).toBe(loaded[field]);
    },
  );
});

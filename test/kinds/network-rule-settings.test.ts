/** The network-rule settings descriptor: validation at file:line:col, and the plan's impact. */
import { describe, expect, it } from 'vitest';
import { canonicalNetwork, isAddressOrNetwork, isEveryAddress } from '../../src/core/domain.js';
import { networkRuleSettingsKind } from '../../src/kinds/network-rule-settings.js';
import { planChanges } from '../../src/plan/planner.js';
import { runCli } from '../helpers/cli.js';
import { writeConfig } from '../helpers/firewall.js';

const kind = networkRuleSettingsKind;

function plan(remote: Record<string, unknown>, desired: Record<string, unknown>) {
  return planChanges([
    {
      kind: kind.name,
      immutable: [],
      impact: kind.impact,
      scope: { prune: false, match: {} },
      desired: [{ key: kind.section, attributes: desired, protect: false, ignoreChanges: [] }],
      remote: [{ key: kind.section, id: kind.section, attributes: remote }],
    },
  ]);
}

const LIVE = {
  automation: {
    enable: true,
    default_duration_minutes: 1440,
    update_firewall: true,
    whitelist: ['10.0.0.1'],
  },
  expire_strategy: 'delete',
};

describe('network_rule_settings', () => {
  it('checks addresses and networks with node:net', () => {
    for (const ok of ['10.0.0.1', '10.1.0.0/16', '0.0.0.0/0', '2001:db8::/32', '::1']) {
      expect(isAddressOrNetwork(ok), ok).toBe(true);
    }
    for (const bad of ['10.0.0.256', '10.0.0.0/33', '10.0.0.0/', '2001:db8::/129', 'host', '10.0.0.0/1a']) {
      expect(isAddressOrNetwork(bad), bad).toBe(false);
    }
  });

  it('validate names a bad whitelist entry at file:line:col', async () => {
    const dir = await writeConfig({
      'settings.yaml': 'network_rule_settings:\n  automation:\n    whitelist: [10.0.0.1, 10.0.0.0/33]\n',
    });
    const result = await runCli(['validate', dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr + result.stdout).toMatch(/settings\.yaml:3:\d+ .*10\.0\.0\.0\/33/);
  });

  it('plans a field change as an update, never a create', () => {
    const changes = plan(LIVE, { expire_strategy: 'disable' }).changes;
    expect(changes).toHaveLength(1);
    expect(changes[0]?.action).toBe('update');
    expect(changes[0]?.fields).toEqual(['expire_strategy']);
    expect(changes[0]?.impact).toEqual([]);
  });

  it('a whitelist member added broadens access', () => {
    const desired = { automation: { ...LIVE.automation, whitelist: ['10.0.0.1', '10.1.0.0/16'] } };
    const [change] = plan(LIVE, desired).changes;
    expect(change?.impact).toEqual([
      { class: 'broadens_access', reason: 'whitelist address added: 10.1.0.0/16' },
    ]);
  });

  it('enable: false and update_firewall: false weaken protection', () => {
    const desired = { automation: { ...LIVE.automation, enable: false, update_firewall: false } };
    const [change] = plan(LIVE, desired).changes;
    expect(change?.impact.map((i) => i.class)).toEqual(['weakens_protection', 'weakens_protection']);
  });

  it('writes each network one way: case, zeros, host bits and a host prefix do not make a new entry', () => {
    const same: [string, string][] = [
      ['2001:DB8::/32', '2001:db8::/32'],
      ['2001:db8:0:0::/32', '2001:db8::/32'],
      ['1.2.3.0/024', '1.2.3.0/24'],
      ['10.1.2.3/16', '10.1.0.0/16'],
      ['1.2.3.4/32', '1.2.3.4'],
      ['1.2.3.4/032', '1.2.3.4'],
      ['2001:DB8::1/128', '2001:db8::1'],
      ['::/000', '::/0'],
    ];
    for (const [written, canonical] of same) expect(canonicalNetwork(written), written).toBe(canonical);
    expect(canonicalNetwork('10.0.0.0/33')).toBe('10.0.0.0/33');
    expect(isEveryAddress('0.0.0.0/0')).toBe(true);
    expect(isEveryAddress('::/0')).toBe(true);
    expect(isEveryAddress('10.0.0.0/8')).toBe(false);
  });

  it('opening the whitelist to every address has its own reason', () => {
    const desired = {
      automation: { ...LIVE.automation, whitelist: ['10.0.0.1', '0.0.0.0/0', '::/0', '10.2.0.0/16'] },
    };
    const [change] = plan(LIVE, desired).changes;
    expect(change?.impact).toEqual([
      { class: 'broadens_access', reason: 'whitelist opens to every address: 0.0.0.0/0' },
      { class: 'broadens_access', reason: 'whitelist opens to every address: ::/0' },
      { class: 'broadens_access', reason: 'whitelist address added: 10.2.0.0/16' },
    ]);
  });
});

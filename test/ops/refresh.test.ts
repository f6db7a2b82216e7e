import { describe, expect, it } from 'vitest';
import { IncompleteListingError } from '../../src/api/index.js';
import { validateSources } from '../../src/config/validate-sources.js';
import { refreshAndPlan } from '../../src/ops/refresh.js';
import { rulesYaml } from '../helpers/fixtures.js';
import { fakeApi } from '../kinds/fake-api.js';

function config(text: string) {
  const result = validateSources([{ file: 'waf.yaml', text }], { env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}

const NOTIFICATION = `
notifications:
  - name: siem
    settings: {destination_address: 10.0.0.5, destination_port: 514, format: cef, protocol: udp}
`;

describe('refreshAndPlan', () => {
  it('fetches only the kinds the configuration declares or prunes', async () => {
    const { api, calls } = fakeApi({});
    const plan = await refreshAndPlan(config(NOTIFICATION), api, { concurrency: 2 });
    expect(calls).toEqual(['notifications.list']);
    expect(plan.changes.map((c) => `${c.action} ${c.kind}.${c.key}`)).toEqual(['create notification.siem']);

    const pruning = fakeApi({});
    await refreshAndPlan(config(`${NOTIFICATION}manage: {schedules: {prune: true}}\n`), pruning.api, {
      concurrency: 2,
    });
    expect(pruning.calls.sort()).toEqual(['notifications.list', 'schedules.list']);
  });

  it('aborts on an incomplete listing instead of planning deletes from it', async () => {
    const { api } = fakeApi({
      failApplicationRules: new IncompleteListingError('/api/v1/application_rules', 10, 12),
    });
    await expect(
      refreshAndPlan(config(`${NOTIFICATION}manage: {application_rules: {prune: true}}\n`), api, {
        concurrency: 2,
      }),
    ).rejects.toBeInstanceOf(IncompleteListingError);
  });

  it('names where a protected object is declared when it refuses to replace it', async () => {
    // After a blank first line: the rule is declared at line 3.
    const rule = (expression: string) =>
      `\n${rulesYaml([{ host: 'a.example.com', description: 'd', protect: true, expression, firewall: 'w' }])}`;
    const { api } = fakeApi({
      applicationRules: [
        {
          id: '7',
          rq_host: 'a.example.com',
          description: 'd',
          priority: 'high',
          enabled: true,
          duration: null,
          start_time: null,
          conditions: [
            { operator: 'match', expressions: [{ expression: 'old' }], targets: [{ target: 'path' }] },
          ],
          actions: [{ firewall_action: 'block', firewall_name: 'w' }],
          complete: true,
        },
      ],
    });
    const plan = await refreshAndPlan(config(rule('new')), api, { concurrency: 2 });
    expect(plan.changes).toEqual([]);
    expect(plan.problems[0]?.message).toContain('protected (declared at waf.yaml:3:5)');
  });

  it("attaches each kind's security impact, with the action classes of settings.firewall_actions", async () => {
    const rule = (action: string) =>
      rulesYaml([{ host: 'a.example.com', description: 'd', expression: '^/x', action, firewall: 'w' }]);
    const classes = 'settings: {firewall_actions: {allowing: [allow, pass]}}\n';
    const byDefault = await refreshAndPlan(config(rule('pass')), fakeApi({}).api, { concurrency: 2 });
    expect(byDefault.changes[0]?.impact).toEqual([]);
    const custom = await refreshAndPlan(config(`${rule('pass')}${classes}`), fakeApi({}).api, {
      concurrency: 2,
    });
    expect(custom.changes[0]?.impact).toEqual([
      { class: 'weakens_protection', reason: 'allowing action added: pass' },
    ]);
    expect(custom.summary.impact).toEqual({ weakens_protection: 1, broadens_access: 0, reduces_audit: 0 });
  });
});

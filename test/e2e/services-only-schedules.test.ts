/**
 * Report schedules on services only (`hosts: []`): export writes them, the export plans to no
 * changes, and apply creates them from a file. A schedule on nothing at all is still left out.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ScheduleInput } from '../../src/api/index.js';
import { runCli } from '../helpers/cli.js';
import { startTestFirewall, type TestFirewall, writeConfig } from '../helpers/firewall.js';

const schedule = (overrides: Partial<ScheduleInput>): ScheduleInput => ({
  name: 'services-only',
  hosts: [],
  services: ['svc-shop', 'svc-api'],
  type: 'summary',
  schedule: 'weekly',
  send_to: ['secops@example.com'],
  send_via: 'email',
  timezone: 'Europe/Paris',
  ...overrides,
});

let firewall: TestFirewall;
beforeEach(async () => {
  firewall = await startTestFirewall();
});
afterEach(() => firewall.close());

describe('services-only schedules', () => {
  it('are exported with hosts: [], and the export plans to no changes', async () => {
    await firewall.api.schedules.create(schedule({}));
    await firewall.api.schedules.create(
      schedule({ name: 'hosts-only', hosts: ['shop.example.com'], services: null }),
    );
    const exported = await runCli(['export', '--kind', 'schedules'], { env: firewall.env });
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(
      `schedules:
  - name: hosts-only
    hosts: [shop.example.com]
    type: summary
    schedule: weekly
    send_to: [secops@example.com]
    send_via: email
    timezone: Europe/Paris

  - name: services-only
    hosts: []
    services: [svc-api, svc-shop]
    type: summary
`,
    );

    const dir = await mkdtemp(join(tmpdir(), 'wafctl-services-only-'));
    await writeFile(join(dir, 'schedules.yaml'), exported.stdout);
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stderr).toBe('');
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(plan.code).toBe(0);
  });

  it('are created by apply from a file, which then plans to no changes', async () => {
    const dir = await writeConfig({
      'schedules.yaml': `schedules:
  - name: services-only
    hosts: []
    services: [svc-shop]
    type: summary
    schedule: weekly
    send_to: [secops@example.com]
    send_via: email
    timezone: Europe/Paris
`,
    });
    const apply = await runCli(['apply', dir, '--auto-approve'], { env: firewall.env });
    expect(apply.stderr).toBe('create 1 schedule: done [1/1]\n');
    expect(apply.code).toBe(0);
    const [created] = await firewall.api.schedules.list();
    expect(created).toMatchObject({ name: 'services-only', hosts: [], services: ['svc-shop'] });
    const plan = await runCli(['plan', dir, '--detailed-exitcode'], { env: firewall.env });
    expect(plan.stdout).toBe('No changes. The firewall matches the configuration.\n');
    expect(plan.code).toBe(0);
  });

  it('a schedule on neither hosts nor services is left out of the export, saying why', async () => {
    const nothing = await firewall.api.schedules.create(schedule({ name: 'on-nothing', services: [] }));
    const exported = await runCli(['export', '--kind', 'schedules'], { env: firewall.env });
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain(
      `Warning: schedule ${nothing.id} (on-nothing) left out: the server holds values the configuration format refuses: hosts: a schedule must report on at least one host or service: hosts is empty and services is null.`,
    );
    expect(exported.stdout).not.toContain('on-nothing');
  });
});

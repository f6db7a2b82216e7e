import { describe, expect, it } from 'vitest';
import { applicationRulesKind } from '../../../src/kinds/application-rules.js';
import { groupsKind } from '../../../src/kinds/groups.js';
import { notificationsKind } from '../../../src/kinds/notifications.js';
import { schedulesKind } from '../../../src/kinds/schedules.js';
import { omitDefaults } from '../../../src/ops/export/defaults.js';

describe('omitDefaults drops the values the zod schemas would fill in', () => {
  it('groups: empty description, is_admin false, no permissions, no users', () => {
    const group = { name: 'ops', description: '', is_admin: false, permissions: [], users: [] };
    expect(omitDefaults(group, groupsKind.schema)).toEqual({ name: 'ops' });
  });

  it('keeps values that differ from the default, and drops nested defaults (service_id "")', () => {
    const group = {
      name: 'ops',
      description: 'Operators',
      is_admin: true,
      permissions: [
        { permission: 'Handle rules', service_id: '' },
        { permission: 'Explore alerts', service_id: 'svc-shop' },
      ],
      users: ['u-1'],
    };
    expect(omitDefaults(group, groupsKind.schema)).toEqual({
      name: 'ops',
      description: 'Operators',
      is_admin: true,
      permissions: [{ permission: 'Handle rules' }, { permission: 'Explore alerts', service_id: 'svc-shop' }],
      users: ['u-1'],
    });
  });

  it('application rules: enabled true, null duration and start_time, not_op false inside conditions', () => {
    const rule = {
      rq_host: 'shop.example.com',
      description: 'Block admin',
      priority: 'high',
      enabled: true,
      duration: null,
      start_time: null,
      conditions: [
        { operator: 'match', not_op: false, expressions: ['^/admin'], targets: ['path'] },
        { operator: 'match', not_op: true, expressions: ['x'], targets: ['query'] },
      ],
      actions: [{ firewall_action: 'block', firewall_name: 'waf-1' }],
    };
    expect(omitDefaults(rule, applicationRulesKind.schema)).toEqual({
      rq_host: 'shop.example.com',
      description: 'Block admin',
      priority: 'high',
      conditions: [
        { operator: 'match', expressions: ['^/admin'], targets: ['path'] },
        { operator: 'match', not_op: true, expressions: ['x'], targets: ['query'] },
      ],
      actions: [{ firewall_action: 'block', firewall_name: 'waf-1' }],
    });
  });

  it('keeps a disabled rule, a duration of 0 and a start time', () => {
    const rule = { rq_host: 'h', description: 'd', enabled: false, duration: 0, start_time: 5 };
    expect(omitDefaults(rule, applicationRulesKind.schema)).toEqual(rule);
  });

  it('notifications: type siem and enabled true; schedules: services null', () => {
    const settings = {
      destination_address: '10.0.0.5',
      destination_port: 514,
      format: 'cef',
      protocol: 'udp',
    };
    expect(
      omitDefaults({ name: 'splunk', type: 'siem', enabled: true, settings }, notificationsKind.schema),
    ).toEqual({ name: 'splunk', settings });
    expect(
      omitDefaults({ name: 'gen', type: 'generic', enabled: false, settings }, notificationsKind.schema),
    ).toEqual({ name: 'gen', type: 'generic', enabled: false, settings });
    expect(omitDefaults({ name: 'w', services: null, hosts: ['a'] }, schedulesKind.schema)).toEqual({
      name: 'w',
      hosts: ['a'],
    });
    expect(omitDefaults({ name: 'w', services: [] }, schedulesKind.schema)).toEqual({
      name: 'w',
      services: [],
    });
  });

  it('leaves fields the schema does not know untouched (the schema check reports them)', () => {
    expect(omitDefaults({ name: 'x', extra: false }, groupsKind.schema)).toEqual({
      name: 'x',
      extra: false,
    });
  });
});

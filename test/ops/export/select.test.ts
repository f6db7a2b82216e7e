import { describe, expect, it } from 'vitest';
import { applicationRulesKind } from '../../../src/kinds/application-rules.js';
import type { RemoteRecord } from '../../../src/kinds/index.js';
import { schedulesKind } from '../../../src/kinds/schedules.js';
import { selectExportable } from '../../../src/ops/export/select.js';

function rule(id: string, rqHost: string, description: string): RemoteRecord {
  return {
    id,
    key: `${rqHost}/${description}`,
    attributes: {
      rq_host: rqHost,
      description,
      priority: 'high',
      enabled: true,
      duration: null,
      start_time: null,
      conditions: [{ operator: 'match', not_op: false, expressions: ['x'], targets: ['path'] }],
      actions: [{ firewall_action: 'block', firewall_name: 'waf-1' }],
    },
  };
}

const select = (records: RemoteRecord[]) => selectExportable(applicationRulesKind, records);

describe('selectExportable', () => {
  it('orders objects by natural key (code-unit order), defaults omitted', () => {
    const { objects, leftOut } = select([
      rule('3', 'b.example.com', 'a'),
      rule('1', 'a.example.com', 'z'),
      rule('2', 'B.example.com', 'a'),
    ]);
    expect(leftOut).toEqual([]);
    expect(objects.map((o) => `${o.rq_host}/${o.description}`)).toEqual([
      'B.example.com/a',
      'a.example.com/z',
      'b.example.com/a',
    ]);
    expect(objects[0]).not.toHaveProperty('enabled');
    expect(objects[0]?.conditions).toEqual([{ operator: 'match', expressions: ['x'], targets: ['path'] }]);
  });

  it('leaves out a rule without a description, with the reason', () => {
    const { objects, leftOut } = select([
      rule('7', 'shop.example.com', ''),
      rule('8', 'shop.example.com', 'ok'),
    ]);
    expect(objects).toHaveLength(1);
    expect(leftOut).toEqual([
      {
        kind: 'application_rule',
        id: '7',
        key: 'shop.example.com/',
        reason: 'it has no description, and application rules are keyed by rq_host and description',
      },
    ]);
  });

  it('leaves out a rule holding a NUL or a lone surrogate, naming the field, instead of failing as a bug (issue 41)', () => {
    const { objects, leftOut } = select([
      rule('7', 'shop.example.com', 'nul \u0000 here'),
      rule('8', 'shop.example.com', 'half \ud800'),
      rule('9', 'shop.example.com', 'ok'),
    ]);
    expect(objects).toHaveLength(1);
    expect(leftOut.map(({ id, reason }) => [id, reason])).toEqual([
      [
        '8',
        expect.stringMatching(
          /^the server holds a value the configuration format cannot hold: description: invalid string value: /,
        ),
      ],
      [
        '7',
        expect.stringMatching(
          /^the server holds a value the configuration format cannot hold: description: invalid string value: /,
        ),
      ],
    ]);
  });

  it('leaves out every rule of a shared key, naming the others', () => {
    const { objects, leftOut } = select([
      rule('1', 'h', 'same'),
      rule('2', 'h', 'same'),
      rule('3', 'h', 'other'),
    ]);
    expect(objects.map((o) => o.description)).toEqual(['other']);
    expect(leftOut.map((l) => [l.id, l.reason])).toEqual([
      [
        '1',
        'it has the same rq_host "h" and description "same" as 2: objects sharing a key cannot be told apart',
      ],
      [
        '2',
        'it has the same rq_host "h" and description "same" as 1: objects sharing a key cannot be told apart',
      ],
    ]);
  });

  it('leaves out an object whose values the configuration format refuses', () => {
    const schedule: RemoteRecord = {
      id: 's1',
      key: 'weekly',
      attributes: {
        name: 'weekly',
        hosts: ['shop.example.com'],
        services: null,
        type: 'summary',
        schedule: 'weekly',
        send_to: ['not-an-address'],
        send_via: 'email',
        timezone: 'Mars/Olympus',
      },
    };
    const { objects, leftOut } = selectExportable(schedulesKind, [schedule]);
    expect(objects).toEqual([]);
    expect(leftOut[0]?.reason).toMatch(/^the server holds values the configuration format refuses: /);
    expect(leftOut[0]?.reason).toContain('send_to.0: expected an e-mail address, got "not-an-address"');
    expect(leftOut[0]?.reason).toContain('timezone: unknown timezone "Mars/Olympus"');
  });
});

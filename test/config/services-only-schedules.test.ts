/**
 * Report schedules on services only: `hosts: []` is valid when `services` lists one; a schedule on
 * nothing is refused at `hosts`, with its position. The planner treats `services: []` as null, and
 * the editor schema says the same as the zod schema.
 */
import { describe, expect, it } from 'vitest';
import { buildJsonSchema } from '../../src/config/json-schema.js';
import { formatProblem } from '../../src/config/problems.js';
import { validateSources } from '../../src/config/validate-sources.js';
import { schedulesKind } from '../../src/kinds/schedules.js';

function schedule(lines: string): string {
  return `schedules:
  - name: weekly
${lines}    type: summary
    schedule: weekly
    send_to: [a@example.com]
    send_via: email
    timezone: UTC
`;
}

function problems(text: string): string[] {
  const result = validateSources([{ file: 's.yaml', text }], { env: {} });
  return result.ok ? [] : result.problems.map(formatProblem);
}

describe('schedules on services only', () => {
  it('hosts: [] with services listed is valid, and loads as written', () => {
    const text = schedule('    hosts: []\n    services: [svc-shop, svc-api]\n');
    const result = validateSources([{ file: 's.yaml', text }], { env: {} });
    if (!result.ok) throw new Error(result.problems.map(formatProblem).join('\n'));
    expect(result.config.state.schedules[0]).toMatchObject({ hosts: [], services: ['svc-shop', 'svc-api'] });
  });

  it.each([
    ['services absent', '    hosts: []\n', 'null'],
    ['services null', '    hosts: []\n    services: null\n', 'null'],
    ['services empty', '    hosts: []\n    services: []\n', 'empty'],
    ['services empty, first', '    services: []\n    hosts: []\n', 'empty'],
  ])(
    'hosts and services both empty (%s) is an error at hosts, with its position',
    (_case, lines, services) => {
      const at = lines.startsWith('    hosts') ? 3 : 4;
      expect(problems(schedule(lines))).toEqual([
        `s.yaml:${at}:12 schedules[0].hosts: a schedule must report on at least one host or service: hosts is empty and services is ${services}`,
      ]);
    },
  );

  it('is reported along with the other problems of the same schedule', () => {
    const text = schedule('    hosts: []\n').replace('timezone: UTC', 'timezone: Mars/Olympus');
    const found = problems(text);
    expect(found).toHaveLength(2);
    expect(found).toContain(
      's.yaml:3:12 schedules[0].hosts: a schedule must report on at least one host or service: hosts is empty and services is null',
    );
    expect(found.some((line) => line.startsWith('s.yaml:8:15 schedules[0].timezone: unknown timezone'))).toBe(
      true,
    );
  });

  it('hosts stays required (write `hosts: []` for a services-only report), and duplicates are still refused', () => {
    expect(problems(schedule('    services: [svc-shop]\n'))).toEqual([
      's.yaml:2:5 schedules[0]: required field "hosts" is missing',
    ]);
    expect(problems(schedule('    hosts: [a.example.com, a.example.com]\n'))).toEqual([
      's.yaml:3:28 schedules[0].hosts[1]: duplicate host "a.example.com": already listed at s.yaml:3:13',
    ]);
  });
});

describe('the planner', () => {
  it('treats services [] as null (no services), and sorts hosts and services', () => {
    const fields = {
      name: 'weekly',
      type: 'summary',
      schedule: 'weekly',
      send_to: ['a@example.com'],
      send_via: 'email',
      timezone: 'UTC',
      protect: false,
      ignore_changes: [],
    };
    const empty = schedulesKind.attributes({ ...fields, hosts: ['a.example.com'], services: [] });
    const none = schedulesKind.attributes({ ...fields, hosts: ['a.example.com'], services: null });
    expect(empty).toEqual(none);
    expect(none.services).toBeNull();
    expect(schedulesKind.attributes({ ...fields, hosts: [], services: ['b', 'a'] })).toMatchObject({
      hosts: [],
      services: ['a', 'b'],
    });
  });
});

describe('the editor schema', () => {
  it('allows hosts: [] and asks for at least one host or one service', () => {
    const schema = JSON.parse(buildJsonSchema()) as {
      properties: {
        schedules: { items: { properties: { hosts: Record<string, unknown> }; anyOf?: unknown } };
      };
    };
    const item = schema.properties.schedules.items;
    expect(item.properties.hosts.minItems).toBeUndefined();
    expect(item.anyOf).toEqual([
      { properties: { hosts: { minItems: 1 } }, required: ['hosts'] },
      { properties: { services: { type: 'array', minItems: 1 } }, required: ['services'] },
    ]);
  });
});

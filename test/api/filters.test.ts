import nock from 'nock';
import { describe, expect, it } from 'vitest';
import {
  APPLICATION_RULE_FILTERS,
  FILTERS_BY_KIND,
  RULE_FILTERS,
  type RuleFilters,
  SCHEDULE_FILTERS,
} from '../../src/api/index.js';
import { collect } from '../../src/api/paginate.js';
import { encodeQuery } from '../../src/api/url.js';
import { answer, BASE, group, makeClient, ok, pagination, rule, useNock } from './helpers.js';

useNock();

const onePage = (key: string, rows: unknown[]) => ({
  ...ok({ [key]: rows }),
  pagination: pagination(0, rows.length, rows.length, 1),
});

describe('filter tables', () => {
  it('hold every documented filter of each listing', () => {
    expect(Object.keys(RULE_FILTERS)).toHaveLength(24);
    expect(Object.keys(APPLICATION_RULE_FILTERS)).toHaveLength(20);
    expect(Object.keys(SCHEDULE_FILTERS).sort()).toEqual(
      [
        'id',
        'id_list',
        'name',
        'schedule',
        'scheduled_at_start',
        'scheduled_by',
        'scheduled_by_end',
        'type',
      ].sort(),
    );
    expect(RULE_FILTERS.not_action_list).toBe('string[]');
    expect(APPLICATION_RULE_FILTERS.enabled).toBe('boolean');
    expect(FILTERS_BY_KIND.groups).toEqual({});
  });

  it('never list the pagination parameters, which the client owns', () => {
    for (const table of Object.values(FILTERS_BY_KIND)) {
      expect(Object.keys(table)).not.toEqual(expect.arrayContaining(['paginate']));
      expect(Object.keys(table)).not.toContain('page');
      expect(Object.keys(table)).not.toContain('page_size');
    }
  });
});

describe('query encoding', () => {
  it('repeats bracketed keys for lists, writes booleans as true/false and encodes the rest', () => {
    expect(
      encodeQuery({ rq_host_list: ['a', 'b c'], network_only: false, n: 3, s: 'x&y=z', skip: undefined }),
    ).toBe('rq_host_list[]=a&rq_host_list[]=b%20c&network_only=false&n=3&s=x%26y%3Dz');
  });
});

describe('typed filters', () => {
  it('refuse an unknown name that slipped past the types', async () => {
    const { client } = makeClient();
    const filters = { rq_host: 'shop', colour: 'red' } as RuleFilters;

    await expect(client.rules.list(filters)).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringMatching(
        /^unknown filter "colour" for rules; valid filters: action, action_list, /,
      ),
    });
  });

  it('refuse a value of the wrong type, and an empty list that would widen the listing', async () => {
    const { client } = makeClient();

    await expect(client.rules.list({ timestamp: 1.5 })).rejects.toThrow(
      'filter timestamp for rules: expected integer',
    );
    await expect(client.rules.list({ id_list: [] })).rejects.toThrow('expected a non-empty list');
    await expect(client.applicationRules.list({ enabled: 'yes' as unknown as boolean })).rejects.toThrow(
      'filter enabled for application-rules: expected boolean',
    );
  });
});

describe('iterateWithFilters (for wafctl get)', () => {
  it('converts NAME=VALUE strings with the kind table: comma lists, integers, booleans', async () => {
    const { client } = makeClient();
    const calls = answer(nock(BASE).get('/api/v1/rules').query(true), 200, onePage('rules', [rule()]));

    const rows = await collect(
      client.iterateWithFilters('rules', {
        id_list: 'r-1, r-2',
        network_only: 'false',
        timestamp_start: '1700000000000000',
      }),
    );

    expect(rows).toEqual([rule()]);
    expect(calls[0]?.uri).toBe(
      '/api/v1/rules?id_list[]=r-1&id_list[]=r-2&network_only=false&timestamp_start=1700000000000000' +
        '&paginate=true&page=0&page_size=1000',
    );
  });

  it('lists unfiltered kinds when no filter is given', async () => {
    const { client } = makeClient();
    answer(nock(BASE).get('/api/v1/groups'), 200, ok({ groups: [group()] }));

    expect(await collect(client.iterateWithFilters('groups', {}))).toEqual([group()]);
  });

  it('throws a clear error naming the valid filters for an unknown name', async () => {
    const { client } = makeClient();

    await expect(collect(client.iterateWithFilters('schedules', { host: 'x' }))).rejects.toThrow(
      'unknown filter "host" for schedules; valid filters: id, id_list, name, schedule, scheduled_at_start, scheduled_by, scheduled_by_end, type',
    );
    await expect(collect(client.iterateWithFilters('notifications', { name: 'x' }))).rejects.toThrow(
      'unknown filter "name" for notifications; notifications takes no filters',
    );
    await expect(
      collect(client.iterateWithFilters('application-rules', { page: '2' })),
    ).rejects.toMatchObject({
      code: 'USAGE',
    });
  });

  it('refuses values that do not convert', async () => {
    const { client } = makeClient();

    await expect(collect(client.iterateWithFilters('rules', { timestamp: 'yesterday' }))).rejects.toThrow(
      'filter timestamp for rules: expected an integer, got "yesterday"',
    );
    await expect(collect(client.iterateWithFilters('application-rules', { enabled: 'yes' }))).rejects.toThrow(
      'expected true or false',
    );
    await expect(collect(client.iterateWithFilters('rules', { rq_host_list: ' , ' }))).rejects.toThrow(
      'expected a comma-separated list',
    );
  });
});

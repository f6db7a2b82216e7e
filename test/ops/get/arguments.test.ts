import { describe, expect, it } from 'vitest';
import { parseFilterStrings } from '../../../src/api/filters.js';
import { resolveGetKind } from '../../../src/ops/get/kinds.js';
import { parseFilterArgs } from '../../../src/ops/get/listing.js';

describe('get arguments', () => {
  it('KIND: the listing names, their singulars and underscore spellings', () => {
    expect(resolveGetKind('application-rules')).toBe('application-rules');
    expect(resolveGetKind('application_rule')).toBe('application-rules');
    expect(resolveGetKind('schedule')).toBe('schedules');
    expect(() => resolveGetKind('gropus')).toThrow(
      'unknown kind "gropus" (did you mean "groups"?); expected one of groups, rules, application-rules, notifications, schedules',
    );
  });

  it('--filter NAME=VALUE: split at the first "=", values kept verbatim, a repeated name keeps all', () => {
    expect(parseFilterArgs(['rq_host=a.example.com', 'pattern=a=b', 'username=', 'id=1', 'id=2'])).toEqual({
      rq_host: ['a.example.com'],
      pattern: ['a=b'],
      username: [''],
      id: ['1', '2'],
    });
  });

  it('--filter refuses a missing NAME=', () => {
    expect(() => parseFilterArgs(['rq_host'])).toThrow('--filter expects NAME=VALUE, got "rq_host"');
    expect(() => parseFilterArgs(['=x'])).toThrow('--filter expects NAME=VALUE, got "=x"');
  });

  it('a repeated list filter adds its values; a repeated scalar filter is refused, not overwritten', () => {
    expect(parseFilterStrings('application-rules', { id_list: ['1,2', '3'], enabled: 'true' })).toEqual({
      id_list: ['1', '2', '3'],
      enabled: true,
    });
    expect(() => parseFilterStrings('application-rules', { id: ['1', '2'] })).toThrow(
      'filter id for application-rules takes one value, got 2: 1, 2',
    );
  });
});

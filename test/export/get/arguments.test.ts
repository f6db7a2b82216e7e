import { describe, expect, it } from 'vitest';
import { resolveGetKind } from '../../../src/export/get/kinds.js';
import { parseFilterArgs } from '../../../src/export/get/listing.js';

describe('get arguments', () => {
  it('KIND: the listing names, their singulars and underscore spellings', () => {
    expect(resolveGetKind('application-rules')).toBe('application-rules');
    expect(resolveGetKind('application_rule')).toBe('application-rules');
    expect(resolveGetKind('schedule')).toBe('schedules');
    expect(() => resolveGetKind('gropus')).toThrow(
      'unknown kind "gropus" (did you mean "groups"?); expected one of groups, rules, application-rules, notifications, schedules',
    );
  });

  it('--filter NAME=VALUE: split at the first "=", values kept verbatim', () => {
    expect(parseFilterArgs(['rq_host=a.example.com', 'pattern=a=b', 'username='])).toEqual({
      rq_host: 'a.example.com',
      pattern: 'a=b',
      username: '',
    });
  });

  it('--filter refuses a missing NAME= and a name given twice', () => {
    expect(() => parseFilterArgs(['rq_host'])).toThrow('--filter expects NAME=VALUE, got "rq_host"');
    expect(() => parseFilterArgs(['=x'])).toThrow('--filter expects NAME=VALUE, got "=x"');
    expect(() => parseFilterArgs(['id=1', 'id=2'])).toThrow(
      '--filter id is given twice; a list filter takes comma-separated values',
    );
  });
});

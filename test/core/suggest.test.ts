import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/core/suggest.js';

describe('didYouMean', () => {
  it('measures edits case-insensitively', () => {
    expect(editDistance('descripton', 'description')).toBe(1);
    expect(editDistance('Handle Rules', 'Handle rules')).toBe(0);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests the closest candidate within two edits', () => {
    expect(didYouMean('descripton', ['name', 'description', 'is_admin'])).toBe('description');
    expect(didYouMean('rq_hosts', ['rq_host', 'description'])).toBe('rq_host');
    expect(didYouMean('colour', ['name', 'description'])).toBeUndefined();
  });

  it('does not suggest for short inputs that are mostly different, nor the input itself', () => {
    expect(didYouMean('ab', ['cd', 'ax'])).toBeUndefined();
    expect(didYouMean('name', ['name'])).toBeUndefined();
  });
});

/** The string checks behind strict input (src/emulator/validation.ts), including what HTTP cannot reach. */
import { describe, expect, it } from 'vitest';
import { loneSurrogateAt, paramProblems, textProblem } from '../../src/emulator/validation.js';

describe('loneSurrogateAt', () => {
  it.each<[string, string, number]>([
    ['plain text', 'abc', -1],
    ['a surrogate pair', 'a\ud83d\ude00b', -1],
    ['a high surrogate at the end', 'abc\ud800', 3],
    ['a low surrogate alone', 'x\udc00y', 1],
    ['a pair in the wrong order', '\udc00\ud800', 0],
    ['a high surrogate followed by a letter', '\ud83d\ude00\ud83dx', 2],
  ])('%s', (_name, value, at) => {
    expect(loneSurrogateAt(value)).toBe(at);
  });
});

describe('textProblem', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(textProblem('\ud83d\ude00'.repeat(4), 4)).toBeUndefined();
    expect(textProblem('\ud83d\ude00'.repeat(5), 4)).toBe('at most 4 characters, got 5');
  });

  it('names the lone surrogate before the length', () => {
    expect(textProblem(`${'x'.repeat(10)}\ud800`, 4)).toBe(
      'must be well-formed Unicode (a lone surrogate at position 10)',
    );
  });
});

describe('paramProblems', () => {
  it('names the parameter of a decoded path segment that is not well-formed', () => {
    expect(paramProblems('notification_name', 'siem-\ud800')).toEqual([
      'notification_name: must be well-formed Unicode (a lone surrogate at position 5)',
    ]);
    expect(paramProblems('notification_name', 'siem-\u00e9t\u00e9')).toEqual([]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { colorEnabled } from '../../src/cli/output.js';

const tty = { isTTY: true } as NodeJS.WriteStream;
const pipe = { isTTY: false } as NodeJS.WriteStream;

afterEach(() => {
  delete process.env.NO_COLOR;
});

describe('colorEnabled', () => {
  it('colours a TTY only', () => {
    delete process.env.NO_COLOR;
    expect(colorEnabled(tty, undefined)).toBe(true);
    expect(colorEnabled(pipe, undefined)).toBe(false);
  });

  it('is turned off by --no-color and by NO_COLOR', () => {
    expect(colorEnabled(tty, false)).toBe(false);
    process.env.NO_COLOR = '1';
    expect(colorEnabled(tty, undefined)).toBe(false);
  });
});

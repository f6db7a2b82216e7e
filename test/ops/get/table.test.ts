import { afterEach, describe, expect, it } from 'vitest';
import { forgetSecrets, registerSecret } from '../../../src/core/secrets.js';
import { fromIso, fromMicros, list } from '../../../src/kinds/cells.js';
import { MAX_CELL_WIDTH, renderTable } from '../../../src/ops/get/table.js';

describe('renderTable', () => {
  it('aligns columns with two spaces and leaves no trailing blanks', () => {
    const table = renderTable(
      ['ID', 'NAME', 'ENABLED'],
      [
        ['1', 'a-long-name', 'true'],
        ['22', 'b', ''],
      ],
      { color: false },
    );
    expect(table).toBe(['ID  NAME         ENABLED', '1   a-long-name  true', '22  b'].join('\n'));
  });

  it('shows control characters escaped (a cell never breaks a row, nor sends escapes to the terminal)', () => {
    const table = renderTable(['A', 'B'], [['x\ny\tz\u001b[31m\u202e', 'ok']], { color: false });
    expect(table.split('\n')).toEqual([`${'A'.padEnd(23)}  B`, 'x\\ny\\tz\\u001b[31m\\u202e  ok']);
  });

  it('cuts long cells with an ellipsis', () => {
    const table = renderTable(['A'], [['x'.repeat(100)]], { color: false });
    expect(table.split('\n')[1]).toBe(`${'x'.repeat(MAX_CELL_WIDTH - 1)}…`);
  });

  describe('with a registered secret in a cell', () => {
    afterEach(() => forgetSecrets());

    it('measures the columns on the redacted text, so they line up as printed', () => {
      registerSecret('s3cr3t-token-0123456789abcdef');
      const table = renderTable(
        ['ID', 'DESCRIPTION', 'USERNAME'],
        [
          ['1', 'rotated s3cr3t-token-0123456789abcdef by hand', 'alice'],
          ['22', 'plain', 'bob'],
        ],
        { color: false },
      );
      expect(table).toBe(
        [
          'ID  DESCRIPTION                 USERNAME',
          '1   rotated [REDACTED] by hand  alice',
          '22  plain                       bob',
        ].join('\n'),
      );
    });

    it('redacts before cutting a long cell, so no piece of the secret is left', () => {
      const secret = `tok-${'z'.repeat(40)}`;
      registerSecret(secret);
      const table = renderTable(['A', 'B'], [[`${'x'.repeat(30)}${secret}`, 'ok']], { color: false });
      expect(table.split('\n')).toEqual([`${'A'.padEnd(40)}  B`, `${'x'.repeat(30)}[REDACTED]  ok`]);
    });
  });

  it('makes the header bold only when colour is on', () => {
    expect(renderTable(['A'], [], { color: true })).toBe('\u001b[1mA\u001b[22m');
    expect(renderTable(['A'], [], { color: false })).toBe('A');
  });
});

describe('list cells', () => {
  it('joins the members with commas; null or absent is an empty cell', () => {
    expect(list(['svc-shop', 'svc-api'])).toBe('svc-shop,svc-api');
    expect(list([])).toBe('');
    expect(list(null)).toBe('');
    expect(list(undefined)).toBe('');
  });
});

describe('timestamps as ISO dates, to the second', () => {
  it('UNIX microseconds', () => {
    expect(fromMicros(1_709_283_600_000_000)).toBe('2024-03-01T09:00:00Z');
    expect(fromMicros(1_709_283_600_123_456)).toBe('2024-03-01T09:00:00Z');
    expect(fromMicros(null)).toBe('');
    expect(fromMicros(undefined)).toBe('');
    expect(fromMicros(Number.MAX_SAFE_INTEGER * 1000)).toBe(String(Number.MAX_SAFE_INTEGER * 1000));
  });

  it('ISO strings, normalised to the same shape; anything else as it is', () => {
    expect(fromIso('2026-01-01T10:00:00.123456Z')).toBe('2026-01-01T10:00:00Z');
    expect(fromIso('2026-01-01T12:00:00+02:00')).toBe('2026-01-01T10:00:00Z');
    expect(fromIso('yesterday')).toBe('yesterday');
    expect(fromIso(undefined)).toBe('');
  });
});

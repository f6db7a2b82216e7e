/** The CI-log guard (core/text.ts): what it escapes, what it leaves alone, and that JSON keeps its values. */
import { describe, expect, it } from 'vitest';
import { mayStartWorkflowCommand, neutralizeWorkflowCommands } from '../../src/core/text.js';

describe('neutralizeWorkflowCommands', () => {
  it('puts a backslash before a `::` that opens a line, after any leading whitespace', () => {
    expect(neutralizeWorkflowCommands('::warning title=x::y')).toBe('\\::warning title=x::y');
    expect(neutralizeWorkflowCommands('  ::warning::x')).toBe('  \\::warning::x');
    expect(neutralizeWorkflowCommands('\t \t::add-mask::x')).toBe('\t \t\\::add-mask::x');
    expect(neutralizeWorkflowCommands('ok\n::stop-commands::tok\n  ::error::e\n')).toBe(
      'ok\n\\::stop-commands::tok\n  \\::error::e\n',
    );
    // Whitespace the runner trims and JS `\s` alone does not: NEL; and no-break spaces.
    expect(neutralizeWorkflowCommands('\u0085\u00a0::warning::x')).toBe('\u0085\u00a0\\::warning::x');
  });

  it('takes `\\r\\n` and a lone `\\r` as line ends, as the runner does', () => {
    expect(neutralizeWorkflowCommands('a\r\n::warning::x\r\n')).toBe('a\r\n\\::warning::x\r\n');
    expect(neutralizeWorkflowCommands('a\r::warning::x')).toBe('a\r\\::warning::x');
    expect(neutralizeWorkflowCommands('a\r\n\r\n  ::warning::x')).toBe('a\r\n\r\n  \\::warning::x');
  });

  it('leaves `::` inside a line alone', () => {
    for (const text of ['a::b', 'x ::warning::y', 'http://[::1]:80/', 'key: a::b\n']) {
      expect(neutralizeWorkflowCommands(text)).toBe(text);
    }
  });

  it('writes every `##[` as `##\\u005b`, anywhere in a line', () => {
    expect(neutralizeWorkflowCommands('abc ##[warning]text')).toBe('abc ##\\u005bwarning]text');
    expect(neutralizeWorkflowCommands('##[error]a ##[group]b')).toBe('##\\u005berror]a ##\\u005bgroup]b');
    expect(neutralizeWorkflowCommands('# [x] #[y] ##x')).toBe('# [x] #[y] ##x');
  });

  it('returns the very same string when there is nothing to escape', () => {
    const text = `plain output: 3 changes, "quoted", ${'x'.repeat(200)}\n`;
    expect(neutralizeWorkflowCommands(text)).toBe(text);
    expect(neutralizeWorkflowCommands('')).toBe('');
  });

  it('is idempotent: escaped text has nothing left to escape', () => {
    const once = neutralizeWorkflowCommands('::a::b\n ##[c]\n  ::d');
    expect(neutralizeWorkflowCommands(once)).toBe(once);
  });

  it('keeps the values of pretty JSON, whose strings hold `::` and `##[`', () => {
    const value = {
      '::key': ['::warning::a', 'x\n::warning::y ##[error]z', '\\##[', '##[##['],
      nested: { 'a ##[b]': '\r\n  ::add-mask::secret' },
    };
    const text = neutralizeWorkflowCommands(`${JSON.stringify(value, null, 2)}\n`);
    expect(text).not.toContain('##[');
    expect(text.split(/\r?\n|\r/).filter((line) => /^\s*::/.test(line))).toEqual([]);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('mayStartWorkflowCommand', () => {
  it('is true for `##[` anywhere, and `::` at the start or after a line break and whitespace', () => {
    for (const value of ['##[', 'a ##[warning]b', '::x', '  ::x', 'a\n::x', 'a\r\n\t::x', 'a\r::x']) {
      expect(mayStartWorkflowCommand(value), JSON.stringify(value)).toBe(true);
    }
  });

  it('inline (after `key: ` or `- `): a one-line string starting with `::` opens no line', () => {
    for (const value of ['::1', '  ::x', '::ffff:10.0.0.1', 'a::b']) {
      expect(mayStartWorkflowCommand(value, { inline: true }), JSON.stringify(value)).toBe(false);
    }
    for (const value of ['::x\ny', 'a\n  ::x', 'a ##[b]', 'a\r::x']) {
      expect(mayStartWorkflowCommand(value, { inline: true }), JSON.stringify(value)).toBe(true);
    }
  });

  it('is false for `::` inside a line and for ordinary strings', () => {
    for (const value of ['a::b', 'a\nb ::c', 'Block admin', 'line one\nline two', '# [x]', '']) {
      expect(mayStartWorkflowCommand(value), JSON.stringify(value)).toBe(false);
    }
  });
});

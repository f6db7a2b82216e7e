/**
 * The documentation is tested like code: every configuration example validates, every command shown
 * exists with the flags shown, and every relative link (and its #anchor) resolves. A block fenced as
 * ```` ```yaml wafctl ```` is a whole configuration file; plain ```` ```yaml ```` blocks are fragments
 * or other YAML and are not checked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { runCli } from '../helpers/cli.js';
import { testIo } from '../helpers/io.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(): string[] {
  const docs = join(ROOT, 'docs');
  const pages = readdirSync(docs, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(docs, name));
  return [...['README.md', 'CONTRIBUTING.md', 'BENCHMARKS.md'].map((name) => join(ROOT, name)), ...pages];
}

const FILES = markdownFiles();
const name = (file: string) => relative(ROOT, file);
const text = (file: string) => readFileSync(file, 'utf8');

interface Block {
  file: string;
  line: number;
  info: string;
  body: string;
}

/** Fenced code blocks (```` ``` ```` or `~~~`), with their info string and first line. */
function blocks(file: string): Block[] {
  const found: Block[] = [];
  const lines = text(file).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] ?? '');
    if (open === null) continue;
    const fence = open[2] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !(lines[j] ?? '').trim().startsWith(fence); j++) body.push(lines[j] ?? '');
    found.push({ file, line: i + 1, info: (open[3] ?? '').trim(), body: `${body.join('\n')}\n` });
    i = j;
  }
  return found;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  let inFence = false;
  for (const line of text(file).split('\n')) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading === null) continue;
    const base = slug(heading[1] ?? '');
    const seen = counts.get(base) ?? 0;
    counts.set(base, seen + 1);
    anchors.add(seen === 0 ? base : `${base}-${seen}`);
  }
  return anchors;
}

/** Relative links `[text](target)` outside code blocks and code spans. */
function links(file: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let inFence = false;
  for (const [i, line] of text(file).split('\n').entries()) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) inFence = !inFence;
    if (inFence) continue;
    for (const match of line.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      found.push({ target, line: i + 1 });
    }
  }
  return found;
}

describe('the documentation', () => {
  it('README.md is a front page: at most 200 lines', () => {
    expect(text(join(ROOT, 'README.md')).trimEnd().split('\n').length).toBeLessThanOrEqual(200);
  });

  const configurations = FILES.flatMap(blocks).filter((block) => /^ya?ml\s+wafctl\b/.test(block.info));
  it('has configuration examples to validate', () => {
    expect(configurations.length).toBeGreaterThan(5);
  });

  it.each(configurations.map((block) => [`${name(block.file)}:${block.line}`, block] as const))(
    'validates the configuration at %s',
    async (_where, block) => {
      const dir = await mkdtemp(join(tmpdir(), 'wafctl-docs-'));
      await writeFile(join(dir, 'example.yaml'), block.body);
      const result = await runCli(['validate', 'example.yaml'], { cwd: dir });
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    },
  );

  it('shows only commands and flags that exist', () => {
    const program = buildProgram(testIo().io, () => undefined);
    const global = new Set(['--help', '-h', '--version', '-V', ...program.options.map((o) => o.long ?? '')]);
    const wrong: string[] = [];
    let checked = 0;
    for (const block of FILES.flatMap(blocks).filter((b) => /^(sh|bash|console|shell)\b/.test(b.info))) {
      for (const [offset, raw] of block.body.split('\n').entries()) {
        const where = `${name(block.file)}:${block.line + 1 + offset}`;
        // Each command of a line: after `&&`, `||`, `;` or `|`, before a comment.
        const line = raw.replace(/^\s*\$\s+/, '').replace(/\s+#.*$/, '');
        for (const part of line.split(/&&|\|\||;|\|/)) {
          const words = part.trim().split(/\s+/);
          while (/^[A-Z_][A-Z0-9_]*=/.test(words[0] ?? '')) words.shift(); // WAF_URL=... wafctl ...
          if (words[0] !== 'wafctl') continue;
          checked++;
          const sub = words[1] ?? '';
          if (sub.startsWith('-')) {
            if (!global.has(sub)) wrong.push(`${where}: unknown option ${sub}`);
            continue;
          }
          const command = program.commands.find((c) => c.name() === sub);
          if (command === undefined) {
            wrong.push(`${where}: unknown command ${sub}`);
            continue;
          }
          const known = new Set([
            ...global,
            ...command.options.flatMap((o) => [o.long ?? '', o.short ?? '']),
          ]);
          for (const word of words.slice(2)) {
            const flag = word.split('=')[0] ?? '';
            if (flag.startsWith('--') && !known.has(flag)) wrong.push(`${where}: ${sub} has no ${flag}`);
          }
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(checked).toBeGreaterThan(10);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of FILES) {
      for (const { target, line } of links(file)) {
        const [path = '', anchor] = target.split('#');
        const to = path === '' ? file : resolve(dirname(file), decodeURI(path));
        const where = `${name(file)}:${line}: ${target}`;
        if (!existsSync(to)) broken.push(`${where} (no such file)`);
        else if (anchor !== undefined && to.endsWith('.md') && !anchorsOf(to).has(anchor)) {
          broken.push(`${where} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

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
import { documentSchema, manageSchema } from '../../src/config/schema.js';
import { KINDS } from '../../src/kinds/index.js';
import { cliName } from '../../src/kinds/kind.js';
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

  it('README.md starts with the demo and the test suite', () => {
    const first = blocks(join(ROOT, 'README.md'))[0];
    expect(first?.line).toBeLessThan(5);
    expect(first?.body).toMatch(/^npm install && npm run demo\s/m);
    expect(first?.body).toMatch(/^npm test\s/m);
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

/**
 * A paragraph, list item or table row outside code blocks (a list wraps over lines), with the code
 * spans it holds: where the documentation lists families, sections or keys.
 */
interface Unit {
  file: string;
  line: number;
  text: string;
  spans: string[];
}

function units(file: string): Unit[] {
  const found: Unit[] = [];
  let current: { line: number; lines: string[] } | undefined;
  const close = () => {
    if (current === undefined) return;
    const joined = current.lines.join(' ');
    const spans = [...joined.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
    found.push({ file, line: current.line, text: joined, spans });
    current = undefined;
  };
  let inFence = false;
  for (const [i, line] of text(file).split('\n').entries()) {
    if (/^\s*(`{3,}|~{3,})/.test(line)) {
      close();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    if (line.trim() === '' || /^\s*(#|[-*] |\d+\. |\|)/.test(line)) close();
    if (line.trim() === '') continue;
    if (current === undefined) current = { line: i + 1, lines: [] };
    current.lines.push(line.trim());
    if (line.trim().startsWith('|')) close(); // a table row is a unit of its own
  }
  close();
  return found;
}

const CONFIGURATION = join(ROOT, 'docs', 'configuration.md');
/** The unit of docs/configuration.md whose text matches `pattern` (exactly one). */
function unitOf(pattern: RegExp): Unit {
  const matching = units(CONFIGURATION).filter((unit) => pattern.test(unit.text));
  expect(matching.map((unit) => unit.line)).toHaveLength(1);
  return matching[0] as Unit;
}
/** The identifiers among a unit's code spans (`groups`, `manage`, ...). */
const keysOf = (unit: Unit) => unit.spans.filter((span) => /^[a-z_]+$/.test(span));

describe('the documentation names every family of the registry (src/kinds/index.ts)', () => {
  const families = KINDS.map(cliName);

  it('a list of families (`--kind`, `get KIND`, the files of `export --dir`) that names three names them all', () => {
    const incomplete: string[] = [];
    let lists = 0;
    for (const unit of FILES.flatMap(units)) {
      for (const spelling of [(family: string) => family, (family: string) => `${family}.yaml`]) {
        const named = families.filter((family) => unit.spans.includes(spelling(family)));
        // Dashed names (`application-rules`): a list of the command line's, not of YAML sections.
        if (named.length < 3 || !named.some((family) => family.includes('-'))) continue;
        lists++;
        const missing = families.filter((family) => !named.includes(family)).map(spelling);
        if (missing.length > 0) incomplete.push(`${name(unit.file)}:${unit.line}: no ${missing.join(', ')}`);
      }
    }
    expect(incomplete).toEqual([]);
    expect(lists).toBeGreaterThanOrEqual(3); // export's --kind and --dir, get's KIND
  });

  it("docs/configuration.md's top-level keys are the document schema's: every section, manage, settings, variables", () => {
    const listed = keysOf(unitOf(/holds any of the top-level keys/));
    expect([...listed].sort()).toEqual(Object.keys(documentSchema.shape).sort());
    for (const kind of KINDS) expect(listed).toContain(kind.section);
  });

  it("docs/configuration.md's kinds of `manage` are its schema's; the lists that merge are the list sections", () => {
    const kinds = keysOf(unitOf(/^- The kinds are/));
    for (const section of Object.keys(manageSchema.shape)) expect(kinds).toContain(section);
    const lists = keysOf(unitOf(/^- Lists \(/));
    for (const kind of KINDS.filter((k) => !k.singleton)) expect(lists).toContain(kind.section);
  });
});

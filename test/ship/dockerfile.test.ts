/**
 * The container recipe (Dockerfile, .dockerignore), checked without a Docker daemon or a linter: no
 * daemon runs where the suite does, and hadolint has no maintained distribution on the registries
 * this project installs from (the npm package `hadolint` is a wrapper that needs the binary or
 * Docker). So the instructions are parsed here and their shape asserted: the pinned base, the stages,
 * a non-root user before the entrypoint, the entrypoint as package.json's `bin`, the emulator's port
 * the same everywhere (EXPOSE, the emulator target's CMD, the health check, docs/emulator.md), npm
 * only with the lockfile and only where the build happens. The health check's script is run against
 * a real emulator.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { startTestFirewall } from '../helpers/firewall.js';
import { testIo } from '../helpers/io.js';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');

interface Instruction {
  keyword: string;
  args: string;
  /** The stage it belongs to (its `AS` name), '' before the first FROM. */
  stage: string;
  line: number;
}

/** Dockerfile instructions: comments and blank lines dropped, `\` continuations joined. */
function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let stage = '';
  let pending: { text: string; line: number } | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (pending === undefined && (line === '' || line.startsWith('#'))) continue;
    if (pending !== undefined && line.startsWith('#')) continue; // a comment inside a continuation
    const joined =
      pending === undefined
        ? { text: line, line: index + 1 }
        : { ...pending, text: `${pending.text} ${line}` };
    if (joined.text.endsWith('\\')) {
      pending = { ...joined, text: joined.text.slice(0, -1).trimEnd() };
      continue;
    }
    pending = undefined;
    const match = /^(\S+)\s*(.*)$/.exec(joined.text);
    const keyword = (match?.[1] ?? '').toUpperCase();
    const args = match?.[2] ?? '';
    if (keyword === 'FROM') stage = /\s+AS\s+(\S+)$/i.exec(args)?.[1] ?? '';
    instructions.push({ keyword, args, stage, line: joined.line });
  }
  return instructions;
}

const DOCKERFILE = parseDockerfile(read('Dockerfile'));
const of = (keyword: string, stage?: string) =>
  DOCKERFILE.filter((i) => i.keyword === keyword && (stage === undefined || i.stage === stage));
/** The stages the image's targets are made of, `runtime` and what builds on it. */
const RUNTIME_STAGES = ['runtime', 'emulator', 'wafctl'];
/** The exec form of CMD, ENTRYPOINT, HEALTHCHECK CMD: a JSON array. */
const execForm = (args: string): string[] => JSON.parse(args.replace(/^CMD\s+/, '')) as string[];

const BASE = 'node:24-slim';
const PORT = '8080';

describe('Dockerfile', () => {
  it('parses into instructions Docker knows', () => {
    const known = new Set(
      'FROM RUN CMD LABEL EXPOSE ENV ADD COPY ENTRYPOINT VOLUME USER WORKDIR ARG ONBUILD STOPSIGNAL HEALTHCHECK SHELL'.split(
        ' ',
      ),
    );
    expect(DOCKERFILE.filter((i) => !known.has(i.keyword))).toEqual([]);
    expect(DOCKERFILE.length).toBeGreaterThan(10);
  });

  it(`is based on ${BASE}, pinned by tag, in every stage`, () => {
    expect(of('ARG', '')).toEqual([expect.objectContaining({ args: `NODE_IMAGE=${BASE}` })]);
    const froms = of('FROM').map((i) => i.args);
    const base = ['$', '{NODE_IMAGE}'].join(''); // the variable, as the Dockerfile spells it
    expect(froms).toEqual([
      `${base} AS build`,
      `${base} AS runtime`,
      'runtime AS emulator',
      'runtime AS wafctl',
    ]);
  });

  it('builds with the lockfile (npm ci) in the build stage only; the runtime installs nothing', () => {
    const runs = of('RUN');
    expect(runs.some((i) => i.stage === 'build' && /\bnpm ci\b/.test(i.args))).toBe(true);
    expect(runs.some((i) => i.stage === 'build' && /\bnpm run build\b/.test(i.args))).toBe(true);
    expect(runs.filter((i) => /\bnpm (install|i|add)\b/.test(i.args))).toEqual([]);
    expect(
      runs.filter((i) => RUNTIME_STAGES.includes(i.stage) && /\b(npm|npx|yarn|pnpm)\b/.test(i.args)),
    ).toEqual([]);
    expect(of('COPY', 'build')[0]?.args).toBe('package.json package-lock.json ./');
  });

  it('copies into the runtime only the packed package, from the build, owned by root', () => {
    const copies = DOCKERFILE.filter(
      (i) => ['COPY', 'ADD'].includes(i.keyword) && RUNTIME_STAGES.includes(i.stage),
    );
    expect(copies.map((i) => i.args)).toEqual(['--from=build --chown=root:root /opt/wafctl /opt/wafctl']);
  });

  it("runs as a user other than root, set before the entrypoint, with wafctl (package.json's bin) as the entrypoint", () => {
    const users = of('USER', 'runtime');
    expect(users.length).toBe(1);
    expect(users[0]?.args).not.toMatch(/^(root|0)(:|$)/);
    const entrypoints = of('ENTRYPOINT');
    expect(entrypoints.map((i) => [i.stage, execForm(i.args)])).toEqual([['runtime', ['wafctl']]]);
    expect(users[0]?.line ?? Infinity).toBeLessThan(entrypoints[0]?.line ?? 0);
    expect(DOCKERFILE.filter((i) => i.keyword === 'USER' && i.stage !== 'runtime')).toEqual([]);
    // `wafctl` on PATH is the file package.json's "bin" names, whatever it is.
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };
    expect(typeof pkg.bin.wafctl).toBe('string');
    const link = of('RUN', 'runtime').find((i) => i.args.includes('/usr/local/bin/wafctl'));
    expect(link?.args).toContain('require("/opt/wafctl/package.json").bin.wafctl');
    expect(link?.args).toContain('wafctl --version');
  });

  it('defaults to --help, and the emulator target serves on the exposed port with flags that exist', () => {
    expect(of('CMD', 'wafctl').map((i) => execForm(i.args))).toEqual([['--help']]);
    const emulatorCmd = execForm(of('CMD', 'emulator')[0]?.args ?? '[]');
    expect(emulatorCmd).toEqual(['emulator', '--host', '0.0.0.0', '--port', PORT]);
    expect(of('EXPOSE').map((i) => [i.stage, i.args])).toEqual([['runtime', PORT]]);
    const program = buildProgram(testIo().io, () => undefined);
    const emulator = program.commands.find((command) => command.name() === 'emulator');
    const flags = emulator?.options.map((option) => option.long) ?? [];
    expect(flags).toEqual(expect.arrayContaining(['--host', '--port']));
    // The last stage is what a plain `docker build .` makes: the CLI.
    expect(DOCKERFILE.at(-1)?.stage).toBe('wafctl');
  });

  it('has a health check that passes against a running emulator', async () => {
    const checks = of('HEALTHCHECK');
    expect(checks.length).toBe(1);
    const command = execForm(/\bCMD\s+(\[.*\])$/.exec(checks[0]?.args ?? '')?.[1] ?? '[]');
    expect(command.slice(0, 2)).toEqual(['node', '-e']);
    const script = command[2] ?? '';
    expect(script).toContain(`http://127.0.0.1:${PORT}/__emulator/stats`);
    const firewall = await startTestFirewall();
    try {
      const port = new URL(firewall.url).port;
      const code = (s: string) =>
        new Promise<number | null>((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', s], { stdio: 'ignore' });
          child.on('error', reject);
          child.on('close', resolve);
        });
      expect(await code(script.replace(`:${PORT}/`, `:${port}/`))).toBe(0);
      // ... and fails where nothing answers.
      expect(await code(script.replace(`:${PORT}/`, `:${port}/nothing/`))).toBe(1);
    } finally {
      await firewall.close();
    }
  });
});

describe('.dockerignore', () => {
  const ignored = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));

  it('keeps installed and built trees, history and local state out of the build context', () => {
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'dist', 'coverage']));
  });

  it('keeps in what the build reads', () => {
    for (const needed of [
      'package.json',
      'package-lock.json',
      'src',
      'scripts',
      'schemas',
      'tsconfig.json',
    ]) {
      expect(ignored.filter((pattern) => pattern === needed || needed.startsWith(`${pattern}/`))).toEqual([]);
    }
  });
});

describe('docs/emulator.md "As a container"', () => {
  const section = /## As a container\n([\s\S]*?)(?=\n## |$)/.exec(read('docs/emulator.md'))?.[1] ?? '';

  it('runs the emulator on the port the image exposes', () => {
    expect(section).toContain(`emulator --host 0.0.0.0 --port ${PORT}`);
    for (const mapping of section.matchAll(/(\d+):(\d+)/g)) expect(mapping[2]).toBe(PORT);
    expect(section).toMatch(/services:/);
  });
});

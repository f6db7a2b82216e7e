/**
 * The layers of src/, lowest first (docs/architecture.md). A file's layer is its first folder under
 * src/; it may import its own layer and the layers listed in `may`, nothing else. Every import counts:
 * `import`, `export ... from`, `import type`, `typeof import('...')` and the CLI's lazy
 * `await import('...')`. Neither folders nor files may import each other in a loop.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

interface Layer {
  /** The layers this one may import, besides itself. */
  may: readonly string[];
  /** Modules it must not import: the layers that do no I/O name the I/O modules here. */
  never?: readonly string[];
  why: string;
}

const NO_IO = ['node:fs', 'node:fs/promises', 'node:http', 'node:https', 'node:child_process', 'ofetch'];

// biome-ignore format: one layer a line reads as a table
const LAYERS: Record<string, Layer> = {
  core:     { may: [],                                                           never: NO_IO, why: 'what every layer shares (plan model, canonical form, globs, scope, impact vocabulary, errors, text, secrets): pure' },
  files:    { may: [],                                                                         why: 'durable writes to the local disk (fsync, rename): I/O that knows nothing of the firewall' },
  api:      { may: ['core'],                                                                   why: 'the HTTP client stands apart from the engine: it knows endpoints, not plans or files' },
  emulator: { may: ['core', 'files'],                                                          why: 'the embedded server stands apart: it shares the domain facts, never the client or the engine' },
  kinds:    { may: ['core', 'api'],                                                            why: 'one descriptor per family (its schema, key, fetch, write, impact): knows no file loading and no planner' },
  config:   { may: ['core', 'kinds'],                                                          why: 'the desired state from YAML files: its document schema is built from the registry of families' },
  plan:     { may: ['core', 'config', 'kinds'],                                  never: NO_IO, why: 'the pure planner, impact and renderers: no I/O, so tests call it with literals' },
  ops:      { may: ['core', 'files', 'api', 'config', 'kinds', 'plan'],                        why: 'refresh, apply, pull, export, get: I/O over the client and the engine' },
  library:  { may: ['core', 'files', 'api', 'config', 'kinds', 'plan', 'ops'],                 why: "wafctl as a library (import { plan, apply } from 'wafctl'): the operations with the caller's I/O, never the CLI or the emulator" },
  cli:      { may: ['core', 'files', 'api', 'emulator', 'config', 'kinds', 'plan', 'ops'],     why: 'commands: wiring, the only place that prints, exits or starts the emulator' },
  action:   { may: [],                                                                         why: 'the GitHub Action: runs the bundled CLI as a process, imports none of src/' },
};

/**
 * Subfolders that are one folder with their parent for the loop check, and why. Any other folder
 * (ops/apply, ops/pull, plan/render, ...) is a node of its own.
 */
const SAME_FOLDER: Record<string, string> = {
  'emulator/routes': 'emulator', // route handlers are registered by the router and work on its store
};

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface Import {
  specifier: string;
  line: number;
}

/** Every module specifier `code` names: static, re-exported, type-only, `import type` and dynamic. */
function importsOf(file: string, code: string): Import[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (node: ts.Node, specifier: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push({ specifier, line: line + 1 });
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      // A computed specifier cannot be checked: it is reported as such.
      add(
        node,
        argument && ts.isStringLiteralLike(argument) ? argument.text : `<computed: ${node.getText(source)}>`,
      );
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `core/model.ts` -> `core`; undefined for a file directly in src/ (it belongs to no layer). */
function layerOf(pathInSrc: string): string | undefined {
  const parts = pathInSrc.split('/');
  return parts.length > 1 ? parts[0] : undefined;
}

function folderOf(pathInSrc: string): string {
  const folder = dirname(pathInSrc);
  return SAME_FOLDER[folder] ?? folder;
}

interface Edge {
  from: string;
  to: string;
  line: number;
  specifier: string;
}

/** The imports between files of src/, as paths relative to src/ (`cli/apply.ts` -> `ops/refresh.ts`). */
function internalImports(files: ReadonlyMap<string, string>): { edges: Edge[]; broken: string[] } {
  const edges: Edge[] = [];
  const broken: string[] = [];
  for (const [from, code] of files) {
    for (const { specifier, line } of importsOf(from, code)) {
      if (specifier.startsWith('<computed')) {
        broken.push(
          `src/${from}:${line}: ${specifier}: a computed import cannot be checked against the layers`,
        );
        continue;
      }
      if (!specifier.startsWith('.')) {
        const layer = layerOf(from);
        if (layer && LAYERS[layer]?.never?.includes(specifier)) {
          broken.push(
            `src/${from}:${line}: imports '${specifier}': ${layer}/ does no I/O (${LAYERS[layer]?.why})`,
          );
        }
        continue;
      }
      const to = join(dirname(from), specifier).split(sep).join('/').replace(/\.js$/, '.ts');
      if (to.startsWith('..')) broken.push(`src/${from}:${line}: imports '${specifier}', outside src/`);
      else edges.push({ from, to, line, specifier });
    }
  }
  return { edges, broken };
}

/** One line per import against the rule table, naming the file, the import and the rule. */
function layerViolations(files: ReadonlyMap<string, string>): string[] {
  const { edges, broken } = internalImports(files);
  const found = [...broken];
  for (const path of files.keys()) {
    const layer = layerOf(path);
    if (layer === undefined || !(layer in LAYERS)) {
      found.push(`src/${path}: not in a layer folder (${Object.keys(LAYERS).join(', ')})`);
    }
  }
  for (const { from, to, line, specifier } of edges) {
    const source = layerOf(from);
    const target = layerOf(to);
    if (source === undefined || target === undefined || source === target) continue;
    const rule = LAYERS[source];
    if (rule === undefined || rule.may.includes(target)) continue;
    const allowed = rule.may.length > 0 ? rule.may.join(', ') : 'nothing outside itself';
    found.push(
      `src/${from}:${line}: imports '${specifier}' (${target}/): ${source}/ may import ${allowed} — ${rule.why}`,
    );
  }
  return found;
}

/** A graph of imports: for each node, the nodes it imports, each with one import that does it. */
type ImportGraph = Map<string, Map<string, string>>;

function addEdge(graph: ImportGraph, a: string, b: string, { from, line, specifier }: Edge): void {
  const targets = graph.get(a) ?? new Map<string, string>();
  graph.set(a, targets);
  if (!targets.has(b)) targets.set(b, `src/${from}:${line} '${specifier}'`);
}

/** Each loop of `graph`, written `a -> b -> a`, with one import that closes it. */
function cyclesOf(graph: ImportGraph): string[] {
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const [next, via] of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const loop = [...stack.slice(stack.indexOf(next)), next];
        cycles.push(`${loop.join(' -> ')} (closed by ${via})`);
      } else if (!state.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** Each loop among folders, written `a -> b -> a`, with one import that makes each step. */
function folderCycles(files: ReadonlyMap<string, string>): string[] {
  const graph: ImportGraph = new Map();
  for (const edge of internalImports(files).edges) {
    const a = folderOf(edge.from);
    const b = folderOf(edge.to);
    if (a !== b) addEdge(graph, a, b, edge);
  }
  return cyclesOf(graph);
}

/**
 * Each loop among files, written `a.ts -> b.ts -> a.ts`, with the import that closes it: every import
 * counts, `import type` too (two files that need each other are one piece, whatever the compiler
 * erases).
 */
function fileCycles(files: ReadonlyMap<string, string>): string[] {
  const graph: ImportGraph = new Map();
  for (const edge of internalImports(files).edges) addEdge(graph, edge.from, edge.to, edge);
  return cyclesOf(graph);
}

function srcFiles(): Map<string, string> {
  return new Map(
    sourceFiles(SRC).map((path) => [relative(SRC, path).split(sep).join('/'), readFileSync(path, 'utf8')]),
  );
}

describe('layers', () => {
  it('names every layer it is asked about, lowest first, each only above what it may import', () => {
    const order = Object.keys(LAYERS);
    for (const [name, layer] of Object.entries(LAYERS)) {
      for (const below of layer.may)
        expect(order.indexOf(below), `${name} -> ${below}`).toBeLessThan(order.indexOf(name));
    }
  });

  it('reads static, re-exported, type-only and dynamic imports', () => {
    const code = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const { e } = await import('../e/e.js');",
      "type F = typeof import('f');",
      'const g = await import(name);',
    ].join('\n');
    expect(importsOf('x.ts', code).map(({ specifier }) => specifier)).toEqual([
      './a.js',
      '../b/b.js',
      './c.js',
      './d.js',
      '../e/e.js',
      'f',
      '<computed: import(name)>',
    ]);
  });

  it('finds an import against the layers, and leaves allowed ones alone', () => {
    const files = new Map([
      ['kinds/groups.ts', "import { load } from '../config/load.js';\nimport { x } from '../core/model.js';"],
      ['api/http.ts', "import type { Store } from '../emulator/store.js';"],
      ['cli/plan.ts', "const { refreshAndPlan } = await import('../ops/refresh.js');"],
      [
        'plan/planner.ts',
        "import { readFile } from 'node:fs/promises';\nimport { sameJson } from '../core/canonical.js';",
      ],
      ['ops/refresh.ts', "import { run } from '../cli/main.js';"],
      ['stray.ts', ''],
    ]);
    expect(layerViolations(files).map((line) => line.split(': ')[0])).toEqual([
      'src/plan/planner.ts:1',
      'src/stray.ts',
      'src/kinds/groups.ts:1',
      'src/api/http.ts:1',
      'src/ops/refresh.ts:1',
    ]);
  });

  it('finds a loop between folders', () => {
    const files = new Map([
      ['config/a.ts', "import { b } from '../plan/b.js';"],
      ['plan/b.ts', "import { c } from './render/c.js';"],
      ['plan/render/c.ts', "import { a } from '../../config/a.js';"],
      ['emulator/server.ts', "import { routes } from './routes/index.js';"],
      ['emulator/routes/index.ts', "import { store } from '../store.js';"],
    ]);
    expect(folderCycles(files)).toEqual([
      "config -> plan -> plan/render -> config (closed by src/plan/render/c.ts:1 '../../config/a.js')",
    ]);
  });

  it('finds a loop between files, type-only imports included', () => {
    const files = new Map([
      ['cli/a.ts', "import { b } from './b.js';"],
      ['cli/b.ts', "import type { C } from '../ops/c.js';"],
      ['ops/c.ts', "import { d } from './d.js';"],
      ['ops/d.ts', "import type { C } from './c.js';"],
      ['ops/e.ts', "import { d } from './d.js';"],
    ]);
    expect(fileCycles(files)).toEqual([
      "ops/c.ts -> ops/d.ts -> ops/c.ts (closed by src/ops/d.ts:1 './c.js')",
    ]);
  });

  it('src/ imports only down the layers', () => {
    expect(layerViolations(srcFiles())).toEqual([]);
  });

  it('src/ has no loop between folders', () => {
    expect(folderCycles(srcFiles())).toEqual([]);
  });

  it('src/ has no loop between files', () => {
    expect(fileCycles(srcFiles())).toEqual([]);
  });
});

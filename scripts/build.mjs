// The bundle `npm run build` makes after tsc, and the only code the published package ships: each
// entry below becomes dist/<out>.mjs, with every dependency inlined (the installed package needs no
// node_modules to run). Code that `import()` loads lazily goes to shared chunks in dist/chunks/, so
// `wafctl --version` parses ~240 KiB instead of all 1.9 MiB. Whitespace and syntax are minified, names
// are kept (for readable stack traces: renaming them saved no time). BENCHMARKS.md ("Start-up: the
// single-file build") has the measurements behind both choices.
//
// The library (`import { plan } from 'wafctl'`, src/library/index.ts) is one more entry,
// dist/index.mjs, and its declarations are written to dist/types/ (`libraryDeclarations` below).
//
// What the bundle holds of other packages is written beside it, from esbuild's metafile
// (scripts/third-party.mjs): dist/THIRD-PARTY-NOTICES.txt (their licenses and notices) and
// dist/sbom.cdx.json (a CycloneDX SBOM). The metafile itself is kept as dist/metafile.json (it does
// not ship: the tests check those two files against it, and esbuild's bundle analyzer reads it).
//
// Options, for measuring the alternatives only: --one-file (no chunks: everything in dist/<out>.mjs),
// --minify=all|syntax|none (default syntax), --outdir=DIR (default dist).
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import ts from 'typescript';
import { addLegalComments, bundledPackages, noticesText, sbomDocument } from './third-party.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** What ships: `in` (a source file) becomes `dist/<out>.mjs`. */
const ENTRIES = [
  { in: 'src/cli/main.ts', out: 'wafctl' },
  // The GitHub Action (action.yml `runs.main`): it runs dist/wafctl.mjs beside it.
  { in: 'src/action/main.ts', out: 'action' },
  // The library: `import { validate, plan, drift, apply, exportState } from 'wafctl'` (docs/library.md).
  { in: 'src/library/index.ts', out: 'index' },
];

const option = (name, fallback) =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const split = !process.argv.includes('--one-file');
const minify = option('minify', 'syntax');
const outdir = resolve(root, option('outdir', 'dist'));

/**
 * Files read at run time relative to the module (`new URL('../../package.json', import.meta.url)`)
 * are found by the same path from src/x/ and dist/x/, but not from dist/wafctl.mjs or a chunk in
 * dist/chunks/. Each such URL becomes `new URL("<ROOT>/package.json", import.meta.url)`, and once
 * esbuild has placed the code, `<ROOT>/` becomes the way from that output file to the package root.
 * Any other use of `import.meta.url` in src/, or a target outside the package or missing, fails the
 * build, so a new one cannot break the bundle silently.
 */
const ROOT = '__WAFCTL_PACKAGE_ROOT__/';
const relocateFileUrls = {
  name: 'relocate-file-urls',
  setup(esbuild) {
    esbuild.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const errors = [];
      const contents = source.replace(
        /new URL\((['"])(\.{1,2}\/[^'"]*)\1,\s*import\.meta\.url\)/g,
        (_match, _quote, path) => {
          const target = relative(root, resolve(dirname(args.path), path))
            .split('\\')
            .join('/');
          if (target.startsWith('..') || isAbsolute(target) || !existsSync(resolve(root, target)))
            errors.push({ text: `${path}: ${target} is not a file of the package` });
          return `new URL(${JSON.stringify(ROOT + target)}, import.meta.url)`;
        },
      );
      if (/import\.meta\.url(?!\))/.test(contents.replaceAll(/new URL\("[^"]*", import\.meta\.url\)/g, '')))
        errors.push({ text: 'import.meta.url used other than as new URL(relative path, import.meta.url)' });
      return { contents, loader: 'ts', errors };
    });
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ENTRIES,
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  splitting: split,
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: minify !== 'none',
  minifySyntax: minify !== 'none',
  minifyIdentifiers: minify === 'all',
  // The licenses' comments (`/*! ... */`, `@license`) leave the code, as with 'none', but into
  // `<output>.LEGAL.txt` texts that are not written: the notices file carries them, by package.
  legalComments: 'external',
  metafile: true,
  // The `#!/usr/bin/env node` line comes from src/cli/main.ts (esbuild keeps an entry's hashbang).
  // CommonJS dependencies (commander) `require` Node's built-in modules, which an ES module has no
  // `require` for: each output file gets one.
  banner: {
    js: "import{createRequire as __wafctlCreateRequire}from'node:module';const require=__wafctlCreateRequire(import.meta.url);",
  },
  plugins: [relocateFileUrls],
  write: false,
  logLevel: 'warning',
});

const LEGAL = '.LEGAL.txt';
const code = result.outputFiles.filter((file) => !file.path.endsWith(LEGAL));
const legalTexts = result.outputFiles.filter((file) => file.path.endsWith(LEGAL)).map((file) => file.text);

rmSync(resolve(outdir, 'chunks'), { recursive: true, force: true });
for (const file of code) {
  const toRoot = relative(dirname(file.path), root).split('\\').join('/');
  const text = file.text.replaceAll(ROOT, `${toRoot}/`);
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(file.path, text);
  if (text.startsWith('#!')) chmodSync(file.path, 0o755);
}

/**
 * The library's declarations, dist/types/*.d.ts: each file of src/library/ that index.ts reaches,
 * emitted on its own (`transpileDeclaration`: every export declares its type, as
 * `isolatedDeclarations` requires, so nothing is inferred from the layers below). Whatever they
 * import must be another file of src/library/: a type of zod, yaml or of a lower layer would break a
 * consumer that installs only the package (no node_modules of ours), so the build fails on one. The
 * documents' types come from the JSON Schemas (src/library/documents.ts, scripts/library-types.mjs).
 */
function libraryDeclarations() {
  const dir = resolve(root, 'src/library');
  const emitted = new Map();
  const pending = ['index.ts'];
  const problems = [];
  while (pending.length > 0) {
    const name = pending.shift();
    const declarations = name.replace(/\.ts$/, '.d.ts');
    if (emitted.has(declarations)) continue;
    const { outputText, diagnostics } = ts.transpileDeclaration(readFileSync(resolve(dir, name), 'utf8'), {
      fileName: name,
      reportDiagnostics: true,
      compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true },
    });
    for (const diagnostic of diagnostics ?? []) {
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      problems.push(
        `src/library/${name}:${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
      );
    }
    for (const { fileName } of ts.preProcessFile(outputText, true, true).importedFiles) {
      if (/^\.\/[\w-]+\.js$/.test(fileName)) pending.push(fileName.slice(2).replace(/\.js$/, '.ts'));
      else
        problems.push(
          `src/library/${name}: its declarations import ${fileName}, which the package does not ship`,
        );
    }
    emitted.set(declarations, outputText);
  }
  if (problems.length > 0) throw new Error(`the library's declarations:\n${problems.join('\n')}`);
  const types = resolve(outdir, 'types');
  rmSync(types, { recursive: true, force: true });
  mkdirSync(types, { recursive: true });
  for (const [name, text] of emitted) writeFileSync(resolve(types, name), text);
}

/** dist/THIRD-PARTY-NOTICES.txt and dist/sbom.cdx.json (scripts/third-party.mjs), and the metafile. */
function thirdParty() {
  const product = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8'));
  const packages = bundledPackages(root, result.metafile);
  addLegalComments(packages, result.metafile, legalTexts);
  writeFileSync(resolve(outdir, 'THIRD-PARTY-NOTICES.txt'), noticesText(product, packages));
  writeFileSync(
    resolve(outdir, 'sbom.cdx.json'),
    `${JSON.stringify(sbomDocument(product, packages), null, 2)}\n`,
  );
  writeFileSync(resolve(outdir, 'metafile.json'), JSON.stringify(result.metafile));
}

thirdParty();
libraryDeclarations();

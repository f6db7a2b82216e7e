/**
 * What the package says it bundles (scripts/third-party.mjs, run by scripts/build.mjs; `npm test`
 * builds first): dist/THIRD-PARTY-NOTICES.txt and dist/sbom.cdx.json list exactly the packages whose
 * code esbuild's metafile (dist/metafile.json) shows in an output file, at the version installed in
 * node_modules, with the texts of their license files and the legal comments of their code; the SBOM
 * is valid against the official CycloneDX 1.6 JSON Schema (test/fixtures/cyclonedx); no devDependency
 * the bundle does not hold is listed. The build's refusals are tested on packages made here.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { transformSync } from 'esbuild';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a script of the repository, in JavaScript without declarations
import * as thirdParty from '../../scripts/third-party.mjs';

const { NO_LICENSE_FILE, addLegalComments, bundledPackages } = thirdParty as {
  NO_LICENSE_FILE: Record<string, { text: (manifest: Manifest) => string }>;
  addLegalComments: (packages: unknown[], metafile: Metafile, legalTexts: string[]) => void;
  bundledPackages: (root: string, metafile: Metafile) => { name: string; legal: string[] }[];
};

interface Manifest {
  name: string;
  version: string;
  license?: string;
  devDependencies?: Record<string, string>;
}
interface Metafile {
  inputs: Record<string, unknown>;
  outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}
interface Component {
  'bom-ref': string;
  group?: string;
  name: string;
  version: string;
  purl: string;
  licenses: { license?: { id: string }; expression?: string }[];
  hashes?: { alg: string; content: string }[];
}
interface Sbom {
  metadata: { component: Component };
  components: Component[];
  dependencies: { ref: string; dependsOn: string[] }[];
}

const ROOT = join(import.meta.dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(ROOT, ...path), 'utf8');
const json = <T>(...path: string[]) => JSON.parse(read(...path)) as T;

const metafile = json<Metafile>('dist', 'metafile.json');
const notices = read('dist', 'THIRD-PARTY-NOTICES.txt');
const sbom = json<Sbom>('dist', 'sbom.cdx.json');
const product = json<Manifest>('package.json');

/** The oracle: each package directory with code in an output file, and its installed package.json. */
function bundled(): Map<string, Manifest> {
  const dirs = new Map<string, Manifest>();
  for (const output of Object.values(metafile.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const parts = input.split('/');
      const at = parts.lastIndexOf('node_modules');
      if (at < 0 || bytesInOutput === 0) continue;
      const dir = parts.slice(0, at + (parts[at + 1]?.startsWith('@') ? 3 : 2)).join('/');
      dirs.set(dir, json<Manifest>(dir, 'package.json'));
    }
  return dirs;
}
const BUNDLED = bundled();
const installed = [...BUNDLED.values()].map(({ name, version }) => `${name}@${version}`).sort();

/** The notices' sections by package ("name version (license)" heads each). */
const RULE = `\n${'='.repeat(80)}\n`;
const sections = new Map(
  notices
    .split(RULE)
    .slice(1)
    .map((section) => {
      const [head = '', ...body] = section.split('\n');
      const [, name, version, license] = /^(\S+) (\S+) \((.+)\)$/.exec(head) ?? [];
      return [`${name}@${version}`, { license, body: body.join('\n') }];
    }),
);
const fullName = ({ group, name }: Component) => (group === undefined ? name : `${group}/${name}`);

/**
 * The legal comments (`/*!`, `//!`, @license, @preserve) of one bundled file, as esbuild finds them
 * in that file alone: the build gets them from the bundle, by output file, and sorts them out by input.
 * Only a file with one of those marks can hold one (the rest is not parsed: the test stays fast).
 */
function legalComments(path: string): string[] {
  const text = read(path);
  if (!/\/\*!|\/\/!|@license|@preserve/.test(text)) return [];
  const { legalComments: found = '' } = transformSync(text, { loader: 'js', legalComments: 'external' });
  return found.split(/\n(?=\/[*/])/).filter((comment) => comment.trim() !== '');
}

const LICENSE_FILE = /^(?:licen[cs]e|copying|notice)(?:[.-][\w.-]*)?$/i;
const collapsed = (text: string) => text.replace(/\s+/g, ' ').trim();

describe('the notices and the SBOM of the bundle', () => {
  it('list exactly the packages the metafile shows bundled, at the version installed in node_modules', () => {
    // The bundled libraries and what they pull in (ofetch's destr, p-limit's yocto-queue).
    expect(installed).toEqual(
      expect.arrayContaining(
        ['zod', 'destr', 'yocto-queue'].map((name) => expect.stringMatching(`^${name}@`)),
      ),
    );
    expect([...sections.keys()].sort()).toEqual(installed);
    expect(sbom.components.map((c) => `${fullName(c)}@${c.version}`).sort()).toEqual(installed);
    // The index at the top names each one too.
    for (const { name, version, license } of BUNDLED.values())
      expect(notices).toContain(`\n  ${name} ${version} (${license})\n`);
  });

  it('hold the full text of every license and notice file each package ships', () => {
    for (const [dir, manifest] of BUNDLED) {
      const section = sections.get(`${manifest.name}@${manifest.version}`);
      expect(section?.license, dir).toBe(manifest.license);
      const files = readdirSync(join(ROOT, dir)).filter((name) => LICENSE_FILE.test(name));
      // A package without one is a documented exception whose text the build writes instead.
      const expected =
        files.length > 0
          ? files.map((file) => read(dir, file))
          : [NO_LICENSE_FILE[manifest.name]?.text(manifest) ?? `${dir} has no license file`];
      for (const text of expected) {
        expect(text.trim().length, dir).toBeGreaterThan(100);
        expect(section?.body, dir).toContain(text.trimEnd());
      }
    }
  });

  it("carry the legal comments of the bundled code (/*! */, @license), in their package's notice", () => {
    const inputs = Object.values(metafile.outputs).flatMap((output) =>
      Object.entries(output.inputs).filter(
        ([input, { bytesInOutput }]) => input.includes('node_modules/') && bytesInOutput > 0,
      ),
    );
    let found = 0;
    for (const [input] of inputs) {
      const manifest = [...BUNDLED].find(([dir]) => input.startsWith(`${dir}/`))?.[1];
      const body = collapsed(sections.get(`${manifest?.name}@${manifest?.version}`)?.body ?? '');
      for (const comment of legalComments(input)) {
        found++;
        expect(body, input).toContain(collapsed(comment.replace(/^[ \t]*\*/gm, '*')));
      }
    }
    // node-fetch-native's vendored web-streams-polyfill and fetch-blob say their licenses only there.
    expect(found).toBeGreaterThan(3);
    expect(notices).toContain('web-streams-polyfill');
  });

  it('the SBOM is valid CycloneDX 1.6 (the official JSON Schema)', () => {
    const schemas = join(ROOT, 'test', 'fixtures', 'cyclonedx');
    const schema = (file: string) => JSON.parse(readFileSync(join(schemas, file), 'utf8')) as { $id: string };
    const bom = schema('bom-1.6.SNAPSHOT.schema.json');
    // No field the build writes has a `format`; draft-07's formats need a plugin ajv leaves out.
    const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
    for (const file of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json'])
      ajv.addSchema({ ...schema(file), $id: new URL(file, bom.$id).href });
    const validate = ajv.compile(bom);
    expect(validate(sbom) ? [] : validate.errors).toEqual([]);
    // The schema is real: a license that is no SPDX identifier is refused.
    const broken = structuredClone(sbom);
    broken.components[0]!.licenses = [{ license: { id: 'MIT-ish' } }];
    expect(validate(broken)).toBe(false);
  });

  it('the SBOM names each package by purl, with its declared license and its tarball hash', () => {
    const lock = json<{ packages: Record<string, { integrity: string }> }>('package-lock.json').packages;
    const byPurl = new Map(sbom.components.map((c) => [c.purl, c]));
    for (const [dir, { name, version, license }] of BUNDLED) {
      const purl = `pkg:npm/${name.replace(/^@/, '%40')}@${version}`;
      const component = byPurl.get(purl);
      expect(component?.['bom-ref'], purl).toBe(purl);
      expect(component?.licenses, purl).toEqual([{ license: { id: license, acknowledgement: 'declared' } }]);
      const sha512 = Buffer.from(lock[dir]!.integrity.replace(/^sha512-/, ''), 'base64').toString('hex');
      expect(component?.hashes, purl).toEqual([{ alg: 'SHA-512', content: sha512 }]);
    }
    expect(sbom.metadata.component).toMatchObject({
      name: product.name,
      version: product.version,
      purl: `pkg:npm/${product.name}@${product.version}`,
      licenses: [{ license: { id: product.license } }],
    });
  });

  it("the SBOM's dependency graph names only its components, and each once", () => {
    const refs = [sbom.metadata.component, ...sbom.components].map((c) => c['bom-ref']);
    expect(new Set(refs).size).toBe(refs.length);
    expect(sbom.dependencies.map((d) => d.ref).sort()).toEqual([...refs].sort());
    for (const { dependsOn } of sbom.dependencies) for (const ref of dependsOn) expect(refs).toContain(ref);
    // What wafctl itself uses, and what a package pulls in.
    const graph = new Map(sbom.dependencies.map((d) => [d.ref, d.dependsOn]));
    expect(graph.get(sbom.metadata.component['bom-ref'])).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^pkg:npm\/zod@/),
        expect.stringMatching(/^pkg:npm\/ofetch@/),
      ]),
    );
    const pLimit = sbom.components.find((c) => c.name === 'p-limit')!;
    expect(graph.get(pLimit['bom-ref'])).toEqual([expect.stringMatching(/^pkg:npm\/yocto-queue@/)]);
  });

  it('list no devDependency that the bundle does not hold (the test and build tools)', () => {
    const bundledNames = new Set([...BUNDLED.values()].map((m) => m.name));
    const toolsOnly = Object.keys(product.devDependencies ?? {}).filter((name) => !bundledNames.has(name));
    expect(toolsOnly).toEqual(expect.arrayContaining(['vitest', 'nock', '@biomejs/biome', 'esbuild', 'ajv']));
    const listed = new Set([
      ...sections.keys(),
      ...sbom.components.map((c) => `${fullName(c)}@${c.version}`),
    ]);
    for (const name of toolsOnly)
      expect([...listed].filter((entry) => entry.startsWith(`${name}@`))).toEqual([]);
  });
});

describe('the build refuses a bundled package it cannot account for', () => {
  let root = '';
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A project with one package `name` in node_modules (with `files`), bundled by a 10-byte input. */
  async function project(name: string, manifest: Record<string, unknown>, files: Record<string, string>) {
    root = mkdtempSync(join(tmpdir(), 'wafctl-third-party-'));
    const dir = join(root, 'node_modules', name);
    await mkdir(dir, { recursive: true });
    const version = '1.0.0';
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, version, ...manifest }));
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    const lock = { packages: { [`node_modules/${name}`]: { version, integrity: 'sha512-AAAA' } } };
    writeFileSync(join(root, 'package-lock.json'), JSON.stringify(lock));
    const input = `node_modules/${name}/index.js`;
    return {
      inputs: { [input]: {} },
      outputs: { 'dist/x.mjs': { inputs: { [input]: { bytesInOutput: 10 } } } },
    };
  }

  it('with no license file', async () => {
    const meta = await project('no-notice', { license: 'MIT' }, {});
    expect(() => bundledPackages(root, meta)).toThrow(
      /^no-notice@1\.0\.0 \(node_modules\/no-notice\) ships no LICENSE, LICENCE, COPYING or NOTICE file/,
    );
    // The same package with one is accounted for.
    writeFileSync(join(root, 'node_modules', 'no-notice', 'LICENSE.md'), 'MIT License\n');
    expect(bundledPackages(root, meta).map((p) => p.name)).toEqual(['no-notice']);
  });

  it('with no SPDX license in its package.json', async () => {
    const meta = await project('custom', { license: 'SEE LICENSE IN terms.txt' }, { LICENSE: 'terms' });
    expect(() => bundledPackages(root, meta)).toThrow(
      /node_modules\/custom\/package\.json declares no SPDX license/,
    );
  });

  it('at a version the lockfile does not pin', async () => {
    const meta = await project('drifted', { license: 'MIT' }, { LICENSE: 'MIT License' });
    writeFileSync(join(root, 'package-lock.json'), '{"packages":{}}');
    expect(() => bundledPackages(root, meta)).toThrow(/package-lock\.json has no such package: run npm ci/);
  });

  it('whose documented exception is stale (it ships a license file now)', async () => {
    const [name = ''] = Object.keys(NO_LICENSE_FILE);
    const meta = await project(name, { license: 'MIT', author: 'Someone' }, { LICENSE: 'MIT License' });
    expect(() => bundledPackages(root, meta)).toThrow(
      /its NO_LICENSE_FILE entry in scripts\/third-party\.mjs is stale/,
    );
  });

  it('not when only tree-shaken files of it are in the bundle', async () => {
    const meta = await project('shaken', {}, {});
    for (const output of Object.values(meta.outputs))
      for (const input of Object.values(output.inputs)) input.bytesInOutput = 0;
    expect(bundledPackages(root, meta)).toEqual([]);
  });

  it("with a legal comment esbuild's notes put where no bundled package is", async () => {
    const meta = await project('noted', { license: 'MIT' }, { LICENSE: 'MIT License' });
    const packages = bundledPackages(root, meta);
    addLegalComments(packages, meta, ['Bundled license information:\n\nnoted/index.js:\n  /*! noted */\n']);
    expect(packages[0]?.legal).toEqual(['/*! noted */']);
    expect(() =>
      addLegalComments(packages, meta, ['Bundled license information:\n\nsrc/cli/main.ts:\n  /*! ours */\n']),
    ).toThrow(/name src\/cli\/main\.ts, which is no file of a bundled package/);
    expect(() =>
      addLegalComments(packages, meta, ['Bundled license information:\n\n/*! unattributed */\n']),
    ).toThrow(/a line of unknown shape/);
  });
});

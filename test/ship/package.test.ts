/**
 * What package.json ships (npm packs the file as it is): no script that npm runs when the package is
 * installed, the build at pack time instead, and the package proof (scripts/pack-proof.sh, run by
 * .ci/run after the suite) checking the packed file and the install's warnings. The proof itself
 * packs, installs and runs the tarball; it is not run here (it needs the build and takes seconds).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const manifest = JSON.parse(read('package.json')) as {
  scripts: Record<string, string>;
  dependencies?: Record<string, string>;
  bin: Record<string, string>;
  exports: Record<string, unknown>;
  types: string;
  files: string[];
};

/** The scripts npm runs when it installs a package (and warns about, npm 11: "install scripts"). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];

describe('package.json', () => {
  it('has no install script: installing wafctl runs nothing and needs no dev tools', () => {
    expect(INSTALL_SCRIPTS.filter((name) => name in manifest.scripts)).toEqual([]);
    // npm also runs `node-gyp rebuild` for a package with a binding.gyp: none ships (pack-proof.sh
    // fails on any file outside the bundle, the schemas and the README).
  });

  it('builds the bundle when packed (prepack), so npm pack and npm publish ship a fresh one', () => {
    expect(manifest.scripts.prepack).toBe('npm run build');
    // The commands a clone runs build first themselves: `npm install` no longer does.
    for (const script of ['test', 'demo', 'coverage', 'schema', 'bench'])
      expect(manifest.scripts[script], script).toMatch(/^npm run build && /);
  });

  it('depends on nothing at run time: the bundle inlines every library', () => {
    expect(manifest.dependencies).toBeUndefined();
    expect(manifest.bin).toEqual({ wafctl: 'dist/wafctl.mjs' });
  });

  it('exports the library (docs/library.md): the bundle and its declarations, which ship', () => {
    expect(manifest.exports['.']).toEqual({ types: './dist/types/index.d.ts', import: './dist/index.mjs' });
    expect(manifest.types).toBe('./dist/types/index.d.ts');
    expect(manifest.files).toEqual(expect.arrayContaining(['dist/index.mjs', 'dist/types/']));
    // The declarations are generated with the build (scripts/build.mjs), and the document types in
    // them with the JSON Schemas (`npm run schema`).
    expect(read('scripts/build.mjs')).toContain("{ in: 'src/library/index.ts', out: 'index' }");
    expect(manifest.scripts.schema).toMatch(/node scripts\/library-types\.mjs$/);
  });

  it('the package proof runs the installed library and type-checks a consumer of its declarations', () => {
    const proof = read('scripts/pack-proof.sh');
    expect(proof).toMatch(/dist\/index\\\.mjs\|dist\/types\//);
    expect(proof).toContain('node "$repo/scripts/pack-proof-library.mjs" "$repo"');
    const library = read('scripts/pack-proof-library.mjs');
    expect(library).toContain("from 'wafctl'");
    expect(library).toContain('skipLibCheck: false');
    expect(library).toContain('types: []'); // no @types of any kind: only the tarball's declarations
    expect(library).toContain('@ts-expect-error'); // declarations that were `any` would fail the check
  });

  it('ships what says which packages the bundle holds: their notices and an SBOM (third-party.test.ts)', () => {
    const files = ['dist/THIRD-PARTY-NOTICES.txt', 'dist/sbom.cdx.json'];
    expect(manifest.files).toEqual(expect.arrayContaining(files));
    const proof = read('scripts/pack-proof.sh');
    expect(proof).toContain(`third_party=(${files.join(' ')})`);
    expect(proof).toContain('dist/THIRD-PARTY-NOTICES\\.txt|dist/sbom\\.cdx\\.json'); // allowed to ship
    expect(proof).toContain('grep -qx "package/$file" <<<"$shipped" || fail "the tarball lacks $file"');
    // The metafile they are made from stays in dist/: it is no file of the package.
    expect(manifest.files.filter((file) => file.includes('metafile'))).toEqual([]);
  });

  it('the package proof checks the packed package.json and the warnings of an offline install', () => {
    const proof = read('scripts/pack-proof.sh');
    expect(proof).toContain('tar -xzOf "$work/$tarball" package/package.json');
    for (const name of INSTALL_SCRIPTS) expect(proof).toContain(`"${name}"`);
    expect(proof).toMatch(/npm install --offline [^\n]*2>"\$work\/install\.err"/);
    expect(proof).toContain(`grep -qi 'install.script' "$work/install.err"`);
    expect(proof).not.toContain('--loglevel=error'); // the warnings must show
    expect(read('.ci/run')).toMatch(/^scripts\/pack-proof\.sh$/m);
  });
});

// What the bundle holds of other people's code, said where a consumer and their tools look for it.
// The bundle (scripts/build.mjs) inlines its libraries and the package declares no `dependencies`,
// so npm audit and every tool that reads package.json see none of them; and their licenses (MIT,
// BSD, ISC...) require their notices to travel with every copy. From esbuild's metafile (the input
// files each output file holds), the build writes beside the bundle:
//
// - dist/THIRD-PARTY-NOTICES.txt: each package whose code is in an output file (dist/wafctl.mjs,
//   dist/index.mjs, dist/action.mjs, dist/chunks/*), with its version, the license its package.json
//   declares, the full text of each license or notice file it ships, and the legal comments of its
//   bundled code (`/*! ... */`, `@license`: esbuild moves them out of the code, and they name code
//   vendored inside a package, such as node-fetch-native's web-streams-polyfill, that its license
//   file does not);
// - dist/sbom.cdx.json: the same packages as a CycloneDX 1.6 SBOM (name, version, purl, declared
//   license, the SHA-512 of the registry's tarball from package-lock.json, which package pulls in
//   which), wafctl itself as `metadata.component`: what SBOM tools, license checkers and
//   vulnerability scanners (`trivy sbom`, Grype, Dependency-Track) read.
//
// The SBOM is built by hand rather than with @cyclonedx/cyclonedx-library: it is one fixed document
// of a dozen fields, and the library (a model of the whole specification, XML included, plus the
// packageurl-js it wants for purls) would be one more devDependency for what `JSON.stringify` does.
// What keeps it right is test/ship/third-party.test.ts, which validates it against the official
// CycloneDX JSON Schema (vendored in test/fixtures/cyclonedx/).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';

/** A license or notice file, as packages name them: LICENSE, LICENCE.md, LICENSE-MIT, COPYING, NOTICE. */
const LICENSE_FILE = /^(?:licen[cs]e|copying|notice)(?:[.-][\w.-]*)?$/i;
/** Past this a "license file" is something else: the build refuses it rather than ship it as one. */
const MAX_LICENSE_BYTES = 256 * 1024;

/** The MIT License's text (spdx.org/licenses/MIT), for the packages below that declare it without it. */
const mitLicense = (holder) => `MIT License

Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
`;

/**
 * The packages that ship no license file, each looked at by hand, and what their notice holds
 * instead. Any other package without one fails the build; so does one of these that now ships a
 * license file or declares another license (its entry here is then stale: remove or redo it).
 */
export const NO_LICENSE_FILE = {
  // Neither the package nor its repository (bombshell-dev/tab) has a license file; its package.json
  // declares MIT and names the author, who is the copyright holder of the MIT License's text.
  '@bomb.sh/tab': {
    license: 'MIT',
    note: 'the MIT License it declares, its package.json author as the copyright holder',
    text: (manifest) => mitLicense(author(manifest)),
  },
};

function author(manifest) {
  const { author: who } = manifest;
  if (typeof who === 'string' && who.trim() !== '') return who.trim();
  if (typeof who?.name === 'string') return [who.name, who.url && `(${who.url})`].filter(Boolean).join(' ');
  throw new Error(`${manifest.name}: package.json names no author to hold the copyright`);
}

/**
 * The package directories (`node_modules/x`, `node_modules/@s/x`, `node_modules/a/node_modules/x`)
 * with code in at least one output file: an input that tree shaking emptied (`bytesInOutput` 0)
 * copies nothing of its package.
 */
function bundledDirectories(metafile) {
  const dirs = new Set();
  for (const output of Object.values(metafile.outputs))
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const dir = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
      if (dir !== undefined && bytesInOutput > 0) dirs.add(dir);
    }
  return [...dirs].sort();
}

/** The license and notice files of the package in `dir` (under `root`), read whole; one at least. */
function licenseTexts(root, dir, manifest) {
  const files = readdirSync(resolve(root, dir))
    .filter((name) => LICENSE_FILE.test(name) && statSync(resolve(root, dir, name)).isFile())
    .sort();
  const fallback = NO_LICENSE_FILE[manifest.name];
  if (fallback !== undefined) {
    if (files.length > 0 || fallback.license !== manifest.license)
      throw new Error(
        `${manifest.name} ships ${files.join(', ') || 'no license file'} and declares ${manifest.license}: its NO_LICENSE_FILE entry in scripts/third-party.mjs is stale`,
      );
    return [
      {
        file: `no license file in the package: ${fallback.note} (scripts/third-party.mjs)`,
        text: fallback.text(manifest),
      },
    ];
  }
  if (files.length === 0)
    throw new Error(
      `${manifest.name}@${manifest.version} (${dir}) ships no LICENSE, LICENCE, COPYING or NOTICE file: its notice cannot ship with the bundle (see NO_LICENSE_FILE in scripts/third-party.mjs)`,
    );
  return files.map((file) => {
    const path = resolve(root, dir, file);
    if (statSync(path).size > MAX_LICENSE_BYTES)
      throw new Error(`${dir}/${file} is over ${MAX_LICENSE_BYTES} bytes: not a license file`);
    return { file, text: readFileSync(path, 'utf8') };
  });
}

/** `license` of package.json: an SPDX expression; the legacy forms and "SEE LICENSE IN" are refused. */
function declaredLicense(manifest, dir) {
  const { license } = manifest;
  if (
    typeof license !== 'string' ||
    license.trim() === '' ||
    /^(UNLICENSED|SEE LICEN[CS]E IN)/i.test(license)
  )
    throw new Error(`${dir}/package.json declares no SPDX license (license: ${JSON.stringify(license)})`);
  return license.trim();
}

/** package-lock.json's `integrity` ("sha512-<base64> ...") as CycloneDX hashes. */
function hashes(integrity = '') {
  const algorithms = { sha512: 'SHA-512', sha384: 'SHA-384', sha256: 'SHA-256' };
  return integrity
    .split(/\s+/)
    .map((token) => /^(sha\d+)-(.+)$/.exec(token))
    .filter((match) => match !== null && match[1] in algorithms)
    .map(([, alg, base64]) => ({
      alg: algorithms[alg],
      content: Buffer.from(base64, 'base64').toString('hex'),
    }));
}

/**
 * Each bundled package: what node_modules holds, checked against package-lock.json (a package the
 * lockfile does not pin, or pins at another version, is an install that `npm ci` did not make).
 */
export function bundledPackages(root, metafile) {
  const lock = JSON.parse(readFileSync(resolve(root, 'package-lock.json'), 'utf8')).packages ?? {};
  return bundledDirectories(metafile).map((dir) => {
    const manifest = JSON.parse(readFileSync(resolve(root, dir, 'package.json'), 'utf8'));
    const locked = lock[dir];
    if (locked?.version !== manifest.version)
      throw new Error(
        `${dir} is ${manifest.name}@${manifest.version}, package-lock.json has ${locked?.version ?? 'no such package'}: run npm ci`,
      );
    return {
      dir,
      name: manifest.name,
      version: manifest.version,
      license: declaredLicense(manifest, dir),
      texts: licenseTexts(root, dir, manifest),
      hashes: hashes(locked.integrity),
      requires: Object.keys({
        ...manifest.dependencies,
        ...manifest.optionalDependencies,
        ...manifest.peerDependencies,
      }),
      legal: [],
    };
  });
}

/**
 * esbuild's legal comments (`legalComments: 'external'`: one `<output>.LEGAL.txt` per output file,
 * "Bundled license information:", then each input file's path, its node_modules/ left off, a colon,
 * and its comments indented by two spaces), added to the package of each input file. A line of
 * another shape, or a path that is no bundled package's file, fails the build rather than lose one.
 */
export function addLegalComments(packages, metafile, legalTexts) {
  const inputs = Object.keys(metafile.inputs);
  for (const text of legalTexts) {
    let target;
    for (const line of text.split('\n').slice(1)) {
      if (line === '') continue;
      if (line.startsWith('  ') && target !== undefined) target.lines.push(line.slice(2));
      else if (line.endsWith(':') && !line.startsWith(' '))
        target = legalTarget(packages, inputs, line.slice(0, -1));
      else throw new Error(`esbuild's legal comments: a line of unknown shape: ${JSON.stringify(line)}`);
    }
  }
  for (const pkg of packages)
    pkg.legal = [...new Set(pkg.legal.map(({ lines }) => lines.join('\n').trimEnd()))];
}

function legalTarget(packages, inputs, path) {
  const input = inputs.find(
    (name) => name === `node_modules/${path}` || name.endsWith(`/node_modules/${path}`),
  );
  const pkg = packages.find(({ dir }) => input?.startsWith(`${dir}/`));
  if (pkg === undefined)
    throw new Error(`esbuild's legal comments name ${path}, which is no file of a bundled package`);
  const block = { lines: [] };
  pkg.legal.push(block);
  return block;
}

const RULE = '='.repeat(80);

/** dist/THIRD-PARTY-NOTICES.txt: an index, then each package with its license texts and notices. */
export function noticesText(product, packages) {
  const head = [
    `Third-party software in ${product.name} ${product.version}`,
    '',
    `The bundle of ${product.name} holds code of the packages below: dist/wafctl.mjs (the CLI),`,
    'dist/index.mjs (the library), dist/action.mjs (the GitHub Action, in its releases) and the chunks',
    'of dist/chunks/ they share. Each is listed with its version, the license its package.json',
    'declares, the text of each license or notice file it ships, and the legal comments found in its',
    'bundled code. dist/sbom.cdx.json lists the same packages as a CycloneDX SBOM. The license of',
    `${product.name} itself is the file LICENSE at the root of the package.`,
    '',
    ...packages.map(({ name, version, license }) => `  ${name} ${version} (${license})`),
  ];
  const sections = packages.map((pkg) =>
    [
      RULE,
      `${pkg.name} ${pkg.version} (${pkg.license})`,
      ...pkg.texts.flatMap(({ file, text }) => ['', `--- ${file}`, '', text.trimEnd()]),
      ...(pkg.legal.length > 0
        ? ['', '--- legal comments in its bundled code', '', pkg.legal.join('\n\n')]
        : []),
    ].join('\n'),
  );
  return `${[head.join('\n'), ...sections].join('\n\n')}\n`;
}

/** `pkg:npm/<name>@<version>`, the scope's `@` percent-encoded as the purl specification says. */
const purl = (name, version) =>
  `pkg:npm/${name.split('/').map(encodeURIComponent).join('/')}@${encodeURIComponent(version)}`;

/** CycloneDX's license choice: one SPDX identifier as `id`, anything else as an `expression`. */
const licenses = (license) =>
  /^[A-Za-z0-9.-]+$/.test(license) && !license.startsWith('LicenseRef-')
    ? [{ license: { id: license, acknowledgement: 'declared' } }]
    : [{ expression: license, acknowledgement: 'declared' }];

/** npm's scope as CycloneDX's `group` (as cyclonedx-npm writes it): @bomb.sh/tab is group @bomb.sh, name tab. */
function component(type, name, version, license) {
  const slash = name.startsWith('@') ? name.indexOf('/') : -1;
  return {
    type,
    'bom-ref': purl(name, version),
    ...(slash > 0 ? { group: name.slice(0, slash), name: name.slice(slash + 1) } : { name }),
    version,
    purl: purl(name, version),
    licenses: licenses(license),
  };
}

/**
 * The bundled package that `name`, required from the package in `from` ('' for the root), is: Node's
 * lookup, `<dir>/node_modules/<name>` for that package's directory and each one above it.
 */
function resolved(byDir, from, name) {
  const parts = from === '' ? [] : from.split('/');
  for (let end = parts.length; end >= 0; end--) {
    const parent = parts[end - 1];
    if (parent === 'node_modules' || parent?.startsWith('@')) continue;
    const found = byDir.get([...parts.slice(0, end), 'node_modules', name].join('/'));
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * dist/sbom.cdx.json. No serialNumber nor timestamp: the same tree builds the same bytes (the release
 * checksums them), and the version of wafctl in metadata.component says which build it describes.
 */
export function sbomDocument(product, packages) {
  const byDir = new Map(packages.map((pkg) => [pkg.dir, pkg]));
  const dependsOn = (from, names) => [
    ...new Set(
      names
        .map((name) => resolved(byDir, from, name))
        .filter(Boolean)
        .map((p) => purl(p.name, p.version)),
    ),
  ];
  const root = component('application', product.name, product.version, product.license);
  const direct = Object.keys({ ...product.dependencies, ...product.devDependencies });
  return {
    $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json',
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    version: 1,
    metadata: { component: root },
    components: packages.map((pkg) => ({
      ...component('library', pkg.name, pkg.version, pkg.license),
      ...(pkg.hashes.length > 0 ? { hashes: pkg.hashes } : {}),
    })),
    dependencies: [
      { ref: root['bom-ref'], dependsOn: dependsOn('', direct) },
      ...packages.map((pkg) => ({
        ref: purl(pkg.name, pkg.version),
        dependsOn: dependsOn(pkg.dir, pkg.requires),
      })),
    ],
  };
}

#!/usr/bin/env bash
# Proof that the published package runs: pack the built tree (run `npm run build` first; .ci/run runs
# this after `npm test`), install the tarball into an empty directory with no network, and run the
# installed `wafctl`: `--version`, then a plan of examples/config/ on the embedded emulator; then the
# library (`import { plan } from 'wafctl'`, scripts/pack-proof-library.mjs): run against an emulator
# the installed CLI serves, its documents equal to the CLI's `--format json`, and its declarations
# type-checked by a strict TypeScript consumer that has nothing installed but the tarball. The
# bundle inlines every dependency, so the install must bring wafctl and nothing else, and the tarball
# must say what the bundle holds (dist/THIRD-PARTY-NOTICES.txt, dist/sbom.cdx.json); and the package
# has no install script (`preinstall`, `install`, `postinstall`, `prepare`: npm warns about them, and
# a security tool that runs code when installed is one more thing to audit), so installing it runs
# nothing and prints no warning.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/wafctl-pack-proof.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "pack-proof: $*" >&2
  exit 1
}

cd "$repo"
# What the bundle holds of other packages, said for their licenses and for a consumer's scanners.
third_party=(dist/THIRD-PARTY-NOTICES.txt dist/sbom.cdx.json)
for built in dist/wafctl.mjs dist/index.mjs dist/types/index.d.ts "${third_party[@]}"; do
  [[ -f "$built" ]] || fail "$built is missing: run npm run build first"
done
version="$(node -p 'require("./package.json").version')"

# --ignore-scripts: `prepack` would build again; the tree was just built.
tarball="$(npm pack --ignore-scripts --silent --pack-destination "$work")"
echo "pack-proof: $tarball, $(du -k "$work/$tarball" | cut -f1) KiB"
shipped="$(tar -tzf "$work/$tarball")"
echo "pack-proof: $(wc -l <<<"$shipped") files"
if grep -Ev '^package/(package\.json|README\.md|LICENSE|dist/wafctl\.mjs|dist/index\.mjs|dist/types/[^/]+\.d\.ts|dist/chunks/[^/]+\.mjs|dist/THIRD-PARTY-NOTICES\.txt|dist/sbom\.cdx\.json|schemas/[^/]+\.json)$' <<<"$shipped"; then
  fail "the files above should not ship"
fi
for file in "${third_party[@]}"; do
  grep -qx "package/$file" <<<"$shipped" || fail "the tarball lacks $file"
done
echo "pack-proof: the tarball has ${third_party[*]}"

# The package.json that ships: no script that npm runs when the package is installed.
install_scripts="$(tar -xzOf "$work/$tarball" package/package.json | node -e '
  const { scripts = {} } = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
  const run = ["preinstall", "install", "postinstall", "prepare"].filter((name) => name in scripts);
  console.log(run.map((name) => `${name}: ${scripts[name]}`).join(", "));
')"
[[ -z "$install_scripts" ]] || fail "the packed package.json has install scripts: $install_scripts"
echo "pack-proof: no install script in the packed package.json"

mkdir "$work/app"
cd "$work/app"
echo '{"name":"pack-proof","private":true}' >package.json
# At npm's default log level, so that its warnings show; npm 11 warns about a dependency's install
# scripts ("install scripts not yet covered by allowScripts"), older npm runs them silently.
npm install --offline --no-audit --no-fund "$work/$tarball" 2>"$work/install.err" >/dev/null ||
  { cat "$work/install.err" >&2; fail "npm install of the tarball failed"; }
cat "$work/install.err" >&2
if grep -qi 'install.script' "$work/install.err"; then
  fail "installing the tarball warned about an install script (above)"
fi
installed="$(cd node_modules && find . -mindepth 1 -maxdepth 2 -name package.json -printf '%h\n' | sort | tr '\n' ' ')"
[[ "$installed" == "./wafctl " ]] || fail "the install brought more than wafctl: $installed"

printed="$(npx --offline --no -- wafctl --version)"
[[ "$printed" == "$version" ]] || fail "wafctl --version printed '$printed', expected '$version'"
echo "pack-proof: wafctl --version: $printed"

plan="$(npx --offline --no -- wafctl plan --url embedded "$repo/examples/config")" || fail "wafctl plan exited $?"
grep -q '^Plan: [0-9]* to add' <<<"$plan" || fail "wafctl plan printed no plan: $plan"
echo "pack-proof: wafctl plan --url embedded examples/config: $(grep '^Plan: ' <<<"$plan")"

# The library, from the installed package alone (the check above: node_modules holds wafctl only).
node "$repo/scripts/pack-proof-library.mjs" "$repo" "$repo/examples/config" ||
  fail "the library's proof failed (above)"

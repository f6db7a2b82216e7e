#!/usr/bin/env bash
# Proof that the published package runs: pack the built tree (run `npm run build` first; .ci/run runs
# this after `npm test`), install the tarball into an empty directory with no network, and run the
# installed `wafctl`: `--version`, then a plan of examples/config/ on the embedded emulator. The
# bundle inlines every dependency, so the install must bring wafctl and nothing else.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/wafctl-pack-proof.XXXXXX")"
trap 'rm -rf "$work"' EXIT

fail() {
  echo "pack-proof: $*" >&2
  exit 1
}

cd "$repo"
[[ -f dist/wafctl.mjs ]] || fail "dist/wafctl.mjs is missing: run npm run build first"
version="$(node -p 'require("./package.json").version')"

# --ignore-scripts: `prepare` would build again; the tree was just built.
tarball="$(npm pack --ignore-scripts --silent --pack-destination "$work")"
echo "pack-proof: $tarball, $(du -k "$work/$tarball" | cut -f1) KiB"
shipped="$(tar -tzf "$work/$tarball")"
echo "pack-proof: $(wc -l <<<"$shipped") files"
if grep -Ev '^package/(package\.json|README\.md|LICENSE|dist/wafctl\.mjs|dist/chunks/[^/]+\.mjs|schemas/[^/]+\.json)$' <<<"$shipped"; then
  fail "the files above should not ship"
fi

mkdir "$work/app"
cd "$work/app"
echo '{"name":"pack-proof","private":true}' >package.json
npm install --offline --no-audit --no-fund --loglevel=error "$work/$tarball"
installed="$(cd node_modules && find . -mindepth 1 -maxdepth 2 -name package.json -printf '%h\n' | sort | tr '\n' ' ')"
[[ "$installed" == "./wafctl " ]] || fail "the install brought more than wafctl: $installed"

printed="$(npx --offline --no -- wafctl --version)"
[[ "$printed" == "$version" ]] || fail "wafctl --version printed '$printed', expected '$version'"
echo "pack-proof: wafctl --version: $printed"

plan="$(npx --offline --no -- wafctl plan --url embedded "$repo/examples/config")" || fail "wafctl plan exited $?"
grep -q '^Plan: [0-9]* to add' <<<"$plan" || fail "wafctl plan printed no plan: $plan"
echo "pack-proof: wafctl plan --url embedded examples/config: $(grep '^Plan: ' <<<"$plan")"

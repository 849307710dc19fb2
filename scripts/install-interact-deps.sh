#!/usr/bin/env bash
# Installs what the local service's browser sessions and interact need, idempotently:
#   - Chromium from Debian's packages (never a browser downloaded by a tool),
#   - Playwright for Python (the library only: `playwright install` is never run),
#   - the agent-browser CLI (its npm package ships the native binary; its postinstall
#     only marks it executable, and it is always pointed at our Chromium with --cdp).
# Safe to run again: each step is skipped when already satisfied.
set -euo pipefail

AGENT_BROWSER_VERSION="${AGENT_BROWSER_VERSION:-0.41.2}"
AGENT_BROWSER_HOME="${AGENT_BROWSER_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/webdata-temporal/agent-browser}"
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# 1. Chromium
if [ -n "${CHROMIUM_PATH:-}" ] && [ -x "${CHROMIUM_PATH}" ]; then
  echo "chromium: using CHROMIUM_PATH=${CHROMIUM_PATH}"
elif command -v chromium >/dev/null 2>&1; then
  echo "chromium: $(command -v chromium) present"
else
  echo "chromium: installing Debian package"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends chromium fonts-liberation
fi

# 2. Playwright for Python (connects over CDP to our Chromium; no browser download)
PY="${PYTHON:-python3}"
if "$PY" -c 'import playwright.sync_api' >/dev/null 2>&1; then
  echo "python playwright: present"
else
  echo "python playwright: installing from PyPI"
  "$PY" -m pip --version >/dev/null 2>&1 || "$PY" -m ensurepip --upgrade >/dev/null 2>&1 || {
    as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends python3-pip
  }
  # Debian's own python3 is "externally managed" (PEP 668): fall back to a system-wide opt-in.
  "$PY" -m pip install --quiet --disable-pip-version-check playwright \
    || "$PY" -m pip install --quiet --disable-pip-version-check --break-system-packages playwright
fi

# 3. agent-browser CLI, in its own prefix so the workspace lockfile stays small
AB_BIN="$AGENT_BROWSER_HOME/node_modules/.bin/agent-browser"
if [ -x "$AB_BIN" ] && "$AB_BIN" --version 2>/dev/null | grep -q "$AGENT_BROWSER_VERSION"; then
  echo "agent-browser: $AGENT_BROWSER_VERSION present in $AGENT_BROWSER_HOME"
else
  echo "agent-browser: installing $AGENT_BROWSER_VERSION into $AGENT_BROWSER_HOME"
  mkdir -p "$AGENT_BROWSER_HOME"
  npm install --prefix "$AGENT_BROWSER_HOME" --no-audit --no-fund --no-save --loglevel=error \
    "agent-browser@$AGENT_BROWSER_VERSION"
  # The package ships one binary per platform; make sure ours is executable.
  chmod +x "$AGENT_BROWSER_HOME"/node_modules/agent-browser/bin/agent-browser-linux-* 2>/dev/null || true
fi
echo "install-interact-deps: done"

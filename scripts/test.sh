#!/usr/bin/env bash
# Install everything the test suite needs on a fresh machine (Python 3.11, pip, apt), then run it all:
# lint, types, the analyzer/CLI/runner tests, the dashboard through AppTest and in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "== installing Debian's chromium for the browser tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# The history's store tests start a throwaway PostgreSQL server of their own (tests/postgres_kit.py).
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  echo "== installing Debian's postgresql for the history store tests"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  python3 -m venv .venv
fi
echo "== installing rerunlens with its dev, semantic and harness extras"
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[dev,semantic,harness]'

# promptfoo for the wrap tests, into a project-local folder (never globally); pinned to a release
# that runs on Node 20.
PROMPTFOO_VERSION=0.121.20
if [ ! -x .cache/promptfoo/node_modules/.bin/promptfoo ] || \
   ! grep -q "\"version\": \"$PROMPTFOO_VERSION\"" .cache/promptfoo/node_modules/promptfoo/package.json; then
  echo "== installing promptfoo $PROMPTFOO_VERSION into .cache/promptfoo"
  npm install --prefix .cache/promptfoo --no-audit --no-fund --silent "promptfoo@$PROMPTFOO_VERSION"
fi

echo "== ruff"
.venv/bin/ruff check analyzer app tests scripts examples
.venv/bin/ruff format --check analyzer app tests scripts examples

echo "== mypy (analyzer/, app/ and scripts/, settings in pyproject.toml)"
.venv/bin/mypy

echo "== pytest"
set +e
.venv/bin/python -m pytest "$@"
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "pytest collected no tests: that is a failure, not a pass" >&2
  exit 1
fi
exit "$rc"

#!/usr/bin/env bash
# The e2e step of CI: each real agent CLI, at its pinned version, driven by
# `cursor-stream run` against the scripted mock, offline (tests/e2e_run.rs).
# Skips (status 0) when the npm registry cannot be reached or `unshare -n` does not work.
# The CLIs (~1.6 GB) are cached outside the clone, so that CI's fresh clones reuse them:
# $CURSOR_STREAM_E2E_NPM, by default ~/.cache/cursor-stream-e2e; a rerun installs nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CURSOR_STREAM_E2E_NPM="${CURSOR_STREAM_E2E_NPM:-${XDG_CACHE_HOME:-$HOME/.cache}/cursor-stream-e2e}"

skip() { echo "skipped: e2e with the real agent CLIs: $*"; exit 0; }
command -v python3 >/dev/null || skip "python3 is missing"
command -v npm >/dev/null || skip "npm is missing"
unshare -n true 2>/dev/null || skip "unshare -n does not work here (needs root or user namespaces)"
if ! python3 scripts/record/agents.py installed | grep -q '"installed": {[^}]*false' ; then
  : # all pinned CLIs are in the cache already: no registry needed
elif ! timeout 30 npm ping >/dev/null 2>&1; then
  skip "the npm registry is not reachable"
fi

start=$(date +%s)
python3 scripts/record/record.py install
# Two test threads: each test runs one real CLI (Node start-up is most of the time).
cargo test --test it -- --ignored --test-threads=2 e2e_run::
echo "e2e with the real agent CLIs: $(( $(date +%s) - start )) s"

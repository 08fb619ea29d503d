#!/usr/bin/env bash
# Drift report: install the newest release of each agent CLI, record every scenario with
# it (offline, as record.py does), and print what changed against the pinned recordings
# in tests/fixtures/recorded: event kinds, keys, value types, line counts, exit status,
# and what cursor-stream's views read (when target/dist/cursor-stream is built, or
# CURSOR_STREAM_BIN names one).
# Usage: scripts/record/check-latest.sh [record.py record options, e.g. -a codex]
set -euo pipefail
cd "$(dirname "$0")/../.."

out=target/e2e/latest-recorded
python3 scripts/record/record.py install --latest
rm -rf "$out"
python3 scripts/record/record.py record --latest --no-big --out "$out" "$@" >target/e2e/latest-record.log
bin=${CURSOR_STREAM_BIN:-target/dist/cursor-stream}
args=()
[ -x "$bin" ] && args=(--bin "$bin")
python3 scripts/record/drift.py tests/fixtures/recorded "$out" "${args[@]}"

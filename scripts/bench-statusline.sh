#!/usr/bin/env bash
# The status line's time on a big history: `cursor-stream statusline` as Claude Code runs it
# after every message, on a generated Claude Code home of SIZE (default 1G) spread over 30 days,
# whose last day is moved to the last 24 hours (so "today" holds a day's share of the history,
# ~1/30 of it, as for someone who works every day). The median of RUNS (default 10) runs after
# one warm-up, with hyperfine; the issue's goal is 50 ms.
#
#   scripts/bench-statusline.sh
#   SIZE=200M RUNS=20 BIN=/tmp/cs scripts/bench-statusline.sh
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1G}
RUNS=${RUNS:-10}
DIR=${BENCH_DIR:-/tmp/cursor-stream-bench}
HOME_DIR=$DIR/statusline-home-$SIZE
mkdir -p "$DIR"

if [ -z "${BIN:-}" ]; then
  cargo build --profile dist --quiet --bin cursor-stream --example generate
  BIN=$PWD/target/dist/cursor-stream
fi
[ -x target/dist/examples/generate ] || cargo build --profile dist --quiet --example generate

if [ ! -f "$HOME_DIR/.moved" ]; then
  rm -rf "$HOME_DIR"
  target/dist/examples/generate --home "$HOME_DIR" --size "$SIZE" --agents claude --seed 7 --days 30 >/dev/null
  # The generated days end at 2026-11-27T00:00Z: the last day's logs are moved to end an hour
  # ago (their times and their files' times), the rest stays in the past.
  python3 - "$HOME_DIR" <<'EOF'
import datetime, json, os, sys
home = sys.argv[1]
end = datetime.datetime(2026, 11, 27, tzinfo=datetime.timezone.utc)
now = datetime.datetime.now(datetime.timezone.utc)
shift = now - datetime.timedelta(hours=1) - end
day_start = (end - datetime.timedelta(days=1)).timestamp()
moved = 0
for root, _, files in os.walk(os.path.join(home, ".claude")):
    for name in files:
        path = os.path.join(root, name)
        if not name.endswith(".jsonl") or os.path.getmtime(path) < day_start:
            continue
        out = []
        for line in open(path, encoding="utf-8"):
            try:
                v = json.loads(line)
            except ValueError:
                out.append(line)
                continue
            t = v.get("timestamp") if isinstance(v, dict) else None
            if isinstance(t, str):
                at = datetime.datetime.fromisoformat(t.replace("Z", "+00:00")) + shift
                v["timestamp"] = at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"
            out.append(json.dumps(v, separators=(",", ":")) + "\n")
        open(path, "w", encoding="utf-8").writelines(out)
        m = os.path.getmtime(path)
        os.utime(path, (m, (now - datetime.timedelta(hours=1)).timestamp()))
        moved += os.path.getsize(path)
open(os.path.join(home, ".moved"), "w").write(str(moved))
EOF
fi

TOTAL=$(du -sb "$HOME_DIR/.claude" | cut -f1)
TODAY=$(cat "$HOME_DIR/.moved")
# The busiest session of the last day (the one a user is in: a resumed session's file holds
# its earlier calls, which count under it), and its log, as Claude Code names them.
SESSION=$(HOME=$HOME_DIR "$BIN" usage session --from claude --since 24h --json 2>/dev/null |
  python3 -c 'import json,sys; print(max((json.loads(l) for l in sys.stdin), key=lambda r: r["total_tokens"])["session_id"])')
LOG=$(find "$HOME_DIR/.claude/projects" -name "$SESSION.jsonl" | head -1)
INPUT=$DIR/statusline-input.json
printf '{"session_id":"%s","transcript_path":"%s","model":{"id":"claude-opus-5","display_name":"Opus 5"},"workspace":{"current_dir":"/tmp"}}\n' \
  "$SESSION" "$LOG" >"$INPUT"

echo "history: $((TOTAL / 1048576)) MiB of Claude Code logs, of which $((TODAY / 1048576)) MiB in the last 24 hours"
echo "line:    $(HOME=$HOME_DIR "$BIN" statusline <"$INPUT")"
HOME=$HOME_DIR hyperfine -w 1 -r "$RUNS" -N --export-json "$DIR/statusline.json" \
  "sh -c '$BIN statusline < $INPUT'" "sh -c 'true < $INPUT'"
python3 - "$DIR/statusline.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print(f"statusline: median {r[0]['median'] * 1000:.1f} ms (sh alone: {r[1]['median'] * 1000:.1f} ms)")
EOF

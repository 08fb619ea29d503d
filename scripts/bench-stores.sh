#!/usr/bin/env bash
# Benchmarks cursor-stream on the agents' own session logs: a generated home of every
# agent's logs (`generate --home`, about SIZE in all, Claude two thirds of it), each view
# over one agent's logs (`--from AGENT`) against the same view over that agent's generated
# stream of the same size (MB/s both ways), `sessions --from all`, and `cat` as the floor;
# then `usage` against ccusage 20.0.24 on a generated Claude-only home of SIZE (installed
# from npm into BENCH_DIR; the rows are left out without npm's registry).
# Prints a table; peak memory per row.
#
#   scripts/bench-stores.sh                  # a 1 GiB home in /tmp/cursor-stream-bench
#   SIZE=100M RUNS=3 scripts/bench-stores.sh
#   USAGE_ONLY=1 RUNS=10 scripts/bench-stores.sh   # only usage against ccusage
#
# Needs hyperfine and python3 (hyperfine is installed with apt-get if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1G}
DIR=${BENCH_DIR:-/tmp/cursor-stream-bench}
RUNS=${RUNS:-5}
mkdir -p "$DIR"
command -v hyperfine >/dev/null 2>&1 || apt-get install -y -qq hyperfine >/dev/null

cargo build --profile dist --quiet --bin cursor-stream --example generate
BIN=$PWD/target/dist/cursor-stream
HOMEDIR=$DIR/home-$SIZE
if [ -z "${USAGE_ONLY:-}" ]; then
  [ -s "$HOMEDIR/EXPECTED.json" ] ||
    target/dist/examples/generate --home "$HOMEDIR" --size "$SIZE" >/dev/null
  for agent in claude codex gemini; do
    f=$DIR/$agent-stream-$SIZE.ndjson
    [ -s "$f" ] || target/dist/examples/generate --size "$SIZE" --agent "$agent" >"$f"
  done
  find "$HOMEDIR" -type f -exec cat {} + >/dev/null # into the page cache
fi

bytes_of() { # the bytes an agent's logs hold in the home (its folder)
  du -sb "$HOMEDIR/$1" | cut -f1
}
declare -A FOLDER=([claude]=.claude [codex]=.codex [gemini]=.gemini [qwen]=.qwen
  [opencode]=.local/share/opencode [cursor]=.cursor)

RESULTS=$DIR/stores-results
rm -rf "$RESULTS" && mkdir -p "$RESULTS"
run() { # name, bytes, command... (a failed run is no failure: a log holds failed runs)
  local name=$1 bytes=$2
  shift 2
  hyperfine -N -i --warmup 1 --runs "$RUNS" --export-json "$RESULTS/$name.json" \
    "env HOME=$HOMEDIR $*" >/dev/null
  local peak
  peak=$(env HOME="$HOMEDIR" /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 || true)
  echo "$name $bytes $peak" >>"$RESULTS/rows"
}

# usage against ccusage, on a home of Claude Code's logs only (what ccusage reads fastest).
CLAUDE_HOME=$DIR/claude-home-$SIZE
[ -s "$CLAUDE_HOME/EXPECTED.json" ] ||
  target/dist/examples/generate --home "$CLAUDE_HOME" --size "$SIZE" --agents claude >/dev/null
find "$CLAUDE_HOME" -type f -exec cat {} + >/dev/null
CCUSAGE=$DIR/ccusage-20.0.24/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage
[ -x "$CCUSAGE" ] || {
  npm install --no-save --no-audit --no-fund --prefix "$DIR/ccusage-20.0.24" ccusage@20.0.24 \
    >/dev/null 2>&1 && chmod +x "$CCUSAGE"
} || true
usage_run() { # name, command... over the Claude-only home, both tools in one hyperfine run
  local name=$1
  shift
  hyperfine -N --warmup 2 --runs "$RUNS" --export-json "$RESULTS/$name.json" \
    "env HOME=$CLAUDE_HOME TZ=UTC $*" >/dev/null
  local peak
  peak=$(env HOME="$CLAUDE_HOME" TZ=UTC /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 || true)
  echo "$name $(du -sb "$CLAUDE_HOME/.claude" | cut -f1) $peak" >>"$RESULTS/rows"
}
for round in 1 2; do # alternated, so that both see the same machine
  usage_run "usage daily --json, claude ($round)" "$BIN" usage daily --from claude --json
  [ -x "$CCUSAGE" ] &&
    usage_run "ccusage claude daily --json ($round)" "$CCUSAGE" claude daily --json --offline
  usage_run "usage session --json, claude ($round)" "$BIN" usage session --from claude --json
  [ -x "$CCUSAGE" ] &&
    usage_run "ccusage claude session --json ($round)" "$CCUSAGE" claude session --json --offline
done
if [ -z "${USAGE_ONLY:-}" ]; then
all=$(du -sb "$HOMEDIR" | cut -f1)
CAT=$DIR/cat-home.sh
printf '#!/bin/sh\nfind "$HOME" -type f -exec cat {} + | wc -l\n' >"$CAT" && chmod +x "$CAT"
run "cat | wc -l (all logs)" "$all" "$CAT"
run "sessions --from all" "$all" "$BIN" sessions --json
run "stats --json --from all" "$all" "$BIN" stats --json --from all
for agent in claude codex gemini qwen opencode cursor; do
  b=$(bytes_of "${FOLDER[$agent]}")
  for view in text result "tools --json" "stats --json"; do
    # shellcheck disable=SC2086
    run "$view, $agent logs" "$b" "$BIN" $view --from "$agent"
  done
done
for agent in claude codex gemini; do
  f=$DIR/$agent-stream-$SIZE.ndjson
  b=$(stat -c %s "$f")
  for view in text result "tools --json" "stats --json"; do
    # shellcheck disable=SC2086
    run "$view, $agent stream" "$b" "$BIN" $view "$f"
  done
done

fi

python3 - "$RESULTS" <<'EOF'
import json, os, sys
d = sys.argv[1]
print(f"{'job':40} {'MB':>8} {'median s':>9} {'MB/s':>8} {'peak MiB':>9}")
for line in open(os.path.join(d, "rows")):
    name, rest = line.rsplit(" ", 2)[0], line.rsplit(" ", 2)[1:]
    nbytes, peak = int(rest[0]), int(rest[1])
    r = json.load(open(os.path.join(d, name + ".json")))["results"][0]
    med = r["median"]
    print(f"{name:40} {nbytes/1e6:8.0f} {med:9.3f} {nbytes/1e6/med:8.0f} {peak/1024:9.1f}")
EOF

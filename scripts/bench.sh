#!/usr/bin/env bash
# Benchmarks cursor-stream against jq (and jaq when installed) on generated logs — Cursor
# runs, a stream of deltas (with results, and never flushed), Claude Code runs with partial
# messages, Codex and Gemini CLI runs — with `wc -l` as the floor, and prints a table of
# MB/s and ratios; `get` running the same jq programs as jq and jaq, the three outputs checked
# byte for byte, with their peak memory; then a file against a pipe, many files at once against one after
# another, one big file read in parts against one reader, peak memory per view and
# agent, and the latency of a delta through `text`.
#
#   scripts/bench.sh                 # 1 GiB logs, in /tmp/cursor-stream-bench
#   SIZE=100M RUNS=3 scripts/bench.sh
#   BASELINE=/path/to/older/cursor-stream scripts/bench.sh   # and an older build, same run
#   GET_ONLY=1 scripts/bench.sh      # only the get rows against jq and jaq, and `wc -l`
#   BIN=/tmp/cs scripts/bench.sh     # that build, not this tree's (built with --profile dist)
#
# Needs hyperfine, jq and python3 (hyperfine and jq are installed with apt-get if missing),
# and jaq (`cargo install --locked jaq` if missing; without it the jaq columns stay blank).
# JQ_RUNS (1) runs of jq, and of jaq on the views' rows; the get rows run jaq RUNS times.
# Exit status 1 when a get row's output differs from jq's or jaq's.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1G}
DIR=${BENCH_DIR:-/tmp/cursor-stream-bench}
RUNS=${RUNS:-5}
JQ_RUNS=${JQ_RUNS:-1}
GET_ONLY=${GET_ONLY:-}
mkdir -p "$DIR"

for tool in hyperfine jq; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    apt-get install -y -qq "$tool" >/dev/null 2>&1 ||
      (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$tool" >/dev/null)
  fi
done

# BIN=/path/to/cursor-stream benchmarks that build instead of building this tree's.
if [ -z "${BIN:-}" ]; then
  cargo build --profile dist --quiet --bin cursor-stream --example generate
  BIN=$PWD/target/dist/cursor-stream
fi
[ -x target/dist/examples/generate ] || cargo build --profile dist --quiet --example generate
BASELINE=${BASELINE:-}
LOG=$DIR/log-$SIZE.ndjson
DELTAS=$DIR/deltas-$SIZE.ndjson
CLAUDE=$DIR/claude-$SIZE.ndjson
CODEX=$DIR/codex-$SIZE.ndjson
GEMINI=$DIR/gemini-$SIZE.ndjson
NOFLUSH=$DIR/deltas-noflush-$SIZE.ndjson
[ -s "$LOG" ] || target/dist/examples/generate --size "$SIZE" >"$LOG"
[ -s "$DELTAS" ] || target/dist/examples/generate --size "$SIZE" --deltas-only >"$DELTAS"
[ -s "$CLAUDE" ] || target/dist/examples/generate --size "$SIZE" --agent claude >"$CLAUDE"
[ -s "$CODEX" ] || target/dist/examples/generate --size "$SIZE" --agent codex >"$CODEX"
[ -s "$GEMINI" ] || target/dist/examples/generate --size "$SIZE" --agent gemini >"$GEMINI"
# One run of deltas that never gets a flush or a result: what `text` remembers of the
# segment must not grow with it.
[ -s "$NOFLUSH" ] || grep -v '"type":"result"' "$DELTAS" >"$NOFLUSH"
# The log in 8 parts, at line boundaries, for the many-files rows.
PARTS=("$DIR"/part-"$SIZE"-*)
if [ ! -s "${PARTS[0]}" ]; then
  split -n l/8 -d "$LOG" "$DIR/part-$SIZE-"
  PARTS=("$DIR"/part-"$SIZE"-*)
fi
cat "$LOG" "$DELTAS" "$CLAUDE" "$CODEX" "$GEMINI" "$NOFLUSH" >/dev/null # into the page cache

JAQ=${JAQ:-$(command -v jaq || true)}
CARGO_BIN=${CARGO_HOME:-$HOME/.cargo}/bin
[ -n "$JAQ" ] || [ ! -x "$CARGO_BIN/jaq" ] || JAQ=$CARGO_BIN/jaq
if [ -z "$JAQ" ]; then
  echo "bench: no jaq; installing it: cargo install --locked jaq" >&2
  if cargo install --locked --quiet jaq >&2 && [ -x "$CARGO_BIN/jaq" ]; then
    JAQ=$CARGO_BIN/jaq
  else
    echo "bench: jaq could not be installed (no network?): the jaq columns stay blank, the rest runs" >&2
  fi
fi
RESULTS=$DIR/results
rm -rf "$RESULTS" && mkdir -p "$RESULTS"

# job name | file | cursor-stream arguments | jq program (with its flags)
# With `get` for the arguments, cursor-stream runs `get` with the jq program and its flags, and
# the outputs of get, jq and jaq must be the same bytes. get's shortcuts: a program of paths
# walks the raw text; `select(.type…)` is decided by a peek at the type; the rest runs on the
# engine (each line parsed, then jaq's interpreter), which can take no shortcut.
JOBS=(
  "text|$LOG|text|-rj 'select(.type==\"assistant\") | .message.content[]?.text // empty'"
  "result|$LOG|result|-r 'select(.type==\"result\") | .result'"
  "events --type tool_call|$LOG|events --type tool_call|-c 'select(.type==\"tool_call\")'"
  "tools --json|$LOG|tools --json|-c 'select(.type==\"tool_call\" and .subtype==\"completed\") | .call_id as \$id | .tool_call | to_entries[] | select(.key | endswith(\"ToolCall\")) | {call_id: \$id, tool: .key, status: (.value.result | keys_unsorted[0]), args: .value.args, result: (.value.result | to_entries[0].value)}'"
  "stats --json|$LOG|stats --json|-n 'reduce inputs as \$e ({}; .[\$e.type + \"/\" + (\$e.subtype // \"\")] += 1)'"
  "text, deltas only|$DELTAS|text|-rj 'select(.type==\"assistant\") | .message.content[]?.text // empty'"
  "text, deltas never flushed|$NOFLUSH|text|-rj 'select(.type==\"assistant\") | .message.content[]?.text // empty'"
  "text, Claude partial messages|$CLAUDE|text|-rj 'select(.type==\"stream_event\" and .parent_tool_use_id==null and .event.type==\"content_block_delta\" and .event.delta.type==\"text_delta\") | .event.delta.text'"
  "tools --json, Claude|$CLAUDE|tools --json|-c 'select(.type==\"user\") | .message.content[]? | select(.type==\"tool_result\") | {call_id: .tool_use_id, result: .content}'"
  "result, Claude|$CLAUDE|result|-r 'select(.type==\"result\") | .result'"
  "text, Codex|$CODEX|text|-r 'select(.type==\"item.completed\" and .item.type==\"agent_message\") | .item.text'"
  "tools --json, Codex|$CODEX|tools --json|-c 'select(.type==\"item.completed\" and (.item.type==\"command_execution\" or .item.type==\"file_change\")) | {call_id: .item.id, tool: .item.type, status: .item.status, result: .item}'"
  "text, Gemini|$GEMINI|text|-rj 'select(.type==\"message\" and .role==\"assistant\") | .content'"
  "tools --json, Gemini|$GEMINI|tools --json|-c 'select(.type==\"tool_result\") | {call_id: .tool_id, status: .status, result: .output}'"
  "peek, then paths|$LOG|get|-c 'select(.type==\"tool_call\") | .call_id'"
  "paths|$LOG|get|-c -r '.type'"
  "engine|$LOG|get|-c '.message.content[]?.text // empty'"
  "engine|$LOG|get|-c '{t: .type, s: .subtype} | select(.s != null)'"
  "engine|$LOG|get|-c -r '[.type, .subtype // \"-\"] | @tsv'"
  "engine|$LOG|get|-c 'select(.type | test(\"tool\")) | .tool_call | keys'"
)

# The md5 and the size of stdin.
DIGEST='import hashlib, sys
h, n = hashlib.md5(), 0
for b in iter(lambda: sys.stdin.buffer.read(1 << 20), b""):
    h.update(b)
    n += len(b)
print(h.hexdigest(), n)'

i=0
for job in "${JOBS[@]}"; do
  IFS='|' read -r name file args program <<<"$job"
  i=$((i + 1))
  same=
  if [ "$args" = get ]; then
    args="get $program" same=1
  fi
  [ -z "$GET_ONLY" ] || [ -n "$same" ] || continue
  echo "== $name: $args" >&2
  hyperfine -N -i --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/$i-ours.json" "$BIN $args $file" >/dev/null
  if [ -n "$BASELINE" ] && [ -z "$same" ]; then
    hyperfine -N -i --warmup 1 --runs "$RUNS" --output=null \
      --export-json "$RESULTS/$i-base.json" "$BASELINE $args $file" >/dev/null
  fi
  hyperfine -i --runs "$JQ_RUNS" --output=null \
    --export-json "$RESULTS/$i-jq.json" "jq $program $file" >/dev/null
  if [ -n "$JAQ" ]; then
    if [ -n "$same" ]; then
      hyperfine -i --warmup 1 --runs "$RUNS" --output=null \
        --export-json "$RESULTS/$i-jaq.json" "$JAQ $program $file" >/dev/null
    else
      hyperfine -i --runs "$JQ_RUNS" --output=null \
        --export-json "$RESULTS/$i-jaq.json" "$JAQ $program $file" >/dev/null
    fi
  fi
  if [ -n "$same" ]; then
    # Once more each, outside the timing: the output's digest, its size and the peak memory.
    for tool in ours jq jaq; do
      case $tool in
        ours) cmd="$BIN $args $file" ;;
        jq) cmd="jq $program $file" ;;
        jaq) [ -n "$JAQ" ] || continue; cmd="$JAQ $program $file" ;;
      esac
      eval "set -- $cmd"
      { /usr/bin/time -f "%M" -o "$RESULTS/$i-$tool.mem" "$@" 2>/dev/null || true; } |
        python3 -c "$DIGEST" >"$RESULTS/$i-$tool.out"
    done
  fi
  printf '%s\n%s\n%s\n' "$name" "$file" "$args" >"$RESULTS/$i-job"
done
jq --version >"$RESULTS/versions"
[ -z "$JAQ" ] || "$JAQ" --version >>"$RESULTS/versions"

if [ -z "$GET_ONLY" ]; then
echo "== text, through a pipe" >&2
hyperfine -i --warmup 1 --runs "$RUNS" --output=null \
  --export-json "$RESULTS/pipe.json" "cat $LOG | $BIN text" >/dev/null
hyperfine -i --warmup 1 --runs "$RUNS" --output=null \
  --export-json "$RESULTS/pipe-wc.json" "cat $LOG | wc -l" >/dev/null

echo "== many files" >&2
# The 8 parts named at once against one process per part, one after another, each with
# one worker (CURSOR_STREAM_JOBS=1: as shipped, a part large enough is itself read in
# parts, and the row would compare parallel reading with itself): the same bytes out (in
# argument order), the time is what reading several files at once buys.
m=0
for args in "stats --json" "stats" "tools" "tools --json" "events --count --type tool_call" "events --type tool_call" "check"; do
  m=$((m + 1))
  hyperfine -i --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/many-$m-all.json" "$BIN $args ${PARTS[*]}" >/dev/null
  hyperfine -i --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/many-$m-seq.json" "for f in ${PARTS[*]}; do CURSOR_STREAM_JOBS=1 $BIN $args \$f; done" >/dev/null
  echo "$args" >"$RESULTS/many-$m-job"
done
echo "== one file read in parts" >&2
# One big file read by one reader (CURSOR_STREAM_JOBS=1), in parts by a worker per core
# (as shipped, for the views that can be read apart), and what splitting it across the
# two cores could buy at best: its two halves (cut at a line boundary) read by two
# processes at once, nothing shared.
for what in "stats --json|$LOG" "stats|$LOG" "tools|$LOG" "tools --json|$LOG" "text|$DELTAS"; do
  IFS='|' read -r args file <<<"$what"
  [ -s "$file.half-00" ] || split -n l/2 -d -a 2 "$file" "$file.half-"
  m=$((m + 1))
  hyperfine -i -N --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/halves-$m-one.json" "env CURSOR_STREAM_JOBS=1 $BIN $args $file" >/dev/null
  hyperfine -i -N --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/halves-$m-parts.json" "$BIN $args $file" >/dev/null
  hyperfine -i --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/halves-$m-two.json" \
    "$BIN $args $file.half-00 >/dev/null & $BIN $args $file.half-01 >/dev/null; wait" >/dev/null
  echo "$args|$(basename "$file")" >"$RESULTS/halves-$m-job"
done
fi
echo "== wc -l" >&2
hyperfine -N --warmup 1 --runs "$RUNS" --output=null \
  --export-json "$RESULTS/wc.json" "wc -l $LOG" >/dev/null
if [ -z "$GET_ONLY" ]; then

echo "== transcript" >&2
for args in "transcript" "transcript --html"; do
  key=${args// /_}
  hyperfine -N --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/$key.json" "$BIN $args $LOG" >/dev/null
  "$BIN" $args "$LOG" 2>/dev/null | wc -c >"$RESULTS/$key.size"
done

echo "== peak memory" >&2
for args in "text" "result" "events --type tool_call" "tools --json" "stats" "check" "transcript" "transcript --html"; do
  /usr/bin/time -f "%M" -o "$RESULTS/mem.tmp" "$BIN" $args "$LOG" >/dev/null 2>&1 || true
  printf '%s|%s\n' "$args" "$(tail -n 1 "$RESULTS/mem.tmp")" >>"$RESULTS/memory"
done
for what in "text|$DELTAS|deltas" "text|$NOFLUSH|deltas never flushed" "text|$CLAUDE|Claude" \
  "tools --json|$CLAUDE|Claude" "text|$CODEX|Codex" "tools --json|$CODEX|Codex" \
  "text|$GEMINI|Gemini" "tools --json|$GEMINI|Gemini" "stats|${PARTS[*]}|8 files" \
  "events --last-run|$NOFLUSH|deltas never flushed, one run"; do
  IFS='|' read -r args file label <<<"$what"
  # shellcheck disable=SC2086 # the arguments, and the 8 files, are words
  /usr/bin/time -f "%M" -o "$RESULTS/mem.tmp" "$BIN" $args $file >/dev/null 2>&1 || true
  printf '%s|%s\n' "$args ($label)" "$(tail -n 1 "$RESULTS/mem.tmp")" >>"$RESULTS/memory"
done

echo "== live latency" >&2
python3 - "$BIN" >"$RESULTS/latency" <<'PY'
import os, select, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "text"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
p.stdin.write(b'{"type":"system","subtype":"init","session_id":"s"}\n'); p.stdin.flush()
times = []
for i in range(200):
    line = ('{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"w%d "}]},"session_id":"s","timestamp_ms":%d}\n' % (i, i)).encode()
    start = time.perf_counter()
    p.stdin.write(line); p.stdin.flush()
    select.select([p.stdout], [], [], 5)
    os.read(p.stdout.fileno(), 65536)
    times.append((time.perf_counter() - start) * 1000)
    time.sleep(0.002)
p.stdin.close(); p.wait()
times.sort()
print("%.2f %.2f %.2f" % (times[len(times) // 2], times[int(len(times) * 0.99)], times[-1]))
PY
fi

python3 - "$RESULTS" "$SIZE" <<'PY'
import glob, json, os, sys
results, size = sys.argv[1], sys.argv[2]
def mean(path):
    with open(path) as f:
        return json.load(f)["results"][0]["mean"]
def mbs(nbytes, secs):
    return nbytes / secs / 1e6
wc = mean(os.path.join(results, "wc.json"))
def ratio(x):
    return f"{x:.0f}×" if x >= 10 else f"{x:.2f}×"
def cell(path, n, ours):
    """Time and MB/s of one tool's row, and its ratio to cursor-stream's; blank when not run."""
    if not os.path.exists(path):
        return " | |"
    t = mean(path)
    return f" {t:.2f} s, {mbs(n, t):,.0f} MB/s | {ratio(t / ours)} |"
versions = open(os.path.join(results, "versions")).read().splitlines()
have_jaq = bool(glob.glob(os.path.join(results, "*-jaq.json")))
have_base = bool(glob.glob(os.path.join(results, "*-base.json")))
views, gets = [], []
for job in sorted(glob.glob(os.path.join(results, "*-job")), key=lambda p: p.split("/")[-1]):
    if not os.path.basename(job)[0].isdigit():
        continue
    i = int(os.path.basename(job).split("-")[0])
    name, file, args = open(job).read().split("\n")[:3]
    (gets if args.startswith("get ") else views).append((i, name, file, args))
views.sort()
gets.sort()
head = "| job | cursor-stream | jq | × jq |" + (" jaq | × jaq |" if have_jaq else "") + " vs `wc -l` |" + (" baseline build |" if have_base else "")
print(head)
print("|" + "---|" * (head.count("|") - 1))
for i, name, file, args in views:
    n = os.path.getsize(file)
    ours = mean(os.path.join(results, f"{i}-ours.json"))
    row = f"| `{name}` | {ours:.2f} s, {mbs(n, ours):,.0f} MB/s |" + cell(os.path.join(results, f"{i}-jq.json"), n, ours)
    if have_jaq:
        row += cell(os.path.join(results, f"{i}-jaq.json"), n, ours)
    row += f" {wc / ours:.2f} |"
    base = os.path.join(results, f"{i}-base.json")
    if have_base:
        # An older build may not read every agent: no figure then.
        row += f" {mean(base):.2f} s |" if os.path.exists(base) else " — |"
    print(row)
log = glob.glob(os.path.join(results, "..", f"log-{size}.ndjson"))[0]
n = os.path.getsize(log)
tail = " |" if have_base else ""
if os.path.exists(os.path.join(results, "pipe.json")):
    pipe = mean(os.path.join(results, "pipe.json"))
    pipe_wc = mean(os.path.join(results, "pipe-wc.json"))
    print(f"| `cat log \\| text` (pipe) | {pipe:.2f} s, {mbs(n, pipe):,.0f} MB/s | | | " + ("| | " if have_jaq else "") + f"{wc / pipe:.2f}; {pipe_wc / pipe:.2f} of `cat log \\| wc -l` |" + tail)
print(f"| `wc -l` (floor) | {wc:.2f} s, {mbs(n, wc):,.0f} MB/s | | | " + ("| | " if have_jaq else "") + "1.00 |" + tail)
differ = []
if gets:
    print()
    print(f"The same program and flags (`-c` to all three) through `get`, {versions[0]} and " +
          (versions[1] if len(versions) > 1 else "no jaq") +
          "; each one's output, from one more run, compared by md5 with get's; peak memory from that run.")
    print()
    print("| `get` on " + os.path.basename(gets[0][2]) + " | how | get | jq | × jq | jaq | × jaq | output | peak memory get / jaq / jq |")
    print("|---|---|---|---|---|---|---|---|---|")
    for i, name, file, args in gets:
        n = os.path.getsize(file)
        ours = mean(os.path.join(results, f"{i}-ours.json"))
        row = f"| `{args[4:].replace('|', chr(92) + '|')}` | {name} | {ours:.2f} s, {mbs(n, ours):,.0f} MB/s |"
        row += cell(os.path.join(results, f"{i}-jq.json"), n, ours)
        row += cell(os.path.join(results, f"{i}-jaq.json"), n, ours)
        outs = {}
        for tool in ("ours", "jq", "jaq"):
            path = os.path.join(results, f"{i}-{tool}.out")
            if os.path.exists(path):
                outs[tool] = open(path).read().split()
        md5, size = outs["ours"]
        others = [t for t in ("jq", "jaq") if t in outs and outs[t] != outs["ours"]]
        if others:
            differ.append(args)
            row += " **DIFFERS** from " + ", ".join(
                f"{t} ({int(outs[t][1]) / 1e6:.1f} MB, md5 {outs[t][0][:8]})" for t in others) + f": get {int(size) / 1e6:.1f} MB, md5 {md5[:8]} |"
        else:
            row += f" same bytes, {int(size) / 1e6:.1f} MB (md5 {md5[:8]}) |"
        mem = []
        for tool in ("ours", "jaq", "jq"):
            path = os.path.join(results, f"{i}-{tool}.mem")
            kb = open(path).read().split()[-1] if os.path.exists(path) else ""
            mem.append(f"{int(kb) / 1024:,.1f} MiB" if kb.isdigit() else "—")
        print(row + " " + " / ".join(mem) + " |")
if not os.path.exists(os.path.join(results, "latency")):  # GET_ONLY
    if differ:
        sys.stderr.write("bench: OUTPUT MISMATCH: get, jq and jaq wrote different bytes for: " + "; ".join(differ) + "\n")
    sys.exit(1 if differ else 0)
print()
print("| many files (the log in 8 parts) | all 8 named at once | one process per part, one after another, one worker each | speed-up |")
print("|---|---|---|---|")
m = 1
while os.path.exists(os.path.join(results, f"many-{m}-job")):
    args = open(os.path.join(results, f"many-{m}-job")).read().strip()
    together = mean(os.path.join(results, f"many-{m}-all.json"))
    apart = mean(os.path.join(results, f"many-{m}-seq.json"))
    print(f"| `{args}` | {together:.2f} s | {apart:.2f} s | {apart / together:.2f}× |")
    m += 1
print()
wc = mean(os.path.join(results, "wc.json"))
print("| one file | one reader | in parts, a worker per core | its halves, two processes at once | vs `wc -l`: one reader → in parts |")
print("|---|---|---|---|---|")
for job in sorted(glob.glob(os.path.join(results, "halves-*-job")), key=lambda p: int(p.split("-")[-2])):
    m = job.split("-")[-2]
    args, name = open(job).read().strip().split("|")
    one = mean(os.path.join(results, f"halves-{m}-one.json"))
    parts = mean(os.path.join(results, f"halves-{m}-parts.json"))
    two = mean(os.path.join(results, f"halves-{m}-two.json"))
    print(f"| `{args}` on {name} | {one:.2f} s | {parts:.2f} s | {two:.2f} s | {wc / one:.2f} → {wc / parts:.2f} |")
print()
for key, what in (("transcript", "Markdown"), ("transcript_--html", "HTML")):
    secs = mean(os.path.join(results, f"{key}.json"))
    size = int(open(os.path.join(results, f"{key}.size")).read())
    print(f"`{key.replace('_', ' ')}` of the log: {secs:.2f} s, {size / 1e6:.2f} MB of {what}.")
print()
print("Peak memory (max RSS): " + ", ".join(
    f"`{a}` {int(kb) / 1024:.1f} MiB" for a, kb in (l.strip().split("|") for l in open(os.path.join(results, "memory")))))
med, p99, worst = open(os.path.join(results, "latency")).read().split()
print(f"Delta latency through `text` (200 deltas, 2 ms apart): median {med} ms, p99 {p99} ms, max {worst} ms.")
if differ:
    sys.stderr.write("bench: OUTPUT MISMATCH: get, jq and jaq wrote different bytes for: " + "; ".join(differ) + "\n")
    sys.exit(1)
PY

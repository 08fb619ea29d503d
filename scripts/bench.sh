#!/usr/bin/env bash
# Benchmarks cursor-stream against jq (and jaq when installed) on generated logs — Cursor
# runs, a stream of deltas (with results, and never flushed), Claude Code runs with partial
# messages, Codex and Gemini CLI runs — with `wc -l` as the floor, and prints a table of
# MB/s and ratios; then a file against a pipe, many files at once against one after
# another, one big file read in parts against one reader, peak memory per view and
# agent, and the latency of a delta through `text`.
#
#   scripts/bench.sh                 # 1 GiB logs, in /tmp/cursor-stream-bench
#   SIZE=100M RUNS=3 scripts/bench.sh
#   BASELINE=/path/to/older/cursor-stream scripts/bench.sh   # and an older build, same run
#
# Needs hyperfine, jq and python3 (hyperfine and jq are installed with apt-get if missing).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-1G}
DIR=${BENCH_DIR:-/tmp/cursor-stream-bench}
RUNS=${RUNS:-5}
JQ_RUNS=${JQ_RUNS:-1}
mkdir -p "$DIR"

for tool in hyperfine jq; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    apt-get install -y -qq "$tool" >/dev/null 2>&1 ||
      (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq "$tool" >/dev/null)
  fi
done

cargo build --release --quiet --bin cursor-stream --example generate
BIN=$PWD/target/release/cursor-stream
BASELINE=${BASELINE:-}
LOG=$DIR/log-$SIZE.ndjson
DELTAS=$DIR/deltas-$SIZE.ndjson
CLAUDE=$DIR/claude-$SIZE.ndjson
CODEX=$DIR/codex-$SIZE.ndjson
GEMINI=$DIR/gemini-$SIZE.ndjson
NOFLUSH=$DIR/deltas-noflush-$SIZE.ndjson
[ -s "$LOG" ] || target/release/examples/generate --size "$SIZE" >"$LOG"
[ -s "$DELTAS" ] || target/release/examples/generate --size "$SIZE" --deltas-only >"$DELTAS"
[ -s "$CLAUDE" ] || target/release/examples/generate --size "$SIZE" --agent claude >"$CLAUDE"
[ -s "$CODEX" ] || target/release/examples/generate --size "$SIZE" --agent codex >"$CODEX"
[ -s "$GEMINI" ] || target/release/examples/generate --size "$SIZE" --agent gemini >"$GEMINI"
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

JAQ=$(command -v jaq || true)
RESULTS=$DIR/results
rm -rf "$RESULTS" && mkdir -p "$RESULTS"

# job name | file | cursor-stream arguments | jq program (with its flags)
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
)

i=0
for job in "${JOBS[@]}"; do
  IFS='|' read -r name file args program <<<"$job"
  i=$((i + 1))
  echo "== $name" >&2
  hyperfine -N -i --warmup 1 --runs "$RUNS" --output=null \
    --export-json "$RESULTS/$i-ours.json" "$BIN $args $file" >/dev/null
  if [ -n "$BASELINE" ]; then
    hyperfine -N -i --warmup 1 --runs "$RUNS" --output=null \
      --export-json "$RESULTS/$i-base.json" "$BASELINE $args $file" >/dev/null
  fi
  hyperfine -i --runs "$JQ_RUNS" --output=null \
    --export-json "$RESULTS/$i-jq.json" "jq $program $file" >/dev/null
  if [ -n "$JAQ" ]; then
    hyperfine -i --runs "$JQ_RUNS" --output=null \
      --export-json "$RESULTS/$i-jaq.json" "jaq $program $file" >/dev/null
  fi
  printf '%s\n%s\n' "$name" "$file" >"$RESULTS/$i-job"
done

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
echo "== wc -l" >&2
hyperfine -N --warmup 1 --runs "$RUNS" --output=null \
  --export-json "$RESULTS/wc.json" "wc -l $LOG" >/dev/null

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

python3 - "$RESULTS" "$SIZE" <<'PY'
import glob, json, os, sys
results, size = sys.argv[1], sys.argv[2]
def mean(path):
    with open(path) as f:
        return json.load(f)["results"][0]["mean"]
def mbs(nbytes, secs):
    return nbytes / secs / 1e6
wc = mean(os.path.join(results, "wc.json"))
have_jaq = bool(glob.glob(os.path.join(results, "*-jaq.json")))
have_base = bool(glob.glob(os.path.join(results, "*-base.json")))
head = "| job | cursor-stream | jq | × jq |" + (" jaq | × jaq |" if have_jaq else "") + " vs `wc -l` |" + (" baseline build |" if have_base else "")
print(head)
print("|" + "---|" * (head.count("|") - 1))
i = 1
while os.path.exists(os.path.join(results, f"{i}-job")):
    name, file = open(os.path.join(results, f"{i}-job")).read().split("\n")[:2]
    n = os.path.getsize(file)
    ours = mean(os.path.join(results, f"{i}-ours.json"))
    jq = mean(os.path.join(results, f"{i}-jq.json"))
    row = f"| `{name}` | {ours:.2f} s, {mbs(n, ours):,.0f} MB/s | {jq:.1f} s, {mbs(n, jq):,.0f} MB/s | {jq / ours:.0f}× |"
    if have_jaq:
        jaq = mean(os.path.join(results, f"{i}-jaq.json"))
        row += f" {jaq:.1f} s | {jaq / ours:.0f}× |"
    row += f" {wc / ours:.2f} |"
    base = os.path.join(results, f"{i}-base.json")
    if have_base:
        # An older build may not read every agent: no figure then.
        row += f" {mean(base):.2f} s |" if os.path.exists(base) else " — |"
    print(row)
    i += 1
log = glob.glob(os.path.join(results, "..", f"log-{size}.ndjson"))[0]
n = os.path.getsize(log)
pipe = mean(os.path.join(results, "pipe.json"))
pipe_wc = mean(os.path.join(results, "pipe-wc.json"))
tail = " |" if have_base else ""
print(f"| `cat log \\| text` (pipe) | {pipe:.2f} s, {mbs(n, pipe):,.0f} MB/s | | | " + ("| | " if have_jaq else "") + f"{wc / pipe:.2f}; {pipe_wc / pipe:.2f} of `cat log \\| wc -l` |" + tail)
print(f"| `wc -l` (floor) | {wc:.2f} s, {mbs(n, wc):,.0f} MB/s | | | " + ("| | " if have_jaq else "") + "1.00 |" + tail)
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
PY

#!/usr/bin/env bash
# The ledger at a team's scale: a simulated fleet of MACHINES homes of SIZE each (the example
# generator's mixed agents' logs, each machine its own seed) exported into one ledger, and
# read back. Prints: export time and peak memory per machine (mean, max), a re-export of an
# unchanged machine, ledger bytes per GB of logs, and `usage --ledger` over the fleet beside
# DuckDB's GROUP BY on the same files (best of RUNS), with their totals compared.
#
#   scripts/bench-ledger.sh                       # 50 machines × 20 MB, in /tmp/cursor-stream-fleet
#   MACHINES=10 SIZE=5M scripts/bench-ledger.sh
#   BIN=/path/to/cursor-stream scripts/bench-ledger.sh
#
# Needs python3 with duckdb (pip install duckdb) for the DuckDB row; hyperfine for the timings.
set -euo pipefail
cd "$(dirname "$0")/.."

MACHINES=${MACHINES:-50}
SIZE=${SIZE:-20M}
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-/tmp/cursor-stream-fleet}
if [ -z "${BIN:-}" ]; then
  cargo build --profile dist --quiet --bin cursor-stream --example generate
  BIN=$PWD/target/dist/cursor-stream
fi
[ -x target/dist/examples/generate ] || cargo build --profile dist --quiet --example generate
command -v hyperfine >/dev/null || apt-get install -y -qq hyperfine >/dev/null

mkdir -p "$DIR"
# The best time of a hyperfine run, from its JSON.
best() { python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["results"][0]; print("%.3f" % min(r["times"]))' "$DIR/hf.json"; }
for i in $(seq 1 "$MACHINES"); do
  home=$DIR/homes/m$i
  [ -d "$home" ] || target/dist/examples/generate --home "$home" --size "$SIZE" --seed "$i" --days 30 >/dev/null
done
logs_bytes=$(du -sb "$DIR/homes" | cut -f1)
LEDGER=$DIR/ledger
rm -rf "$LEDGER"

# Each machine exports its home: wall time and peak memory (GNU time).
times=$DIR/export-times.txt
: >"$times"
for i in $(seq 1 "$MACHINES"); do
  env -i PATH="$PATH" HOME="$DIR/homes/m$i" TZ=UTC /usr/bin/time -f "%e %M" -a -o "$times" \
    "$BIN" export --ledger "$LEDGER" --machine "m$i" --quiet
done
read -r mean max mem <<<"$(awk '{s+=$1; if($1>m)m=$1; if($2>k)k=$2} END {printf "%.2f %.2f %.1f", s/NR, m, k/1024}' "$times")"

# A second export of an unchanged machine.
again=$(hyperfine --runs "$RUNS" --export-json "$DIR/hf.json" \
  "env -i PATH=$PATH HOME=$DIR/homes/m1 TZ=UTC $BIN export --ledger $LEDGER --machine m1 --quiet" >/dev/null 2>&1 && best)

ledger_bytes=$(du -sb --exclude=_machines "$LEDGER" | cut -f1)
state_bytes=$(du -sb "$LEDGER/_machines" | cut -f1)
ratio=$(python3 -c "print(f'{100*$ledger_bytes/$logs_bytes:.2f}')")

usage_s=$(hyperfine --runs "$RUNS" --export-json "$DIR/hf.json" \
  "$BIN usage model --json --ledger $LEDGER" >/dev/null 2>&1 && best)
usage_mem=$( { /usr/bin/time -f "%M" "$BIN" usage model --json --ledger "$LEDGER" >"$DIR/usage.json"; } 2>&1 | tail -1)

SQL="select agent, model, sum(total_tokens) as tokens from (select * from read_parquet('$LEDGER/calls/**/*.parquet', hive_partitioning = true) qualify row_number() over (partition by call_key order by exported_at, machine) = 1) group by all"
duck_s=-
if python3 -c 'import duckdb' 2>/dev/null; then
  duck_s=$(hyperfine --runs "$RUNS" --export-json "$DIR/hf.json" \
    "python3 -c \"import duckdb; duckdb.sql(\\\"$SQL\\\").fetchall()\"" >/dev/null 2>&1 && best)
  python3 - "$SQL" "$DIR/usage.json" <<'PY'
import json, sys, duckdb
duck = {(a, m): int(t) for a, m, t in duckdb.sql(sys.argv[1]).fetchall()}
ours = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    ours[(r["agent"], r["model"])] = ours.get((r["agent"], r["model"]), 0) + r["total_tokens"]
assert duck == ours, (duck, ours)
print(f"totals: usage --ledger and DuckDB agree ({sum(ours.values()):,} tokens, {len(ours)} agent × model rows)")
PY
fi

cat <<EOF

Fleet: $MACHINES machines × $SIZE of generated logs ($(python3 -c "print(f'{$logs_bytes/1e6:,.0f}')") MB), $(nproc) cores.

| measure | figure |
|---|---|
| export, per machine (mean / slowest) | $mean s / $max s |
| export, peak memory (largest machine) | $mem MiB |
| re-export of an unchanged machine | $again s |
| ledger size (tables) | $(python3 -c "print(f'{$ledger_bytes/1e6:,.1f}')") MB: $ratio % of the logs ($(python3 -c "print(f'{$state_bytes/1e3:,.0f}')") kB of machine states beside) |
| \`usage model --ledger\` over the fleet | $usage_s s, $(python3 -c "print(f'{$usage_mem/1024:,.0f}')") MiB |
| DuckDB: the same sums (GROUP BY, each key once) | $duck_s s |
EOF

//! `export` and `usage --ledger`: three machines — one holding a copy of another's session,
//! one whose log grows between two exports and whose export is killed half-way — export
//! into one ledger, and its totals in `usage --ledger`, the README's DuckDB queries and
//! PySpark all equal `usage` over the union of the machines' logs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::home::{files_under, in_home};
use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn history() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history")
}

/// Copies the homes of these history shapes (`agent/shape`) into `home`.
fn add_shapes(home: &Path, shapes: &[&str]) {
    for shape in shapes {
        let from = history().join(shape).join("home");
        for file in files_under(&from) {
            let to = home.join(file.strip_prefix(&from).unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&file, &to).unwrap();
        }
    }
}

struct Out {
    ok: bool,
    stdout: String,
    stderr: String,
}

fn cs(home: &Path, args: &[&str]) -> Out {
    let mut cmd = Command::new(BIN);
    in_home(&mut cmd, home).args(args);
    let out = cmd.output().unwrap();
    Out {
        ok: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn export(home: &Path, ledger: &Path, machine: &str, files: &[&Path]) -> Out {
    let mut args = vec![
        "export".to_string(),
        "--ledger".to_string(),
        ledger.display().to_string(),
        "--machine".to_string(),
        machine.to_string(),
    ];
    args.extend(files.iter().map(|f| f.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = cs(home, &args);
    assert!(out.ok, "export failed: {}", out.stderr);
    out
}

/// `usage <report> --json` rows, by their key fields (all but the numbers).
fn usage_rows(out: &Out) -> BTreeMap<String, Value> {
    assert!(out.ok, "usage failed: {}", out.stderr);
    let numbers = [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "total_tokens",
        "cost_usd",
        "runs",
        "sessions",
    ];
    out.stdout
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let mut key = v.clone();
            for n in numbers {
                key.as_object_mut().unwrap().remove(n);
            }
            for gone in ["runs", "sessions"] {
                v.as_object_mut().unwrap().remove(gone);
            }
            (key.to_string(), v)
        })
        .collect()
}

/// Whether two rows of numbers agree: tokens exactly, costs to a billionth of a dollar
/// (summed in another order).
fn same_numbers(a: &Value, b: &Value) -> bool {
    a.as_object().unwrap().iter().all(|(k, x)| {
        let y = &b[k];
        match (x.as_f64(), y.as_f64()) {
            (Some(x), Some(y)) if k == "cost_usd" => (x - y).abs() < 1e-9,
            _ => x == y,
        }
    })
}

fn assert_same_usage(union: &Out, ledger: &Out, what: &str) {
    let (u, l) = (usage_rows(union), usage_rows(ledger));
    assert_eq!(
        u.keys().collect::<Vec<_>>(),
        l.keys().collect::<Vec<_>>(),
        "{what}: rows differ"
    );
    for (k, row) in &u {
        assert!(same_numbers(row, &l[k]), "{what}: {k}\n{row}\n{}", l[k]);
    }
    assert!(!u.is_empty(), "{what}: no rows");
}

/// The three machines' homes, the union of their logs, the ledger and the stream C exported.
struct Fleet {
    _dir: tempfile::TempDir,
    union: PathBuf,
    ledger: PathBuf,
    stream: PathBuf,
}

const SHARED: &str = "claude/2.1.39-compact-boundary";
const GROWING: &str = "claude/2.1.41-agent-progress";

/// Builds the fleet and exports it: A (laptop) first; B (workstation) holds a copy of A's
/// Claude session; C (ci) exports a log cut in half, then — the log grown — an export
/// killed half-way (some of its files written, its state not), then the export that
/// completes it; and a saved Cursor stream.
fn fleet() -> Fleet {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (a, b, c, union) = (
        root.join("a"),
        root.join("b"),
        root.join("c"),
        root.join("union"),
    );
    let ledger = root.join("ledger");
    let a_shapes = [
        SHARED,
        "codex/0.152-ordinal",
        "gemini/0.39-jsonl",
        "qwen/0.5-jsonl",
        "opencode/1.17-sqlite",
        "cursor/2026.04-nested-jsonl",
    ];
    let b_shapes = [
        SHARED,
        "claude/2.1.17-subagents-dir",
        "codex/0.121-ollama-shell",
    ];
    add_shapes(&a, &a_shapes);
    add_shapes(&b, &b_shapes);
    add_shapes(&c, &[GROWING]);
    add_shapes(&union, &a_shapes);
    add_shapes(&union, &b_shapes);
    add_shapes(&union, &[GROWING]);
    let stream = root.join("run.ndjson");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.ndjson"),
        &stream,
    )
    .unwrap();

    export(&a, &ledger, "laptop", &[]);
    export(&b, &ledger, "workstation", &[]);

    // C: the log cut in half, exported; then whole.
    let log = files_under(&c)
        .into_iter()
        .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let whole = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    std::fs::write(&log, lines[..lines.len() / 2].join("\n") + "\n").unwrap();
    export(&c, &ledger, "ci", &[]);
    std::fs::write(&log, &whole).unwrap();
    killed_half_way(&c, &ledger);
    let out = export(&c, &ledger, "ci", &[]);
    assert!(out.stderr.contains("from 1 logs"), "{}", out.stderr);
    export(&c, &ledger, "ci", &[&stream]);
    Fleet {
        _dir: dir,
        union,
        ledger,
        stream,
    }
}

/// What an export of C killed half-way leaves: half of its files, a temporary file, and
/// the state of the export before.
fn killed_half_way(c: &Path, ledger: &Path) {
    let state = ledger.join("_machines/ci.json");
    let before_state = std::fs::read(&state).unwrap();
    let before: Vec<PathBuf> = files_under(ledger);
    export(c, ledger, "ci", &[]);
    let written: Vec<PathBuf> = files_under(ledger)
        .into_iter()
        .filter(|f| !before.contains(f) && f.extension().is_some_and(|e| e == "parquet"))
        .collect();
    assert!(written.len() >= 2, "the grown log gave {written:?}");
    for f in written.iter().skip(written.len() / 2) {
        std::fs::remove_file(f).unwrap();
    }
    let day = written[0].parent().unwrap();
    std::fs::write(day.join(".ci-1-2.parquet.tmp"), b"half a file").unwrap();
    std::fs::write(&state, before_state).unwrap();
}

#[test]
fn a_fleet_s_ledger_counts_what_the_union_of_its_logs_holds() {
    let f = fleet();
    let ledger = f.ledger.to_str().unwrap();
    let stream = f.stream.to_str().unwrap();
    for report in ["model", "daily", "session"] {
        let union = cs(
            &f.union,
            &["usage", report, "--json", "--from", "all", stream],
        );
        let from_ledger = cs(&f.union, &["usage", report, "--json", "--ledger", ledger]);
        if report == "session" {
            // A ledger knows sessions by agent and id, not by file.
            let strip = |o: &Out| {
                o.stdout
                    .lines()
                    .map(|l| {
                        let mut v: Value = serde_json::from_str(l).unwrap();
                        v.as_object_mut().unwrap().remove("file");
                        v.to_string()
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let (u, l) = (strip(&union), strip(&from_ledger));
            assert_same_usage(
                &Out {
                    ok: true,
                    stdout: u,
                    stderr: String::new(),
                },
                &Out {
                    ok: true,
                    stdout: l,
                    stderr: String::new(),
                },
                report,
            );
        } else {
            assert_same_usage(&union, &from_ledger, report);
        }
    }
    // No temporary file is left, and the killed export's is gone.
    let temporary: Vec<_> = files_under(&f.ledger)
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(temporary.is_empty(), "{temporary:?}");
}

#[test]
fn by_machine_counts_a_shared_call_under_the_first_to_export_it() {
    let f = fleet();
    let ledger = f.ledger.to_str().unwrap();
    let out = cs(
        &f.union,
        &[
            "usage", "model", "--json", "--ledger", ledger, "--by", "machine",
        ],
    );
    assert!(out.ok, "{}", out.stderr);
    let rows: Vec<Value> = out
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let machines: std::collections::BTreeSet<&str> = rows
        .iter()
        .map(|r| r["machine"].as_str().unwrap())
        .collect();
    assert_eq!(
        machines.into_iter().collect::<Vec<_>>(),
        ["ci", "laptop", "workstation"]
    );
    let total = |rows: &[Value]| {
        rows.iter()
            .map(|r| r["total_tokens"].as_u64().unwrap())
            .sum::<u64>()
    };
    let all = cs(&f.union, &["usage", "model", "--json", "--ledger", ledger]);
    let all: Vec<Value> = all
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        total(&rows),
        total(&all),
        "the machines' rows add up to the total"
    );
    // The session both hold is counted under the laptop, which exported it first (a row
    // per model).
    let shared = cs(
        &f.union,
        &[
            "usage", "session", "--json", "--ledger", ledger, "--by", "machine",
        ],
    );
    let session = shared_session_id();
    let owners: std::collections::BTreeSet<String> = shared
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["session_id"] == session)
        .map(|v| v["machine"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        owners.into_iter().collect::<Vec<_>>(),
        ["laptop"],
        "{}",
        shared.stdout
    );
}

/// The session id of the Claude session both A and B hold (its log's name).
fn shared_session_id() -> String {
    let home = history().join(SHARED).join("home");
    let log = files_under(&home)
        .into_iter()
        .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    log.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn a_second_export_of_an_unchanged_home_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let (home, ledger) = (dir.path().join("home"), dir.path().join("ledger"));
    add_shapes(
        &home,
        &["claude/2.1.17-subagents-dir", "codex/0.2x-bare-items"],
    );
    let first = export(&home, &ledger, "m", &[]);
    assert!(first.stderr.contains("new rows"), "{}", first.stderr);
    let files = files_under(&ledger);
    let state = ledger.join("_machines/m.json");
    let modified = std::fs::metadata(&state).unwrap().modified().unwrap();
    let second = export(&home, &ledger, "m", &[]);
    assert!(
        second
            .stderr
            .contains("(0 new rows in 0 files) from 0 logs"),
        "{}",
        second.stderr
    );
    assert_eq!(files_under(&ledger), files);
    assert_eq!(
        std::fs::metadata(&state).unwrap().modified().unwrap(),
        modified
    );
}

#[test]
fn the_ledger_holds_no_prompt_answer_or_tool_argument() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let stream = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.ndjson");
    export(dir.path(), &ledger, "m", &[&stream]);
    // Words of the example's prompt, answer and a tool's command.
    let log = std::fs::read_to_string(&stream).unwrap();
    assert!(log.contains("--shout") && log.contains("greeter"));
    for file in files_under(&ledger) {
        if file.extension().is_some_and(|e| e == "parquet") {
            let bytes = zstd_free_text(&file);
            assert!(!bytes.contains("--shout"), "{}", file.display());
        }
    }
}

/// A Parquet file's values as DuckDB reads them, one text (or its raw bytes when DuckDB
/// is missing: the pages are compressed, so this is only a weak check then).
fn zstd_free_text(file: &Path) -> String {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, duckdb; print(duckdb.sql(f\"select * from read_parquet('{sys.argv[1]}')\").fetchall())",
        ])
        .arg(file)
        .output();
    match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).into_owned(),
        _ => String::from_utf8_lossy(&std::fs::read(file).unwrap()).into_owned(),
    }
}

/// The README's DuckDB queries of the ledger, each with the comment that names it.
fn recipes() -> Vec<(String, String)> {
    crate::duckdb::sql_recipes("README.md", "## A ledger across machines")
}

/// Runs `script` (Python, the query in argv[1]) in `dir`: its JSON output.
fn python(dir: &Path, script: &str, arg: &str) -> Value {
    let out = Command::new("python3")
        .args(["-c", script, arg])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{arg}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn have(module: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `usage --ledger`'s totals by agent: tokens and cost.
fn totals_by_agent(f: &Fleet) -> BTreeMap<String, (u64, f64)> {
    let out = cs(
        &f.union,
        &[
            "usage",
            "model",
            "--json",
            "--ledger",
            f.ledger.to_str().unwrap(),
        ],
    );
    let mut by = BTreeMap::new();
    for line in out.stdout.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let e = by
            .entry(v["agent"].as_str().unwrap().to_string())
            .or_insert((0, 0.0));
        e.0 += v["total_tokens"].as_u64().unwrap();
        e.1 += v["cost_usd"].as_f64().unwrap_or(0.0);
    }
    by
}

#[test]
fn the_readme_s_duckdb_queries_agree_with_usage_and_stats() {
    if !have("duckdb") {
        prerequisite::missing("the duckdb Python package is not installed");
        return;
    }
    let f = fleet();
    let dir = f.ledger.parent().unwrap();
    const RUN: &str = r#"
import decimal, json, sys, datetime, duckdb
rows = duckdb.sql(sys.argv[1]).fetchall()
def plain(v):
    if isinstance(v, decimal.Decimal):
        return int(v) if v == v.to_integral_value() else float(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return v
print(json.dumps([[plain(v) for v in row] for row in rows]))
"#;
    let recipes: BTreeMap<String, String> = recipes().into_iter().collect();
    assert_eq!(recipes.len(), 4, "{:?}", recipes.keys());
    // Spend per project and week: its sums are usage's.
    let spend = python(dir, RUN, &recipes["spend per project and week"]);
    let tokens: u64 = spend
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[2].as_u64().unwrap())
        .sum();
    let totals = totals_by_agent(&f);
    assert_eq!(tokens, totals.values().map(|t| t.0).sum::<u64>());
    let cost: f64 = spend
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r[3].as_f64())
        .sum();
    let usage_cost: f64 = totals.values().map(|t| t.1).sum();
    assert!((cost - usage_cost).abs() < 1e-4, "{cost} {usage_cost}");
    // Failure rate: the runs and failures `stats` counts over the union.
    let stats = cs(
        &f.union,
        &[
            "stats",
            "--json",
            "--from",
            "all",
            f.stream.to_str().unwrap(),
        ],
    );
    let mut runs: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in stats.stdout.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let e = runs
            .entry(v["agent"].as_str().unwrap().to_string())
            .or_default();
        e.0 += 1;
        e.1 += u64::from(v["status"] == "error");
    }
    let rates = python(dir, RUN, &recipes["failure rate of runs, by agent"]);
    let from_ledger: BTreeMap<String, (u64, u64)> = rates
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                (r[1].as_u64().unwrap(), r[2].as_u64().unwrap()),
            )
        })
        .collect();
    assert_eq!(from_ledger, runs);
    // The tools that fail most: the failures `stats` counts, by tool.
    let failing = python(dir, RUN, &recipes["the tools that fail most"]);
    assert!(!failing.as_array().unwrap().is_empty());
    let cost_per_run = python(
        dir,
        RUN,
        &recipes["cost per successful run, by agent and model"],
    );
    let successes: u64 = cost_per_run
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[2].as_u64().unwrap())
        .sum();
    let stats_successes = stats
        .stdout
        .lines()
        .filter(|l| l.contains(r#""status":"success""#))
        .count();
    assert_eq!(successes, stats_successes as u64);
}

#[test]
fn pyspark_reads_the_ledger_to_the_same_totals() {
    if !have("pyspark") || Command::new("java").arg("-version").output().is_err() {
        prerequisite::missing("pyspark or Java is not installed");
        return;
    }
    let f = fleet();
    const SPARK: &str = r#"
import json, sys
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
spark = (SparkSession.builder.master("local[1]").appName("ledger")
         .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC")
         .getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
calls = spark.read.option("basePath", sys.argv[1] + "/calls").parquet(sys.argv[1] + "/calls")
first = Window.partitionBy("call_key").orderBy("exported_at", "machine")
calls = calls.withColumn("n", F.row_number().over(first)).where("n = 1")
rows = calls.groupBy("agent").agg(F.sum("total_tokens").alias("t"), F.sum("cost_usd").alias("c")).collect()
print(json.dumps({r["agent"]: [int(r["t"]), float(r["c"] or 0)] for r in rows}))
spark.stop()
"#;
    let got = python(
        f.ledger.parent().unwrap(),
        SPARK,
        f.ledger.to_str().unwrap(),
    );
    let want = totals_by_agent(&f);
    assert_eq!(
        got.as_object().unwrap().keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (agent, (tokens, cost)) in &want {
        assert_eq!(got[agent][0].as_u64(), Some(*tokens), "{agent}");
        assert!(
            (got[agent][1].as_f64().unwrap() - cost).abs() < 1e-6,
            "{agent}"
        );
    }
}

#[cfg(unix)]
#[test]
fn an_export_killed_while_writing_is_completed_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let (home, ledger) = (dir.path().join("home"), dir.path().join("ledger"));
    let agents = ["claude", "codex", "gemini", "qwen", "opencode", "cursor"];
    crate::generate::generate_home(&home, 12 << 20, 5, &agents, 60).unwrap();
    let mut cmd = Command::new(BIN);
    in_home(&mut cmd, &home).args([
        "export",
        "--ledger",
        ledger.to_str().unwrap(),
        "--machine",
        "m",
    ]);
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Killed as soon as its first file is there: mid-way through its files.
    let started = std::time::Instant::now();
    while !ledger.join("calls").is_dir() && started.elapsed().as_secs() < 60 {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    let killed = files_under(&ledger);
    assert!(
        !ledger.join("_machines/m.json").exists(),
        "the export ended before it was killed: {killed:?}"
    );
    export(&home, &ledger, "m", &[]);
    let from_logs = cs(&home, &["usage", "daily", "--json"]);
    let from_ledger = cs(
        &home,
        &[
            "usage",
            "daily",
            "--json",
            "--ledger",
            ledger.to_str().unwrap(),
        ],
    );
    assert_same_usage(&from_logs, &from_ledger, "after a kill");
    let temporary: Vec<_> = files_under(&ledger)
        .into_iter()
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    assert!(temporary.is_empty(), "{temporary:?}");
}

#[test]
fn a_stream_from_stdin_is_exported_and_counted_once_however_often() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let stream = std::fs::read(examples.join("claude.ndjson")).unwrap();
    for _ in 0..2 {
        let mut cmd = Command::new(BIN);
        in_home(&mut cmd, dir.path()).args([
            "export",
            "--ledger",
            ledger.to_str().unwrap(),
            "--machine",
            "ci",
            "-",
        ]);
        let out = assert_cmd::Command::from_std(cmd)
            .write_stdin(stream.clone())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let from_ledger = cs(
        dir.path(),
        &[
            "usage",
            "model",
            "--json",
            "--ledger",
            ledger.to_str().unwrap(),
        ],
    );
    let from_file = cs(
        dir.path(),
        &[
            "usage",
            "model",
            "--json",
            examples.join("claude.ndjson").to_str().unwrap(),
        ],
    );
    assert_same_usage(&from_file, &from_ledger, "stdin");
}

#[test]
fn by_project_splits_the_rows_by_working_directory_and_adds_up() {
    let dir = tempfile::tempdir().unwrap();
    add_shapes(
        dir.path(),
        &[SHARED, GROWING, "codex/0.152-ordinal", "gemini/0.39-jsonl"],
    );
    let by = cs(dir.path(), &["usage", "model", "--json", "--by", "project"]);
    let all = cs(dir.path(), &["usage", "model", "--json"]);
    assert!(by.ok && all.ok, "{}{}", by.stderr, all.stderr);
    let rows = |o: &Out| -> Vec<Value> {
        o.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let (by, all) = (rows(&by), rows(&all));
    let projects: std::collections::BTreeSet<&str> =
        by.iter().map(|r| r["project"].as_str().unwrap()).collect();
    assert!(projects.len() >= 3, "{projects:?}");
    let tokens = |rows: &[Value]| -> u64 {
        rows.iter()
            .map(|r| r["total_tokens"].as_u64().unwrap())
            .sum()
    };
    assert_eq!(tokens(&by), tokens(&all));
}

#[test]
fn a_file_that_is_no_ledger_file_is_named_and_the_others_still_count() {
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("ledger");
    let stream = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude.ndjson");
    export(dir.path(), &ledger, "m", &[&stream]);
    let day = ledger.join("calls/date=2020-01-01");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::write(day.join("someone-else.parquet"), b"PAR1 not really").unwrap();
    let from_ledger = cs(
        dir.path(),
        &[
            "usage",
            "model",
            "--json",
            "--ledger",
            ledger.to_str().unwrap(),
        ],
    );
    assert!(
        from_ledger
            .stderr
            .contains("someone-else.parquet: not a ledger file"),
        "{}",
        from_ledger.stderr
    );
    let from_file = cs(
        dir.path(),
        &["usage", "model", "--json", stream.to_str().unwrap()],
    );
    assert_same_usage(&from_file, &from_ledger, "beside a broken file");
}

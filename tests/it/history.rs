//! Real histories: the session logs users' homes hold, every shape each agent ever wrote
//! (`tests/fixtures/history/<agent>/<shape>/home`, real files from public repositories,
//! their provenance in `SOURCES.md`), each read right. Each agent's version table (in its
//! folder, `agent::<name>::spec`) names the real file of each shape; each shape's
//! `expect.json` says, written by hand from the files, what must be read of it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::home::in_home;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

const AGENTS: [&str; 6] = ["claude", "codex", "gemini", "qwen", "opencode", "cursor"];

fn history() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history")
}

/// A shape's fake HOME.
fn shape(agent: &str, shape: &str) -> PathBuf {
    let home = history().join(agent).join(shape).join("home");
    assert!(home.is_dir(), "no fixture {}", home.display());
    home
}

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn cs(home: &Path, args: &[&str]) -> Out {
    let out = in_home(&mut Command::new(BIN), home)
        .args(args)
        .output()
        .unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn agent_of(name: &str) -> cursor_stream::Agent {
    cursor_stream::Agent::ALL
        .into_iter()
        .find(|a| a.name() == name)
        .unwrap()
}

/// Each agent's version table names a real file for each shape it lists (or says none was
/// found), and every real file kept is named there.
#[test]
fn every_version_table_row_has_its_real_file() {
    for agent in AGENTS {
        let table = cursor_stream::testing::versions(agent_of(agent));
        assert!(!table.is_empty(), "{agent}: no version table");
        let named: Vec<&str> = table.iter().flat_map(|v| v.2.iter().copied()).collect();
        for fixture in &named {
            assert!(
                history().join(agent).join(fixture).join("home").is_dir(),
                "{agent}: the table names {fixture}, which is not in tests/fixtures/history/{agent}/"
            );
        }
        for dir in std::fs::read_dir(history().join(agent)).unwrap() {
            let dir = dir.unwrap().path();
            if !dir.is_dir() {
                continue;
            }
            let name = dir.file_name().unwrap().to_str().unwrap().to_string();
            assert!(
                named.contains(&name.as_str()),
                "{agent}: the fixture {name} is in no row of the version table"
            );
            let sources =
                std::fs::read_to_string(history().join(agent).join("SOURCES.md")).unwrap();
            assert!(
                sources.contains(&name),
                "{agent}: {name} has no provenance in SOURCES.md"
            );
        }
    }
}

/// Item 1: Qwen Code's chats before 0.24 (no `provenance`) are Qwen's, found by `--from`,
/// by path, and with `--agent qwen`.
#[test]
fn qwen_chats_before_provenance_read_as_qwen() {
    let home = shape("qwen", "0.12-jsonl-tools");
    let file = crate::home::files_under(&home)
        .into_iter()
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let file = file.to_str().unwrap();
    for args in [
        &["stats", "--json", "--from", "qwen"][..],
        &["stats", "--json", file],
        &["--agent", "qwen", "stats", "--json", file],
    ] {
        let out = cs(&home, args);
        let rows = json_lines(&out.stdout);
        assert!(!rows.is_empty(), "{args:?}: {}", out.stderr);
        for row in &rows {
            assert_eq!(row["agent"], "qwen", "{args:?}: {row}");
        }
        let calls: u64 = rows
            .iter()
            .map(|r| r["tools"]["total"].as_u64().unwrap())
            .sum();
        assert!(calls > 0, "{args:?}: no tool call read: {}", out.stdout);
        assert!(
            rows.iter()
                .any(|r| r["usage"]["input_tokens"].as_u64() > Some(0)),
            "{args:?}: no tokens read: {}",
            out.stdout
        );
        assert!(!out.stderr.contains("warning"), "{args:?}: {}", out.stderr);
    }
}

/// Item 2: two model calls that share a `response_id` (a local or proxied model answers
/// `chatcmpl-…` every time) are two calls: each telemetry record is counted by its own id.
#[test]
fn qwen_calls_that_share_a_response_id_count_each() {
    let home = tempfile::tempdir().unwrap();
    let call = |uuid: &str, at: &str| {
        format!(
            r#"{{"uuid":"{uuid}","parentUuid":null,"sessionId":"s1","timestamp":"{at}","type":"system","cwd":"/w","version":"0.12.6","subtype":"ui_telemetry","systemPayload":{{"uiEvent":{{"event.name":"qwen-code.api_response","event.timestamp":"{at}","response_id":"chatcmpl-local","model":"qwen3-coder","input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0}}}}}}"#
        )
    };
    let lines = [
        r#"{"uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-03-22T17:04:57.812Z","type":"user","cwd":"/w","version":"0.12.6","message":{"role":"user","parts":[{"text":"hi"}]}}"#.to_string(),
        call("t1", "2026-03-22T17:05:00.000Z"),
        call("t2", "2026-03-22T17:05:05.000Z"),
    ];
    let dir = home.path().join(".qwen/projects/-w/chats");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("s1.jsonl"), lines.join("\n") + "\n").unwrap();
    let out = cs(home.path(), &["usage", "--json"]);
    let total = json_lines(&out.stdout).pop().unwrap();
    assert_eq!(total["input_tokens"], 200, "{}", out.stdout);
}

/// Every shape of every agent in one HOME, as a user who used them all has it.
fn mixed_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    for agent in AGENTS {
        for dir in std::fs::read_dir(history().join(agent)).unwrap() {
            let shape_home = dir.unwrap().path().join("home");
            if !shape_home.is_dir() {
                continue;
            }
            for file in crate::home::files_under(&shape_home) {
                let to = home.path().join(file.strip_prefix(&shape_home).unwrap());
                if to.exists() {
                    merge_into(&file, &to);
                    continue;
                }
                std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                std::fs::copy(&file, &to).unwrap();
            }
        }
    }
    home
}

/// A file two shapes' homes both hold: the same bytes, or Gemini's map of projects (the
/// union of both).
fn merge_into(file: &Path, to: &Path) {
    let (a, b) = (std::fs::read(file).unwrap(), std::fs::read(to).unwrap());
    if a == b {
        return;
    }
    assert!(
        to.ends_with(".gemini/projects.json"),
        "two shapes hold {}",
        to.display()
    );
    let mut merged: Value = serde_json::from_slice(&b).unwrap();
    let more: Value = serde_json::from_slice(&a).unwrap();
    for (root, slug) in more["projects"].as_object().unwrap() {
        merged["projects"][root] = slug.clone();
    }
    std::fs::write(to, serde_json::to_vec(&merged).unwrap()).unwrap();
}

/// What each shape's `expect.json` says the HOME holds, every session of every shape.
fn expected_sessions() -> Vec<Value> {
    let mut sessions = Vec::new();
    for agent in AGENTS {
        for dir in std::fs::read_dir(history().join(agent)).unwrap() {
            let expect = dir.unwrap().path().join("expect.json");
            if expect.is_file() {
                let text = std::fs::read_to_string(&expect).unwrap();
                let mut v: Value = serde_json::from_str(&text).unwrap();
                for s in v["sessions"].as_array_mut().unwrap() {
                    s["shape"] = Value::from(expect.parent().unwrap().display().to_string());
                    sessions.push(s.take());
                }
            }
        }
    }
    sessions
}

/// A session's key: its agent and id.
fn key(v: &Value) -> (String, String) {
    (
        v["agent"].as_str().unwrap_or("").to_string(),
        v["session_id"].as_str().unwrap_or("").to_string(),
    )
}

/// The runs a view wrote, by session, in order: each a JSON object of `stats --json` with
/// the normalized run's main-agent tool calls and answer added.
fn runs_by_session(home: &Path) -> std::collections::BTreeMap<(String, String), Vec<Value>> {
    let stats = json_lines(&cs(home, &["stats", "--json", "--from", "all"]).stdout);
    let mut runs: std::collections::BTreeMap<(String, String), Vec<Value>> = Default::default();
    let events = cs(home, &["events", "--normalized", "--from", "all"]).stdout;
    let mut normalized: Vec<Value> = Vec::new();
    for ev in json_lines(&events) {
        match ev["event"].as_str() {
            Some("run_start") => normalized.push(serde_json::json!({"tools": 0, "answer": null})),
            Some("tool_end") if ev["parent_call_id"].is_null() => {
                if let Some(run) = normalized.last_mut() {
                    run["tools"] = Value::from(run["tools"].as_u64().unwrap() + 1);
                }
            }
            Some("run_end") => {
                if let Some(run) = normalized.last_mut() {
                    run["answer"] = ev["answer"].clone();
                }
            }
            _ => {}
        }
    }
    assert_eq!(
        stats.len(),
        normalized.len(),
        "stats and events --normalized: as many runs"
    );
    for (mut row, run) in stats.into_iter().zip(normalized) {
        row["main_tools"] = run["tools"].clone();
        row["answer"] = run["answer"].clone();
        runs.entry(key(&row)).or_default().push(row);
    }
    runs
}

/// How an expected run and a read one differ (empty: alike).
fn run_differences(want: &Value, got: &Value) -> Vec<String> {
    let mut diffs = Vec::new();
    let status = match got["status"].as_str() {
        Some("error") => "failed",
        other => other.unwrap_or("?"),
    };
    if want["status"] != status {
        diffs.push(format!("status {} read as {status}", want["status"]));
    }
    if !want["model"].is_null() && want["model"] != got["model"] {
        diffs.push(format!("model {} read as {}", want["model"], got["model"]));
    }
    if want["tools"] != got["main_tools"] {
        diffs.push(format!(
            "{} tool calls read as {}",
            want["tools"], got["main_tools"]
        ));
    }
    if let (Some(end), "success") = (want["answer_end"].as_str(), status) {
        let answer = got["answer"].as_str().unwrap_or("").trim_end();
        if !answer.ends_with(end.trim_end()) {
            let tail: String = answer
                .chars()
                .rev()
                .take(40)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            diffs.push(format!("answer ends {end:?}, read {tail:?}"));
        }
    }
    diffs
}

const TOKENS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
];

/// A session's tokens as `usage session --json` gives them: the sum of its rows (one per
/// model it used).
fn session_usage(usage: &[Value], k: &(String, String)) -> Value {
    let rows: Vec<&Value> = usage.iter().filter(|u| key(u) == *k).collect();
    if rows.is_empty() {
        return Value::Null;
    }
    TOKENS
        .iter()
        .map(|t| {
            let sum: u64 = rows.iter().filter_map(|r| r[t].as_u64()).sum();
            (t.to_string(), Value::from(sum))
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Tokens as `usage session --json` gives a session's: null and zeros alike.
fn same_usage(want: &Value, got: &Value) -> bool {
    TOKENS.iter().all(|k| {
        let w = want.get(k).and_then(Value::as_u64).unwrap_or(0);
        let g = got.get(k).and_then(Value::as_u64).unwrap_or(0);
        w == g
    })
}

/// A user's home with every shape of every agent: each session listed with its agent,
/// directory and title; each run read with its status, model, tool calls and answer; each
/// session's tokens; and every view reads it all without a misread line.
#[test]
fn a_home_of_every_shape_reads_as_written() {
    let home = mixed_home();
    let expected = expected_sessions();
    let mut problems: Vec<String> = Vec::new();
    let listed = json_lines(&cs(home.path(), &["sessions", "--json"]).stdout);
    let runs = runs_by_session(home.path());
    let usage: Vec<Value> = json_lines(&cs(home.path(), &["usage", "session", "--json"]).stdout);
    for want in &expected {
        let k = key(want);
        let at = format!("{} {} ({})", k.0, k.1, want["shape"].as_str().unwrap_or(""));
        let Some(row) = listed.iter().find(|s| key(s) == k) else {
            problems.push(format!("{at}: not listed by sessions"));
            continue;
        };
        for field in ["cwd", "title"] {
            if want[field] != row[field] {
                problems.push(format!(
                    "{at}: {field} {} read as {}",
                    want[field], row[field]
                ));
            }
        }
        let want_runs = want["runs"].as_array().unwrap();
        let got_runs = runs.get(&k).map(Vec::as_slice).unwrap_or(&[]);
        if want_runs.len() != got_runs.len() {
            problems.push(format!(
                "{at}: {} runs read as {}",
                want_runs.len(),
                got_runs.len()
            ));
        } else {
            for (i, (w, g)) in want_runs.iter().zip(got_runs).enumerate() {
                for d in run_differences(w, g) {
                    problems.push(format!("{at}: run {}: {d}", i + 1));
                }
            }
        }
        let got_usage = session_usage(&usage, &k);
        if !same_usage(&want["usage"], &got_usage) {
            problems.push(format!(
                "{at}: tokens {} read as {got_usage}",
                want["usage"]
            ));
        }
    }
    for row in &listed {
        if !expected.iter().any(|w| key(w) == key(row)) {
            problems.push(format!(
                "listed but in no shape: {} {}",
                row["agent"], row["session_id"]
            ));
        }
    }
    problems.extend(views_misread(home.path()));
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// What every view says of the mixed home that is not right: a panic, a line read as not
/// an event or not read at all.
fn views_misread(home: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let views: [&[&str]; 12] = [
        &["text"],
        &["result"],
        &["json"],
        &["tools"],
        &["tools", "--json"],
        &["progress"],
        &["stats"],
        &["check"],
        &["transcript"],
        &["transcript", "--html"],
        &["events"],
        &["get", "-c", ".type"],
    ];
    for view in views {
        let mut args = view.to_vec();
        args.extend(["--from", "all"]);
        let out = cs(home, &args);
        if out.code == 101 || out.stderr.contains("panicked") {
            problems.push(format!("{view:?}: panicked: {}", out.stderr));
        }
        for line in out.stderr.lines() {
            if ["not JSON", "without a \"type\"", "unreadable", "error:"]
                .iter()
                .any(|w| line.contains(w))
            {
                problems.push(format!("{view:?}: {line}"));
            }
        }
    }
    problems
}

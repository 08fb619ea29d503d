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

/// A session's `sessions --json` row, by its id.
fn listed<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["session_id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {rows:?}"))
}

/// Item 5: a Claude `summary` titles the session whose line its `leafUuid` names, though
/// Claude Code wrote it into another session's log (the next one, in 1.0); when several
/// name its lines, the one naming the latest. The log it was written in gets no title
/// of it, and a summary that names no line read titles nothing — whether the logs are
/// found in the store or given by path, in either order.
#[test]
fn claude_summaries_title_the_session_whose_line_they_name() {
    let cases = [
        (
            "1.0.98-summary-pair",
            "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
            "1af7fc5e-8455-4414-9ccd-011d40f70b2a",
            "Empty Repo Setup: CLAUDE.md Foundation Created",
        ),
        (
            "2.1.12-summary-pair",
            "cc432c40-914a-4c1a-a972-0103199a736a",
            "68d61609-708d-431d-b552-dc582ffc947b",
            "Fixed lint errors in Go files",
        ),
    ];
    for (name, written_in, named, title) in cases {
        let home = shape("claude", name);
        let logs: Vec<String> = crate::home::files_under(&home)
            .into_iter()
            .map(|p| p.to_str().unwrap().to_string())
            .collect();
        let reversed: Vec<String> = logs.iter().rev().cloned().collect();
        let mut ways: Vec<Vec<&str>> = vec![vec!["sessions", "--json"]];
        for files in [&logs, &reversed] {
            let mut args = vec!["sessions", "--json"];
            args.extend(files.iter().map(String::as_str));
            ways.push(args);
        }
        for args in ways {
            let rows = json_lines(&cs(&home, &args).stdout);
            assert_eq!(listed(&rows, named)["title"], title, "{name} {args:?}");
            assert_eq!(
                listed(&rows, written_in)["title"],
                Value::Null,
                "{name} {args:?}"
            );
        }
    }
    let home = shape("claude", "1.0.24-summaries-top");
    let rows = json_lines(&cs(&home, &["sessions", "--json"]).stdout);
    let session = listed(&rows, "fe869ecb-c176-478f-9734-7e4b8ef12cff");
    assert_eq!(
        session["title"],
        Value::Null,
        "15 summaries of sessions not here"
    );
}

/// The total row of `usage --json`'s tokens (every row summed).
fn usage_tokens(home: &Path, args: &[&str]) -> u64 {
    let out = cs(home, args);
    json_lines(&out.stdout)
        .iter()
        .filter_map(|r| r["total_tokens"].as_u64())
        .sum()
}

/// Item 8: a sub-agent's calls count once, whether its log is read from the store (with
/// its session, or on its own when no log of the session is left), or given by path
/// beside its session's log, in either order.
#[test]
fn claude_sub_agents_calls_count_once() {
    for name in [
        "2.1.17-subagents-dir",
        "2.1.114-subagents-meta-worktree",
        "2.0.28-warmup-agent-files",
        "2.0.60-agent-files-no-parent",
    ] {
        let home = shape("claude", name);
        let logs: Vec<String> = crate::home::files_under(&home)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .map(|p| p.to_str().unwrap().to_string())
            .collect();
        let want = expected_sessions()
            .iter()
            .filter(|s| s["shape"].as_str().is_some_and(|p| p.ends_with(name)))
            .map(|s| {
                TOKENS
                    .iter()
                    .map(|t| s["usage"][t].as_u64().unwrap_or(0))
                    .sum::<u64>()
            })
            .sum::<u64>();
        let from_store = usage_tokens(&home, &["usage", "model", "--json"]);
        assert_eq!(from_store, want, "{name}: from the store");
        for files in [logs.clone(), logs.iter().rev().cloned().collect()] {
            let mut args = vec!["usage", "model", "--json"];
            args.extend(files.iter().map(String::as_str));
            assert_eq!(usage_tokens(&home, &args), want, "{name}: {files:?}");
        }
    }
}

/// Item 8: a Claude stream's `result` counts in its `modelUsage` the side models' calls
/// (Haiku's), which its `usage` (the main model's) leaves out: they are in the run's
/// tokens and have their own model row, not only a part of the cost.
#[test]
fn claude_stream_side_models_are_in_the_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("run.ndjson");
    let lines = [
        r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","tools":[],"model":"claude-sonnet-4-5-20250929","uuid":"u0"}"#,
        r#"{"type":"assistant","message":{"id":"m1","model":"claude-sonnet-4-5-20250929","role":"assistant","content":[{"type":"text","text":"done"}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u1"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"num_turns":1,"result":"done","session_id":"s1","total_cost_usd":0.00225,"usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":10},"modelUsage":{"claude-sonnet-4-5-20250929":{"inputTokens":100,"outputTokens":10,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.00045},"claude-3-5-haiku-20241022":{"inputTokens":2000,"outputTokens":50,"cacheReadInputTokens":0,"cacheCreationInputTokens":0,"costUSD":0.0018}},"uuid":"u2"}"#,
    ];
    std::fs::write(&stream, lines.join("\n") + "\n").unwrap();
    let file = stream.to_str().unwrap();
    let rows = json_lines(&cs(dir.path(), &["usage", "model", "--json", file]).stdout);
    let row = |model: &str| {
        rows.iter()
            .find(|r| r["model"] == model)
            .unwrap_or_else(|| panic!("no {model} row: {rows:?}"))
    };
    assert_eq!(row("claude-3-5-haiku-20241022")["input_tokens"], 2000);
    assert_eq!(row("claude-3-5-haiku-20241022")["output_tokens"], 50);
    assert_eq!(row("claude-sonnet-4-5-20250929")["input_tokens"], 100);
    let stats = json_lines(&cs(dir.path(), &["stats", "--json", file]).stdout);
    assert_eq!(stats[0]["usage"]["input_tokens"], 2100, "{stats:?}");
    assert_eq!(stats[0]["usage"]["output_tokens"], 60, "{stats:?}");
    let cost = stats[0]["usage"]["cost_usd"].as_f64().unwrap();
    assert!((cost - 0.00225).abs() < 1e-9, "{cost}");
}

/// Item 13: Claude's `SessionStart` hook lines come before the `init` of the run they
/// start: `get`'s `$run` is that run's for them, as for its other lines (after another
/// agent's run too).
#[test]
fn hooks_before_init_are_in_the_run_they_start() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    let program = "[$run.agent, $run.session_id, $run.model, $run.index]";
    let alone = fixtures.join("claude/hooks-before-init.ndjson");
    let out = cs(&fixtures, &["get", "-c", program, alone.to_str().unwrap()]);
    let values = json_lines(&out.stdout);
    assert_eq!(values.len(), 13, "{}", out.stdout);
    let run = serde_json::json!([
        "claude",
        "6be1679f-6ae2-4652-ab6f-a7cd62de963a",
        "claude-sonnet-5",
        0
    ]);
    assert!(values.iter().all(|v| *v == run), "{}", out.stdout);
    let mixed = fixtures.join("mixed/qwen-then-claude.ndjson");
    let program = r#"select(.type == "system") | [$run.agent, $run.index, .subtype]"#;
    let out = cs(&fixtures, &["get", "-c", program, mixed.to_str().unwrap()]);
    let hooks: Vec<Value> = json_lines(&out.stdout)
        .into_iter()
        .filter(|v| v[2].as_str().is_some_and(|s| s.starts_with("hook_")))
        .collect();
    assert_eq!(hooks.len(), 6, "{}", out.stdout);
    for hook in hooks.iter().take(4) {
        assert_eq!(hook[0], "claude", "{}", out.stdout);
        assert_eq!(hook[1], 1, "{}", out.stdout);
    }
}

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

/// The one Codex session a shape's HOME holds (or the one named), as `args` read it.
fn codex_rows(shape_name: &str, args: &[&str]) -> Vec<Value> {
    let home = shape("codex", shape_name);
    let out = cs(&home, args);
    assert!(!out.stderr.contains("warning"), "{args:?}: {}", out.stderr);
    json_lines(&out.stdout)
}

fn statuses(runs: &[Value]) -> Vec<&str> {
    runs.iter().map(|r| r["status"].as_str().unwrap()).collect()
}

/// Item 3: Codex rollouts before `task_complete` existed (0.2x–0.6x): a run that ends with
/// the model's answer (then the next prompt, or the end of the file after it) succeeded
/// with that answer; `turn_aborted` is no success, and what Codex wrote after it is still
/// its run's.
#[test]
fn codex_runs_before_task_complete_end_with_their_answer() {
    let runs = codex_rows(
        "0.40-vscode-aborted",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(statuses(&runs), ["no_result", "success", "success"]);
    assert_eq!(runs[0]["tools"]["total"], 28, "the call after turn_aborted");
    let home = shape("codex", "0.40-vscode-aborted");
    let result = cs(&home, &["result", "--from", "codex"]).stdout;
    assert!(
        result
            .trim_end()
            .ends_with("Let me know if you want me to continue with those pieces."),
        "{result}"
    );
    let runs = codex_rows(
        "0.24-fork-bare-items",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(
        statuses(&runs),
        ["no_result", "success", "success", "no_result"]
    );
}

/// Item 4: the first run has the working directory its `session_meta` names (the
/// `turn_context` that names it again comes after the prompt).
#[test]
fn codex_first_run_has_the_session_s_working_directory() {
    let runs = codex_rows(
        "0.58-token-info-null",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(runs[0]["cwd"], "/home/user/projects/temp/chatbot-ui");
    let sessions = codex_rows("0.36-resume-replay", &["sessions", "--json"]);
    for s in &sessions {
        assert_eq!(s["cwd"], "/Users/home/Downloads/CpolarAutoUpdater", "{s}");
    }
}

/// Item 4: with cumulative counts only, what a file's runs used never exceeds the last
/// cumulative count, and a file that starts after earlier turns (0.145's window, whose
/// first count holds 15.9 M tokens of turns cut away) counts its own responses only.
#[test]
fn codex_usage_never_exceeds_the_last_cumulative_count() {
    let rows = codex_rows(
        "0.145-exec-command-compacted",
        &["usage", "session", "--json"],
    );
    let session = rows
        .iter()
        .find(|r| {
            r["file"]
                .as_str()
                .is_some_and(|f| f.ends_with("019f9b36-1e6d-7651-9801-5450483871e2.jsonl"))
        })
        .unwrap();
    let total = session["total_tokens"].as_u64().unwrap();
    assert!(total <= 19_101_397, "{session}");
    assert_eq!(total, 19_101_397 - (16_078_971 - 215_271), "{session}");
}

/// Codex's rollouts before 0.3x (a header `{id,timestamp,instructions}`, bare response
/// items, `{"record_type":"state"}`): Codex's, found by `--from codex` and `sessions` —
/// a file with its header only too — with their prompts, answers and calls, and no
/// warning from any view.
#[test]
fn codex_rollouts_before_0_3x_read_as_codex() {
    for (shape_name, ids, runs) in [
        (
            "0.2x-bare-items",
            [
                "355594bc-df89-40aa-81de-d6d675f11e8b",
                "3cf49b45-003a-44d0-a6b7-498a5a35c810",
            ],
            2,
        ),
        (
            "0.24-fork-bare-items",
            [
                "0006b370-3ba0-4783-b4ad-22ce45b53420",
                "d5dddd2b-12b0-4bf0-92fa-95d18c5daa8f",
            ],
            4,
        ),
    ] {
        let listed = codex_rows(shape_name, &["sessions", "--json"]);
        let mut got: Vec<&str> = listed
            .iter()
            .map(|s| {
                assert_eq!(s["agent"], "codex", "{s}");
                s["session_id"].as_str().unwrap()
            })
            .collect();
        got.sort();
        assert_eq!(got, ids, "{shape_name}");
        let stats = codex_rows(shape_name, &["stats", "--json", "--from", "codex"]);
        assert_eq!(stats.len(), runs, "{shape_name}");
        let home = shape("codex", shape_name);
        for view in [&["text"][..], &["tools"], &["transcript"], &["check"]] {
            let out = cs(&home, &[view, &["--from", "codex"]].concat());
            assert!(
                !out.stderr.contains("warning") && !out.stderr.contains("unreadable"),
                "{shape_name} {view:?}: {}",
                out.stderr
            );
        }
    }
    let runs = codex_rows(
        "0.24-fork-bare-items",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(runs[0]["cwd"], "/Users/kobra/Dev/Chatgpt-Apps/Intel");
}

/// A run that reported an `error` and then completed with no answer
/// (`task_complete{last_agent_message:null}`, 0.121) failed.
#[test]
fn a_codex_run_with_an_error_and_no_answer_failed() {
    let runs = codex_rows(
        "0.121-ollama-shell",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(statuses(&runs), ["error", "error"]);
}

/// A rollout whose window starts mid-turn names its session after the run started
/// (0.145): the run and the session are that session's.
#[test]
fn a_codex_session_named_mid_turn_is_listed() {
    let id = "019f9b36-1e6d-7651-9801-5450483871e2";
    let listed = codex_rows("0.145-exec-command-compacted", &["sessions", "--json"]);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["session_id"], id);
    let runs = codex_rows(
        "0.145-exec-command-compacted",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(runs[0]["session_id"], id);
}

/// A fork's rollout replays its parent: only the fork's own runs and tokens are its. A
/// resume of 0.36 (the replay seconds after the fork's first line, its own counter
/// starting again), a sub-agent of 0.119 (its own turn in the second of the replay).
#[test]
fn a_codex_fork_reads_only_its_own_runs_and_tokens() {
    let listed = codex_rows("0.36-resume-replay", &["sessions", "--json"]);
    let fork = listed
        .iter()
        .find(|s| s["session_id"] == "613a9a68-8816-40b2-a2d4-041ade599da6")
        .expect("the fork with nothing of its own yet is listed");
    assert_eq!(fork["prompts"], 0);
    let usage = codex_rows("0.36-resume-replay", &["usage", "session", "--json"]);
    assert!(
        !usage.iter().any(|u| u["session_id"] == fork["session_id"]),
        "{usage:?}"
    );
    let runs = codex_rows(
        "0.119-subagent-fork-replay",
        &["stats", "--json", "--from", "codex"],
    );
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["model"], "gpt-5.4-mini");
    assert_eq!(runs[0]["usage"]["input_tokens"], 36_910);
}

/// A line of a 0.36 rollout at `ms` after 10:00 on 2025-09-16.
fn rollout_line(ms: u64, kind: &str, payload: &str) -> String {
    let at = format!(
        "2025-09-16T10:{:02}:{:02}.{:03}Z",
        ms / 60_000,
        ms / 1000 % 60,
        ms % 1000
    );
    format!(r#"{{"timestamp":"{at}","type":"{kind}","payload":{payload}}}"#)
}

/// A turn of a 0.36 rollout at `ms`: its prompt, its count (cumulative `total` input
/// tokens, `last` its response's), its answer.
fn rollout_turn(ms: u64, words: &str, total: u64, last: u64) -> [String; 3] {
    let usage = |n: u64| {
        format!(
            r#"{{"input_tokens":{n},"cached_input_tokens":0,"output_tokens":10,"reasoning_output_tokens":0,"total_tokens":{}}}"#,
            n + 10
        )
    };
    [
        rollout_line(
            ms,
            "event_msg",
            &format!(r#"{{"type":"user_message","message":"{words}","kind":"plain"}}"#),
        ),
        rollout_line(
            ms + 100,
            "event_msg",
            &format!(
                r#"{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{}}}}}"#,
                usage(total),
                usage(last)
            ),
        ),
        rollout_line(
            ms + 200,
            "response_item",
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}"#,
        ),
    ]
}

/// Remark D5 of review-6f50fcc: a replay written over more than a second (a long
/// history) is still the parent's, though its lines pass the second of the fork's first
/// line; the fork's own turn, typed later, is the fork's, its counter starting again.
#[test]
fn a_codex_replay_over_seconds_is_not_the_fork_s() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".codex/sessions/2025/09/16");
    std::fs::create_dir_all(&dir).unwrap();
    let meta = |ms: u64, id: &str| {
        let payload = format!(
            r#"{{"id":"{id}","timestamp":"2025-09-16T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.36.0","instructions":null}}"#
        );
        rollout_line(ms, "session_meta", &payload)
    };
    let fork = "613a9a68-8816-40b2-a2d4-041ade599da6";
    let mut lines = vec![
        meta(900, fork),
        meta(950, "9cd28a74-da7e-4458-a91a-fffec2be9d7a"),
    ];
    // The parent's three turns, replayed a line every 100 ms: 1.5 s.
    for turn in 0..3u64 {
        let words = format!("parent {turn}");
        lines.extend(rollout_turn(
            1000 + 500 * turn,
            &words,
            1000 * (turn + 1),
            1000,
        ));
    }
    lines.extend(rollout_turn(30_000, "the fork's own", 500, 500));
    std::fs::write(
        dir.join(format!("rollout-2025-09-16T10-00-00-{fork}.jsonl")),
        lines.join("\n") + "\n",
    )
    .unwrap();
    let out = cs(home.path(), &["stats", "--json", "--from", "codex"]);
    let runs = json_lines(&out.stdout);
    assert_eq!(runs.len(), 1, "{}", out.stdout);
    assert_eq!(runs[0]["status"], "success");
    assert_eq!(runs[0]["usage"]["input_tokens"], 500, "{}", out.stdout);
}

/// What the tools of 0.145 say: a patch Codex could not apply (as `apply_patch`, or run
/// through `exec_command`) and a code-mode script that failed are failures; every call is
/// timed by its lines; `write_stdin`, `wait`, `apply_patch` and code mode's `exec` have a
/// main argument; each keeps its own name (item 12: `exec_command`, not the stream's
/// `command_execution`).
#[test]
fn codex_tools_of_0_145_read_as_their_outputs_say() {
    let calls = codex_rows(
        "0.145-exec-command-compacted",
        &["tools", "--json", "--from", "codex"],
    );
    assert_eq!(calls.len(), 19);
    for call in &calls {
        assert!(call["duration_ms"].is_u64(), "{call}");
    }
    let failed: Vec<&str> = calls
        .iter()
        .filter(|c| c["status"] == "failed")
        .map(|c| c["tool"].as_str().unwrap())
        .collect();
    assert_eq!(
        failed,
        [
            "exec_command",
            "exec_command",
            "wait",
            "apply_patch",
            "exec_command"
        ]
    );
    let home = shape("codex", "0.145-exec-command-compacted");
    let text = cs(&home, &["tools", "--from", "codex"]).stdout;
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        assert!(fields.len() > 4, "a call with no main argument: {line}");
    }
    for (tool, target) in [
        ("write_stdin", "session 12556"),
        ("wait", "cell 12556"),
        ("apply_patch", "dataset/preprocess_dataset.py"),
        ("exec", "const r = await tools.exec_command("),
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains(&format!(" {tool} ")) && l.contains(target)),
            "{tool}: {text}"
        );
    }
}

/// A shape's HOME copied where a test may change it.
fn home_copy(agent: &str, shape_name: &str) -> tempfile::TempDir {
    let from = shape(agent, shape_name);
    let home = tempfile::tempdir().unwrap();
    for file in crate::home::files_under(&from) {
        let to = home.path().join(file.strip_prefix(&from).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    home
}

/// The only file of `home` whose name ends with `ext`.
fn only_file(home: &Path, ext: &str) -> PathBuf {
    let files: Vec<PathBuf> = crate::home::files_under(home)
        .into_iter()
        .filter(|p| p.to_str().unwrap().ends_with(ext))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// Gemini's chats are in a folder of their project's: its root is their working
/// directory, as `projects.json` maps it (`.project_root` says it when the map does not),
/// and `--project` keeps them by it; an old sha256 folder names none.
#[test]
fn gemini_chats_have_their_project_root_as_working_directory() {
    let home = shape("gemini", "0.3x-json-slug");
    let listed = json_lines(&cs(&home, &["sessions", "--json"]).stdout);
    let cwd = |id: &str| {
        listed
            .iter()
            .find(|s| s["session_id"].as_str().unwrap().starts_with(id))
            .unwrap()["cwd"]
            .clone()
    };
    assert_eq!(cwd("f3bcbc84"), "c:\\users\\loganf\\documents\\idaho-vault");
    assert_eq!(cwd("7e51bdf8"), Value::Null, "a sha256 folder");
    let home = shape("gemini", "0.4x-jsonl-reappend");
    let out = cs(&home, &["stats", "--json", "--from", "gemini"]);
    let runs = json_lines(&out.stdout);
    assert_eq!(runs[0]["cwd"], "/home/m09_tapan", "{}", out.stdout);
    let out = cs(&home, &["stats", "--json", "--project", "/home/m09_tapan"]);
    assert_eq!(json_lines(&out.stdout).len(), runs.len(), "{}", out.stderr);
}

/// A prompt answered only by an `error` message (the model's quota) failed, with the
/// error's words; the chat's `error`, `user` and `$set` lines are its log's, so no line
/// of it is misread.
#[test]
fn gemini_prompt_answered_by_an_error_alone_failed() {
    let home = shape("gemini", "0.39-jsonl-api-error");
    let file = only_file(&home, ".jsonl");
    let file = file.to_str().unwrap();
    let out = cs(&home, &["json", file]);
    let run = json_lines(&out.stdout).pop().unwrap();
    assert_eq!(run["status"], "error", "{}", out.stdout);
    assert!(
        run["error"]
            .as_str()
            .unwrap()
            .contains("You have exhausted your capacity"),
        "{run}"
    );
    assert_eq!(run["result"], Value::Null);
    let out = cs(&home, &["check", file]);
    assert!(!out.stdout.contains("malformed"), "{}", out.stdout);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

/// The A2A server's chats (every one with the session id `a2a-server`) often hold no
/// prompt: only their first record, or the history as a `$set`. Each is a session all the
/// same, with no run.
#[test]
fn gemini_chats_without_a_prompt_are_sessions_without_runs() {
    let home = shape("gemini", "0.4x-jsonl-a2a-server");
    let listed = json_lines(&cs(&home, &["sessions", "--json"]).stdout);
    assert_eq!(listed.len(), 3, "{listed:?}");
    for s in &listed {
        assert_eq!(s["session_id"], "a2a-server");
        assert_eq!(s["prompts"], 0);
        assert_eq!(s["cwd"], "/home/m09_tapan");
    }
    assert!(cs(&home, &["stats", "--json"]).stdout.is_empty());
}

/// A sub-agent's chat whose session's is gone is a session of its own, read as the
/// document it is.
#[test]
fn gemini_subagent_chat_without_its_session_is_a_session() {
    let home = shape("gemini", "0.3x-json-subagent");
    let listed = json_lines(&cs(&home, &["sessions", "--json"]).stdout);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["session_id"], "twynek");
    assert_eq!(listed[0]["prompts"], 2);
    let out = cs(&home, &["tools", "--json", "--from", "gemini"]);
    assert_eq!(json_lines(&out.stdout).len(), 10, "{}", out.stderr);
    assert!(!out.stderr.contains("warning"), "{}", out.stderr);
}

/// The sub-agent's chat (`tmp/idaho-vault/chats/f328310d-…/twynek.json`) with the chat of
/// the session that ran it, made by hand: a document before 0.39, or a log with the call
/// that names the sub-agent (`agentId`) since.
fn gemini_session_with_subagent(log: bool) -> tempfile::TempDir {
    let home = home_copy("gemini", "0.3x-json-subagent");
    let chats = home.path().join(".gemini/tmp/idaho-vault/chats");
    let session = "f328310d-05ea-45ce-b9cb-fe2717bebe12";
    let messages = [
        serde_json::json!({"id": "p1", "timestamp": "2026-04-13T21:51:00.000Z", "type": "user", "content": [{"text": "why do the workflows fail?"}]}),
        serde_json::json!({"id": "a1", "timestamp": "2026-04-13T21:53:20.000Z", "type": "gemini", "content": "",
            "tokens": {"input": 1000, "output": 10, "cached": 0, "thoughts": 0, "tool": 0, "total": 1010}, "model": "gemini-2.5-pro",
            "toolCalls": [{"id": "codebase_investigator_1", "name": "codebase_investigator", "args": {}, "status": "success",
                "timestamp": "2026-04-13T21:53:13.000Z", "agentId": "twynek",
                "result": [{"functionResponse": {"id": "codebase_investigator_1", "name": "codebase_investigator", "response": {"output": "partial findings"}}}]}]}),
        serde_json::json!({"id": "a2", "timestamp": "2026-04-13T21:53:30.000Z", "type": "gemini", "content": "Two requirements files disagree on requests.",
            "tokens": {"input": 2000, "output": 20, "cached": 0, "thoughts": 0, "tool": 0, "total": 2020}, "model": "gemini-2.5-pro"}),
    ];
    let meta = serde_json::json!({"sessionId": session, "projectHash": "f1995df9", "startTime": "2026-04-13T21:51:00.000Z", "lastUpdated": "2026-04-13T21:53:30.000Z", "kind": "main"});
    let sub = chats.join(session).join("twynek.json");
    if log {
        let mut lines = vec![meta.to_string()];
        lines.extend(messages.iter().map(Value::to_string));
        std::fs::write(
            chats.join("session-2026-04-13T21-51-f328310d.jsonl"),
            lines.join("\n") + "\n",
        )
        .unwrap();
        let doc: Value = serde_json::from_slice(&std::fs::read(&sub).unwrap()).unwrap();
        let mut lines = Vec::new();
        let mut first = doc.clone();
        first.as_object_mut().unwrap().remove("messages");
        lines.push(first.to_string());
        for m in doc["messages"].as_array().unwrap() {
            lines.push(m.to_string());
            lines.push(r#"{"$set":{"lastUpdated":"2026-04-13T21:53:12.279Z"}}"#.to_string());
        }
        std::fs::write(sub.with_extension("jsonl"), lines.join("\n") + "\n").unwrap();
        std::fs::remove_file(&sub).unwrap();
    } else {
        let mut doc = meta;
        doc["messages"] = Value::from(messages.to_vec());
        std::fs::write(
            chats.join("session-2026-04-13T21-51-f328310d.json"),
            serde_json::to_vec_pretty(&doc).unwrap(),
        )
        .unwrap();
    }
    home
}

/// With its session's chat there, a sub-agent's chat is no session of its own: read
/// with its session, its tokens in the session's and its calls under the call that ran
/// it (the `agentId` that names it, else its own id), none a call of the session's own.
#[test]
fn gemini_subagent_chats_are_read_with_their_session() {
    for log in [false, true] {
        let home = gemini_session_with_subagent(log);
        let listed = json_lines(&cs(home.path(), &["sessions", "--json"]).stdout);
        assert_eq!(listed.len(), 1, "log {log}: {listed:?}");
        assert_eq!(listed[0]["prompts"], 1);
        assert_eq!(listed[0]["status"], "success");
        let usage = json_lines(&cs(home.path(), &["usage", "session", "--json"]).stdout);
        // 3,000 of the session's own, 1,085,834 of the sub-agent's.
        assert_eq!(
            usage[0]["input_tokens"].as_u64().unwrap()
                + usage[0]["cache_read_tokens"].as_u64().unwrap(),
            1_088_834,
            "log {log}: {usage:?}"
        );
        let out = cs(home.path(), &["tools", "--json", "--from", "gemini"]);
        let calls = json_lines(&out.stdout);
        assert_eq!(calls.len(), 11, "log {log}: {}", out.stderr);
        let parent = if log {
            "codebase_investigator_1"
        } else {
            "twynek"
        };
        let under: Vec<&Value> = calls
            .iter()
            .filter(|c| c["parent_call_id"] == parent)
            .collect();
        assert_eq!(under.len(), 10, "log {log}: {calls:?}");
        assert!(!out.stderr.contains("warning"), "log {log}: {}", out.stderr);
        let text = cs(home.path(), &["result", "--from", "gemini"]).stdout;
        assert_eq!(
            text.trim(),
            "Two requirements files disagree on requests.",
            "log {log}"
        );
    }
}

/// A call's result is what the model got back (the `functionResponse`'s `output`), as
/// the stream's `tool_result` gives it: not the rows of styled terminal cells the CLI
/// drew for a shell (`resultDisplay`).
#[test]
fn gemini_tool_results_are_what_the_model_read() {
    let home = shape("gemini", "0.39-jsonl");
    let out = cs(&home, &["tools", "--json", "--from", "gemini"]);
    let calls = json_lines(&out.stdout);
    assert_eq!(
        calls[0]["result"], "Output: (empty)\nProcess Group PGID: 8597",
        "{}",
        out.stdout
    );
    let transcript = cs(&home, &["transcript", "--from", "gemini"]).stdout;
    assert!(!transcript.contains("\"bold\""), "{transcript}");
    assert!(
        transcript.contains("Process Group PGID: 8597"),
        "{transcript}"
    );
}

/// `--agent gemini` reads a chat as the log it is, whatever its first line (here a
/// prompt: the log cut before its first record) or a document.
#[test]
fn gemini_named_reads_a_chat_as_its_log() {
    let home = home_copy("gemini", "0.39-jsonl");
    let file = only_file(home.path(), ".jsonl");
    let text = std::fs::read_to_string(&file).unwrap();
    let cut = home.path().join("cut.jsonl");
    std::fs::write(&cut, text.split_once('\n').unwrap().1).unwrap();
    let doc = only_file(&shape("gemini", "0.6-json-sha256"), "38d857b1.json");
    for (file, runs) in [(cut.as_path(), 5), (doc.as_path(), 3)] {
        let out = cs(
            home.path(),
            &[
                "--agent",
                "gemini",
                "stats",
                "--json",
                file.to_str().unwrap(),
            ],
        );
        assert_eq!(
            json_lines(&out.stdout).len(),
            runs,
            "{file:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("warning"), "{file:?}: {}", out.stderr);
    }
}

/// A chat's messages are whole messages: `text` keeps them apart, where the stream's
/// pieces of one answer are joined with nothing.
#[test]
fn gemini_text_keeps_a_chat_s_messages_apart() {
    let home = shape("gemini", "0.39-jsonl");
    let text = cs(&home, &["text", "--from", "gemini"]).stdout;
    assert!(
        text.contains("to your `.bashrc` file.\n\nThe `COLORTERM` export"),
        "{text}"
    );
}

/// Issue 36, item 11: a call without an `id` (no real chat has one: the real one with its
/// ids taken out) is listed once, with its status.
#[test]
fn gemini_call_without_id_is_listed_once() {
    let home = home_copy("gemini", "0.39-jsonl");
    let file = only_file(home.path(), ".jsonl");
    let lines: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for call in v["toolCalls"].as_array_mut().into_iter().flatten() {
                call.as_object_mut().unwrap().remove("id");
            }
            v.to_string()
        })
        .collect();
    std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    let out = cs(home.path(), &["tools", "--json", "--from", "gemini"]);
    let calls = json_lines(&out.stdout);
    let statuses: Vec<&str> = calls
        .iter()
        .map(|c| c["status"].as_str().unwrap())
        .collect();
    assert_eq!(
        statuses,
        ["success", "cancelled", "cancelled"],
        "{}",
        out.stdout
    );
    assert!(calls.iter().all(|c| c["call_id"] == ""), "{}", out.stdout);
}

/// Qwen Code 0.2 kept a chat as Gemini's documents (`tmp/<hash>/chats/session-*.json`,
/// answers of type `qwen`), a sub-agent's run as another document under the session's
/// id: found by `--from qwen`, read as Qwen's, the sub-agent's run in its session (its
/// tokens, no run of its own), by path too.
#[test]
fn qwen_0_2_documents_are_qwen_sessions() {
    let home = shape("qwen", "0.2-json-tmp");
    let listed = json_lines(&cs(&home, &["sessions", "--json", "--from", "qwen"]).stdout);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["agent"], "qwen");
    assert_eq!(listed[0]["prompts"], 2);
    let usage = json_lines(&cs(&home, &["usage", "session", "--json"]).stdout);
    assert_eq!(usage[0]["input_tokens"], 66453, "{usage:?}");
    assert_eq!(usage[0]["output_tokens"], 2378, "{usage:?}");
    let main = crate::home::files_under(&home)
        .into_iter()
        .find(|p| p.to_str().unwrap().ends_with("12-44-8524132a.json"))
        .unwrap();
    let out = cs(&home, &["stats", "--json", main.to_str().unwrap()]);
    let runs = json_lines(&out.stdout);
    assert_eq!(runs.len(), 2, "{}", out.stderr);
    assert!(
        runs.iter()
            .all(|r| r["agent"] == "qwen" && r["status"] == "success"),
        "{}",
        out.stdout
    );
}

/// A Qwen run whose every model call failed names its model all the same: the failed
/// calls' telemetry does.
#[test]
fn qwen_run_of_failed_calls_names_its_model() {
    let home = shape("qwen", "0.17-jsonl-api-error");
    let runs = json_lines(&cs(&home, &["stats", "--json", "--from", "qwen"]).stdout);
    assert_eq!(runs[0]["model"], "qwen3.6-plus", "{runs:?}");
    assert_eq!(runs[0]["status"], "error");
}

/// Item 14: OpenCode's JSON storage before 1.2 (`storage/session/…`, and 0.5's
/// `project/<p>/storage/session/info/…`) is found by `--from` and `sessions`, by a session
/// id's start and by `--project`; a session that 1.2 copied into the database (leaving the
/// files) is read from the database only.
#[test]
fn opencode_json_storage_is_found_and_read() {
    for (name, id, cwd) in [
        ("0.5-project-storage", "ses_75395a01", "/home/noah"),
        (
            "0.14-json-storage",
            "ses_6426f0a6",
            "/Users/user/Projects/myproject",
        ),
        (
            "1.1-json-storage",
            "ses_3ee1d6eb",
            "/home/bot4u/Desktop/GEMINI",
        ),
    ] {
        let home = shape("opencode", name);
        let listed = json_lines(&cs(&home, &["sessions", "--json"]).stdout);
        assert_eq!(listed.len(), 1, "{name}: {listed:?}");
        assert!(listed[0]["session_id"].as_str().unwrap().starts_with(id));
        assert_eq!(listed[0]["cwd"], cwd, "{name}");
        for args in [
            &["stats", "--json", "--from", "opencode"][..],
            &["stats", "--json", id],
            &["stats", "--json", "--from", "opencode", "--project", cwd],
        ] {
            let runs = json_lines(&cs(&home, args).stdout);
            assert_eq!(runs.len(), 1, "{name} {args:?}");
            assert_eq!(runs[0]["agent"], "opencode", "{name} {args:?}");
        }
        let elsewhere = cs(
            &home,
            &[
                "stats",
                "--json",
                "--from",
                "opencode",
                "--project",
                "/nowhere",
            ],
        );
        assert!(elsewhere.stdout.is_empty(), "{name}: {}", elsewhere.stdout);
    }
    // 1.2 migrated the files into the database and left them.
    let home = home_copy("opencode", "1.17-sqlite");
    let data = home.path().join(".local/share/opencode/storage");
    std::fs::create_dir_all(data.join("session/global")).unwrap();
    std::fs::write(
        data.join("session/global/ses_1278e1f37ffelIDlCdpXIGV74U.json"),
        r#"{"id":"ses_1278e1f37ffelIDlCdpXIGV74U","title":"Commit","directory":"/home/build","time":{"created":1781600000000,"updated":1781600000000}}"#,
    )
    .unwrap();
    let listed = json_lines(&cs(home.path(), &["sessions", "--json"]).stdout);
    let ids: Vec<&str> = listed
        .iter()
        .filter_map(|s| s["session_id"].as_str())
        .collect();
    assert_eq!(ids.len(), 3, "{ids:?}");
    assert!(
        listed
            .iter()
            .all(|s| s["file"].as_str().unwrap().ends_with("opencode.db"))
    );
}

/// The runs `stats --json` reads of a HOME's logs of `agent`.
fn stats_of(home: &Path, agent: &str) -> Vec<Value> {
    json_lines(&cs(home, &["stats", "--json", "--from", agent]).stdout)
}

/// OpenCode: the user's own shell commands (`!ls`: a `user` message of `synthetic` text
/// only, and the answer that ran it) are no runs, and their calls no run's.
#[test]
fn opencode_shell_commands_are_not_runs() {
    let runs = stats_of(&shape("opencode", "1.17-sqlite"), "opencode");
    let session: Vec<&Value> = runs
        .iter()
        .filter(|r| r["session_id"] == "ses_1279fce82ffeZOJhNwml1w1Fu4")
        .collect();
    let read: Vec<(&str, u64)> = session
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap(),
                r["tools"]["total"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(read, [("success", 4), ("no_result", 4)]);
}

/// OpenCode: the user's stopping an answer (`MessageAbortedError`) leaves the run without
/// a result, in a session log and in a stream; a step that says no reason (before 1.1)
/// ends the answer when its message completed without an error and it called no tool.
#[test]
fn opencode_aborted_is_no_result_and_reasonless_steps_stop() {
    let aborted = stats_of(&shape("opencode", "1.1-json-storage"), "opencode");
    assert_eq!(aborted[0]["status"], "no_result", "{aborted:?}");
    let stream = [
        r#"{"type":"step_start","timestamp":1,"sessionID":"ses_a","part":{"type":"step-start"}}"#,
        r#"{"type":"text","timestamp":2,"sessionID":"ses_a","part":{"id":"p1","type":"text","text":"Working"}}"#,
        r#"{"type":"error","timestamp":3,"sessionID":"ses_a","error":{"name":"MessageAbortedError","data":{"message":"The operation was aborted."}}}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.ndjson");
    std::fs::write(&file, stream.join("\n") + "\n").unwrap();
    let run = json_lines(&cs(dir.path(), &["stats", "--json", file.to_str().unwrap()]).stdout);
    assert_eq!(run[0]["status"], "no_result", "{run:?}");
    let stopped = stats_of(&shape("opencode", "0.14-json-storage"), "opencode");
    assert_eq!(stopped[0]["status"], "success", "{stopped:?}");
}

/// OpenCode: a run lasts from its prompt to its last step's end (one step: not 0 ms);
/// text parts of white space alone are no text (words are kept as written, white space
/// before them too: `tests/fixtures/agents/opencode/done-record.ndjson`).
#[test]
fn opencode_runs_last_and_blank_text_is_none() {
    let home = shape("opencode", "1.17-sqlite");
    for run in stats_of(&home, "opencode") {
        assert!(run["duration_ms"].as_u64() > Some(0), "{run}");
    }
    let events = cs(&home, &["events", "--normalized", "--from", "opencode"]).stdout;
    for ev in json_lines(&events) {
        if ev["event"] == "text" {
            assert!(!ev["text"].as_str().unwrap().trim().is_empty(), "{ev}");
        }
    }
}

/// Item 14: Cursor's transcripts before JSONL (`agent-transcripts/<id>.txt`) are found by
/// `--from` and `sessions`, by a session id's start and by `--project`; a chat is one
/// session whichever files hold it (the `.txt` beside its first `.jsonl`, the
/// `<id>/<id>.jsonl` before both).
#[test]
fn cursor_txt_transcripts_are_found_and_read() {
    let home = home_copy("cursor", "2026.02-txt");
    let listed = json_lines(&cs(home.path(), &["sessions", "--json"]).stdout);
    assert_eq!(listed.len(), 3, "{listed:?}");
    assert!(
        listed
            .iter()
            .all(|s| s["file"].as_str().unwrap().ends_with(".txt"))
    );
    let runs = json_lines(&cs(home.path(), &["stats", "--json", "41c1c37e"]).stdout);
    let tools: Vec<u64> = runs
        .iter()
        .map(|r| r["tools"]["total"].as_u64().unwrap())
        .collect();
    assert_eq!(tools, [0, 1, 4, 1]);
    for (dir, sessions) in [
        ("/home/ubuntu", 3),
        ("/home/ubuntu/manufacturing-dashboard", 1),
    ] {
        let args = ["sessions", "--json", "--from", "cursor", "--project", dir];
        assert_eq!(
            json_lines(&cs(home.path(), &args).stdout).len(),
            sessions,
            "{dir}"
        );
    }
    // The same chat written again in the newest shape.
    let chats = home
        .path()
        .join(".cursor/projects/home-ubuntu/agent-transcripts");
    let id = "41c1c37e-7952-4fc4-aa62-375561c2f1bf";
    std::fs::create_dir_all(chats.join(id)).unwrap();
    std::fs::write(
        chats.join(id).join(format!("{id}.jsonl")),
        "{\"role\":\"user\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"<user_query>\\nhi\\n</user_query>\"}]}}\n",
    )
    .unwrap();
    let listed = json_lines(&cs(home.path(), &["sessions", "--json"]).stdout);
    let chat: Vec<&Value> = listed.iter().filter(|s| s["session_id"] == id).collect();
    assert_eq!(chat.len(), 1, "{listed:?}");
    assert!(chat[0]["file"].as_str().unwrap().ends_with(".jsonl"));
    // The `.txt` beside the first `.jsonl` is read: it keeps the calls.
    let pair = shape("cursor", "2026.02-flat-jsonl-txt");
    let listed = json_lines(&cs(&pair, &["sessions", "--json"]).stdout);
    assert_eq!(listed.len(), 2, "{listed:?}");
    assert!(
        listed
            .iter()
            .all(|s| s["file"].as_str().unwrap().ends_with(".txt"))
    );
}

/// Item 10: a transcript records no starts, no ids and no results; `check` judges it by
/// what it can say (no call ends without its start, no turn is a second result, the answer
/// is the run's whole text), `events` finds its lines, every call has an id, and a
/// sub-agent's calls are under its `Task` call.
#[test]
fn cursor_transcripts_check_by_what_they_say() {
    for name in [
        "2026.02-txt",
        "2026.02-flat-jsonl-txt",
        "2026.04-nested-jsonl",
        "2026.08-nested-subagents",
    ] {
        let home = shape("cursor", name);
        let check = cs(&home, &["check", "--json", "--from", "cursor"]);
        let summary = json_lines(&check.stdout).pop().unwrap();
        for kind in [
            "completion_without_start",
            "duplicate_result",
            "text_differs",
        ] {
            assert!(summary["by_kind"][kind].is_null(), "{name}: {summary}");
        }
        let events = cs(&home, &["events", "--from", "cursor"]);
        assert_eq!(events.code, 0, "{name}: {}", events.stderr);
        let json = cs(&home, &["json", "--from", "cursor"]);
        assert!(!json.stdout.is_empty(), "{name}: json printed nothing");
        for call in json_lines(&cs(&home, &["tools", "--json", "--from", "cursor"]).stdout) {
            assert!(
                !call["call_id"].as_str().unwrap().is_empty(),
                "{name}: {call}"
            );
        }
    }
    let home = shape("cursor", "2026.08-nested-subagents");
    let check = cs(&home, &["check", "--from", "cursor"]);
    assert_eq!(check.code, 0, "{}", check.stdout);
    let calls = json_lines(&cs(&home, &["tools", "--json", "--from", "cursor"]).stdout);
    let task = calls.iter().find(|c| c["tool"] == "Task").unwrap();
    let under: Vec<&Value> = calls
        .iter()
        .filter(|c| c["parent_call_id"] == task["call_id"])
        .collect();
    assert_eq!(under.len(), 8, "{calls:?}");
    let listed = json_lines(&cs(&home, &["sessions", "--json"]).stdout);
    assert_eq!(listed.len(), 3, "a sub-agent is no session: {listed:?}");
}

/// A HOME with one Cursor transcript of `lines`, its file last changed at `at` (epoch s).
fn cursor_home(lines: &[&str], at: u64) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".cursor/projects/w/agent-transcripts/c1");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("c1.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(at);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(when)
        .unwrap();
    home
}

/// Cursor transcripts written before `turn_ended`: a run that ends with the answer's text
/// (then the next prompt, or the end of the file) is a success, one that ends at a call
/// did not finish; a line of context alone is no prompt; with no `<timestamp>`, the
/// session's times are its file's.
#[test]
fn cursor_transcripts_before_turn_ended() {
    let user = |text: &str| {
        format!(
            r#"{{"role":"user","message":{{"content":[{{"type":"text","text":{}}}]}}}}"#,
            Value::from(text)
        )
    };
    let said = |text: &str| {
        format!(
            r#"{{"role":"assistant","message":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
        )
    };
    let called = r#"{"role":"assistant","message":{"content":[{"type":"tool_use","name":"Shell","input":{"command":"ls"}}]}}"#;
    let lines = [
        user("<user_query>\nlist it\n</user_query>"),
        called.to_string(),
        said("Here it is."),
        user(
            "<attached_files>\n<code_selection path=\"a.rs\">x</code_selection>\n</attached_files>",
        ),
        said("And more."),
        user("<user_query>\nagain\n</user_query>"),
        called.to_string(),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let home = cursor_home(&lines, 1_767_225_600);
    let runs = stats_of(home.path(), "cursor");
    let read: Vec<(&str, u64)> = runs
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap(),
                r["tools"]["total"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(read, [("success", 1), ("no_result", 1)]);
    let session = json_lines(&cs(home.path(), &["sessions", "--json"]).stdout)
        .pop()
        .unwrap();
    assert_eq!(session["prompts"], 2, "{session}");
    assert_eq!(session["first_prompt"], "list it", "{session}");
    assert_eq!(session["started_ms"], 1_767_225_600_000u64, "{session}");
    assert_eq!(
        session["last_activity_ms"], 1_767_225_600_000u64,
        "{session}"
    );
    let results = json_lines(&cs(home.path(), &["json", "--from", "cursor"]).stdout);
    assert_eq!(results[0]["result"], "Here it is.And more.", "{results:?}");
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

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

/// Tokens as `usage session --json` gives a session's, a row per model (summed): null
/// and zeros alike.
fn same_usage(want: &Value, got: &[&Value]) -> bool {
    let keys = [
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
    ];
    keys.iter().all(|k| {
        let w = want.get(k).and_then(Value::as_u64).unwrap_or(0);
        let g: u64 = got.iter().filter_map(|g| g[k].as_u64()).sum();
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
        let got_usage: Vec<&Value> = usage.iter().filter(|u| key(u) == k).collect();
        if !same_usage(&want["usage"], &got_usage) {
            problems.push(format!(
                "{at}: tokens {} read as {:?}",
                want["usage"], got_usage
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

/// A shape's HOME copied into a new one, to add to it.
fn copy_of(agent: &str, name: &str) -> tempfile::TempDir {
    let from = shape(agent, name);
    let home = tempfile::tempdir().unwrap();
    for file in crate::home::files_under(&from) {
        let to = home.path().join(file.strip_prefix(&from).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
    home
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
    let home = copy_of("opencode", "1.17-sqlite");
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
    let home = copy_of("cursor", "2026.02-txt");
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

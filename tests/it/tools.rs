//! `tools` and `progress`, run as a user runs them, on the project's fixtures.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn cs(args: &[&str], file: &str) -> assert_cmd::assert::Assert {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("NO_COLOR").args(args).arg(fixture(file));
    cmd.assert()
}

fn stdout_of(args: &[&str], file: &str) -> String {
    String::from_utf8(cs(args, file).get_output().stdout.clone()).unwrap()
}

fn json_calls(args: &[&str], file: &str) -> Vec<Value> {
    let mut all = vec!["tools", "--json"];
    all.extend_from_slice(args);
    stdout_of(&all, file)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn tools_lists_each_call_with_status_target_outcome_and_duration() {
    cs(&["tools"], "nopartial.ndjson").code(0).stdout(
        "ok        read            50 ms  notes.txt — 3 lines\n\
         ok        shell          199 ms  wc -l notes.txt — exit 0\n\
         ok        edit            80 ms  count.txt — +1 −0\n",
    );
}

#[test]
fn tools_keeps_start_order_when_parallel_calls_complete_out_of_order() {
    cs(&["tools"], "parallel.ndjson").code(0).stdout(
        "ok        shell           3.0 s  sleep 3 — exit 0\n\
         ok        shell           1.0 s  sleep 1 — exit 0\n",
    );
}

#[test]
fn tools_handles_the_shapes_that_break_naive_readers() {
    cs(&["tools"], "tools-edge.ndjson").code(0).stdout(
        "error     read            12 ms  missing.rs — File not found: missing.rs\n\
         ok        task            1.2 s  Explore the repo\n\
         ok        shell           50 ms  npm run dev — exit 0\n\
         error     grep             7 ms  'TODO(' in src — regex parse error: unclosed group\n\
         ok        fancyNew       300 ms  what is new\n\
         pending   shell               -  sleep 100\n",
    );
}

#[test]
fn tool_failures_do_not_change_the_exit_status() {
    cs(&["tools"], "partial.ndjson")
        .code(0)
        .stdout(predicate::str::starts_with("rejected  shell"));
    cs(&["tools"], "no-result.ndjson").code(3);
    cs(&["tools"], "failed.ndjson").code(1);
}

#[test]
fn tools_json_schema() {
    let calls = json_calls(&[], "partial.ndjson");
    assert_eq!(calls.len(), 2);
    let keys: Vec<&str> = calls[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected = [
        "call_id",
        "tool",
        "status",
        "args",
        "result",
        "session_id",
        "started_at_ms",
        "completed_at_ms",
        "duration_ms",
        "agent",
        "parent_call_id",
        "file",
        "kind",
    ];
    let mut sorted = keys.clone();
    sorted.sort();
    expected.sort();
    assert_eq!(sorted, expected);

    let rejected = &calls[0];
    assert_eq!(
        rejected["call_id"],
        "call-7c1d2e3f-0a1b-4c5d-8e9f-0a1b2c3d4e5f-0\nfc_3b2a1908-7766-4554-a332-211000ffeedd_0"
    );
    assert_eq!(rejected["tool"], "shell");
    assert_eq!(rejected["kind"], "shell");
    assert_eq!(calls[1]["kind"], "read");
    assert_eq!(rejected["status"], "rejected");
    // The completion has no args: they come from the start.
    assert_eq!(rejected["args"]["command"], "cargo test cart");
    assert_eq!(rejected["result"]["reason"], "");
    assert_eq!(
        rejected["session_id"],
        "5f1c2a9e-8d44-4c1e-9b7a-2e6f0c3d9a11"
    );
    assert_eq!(rejected["started_at_ms"], 1790000000100u64);
    assert_eq!(rejected["completed_at_ms"], 1790000000900u64);
    assert_eq!(rejected["duration_ms"], 800);
    assert_eq!(calls[1]["result"]["totalLines"], 3);
    // The input each row came from, as named on the command line.
    let path = fixture("partial.ndjson");
    assert_eq!(calls[0]["file"], path.to_str().unwrap());
    assert_eq!(calls[0]["agent"], "cursor");
    // The keys of 1.0 keep their places: `kind` comes after them.
    let first = stdout_of(&["tools", "--json"], "partial.ndjson");
    let first = first.lines().next().unwrap();
    assert!(
        first.starts_with("{\"call_id\":") && first.ends_with(",\"kind\":\"shell\"}"),
        "{first}"
    );
}

/// What a call does, in the words of every tool record, whatever the agent calls the tool.
const KINDS: [&str; 10] = [
    "shell", "read", "edit", "write", "search", "web", "task", "todo", "mcp", "other",
];

/// The kind of every call of every agent's fixtures and recordings, by agent and tool.
fn kinds_of_every_call() -> std::collections::BTreeMap<(String, String), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root.join("agents"), root.join("recorded")];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            if path.is_dir() && !path.to_string_lossy().ends_with(".store") {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|x| x == "ndjson" || x == "stdout")
            {
                files.push(path);
            }
        }
    }
    let mut kinds = std::collections::BTreeMap::new();
    for file in files {
        let out = StdCommand::new(BIN)
            .args(["-q", "tools", "--json"])
            .arg(&file)
            .output()
            .unwrap();
        for line in String::from_utf8(out.stdout).unwrap().lines() {
            let call: Value = serde_json::from_str(line).unwrap();
            let kind = call["kind"]
                .as_str()
                .unwrap_or_else(|| panic!("{}: a call without its kind: {line}", file.display()));
            let key = (
                call["agent"].as_str().unwrap().to_string(),
                call["tool"].as_str().unwrap().to_string(),
            );
            let seen = kinds.entry(key).or_insert_with(|| kind.to_string());
            assert_eq!(seen, kind, "{}: one tool, one kind", file.display());
        }
    }
    kinds
}

#[test]
fn every_call_says_what_it_does_in_one_vocabulary() {
    let kinds = kinds_of_every_call();
    for ((agent, tool), kind) in &kinds {
        assert!(KINDS.contains(&kind.as_str()), "{agent} {tool}: {kind}");
    }
    let kind = |agent: &str, tool: &str| kinds[&(agent.to_string(), tool.to_string())].as_str();
    // Each agent's own names, one kind: a command, a search, a file read.
    for (agent, tool) in [
        ("claude", "Bash"),
        ("codex", "command_execution"),
        ("gemini", "run_shell_command"),
        ("qwen", "run_shell_command"),
        ("opencode", "bash"),
    ] {
        assert_eq!(kind(agent, tool), "shell", "{agent} {tool}");
    }
    for (agent, tool) in [
        ("claude", "Grep"),
        ("claude", "Glob"),
        ("gemini", "grep_search"),
        ("gemini", "list_directory"),
        ("qwen", "glob"),
        ("opencode", "grep"),
    ] {
        assert_eq!(kind(agent, tool), "search", "{agent} {tool}");
    }
    for (agent, tool) in [
        ("claude", "Read"),
        ("gemini", "read_file"),
        ("cursor", "read"),
    ] {
        assert_eq!(kind(agent, tool), "read", "{agent} {tool}");
    }
    assert_eq!(kind("codex", "file_change"), "edit");
    assert_eq!(kind("codex", "web_search"), "web");
    assert_eq!(kind("codex", "todo_list"), "todo");
    assert_eq!(kind("codex", "mcp_tool_call"), "mcp");
    assert_eq!(kind("claude", "mcp__docs__search"), "mcp");
    assert_eq!(kind("claude", "Agent"), "task");
    assert_eq!(kind("gemini", "save_memory"), "other");
}

/// The kind of every call in the session logs of every version in `tests/fixtures/history`,
/// by agent and tool.
fn kinds_in_the_history() -> std::collections::BTreeMap<(String, String), String> {
    let history = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/history");
    let mut kinds = std::collections::BTreeMap::new();
    for agent in std::fs::read_dir(&history)
        .unwrap()
        .map(|e| e.unwrap().path())
    {
        let Ok(shapes) = std::fs::read_dir(&agent) else {
            continue;
        };
        for home in shapes.map(|e| e.unwrap().path().join("home")) {
            if !home.is_dir() {
                continue;
            }
            let mut cmd = StdCommand::new(BIN);
            crate::home::in_home(&mut cmd, &home).args(["-q", "tools", "--json", "--from", "all"]);
            let out = cmd.output().unwrap();
            for line in String::from_utf8(out.stdout).unwrap().lines() {
                let call: Value = serde_json::from_str(line).unwrap();
                let key = (
                    call["agent"].as_str().unwrap().to_string(),
                    call["tool"].as_str().unwrap().to_string(),
                );
                kinds.insert(key, call["kind"].as_str().unwrap_or("").to_string());
            }
        }
    }
    kinds
}

#[test]
fn the_tools_of_every_version_have_their_kind() {
    let kinds = kinds_in_the_history();
    let expected = [
        // Codex's shell tool since 0.1xx, and its input to a command still running.
        ("codex", "shell_command", "shell"),
        ("codex", "write_stdin", "shell"),
        ("codex", "read_mcp_resource", "mcp"),
        ("codex", "list_mcp_resources", "mcp"),
        ("codex", "update_plan", "todo"),
        // Cursor's transcripts name the model's functions.
        ("cursor", "ApplyPatch", "edit"),
        ("cursor", "StrReplace", "edit"),
        ("cursor", "ReadFile", "read"),
        ("cursor", "Delete", "edit"),
        ("cursor", "CallMcpTool", "mcp"),
        ("cursor", "GetMcpTools", "mcp"),
        // Claude Code 2.1's task list is its to-do list.
        ("claude", "TaskCreate", "todo"),
        ("claude", "TaskUpdate", "todo"),
        ("claude", "TaskGet", "todo"),
        ("claude", "LS", "search"),
        ("gemini", "list_directory", "search"),
        ("opencode", "todowrite", "todo"),
    ];
    for (agent, tool, kind) in expected {
        let key = (agent.to_string(), tool.to_string());
        assert_eq!(
            kinds.get(&key).map(String::as_str),
            Some(kind),
            "{agent} {tool}"
        );
    }
    for ((agent, tool), kind) in &kinds {
        assert!(KINDS.contains(&kind.as_str()), "{agent} {tool}: {kind:?}");
    }
}

#[test]
fn tools_json_covers_pending_unstarted_and_duplicate_calls() {
    let calls = json_calls(&[], "tools-edge.ndjson");
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["call_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a\n1", "b\n2", "c\n3", "d\n4", "f\n6", "e\n5"]);
    let pending = &calls[5];
    assert_eq!(pending["status"], "pending");
    assert_eq!(pending["result"], Value::Null);
    assert_eq!(pending["completed_at_ms"], Value::Null);
    assert_eq!(pending["duration_ms"], Value::Null);
    // isBackground sits beside the variant key; the variant is success.
    assert_eq!(calls[2]["status"], "success");
    assert_eq!(calls[2]["result"]["exitCode"], 0);
    // A completion without a start still has the args it carried.
    assert_eq!(calls[1]["args"]["description"], "Explore the repo");
}

#[test]
fn tools_filters_by_tool_status_and_session() {
    let tools = |args: &[&str]| -> Vec<String> {
        json_calls(args, "tools-edge.ndjson")
            .iter()
            .map(|c| {
                format!(
                    "{}:{}",
                    c["tool"].as_str().unwrap(),
                    c["status"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(
        tools(&["--tool", "shell"]),
        ["shell:success", "shell:pending"]
    );
    assert_eq!(
        tools(&["--tool", "READ,grep"]),
        ["read:error", "grep:error"]
    );
    assert_eq!(tools(&["--failed"]), ["read:error", "grep:error"]);
    assert_eq!(tools(&["--status", "pending"]), ["shell:pending"]);
    assert_eq!(
        tools(&["--status", "ok"]),
        ["task:success", "shell:success", "fancyNew:success"]
    );
    assert_eq!(tools(&["--session", "e0e0e0e0"]).len(), 6);
    assert!(tools(&["--session", "ffff"]).is_empty());

    let runs = json_calls(&["--session", "1e27"], "two-runs.ndjson");
    assert_eq!(runs.len(), 2);
    assert!(
        runs.iter()
            .all(|c| c["args"]["command"].as_str().unwrap().starts_with("sleep"))
    );
}

#[test]
fn tools_starts_shows_start_lines_too() {
    cs(&["tools", "--starts"], "partial.ndjson").stdout(
        "started   shell               -  cargo test cart\n\
         rejected  shell          800 ms  cargo test cart\n\
         started   read                -  src/cart.rs\n\
         ok        read           900 ms  src/cart.rs — 3 lines\n",
    );
}

#[test]
fn progress_interleaves_activity_and_answer_and_ends_with_a_footer() {
    cs(&["progress"], "nopartial.ndjson").code(0).stdout(
        "▶ Auto · /tmp/notes · session 0b7e4d21-3c9a-4f55-a2d8-6e1f9b0c7a42\n\
         I'll read `notes.txt` and count its lines.\n\
         ✓ Read notes.txt (3 lines)\n\
         ✓ Ran `wc -l notes.txt` (exit 0, 199 ms)\n\
         ✓ Edited count.txt (+1 −0)\n\
         `notes.txt` has 3 lines. Wrote `3` to `count.txt`.\n\
         ■ success · 9.1 s · 3 tools: 3 ok · tokens: 9,120 in, 211 out, 6,016 cache read\n",
    );
}

#[test]
fn progress_reports_rejections_failures_and_calls_still_running() {
    let out = stdout_of(&["progress"], "tools-edge.ndjson");
    for line in [
        "✗ Failed (error): read missing.rs — File not found: missing.rs\n",
        "✓ Ran a subagent: Explore the repo (1.2 s)\n",
        "… Still running: shell sleep 100\n",
        "■ success · 7.0 s · 6 tools: 3 ok, 2 error, 1 pending\n",
    ] {
        assert!(out.contains(line), "{line:?} not in {out}");
    }
    let partial = stdout_of(&["progress"], "partial.ndjson");
    assert!(
        partial.contains("✗ Rejected: cargo test cart\n"),
        "{partial}"
    );
}

#[test]
fn progress_footer_says_when_a_run_failed_or_did_not_finish() {
    cs(&["progress"], "failed.ndjson")
        .code(1)
        .stdout(predicate::str::contains(
            "■ failed (subtype error, is_error true)",
        ));
    cs(&["progress"], "no-result.ndjson")
        .code(3)
        .stdout(predicate::str::contains(
            "↻ Connection lost, reconnecting (attempt 1)\n↻ Retrying (attempt 1)\n↻ Reconnected\nLet me look\n■ no result: the run did not finish\n",
        ));
}

#[test]
fn progress_activity_stderr_leaves_only_the_answer_on_stdout() {
    let assert = cs(&["progress", "--activity-stderr"], "partial.ndjson")
        .code(0)
        .stdout(std::fs::read_to_string(fixture("partial.expected")).unwrap());
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("✗ Rejected: cargo test cart"), "{stderr}");
    assert!(stderr.contains("✓ Read src/cart.rs (3 lines)"), "{stderr}");
    assert!(
        stderr.contains("■ success · 4.3 s · 2 tools: 1 ok, 1 rejected"),
        "{stderr}"
    );
}

/// Feeds lines to the view one at a time and checks that each expected line comes out
/// while the input is still open.
fn assert_live(view: &str, steps: &[(&str, &str)]) {
    let mut child = StdCommand::new(BIN)
        .arg(view)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    for (input, expected) in steps {
        stdin.write_all(input.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        if expected.is_empty() {
            continue;
        }
        let got = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("{expected:?} did not appear while the stream was open"));
        assert_eq!(&got, expected);
    }
    drop(stdin);
    child.wait().unwrap();
}

const STARTED: &str = r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"make"}},"startedAtMs":"1000"},"session_id":"s"}"#;
const COMPLETED: &str = r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"result":{"success":{"exitCode":2}}},"startedAtMs":"1000","completedAtMs":"3500"},"session_id":"s"}"#;

#[test]
fn tools_line_appears_when_the_call_completes() {
    assert_live(
        "tools",
        &[
            (STARTED, ""),
            (COMPLETED, "ok        shell           2.5 s  make — exit 2"),
        ],
    );
}

#[test]
fn progress_line_appears_when_the_call_completes() {
    assert_live(
        "progress",
        &[(STARTED, ""), (COMPLETED, "✓ Ran `make` (exit 2, 2.5 s)")],
    );
}

/// Every view counts the same calls: one whose `tool_call` names no tool is still a call.
#[test]
fn a_call_without_a_tool_key_is_counted_by_every_view() {
    let calls = json_calls(&[], "empty-tool-call.ndjson");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["tool"], "unknown");
    let progress = stdout_of(&["progress"], "empty-tool-call.ndjson");
    assert!(progress.contains("· 1 tool: 1 unknown"), "{progress}");
}

/// A `function` call whose result is not an object (a JSON string, as the docs' shape
/// allows) is listed with its raw result and a status that says the shape was unexpected;
/// a `null` result is a call that ended without saying how. Neither loses the completion.
#[test]
fn a_call_whose_result_is_not_an_object_is_listed_with_it() {
    let input = [
        r#"{"type":"system","subtype":"init","session_id":"s"}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"f1","tool_call":{"function":{"name":"lookup","arguments":"{\"q\":\"rust\"}"}},"session_id":"s"}"#,
        r#"{"type":"tool_call","subtype":"completed","call_id":"f1","tool_call":{"function":{"name":"lookup","arguments":"{\"q\":\"rust\"}","result":"{\"answer\":42}"}},"session_id":"s"}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"f2","tool_call":{"function":{"name":"lookup"}},"session_id":"s"}"#,
        r#"{"type":"tool_call","subtype":"completed","call_id":"f2","tool_call":{"function":{"name":"lookup","result":[1,{"a":"b"}]}},"session_id":"s"}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"r3","tool_call":{"readToolCall":{"args":{"path":"a"}}},"session_id":"s"}"#,
        r#"{"type":"tool_call","subtype":"completed","call_id":"r3","tool_call":{"readToolCall":{"args":{"path":"a"},"result":null}},"session_id":"s"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s"}"#,
    ]
    .join("\n")
        + "\n";
    let run = |args: &[&str]| {
        let out = Command::new(BIN)
            .args(args)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(!stderr.contains("unreadable"), "{args:?}: {stderr}");
        String::from_utf8(out.stdout).unwrap()
    };
    let calls: Vec<Value> = run(&["tools", "--json"])
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["call_id"], "f1");
    assert_eq!(calls[0]["status"], "unexpected");
    assert_eq!(calls[0]["result"], "{\"answer\":42}");
    assert_eq!(calls[0]["args"], "{\"q\":\"rust\"}");
    assert_eq!(calls[1]["status"], "unexpected");
    assert_eq!(calls[1]["result"], serde_json::json!([1, {"a": "b"}]));
    assert_eq!(calls[2]["status"], "unknown");
    assert_eq!(calls[2]["result"], Value::Null);

    let lines = run(&["tools"]);
    assert_eq!(lines.lines().count(), 3, "{lines}");
    assert!(lines.contains("unexpected"), "{lines}");
    let progress = run(&["progress"]);
    assert!(progress.contains("3 tools"), "{progress}");
}

/// A user's "No" at Claude Code's prompt, as its session logs keep it (the tool's result
/// "The user doesn't want to proceed…", `toolUseResult` "User rejected tool use"): the
/// call was rejected, not failed, in both releases that show it.
#[test]
fn a_users_no_in_a_claude_log_is_a_rejection() {
    for (version, tool) in [
        ("2.1.41-agent-progress", "Task"),
        ("2.0.76-synthetic-no-response", "Edit"),
    ] {
        let home = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/history/claude")
            .join(version)
            .join("home");
        let out = crate::home::in_home(&mut StdCommand::new(BIN), &home)
            .args(["tools", "--from", "claude", "--json"])
            .output()
            .unwrap();
        let calls: Vec<Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let said_no: Vec<&Value> = calls
            .iter()
            .filter(|c| {
                c["result"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("The user doesn't want to proceed"))
            })
            .collect();
        assert!(!said_no.is_empty(), "{version}: {calls:?}");
        for call in said_no {
            assert_eq!(call["status"], "rejected", "{version}: {call}");
            assert_eq!(call["tool"], tool, "{version}: {call}");
        }
    }
}

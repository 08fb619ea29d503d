//! What users' homes really hold, read right: a log copied to another project, a cut
//! compressed rollout, model and file names that are not ASCII, links, a session started
//! east of UTC, sub-agents no parent names, counts no sum can hold. Each case was found by
//! hand (the review of 6f50fcc numbers them `B<n>`) and fails on the tree before its fix.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::home::in_home;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The command in `home`, with more variables (`CURSOR_STREAM_JOBS`, `TZ`).
fn cs_env(home: &Path, args: &[&str], env: &[(&str, &str)]) -> Out {
    let mut cmd = Command::new(BIN);
    in_home(&mut cmd, home).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn cs(home: &Path, args: &[&str]) -> Out {
    cs_env(home, args, &[])
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The totals row of `usage --json` (its last line).
fn usage_total(out: &Out) -> Value {
    json_lines(&out.stdout)
        .pop()
        .unwrap_or_else(|| panic!("no usage rows: {}", out.stderr))
}

/// A Claude Code log line: the user's prompt.
fn claude_user(uuid: &str, parent: Option<&str>, at: &str, session: &str, text: &str) -> String {
    serde_json::json!({
        "parentUuid": parent, "isSidechain": false, "type": "user",
        "message": {"role": "user", "content": text},
        "uuid": uuid, "timestamp": at, "cwd": "/p", "sessionId": session, "version": "2.1.330",
    })
    .to_string()
}

/// A Claude Code log line: an answer with its usage.
struct Answer<'a> {
    uuid: &'a str,
    parent: &'a str,
    at: &'a str,
    session: &'a str,
    message_id: &'a str,
    request_id: &'a str,
    model: &'a str,
    input: u64,
    output: u64,
    text: &'a str,
}

impl Answer<'_> {
    fn line(&self) -> String {
        serde_json::json!({
            "parentUuid": self.parent, "isSidechain": false,
            "message": {
                "id": self.message_id, "type": "message", "role": "assistant", "model": self.model,
                "content": [{"type": "text", "text": self.text}], "stop_reason": "end_turn",
                "usage": {"input_tokens": self.input, "cache_creation_input_tokens": 0,
                          "cache_read_input_tokens": 0, "output_tokens": self.output},
            },
            "requestId": self.request_id, "type": "assistant", "uuid": self.uuid,
            "timestamp": self.at, "cwd": "/p", "sessionId": self.session, "version": "2.1.330",
        })
        .to_string()
    }
}

/// A one-prompt Claude session: "hi", answered "hello" by `model` for 100 + 10 tokens.
fn claude_session(session: &str, model: &str) -> String {
    let answer = Answer {
        uuid: "a1",
        parent: "u1",
        at: "2026-11-20T10:00:01.000Z",
        session,
        message_id: "msg_1",
        request_id: "req_1",
        model,
        input: 100,
        output: 10,
        text: "hello",
    };
    format!(
        "{}\n{}\n",
        claude_user("u1", None, "2026-11-20T10:00:00.000Z", session, "hi"),
        answer.line()
    )
}

fn write(path: &Path, text: &str) -> PathBuf {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    path.to_path_buf()
}

/// B1: a model call found in two files counts once, however many workers read them (the
/// terminal reads one file after another, a pipe in parallel).
#[test]
fn a_call_copied_into_another_project_counts_once_with_any_number_of_workers() {
    let home = tempfile::tempdir().unwrap();
    let log = claude_session("S1", "claude-sonnet-4-5");
    write(&home.path().join(".claude/projects/-p/S1.jsonl"), &log);
    write(&home.path().join(".claude/projects/-q/S1.jsonl"), &log);
    for jobs in ["1", "2", "3"] {
        let out = cs_env(
            home.path(),
            &["usage", "--json"],
            &[("CURSOR_STREAM_JOBS", jobs)],
        );
        let total = usage_total(&out);
        assert_eq!(total["input_tokens"], 100, "{jobs} workers: {}", out.stdout);
        assert_eq!(total["output_tokens"], 10, "{jobs} workers: {}", out.stdout);
    }
}

/// B3: a model name whose 9th byte from the end is inside a character.
#[test]
fn a_model_name_that_is_not_ascii_is_reported_not_a_panic() {
    let home = tempfile::tempdir().unwrap();
    let log = write(
        &home.path().join("s.jsonl"),
        &claude_session("S1", "通义千问"),
    );
    let log = log.to_str().unwrap();
    for report in ["daily", "model", "session", "run"] {
        let out = cs(home.path(), &["usage", report, log]);
        assert_eq!(out.code, 0, "usage {report}: {}", out.stderr);
        assert!(
            out.stdout.contains("通义千问"),
            "usage {report}: {}",
            out.stdout
        );
    }
    let html = cs(home.path(), &["usage", "--html", log]);
    assert_eq!(html.code, 0, "{}", html.stderr);
}

/// B10: a stray rollout whose name is not ASCII is one more file, not a panic of every
/// store command.
#[test]
fn a_codex_rollout_named_in_any_script_is_read_or_skipped_not_a_panic() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".codex/sessions/2026/11/27");
    write(
        &dir.join("rollout-Überprüfung-der-Änderungen-öffnen.jsonl"),
        r#"{"timestamp":"2026-11-27T14:00:34.036Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}"#,
    );
    write(
        &home.path().join(".claude/projects/-p/S1.jsonl"),
        &claude_session("S1", "claude-sonnet-4-5"),
    );
    for args in [
        &["sessions"][..],
        &["usage", "--json"],
        &["stats", "--since", "3650d", "--json"],
    ] {
        let out = cs(home.path(), args);
        assert!(!out.stderr.contains("panicked"), "{args:?}: {}", out.stderr);
        assert!(out.code == 0 || out.code == 3, "{args:?}: {}", out.stderr);
    }
    assert!(cs(home.path(), &["sessions"]).stdout.contains("claude"));
}

/// B15: counts no sum can hold are no counts, not a sum wrapped around.
#[test]
fn counts_beyond_what_a_number_holds_exactly_are_left_out_not_wrapped() {
    let home = tempfile::tempdir().unwrap();
    let big = 10_000_000_000_000_000_000u64;
    let answer = |uuid, parent, at, id, req| Answer {
        uuid,
        parent,
        at,
        session: "S1",
        message_id: id,
        request_id: req,
        model: "claude-sonnet-4-5",
        input: big,
        output: 10,
        text: "x",
    };
    let lines = [
        claude_user("u1", None, "2026-11-20T10:00:00.000Z", "S1", "hi"),
        answer("a1", "u1", "2026-11-20T10:00:01.000Z", "msg_1", "req_1").line(),
        claude_user("u2", Some("a1"), "2026-11-20T10:01:00.000Z", "S1", "b"),
        answer("a2", "u2", "2026-11-20T10:01:01.000Z", "msg_2", "req_2").line(),
    ];
    let log = write(&home.path().join("s.jsonl"), &(lines.join("\n") + "\n"));
    let out = cs(home.path(), &["usage", "--json", log.to_str().unwrap()]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Both records are left out: no row holds their tokens.
    for row in json_lines(&out.stdout) {
        assert_eq!(row["input_tokens"], 0, "{}", out.stdout);
    }
    assert!(
        out.stderr.contains("s.jsonl:2") && out.stderr.contains("s.jsonl:4"),
        "each reported at its line: {}",
        out.stderr
    );
}

/// A Codex rollout that started 2026-11-27 23:00 in Tokyo (14:00 UTC): Codex names the
/// file by the local time.
const TOKYO_ROLLOUT: &str =
    "rollout-2026-11-27T23-00-34-01a21a83-c8f0-74d2-bdda-0adefc8f27ee.jsonl";

fn tokyo_rollout(at: &str) -> String {
    [
        r#"{"timestamp":"AT:34.036Z","type":"session_meta","payload":{"id":"01a21a83-c8f0-74d2-bdda-0adefc8f27ee","cwd":"/w","cli_version":"0.169.0"}}"#,
        r#"{"timestamp":"AT:34.092Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-5"}}"#,
        r#"{"timestamp":"AT:34.105Z","type":"event_msg","payload":{"type":"user_message","message":"say hello","kind":"plain"}}"#,
        r#"{"timestamp":"AT:34.243Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello."}]}}"#,
        r#"{"timestamp":"AT:34.249Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":0,"total_tokens":1050},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":0,"output_tokens":50,"reasoning_output_tokens":0,"total_tokens":1050}}}}"#,
        r#"{"timestamp":"AT:34.254Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"Hello."}}"#,
    ]
    .map(|l| l.replace("AT", at))
    .join("\n")
        + "\n"
}

/// B2: an input that fails while being read (a cut `.zst`, an OpenCode row that is not
/// JSON) is reported; every other input is still read, the totals still written.
#[test]
fn an_input_that_fails_midway_hides_none_of_the_others() {
    let home = tempfile::tempdir().unwrap();
    let good = write(
        &home.path().join("good.jsonl"),
        &claude_session("S1", "claude-sonnet-4-5"),
    );
    let cut = home.path().join("cut.jsonl.zst");
    std::fs::write(&cut, b"\x28\xb5\x2f\xfd\x24\x05\x29\x00").unwrap();
    let (good, cut) = (good.to_str().unwrap(), cut.to_str().unwrap());
    for jobs in ["1", "2"] {
        let env = [("CURSOR_STREAM_JOBS", jobs)];
        let usage = cs_env(home.path(), &["usage", "--json", good, cut], &env);
        assert_eq!(usage.code, 2, "{}", usage.stderr);
        assert_eq!(usage_total(&usage)["input_tokens"], 100, "{}", usage.stderr);
        assert!(usage.stderr.contains("cut.jsonl.zst"), "{}", usage.stderr);
        let stats = cs_env(home.path(), &["stats", "--json", cut, good], &env);
        assert_eq!(stats.code, 2, "{}", stats.stderr);
        assert!(stats.stdout.contains("\"S1\""), "{jobs}: {}", stats.stdout);
    }
    // The same from the stores: a cut rollout beside a Claude session.
    let dir = home.path().join(".codex/sessions/2026/11/27");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(cut, dir.join(format!("{TOKYO_ROLLOUT}.zst"))).unwrap();
    write(
        &home.path().join(".claude/projects/-p/S1.jsonl"),
        &claude_session("S1", "claude-sonnet-4-5"),
    );
    let sessions = cs(home.path(), &["sessions"]);
    assert_eq!(sessions.code, 2, "{}", sessions.stderr);
    assert!(sessions.stdout.contains("claude"), "{}", sessions.stdout);
    let usage = cs(home.path(), &["usage", "--json"]);
    assert_eq!(usage_total(&usage)["input_tokens"], 100, "{}", usage.stderr);
}

/// B2, OpenCode: one row whose data is not JSON is reported at its place, the other rows
/// and sessions are read.
#[test]
fn an_opencode_row_that_does_not_read_is_reported_and_the_rest_is_read() {
    let home = tempfile::tempdir().unwrap();
    let store = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recorded/opencode/1.18.33/tool.store/.local/share/opencode");
    let dir = home.path().join(".local/share/opencode");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["opencode.db", "opencode.db-wal"] {
        if store.join(name).exists() {
            std::fs::copy(store.join(name), dir.join(name)).unwrap();
        }
    }
    let before = cs(home.path(), &["stats", "--json", "--from", "opencode"]);
    assert_eq!(before.code, 0, "{}", before.stderr);
    let db = rusqlite::Connection::open(dir.join("opencode.db")).unwrap();
    db.execute("UPDATE message SET data = '{x' WHERE rowid = 3", [])
        .unwrap();
    drop(db);
    let after = cs(home.path(), &["stats", "--json", "--from", "opencode"]);
    assert_eq!(after.code, 0, "a bad row is a bad line: {}", after.stderr);
    assert!(
        after.stderr.contains("opencode.db:") && after.stderr.contains("message msg_"),
        "{}",
        after.stderr
    );
    assert_eq!(
        json_lines(&after.stdout).len(),
        json_lines(&before.stdout).len(),
        "the session is still read: {}",
        after.stdout
    );
    let sessions = cs(home.path(), &["sessions"]);
    assert!(sessions.stdout.contains("opencode"), "{}", sessions.stdout);
}

/// B7: a session started east of UTC is in a window that ends after its start, whatever
/// the local time in its file's name says.
#[test]
fn a_codex_session_started_east_of_utc_is_in_the_window_it_started_in() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".codex/sessions/2026/11/27");
    write(&dir.join(TOKYO_ROLLOUT), &tokyo_rollout("2026-11-27T14:00"));
    let tokyo = [("TZ", "Asia/Tokyo")];
    for until in ["2026-11-27", "2026-11-27T23:30"] {
        let out = cs_env(home.path(), &["sessions", "--until", until], &tokyo);
        assert!(
            out.stdout.contains("01a21a83"),
            "--until {until}: {}",
            out.stdout
        );
    }
    let usage = cs_env(
        home.path(),
        &["usage", "--json", "--until", "2026-11-27"],
        &tokyo,
    );
    assert_eq!(
        usage_total(&usage)["input_tokens"],
        1000,
        "{}",
        usage.stderr
    );
    // And a window that ends before it started leaves it out.
    let before = cs_env(
        home.path(),
        &["sessions", "--until", "2026-11-27T22:00"],
        &tokyo,
    );
    assert!(!before.stdout.contains("01a21a83"), "{}", before.stdout);
}

/// B17: `--since` keeps what was active since, not what was written since: a rollout
/// Codex compressed years after its last record is not active today.
#[test]
fn a_log_written_lately_but_idle_for_years_is_not_active_since() {
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".codex/sessions/2020/01/10");
    let name = "rollout-2020-01-10T00-59-34-01a21a83-c8f0-74d2-bdda-0adefc8f27ee.jsonl";
    let plain = tokyo_rollout("2020-01-10T00:59");
    let compressed = zstd::encode_all(plain.as_bytes(), 3).unwrap();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.zst")), compressed).unwrap();
    write(
        &home.path().join(".claude/projects/-p/S1.jsonl"),
        &claude_session("S1", "claude-sonnet-4-5"),
    );
    let old = cs(home.path(), &["sessions", "--since", "2d"]);
    assert!(!old.stdout.contains("01a21a83"), "{}", old.stdout);
    let all = cs(home.path(), &["sessions"]);
    assert!(all.stdout.contains("01a21a83"), "{}", all.stdout);
}

/// B8: a log that is nothing but a copy of another (resumed, then left before the next
/// prompt) adds no run.
#[test]
fn a_log_that_is_only_a_copy_adds_nothing() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-p");
    let log = claude_session("S1", "claude-sonnet-4-5");
    write(&project.join("S1.jsonl"), &log);
    write(
        &project.join("S2.jsonl"),
        &log.replace("\"sessionId\":\"S1\"", "\"sessionId\":\"S2\""),
    );
    for jobs in ["1", "2"] {
        let env = [("CURSOR_STREAM_JOBS", jobs)];
        let stats = cs_env(home.path(), &["stats", "--json", "--from", "claude"], &env);
        let rows = json_lines(&stats.stdout);
        assert_eq!(rows.len(), 1, "{jobs}: {}", stats.stdout);
        assert_eq!(rows[0]["session_id"], "S1");
        let usage = cs_env(home.path(), &["usage", "--json"], &env);
        assert_eq!(usage_total(&usage)["input_tokens"], 100);
    }
}

/// The lines of a Claude session whose `Task` ran sub-agent `abc` (the review's B9): the
/// call is interrupted, so no result names the sub-agent.
fn interrupted_task(project: &Path) {
    let lines = [
        r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"research it"},"uuid":"u1","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
        r#"{"parentUuid":"u1","isSidechain":false,"message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Task","input":{"description":"look","prompt":"look around","subagent_type":"general-purpose"}}],"stop_reason":"tool_use","usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":10}},"requestId":"req_1","type":"assistant","uuid":"a1","timestamp":"2026-11-20T10:00:01.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
        r#"{"parentUuid":"a1","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"[Request interrupted by user for tool use]","is_error":true}]},"toolUseResult":"Error: [Request interrupted by user for tool use]","uuid":"u2","timestamp":"2026-11-20T10:05:00.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
    ];
    write(&project.join("S1.jsonl"), &(lines.join("\n") + "\n"));
    let sub = [
        r#"{"parentUuid":null,"isSidechain":true,"agentId":"abc","type":"user","message":{"role":"user","content":"look around"},"uuid":"s1","timestamp":"2026-11-20T10:00:02.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
        r#"{"parentUuid":"s1","isSidechain":true,"agentId":"abc","message":{"id":"msg_sub1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"looking"}],"stop_reason":"end_turn","usage":{"input_tokens":5000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":500}},"requestId":"req_sub1","type":"assistant","uuid":"s2","timestamp":"2026-11-20T10:03:00.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
    ];
    write(
        &project.join("S1/subagents/agent-abc.jsonl"),
        &(sub.join("\n") + "\n"),
    );
}

/// B9: a sub-agent's log that no tool result names (interrupted, killed, still running)
/// is read all the same: its calls were billed.
#[test]
fn a_sub_agent_no_result_names_is_still_counted() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-p");
    interrupted_task(&project);
    let usage = cs(home.path(), &["usage", "--json"]);
    let total = usage_total(&usage);
    assert_eq!(total["input_tokens"], 5100, "{}", usage.stdout);
    assert_eq!(total["output_tokens"], 510, "{}", usage.stdout);
}

/// The review's B12 folder: B9's session, whose first `Task` names sub-agent `abc` in its
/// result and whose second `Task` resumes it (lines 4 and 5 of `S1.jsonl`, u4 the last).
fn resumed_task(project: &Path) {
    interrupted_task(project);
    let log = project.join("S1.jsonl");
    let named = std::fs::read_to_string(&log).unwrap().replace(
        r#""toolUseResult":"Error: [Request interrupted by user for tool use]""#,
        r#""toolUseResult":{"status":"completed","agentId":"abc","content":[{"type":"text","text":"done"}]}"#,
    );
    let again = [
        r#"{"parentUuid":"u2","isSidechain":false,"message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_2","name":"Task","input":{"description":"again","prompt":"continue","resume":"abc","subagent_type":"general-purpose"}}],"stop_reason":"tool_use","usage":{"input_tokens":100,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":10}},"requestId":"req_2","type":"assistant","uuid":"a2","timestamp":"2026-11-20T10:06:01.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
        r#"{"parentUuid":"a2","isSidechain":false,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"done again"}]},"toolUseResult":{"status":"completed","agentId":"abc","content":[{"type":"text","text":"done again"}]},"uuid":"u4","timestamp":"2026-11-20T10:08:00.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#,
    ];
    std::fs::write(&log, named + &again.join("\n") + "\n").unwrap();
}

/// B12: a sub-agent named twice (a `Task` resumed) is read once, each line once.
#[test]
fn a_sub_agent_resumed_is_read_once() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-p");
    resumed_task(&project);
    let seen = cs(
        home.path(),
        &[
            "get",
            "-c",
            r#"select(.message.id? == "msg_sub1") | .uuid"#,
            "--from",
            "claude",
        ],
    );
    assert_eq!(seen.stdout.lines().count(), 1, "{}", seen.stdout);
    let stats = cs(home.path(), &["stats", "--json", "--from", "claude"]);
    let input: u64 = json_lines(&stats.stdout)
        .iter()
        .map(|r| r["usage"]["input_tokens"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(input, 5200, "{}", stats.stdout);
}

/// B12: a sub-agent's lines read in with its session's are told (`$line`,
/// `input_filename`, warnings) in the sub-agent's own log, and the session's lines after
/// them at their own numbers, not at their places in the stream the two make.
#[test]
fn a_sub_agents_lines_are_placed_in_its_own_log() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-p");
    resumed_task(&project);
    // A line that is not JSON in the sub-agent's log, and one after it.
    let sub = project.join("S1/subagents/agent-abc.jsonl");
    let more = r#"{"parentUuid":"s2","isSidechain":true,"agentId":"abc","type":"user","message":{"role":"user","content":"more"},"uuid":"s3","timestamp":"2026-11-20T10:07:00.000Z","cwd":"/p","sessionId":"S1","version":"2.1.330"}"#;
    let text = std::fs::read_to_string(&sub).unwrap() + "garbage\n" + more + "\n";
    std::fs::write(&sub, text).unwrap();
    let (log, sub) = (
        project.join("S1.jsonl").display().to_string(),
        sub.display().to_string(),
    );
    let program = r#"select(.uuid? != null) | [.uuid, input_filename, $line, $run.file] | @tsv"#;
    let out = cs(home.path(), &["get", "-r", program, "--from", "claude"]);
    let expected: String = [
        ("u1", &log, 1),
        ("a1", &log, 2),
        ("u2", &log, 3),
        ("s1", &sub, 1),
        ("s2", &sub, 2),
        ("s3", &sub, 4),
        ("a2", &log, 4),
        ("u4", &log, 5),
    ]
    .iter()
    // `$run` is the session's, whichever log the line is in.
    .map(|(uuid, file, line)| format!("{uuid}\t{file}\t{line}\t{log}\n"))
    .collect();
    assert_eq!(out.stdout, expected, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!("{sub}:3: not JSON")),
        "{}",
        out.stderr
    );
    let u4 = cs(
        home.path(),
        &[
            "get",
            "-c",
            r#"select(.uuid == "u4") | $line"#,
            "--from",
            "claude",
        ],
    );
    assert_eq!(u4.stdout, "5\n", "{}", u4.stderr);
    // `check` names the same place; the session is still one, the session log's.
    let check = cs(home.path(), &["check", "--json", "--from", "claude"]);
    let bad = json_lines(&check.stdout)
        .into_iter()
        .find(|p| p["kind"] == "malformed_line")
        .unwrap_or_else(|| panic!("{}", check.stdout));
    assert_eq!(
        (bad["file"].as_str(), bad["line"].as_u64()),
        (Some(&*sub), Some(3))
    );
    let sessions = cs(home.path(), &["sessions", "--json"]);
    let rows = json_lines(&sessions.stdout);
    assert_eq!(rows.len(), 1, "{}", sessions.stdout);
}

/// B11: session logs, project folders and date folders that are links are followed.
#[cfg(unix)]
#[test]
fn logs_and_folders_that_are_links_are_found() {
    use std::os::unix::fs::symlink;
    let home = tempfile::tempdir().unwrap();
    let elsewhere = home.path().join("elsewhere");
    write(
        &elsewhere.join("S1.jsonl"),
        &claude_session("S1", "claude-sonnet-4-5"),
    );
    write(
        &elsewhere.join("q/S2.jsonl"),
        &claude_session("S2", "claude-sonnet-4-5"),
    );
    write(
        &elsewhere.join("day/").join(TOKYO_ROLLOUT),
        &tokyo_rollout("2026-11-27T14:00"),
    );
    let projects = home.path().join(".claude/projects");
    std::fs::create_dir_all(projects.join("-p")).unwrap();
    symlink(elsewhere.join("S1.jsonl"), projects.join("-p/S1.jsonl")).unwrap();
    symlink(elsewhere.join("q"), projects.join("-q")).unwrap();
    let month = home.path().join(".codex/sessions/2026/11");
    std::fs::create_dir_all(&month).unwrap();
    symlink(elsewhere.join("day"), month.join("27")).unwrap();
    let out = cs(home.path(), &["sessions"]);
    for id in ["S1", "S2", "01a21a83"] {
        assert!(out.stdout.contains(id), "{id}: {}", out.stdout);
    }
}

/// B16: `--project` keeps Cursor's transcripts by their project folder's name (they hold
/// no working directory).
#[test]
fn project_chooses_cursor_transcripts_by_their_folder() {
    let home = tempfile::tempdir().unwrap();
    let id = "c0ffee11-2222-3333-4444-555566667777";
    let lines = [
        r#"{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\nlist\n</user_query>"}]}}"#,
        r#"{"role":"assistant","message":{"content":[{"type":"text","text":"Listing."}]}}"#,
        r#"{"type":"turn_ended","status":"success"}"#,
    ];
    write(
        &home.path().join(format!(
            ".cursor/projects/home-dev-app/agent-transcripts/{id}/{id}.jsonl"
        )),
        &(lines.join("\n") + "\n"),
    );
    for (project, found) in [
        ("/home/dev/app", true),
        ("/home/dev", true),
        ("/", true),
        ("/home/dev/other", false),
        ("/home/dev/ap", false),
    ] {
        let out = cs(home.path(), &["sessions", "--project", project]);
        assert_eq!(
            out.stdout.contains("c0ffee11"),
            found,
            "--project {project}: {}",
            out.stdout
        );
    }
}

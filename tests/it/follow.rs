//! `--follow`: a log read on as another process writes it, each line's output within a
//! second; an agent's newest session followed, then the next one when it starts; `--idle`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::home::in_home;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// Starts `cursor-stream ARGS` and gives each line it writes with when it came; the
/// channel ends with its output (`rx.iter()` after it exits: every line, none left behind).
fn watch(cmd: &mut Command) -> (std::process::Child, mpsc::Receiver<(Instant, String)>) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send((Instant::now(), line)).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// The next line that contains `needle`, within `limit`.
fn next_with(
    rx: &mpsc::Receiver<(Instant, String)>,
    needle: &str,
    limit: Duration,
) -> Option<Instant> {
    let until = Instant::now() + limit;
    while let Ok((at, line)) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        if line.contains(needle) {
            return Some(at);
        }
    }
    None
}

/// `progress --follow` on a log another process writes line by line: each tool call's line
/// and the run's end come within a second of the line that completes them; then `--idle`
/// ends it with the status of a successful run.
#[test]
fn progress_follows_a_log_as_it_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("live.ndjson");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.ndjson");
    let lines: Vec<String> = std::fs::read_to_string(&example)
        .unwrap()
        .lines()
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&log, &lines[0]).unwrap();
    let (mut child, rx) = watch(
        Command::new(BIN)
            .args(["progress", "--follow", "--idle", "2s"])
            .arg(&log),
    );
    // What each completing line (1-based) makes the view write.
    let expected = [
        (17, "Searched 'clap::Parser'"),
        (30, "Edited src/main.rs"),
        (32, "Ran `cargo test`"),
        (lines.len(), "■ success"),
    ];
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    let mut next = 0;
    for (i, line) in lines.iter().enumerate().skip(1) {
        std::thread::sleep(Duration::from_millis(40));
        file.write_all(line.as_bytes()).unwrap();
        file.flush().unwrap();
        let written = Instant::now();
        if let Some(&(n, what)) = expected.get(next)
            && n == i + 1
        {
            let seen = next_with(&rx, what, Duration::from_secs(3))
                .unwrap_or_else(|| panic!("`{what}` after line {n}"));
            let late = seen.saturating_duration_since(written);
            assert!(
                late < Duration::from_secs(1),
                "`{what}` {late:?} after its line"
            );
            next += 1;
        }
    }
    assert_eq!(next, expected.len());
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "the run succeeded: as without --follow"
    );
}

/// A Codex home: the rollout of tests/fixtures/history/codex/`version` copied into
/// `sessions/2026/01/0d/`, written `age` ago.
fn rollout(home: &Path, version: &str, day: u32, age: Duration) -> PathBuf {
    let file = crate::home::codex_fixture(version);
    let to = crate::home::codex_session_path(home, &file, day);
    std::fs::copy(&file, &to).unwrap();
    let when = std::time::SystemTime::now() - age;
    std::fs::File::options()
        .append(true)
        .open(&to)
        .unwrap()
        .set_modified(when)
        .unwrap();
    to
}

/// `--follow --from codex`: the newest session (not the older one), then the session that
/// starts while it is followed, then the first again from where it was left when it is
/// written again (a parent after its sub-agent), and the older one's new line; `--idle`
/// ends it. No line twice.
#[test]
fn the_newest_session_is_followed_then_the_next() {
    let home = tempfile::tempdir().unwrap();
    let older = rollout(
        home.path(),
        "0.40-vscode-aborted",
        1,
        Duration::from_secs(7200),
    );
    let newest = rollout(
        home.path(),
        "0.58-token-info-null",
        2,
        Duration::from_secs(60),
    );
    let id = |p: &Path| {
        p.file_stem().unwrap().to_string_lossy()[p.file_stem().unwrap().len() - 36..].to_string()
    };
    let mut cmd = Command::new(BIN);
    cmd.args([
        "events",
        "--follow",
        "--from",
        "codex",
        "--idle",
        "3s",
        "--type",
        "session_meta,noted",
    ]);
    in_home(&mut cmd, home.path());
    let (mut child, rx) = watch(&mut cmd);
    assert!(
        next_with(&rx, &id(&newest), Duration::from_secs(5)).is_some(),
        "the newest session"
    );
    let started = Instant::now();
    let next = rollout(home.path(), "0.117-archived-task-events", 3, Duration::ZERO);
    let seen = next_with(&rx, &id(&next), Duration::from_secs(5)).expect("the next session");
    // Looked for every second while the one followed is quiet.
    assert!(
        seen - started < Duration::from_secs(3),
        "{:?}",
        seen - started
    );
    // The sessions that were there go on: the one followed before is gone back to, from
    // where it was left; another terminal's, never followed, from the first line it did not
    // have when the following began (a Codex session resumed into its own file).
    append(&older, "{\"type\":\"noted\",\"payload\":\"older\"}\n");
    append(&newest, "{\"type\":\"noted\",\"payload\":\"newest\"}\n");
    let status = child.wait().unwrap();
    assert!(status.code().is_some(), "ended by --idle");
    let rest: Vec<String> = rx.iter().map(|(_, l)| l).collect();
    let mut rest = rest;
    rest.sort();
    assert_eq!(
        rest,
        [
            "{\"type\":\"noted\",\"payload\":\"newest\"}",
            "{\"type\":\"noted\",\"payload\":\"older\"}"
        ],
        "each session's new line, and no line again"
    );
}

fn append(path: &Path, line: &str) {
    std::fs::File::options()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
}

/// A resumed Claude session's log (2.1.12: it starts with a copy of the old log's
/// messages) is the one followed, from where it goes on from the copy: its new lines,
/// not the copy, and not the old log.
#[test]
fn a_resumed_session_is_followed_after_its_copy() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history/claude/2.1.12-resume-copy/home");
    let project = home
        .path()
        .join(".claude/projects/-Users-gtrrz-victor-wks-cli");
    std::fs::create_dir_all(&project).unwrap();
    let old = project.join("e1bc91d1-2731-4b12-bf00-44f4dcddffd1.jsonl");
    let resumed = project.join("b4dcf65c-8a8f-4be8-80c2-fcebbda55946.jsonl");
    for (log, age) in [(&old, 7200), (&resumed, 60)] {
        let from = fixture.join(".claude/projects/-Users-gtrrz-victor-wks-cli");
        std::fs::copy(from.join(log.file_name().unwrap()), log).unwrap();
        let when = std::time::SystemTime::now() - Duration::from_secs(age);
        let file = std::fs::File::options().append(true).open(log).unwrap();
        file.set_modified(when).unwrap();
    }
    let mut cmd = Command::new(BIN);
    cmd.args(["events", "--follow", "--from", "claude", "--idle", "3s"]);
    in_home(&mut cmd, home.path());
    let (mut child, rx) = watch(&mut cmd);
    std::thread::sleep(Duration::from_millis(500));
    let new_line = r#"{"parentUuid":null,"isSidechain":false,"type":"user","sessionId":"b4dcf65c-8a8f-4be8-80c2-fcebbda55946","message":{"role":"user","content":"after the resume"},"uuid":"0a0a0a0a-new","timestamp":"2026-01-20T05:00:00.000Z"}"#;
    append(&resumed, &format!("{new_line}\n"));
    child.wait().unwrap();
    let read: Vec<String> = rx.iter().map(|(_, l)| l).collect();
    assert_eq!(read, [new_line], "the new line, and nothing else");
}

/// One file or, with --from, none; --idle takes a duration.
#[test]
fn follow_refuses_what_it_cannot_follow() {
    for args in [
        &["text", "--follow", "a.ndjson", "b.ndjson"][..],
        &["text", "--follow", "--from", "codex", "a.ndjson"],
        &["text", "--follow", "--since", "1d", "--from", "codex"],
        &["text", "--follow", "--idle", "soon", "a.ndjson"],
        &["text", "--idle", "1s", "a.ndjson"],
    ] {
        let out = Command::new(BIN).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

/// A line written in two parts is read whole, when its end comes (not as a bad line).
#[test]
fn a_cut_last_line_waits_for_its_end() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("live.ndjson");
    std::fs::write(&log, "").unwrap();
    let mut cmd = Command::new(BIN);
    cmd.args(["events", "--follow", "--idle", "2s"]).arg(&log);
    let (mut child, rx) = watch(&mut cmd);
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(br#"{"type":"system","subtype":"init","#)
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(rx.try_recv().is_err(), "nothing before the line's end");
    // (A line that tells its agent: Claude's carry a `uuid`.)
    file.write_all(b"\"session_id\":\"s1\",\"uuid\":\"u1\"}\n")
        .unwrap();
    let seen = next_with(&rx, "\"session_id\":\"s1\"", Duration::from_secs(2));
    assert!(seen.is_some());
    child.wait().unwrap();
}

/// Claude sub-agents that start while their session is followed (2.1.17: each its own log
/// in `<session>/subagents/`), two at once, are followed as they are written, then the
/// session again from where it was left; a sub-agent's log that was there before is the
/// session's past, not followed.
#[test]
fn sub_agents_that_start_are_followed_then_their_session() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history/claude/2.1.17-subagents-dir/home/.claude/projects/-src-experiments-claude_p");
    let id = "29ccd257-68b1-427f-ae5f-6524b7cb6f20";
    let project = home
        .path()
        .join(".claude/projects/-src-experiments-claude_p");
    let subagents = project.join(id).join("subagents");
    std::fs::create_dir_all(&subagents).unwrap();
    let session = project.join(format!("{id}.jsonl"));
    std::fs::copy(fixture.join(format!("{id}.jsonl")), &session).unwrap();
    let past = r#"{"isSidechain":true,"sessionId":"29ccd257-68b1-427f-ae5f-6524b7cb6f20","agentId":"abcdef1","type":"user","message":{"role":"user","content":"PAST"},"uuid":"u-past"}"#;
    std::fs::write(subagents.join("agent-abcdef1.jsonl"), format!("{past}\n")).unwrap();
    let mut cmd = Command::new(BIN);
    cmd.args(["events", "--follow", "--from", "claude", "--idle", "3s"]);
    in_home(&mut cmd, home.path());
    let (mut child, rx) = watch(&mut cmd);
    let last_of_session = std::fs::read_to_string(&session).unwrap();
    let last_of_session = last_of_session.lines().last().unwrap().to_string();
    assert!(next_with(&rx, &last_of_session, Duration::from_secs(5)).is_some());
    // Two sub-agents start at once: their logs, each written beside and moved in.
    let sub = fixture.join(id).join("subagents/agent-a2271d1.jsonl");
    let second = r#"{"isSidechain":true,"sessionId":"29ccd257-68b1-427f-ae5f-6524b7cb6f20","agentId":"b0000002","type":"user","message":{"role":"user","content":"SECOND"},"uuid":"u-second"}"#;
    let second_part = subagents.join("agent-b0000002.part");
    std::fs::write(&second_part, format!("{second}\n")).unwrap();
    let part = subagents.join("agent-a2271d1.part");
    std::fs::copy(&sub, &part).unwrap();
    std::fs::rename(&part, subagents.join("agent-a2271d1.jsonl")).unwrap();
    std::fs::rename(&second_part, subagents.join("agent-b0000002.jsonl")).unwrap();
    let sub_lines: Vec<String> = std::fs::read_to_string(&sub)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    // Their results in the session: the session again, from where it was left.
    let back = r#"{"type":"user","sessionId":"29ccd257-68b1-427f-ae5f-6524b7cb6f20","message":{"role":"user","content":"BACK"},"uuid":"u-back"}"#;
    std::thread::sleep(Duration::from_millis(1500));
    append(&session, &format!("{back}\n"));
    child.wait().unwrap();
    let mut read: Vec<String> = rx.iter().map(|(_, l)| l).collect();
    let mut want = sub_lines.clone();
    want.extend([second.to_string(), back.to_string()]);
    // In the order they were written to, each line once (which of the two first depends on
    // the second the listing looks).
    read.sort();
    want.sort();
    assert_eq!(
        read, want,
        "both sub-agents' lines and the session's new one, once"
    );
}

/// A file not made yet is waited for, as `tail -F` does (an agent about to write it): a
/// note says so, then its lines are read as they come; the same text as without --follow.
#[test]
fn a_file_not_there_yet_is_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("run.ndjson");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.ndjson");
    let child = Command::new(BIN)
        .args(["text", "--follow", "--idle", "2s"])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(500));
    std::fs::copy(&example, &log).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is not there yet: waiting for it"), "{err}");
    let once = Command::new(BIN)
        .arg("text")
        .arg(&example)
        .output()
        .unwrap();
    assert_eq!(out.stdout, once.stdout);
    assert_eq!(out.status.code(), once.status.code(), "{err}");
}

/// A session whose last line is cut (its writer gone): `--idle` ends the following, the
/// cut line read once — it is no news to go back for.
#[test]
fn idle_ends_on_a_cut_last_line() {
    let home = tempfile::tempdir().unwrap();
    let log = rollout(
        home.path(),
        "0.58-token-info-null",
        1,
        Duration::from_secs(60),
    );
    append(&log, r#"{"type":"noted","payload":"CUT"#);
    let mut cmd = Command::new(BIN);
    cmd.args(["events", "--follow", "--from", "codex", "--idle", "1s"]);
    in_home(&mut cmd, home.path());
    let (mut child, rx) = watch(&mut cmd);
    let until = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > until {
            child.kill().unwrap();
            panic!("--idle 1s did not end it in 10 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let cut = rx.iter().filter(|(_, l)| l.contains("CUT")).count();
    assert!(cut <= 1, "the cut line {cut} times");
}

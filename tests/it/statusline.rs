//! `statusline`: Claude Code's JSON in, one line out, its figures those `usage` gives.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::home::in_home;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// A home holding a real Claude Code session log (the recorded `parallel` run), its times
/// moved so that its last line was written ten minutes ago and its first call 30 hours
/// before that. Returns the log.
fn home_with_a_session(home: &Path) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/recorded/claude/2.1.330/parallel.store");
    let log = crate::home::files_under(&from)
        .into_iter()
        .find(|f| {
            f.extension().is_some_and(|e| e == "jsonl")
                && !f.to_string_lossy().contains("subagents")
        })
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let at = |v: &Value| {
        v["timestamp"]
            .as_str()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
    };
    let values: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = values.iter().filter_map(at).max().unwrap().as_millisecond();
    // Ten minutes ago, but today (UTC) whatever the hour.
    let now = jiff::Timestamp::now().as_millisecond();
    let shift = (now - 600_000).max(now - now.rem_euclid(86_400_000) + 60_000) - last;
    let mut out = String::new();
    // Up to the last line of its first call (of two, written on several lines).
    let first_id = values
        .iter()
        .find(|v| v["message"]["usage"].is_object())
        .map(|v| v["message"]["id"].clone())
        .unwrap();
    let first_call = values
        .iter()
        .rposition(|v| v["message"]["id"] == first_id)
        .unwrap();
    for (i, mut v) in values.into_iter().enumerate() {
        if let Some(t) = at(&v) {
            // A day and more before: older than the logs' window, still the session's.
            let earlier = if i <= first_call { 30 * 3_600_000 } else { 0 };
            let moved =
                jiff::Timestamp::from_millisecond(t.as_millisecond() + shift - earlier).unwrap();
            v["timestamp"] = Value::from(moved.to_string());
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let to = home
        .join(".claude/projects/-tmp-proj")
        .join(log.file_name().unwrap());
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(&to, out).unwrap();
    to
}

fn statusline(home: &Path, args: &[&str], stdin: &str) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.arg("statusline").args(args);
    in_home(&mut cmd, home);
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The session's cost and tokens are `usage session`'s, today's cost `usage daily`'s; the
/// block's time left comes from the logs, its limit from Claude Code's `rate_limits` when it
/// passes them; the context from its `context_window`, else the last call's prompt.
#[test]
fn the_line_has_the_figures_usage_gives() {
    let home = tempfile::tempdir().unwrap();
    let log = home_with_a_session(home.path());
    let session = log.file_stem().unwrap().to_string_lossy().into_owned();
    let mut cmd = Command::new(BIN);
    cmd.args(["usage", "session", "--from", "claude", "--json"]);
    in_home(&mut cmd, home.path());
    let rows: Vec<Value> = String::from_utf8(cmd.output().unwrap().stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let row = rows
        .iter()
        .find(|r| r["session_id"] == session.as_str())
        .unwrap();
    let cost = format!("${:.2}", row["cost_usd"].as_f64().unwrap());
    let tokens = row["total_tokens"].as_u64().unwrap();
    let input = serde_json::json!({
        "session_id": session,
        "transcript_path": log,
        "model": {"id": "claude-opus-5", "display_name": "Opus 5"},
        "cost": {"total_cost_usd": 99.0},
    })
    .to_string();
    let (code, out, err) = statusline(home.path(), &[], &input);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    let tokens_cell = format!("{:.1}k tok", tokens as f64 / 1e3);
    assert!(
        out.starts_with(&format!("Opus 5 · {cost} {tokens_cell} · today ")),
        "{out}"
    );
    // Today's: `usage daily`'s row of today (its first call was yesterday).
    let mut cmd = Command::new(BIN);
    cmd.args([
        "usage", "daily", "--from", "claude", "--json", "--since", "2d",
    ]);
    in_home(&mut cmd, home.path());
    let today = jiff::Timestamp::now().strftime("%Y-%m-%d").to_string();
    let days = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
    let day: Value = days
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["date"] == today.as_str())
        .unwrap();
    let today_cost = format!("${:.2}", day["cost_usd"].as_f64().unwrap());
    assert!(
        out.contains(&format!(" · today {today_cost} · 5h block ")),
        "{out}"
    );
    assert_eq!(
        days.lines().count(),
        2,
        "a call yesterday, one today: {days}"
    );
    assert!(out.contains(" left · ctx "), "{out}");
    assert!(
        !out.contains("99.00"),
        "Claude Code's own estimate is not the figure: {out}"
    );

    // Claude Code's rate limits and context, when it passes them; --format; colour.
    let input = serde_json::json!({
        "session_id": session,
        "model": {"display_name": "Opus 5"},
        "rate_limits": {"five_hour": {"used_percentage": 23.5, "resets_at": 1790000000}},
        "context_window": {"used_percentage": 81, "context_window_size": 200000},
    })
    .to_string();
    let (_, out, _) = statusline(
        home.path(),
        &["--timezone", "UTC", "--format", "{block} | {context}"],
        &input,
    );
    assert_eq!(out, "5h 24% · resets 14:13 | 81%\n"); // 1790000000 is 2026-09-21T14:13:20Z
    let (_, out, _) = statusline(
        home.path(),
        &["--color", "always", "--format", "{context}"],
        &input,
    );
    assert_eq!(out, "\u{1b}[31m81%\u{1b}[0m\n");
}

/// Input that is not Claude Code's JSON: one line on stderr, status 2, nothing on stdout.
#[test]
fn a_malformed_input_gets_one_line_and_a_failure() {
    let home = tempfile::tempdir().unwrap();
    for input in ["not json", "[1, 2]", "{\"session_id\": 3}"] {
        let (code, out, err) = statusline(home.path(), &[], input);
        assert_eq!(code, 2, "{input}");
        assert_eq!(out, "");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("cursor-stream: statusline: "), "{err}");
    }
}

/// A `null` where an object is (Claude Code's `rate_limits` before the first answer, a
/// `context_window` or `model` it has not yet): the line is written, as without the key.
#[test]
fn a_null_field_is_a_field_left_out() {
    let home = tempfile::tempdir().unwrap();
    let (_, without, _) = statusline(home.path(), &[], r#"{"model":{"id":"claude-opus-4-5"}}"#);
    for input in [
        r#"{"model":{"id":"claude-opus-4-5"},"rate_limits":null}"#,
        r#"{"model":{"id":"claude-opus-4-5"},"context_window":null,"rate_limits":null}"#,
    ] {
        let (code, out, err) = statusline(home.path(), &[], input);
        assert_eq!((code, err.as_str()), (0, ""), "{input}");
        assert_eq!(out, without, "{input}");
    }
    let (code, out, err) = statusline(home.path(), &[], r#"{"model":null}"#);
    assert_eq!((code, err.as_str()), (0, ""));
    assert!(!out.is_empty());
}

/// `--format`: every field the help names is filled in; a name that is no field is refused
/// (it would be printed as typed), with the fields listed.
#[test]
fn format_fills_every_field_and_refuses_an_unknown_one() {
    let home = tempfile::tempdir().unwrap();
    let all = "{model}|{session_cost}|{session_tokens}|{today_cost}|{block}|{context}";
    let (code, out, err) = statusline(home.path(), &["--format", all], "{}");
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('{'), "{out}");
    assert_eq!(out.trim_end().split('|').count(), 6, "{out}");
    let (code, out, err) = statusline(home.path(), &["--format", "{model} {bogus}"], "{}");
    assert_eq!(code, 2);
    assert_eq!(out, "");
    assert!(
        err.contains("{bogus}") && err.contains("{session_cost}"),
        "{err}"
    );
}

//! Every agent's pitfalls, view by view: each stream under `tests/fixtures/agents/` (and the
//! README's example streams) has an `.expect.json` written from the format notes, not by
//! running cursor-stream (schema in `tests/fixtures/agents/README.md`). For each, the run
//! views must give the text shown once, the final answer, every tool call with its status
//! and parent, the exit status, and `stats --json` the agent, status and session of each
//! run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// A stream and what must be made of it.
pub struct Case {
    pub stream: PathBuf,
    pub expect: Value,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The fixtures and the examples, with their expectations.
fn cases() -> Vec<Case> {
    let dir = root().join("tests/fixtures/agents");
    let mut cases = Vec::new();
    for agent in std::fs::read_dir(&dir).unwrap() {
        let agent = agent.unwrap().path();
        if !agent.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&agent).unwrap() {
            let path = entry.unwrap().path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(stem) = name.strip_suffix(".expect.json") else {
                continue;
            };
            let stream = if agent.ends_with("examples") {
                root().join("examples").join(format!("{stem}.ndjson"))
            } else {
                agent.join(format!("{stem}.ndjson"))
            };
            let expect = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            cases.push(Case { stream, expect });
        }
    }
    cases.sort_by(|a, b| a.stream.cmp(&b.stream));
    assert!(cases.len() > 40, "the agent fixtures are missing");
    cases
}

/// The recordings of the real CLIs (`scripts/record/`): `<agent>/<version>/<scenario>.stdout`
/// with the same `.expect.json`, written from what each scenario scripted.
fn recorded() -> Vec<Case> {
    let dir = root().join("tests/fixtures/recorded");
    let mut cases = Vec::new();
    let Ok(agents) = std::fs::read_dir(&dir) else {
        return cases;
    };
    for agent in agents {
        let agent = agent.unwrap().path();
        if !agent.is_dir() {
            continue; // STORES.md
        }
        for version in std::fs::read_dir(agent).unwrap() {
            for entry in std::fs::read_dir(version.unwrap().path()).unwrap() {
                let path = entry.unwrap().path();
                let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                    continue;
                };
                let Some(stem) = name.strip_suffix(".expect.json") else {
                    continue;
                };
                let stream = path.with_file_name(format!("{stem}.stdout"));
                let expect =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                cases.push(Case { stream, expect });
            }
        }
    }
    cases.sort_by(|a, b| a.stream.cmp(&b.stream));
    cases
}

fn run(case: &Case, args: &[&str]) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args);
    if let Some(agent) = case.expect["agent_flag"].as_str() {
        cmd.args(["--agent", agent]);
    }
    let out = cmd
        .arg(&case.stream)
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn name(case: &Case) -> String {
    case.stream
        .strip_prefix(root())
        .unwrap_or(&case.stream)
        .display()
        .to_string()
}

/// What `text` prints for the runs, built from the expected pieces by the joining rules.
pub fn expected_text(runs: &[Value]) -> Option<String> {
    let mut out = String::new();
    for run in runs {
        let separates = !matches!(run["agent"].as_str(), Some("cursor" | "gemini"));
        let pieces = run["answer_pieces"].as_array()?;
        let mut text = String::new();
        for piece in pieces {
            let piece = piece.as_str().unwrap();
            if piece.is_empty() {
                continue;
            }
            if separates && !text.is_empty() {
                // A blank line between messages, counting the newlines on either side.
                let ending = text
                    .chars()
                    .rev()
                    .take(2)
                    .take_while(|&c| c == '\n')
                    .count();
                let starting = piece.chars().take(2).take_while(|&c| c == '\n').count();
                text.push_str(&"\n\n"[(ending + starting).min(2)..]);
            }
            text.push_str(piece);
        }
        if !text.is_empty() && !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&text);
    }
    Some(out)
}

/// A status word's meaning, for agents that each have their own words.
pub fn class_of(status: &str) -> &'static str {
    match status {
        "success" => "success",
        "pending" => "pending",
        "rejected"
        | "declined"
        | "permission_denied"
        | "policy_violation"
        | "permissionDenied"
        | "readPermissionDenied"
        | "writePermissionDenied" => "rejected",
        _ => "failed",
    }
}

/// Checks every run view on one case; returns what went wrong.
pub fn check_case(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let e = &case.expect;
    let runs = e["runs"].as_array().unwrap();
    let exit = e["exit"].as_i64().unwrap() as i32;

    let (code, text, stderr) = run(case, &["text"]);
    if code != exit {
        problems.push(format!(
            "text: exit {code}, expected {exit}; stderr: {stderr}"
        ));
    }
    if let Some(expected) = expected_text(runs)
        && text != expected
    {
        problems.push(format!(
            "text:\n  got      {text:?}\n  expected {expected:?}"
        ));
    }
    if stderr.contains("differs") {
        problems.push(format!("text: the answer check failed: {stderr}"));
    }

    let (code, result, _) = run(case, &["result"]);
    if code != exit {
        problems.push(format!("result: exit {code}, expected {exit}"));
    }
    let expected: String = runs
        .iter()
        .filter_map(|r| r["final"].as_str())
        .map(|f| format!("{f}\n"))
        .collect();
    // A run whose text the CLI made up (`answer_pieces: null`) and whose final answer the
    // scenario could not script (`final: null`) is not checked here.
    let unscripted = runs
        .iter()
        .any(|r| r["answer_pieces"].is_null() && r["final"].is_null());
    if result != expected && !unscripted {
        problems.push(format!(
            "result:\n  got      {result:?}\n  expected {expected:?}"
        ));
    }

    let (code, tools, _) = run(case, &["tools", "--json"]);
    if code != exit {
        problems.push(format!("tools: exit {code}, expected {exit}"));
    }
    let got: Vec<(Value, Value, &str, Value)> = tools
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            let id = if v["call_id"] == "" {
                Value::Null
            } else {
                v["call_id"].clone()
            };
            (
                id,
                v["tool"].clone(),
                class_of(v["status"].as_str().unwrap()),
                v["parent_call_id"].clone(),
            )
        })
        .collect();
    let expected: Vec<(Value, Value, &str, Value)> = runs
        .iter()
        .flat_map(|r| r["tools"].as_array().unwrap())
        .map(|t| {
            (
                t["call_id"].clone(),
                t["tool"].clone(),
                t["class"].as_str().unwrap(),
                t.get("parent").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    if got != expected {
        problems.push(format!(
            "tools:\n  got      {got:?}\n  expected {expected:?}"
        ));
    }

    problems.extend(check_transcript(case, runs, exit));

    let (code, stats, _) = run(case, &["stats", "--json"]);
    if code != 0 {
        problems.push(format!("stats: exit {code}"));
    }
    let got: Vec<(Value, Value, Value)> = stats
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            (
                v["agent"].clone(),
                v["status"].clone(),
                v["session_id"].clone(),
            )
        })
        .collect();
    let expected: Vec<(Value, Value, Value)> = runs
        .iter()
        .map(|r| {
            let status = match r["status"].as_str().unwrap() {
                "failed" => "error",
                s => s,
            };
            (
                r["agent"].clone(),
                Value::from(status),
                r["session_id"].clone(),
            )
        })
        .collect();
    if got != expected {
        problems.push(format!(
            "stats:\n  got      {got:?}\n  expected {expected:?}"
        ));
    }
    problems
}

/// `transcript`: the answer as written and every call with its status, in Markdown; in
/// HTML one section per run with its status and one entry per call (the page in a browser
/// is `tests/it/transcript.rs`'s).
fn check_transcript(case: &Case, runs: &[Value], exit: i32) -> Vec<String> {
    let mut problems = Vec::new();
    let marks = |class: &str| match class {
        "success" => "✅",
        "rejected" => "🚫",
        "pending" => "⏳",
        _ => "❌",
    };
    let mut expected: Vec<&str> = runs
        .iter()
        .flat_map(|r| r["tools"].as_array().unwrap())
        .map(|t| marks(t["class"].as_str().unwrap()))
        .collect();
    expected.sort_unstable();

    let (code, md, stderr) = run(case, &["transcript"]);
    if code != exit {
        problems.push(format!(
            "transcript: exit {code}, expected {exit}; {stderr}"
        ));
    }
    for run in runs {
        for piece in run["answer_pieces"].as_array().into_iter().flatten() {
            let piece = piece.as_str().unwrap().trim();
            if !piece.is_empty() && !md.contains(piece) {
                problems.push(format!("transcript: answer piece {piece:?} missing"));
            }
        }
    }
    // A call's line starts with its mark, alone or in a <summary>.
    let mut got: Vec<&str> = md
        .lines()
        .map(|l| l.strip_prefix("<details><summary>").unwrap_or(l))
        .filter(|l| l.contains(" <b>"))
        .filter_map(|l| {
            ["✅", "❌", "🚫", "⏳", "❔"]
                .into_iter()
                .find(|m| l.starts_with(*m))
        })
        .map(|m| if m == "❔" { "❌" } else { m })
        .collect();
    got.sort_unstable();
    if got != expected {
        problems.push(format!("transcript: calls {got:?}, expected {expected:?}"));
    }

    let (code, html, _) = run(case, &["transcript", "--html"]);
    if code != exit {
        problems.push(format!("transcript --html: exit {code}, expected {exit}"));
    }
    let calls = html.matches("<li class=\"call").count();
    if calls != expected.len() {
        problems.push(format!(
            "transcript --html: {calls} calls, expected {}",
            expected.len()
        ));
    }
    let statuses: Vec<&str> = html
        .match_indices("<section class=\"run\"")
        .filter_map(|(i, _)| html[i..].split("<span class=\"badge ").nth(1))
        .filter_map(|s| s.split('"').next())
        .collect();
    let expected_statuses: Vec<&str> = runs
        .iter()
        .map(|r| match r["status"].as_str().unwrap() {
            "no_result" => "unfinished",
            s => s,
        })
        .collect();
    if statuses != expected_statuses {
        problems.push(format!(
            "transcript --html: runs {statuses:?}, expected {expected_statuses:?}"
        ));
    }
    problems
}

#[test]
fn every_recording_of_the_real_clis_reads_as_its_scenario_scripted() {
    let cases = recorded();
    // Five CLIs, eleven scenarios or more each: committed, so never skipped.
    assert!(cases.len() >= 5 * 11, "{} recordings", cases.len());
    let mut failures = Vec::new();
    for case in &cases {
        let problems = check_case(case);
        if !problems.is_empty() {
            failures.push(format!("{}:\n{}", name(case), problems.join("\n")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} recording(s) wrong:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn every_pitfall_fixture_reads_as_its_agent_says() {
    let mut failures = Vec::new();
    for case in cases() {
        let problems = check_case(&case);
        if !problems.is_empty() {
            failures.push(format!("{}:\n{}", name(&case), problems.join("\n")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) wrong:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// Feeds a stream to `text` one line at a time and checks that each line's text reaches
/// stdout before the next line is written (the producer keeps its stdout open).
fn assert_live(lines: &[(String, &str)]) {
    use std::io::{Read, Write};
    use std::process::Stdio;
    use std::sync::mpsc;
    use std::time::Duration;

    let mut child = Command::new(BIN)
        .arg("text")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => tx.send(buf[..n].to_vec()).unwrap(),
            }
        }
    });
    for (line, expected) in lines {
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        if expected.is_empty() {
            // Nothing may come out for this line (a repeat, a lifecycle event).
            assert!(
                rx.recv_timeout(Duration::from_millis(200)).is_err(),
                "output for a line that adds nothing: {line}"
            );
            continue;
        }
        let got = rx
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_else(|_| panic!("{expected:?} did not appear while the stream was open"));
        assert_eq!(String::from_utf8(got).unwrap(), *expected);
    }
    drop(stdin);
    child.wait().unwrap();
}

#[test]
fn a_claude_partial_stream_shows_each_delta_before_the_next_arrives() {
    let session = r#""session_id":"0c1d","parent_tool_use_id":null"#;
    let event = |e: &str| format!(r#"{{"type":"stream_event","event":{e},{session},"uuid":"u"}}"#);
    let delta = |t: &str| {
        event(&format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":"{t}"}}}}"#
        ))
    };
    assert_live(&[
        (
            r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"0c1d","tools":["Bash"],"mcp_servers":[],"model":"claude-opus-5","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.1.330","uuid":"i"}"#.to_string(),
            "",
        ),
        (event(r#"{"type":"message_start","message":{"id":"msg_1","content":[]}}"#), ""),
        (event(r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#), ""),
        (delta("Streaming"), "Streaming"),
        (delta(" one"), " one"),
        (delta(" word at a time."), " word at a time."),
        // The block, repeated whole: nothing more to show.
        (
            format!(r#"{{"type":"assistant","message":{{"id":"msg_1","type":"message","role":"assistant","content":[{{"type":"text","text":"Streaming one word at a time."}}]}},{session},"uuid":"a"}}"#),
            "",
        ),
    ]);
}

#[test]
fn a_gemini_stream_shows_each_delta_before_the_next_arrives() {
    let delta = |t: &str| {
        format!(
            r#"{{"type":"message","timestamp":"2026-11-23T10:00:01.000Z","role":"assistant","content":"{t}","delta":true}}"#
        )
    };
    assert_live(&[
        (
            r#"{"type":"init","timestamp":"2026-11-23T10:00:00.000Z","session_id":"4f1e","model":"gemini-3-flash"}"#.to_string(),
            "",
        ),
        (delta("Gemini"), "Gemini"),
        (delta(" streams"), " streams"),
        (delta(" deltas."), " deltas."),
    ]);
}

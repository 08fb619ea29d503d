//! The library's public API, used as a Rust program would: it reads what the command
//! reads (the same runs, statuses and tool calls as `stats --json` and `tools --json`), the
//! same way whether given a reader or lines, and hands back the handler's own errors.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use cursor_stream::{Agent, Event, Handler, Reader, RunEnd, RunInfo, Wants};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// Every event, as one line of text each.
#[derive(Default)]
struct Log {
    wants: Option<Wants>,
    lines: Vec<String>,
    /// (call id, tool, status word) of each ended call.
    calls: Vec<(String, String, String)>,
    /// (agent, session id, outcome word) of each run.
    runs: Vec<(String, Option<String>, String)>,
}

impl Handler for Log {
    type Error = io::Error;

    fn wants(&self) -> Wants {
        self.wants.unwrap_or(Wants::ALL)
    }

    fn run_start(&mut self, run: &RunInfo) -> io::Result<()> {
        self.lines.push(format!("start {run:?}"));
        Ok(())
    }

    fn event(&mut self, _run: &RunInfo, event: &Event<'_>) -> io::Result<()> {
        self.lines.push(format!("{event:?}"));
        if let Event::ToolEnded(end) = event {
            self.calls.push((
                end.call.id.as_deref().unwrap_or("").to_string(),
                end.call.tool.to_string(),
                end.status.word.to_string(),
            ));
        }
        Ok(())
    }

    fn run_end(&mut self, run: &RunInfo, end: &RunEnd<'_>) -> io::Result<()> {
        self.lines.push(format!("end {run:?} {end:?}"));
        self.runs.push((
            run.agent.to_string(),
            run.session_id.clone(),
            end.outcome.word().to_string(),
        ));
        Ok(())
    }
}

fn logs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut logs = Vec::new();
    for dir in ["examples", "tests/fixtures"]
        .iter()
        .map(|d| root.join(d))
        .chain(
            std::fs::read_dir(root.join("tests/fixtures/agents"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        )
    {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "ndjson") {
                logs.push(path);
            }
        }
    }
    logs.sort();
    logs
}

fn rows(args: &[&str], path: &Path) -> Vec<Value> {
    let out = Command::new(BIN).args(args).arg(path).output().unwrap();
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

#[test]
fn the_library_reads_the_runs_and_calls_the_command_reports() {
    let logs = logs();
    assert!(logs.len() > 60, "{} logs", logs.len());
    for path in &logs {
        let mut log = Log::default();
        Reader::new()
            .read(std::fs::File::open(path).unwrap(), &mut log)
            .unwrap();
        let runs: Vec<(String, Option<String>, String)> = rows(&["stats", "--json"], path)
            .iter()
            .map(|r| {
                (
                    r["agent"].as_str().unwrap().to_string(),
                    r["session_id"].as_str().map(str::to_string),
                    r["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(log.runs, runs, "{}", path.display());
        let calls: Vec<(String, String, String)> = rows(&["tools", "--json"], path)
            .iter()
            .map(|c| {
                (
                    c["call_id"].as_str().unwrap().to_string(),
                    c["tool"].as_str().unwrap().to_string(),
                    c["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        // `tools` lists calls in start order; the events come in end order.
        let (mut got, mut want) = (log.calls.clone(), calls);
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", path.display());
    }
}

#[test]
fn lines_in_hand_read_as_the_stream_does() {
    for path in logs() {
        let data = std::fs::read(&path).unwrap();
        let mut streamed = Log::default();
        Reader::new()
            .read(io::Cursor::new(data.clone()), &mut streamed)
            .unwrap();
        // Split as a caller would, with and without their line ends.
        let mut with_ends = Log::default();
        Reader::new()
            .read_lines(data.split_inclusive(|&b| b == b'\n'), &mut with_ends)
            .unwrap();
        let text = String::from_utf8_lossy(&data).into_owned();
        let mut without = Log::default();
        if text.as_bytes() == data {
            Reader::new()
                .read_lines(text.lines(), &mut without)
                .unwrap();
        }
        assert_eq!(with_ends.lines, streamed.lines, "{}", path.display());
        if !without.lines.is_empty() {
            assert_eq!(without.lines, streamed.lines, "{}", path.display());
        }
    }
}

#[test]
fn a_handler_asking_for_the_answer_only_gets_no_tool_events() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/claude.ndjson");
    let mut all = Log::default();
    Reader::new()
        .read(std::fs::File::open(&path).unwrap(), &mut all)
        .unwrap();
    let mut text = Log {
        wants: Some(Wants::TEXT),
        ..Log::default()
    };
    Reader::new()
        .read(std::fs::File::open(&path).unwrap(), &mut text)
        .unwrap();
    assert!(all.lines.iter().any(|l| l.starts_with("ToolEnded")));
    assert!(!text.lines.iter().any(|l| l.starts_with("Tool")));
    let answer = |log: &Log| -> Vec<String> {
        log.lines
            .iter()
            .filter(|l| l.starts_with("Text"))
            .cloned()
            .collect()
    };
    assert_eq!(answer(&text), answer(&all));
    assert!(!answer(&all).is_empty());
}

/// The handler's own error type stops the reading and comes back unchanged.
#[test]
fn a_handler_error_stops_the_reading_and_comes_back() {
    #[derive(Debug)]
    enum Stop {
        Enough(usize),
        Io(io::Error),
    }
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{self:?}")
        }
    }
    impl std::error::Error for Stop {}
    impl From<io::Error> for Stop {
        fn from(e: io::Error) -> Stop {
            Stop::Io(e)
        }
    }
    struct FirstCall(usize);
    impl Handler for FirstCall {
        type Error = Stop;
        fn event(&mut self, _run: &RunInfo, event: &Event<'_>) -> Result<(), Stop> {
            self.0 += 1;
            match event {
                Event::ToolStarted { seq, .. } => Err(Stop::Enough(*seq as usize)),
                _ => Ok(()),
            }
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/codex.ndjson");
    let mut handler = FirstCall(0);
    let err = Reader::new()
        .read(std::fs::File::open(&path).unwrap(), &mut handler)
        .unwrap_err();
    assert!(matches!(err, Stop::Enough(0)), "{err:?}");

    // An error of the reading becomes one through `From<io::Error>`.
    let long = format!("{{\"type\":\"system\",\"x\":\"{}\"}}\n", "a".repeat(5000));
    let err = Reader::new()
        .max_line(1000)
        .read(io::Cursor::new(long), FirstCall(0))
        .unwrap_err();
    assert!(
        matches!(&err, Stop::Io(e) if e.kind() == io::ErrorKind::InvalidData),
        "{err:?}"
    );
}

/// A stream cut before its first lines says nothing of its agent: named, it is read as
/// that agent's.
#[test]
fn a_named_agent_reads_a_stream_cut_at_the_front() {
    let lines = [
        r#"{"type":"message","timestamp":"2026-04-11T22:41:05.504Z","role":"assistant","content":"Hi","delta":true}"#,
        r#"{"type":"result","timestamp":"2026-04-11T22:41:06.000Z","status":"success","stats":{"total_tokens":10,"input_tokens":7,"output_tokens":3}}"#,
    ];
    let mut log = Log::default();
    Reader::new()
        .agent(Agent::Gemini)
        .read_lines(lines, &mut log)
        .unwrap();
    assert_eq!(log.runs, [("gemini".into(), None, "success".into())]);
    assert!(
        log.lines.iter().any(|l| l == "Text([72, 105])"),
        "{:?}",
        log.lines
    );
}

/// `max_line` holds for lines in hand as for a stream: a longer line is refused with
/// `InvalidData`, and nothing of it reaches the handler.
#[test]
fn a_line_over_the_limit_is_refused_however_it_is_given() {
    let long = format!(
        r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{}"}}]}},"session_id":"s1"}}"#,
        "x".repeat(1000)
    );
    let lines = [
        r#"{"type":"system","subtype":"init","apiKeySource":"login","session_id":"s1"}"#,
        long.as_str(),
    ];
    let mut log = Log::default();
    let err = Reader::new()
        .max_line(100)
        .read_lines(lines, &mut log)
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(err.to_string().contains("line 2 is longer"), "{err}");
    assert!(
        !log.lines.iter().any(|l| l.contains("xxxx")),
        "{:?}",
        log.lines
    );
    let mut log = Log::default();
    let stream = io::Cursor::new(lines.join("\n").into_bytes());
    let err = Reader::new()
        .max_line(100)
        .read(stream, &mut log)
        .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
}

/// A named agent is the agent of every run: the stream is not asked (a Cursor log read as
/// Claude's gives Claude's runs), in the library as with `--agent`.
#[test]
fn a_named_agent_is_not_second_guessed() {
    let cursor = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.ndjson");
    let mut log = Log::default();
    Reader::new()
        .agent(Agent::Claude)
        .read(std::fs::File::open(&cursor).unwrap(), &mut log)
        .unwrap();
    let agents: Vec<&str> = log.runs.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(agents, ["claude"]);
    for (flag, want) in [("claude", "claude"), ("cursor", "cursor")] {
        let got: Vec<String> = rows(&["stats", "--json", "--agent", flag], &cursor)
            .iter()
            .map(|row| row["agent"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, [want], "--agent {flag}");
    }
    // A log of Qwen's run then Claude's, named Qwen's: both runs are Qwen's.
    let mixed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/mixed/qwen-then-claude.ndjson");
    let got: Vec<String> = rows(&["stats", "--json", "--agent", "qwen"], &mixed)
        .iter()
        .map(|row| row["agent"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(got, ["qwen", "qwen"]);
}

//! `events --normalized`: every object it writes, over every fixture and every real capture,
//! is valid against `docs/normalized.schema.json` — checked by a real JSON Schema validator,
//! Python's `jsonschema` (a Rust one added more than 30 s to a clean build on two cores) —
//! and says what the stream said: the tool calls, the outcome, the agent, the answer text.
//!
//! Without Python's `jsonschema` package the schema tests say they skipped (and fail
//! under `CI=true`, where `.ci/run` installs it); the content tests need nothing.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// Every stream file under `dir`, at any depth, sorted.
fn streams_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                dirs.push(path);
            } else if path
                .extension()
                .is_some_and(|x| x == "ndjson" || x == "jsonl")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `events --normalized` over `args`: its exit status and output lines.
fn normalized_lines(args: &[&str], path: &Path) -> (i32, Vec<String>) {
    let out = Command::new(BIN)
        .args(["-q", "events", "--normalized"])
        .args(args)
        .arg(path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).expect("the output is UTF-8");
    let lines = stdout.lines().map(str::to_owned).collect();
    (out.status.code().unwrap(), lines)
}

/// The objects `events --normalized` writes for `path`.
fn objects_of(path: &Path) -> Vec<Value> {
    let (_, lines) = normalized_lines(&[], path);
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

fn of_event<'v>(objects: &'v [Value], event: &str) -> Vec<&'v Value> {
    objects.iter().filter(|o| o["event"] == event).collect()
}

/// The validator, reading `docs/normalized.schema.json`: lines on stdin, for each invalid
/// one `index<TAB>message` on stdout.
const VALIDATE: &str = r#"
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
for i, line in enumerate(sys.stdin):
    for err in validator.iter_errors(json.loads(line)):
        print(f"{i}\t{err.message[:300]}")
        break
"#;

/// Whether Python's `jsonschema` is here; if not, says so (the caller then returns).
fn have_validator() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import jsonschema"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        prerequisite::missing("python3 with the jsonschema package is not here");
    }
    ok
}

/// The indexes of the `lines` the schema rejects, with why.
fn invalid(lines: &[String]) -> Vec<(usize, String)> {
    let schema = root().join("docs/normalized.schema.json");
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(VALIDATE)
        .arg(&schema)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = lines.join("\n") + "\n";
    // Written from a thread: the validator's answers could fill its stdout pipe first.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the validator failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (i, why) = l.split_once('\t').unwrap();
            (i.parse().unwrap(), why.to_owned())
        })
        .collect()
}

/// Validates the output of every file against the schema; returns the number of lines.
fn validate_all(files: &[PathBuf]) -> usize {
    let mut lines = Vec::new();
    let mut from = Vec::new();
    for path in files {
        let (_, out) = normalized_lines(&[], path);
        from.extend(std::iter::repeat_n(path.clone(), out.len()));
        lines.extend(out);
    }
    let bad: Vec<String> = invalid(&lines)
        .into_iter()
        .map(|(i, why)| format!("{}: {}\n  {why}", from[i].display(), lines[i]))
        .collect();
    assert!(bad.is_empty(), "outside the schema:\n{}", bad.join("\n"));
    lines.len()
}

#[test]
fn every_fixture_gives_objects_the_schema_accepts() {
    if !have_validator() {
        return;
    }
    let files = streams_under(&root().join("tests/fixtures"));
    assert!(files.len() > 60, "the fixtures are missing: {files:?}");
    let lines = validate_all(&files);
    assert!(lines > 500, "only {lines} objects from every fixture");
}

#[test]
fn every_real_capture_gives_objects_the_schema_accepts() {
    let files = streams_under(&root().join("../shared/captures"));
    if files.is_empty() {
        return prerequisite::missing("../shared/captures is not here");
    }
    if !have_validator() {
        return;
    }
    let lines = validate_all(&files);
    assert!(
        lines > files.len(),
        "only {lines} objects from every capture"
    );
}

#[test]
fn the_schema_rejects_unknown_keys_missing_keys_and_unknown_events() {
    if !have_validator() {
        return;
    }
    let (_, good) = normalized_lines(&[], &fixture("parallel.ndjson"));
    let tool_end = good
        .iter()
        .find(|l| l.starts_with(r#"{"event":"tool_end""#))
        .unwrap();
    let mut extra: Value = serde_json::from_str(tool_end).unwrap();
    extra["colour"] = "blue".into();
    let mut missing: Value = serde_json::from_str(tool_end).unwrap();
    missing.as_object_mut().unwrap().remove("status_class");
    let mut nested: Value = serde_json::from_str(tool_end).unwrap();
    nested["effect"]["bytes"] = 3.into();
    let mut unknown: Value = serde_json::from_str(&good[0]).unwrap();
    unknown["event"] = "run_paused".into();
    let lines = [
        tool_end.clone(),
        extra.to_string(),
        missing.to_string(),
        nested.to_string(),
        unknown.to_string(),
    ];
    let rejected: Vec<usize> = invalid(&lines).into_iter().map(|(i, _)| i).collect();
    assert_eq!(rejected, [1, 2, 3, 4]);
}

#[test]
fn cursor_parallel_calls_start_and_end_with_their_ids_tools_and_statuses() {
    let objects = objects_of(&fixture("parallel.ndjson"));
    let starts = of_event(&objects, "tool_start");
    let ends = of_event(&objects, "tool_end");
    let ids = |v: &[&Value]| -> Vec<String> {
        v.iter()
            .map(|o| o["call_id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(ids(&starts), ["call_AAAA\nfc_aaaa", "call_BBBB\nfc_bbbb"]);
    // Ends come as the stream ends them: the short sleep first.
    assert_eq!(ids(&ends), ["call_BBBB\nfc_bbbb", "call_AAAA\nfc_aaaa"]);
    let end = ends[0];
    assert_eq!(end["tool"], "shell");
    assert_eq!(end["kind"], "shell");
    assert_eq!(end["seq"], 1);
    assert_eq!(end["target"], "sleep 1");
    assert_eq!(end["args"]["command"], "sleep 1");
    assert_eq!(end["status"], "success");
    assert_eq!(end["status_class"], "ok");
    assert_eq!(end["started"], true);
    assert_eq!(end["duration_ms"], 1005);
    assert_eq!(end["result"]["exitCode"], 0);
    assert_eq!(end["effect"]["exit_code"], 0);
}

#[test]
fn a_call_says_what_it_does_in_the_words_of_every_tool_record() {
    // Claude's Grep is a search, as Gemini's `grep_search`, OpenCode's `grep`, a Glob.
    let objects = objects_of(&fixture("agents/claude/parallel-out-of-order.ndjson"));
    let kinds: Vec<(&str, &str, &str)> = objects
        .iter()
        .filter(|o| o["event"] == "tool_start" || o["event"] == "tool_end")
        .map(|o| {
            (
                o["event"].as_str().unwrap(),
                o["tool"].as_str().unwrap(),
                o["kind"].as_str().unwrap(),
            )
        })
        .filter(|(_, tool, _)| *tool == "Grep")
        .collect();
    assert_eq!(
        kinds,
        [
            ("tool_start", "Grep", "search"),
            ("tool_end", "Grep", "search")
        ]
    );
    // Codex's stream and rollout name a command each their way; both are `shell`.
    let stream = objects_of(&fixture("recorded/codex/0.169.0/tool.stdout"));
    let start = of_event(&stream, "tool_start")[0];
    assert_eq!(
        (&start["tool"], &start["kind"]),
        (&"command_execution".into(), &"shell".into())
    );
}

#[test]
fn a_denied_call_is_rejected_with_the_agents_word() {
    let objects = objects_of(&fixture("agents/claude/permission-denied.ndjson"));
    let ends = of_event(&objects, "tool_end");
    assert_eq!(ends.len(), 1);
    assert_eq!(ends[0]["tool"], "Bash");
    assert_eq!(ends[0]["status"], "rejected");
    assert_eq!(ends[0]["status_class"], "rejected");
    assert!(
        ends[0]["effect"]["error"]
            .as_str()
            .unwrap()
            .contains("denied")
    );
}

#[test]
fn a_failed_run_ends_with_outcome_failure_and_why() {
    let objects = objects_of(&fixture("failed.ndjson"));
    let end = objects.last().unwrap();
    assert_eq!(end["event"], "run_end");
    assert_eq!(end["outcome"], "failure");
    assert_eq!(end["error"], "subtype error, is_error true");
    assert_eq!(
        end["answer"],
        "Usage limit reached for this billing period."
    );
    let cut = objects_of(&fixture("no-result.ndjson"));
    assert_eq!(cut.last().unwrap()["outcome"], "no_end");
}

#[test]
fn each_of_the_six_agents_starts_its_run_with_its_name() {
    let objects = objects_of(&fixture("agents/mixed/all-six.ndjson"));
    let agents: Vec<&str> = of_event(&objects, "run_start")
        .iter()
        .map(|o| o["agent"].as_str().unwrap())
        .collect();
    let mut sorted = agents.clone();
    sorted.sort_unstable();
    assert_eq!(
        sorted,
        ["claude", "codex", "cursor", "gemini", "opencode", "qwen"]
    );
    // Every object of a run names that run's agent.
    let mut current = "";
    for o in &objects {
        if o["event"] == "run_start" {
            current = o["agent"].as_str().unwrap();
        }
        assert_eq!(o["agent"], current, "{o}");
    }
    assert_eq!(of_event(&objects, "run_end").len(), 6);
}

#[test]
fn usage_is_normalized_at_the_run_end() {
    let objects = objects_of(&fixture("agents/claude/permission-denied.ndjson"));
    let usage = &objects.last().unwrap()["usage"];
    assert_eq!(usage["input_tokens"], 6);
    assert_eq!(usage["output_tokens"], 186);
    assert_eq!(usage["cache_read_tokens"], 54690);
    assert_eq!(usage["cache_write_tokens"], 2471);
}

/// `text --separator SEP` for one file.
fn text_with(sep: &str, path: &Path) -> String {
    let out = Command::new(BIN)
        .args(["-q", "text", "--separator", sep])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The answer as the objects give it: the text events, `sep` where a segment comes before
/// more text; a run's final answer where no text was streamed and the run succeeded (as
/// `text` prints it).
fn rebuilt(objects: &[Value], sep: &str) -> String {
    let (mut out, mut due, mut any) = (String::new(), false, false);
    for o in objects {
        match o["event"].as_str().unwrap() {
            "text" => {
                if std::mem::take(&mut due) {
                    out.push_str(sep);
                }
                out.push_str(o["text"].as_str().unwrap());
                any = true;
            }
            "segment" => due = true,
            "run_end" if !any && o["outcome"] == "success" => {
                out.push_str(o["answer"].as_str().unwrap_or(""));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn text_events_with_their_segments_rebuild_what_text_prints() {
    let mut checked = 0;
    for path in streams_under(&fixture("agents")) {
        let objects = objects_of(&path);
        // Runs after the first are set apart by `text` on a line of their own.
        if of_event(&objects, "run_start").len() != 1 {
            continue;
        }
        for sep in ["", "<|>"] {
            assert_eq!(
                rebuilt(&objects, sep),
                text_with(sep, &path),
                "{} with separator {sep:?}",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} fixtures compared");
}

#[test]
fn count_last_run_and_session_select_objects() {
    let path = fixture("two-runs.ndjson");
    let (code, all) = normalized_lines(&[], &path);
    assert_eq!(code, 0);
    let (_, count) = normalized_lines(&["--count"], &path);
    assert_eq!(count, [all.len().to_string()]);
    let second = all
        .iter()
        .rposition(|l| l.starts_with(r#"{"event":"run_start""#))
        .unwrap();
    assert!(second > 0);
    let (_, last) = normalized_lines(&["--last-run"], &path);
    assert_eq!(last, all[second..]);
    let (_, first) = normalized_lines(&["--session", "0b7e4d21"], &path);
    assert_eq!(first, all[..second]);
    let (code, none) = normalized_lines(&["--session", "ffff"], &path);
    assert_eq!((code, none.len()), (1, 0), "nothing written: exit status 1");
}

#[test]
fn normalized_refuses_the_criteria_on_the_agents_own_types() {
    for criterion in [
        ["--type", "assistant"],
        ["--subtype", "init"],
        ["--tool", "shell"],
    ] {
        let out = Command::new(BIN)
            .args(["events", "--normalized"])
            .args(criterion)
            .arg(fixture("two-runs.ndjson"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{criterion:?}");
        assert!(out.stdout.is_empty());
    }
}

/// The dialects refuse a line whose strings are not UTF-8 (it is not JSON): such text never
/// reaches the objects, which stay UTF-8 (the lossy conversion of odd bytes is the
/// `Normalizer`'s unit tests').
#[test]
fn a_line_that_is_not_utf8_leaves_the_objects_utf8() {
    let objects = objects_of(&fixture("invalid-utf8.ndjson"));
    let events: Vec<&str> = objects
        .iter()
        .map(|o| o["event"].as_str().unwrap())
        .collect();
    assert_eq!(events.first(), Some(&"run_start"));
    assert!(!events.contains(&"text"), "{events:?}");
    assert_eq!(objects.last().unwrap()["outcome"], "no_end");
}

#[test]
fn the_documented_examples_are_valid() {
    if !have_validator() {
        return;
    }
    let doc = std::fs::read_to_string(root().join("docs/normalized.md")).unwrap();
    let examples: Vec<String> = doc
        .split("```json\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap().trim().to_owned())
        .collect();
    assert_eq!(examples.len(), 9, "an example per event, two of tool_end");
    assert_eq!(invalid(&examples), []);
}

/// With `--count` the files are read by one worker each: the sum is what one reader counts,
/// and the number of objects written without it.
#[test]
fn count_over_several_files_read_in_parallel_is_the_number_of_objects() {
    let files = streams_under(&fixture("agents"));
    let count = |jobs: &str| {
        let out = Command::new(BIN)
            .env("CURSOR_STREAM_JOBS", jobs)
            .args(["-q", "events", "--normalized", "--count"])
            .args(&files)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let written: usize = files.iter().map(|f| normalized_lines(&[], f).1.len()).sum();
    assert_eq!(count("4"), format!("{written}\n"));
    assert_eq!(count("1"), format!("{written}\n"));
}

//! Conformance on real streams: `../shared/captures`, public captures this project did not
//! write. They are read in place when the folder exists, and the tests skip when it does
//! not (a fresh clone has no such folder).
//!
//! On every capture that has a `result`, the text `text` rebuilds must equal the result's
//! text byte for byte; `result` and `json` must print that result; a capture without a
//! `result` must end with status 3.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn captures() -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/captures");
    let entries = std::fs::read_dir(&dir).ok()?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl" || x == "ndjson"))
        .collect();
    files.sort();
    (!files.is_empty()).then_some(files)
}

/// The `result` events of a capture, read the plain way: every line parsed in full.
fn results(path: &Path) -> Vec<(String, serde_json::Value)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).ok()?;
            (v["type"] == "result").then(|| (line.to_string(), v))
        })
        .collect()
}

fn run(view: &str, path: &Path) -> (i32, String, String) {
    let out = Command::new(BIN).arg(view).arg(path).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn rebuilt_text_equals_the_result_on_every_real_capture() {
    let Some(files) = captures() else {
        eprintln!("skipped: ../shared/captures is not here");
        return;
    };
    let mut checked = 0;
    for path in &files {
        let results = results(path);
        let (code, stdout, stderr) = run("text", path);
        match results.as_slice() {
            [] => assert_eq!(code, 3, "{}: no result, so status 3", path.display()),
            [(_, event)] => {
                assert_eq!(
                    stdout,
                    event["result"].as_str().unwrap(),
                    "{}: text differs from result",
                    path.display()
                );
                assert!(!stderr.contains("differs"), "{}: {stderr}", path.display());
                assert_eq!(code, 0, "{}: {stderr}", path.display());
                checked += 1;
            }
            _ => panic!("{}: one run per capture expected", path.display()),
        }
    }
    assert!(checked > 0, "no capture with a result was checked");
}

#[test]
fn result_and_json_match_the_result_event_on_every_real_capture() {
    let Some(files) = captures() else {
        eprintln!("skipped: ../shared/captures is not here");
        return;
    };
    for path in &files {
        let results = results(path);
        let (result_code, result_out, _) = run("result", path);
        let (json_code, json_out, _) = run("json", path);
        let Some((line, event)) = results.first() else {
            assert_eq!((result_code, json_code), (3, 3), "{}", path.display());
            assert_eq!((result_out.as_str(), json_out.as_str()), ("", ""));
            continue;
        };
        assert_eq!(result_code, 0, "{}", path.display());
        assert_eq!(
            result_out,
            format!("{}\n", event["result"].as_str().unwrap())
        );
        assert_eq!(json_code, 0, "{}", path.display());
        assert_eq!(json_out, format!("{line}\n"), "{}", path.display());
    }
}

/// The calls of a capture, read the plain way: `(call_id, status)` in start order, a call
/// completed without a start placed where it completed, a second completion ignored.
fn expected_calls(path: &Path) -> Vec<(String, String)> {
    let mut calls: Vec<(String, String)> = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if v["type"] != "tool_call" {
            continue;
        }
        let id = v["call_id"].as_str().unwrap().to_string();
        let known = calls.iter().position(|(c, _)| *c == id);
        match (v["subtype"].as_str().unwrap(), known) {
            ("started", None) => calls.push((id, "pending".into())),
            ("completed", known) => {
                let body = v["tool_call"]
                    .as_object()
                    .unwrap()
                    .iter()
                    .find(|(k, _)| k.ends_with("ToolCall"))
                    .unwrap()
                    .1;
                let status = body["result"]
                    .as_object()
                    .and_then(|r| r.iter().find(|(_, v)| v.is_object()))
                    .map_or("unknown".to_string(), |(k, _)| k.clone());
                match known {
                    Some(i) if calls[i].1 == "pending" => calls[i].1 = status,
                    Some(_) => {}
                    None => calls.push((id, status)),
                }
            }
            _ => {}
        }
    }
    calls
}

#[test]
fn tools_lists_every_call_of_every_real_capture_once() {
    let Some(files) = captures() else {
        eprintln!("skipped: ../shared/captures is not here");
        return;
    };
    let mut calls_seen = 0;
    for path in &files {
        let out = Command::new(BIN)
            .args(["tools", "--json"])
            .arg(path)
            .output()
            .unwrap();
        let got: Vec<(String, String)> = String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["call_id"].as_str().unwrap().to_string(),
                    v["status"].as_str().unwrap().to_string(),
                )
            })
            .collect();
        assert_eq!(got, expected_calls(path), "{}", path.display());
        calls_seen += got.len();
    }
    assert!(calls_seen > 0);
}

#[test]
fn progress_keeps_the_answer_whole_on_every_real_capture() {
    let Some(files) = captures() else {
        eprintln!("skipped: ../shared/captures is not here");
        return;
    };
    for path in &files {
        let (_, text, _) = run("text", path);
        let out = Command::new(BIN)
            .args(["progress", "--activity-stderr"])
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            text,
            "{}",
            path.display()
        );
    }
}

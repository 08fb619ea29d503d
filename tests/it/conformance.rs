//! Conformance on real streams: `../shared/captures`, public captures this project did not
//! write. They are read in place when the folder exists; where it does not (a fresh clone
//! alone) the tests say they skipped, and fail under `CI=true`.
//!
//! On every capture that has a `result`, the text `text` rebuilds must equal the result's
//! text byte for byte; `result` and `json` must print that result; a capture without a
//! `result` must end with status 3.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::prerequisite;

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
        return prerequisite::missing("../shared/captures is not here");
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
        return prerequisite::missing("../shared/captures is not here");
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
        return prerequisite::missing("../shared/captures is not here");
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
        return prerequisite::missing("../shared/captures is not here");
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

// ---------------------------------------------------------------------------------------
// The other agents: `../shared/captures/<agent>/`, each checked against a plain reading
// of its format written here with `serde_json::Value` (every line parsed in full), per
// the notes in `../shared/spec/agents/`.

/// What a plain reading of one capture finds.
#[derive(Debug, Default)]
struct Plain {
    agent: &'static str,
    /// The answer text, each message or segment once, joined as `text` joins them.
    text: String,
    /// The final answer, as the agent defines it.
    final_answer: Option<String>,
    /// `success`, `error` or `no_result`.
    status: &'static str,
    /// (call id, status class) in start order.
    tools: Vec<(String, &'static str)>,
}

fn agent_captures(agent: &str) -> Option<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/captures")
        .join(agent);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    (!files.is_empty()).then_some(files)
}

fn values_of(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Joins whole messages with a blank line, as `text` does for these agents.
fn join_messages(messages: &[String]) -> String {
    let mut text = String::new();
    for m in messages.iter().filter(|m| !m.is_empty()) {
        if !text.is_empty() {
            let ending = text
                .chars()
                .rev()
                .take(2)
                .take_while(|&c| c == '\n')
                .count();
            let starting = m.chars().take(2).take_while(|&c| c == '\n').count();
            text.push_str(&"\n\n"[(ending + starting).min(2)..]);
        }
        text.push_str(m);
    }
    text
}

/// Tool calls in start order, a call that ends without a start where it ends.
#[derive(Default)]
struct Calls(Vec<(String, &'static str)>);

impl Calls {
    fn start(&mut self, id: &str) {
        if !self.0.iter().any(|(c, _)| c == id) {
            self.0.push((id.to_string(), "pending"));
        }
    }
    fn end(&mut self, id: &str, class: &'static str) {
        match self.0.iter_mut().find(|(c, _)| c == id) {
            Some(call) if call.1 == "pending" => call.1 = class,
            Some(_) => {}
            None => self.0.push((id.to_string(), class)),
        }
    }
}

fn str_of(v: &serde_json::Value) -> &str {
    v.as_str().unwrap_or("")
}

fn plain_claude(lines: &[serde_json::Value]) -> Plain {
    let mut plain = Plain {
        agent: "claude",
        status: "no_result",
        ..Plain::default()
    };
    let mut messages: Vec<(String, String)> = Vec::new();
    let mut calls = Calls::default();
    let mut denied = Vec::new();
    for v in lines {
        match str_of(&v["type"]) {
            "system" if v["subtype"] == "init" && v.get("qwen_code_version").is_some() => {
                plain.agent = "qwen"
            }
            "system" if v["subtype"] == "permission_denied" => {
                denied.push(str_of(&v["tool_use_id"]).to_string())
            }
            "assistant" | "user" => {
                let top = v["parent_tool_use_id"].is_null();
                let id = str_of(&v["message"]["id"]).to_string();
                for block in v["message"]["content"].as_array().into_iter().flatten() {
                    match str_of(&block["type"]) {
                        "text" if top && v["type"] == "assistant" => match messages.last_mut() {
                            Some((m, text)) if *m == id => text.push_str(str_of(&block["text"])),
                            _ => messages.push((id.clone(), str_of(&block["text"]).to_string())),
                        },
                        "tool_use" => calls.start(str_of(&block["id"])),
                        "tool_result" => {
                            let id = str_of(&block["tool_use_id"]);
                            let class = if block["is_error"] != true {
                                "success"
                            } else if denied.iter().any(|d| d == id) {
                                "rejected"
                            } else {
                                "failed"
                            };
                            calls.end(id, class);
                        }
                        _ => {}
                    }
                }
            }
            "result" => {
                plain.final_answer = v["result"].as_str().map(str::to_string);
                let ok = v["subtype"] == "success"
                    && v["is_error"] != true
                    && !(plain.agent == "qwen" && str_of(&v["result"]).starts_with("[API Error:"));
                plain.status = if ok { "success" } else { "error" };
            }
            _ => {}
        }
    }
    let texts: Vec<String> = messages.into_iter().map(|(_, t)| t).collect();
    plain.text = join_messages(&texts);
    plain.tools = calls.0;
    plain
}

const CODEX_TOOLS: &[&str] = &[
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "todo_list",
    "collab_tool_call",
];

fn plain_codex(lines: &[serde_json::Value]) -> Plain {
    let mut plain = Plain {
        agent: "codex",
        status: "no_result",
        ..Plain::default()
    };
    let mut messages = Vec::new();
    let mut calls = Calls::default();
    let mut legacy_error = false;
    for v in lines {
        let item = &v["item"];
        match (str_of(&v["type"]), str_of(&item["type"])) {
            ("item.started", kind) if CODEX_TOOLS.contains(&kind) => {
                calls.start(str_of(&item["id"]))
            }
            ("item.completed", "agent_message") => messages.push(str_of(&item["text"]).to_string()),
            ("item.completed", kind) if CODEX_TOOLS.contains(&kind) => {
                let class = match str_of(&item["status"]) {
                    "" | "completed" => "success",
                    "declined" => "rejected",
                    _ => "failed",
                };
                calls.end(str_of(&item["id"]), class);
            }
            ("turn.completed", _) => {
                plain.status = "success";
                plain.final_answer = messages.last().cloned();
            }
            ("turn.failed", _) => plain.status = "error",
            ("", _) => {
                // The legacy format: `{"id","msg":{"type",…}}`.
                let msg = &v["msg"];
                match str_of(&msg["type"]) {
                    "agent_message" => messages.push(str_of(&msg["message"]).to_string()),
                    "exec_command_begin" => calls.start(str_of(&msg["call_id"])),
                    "exec_command_end" => {
                        let class = if msg["exit_code"] == 0 {
                            "success"
                        } else {
                            "failed"
                        };
                        calls.end(str_of(&msg["call_id"]), class);
                    }
                    "error" => legacy_error = true,
                    "task_complete" => {
                        plain.status = "success";
                        plain.final_answer = msg["last_agent_message"].as_str().map(str::to_string);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if plain.status == "no_result" && legacy_error {
        plain.status = "error";
    }
    plain.text = join_messages(&messages);
    plain.tools = calls.0;
    plain
}

fn plain_gemini(lines: &[serde_json::Value]) -> Plain {
    let mut plain = Plain {
        agent: "gemini",
        status: "no_result",
        ..Plain::default()
    };
    let mut last_segment = String::new();
    let mut calls = Calls::default();
    let mut first = true;
    for v in lines {
        match str_of(&v["type"]) {
            "message" if v["role"] == "assistant" => {
                let text = str_of(&v["content"]);
                if std::mem::take(&mut first)
                    && text.starts_with("The --prompt (-p) flag has been deprecated")
                {
                    continue;
                }
                plain.text.push_str(text);
                last_segment.push_str(text);
            }
            "tool_use" => {
                last_segment.clear();
                calls.start(str_of(&v["tool_id"]));
            }
            "tool_result" => {
                last_segment.clear();
                let class = if v["status"] == "success" {
                    "success"
                } else {
                    "failed"
                };
                calls.end(str_of(&v["tool_id"]), class);
            }
            "result" => {
                plain.status = if v["status"] == "success" {
                    "success"
                } else {
                    "error"
                };
                plain.final_answer = (!last_segment.is_empty()).then(|| last_segment.clone());
            }
            _ => {}
        }
    }
    plain.tools = calls.0;
    plain
}

fn plain_opencode(lines: &[serde_json::Value]) -> Plain {
    let mut plain = Plain {
        agent: "opencode",
        ..Plain::default()
    };
    let mut messages = Vec::new();
    let mut step_text = String::new();
    let mut calls = Calls::default();
    let (mut stopped, mut error) = (false, false);
    for v in lines {
        let part = &v["part"];
        match str_of(&v["type"]) {
            "step_start" => step_text.clear(),
            "text" => {
                messages.push(str_of(&part["text"]).to_string());
                step_text.push_str(str_of(&part["text"]));
            }
            "tool_use" => {
                let id = str_of(&part["callID"]);
                calls.start(id);
                let class = if part["state"]["status"] == "completed" {
                    "success"
                } else {
                    "failed"
                };
                calls.end(id, class);
            }
            "step_finish" => stopped = part["reason"] == "stop",
            "error" => error = true,
            _ => {}
        }
    }
    plain.status = if error {
        "error"
    } else if stopped {
        plain.final_answer = Some(step_text);
        "success"
    } else {
        "no_result"
    };
    plain.text = join_messages(&messages);
    plain.tools = calls.0;
    plain
}

fn tool_classes(path: &Path) -> Vec<(String, String)> {
    let out = Command::new(BIN)
        .args(["tools", "--json"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let class = match str_of(&v["status"]) {
                "success" => "success",
                "pending" => "pending",
                "rejected" | "declined" => "rejected",
                _ => "failed",
            };
            (str_of(&v["call_id"]).to_string(), class.to_string())
        })
        .collect()
}

/// Every view on every capture of `agent` agrees with the plain reading.
fn conform(agent: &str, read: fn(&[serde_json::Value]) -> Plain) {
    let Some(files) = agent_captures(agent) else {
        return prerequisite::missing(&format!("../shared/captures/{agent} is not here"));
    };
    for path in &files {
        let plain = read(&values_of(path));
        let at = path.display();
        let exit = match plain.status {
            "success" => 0,
            "error" => 1,
            _ => 3,
        };
        let (code, text, stderr) = run("text", path);
        assert_eq!(text, plain.text, "{at}: text");
        assert_eq!(code, exit, "{at}: exit status; {stderr}");
        assert!(!stderr.contains("differs"), "{at}: {stderr}");
        let (code, result, _) = run("result", path);
        let expected = plain
            .final_answer
            .as_ref()
            .map(|f| format!("{f}\n"))
            .unwrap_or_default();
        assert_eq!((code, result), (exit, expected), "{at}: result");
        let expected_tools: Vec<(String, String)> = plain
            .tools
            .iter()
            .map(|(id, c)| (id.clone(), c.to_string()))
            .collect();
        assert_eq!(tool_classes(path), expected_tools, "{at}: tools");
        let out = Command::new(BIN)
            .args(["stats", "--json"])
            .arg(path)
            .output()
            .unwrap();
        let row: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{at}: stats: {e}"));
        assert_eq!(row["agent"], plain.agent, "{at}: stats agent");
        assert_eq!(row["status"], plain.status, "{at}: stats status");
        // `progress` shows the same answer as `text` when its activity goes to stderr.
        let out = Command::new(BIN)
            .args(["progress", "--activity-stderr"])
            .arg(path)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            plain.text,
            "{at}: progress"
        );
    }
}

#[test]
fn claude_captures_conform() {
    conform("claude", plain_claude);
}

#[test]
fn qwen_captures_conform() {
    conform("qwen", plain_claude);
}

#[test]
fn codex_captures_conform() {
    conform("codex", plain_codex);
}

#[test]
fn gemini_captures_conform() {
    conform("gemini", plain_gemini);
}

#[test]
fn opencode_captures_conform() {
    conform("opencode", plain_opencode);
}

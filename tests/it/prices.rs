//! Every model the agents' logs name has a price: each model name in the real session logs
//! (`tests/fixtures/history`), the recordings of the pinned CLIs (`tests/fixtures/recorded`),
//! the saved streams (`tests/fixtures/agents`) and the examples is priced by `usage`, but
//! for the few listed in [`UNPRICED`], each with the reason it has no price.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::home::{files_under, in_home};

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// The model names that have no price, and why. A name here that gets a price, or that no
/// fixture names, fails the test too: the list says what `usage` does with the fixtures.
const UNPRICED: &[(&str, &str)] = &[
    // Not models: the recordings' mock model server, and names made up for a test.
    ("mock-model", "the recordings' mock server (OpenCode)"),
    ("test", "the recordings' mock server (Qwen Code)"),
    (
        "<synthetic>",
        "Claude Code's mark on a message it wrote itself (an API error): no model call",
    ),
    // Routers: the name of a choice, not of the model that answered.
    (
        "auto",
        "Gemini CLI's router; the models it chose are in the result's stats.models",
    ),
    (
        "auto-gemini-3",
        "Gemini CLI's router over Gemini 3; the models it chose are in stats.models",
    ),
    (
        "Auto",
        "Cursor's router: the stream never says which model answered",
    ),
    // Models whose maker publishes no price by the token.
    (
        "Composer 2.5",
        "Cursor's own model, billed in Cursor's plans: in no public price list",
    ),
    (
        "big-pickle",
        "OpenCode Zen's stealth model: free while it lasts, its maker unnamed",
    ),
    (
        "kimi-k2.5:cloud",
        "Ollama's cloud, by subscription: no price by the token",
    ),
    (
        "qwen3.5:cloud",
        "Ollama's cloud, by subscription: no price by the token",
    ),
];

/// The keys whose string value names a model: `model` (Claude's `message.model`, Codex's
/// `payload.model`, Gemini's and Qwen's records, the streams' `init`), OpenCode's
/// `modelID`, Claude Code's `modelId`, `canonicalModel` and `requestedModel`.
const NAME_KEYS: [&str; 5] = [
    "model",
    "modelID",
    "modelId",
    "canonicalModel",
    "requestedModel",
];

/// The keys whose object is keyed by model: a Claude stream's `modelUsage`, Gemini's and
/// Qwen's `stats.models`.
const MAP_KEYS: [&str; 2] = ["modelUsage", "models"];

/// The keys of a tool call's arguments (a sub-agent's `model: "haiku"` is a request, not a
/// model call): not looked into.
const TOOL_INPUT_KEYS: [&str; 4] = ["input", "parameters", "arguments", "args"];

fn names_in(v: &Value, found: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                if TOOL_INPUT_KEYS.contains(&k.as_str()) {
                    continue;
                }
                match x {
                    Value::String(s) if NAME_KEYS.contains(&k.as_str()) && !s.is_empty() => {
                        found.push(s.clone())
                    }
                    Value::Object(m) if MAP_KEYS.contains(&k.as_str()) => {
                        found.extend(m.keys().cloned());
                        names_in(x, found);
                    }
                    _ => names_in(x, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|x| names_in(x, found)),
        _ => {}
    }
}

/// The JSON values of a file: the whole file, else one a line.
fn values_of(text: &str) -> Vec<Value> {
    if let Ok(v) = serde_json::from_str(text) {
        return vec![v];
    }
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The JSON in an OpenCode database's rows (`message.data`, `part.data`, …), read from a
/// copy with its write-ahead log (the fixture stays as it is).
fn values_of_db(db: &Path) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.db");
    std::fs::copy(db, &copy).unwrap();
    let wal = db.with_extension("db-wal");
    if wal.exists() {
        std::fs::copy(&wal, dir.path().join("copy.db-wal")).unwrap();
    }
    let conn = rusqlite::Connection::open(&copy).unwrap();
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let mut out = Vec::new();
    for table in tables {
        let mut stmt = conn
            .prepare(&format!("SELECT * FROM \"{}\"", table.replace('"', "\"\"")))
            .unwrap();
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).unwrap();
        while let Some(row) = rows.next().unwrap() {
            for i in 0..columns {
                if let Ok(rusqlite::types::ValueRef::Text(t)) = row.get_ref(i)
                    && let Ok(v) = serde_json::from_slice::<Value>(t)
                {
                    out.push(v);
                }
            }
        }
    }
    out
}

/// Every model name in the fixtures, with the first file that names it.
fn fixture_models() -> BTreeMap<String, PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut models = BTreeMap::new();
    for dir in [
        "tests/fixtures/history",
        "tests/fixtures/recorded",
        "tests/fixtures/agents",
        "examples",
    ] {
        for file in files_under(&root.join(dir)) {
            let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
            let values = match ext {
                "json" | "jsonl" | "ndjson" | "stdout" => {
                    values_of(&String::from_utf8_lossy(&std::fs::read(&file).unwrap()))
                }
                "db" => values_of_db(&file),
                _ => continue,
            };
            let mut found = Vec::new();
            values.iter().for_each(|v| names_in(v, &mut found));
            for name in found {
                let at = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
                models.entry(name).or_insert(at);
            }
        }
    }
    models
}

/// A Claude Code log of one model call for each name.
fn log_of_calls(models: &[&String], path: &Path) {
    let mut text = String::new();
    for (i, model) in models.iter().enumerate() {
        let line = serde_json::json!({
            "parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/w",
            "sessionId": "s1", "version": "2.1.3", "type": "assistant",
            "uuid": format!("a{i}"), "requestId": format!("r{i}"),
            "timestamp": "2026-11-20T10:00:00.000Z",
            "message": {
                "id": format!("m{i}"), "type": "message", "role": "assistant", "model": model,
                "content": [{"type": "text", "text": "ok"}],
                "usage": {"input_tokens": 1000, "output_tokens": 100,
                          "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
            },
        });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn every_model_the_fixtures_name_has_a_price() {
    let models = fixture_models();
    assert!(models.len() > 20, "too few model names found: {models:?}");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.jsonl");
    let names: Vec<&String> = models.keys().collect();
    log_of_calls(&names, &log);
    let out = in_home(&mut Command::new(BIN), dir.path())
        .args(["usage", "model", "--json", "--cost", "calculate"])
        .arg(&log)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut priced: BTreeMap<String, bool> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let row: Value = serde_json::from_str(line).unwrap();
        if let Some(model) = row["model"].as_str() {
            priced.insert(model.to_string(), row["cost_usd"].is_f64());
        }
    }
    let why = |name: &str| UNPRICED.iter().find(|(n, _)| *n == name).map(|(_, w)| *w);
    let mut wrong = Vec::new();
    for (name, file) in &models {
        match (priced.get(name), why(name)) {
            (Some(false), None) => wrong.push(format!("no price: `{name}` ({})", file.display())),
            (None, None) => wrong.push(format!("not counted: `{name}` ({})", file.display())),
            (Some(true), Some(reason)) => wrong.push(format!(
                "`{name}` is listed as unpriced ({reason}) but has a price"
            )),
            _ => {}
        }
    }
    for (name, _) in UNPRICED {
        if !models.contains_key(*name) {
            wrong.push(format!(
                "`{name}` is listed as unpriced but no fixture names it"
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}\n", wrong.join("\n"));
}

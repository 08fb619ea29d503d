//! Where Qwen Code keeps its chats: `projects/<sanitized cwd>/chats/<session>.jsonl` under
//! `$QWEN_RUNTIME_DIR` (else `~/.qwen`); before (0.2 and earlier, Gemini CLI's layout)
//! `tmp/<sha256 of the project root>/chats/session-<UTC time>-<id8>.json`, a chat as one
//! document whose answers are of type `qwen`, and a sub-agent's run a document of its own
//! under its session's id. Those documents are read as the chat records Qwen writes
//! since (see [`as_record`]), a session's sub-agents' among its own, marked
//! `isSidechain`.

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::agent::event::Agent;
use crate::agent::gemini::store::{by_time, head_string, read_document};
use crate::agent::store::{self, Found, Store, env_dir, files_in, home, name_of, subdirs};
use crate::input::file::Opened;

pub(crate) struct QwenStore;

impl Store for QwenStore {
    fn roots(&self) -> Vec<PathBuf> {
        runtime_dir()
            .map(|r| vec![r.join("projects"), r.join("tmp")])
            .unwrap_or_default()
    }

    fn logs(&self) -> Vec<Found> {
        let Some(root) = runtime_dir() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for project in subdirs(&root.join("projects")) {
            for path in files_in(&project.join("chats"), |n| n.ends_with(".jsonl")) {
                let id = store::stem(&path, ".jsonl");
                found.push(Found::file(Agent::Qwen, path, id, None));
            }
        }
        for project in subdirs(&root.join("tmp")) {
            for session in sessions_in(&project.join("chats")) {
                let started = name_time(&session.main);
                found.push(Found::file(
                    Agent::Qwen,
                    session.main,
                    Some(session.id),
                    started,
                ));
            }
        }
        found
    }

    /// A document's time is in its name (UTC).
    fn started_ms(&self, log: &Found, _until: i64) -> i64 {
        match log.path().and_then(name_time) {
            Some(ms) => ms,
            None => log
                .path()
                .and_then(store::first_record_ms)
                .unwrap_or(log.started_ms),
        }
    }

    fn opens(&self, path: &Path) -> bool {
        is_chat_document(path)
    }

    fn open(&self, path: &Path, file: File) -> io::Result<Opened> {
        let doc = read_document(file)?;
        let id = session_of(&doc.meta).unwrap_or_default();
        // Its sub-agents' runs, when it is the session's chat (the one that began first).
        let siblings = path
            .parent()
            .map(sessions_in)
            .unwrap_or_default()
            .into_iter()
            .find(|s| s.id == id && s.main == path);
        let mut subagents = Vec::new();
        for sub in siblings.map(|s| s.subagents).unwrap_or_default() {
            if let Ok(sub_doc) = File::open(&sub).and_then(read_document) {
                let agent = store::stem(&sub, ".json").unwrap_or_default();
                subagents.push((agent, sub_doc.messages));
            }
        }
        let mut lines = Vec::new();
        for (agent, message) in by_time(doc.messages, subagents) {
            if let Some(record) = as_record(&message, &id, agent.as_deref()) {
                serde_json::to_writer(&mut lines, &record)?;
                lines.push(b'\n');
            }
        }
        Ok(Opened::Made(Box::new(io::Cursor::new(lines))))
    }
}

/// Where Qwen Code keeps what it writes: `$QWEN_RUNTIME_DIR`, else `~/.qwen`.
fn runtime_dir() -> Option<PathBuf> {
    env_dir("QWEN_RUNTIME_DIR").or_else(|| home().map(|h| h.join(".qwen")))
}

/// `session-YYYY-MM-DDTHH-MM-<id8>.json`: its time (UTC).
fn name_time(path: &Path) -> Option<i64> {
    let stem = store::stem(path, ".json")?;
    stem.strip_prefix("session-")?
        .get(..16)
        .and_then(store::name_time)
}

/// A Qwen Code chat document (0.2 and before): a `session-*.json` in a `chats` folder,
/// under `~/.qwen` or with answers of type `qwen` (Gemini CLI's have `gemini`).
pub(crate) fn is_chat_document(path: &Path) -> bool {
    let named = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("session-") && n.ends_with(".json"));
    let in_chats = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|n| n == "chats");
    if !named || !in_chats {
        return false;
    }
    path.ancestors()
        .any(|a| a.file_name().is_some_and(|n| n == ".qwen"))
        || crate::input::file::head(path, 64 << 10).is_ok_and(|head| {
            [&b"\"type\": \"qwen\""[..], b"\"type\":\"qwen\""]
                .iter()
                .any(|answer| memchr::memmem::find(&head, answer).is_some())
        })
}

/// A session's documents in a `chats` folder: the one that began first is its chat, the
/// others (the same session id) its sub-agents' runs.
#[derive(Debug, Clone)]
struct Session {
    id: String,
    main: PathBuf,
    subagents: Vec<PathBuf>,
}

fn sessions_in(chats: &Path) -> Vec<Session> {
    let mut by_id: HashMap<String, Vec<PathBuf>> = HashMap::new();
    let documents = files_in(chats, |n| n.starts_with("session-") && n.ends_with(".json"));
    for path in documents {
        if let Some(id) = head_string(&path, "sessionId") {
            by_id.entry(id).or_default().push(path);
        }
    }
    let mut sessions: Vec<Session> = by_id
        .into_iter()
        .map(|(id, mut paths)| {
            // The names hold the time to the minute: a start in the same minute decides.
            paths.sort_by_key(|p| (name_of(p), head_string(p, "startTime")));
            let main = paths.remove(0);
            Session {
                id,
                main,
                subagents: paths,
            }
        })
        .collect();
    sessions.sort_by(|a, b| a.main.cmp(&b.main));
    sessions
}

fn session_of(meta: &Map<String, Value>) -> Option<String> {
    meta.get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// A document's message as the record Qwen Code writes since 0.4 (`agent`: the
/// sub-agent whose run it is): a `user` message as a `user` record, a `qwen` answer as an
/// `assistant` record (its `tokens` as `usageMetadata`, where the candidates count the
/// thoughts), an `error` as the failed call's telemetry. Other messages say nothing Qwen's
/// records do: `None`.
fn as_record(message: &Map<String, Value>, session: &str, agent: Option<&str>) -> Option<Value> {
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => json!([{ "text": s }]),
        Some(parts @ Value::Array(_)) => parts.clone(),
        _ => json!([]),
    };
    let mut record = json!({
        "uuid": message.get("id"),
        "sessionId": session,
        "timestamp": message.get("timestamp"),
    });
    let body = match message.get("type").and_then(Value::as_str)? {
        "user" => json!({
            "type": "user",
            "message": {"role": "user", "parts": text(message.get("content"))},
        }),
        "qwen" | "gemini" => answer(message, text(message.get("content"))),
        "error" => json!({
            "type": "system",
            "subtype": "ui_telemetry",
            "systemPayload": {"uiEvent": {
                "event.name": "qwen-code.api_error",
                "error_message": message.get("content"),
            }},
        }),
        _ => return None,
    };
    let fields = record.as_object_mut()?;
    fields.extend(body.as_object()?.clone());
    if let Some(agent) = agent {
        fields.insert("isSidechain".to_string(), Value::Bool(true));
        fields.insert("agentId".to_string(), Value::from(agent));
    }
    Some(record)
}

/// A document's answer as an `assistant` record: its thoughts as thought parts, then its
/// text.
fn answer(message: &Map<String, Value>, text: Value) -> Value {
    let mut parts: Vec<Value> = message
        .get("thoughts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|t| {
            let subject = t.get("subject").and_then(Value::as_str).unwrap_or("");
            let description = t.get("description").and_then(Value::as_str).unwrap_or("");
            let words = match subject {
                "" => description.to_string(),
                s => format!("{s}: {description}"),
            };
            json!({"text": words, "thought": true})
        })
        .collect();
    parts.extend(text.as_array().into_iter().flatten().cloned());
    let tokens = message.get("tokens");
    let count = |key: &str| {
        tokens
            .and_then(|t| t.get(key))
            .cloned()
            .unwrap_or(Value::Null)
    };
    // A count that is no number is passed on as it is: the dialect reports it.
    let candidates = match (count("output").as_u64(), count("thoughts")) {
        (Some(output), Value::Null) => Value::from(output),
        (Some(output), thoughts) => thoughts
            .as_u64()
            .map_or(thoughts.clone(), |t| Value::from(output.saturating_add(t))),
        (None, _) => count("output"),
    };
    let mut record = json!({
        "type": "assistant",
        "model": message.get("model"),
        "message": {"role": "model", "parts": parts},
    });
    if tokens.is_some_and(Value::is_object) {
        record["usageMetadata"] = json!({
            "promptTokenCount": count("input"),
            "candidatesTokenCount": candidates,
            "thoughtsTokenCount": count("thoughts"),
            "cachedContentTokenCount": count("cached"),
            "totalTokenCount": count("total"),
        });
    }
    record
}

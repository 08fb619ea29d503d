//! Where Gemini CLI keeps its chats: `~/.gemini/tmp/<project>/chats/` (`GEMINI_CLI_HOME`
//! replaces `~`), `session-<UTC time>-<id8>.jsonl` (0.39 on) or `.json` (a whole chat
//! as one document, before; one that became a log on resume is read as the log). The
//! `<project>` folder is the project root's sha256 before 0.29, a short name since,
//! mapped to the root in `~/.gemini/projects.json` (and in the folder's `.project_root`).
//!
//! A sub-agent's chat (0.29 on) is `chats/<parent session id>/<its id>.json[l]`, `kind:
//! "subagent"`: read with its session's chat, after it (a log) or where its time puts it
//! among the messages (a document), each of its messages marked `"$subagent":"<its id>"`
//! for the dialect. A sub-agent whose session's chat is gone is a session of its own: its
//! calls were billed all the same.

use std::collections::HashSet;
use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::agent::event::Agent;
use crate::agent::store::{self, Found, Store, env_dir, files_in, home, name_of, subdirs};
use crate::input::file::Opened;
use crate::input::json::rfc3339_ms;

pub(crate) struct GeminiStore;

impl Store for GeminiStore {
    fn roots(&self) -> Vec<PathBuf> {
        env_dir("GEMINI_CLI_HOME")
            .or_else(home)
            .map(|h| vec![h.join(".gemini").join("tmp")])
            .unwrap_or_default()
    }

    fn logs(&self) -> Vec<Found> {
        let Some(home) = env_dir("GEMINI_CLI_HOME").or_else(home) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for project in subdirs(&home.join(".gemini").join("tmp")) {
            let chats = project.join("chats");
            let mains = files_in(&chats, |n| n.starts_with("session-") && is_chat_name(n));
            let mut ids = HashSet::new();
            for path in chats_read(&mains) {
                // session-YYYY-MM-DDTHH-MM-<id8>.jsonl
                let stem = chat_stem(path).unwrap_or_default();
                let rest = stem.strip_prefix("session-").unwrap_or(&stem);
                let id = rest.rsplit('-').next().map(str::to_string);
                let started = rest.get(..16).and_then(store::name_time);
                ids.extend(id.clone());
                found.push(Found::file(Agent::Gemini, path.clone(), id, started));
            }
            for dir in subdirs(&chats) {
                let parent = name_of(&dir).unwrap_or_default();
                if ids.iter().any(|id8| parent.starts_with(id8.as_str())) {
                    continue;
                }
                for path in chats_read(&files_in(&dir, is_chat_name)) {
                    let id = chat_stem(path);
                    let started = head_string(path, "startTime")
                        .and_then(|t| rfc3339_ms(&t))
                        .and_then(|ms| i64::try_from(ms).ok());
                    found.push(Found::file(Agent::Gemini, path.clone(), id, started));
                }
            }
        }
        found
    }

    /// The project folder's root, as `projects.json` maps it (or `.project_root` says).
    fn in_project(&self, log: &Found, dir: &Path) -> bool {
        log.path()
            .and_then(project_root)
            .is_some_and(|root| Path::new(&root).starts_with(dir))
    }

    /// The name's time is UTC (`toISOString()`).
    fn started_ms(&self, log: &Found, _until: i64) -> i64 {
        if log.started_ms > 0 {
            return log.started_ms;
        }
        log.path()
            .and_then(store::first_record_ms)
            .unwrap_or(log.started_ms)
    }

    /// A file is named by the first 8 characters of its id: the whole one is in its first
    /// record.
    fn session_id(&self, log: &Found) -> Option<String> {
        log.path()
            .and_then(|p| head_string(p, "sessionId"))
            .or_else(|| log.id.clone())
    }

    fn opens(&self, path: &Path) -> bool {
        (is_document(path) && !crate::agent::qwen::is_chat_document(path))
            || !subagents_of(path).is_empty()
    }

    fn open(&self, path: &Path, file: File) -> io::Result<Opened> {
        let (documents, logs): (Vec<PathBuf>, Vec<PathBuf>) =
            subagents_of(path).into_iter().partition(|p| is_document(p));
        let subagents = documents
            .iter()
            .filter_map(|p| Some((p, File::open(p).and_then(read_document).ok()?)))
            .map(|(p, doc)| (sub_id(&doc.meta, p), doc.messages))
            .collect();
        let first: Box<dyn Read + Send> = if is_document(path) {
            let lines = document_lines(Some(read_document(file)?), subagents)?;
            Box::new(io::Cursor::new(lines))
        } else {
            // A log, its sub-agents' documents (a session begun before 0.39) after it.
            let theirs = document_lines(None, subagents)?;
            Box::new(io::BufReader::new(file).chain(io::Cursor::new(theirs)))
        };
        Ok(Opened::Made(Box::new(first.chain(marked_lines(logs)))))
    }
}

/// A chat's file name: a log, or a document.
fn is_chat_name(name: &str) -> bool {
    name.ends_with(".jsonl") || name.ends_with(".json")
}

/// The chats to read of a folder's: a document that became a log on resume is read as
/// the log.
fn chats_read(files: &[PathBuf]) -> impl Iterator<Item = &PathBuf> {
    files.iter().filter(|path| {
        !(path.extension().is_some_and(|e| e == "json")
            && files.contains(&path.with_extension("jsonl")))
    })
}

/// A chat's name without its extension.
fn chat_stem(path: &Path) -> Option<String> {
    store::stem(path, ".jsonl").or_else(|| store::stem(path, ".json"))
}

/// The root of the project a chat was in, from its project folder (the one that holds
/// its `chats`): the root `projects.json` maps to it, else its `.project_root`. An old
/// sha256 folder has neither: `None`.
pub(super) fn project_root(path: &Path) -> Option<String> {
    let chats = path
        .ancestors()
        .skip(1)
        .take(2)
        .find(|dir| dir.file_name().is_some_and(|n| n == "chats"))?;
    let project = chats.parent()?;
    let slug = project.file_name()?.to_str()?;
    let gemini = project.parent()?.parent()?;
    #[derive(serde::Deserialize)]
    struct Projects {
        projects: std::collections::HashMap<String, String>,
    }
    let mapped = std::fs::read(gemini.join("projects.json"))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Projects>(&bytes).ok())
        .and_then(|p| {
            p.projects
                .into_iter()
                .find_map(|(root, s)| (s == slug).then_some(root))
        });
    mapped.or_else(|| {
        std::fs::read_to_string(project.join(".project_root"))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    })
}

/// The string a chat's metadata gives `key` (`sessionId`, `startTime`): the first
/// `"key":` in its first 16 KiB, a log's first line or a document's first members.
pub(crate) fn head_string(path: &Path, key: &str) -> Option<String> {
    let head = crate::input::file::head(path, 16 << 10).ok()?;
    let at = memchr::memmem::find(&head, format!("\"{key}\"").as_bytes())?;
    let rest = head[at + key.len() + 2..].trim_ascii_start();
    let rest = rest.strip_prefix(b":")?.trim_ascii_start();
    let mut de = serde_json::Deserializer::from_slice(rest);
    serde::Deserialize::deserialize(&mut de).ok()
}

/// A Gemini CLI chat before 0.39: one JSON document, not lines: `session-*.json` in a
/// `chats` folder, or a sub-agent's `<id>.json` in the folder of its session's.
pub(crate) fn is_document(path: &Path) -> bool {
    let named =
        |p: Option<&Path>, name: &str| p.and_then(Path::file_name).is_some_and(|n| n == name);
    let in_chats = named(path.parent(), "chats")
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("session-"));
    let subagent = named(path.parent().and_then(Path::parent), "chats");
    path.extension().is_some_and(|e| e == "json") && (in_chats || subagent)
}

/// A session's sub-agents' chats, in `chats/<session id>/`, in the order of their names.
fn subagents_of(path: &Path) -> Vec<PathBuf> {
    let main = path
        .file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with("session-") && is_chat_name(n));
    let Some(chats) = path
        .parent()
        .filter(|p| main && p.file_name().is_some_and(|n| n == "chats"))
    else {
        return Vec::new();
    };
    let Some(id) = head_string(path, "sessionId").filter(|id| !id.is_empty()) else {
        return Vec::new();
    };
    chats_read(&files_in(&chats.join(folder_of(&id)), is_chat_name))
        .cloned()
        .collect()
}

/// The folder of a session's sub-agents: its id, each character but a letter, a digit,
/// `_` and `-` made `_` (`sanitizeFilenamePart`).
fn folder_of(id: &str) -> String {
    id.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .collect()
}

/// A chat document, read whole (such a file holds one session): its metadata and its
/// messages, each a JSON object.
pub(crate) struct Document {
    pub meta: Map<String, Value>,
    pub messages: Vec<Map<String, Value>>,
}

/// Reads a chat document (`{sessionId, projectHash, startTime, lastUpdated, messages:
/// […]}`, Gemini CLI 0.38 and before, Qwen Code 0.2).
pub(crate) fn read_document(mut file: impl Read) -> io::Result<Document> {
    #[derive(serde::Deserialize)]
    struct Whole {
        #[serde(default)]
        messages: Vec<Map<String, Value>>,
        #[serde(flatten)]
        meta: Map<String, Value>,
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let whole: Whole = serde_json::from_slice(&bytes)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("not a chat: {e}")))?;
    Ok(Document {
        meta: whole.meta,
        messages: whole.messages,
    })
}

/// The messages of a session's document and of its sub-agents' (each with its id), in
/// the order of their times, each document's own order kept (a document's times are
/// `toISOString()`'s: their text sorts as they do).
pub(crate) fn by_time(
    main: Vec<Map<String, Value>>,
    subagents: Vec<(String, Vec<Map<String, Value>>)>,
) -> Vec<(Option<String>, Map<String, Value>)> {
    let time = |m: &Map<String, Value>| {
        m.get("timestamp")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut merged: Vec<(Option<String>, Map<String, Value>)> =
        main.into_iter().map(|m| (None, m)).collect();
    for (id, messages) in subagents {
        let mut out = Vec::with_capacity(merged.len() + messages.len());
        let mut theirs = messages.into_iter().peekable();
        for (owner, m) in merged {
            while let Some(next) = theirs.next_if(|s| time(s) < time(&m)) {
                out.push((Some(id.clone()), next));
            }
            out.push((owner, m));
        }
        out.extend(theirs.map(|m| (Some(id.clone()), m)));
        merged = out;
    }
    merged
}

/// A chat document as the lines of the chat log that replaced it: its metadata, then a
/// line per message, its sub-agents' documents' messages among them where their times
/// put them, marked with their sub-agent's id (with no document, theirs alone).
fn document_lines(
    doc: Option<Document>,
    subagents: Vec<(String, Vec<Map<String, Value>>)>,
) -> io::Result<Vec<u8>> {
    let mut lines = Vec::new();
    let mut messages = Vec::new();
    if let Some(doc) = doc {
        serde_json::to_writer(&mut lines, &doc.meta)?;
        lines.push(b'\n');
        messages = doc.messages;
    }
    for (subagent, mut message) in by_time(messages, subagents) {
        if let Some(id) = subagent {
            message.insert(SUBAGENT.to_string(), Value::String(id));
        }
        serde_json::to_writer(&mut lines, &message)?;
        lines.push(b'\n');
    }
    Ok(lines)
}

/// The key that marks a sub-agent's message among its session's.
pub(super) const SUBAGENT: &str = "$subagent";

/// A sub-agent's id: its chat's `sessionId`, else its file's name.
fn sub_id(meta: &Map<String, Value>, path: &Path) -> String {
    meta.get("sessionId")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| chat_stem(path))
        .unwrap_or_default()
}

/// The messages of sub-agents' chat logs (`.jsonl`), each line marked with its
/// sub-agent's id, one line at a time; their metadata and `$set` lines are left out.
fn marked_lines(logs: Vec<PathBuf>) -> MarkedLines {
    MarkedLines {
        logs: logs.into_iter(),
        current: None,
        raw: Vec::new(),
        line: Vec::new(),
        at: 0,
    }
}

struct MarkedLines {
    logs: std::vec::IntoIter<PathBuf>,
    /// The log being read, and its sub-agent's id.
    current: Option<(io::BufReader<File>, String)>,
    /// The line read.
    raw: Vec<u8>,
    /// The marked line being passed on, and how much of it is.
    line: Vec<u8>,
    at: usize,
}

impl MarkedLines {
    /// The next message line, marked, into `self.line`; `false` when every log is read.
    fn next_line(&mut self) -> io::Result<bool> {
        loop {
            let Some((rdr, id)) = &mut self.current else {
                let Some(path) = self.logs.next() else {
                    return Ok(false);
                };
                let id = head_string(&path, "sessionId")
                    .or_else(|| chat_stem(&path))
                    .unwrap_or_default();
                // A log that cannot be opened adds nothing: its session is read all the same.
                self.current = File::open(&path).ok().map(|f| (io::BufReader::new(f), id));
                continue;
            };
            self.raw.clear();
            if rdr.read_until(b'\n', &mut self.raw)? == 0 {
                self.current = None;
                continue;
            }
            let line = self.raw.trim_ascii();
            let Some(body) = line.strip_prefix(b"{") else {
                continue;
            };
            if crate::input::json::top_level_value(line, "type").is_none() {
                continue;
            }
            self.line.clear();
            self.line.extend_from_slice(b"{");
            serde_json::to_writer(&mut self.line, SUBAGENT)?;
            self.line.push(b':');
            serde_json::to_writer(&mut self.line, id.as_str())?;
            if body.trim_ascii_start() != b"}" {
                self.line.push(b',');
            }
            self.line.extend_from_slice(body);
            self.line.push(b'\n');
            self.at = 0;
            return Ok(true);
        }
    }
}

impl Read for MarkedLines {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.line.len() && !self.next_line()? {
            return Ok(0);
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

//! Where Gemini CLI keeps its chats: `~/.gemini/tmp/<project>/chats/` (`GEMINI_CLI_HOME`
//! replaces `~`), `session-<UTC time>-<id8>.jsonl` (0.39 on) or `.json` (a whole chat
//! as one document, before; one that became a log on resume is read as the log). The
//! `<project>` folder is the project root's sha256 before 0.29, a short name since,
//! mapped to the root in `~/.gemini/projects.json` (and in the folder's `.project_root`).

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::agent::event::Agent;
use crate::agent::store::{self, Found, Store, env_dir, files_in, home, subdirs};
use crate::input::file::Opened;

pub(crate) struct GeminiStore;

impl Store for GeminiStore {
    fn logs(&self) -> Vec<Found> {
        let Some(home) = env_dir("GEMINI_CLI_HOME").or_else(home) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for project in subdirs(&home.join(".gemini").join("tmp")) {
            let chats = project.join("chats");
            let logs = files_in(&chats, |n| {
                n.starts_with("session-") && (n.ends_with(".jsonl") || n.ends_with(".json"))
            });
            for path in &logs {
                let document = path.extension().is_some_and(|e| e == "json");
                // A chat document (before 0.39) that became a log on resume: the log.
                if document && logs.contains(&path.with_extension("jsonl")) {
                    continue;
                }
                // session-YYYY-MM-DDTHH-MM-<id8>.jsonl
                let ext = if document { ".json" } else { ".jsonl" };
                let stem = store::stem(path, ext).unwrap_or_default();
                let rest = stem.strip_prefix("session-").unwrap_or(&stem);
                let id = rest.rsplit('-').next().map(str::to_string);
                let started = rest.get(..16).and_then(store::name_time);
                found.push(Found::file(Agent::Gemini, path.clone(), id, started));
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
            .and_then(full_session_id)
            .or_else(|| log.id.clone())
    }

    fn opens(&self, path: &Path) -> bool {
        is_document(path)
    }

    fn open(&self, _path: &Path, file: File) -> io::Result<Opened> {
        document(file)
    }
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

/// A chat's whole session id, from its first record.
fn full_session_id(path: &Path) -> Option<String> {
    let head = crate::input::file::head(path, 64 << 10).ok()?;
    let line = head.split(|&b| b == b'\n').next()?;
    #[derive(serde::Deserialize)]
    struct First {
        #[serde(rename = "sessionId")]
        session_id: String,
    }
    serde_json::from_slice::<First>(line)
        .ok()
        .map(|f| f.session_id)
}

/// A Gemini CLI chat before 0.39: one JSON document (`session-*.json` in a `chats`
/// folder), not lines.
fn is_document(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("session-"))
        && path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "chats")
}

/// A Gemini CLI chat document (`{sessionId, projectHash, startTime, lastUpdated,
/// messages: […]}`, 0.38 and before) as the lines of the chat log that replaced it: its
/// metadata, then a line per message. Read whole (such a file holds one session).
fn document(mut file: File) -> io::Result<Opened> {
    #[derive(serde::Deserialize)]
    struct Document {
        #[serde(default)]
        messages: Vec<Box<serde_json::value::RawValue>>,
        #[serde(flatten)]
        meta: serde_json::Map<String, serde_json::Value>,
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let doc: Document = serde_json::from_slice(&bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a Gemini chat: {e}"),
        )
    })?;
    let mut lines = serde_json::to_vec(&doc.meta)?;
    lines.push(b'\n');
    for m in doc.messages {
        let value: serde_json::Value = serde_json::from_str(m.get())?;
        serde_json::to_writer(&mut lines, &value)?;
        lines.push(b'\n');
    }
    Ok(Opened::Made(Box::new(io::Cursor::new(lines))))
}

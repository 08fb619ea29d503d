//! OpenCode's JSON storage, before 1.2 moved it into `opencode.db`: a file per session,
//! per message and per part, read into the lines [`super::db`] makes of the database, so
//! that the log's dialect ([`super::log`]) reads both. Two layouts:
//!
//! | versions | session | its messages | a message's parts |
//! |---|---|---|---|
//! | ≤ 0.5 | `project/<p>/storage/session/info/<ses>.json` | `…/session/message/<ses>/<msg>.json` | `…/session/part/<ses>/<msg>/<prt>.json` |
//! | 0.6 – 1.1 | `storage/session/<project>/<ses>.json` | `storage/message/<ses>/<msg>.json` | `storage/part/<msg>/<prt>.json` |
//!
//! Messages are read in the order of their ids, parts likewise (OpenCode's ids grow with
//! time, as the database's rows are ordered). 1.2 migrated the files into the database
//! and left them: a session the database beside them holds is read from it only (see
//! `store.rs`). Memory holds one message with its parts, and the names of a session's
//! messages.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde_json::value::RawValue;

use super::db::{self, Lines, Session};
use crate::agent::store::{files_in, name_of, subdirs};

/// Where a session's messages and parts are.
#[derive(Debug, Clone)]
pub(crate) struct SessionFiles {
    pub(crate) id: String,
    /// The folder of its messages.
    messages: PathBuf,
    /// The folder that holds a folder of parts per message.
    parts: PathBuf,
}

impl SessionFiles {
    /// The session whose file is at `path`, when it is one of the storage's.
    pub(crate) fn of(path: &Path) -> Option<SessionFiles> {
        let id = name_of(path)?.strip_suffix(".json")?.to_string();
        if !id.starts_with("ses_") {
            return None;
        }
        let folder = path.parent()?;
        let session_dir = folder.parent()?;
        if name_of(session_dir)? != "session" {
            return None;
        }
        if name_of(folder)? == "info" && is_under_storage(session_dir) {
            // 0.5: everything under `session/`, parts by session then message.
            return Some(SessionFiles {
                messages: session_dir.join("message").join(&id),
                parts: session_dir.join("part").join(&id),
                id,
            });
        }
        let storage = session_dir.parent()?;
        (name_of(storage)? == "storage").then(|| SessionFiles {
            messages: storage.join("message").join(&id),
            parts: storage.join("part"),
            id,
        })
    }

    /// The files of its messages, in the order they were written.
    fn message_files(&self) -> Vec<PathBuf> {
        files_in(&self.messages, |n| {
            n.starts_with("msg_") && n.ends_with(".json")
        })
    }

    /// The files of a message's parts, in the order they were written.
    fn part_files(&self, message: &str) -> Vec<PathBuf> {
        files_in(&self.parts.join(message), |n| {
            n.starts_with("prt_") && n.ends_with(".json")
        })
    }
}

fn is_under_storage(session_dir: &Path) -> bool {
    session_dir
        .parent()
        .and_then(name_of)
        .is_some_and(|n| n == "storage")
}

/// Every session file of the storage in OpenCode's data folder `data`: `storage/session/`
/// (0.6 – 1.1) and each project's `project/<p>/storage/session/info/` (≤ 0.5).
pub(crate) fn session_files(data: &Path) -> Vec<PathBuf> {
    let is_session = |n: &str| n.starts_with("ses_") && n.ends_with(".json");
    let mut found = Vec::new();
    for project in subdirs(&data.join("storage/session")) {
        found.extend(files_in(&project, is_session));
    }
    for project in subdirs(&data.join("project")) {
        found.extend(files_in(&project.join("storage/session/info"), is_session));
    }
    found
}

/// What the lines need of a session's file.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct SessionFile {
    title: Option<String>,
    directory: Option<String>,
    #[serde(rename = "parentID")]
    parent_id: Option<String>,
    version: Option<String>,
    time: db::Times,
}

/// What the lines need of a message's file.
#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct MessageFile {
    time: MessageTime,
    path: Option<MessagePath>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct MessageTime {
    created: Option<f64>,
}

#[derive(serde::Deserialize, Default)]
#[serde(default)]
struct MessagePath {
    cwd: Option<String>,
}

/// When the session at `path` started: its `time.created`.
pub(crate) fn started_ms(path: &Path) -> Option<i64> {
    read_json::<SessionFile>(path).ok()?.time.created
}

/// The directory the session at `path` was in: its `directory`, else (≤ 0.5, which kept
/// none) its first answer's `path.cwd`.
pub(crate) fn directory(path: &Path) -> Option<String> {
    let files = SessionFiles::of(path)?;
    let session = read_json::<SessionFile>(path).ok()?;
    session.directory.or_else(|| first_cwd(&files))
}

/// The working directory the session's first answer names.
fn first_cwd(files: &SessionFiles) -> Option<String> {
    files
        .message_files()
        .iter()
        .find_map(|m| read_json::<MessageFile>(m).ok()?.path?.cwd)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> io::Result<T> {
    let bytes = std::fs::read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// The lines of the session whose file is at `path` (open as `file`).
pub(crate) fn lines(path: &Path, mut file: File) -> io::Result<SessionLines> {
    let files = SessionFiles::of(path).ok_or_else(|| {
        io::Error::new(io::ErrorKind::InvalidInput, "not a session of OpenCode's")
    })?;
    let mut text = Vec::new();
    file.read_to_end(&mut text)?;
    let info: SessionFile =
        serde_json::from_slice(&text).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let session = Session {
        id: files.id.clone(),
        title: info.title,
        directory: info.directory.or_else(|| first_cwd(&files)),
        parent_id: info.parent_id,
        version: info.version,
        time: info.time,
    };
    let mut made = Lines::default();
    db::session_line(&session, &mut made).map_err(io::Error::other)?;
    Ok(SessionLines {
        messages: files.message_files().into_iter(),
        files,
        made,
        at: 0,
    })
}

/// A session's lines, made a message at a time as they are read.
pub(crate) struct SessionLines {
    files: SessionFiles,
    messages: std::vec::IntoIter<PathBuf>,
    /// The lines of the message being read, and how much of them is passed on.
    made: Lines,
    at: usize,
}

impl SessionLines {
    /// The next message's lines into `made`; `false` when none is left.
    fn next_message(&mut self) -> bool {
        let Some(path) = self.messages.next() else {
            return false;
        };
        self.made.0.clear();
        self.at = 0;
        let session = self.files.id.clone();
        let id = name_of(&path)
            .and_then(|n| n.strip_suffix(".json").map(str::to_string))
            .unwrap_or_default();
        let message = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| db::with_ids(&text, &[("id", &id), ("sessionID", &session)]));
        let written = message.and_then(|message| {
            let created = serde_json::from_str::<MessageFile>(message.get())
                .ok()
                .and_then(|m| m.time.created)
                .map(|t| t as i64);
            let parts = self.parts(&id);
            db::write_message(&message, &parts, created, &session, &mut self.made)
        });
        if let Err(why) = written {
            self.made.unreadable_row("message", &id, &session, &why);
        }
        true
    }

    /// A message's parts, each with its ids; a file that does not read is reported (and
    /// left out) where it would have been.
    fn parts(&mut self, message: &str) -> Vec<Box<RawValue>> {
        let session = self.files.id.as_str();
        let mut parts = Vec::new();
        for path in self.files.part_files(message) {
            let id = name_of(&path)
                .and_then(|n| n.strip_suffix(".json").map(str::to_string))
                .unwrap_or_default();
            let ids = [
                ("id", id.as_str()),
                ("messageID", message),
                ("sessionID", session),
            ];
            match std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|text| db::with_ids(&text, &ids))
            {
                Ok(part) => parts.push(part),
                Err(why) => self.made.unreadable_row("part", &id, session, &why),
            }
        }
        parts
    }
}

impl Read for SessionLines {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.made.0.len() {
            if !self.next_message() {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.made.0.len() - self.at);
        buf[..n].copy_from_slice(&self.made.0[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

//! Where OpenCode keeps its sessions, in `$XDG_DATA_HOME/opencode` (else
//! `~/.local/share/opencode`): the SQLite database `opencode.db` (channel builds
//! `opencode-<channel>.db`), 1.2 on, read from a private copy
//! ([`crate::input::file::private_copy`]); before, the JSON storage, a file a session
//! ([`super::storage`]).

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::storage::{self, SessionFiles};
use crate::agent::event::Agent;
use crate::agent::store::{Found, Store, env_dir, files_in, home};
use crate::input::Pick;
use crate::input::file::{Opened, private_copy};

pub(crate) struct OpenCodeStore;

impl Store for OpenCodeStore {
    fn roots(&self) -> Vec<PathBuf> {
        env_dir("XDG_DATA_HOME")
            .or_else(|| home().map(|h| h.join(".local/share")))
            .map(|d| vec![d.join("opencode")])
            .unwrap_or_default()
    }

    fn logs(&self) -> Vec<Found> {
        let Some(data) =
            env_dir("XDG_DATA_HOME").or_else(|| home().map(|h| h.join(".local/share")))
        else {
            return Vec::new();
        };
        let data = data.join("opencode");
        let databases = files_in(&data, |n| {
            n == "opencode.db" || (n.starts_with("opencode-") && n.ends_with(".db"))
        });
        let stored = storage::session_files(&data);
        let migrated: HashSet<String> = if stored.is_empty() {
            HashSet::new()
        } else {
            databases
                .iter()
                .flat_map(|db| session_ids(db, ""))
                .collect()
        };
        let mut found: Vec<Found> = databases
            .into_iter()
            .map(|path| Found::database(Agent::OpenCode, path))
            .collect();
        found.extend(stored_sessions(stored, &migrated));
        found
    }

    /// A database's sessions are chosen as it is read; a stored session by its
    /// directory (≤ 0.5: its first answer's).
    fn in_project(&self, log: &Found, dir: &Path) -> bool {
        log.path()
            .and_then(storage::directory)
            .is_some_and(|cwd| Path::new(&cwd).starts_with(dir))
    }

    fn opens(&self, path: &Path) -> bool {
        SessionFiles::of(path).is_some()
    }

    fn open(&self, path: &Path, file: File) -> io::Result<Opened> {
        Ok(Opened::Made(Box::new(storage::lines(path, file)?)))
    }

    fn open_database(&self, path: &Path, pick: &Pick) -> Option<io::Result<Opened>> {
        Some(private_copy(path).and_then(|(dir, copy)| {
            let lines = super::db::lines(dir, &copy, pick.clone())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            Ok(Opened::Made(Box::new(lines)))
        }))
    }

    fn database_sessions(&self, path: &Path, prefix: &str) -> Vec<String> {
        session_ids(path, prefix)
    }
}

/// The ids of the sessions in the database at `path` that start with `prefix`.
fn session_ids(path: &Path, prefix: &str) -> Vec<String> {
    let Ok((_dir, copy)) = private_copy(path) else {
        return Vec::new();
    };
    super::db::session_ids(&copy, prefix).unwrap_or_default()
}

/// The JSON storage's sessions, but those a database holds: 1.2 copied the files into
/// it on its first start and left them, and OpenCode has read the database since.
fn stored_sessions(files: Vec<PathBuf>, in_database: &HashSet<String>) -> Vec<Found> {
    files
        .into_iter()
        .filter_map(|path| {
            let id = SessionFiles::of(&path)?.id;
            if in_database.contains(&id) {
                return None;
            }
            let started = storage::started_ms(&path);
            Some(Found::file(Agent::OpenCode, path, Some(id), started))
        })
        .collect()
}

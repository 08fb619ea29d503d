//! Where OpenCode keeps its sessions: the SQLite database `opencode.db` (channel builds
//! `opencode-<channel>.db`) in `$XDG_DATA_HOME/opencode` (else `~/.local/share/opencode`),
//! 1.2 on; read from a private copy ([`crate::input::file::private_copy`]).

use std::io;
use std::path::Path;

use crate::agent::event::Agent;
use crate::agent::store::{Found, Store, env_dir, files_in, home};
use crate::input::Pick;
use crate::input::file::{Opened, private_copy};

pub(crate) struct OpenCodeStore;

impl Store for OpenCodeStore {
    fn logs(&self) -> Vec<Found> {
        let Some(data) =
            env_dir("XDG_DATA_HOME").or_else(|| home().map(|h| h.join(".local/share")))
        else {
            return Vec::new();
        };
        files_in(&data.join("opencode"), |n| {
            n == "opencode.db" || (n.starts_with("opencode-") && n.ends_with(".db"))
        })
        .into_iter()
        .map(|path| Found::database(Agent::OpenCode, path))
        .collect()
    }

    fn open_database(&self, path: &Path, pick: &Pick) -> Option<io::Result<Opened>> {
        Some(private_copy(path).and_then(|(dir, copy)| {
            let lines = super::db::lines(dir, &copy, pick.clone())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            Ok(Opened::Made(Box::new(lines)))
        }))
    }

    fn database_sessions(&self, path: &Path, prefix: &str) -> Vec<String> {
        let Ok((_dir, copy)) = private_copy(path) else {
            return Vec::new();
        };
        super::db::session_ids(&copy, prefix).unwrap_or_default()
    }
}

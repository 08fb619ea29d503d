//! Where the Cursor Agent CLI keeps its transcripts: `projects/<slug>/agent-transcripts/`
//! under `$CURSOR_CONFIG_DIR` (else `~/.cursor`), `<id>/<id>.jsonl` (cursor-agent
//! 2026.04 on, its sub-agents' in `<id>/subagents/`), `<id>.jsonl` beside `<id>.txt`
//! (early 2026) or `<id>.txt` alone (before); `projects/agent-transcripts/` for a chat
//! outside any project. The slug is the working directory with `/` and `.` made `-`.
//!
//! A chat is one session whichever files hold it: its `<id>/<id>.jsonl` if there is one
//! (the newest shape); else its `.txt`, which keeps the calls and the reasoning that the
//! first `.jsonl` beside it left out; else that `.jsonl`.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::legacy::TxtLines;
use super::subagents::{subagents_of, with_subagents};
use crate::agent::event::Agent;
use crate::agent::store::{self, Found, Store, env_dir, files_in, home, subdirs};
use crate::input::file::Opened;

pub(crate) struct CursorStore;

impl Store for CursorStore {
    fn roots(&self) -> Vec<PathBuf> {
        env_dir("CURSOR_CONFIG_DIR")
            .or_else(|| home().map(|h| h.join(".cursor")))
            .map(|r| vec![r.join("projects")])
            .unwrap_or_default()
    }

    fn logs(&self) -> Vec<Found> {
        let Some(root) = env_dir("CURSOR_CONFIG_DIR").or_else(|| home().map(|h| h.join(".cursor")))
        else {
            return Vec::new();
        };
        let projects = root.join("projects");
        let mut dirs = vec![projects.join("agent-transcripts")];
        dirs.extend(
            subdirs(&projects)
                .into_iter()
                .map(|p| p.join("agent-transcripts")),
        );
        let mut found = Vec::new();
        for transcripts in dirs {
            let mut chats = HashSet::new();
            for dir in subdirs(&transcripts) {
                let Some(name) = store::name_of(&dir) else {
                    continue;
                };
                let path = dir.join(format!("{name}.jsonl"));
                if path.is_file() {
                    chats.insert(name.clone());
                    found.push(Found::file(Agent::Cursor, path, Some(name), None));
                }
            }
            for path in flat_transcripts(&transcripts) {
                let id = chat_of(&path);
                if id.as_ref().is_some_and(|id| chats.insert(id.clone())) {
                    found.push(Found::file(Agent::Cursor, path, id, None));
                }
            }
        }
        found
    }

    fn opens(&self, path: &Path) -> bool {
        is_txt(path) || !subagents_of(path).is_empty()
    }

    fn open(&self, path: &Path, file: File) -> io::Result<Opened> {
        if is_txt(path) {
            return Ok(Opened::Made(Box::new(TxtLines::new(io::BufReader::new(
                file,
            )))));
        }
        Ok(match subagents_of(path) {
            subs if subs.is_empty() => Opened::Plain(file),
            subs => Opened::Made(Box::new(with_subagents(file, subs))),
        })
    }

    /// A transcript holds no working directory; its project folder's name is the
    /// directory's path with `/` and `.` made `-` (`projects/home-dev-app/…`), which is
    /// compared with `dir`'s made so. The name is lossy: `/home/dev/app-2` is taken for a
    /// folder below `/home/dev/app`. A transcript outside any project is only under `/`.
    fn in_project(&self, log: &Found, dir: &Path) -> bool {
        let wanted = slug(&dir.to_string_lossy());
        let project = log.path().and_then(project_folder);
        match project {
            Some(project) => {
                wanted.is_empty()
                    || project == wanted
                    || project
                        .strip_prefix(&wanted)
                        .is_some_and(|rest| rest.starts_with('-'))
            }
            None => wanted.is_empty(),
        }
    }

    /// A transcript holds no time of its own before 2026.08's `<timestamp>`: the file's.
    fn started_ms(&self, log: &Found, _until: i64) -> i64 {
        log.started_ms
    }
}

/// A directory's path as Cursor names its project folder.
fn slug(path: &str) -> String {
    path.trim_start_matches(['/', '\\'])
        .replace(['/', '\\', '.', ':'], "-")
}

/// The name of the project folder a transcript is in (none outside any project).
fn project_folder(path: &Path) -> Option<String> {
    path.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "agent-transcripts"))
        .and_then(Path::parent)
        .filter(|p| p.file_name().is_some_and(|n| n != "projects"))
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
}

/// The transcripts of a folder's own (`<id>.txt`, `<id>.jsonl`), a chat's `.txt` before its
/// `.jsonl`.
fn flat_transcripts(dir: &Path) -> Vec<PathBuf> {
    let mut files = files_in(dir, |n| n.ends_with(".txt"));
    files.extend(files_in(dir, |n| n.ends_with(".jsonl")));
    files
}

/// The chat a transcript's file is: its name without `.txt` or `.jsonl`.
fn chat_of(path: &Path) -> Option<String> {
    store::stem(path, ".txt").or_else(|| store::stem(path, ".jsonl"))
}

/// A transcript of before 2026.02: `agent-transcripts/<id>.txt`.
fn is_txt(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "txt")
        && path
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == "agent-transcripts")
}

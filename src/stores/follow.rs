//! `--follow --from AGENT`: the agent's newest session — the log written last — followed as
//! it grows, then, when a new session starts (a log that was not there), that one, each an
//! input of its own (its own name and line numbers).
//!
//! Only logs of lines are followed (every agent's `.jsonl`; not a `.jsonl.zst`, Gemini's
//! `.json` documents, OpenCode's database). A resumed Claude session's log is followed from
//! where it goes on from its copy of the old one. A Claude session's sub-agents, read into
//! their session's log otherwise, are not under `--follow`: each file is read as it is
//! written.

use std::collections::HashSet;
use std::io::{self, Read};
use std::path::PathBuf;
use std::time::Instant;

use crate::agent::event::Agent;
use crate::agent::store::{after_copy, modified_ms};
use crate::input::Input;
use crate::input::follow::{Follow, Followed, RESCAN};
use crate::stores::Window;

/// A log that can be followed: its path and, for a resumed session's log, the log whose
/// lines it starts with (they are not read again).
type Log = (PathBuf, Option<PathBuf>);

/// The session logs of `agents` that can be followed, each with when it was written last.
fn followable(agents: &[Agent]) -> Vec<(Log, i64)> {
    crate::stores::find(agents, &Window::default())
        .into_iter()
        .filter_map(|f| match f.input {
            Input::Path(path) => Some((path, None)),
            Input::Rest { path, copy_of, .. } => Some((path, Some(copy_of))),
            Input::Stdin | Input::Database { .. } => None,
        })
        .filter(|(path, _)| path.extension().is_some_and(|e| e == "jsonl"))
        .map(|log| {
            let at = modified_ms(&log.0);
            (log, at)
        })
        .collect()
}

/// The log written last of `logs`.
fn newest(logs: impl IntoIterator<Item = (Log, i64)>) -> Option<Log> {
    logs.into_iter()
        .max_by_key(|((path, _), at)| (*at, path.clone()))
        .map(|(log, _)| log)
}

/// One input as the reading side takes it: its name, its first line, and its bytes.
pub(crate) type FollowedInput = (String, (u64, u64), io::Result<Box<dyn Read + Send>>);

/// The newest session of `agents`, then each session that starts while one is followed;
/// ends when the one followed was idle for `follow.idle` (or, with none yet, when none came
/// in that time).
///
/// A session is followed once: a log that was there before (another terminal's session
/// written again, the one followed before) is not moved to, as its lines would be read
/// again from its start. Only a log that was not there before is a session that started.
pub(crate) fn sessions(agents: Vec<Agent>, follow: Follow) -> impl Iterator<Item = FollowedInput> {
    // The logs there were when the last one followed was opened; none before the first.
    let mut known: Option<HashSet<PathBuf>> = None;
    std::iter::from_fn(move || {
        let waited = Instant::now();
        loop {
            let logs = followable(&agents);
            let new = logs
                .iter()
                .filter(|((path, _), _)| known.as_ref().is_none_or(|k| !k.contains(path)))
                .cloned();
            match newest(new) {
                Some(log) => {
                    let all: HashSet<PathBuf> = logs.into_iter().map(|((p, _), _)| p).collect();
                    known = Some(all.clone());
                    return Some(open(&agents, log, all, &follow));
                }
                // The one followed ended idle, and no session started since.
                None if known.is_some() => return None,
                None if follow.idle.is_some_and(|idle| waited.elapsed() >= idle) => {
                    return None;
                }
                None => std::thread::sleep(RESCAN),
            }
        }
    })
}

/// `log` followed until a session of `agents` starts: a log not among `known`. A resumed
/// session's log is read from where it goes on from its copy, as without `--follow`.
fn open(agents: &[Agent], log: Log, known: HashSet<PathBuf>, follow: &Follow) -> FollowedInput {
    let (path, copy_of) = log;
    let first = copy_of
        .and_then(|old| after_copy(&old, &path))
        .unwrap_or((1, 0));
    let agents = agents.to_vec();
    let followed = Followed::open_at(&path, first.1, follow.clone()).map(|f| {
        let f = f.until(move |_| {
            followable(&agents)
                .iter()
                .any(|((path, _), _)| !known.contains(path))
        });
        Box::new(f) as Box<dyn Read + Send>
    });
    (path.display().to_string(), first, followed)
}

//! `--follow --from AGENT`: the agent's newest session — the log written last — followed as
//! it grows, then, when a new session starts (a log that was not there), that one, each an
//! input of its own (its own name and line numbers).
//!
//! No line is read twice: a log followed before and written since (a session that goes on
//! after the sub-agent it started wrote its own log) is gone back to from where it was left;
//! a log that was there when the following began and is written again (another terminal's
//! session, a Codex session resumed into its own file) is read from the first line it did
//! not have then.
//!
//! Only logs of lines are followed (every agent's `.jsonl`; not a `.jsonl.zst`, Gemini's
//! `.json` documents, OpenCode's database). A resumed Claude session's log is followed from
//! where it goes on from its copy of the old one. A Claude session's sub-agents, read into
//! their session's log otherwise, are followed as logs of their own when they start while
//! their session is followed (the store's [`parts_of`](crate::agent::store::Store::parts_of)).

use std::collections::HashMap;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::agent::event::Agent;
use crate::agent::store::{after_copy, modified_ms};
use crate::input::Input;
use crate::input::follow::{Follow, Followed, Left, RESCAN};
use crate::stores::Window;

/// A log that can be followed: its path and, for a resumed session's log, the log whose
/// lines it starts with (they are not read again).
type Log = (PathBuf, Option<PathBuf>);

/// When a log was written last (epoch ms), and its length.
type Stat = (i64, u64);

fn stat(path: &Path) -> Stat {
    let len = std::fs::metadata(path).map_or(0, |m| m.len());
    (modified_ms(path), len)
}

/// The session logs of `agents` that can be followed, each with its [`Stat`].
fn followable(agents: &[Agent]) -> Vec<(Log, Stat)> {
    crate::stores::find(agents, &Window::default())
        .into_iter()
        .filter_map(|f| match f.input {
            Input::Path(path) => Some((path, None)),
            Input::Rest { path, copy_of, .. } => Some((path, Some(copy_of))),
            Input::Stdin | Input::Database { .. } => None,
        })
        .filter(|(path, _)| path.extension().is_some_and(|e| e == "jsonl"))
        .map(|log| {
            let at = stat(&log.0);
            (log, at)
        })
        .collect()
}

/// The logs that can be followed now: the sessions of `agents`, and the parts of those
/// followed (a Claude session's sub-agents' own logs: read in where the session names them
/// otherwise, here each as it is written).
fn candidates(agents: &[Agent], seen: &Seen) -> Vec<(Log, Stat)> {
    let mut logs = followable(agents);
    let parts: Vec<(Log, Stat)> = (seen.left.keys())
        .flat_map(|session| parts_of(agents, session))
        .map(|part| {
            let at = stat(&part);
            ((part, None), at)
        })
        .collect();
    logs.extend(parts);
    logs
}

/// The parts of the session log at `session` (see [`candidates`]).
fn parts_of(agents: &[Agent], session: &Path) -> Vec<PathBuf> {
    (agents.iter())
        .flat_map(|a| a.spec().store().parts_of(session))
        .collect()
}

/// What has been followed, for the choice of the next log.
#[derive(Default)]
struct Seen {
    /// The logs there were when the first one followed was opened, and the parts its
    /// sessions had when each was first opened, each with its length then (none before the
    /// first): one that grows (another terminal's session, a Codex session resumed into its
    /// own file) is followed from there. A log that comes later stays new until it is
    /// followed: sub-agents started at once are followed each.
    known: Option<HashMap<PathBuf, u64>>,
    /// The logs followed, each with where its reading got to (see [`Left`]).
    left: HashMap<PathBuf, Left>,
}

/// Where a log chosen is read from.
enum From {
    /// Where its reading was left.
    Left((u64, u64)),
    /// The first line that ends past this length: what it had when first seen was before.
    Past(u64),
    /// Its start, or the end of its copy of a resumed session.
    New,
}

impl Seen {
    /// The log to follow next, other than `current`: of the new logs and the others written
    /// since they were read or seen, the one written last; and the line to read it from.
    fn next(&self, logs: &[(Log, Stat)], current: Option<&Path>) -> Option<(Log, (u64, u64))> {
        let ((path, copy_of), _, from) = logs
            .iter()
            .filter(|((path, _), _)| Some(path.as_path()) != current)
            .filter_map(|(log, (at, len))| {
                let from = match (&self.known, self.left.get(&log.0)) {
                    (_, Some(left)) => From::Left(left.go_on(&log.0)?),
                    (Some(known), None) => match known.get(&log.0) {
                        Some(&was) if *len > was => From::Past(was),
                        Some(_) => return None,
                        None => From::New,
                    },
                    (None, None) => From::New,
                };
                Some((log, at, from))
            })
            .max_by(|a, b| (a.1, &a.0.0).cmp(&(b.1, &b.0.0)))?;
        // Found for the one chosen only (each reads the log, or two).
        let from = match from {
            From::Left(line) => line,
            From::Past(len) => line_past(path, len),
            From::New => (copy_of.as_ref())
                .and_then(|old| after_copy(old, path))
                .unwrap_or((1, 0)),
        };
        Some(((path.clone(), copy_of.clone()), from))
    }
}

/// The number and offset of the line of the log at `path` that ends past `len` bytes: the
/// first not read when it was that long.
fn line_past(path: &Path, len: u64) -> (u64, u64) {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return (1, 0);
    };
    let mut rdr = io::BufReader::new(file.take(len));
    let (mut number, mut offset) = (1u64, 0u64);
    let mut line = Vec::new();
    while let Ok(n) = rdr.read_until(b'\n', &mut line) {
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        number += 1;
        offset += n as u64;
        line.clear();
    }
    (number, offset)
}

/// One input as the reading side takes it: its name, its first line, and its bytes.
pub(crate) type FollowedInput = (String, (u64, u64), io::Result<Box<dyn Read + Send>>);

/// The newest session of `agents`, then each session that starts while one is followed
/// (and any followed before, when written again); ends when the one followed was idle for
/// `follow.idle` with no other to go to (or, with none yet, when none came in that time).
pub(crate) fn sessions(agents: Vec<Agent>, follow: Follow) -> impl Iterator<Item = FollowedInput> {
    let seen = Arc::new(Mutex::new(Seen::default()));
    std::iter::from_fn(move || {
        let waited = Instant::now();
        loop {
            let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
            let logs = candidates(&agents, &s);
            match s.next(&logs, None) {
                Some((log, from)) => {
                    if s.known.is_none() {
                        s.known = Some(
                            logs.into_iter()
                                .map(|((p, _), (_, len))| (p, len))
                                .collect(),
                        );
                    }
                    drop(s);
                    return Some(open(&agents, log.0, from, &seen, &follow));
                }
                None if s.known.is_some() => return None,
                None if follow.idle.is_some_and(|idle| waited.elapsed() >= idle) => {
                    return None;
                }
                None => {
                    drop(s);
                    std::thread::sleep(RESCAN);
                }
            }
        }
    })
}

/// `path` followed from line `from` until another log of `agents` is to be followed.
fn open(
    agents: &[Agent],
    path: PathBuf,
    from: (u64, u64),
    seen: &Arc<Mutex<Seen>>,
    follow: &Follow,
) -> FollowedInput {
    let (agents, seen) = (agents.to_vec(), Arc::clone(seen));
    let followed = Followed::open_at(&path, from, follow.clone()).map(|f| {
        let mut s = seen.lock().unwrap_or_else(|e| e.into_inner());
        if s.left.insert(path.clone(), f.left()).is_none() {
            // Opened for the first time: the parts it has already are not followed (its
            // past is read without them, each file being read as it is under --follow);
            // those that start from now on are.
            let parts = parts_of(&agents, &path).into_iter().map(|p| {
                let len = stat(&p).1;
                (p, len)
            });
            s.known.get_or_insert_with(HashMap::new).extend(parts);
        }
        drop(s);
        let f = f.until(move |current| {
            let s = seen.lock().unwrap_or_else(|e| e.into_inner());
            let logs = candidates(&agents, &s);
            s.next(&logs, Some(current)).is_some()
        });
        Box::new(f) as Box<dyn Read + Send>
    });
    (path.display().to_string(), from, followed)
}

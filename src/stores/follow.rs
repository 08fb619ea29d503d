//! `--follow --from AGENT`: the agent's newest session — the log written last — followed as
//! it grows, then, when a newer session starts (its log written since), that one, each an
//! input of its own (its own name and line numbers).
//!
//! Only logs of lines are followed (every agent's `.jsonl`; not a `.jsonl.zst`, Gemini's
//! `.json` documents, OpenCode's database). A Claude session's sub-agents, read into their
//! session's log otherwise, are not under `--follow`: each file is read as it is written.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::agent::event::Agent;
use crate::agent::store::modified_ms;
use crate::input::Input;
use crate::input::follow::{Follow, Followed, RESCAN};
use crate::stores::Window;

/// The newest session log of `agents` that can be followed: the one written last.
pub(crate) fn newest(agents: &[Agent]) -> Option<(PathBuf, i64)> {
    crate::stores::find(agents, &Window::default())
        .into_iter()
        .filter_map(|f| match f.input {
            Input::Path(path) if path.extension().is_some_and(|e| e == "jsonl") => Some(path),
            _ => None,
        })
        .map(|path| {
            let at = modified_ms(&path);
            (path, at)
        })
        .max_by_key(|(path, at)| (*at, path.clone()))
}

/// One input as the reading side takes it: its name, its first line, and its bytes.
pub(crate) type FollowedInput = (String, (u64, u64), io::Result<Box<dyn Read + Send>>);

/// The sessions of `agents`, newest first, then each newer one as it starts; ends when the
/// one followed was idle for `follow.idle` (or, with none yet, when none came in that time).
pub(crate) fn sessions(agents: Vec<Agent>, follow: Follow) -> impl Iterator<Item = FollowedInput> {
    let mut last: Option<PathBuf> = None;
    std::iter::from_fn(move || {
        let waited = Instant::now();
        loop {
            match newest(&agents) {
                Some((path, _)) if last.as_ref() != Some(&path) => {
                    last = Some(path.clone());
                    return Some(open(&agents, &path, &follow));
                }
                // The last one followed is still the newest: it ended idle.
                Some(_) => return None,
                None if follow.idle.is_some_and(|idle| waited.elapsed() >= idle) => {
                    return None;
                }
                None => std::thread::sleep(RESCAN),
            }
        }
    })
}

/// `path` followed until a newer session of `agents` is written.
fn open(agents: &[Agent], path: &Path, follow: &Follow) -> FollowedInput {
    let agents = agents.to_vec();
    let followed = Followed::open(path, follow.clone()).map(|f| {
        let f = f.until(move |current| {
            let mine = modified_ms(current);
            newest(&agents).is_some_and(|(path, at)| path != current && at > mine)
        });
        Box::new(f) as Box<dyn Read + Send>
    });
    (path.display().to_string(), (1, 0), followed)
}

//! The agents' own session logs ("stores"), for every agent alike: listed for `--from`,
//! chosen by `--since`, `--until` and `--project`, looked up by a session id's prefix,
//! and opened whatever they are ([`open`]). Where each agent keeps its logs, and what
//! they say of themselves, is the agent's own (`agent::<name>::store`, through
//! [`Store`]).
//!
//! | agent | where (the variable that moves it) | files |
//! |---|---|---|
//! | Claude Code | `~/.claude` (`CLAUDE_CONFIG_DIR`, a comma-separated list) | `projects/<cwd-slug>/<session>.jsonl` |
//! | Codex | `~/.codex` (`CODEX_HOME`) | `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl[.zst]`, `archived_sessions/…` |
//! | Gemini CLI | `~/.gemini` (`GEMINI_CLI_HOME` replaces `~`) | `tmp/<project>/chats/session-<time>-<id8>.jsonl` (`.json` before 0.39), sub-agents' in `chats/<session>/` |
//! | Qwen Code | `~/.qwen` (`QWEN_RUNTIME_DIR`) | `projects/<cwd-slug>/chats/<session>.jsonl`; 0.2's `tmp/<hash>/chats/session-<time>-<id8>.json` |
//! | OpenCode | `~/.local/share/opencode` (`XDG_DATA_HOME`) | `opencode.db` (SQLite; sessions in it); before 1.2 `storage/session/<project>/<session>.json` |
//! | Cursor | `~/.cursor` (`CURSOR_CONFIG_DIR`) | `projects/<cwd-slug>/agent-transcripts/<id>/<id>.jsonl` (before: `<id>.jsonl`, `<id>.txt`) |
//!
//! Nothing here writes: files are opened read-only, a database is read from a private
//! copy, and no lock is taken.

pub(crate) mod follow;
pub(crate) mod open;
pub(crate) mod watched;
pub(crate) mod when;

use std::path::{Path, PathBuf};

use crate::agent::event::Agent;
use crate::agent::store::{Found, Store, last_record_ms, modified_ms};
use crate::input::{Input, Pick};

/// Which sessions `--since`, `--until` and `--project` keep: those active in the window
/// (the last record at or after `since`, the start at or before `until`) whose working
/// directory is `project` or below.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Window {
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    /// Absolute.
    pub project: Option<PathBuf>,
}

impl Window {
    pub(crate) fn is_open(&self) -> bool {
        *self == Window::default()
    }
}

/// Every session log of `agents` in the window, oldest first (a database's sessions
/// chosen by the window as it is read).
pub(crate) fn find(agents: &[Agent], window: &Window) -> Vec<Found> {
    let mut found = Vec::new();
    for &agent in agents {
        let store = agent.spec().store();
        for f in store.logs() {
            if keep(store, &f, window) {
                found.push(with_window(f, window));
            }
        }
    }
    found.sort_by(|a, b| (a.started_ms, a.path()).cmp(&(b.started_ms, b.path())));
    found
}

/// The session whose id starts with `prefix`, in any agent's store: its log, or why
/// there is none (no such session, or several).
pub(crate) fn lookup(prefix: &str) -> Result<Input, String> {
    let mut hits: Vec<(Agent, String, Input)> = Vec::new();
    for agent in Agent::ALL {
        let store = agent.spec().store();
        for f in store.logs() {
            hits.extend(matching(store, f, prefix));
        }
    }
    hits.dedup_by(|a, b| a.1 == b.1 && a.2 == b.2);
    match hits.len() {
        1 => Ok(hits.pop().map(|h| h.2).unwrap_or(Input::Stdin)),
        0 => Err(format!(
            "no such file, and no session whose id starts with `{prefix}`"
        )),
        n => {
            let mut msg = format!("`{prefix}` starts {n} session ids; give more of it:");
            for (agent, id, input) in hits.iter().take(10) {
                msg.push_str(&format!("\n  {agent:8} {id}  {}", input.name()));
            }
            if n > 10 {
                msg.push_str(&format!("\n  … and {} more", n - 10));
            }
            Err(msg)
        }
    }
}

/// The sessions of a found log whose id starts with `prefix`: its own, or a database's.
fn matching(store: &dyn Store, f: Found, prefix: &str) -> Vec<(Agent, String, Input)> {
    match (&f.input, &f.id) {
        (Input::Database { path, .. }, _) => store
            .database_sessions(path, prefix)
            .into_iter()
            .map(|id| {
                let pick = Pick {
                    id: Some(id.clone()),
                    ..Pick::default()
                };
                let input = Input::Database {
                    path: path.clone(),
                    pick,
                };
                (f.agent, id, input)
            })
            .collect(),
        // A name may give only the start of the id (Gemini's): the whole one decides.
        (_, Some(id)) if id.starts_with(prefix) || prefix.starts_with(id.as_str()) => store
            .session_id(&f)
            .filter(|full| full.starts_with(prefix))
            .map(|full| vec![(f.agent, full, f.input.clone())])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Whether a session is in the window.
fn keep(store: &dyn Store, f: &Found, window: &Window) -> bool {
    let path: &Path = match &f.input {
        Input::Path(path) | Input::Rest { path, .. } => path,
        // A database's sessions are chosen as it is read.
        Input::Database { .. } => return true,
        Input::Stdin => return false,
    };
    if let Some(since) = window.since_ms {
        // The file's last change bounds its records' times (nothing in it is later): a
        // cheap first test. A file changed since is not always active since — a copy, a
        // restore, a rollout Codex compressed a week after its last record: its last
        // record's time decides.
        if modified_ms(path) < since || last_record_ms(path).is_some_and(|t| t < since) {
            return false;
        }
    }
    if let Some(until) = window.until_ms
        && store.started_ms(f, until) > until
    {
        return false;
    }
    match &window.project {
        Some(dir) => store.in_project(f, dir),
        None => true,
    }
}

/// A database of sessions, with the window's choice applied as it is read.
fn with_window(found: Found, window: &Window) -> Found {
    match found.input {
        Input::Database { path, pick } => Found {
            input: Input::Database {
                path,
                pick: Pick {
                    id: pick.id,
                    since_ms: window.since_ms,
                    until_ms: window.until_ms,
                    project: window.project.clone(),
                },
            },
            ..found
        },
        _ => found,
    }
}

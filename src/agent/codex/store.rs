//! Where Codex keeps its rollouts: `sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`
//! under `$CODEX_HOME` (else `~/.codex`), and `archived_sessions/` after `codex archive`;
//! a rollout idle for a week may be compressed to `.jsonl.zst` (a plain one wins over its
//! compressed sibling, `sessions/` over the archive).

use crate::agent::event::Agent;
use crate::agent::store::{self, Found, Store, env_dir, home};

pub(crate) struct CodexStore;

const HOUR: i64 = 3_600_000;

impl Store for CodexStore {
    fn roots(&self) -> Vec<std::path::PathBuf> {
        let root = env_dir("CODEX_HOME").or_else(|| home().map(|h| h.join(".codex")));
        root.map(|r| vec![r.join("sessions"), r.join("archived_sessions")])
            .unwrap_or_default()
    }

    fn logs(&self) -> Vec<Found> {
        let Some(root) = env_dir("CODEX_HOME").or_else(|| home().map(|h| h.join(".codex"))) else {
            return Vec::new();
        };
        let mut found: Vec<Found> = Vec::new();
        let mut names = std::collections::HashSet::new();
        for sub in ["sessions", "archived_sessions"] {
            let mut paths = Vec::new();
            store::walk(&root.join(sub), 4, &mut paths);
            paths.retain(|p| store::name_of(p).is_some_and(|n| is_rollout(&n)));
            // A plain rollout wins over its compressed sibling.
            paths.sort_by_key(|p| store::name_of(p).is_some_and(|n| n.ends_with(".zst")));
            for path in paths {
                let name = store::name_of(&path).unwrap_or_default();
                let base = name.trim_end_matches(".zst").to_string();
                if names.insert(base.clone()) {
                    let (id, started) = id_and_time(base.trim_end_matches(".jsonl"));
                    found.push(Found::file(Agent::Codex, path, id, started));
                }
            }
        }
        found
    }

    /// The name gives the local time the rollout started, in a zone it does not give
    /// (UTC−12 to UTC+14): it only bounds the start, and the first record is read when the
    /// bounds do not decide.
    fn started_ms(&self, log: &Found, until: i64) -> i64 {
        let named = log.started_ms;
        if named > 0 && named + 12 * HOUR <= until {
            return named + 12 * HOUR;
        }
        if named > 0 && named - 14 * HOUR > until {
            return named - 14 * HOUR;
        }
        log.path().and_then(store::first_record_ms).unwrap_or(named)
    }
}

fn is_rollout(name: &str) -> bool {
    name.starts_with("rollout-") && (name.ends_with(".jsonl") || name.ends_with(".jsonl.zst"))
}

/// `rollout-YYYY-MM-DDThh-mm-ss-<uuid>`: the id, and the time as if it were UTC. Cut by
/// bytes: a stray file's name need not be ASCII (`get` gives `None` where the cut would
/// fall inside a character).
fn id_and_time(stem: &str) -> (Option<String>, Option<i64>) {
    let id = stem
        .len()
        .checked_sub(36)
        .filter(|&at| at > 0)
        .and_then(|at| stem.get(at..))
        .map(str::to_string);
    let started = stem
        .strip_prefix("rollout-")
        .and_then(|s| s.get(..19))
        .and_then(store::name_time);
    (id, started)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_script_give_no_panic() {
        assert_eq!(
            id_and_time("rollout-Überprüfung-der-Änderungen-öffnen").1,
            None
        );
        let (id, at) =
            id_and_time("rollout-2026-11-27T23-00-34-01a21a83-c8f0-74d2-bdda-0adefc8f27ee");
        assert_eq!(id.as_deref(), Some("01a21a83-c8f0-74d2-bdda-0adefc8f27ee"));
        assert!(at.is_some());
    }
}

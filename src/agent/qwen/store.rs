//! Where Qwen Code keeps its chats: `projects/<sanitized cwd>/chats/<session>.jsonl` under
//! `$QWEN_RUNTIME_DIR` (else `~/.qwen`).

use crate::agent::event::Agent;
use crate::agent::store::{self, Found, Store, env_dir, files_in, home, subdirs};

pub(crate) struct QwenStore;

impl Store for QwenStore {
    fn logs(&self) -> Vec<Found> {
        let Some(root) = env_dir("QWEN_RUNTIME_DIR").or_else(|| home().map(|h| h.join(".qwen")))
        else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for project in subdirs(&root.join("projects")) {
            for path in files_in(&project.join("chats"), |n| n.ends_with(".jsonl")) {
                let id = store::stem(&path, ".jsonl");
                found.push(Found::file(Agent::Qwen, path, id, None));
            }
        }
        found
    }
}

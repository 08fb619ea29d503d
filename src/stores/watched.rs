//! What `usage --live` and `sessions --live` watch: the logs named, and the agents' logs
//! chosen as at the start — listed again at each change — and the folders they are under.

use std::path::PathBuf;

use crate::input::Input;

/// What `--live` watches: the logs named, and the agents' logs chosen as at the start.
#[derive(Debug, Clone)]
pub(crate) struct Watched {
    pub files: Vec<Input>,
    pub agents: Vec<crate::agent::event::Agent>,
    pub window: super::Window,
}

impl Watched {
    /// The logs as they are now.
    pub(crate) fn list(&self) -> Vec<Input> {
        let mut inputs = self.files.clone();
        inputs.extend(
            super::find(&self.agents, &self.window)
                .into_iter()
                .map(|f| f.input),
        );
        inputs
    }

    /// The folders to watch: the agents' own (whether they are there yet or not), and
    /// those of the files named.
    pub(crate) fn roots(&self) -> Vec<PathBuf> {
        let mut roots: Vec<PathBuf> = self
            .agents
            .iter()
            .flat_map(|a| a.spec().store().roots())
            .collect();
        for input in &self.files {
            if let Input::Path(p) = input
                && let Some(dir) = p.parent()
            {
                roots.push(dir.to_path_buf());
            }
        }
        roots.sort();
        roots.dedup();
        roots
    }
}

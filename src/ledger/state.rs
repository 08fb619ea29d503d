//! What one machine has exported into a ledger: for each log, its size and time when it
//! was read and the digests of the rows written from it. A log whose size and time are
//! unchanged is not read again; a log that grew is, and only its new or changed rows are
//! written. The file (`_machines/<machine>.json`: engines skip names that start with `_`)
//! is this machine's alone, replaced whole by a rename, after the tables' files.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

/// One log, as last exported.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Seen {
    pub size: u64,
    /// Its modification time, in nanoseconds since the epoch.
    pub modified_ns: u128,
    /// The digests of the rows written from it.
    pub rows: Vec<u64>,
}

/// A machine's state in a ledger.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct State {
    pub version: u32,
    pub machine: String,
    /// By the log's name, as the inputs name it.
    pub files: BTreeMap<String, Seen>,
}

impl State {
    /// The state file of `machine` in `ledger`.
    pub(crate) fn path(ledger: &Path, machine: &str) -> PathBuf {
        ledger
            .join("_machines")
            .join(format!("{}.json", super::file_safe(machine)))
    }

    /// The machine's state, or an empty one when it never exported here.
    pub(crate) fn load(ledger: &Path, machine: &str) -> anyhow::Result<State> {
        let path = State::path(ledger, machine);
        let text = match std::fs::read(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(State {
                    version: 1,
                    machine: machine.to_string(),
                    files: BTreeMap::new(),
                });
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        serde_json::from_slice(&text).with_context(|| {
            format!(
                "{} is not an export state this version reads (remove it to export everything again)",
                path.display()
            )
        })
    }

    /// Writes the state: under a temporary name, then renamed.
    pub(crate) fn save(&self, ledger: &Path) -> anyhow::Result<()> {
        let path = State::path(ledger, &self.machine);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let tmp = super::parquet::temporary_name(&path);
        std::fs::write(&tmp, serde_json::to_vec(self)?)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot rename {}", tmp.display()))?;
        Ok(())
    }

    /// The digests already written from the log `name`.
    pub(crate) fn written(&self, name: &str) -> HashSet<u64> {
        self.files
            .get(name)
            .map(|s| s.rows.iter().copied().collect())
            .unwrap_or_default()
    }
}

/// A log's size and modification time now, when it is a file.
pub(crate) fn stat(path: &Path) -> Option<Seen> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    Some(Seen {
        size: meta.len(),
        modified_ns: modified.as_nanos(),
        rows: Vec::new(),
    })
}

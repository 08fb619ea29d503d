//! The ledger: every agent run, model call and tool call, as Parquet tables that the
//! engines teams run (DuckDB, Spark, Trino, ClickHouse) read, under one folder that many
//! machines write into without a server, a lock or any coordination.
//!
//! ```text
//! DIR/calls/date=2026-11-27/<machine>-<export>.parquet   a model call, by its time (UTC day)
//! DIR/runs/date=…/…                                      a run, by its start
//! DIR/tools/date=…/…                                     a tool call, by its run's start
//! DIR/_machines/<machine>.json                           what the machine has exported
//! ```
//!
//! A file is written once, by one machine, under a temporary name that every engine skips
//! and then renamed; nothing is appended or rewritten. The same call, run or tool call may
//! therefore be in several files — a copy of a session on two machines, a log read again
//! after it grew, an export killed before its state was saved — always under the same
//! key (`call_key`, `run_key`, `run_key` + `seq`), and readers count each key once: the
//! first exported for a call, the last for a run or tool call (a run that has ended since).

mod parquet;
mod record;
mod state;
mod tables;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;

pub(crate) use record::{LimitRec, Rec, Recorder, RunKey, hash};
pub(crate) use state::{Seen, State, stat};
pub(crate) use tables::{Call, Run, Stamp, Tool};

/// The tables, by folder name.
pub(crate) const TABLES: [&str; 3] = ["calls", "runs", "tools"];

/// Where the ledger is kept when `--ledger` does not say: in the user's data directory
/// (`$XDG_DATA_HOME/cursor-stream/ledger`, else `~/.local/share/cursor-stream/ledger`), so
/// that one person's history outlives the agents' own clean-ups.
pub(crate) fn default_dir() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("cursor-stream").join("ledger"))
}

/// This machine's name: its host name.
pub(crate) fn host_name() -> String {
    #[cfg(unix)]
    if let Ok(name) = nix::unistd::gethostname()
        && let Some(name) = name.to_str()
        && !name.is_empty()
    {
        return name.to_string();
    }
    std::env::var("COMPUTERNAME")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown".to_string())
}

/// `name` as a part of a file name: letters, digits, `.`, `-` and `_` kept, every other
/// character `_`, and a hash of the name after it when anything changed (two names that
/// differ only in what was replaced still make two files).
pub(crate) fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe == name && !safe.is_empty() {
        safe
    } else {
        let hash = hash(name.as_bytes());
        format!("{safe}-{:08x}", hash >> 32)
    }
}

/// The UTC day of a moment, as the partitions name it.
pub(crate) fn utc_day(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(jiff::tz::TimeZone::UTC).date().to_string())
        .unwrap_or_else(|_| "1970-01-01".to_string())
}

/// One export's files: each table's rows of one day in one file.
pub(crate) struct Writer<'l> {
    pub ledger: &'l Path,
    pub stamp: Stamp<'l>,
    /// Names this export's files apart from every other's, of any machine.
    pub name: String,
    /// Files written.
    pub files: usize,
}

impl<'l> Writer<'l> {
    pub(crate) fn new(ledger: &'l Path, stamp: Stamp<'l>) -> Writer<'l> {
        let name = format!(
            "{}-{}-{}",
            file_safe(stamp.machine),
            stamp.exported_at_ms,
            std::process::id()
        );
        Writer {
            ledger,
            stamp,
            name,
            files: 0,
        }
    }

    /// Writes `rows` of `table`, by day (`day` of each row), through `columns`. Rows are
    /// references (or as small): copied into each day's list.
    pub(crate) fn write<T: Copy>(
        &mut self,
        table: &str,
        rows: impl IntoIterator<Item = T>,
        day: impl Fn(T) -> String,
        columns: impl Fn(&[T], &Stamp<'_>) -> Vec<parquet::Column>,
    ) -> anyhow::Result<()> {
        let mut by_day: std::collections::BTreeMap<String, Vec<T>> = Default::default();
        for row in rows {
            by_day.entry(day(row)).or_default().push(row);
        }
        for (day, rows) in by_day {
            let dir = self.ledger.join(table).join(format!("date={day}"));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            let path = dir.join(format!("{}.parquet", self.name));
            parquet::write(&path, table, columns(&rows, &self.stamp))
                .with_context(|| format!("cannot write {}", path.display()))?;
            self.files += 1;
        }
        Ok(())
    }
}

pub(crate) use tables::{call_columns, run_columns, tool_columns};

/// Removes what an export of `machine` killed half-way left: its temporary files (no other
/// machine's: one may be writing its own now).
pub(crate) fn clean_up(ledger: &Path, machine: &str) {
    let prefix = format!(".{}-", file_safe(machine));
    for table in TABLES {
        let Ok(days) = std::fs::read_dir(ledger.join(table)) else {
            continue;
        };
        for day in days.flatten() {
            let Ok(files) = std::fs::read_dir(day.path()) else {
                continue;
            };
            for file in files.flatten() {
                let name = file.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(&prefix) && name.ends_with(".tmp") {
                    let _ = std::fs::remove_file(file.path());
                }
            }
        }
    }
}

/// The Parquet files of `table`, as engines find them: under its `date=` folders, names
/// that end in `.parquet` and start with neither `.` nor `_`.
pub(crate) fn files(ledger: &Path, table: &str) -> anyhow::Result<Vec<PathBuf>> {
    let root = ledger.join(table);
    let mut out = Vec::new();
    let days = match std::fs::read_dir(&root) {
        Ok(d) => d,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", root.display())),
    };
    for day in days {
        let day = day?;
        if !day.file_name().to_string_lossy().starts_with("date=") {
            continue;
        }
        for file in std::fs::read_dir(day.path())? {
            let file = file?;
            let name = file.file_name();
            let name = name.to_string_lossy();
            if name.ends_with(".parquet") && !name.starts_with(['.', '_']) {
                out.push(file.path());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The model calls of the ledger `dir`, as `usage` counts them: in the order they were
/// exported (then by machine), so that a call several machines hold is counted under the
/// first to export it. A file that cannot be read (another program's, a broken copy) is
/// named in the messages returned and left out: the others still count.
pub(crate) fn read_calls(dir: &Path) -> anyhow::Result<(Vec<Rec>, Vec<String>)> {
    if !dir.is_dir() {
        anyhow::bail!(
            "{} is no ledger (no such folder): `cursor-stream export --ledger {}` makes one",
            dir.display(),
            dir.display()
        );
    }
    let mut runs = HashMap::new();
    let mut calls: Vec<(i64, Arc<str>, Rec)> = Vec::new();
    let mut unread = Vec::new();
    for path in files(dir, "calls")? {
        let mut these = Vec::new();
        let read = parquet::read(&path, |row| {
            let exported = row.int("exported_at").unwrap_or(0);
            if let Some(rec) = tables::call_from_row(row, &mut runs) {
                let machine = rec.machine.clone().unwrap_or_else(|| Arc::from(""));
                these.push((exported, machine, rec));
            }
        });
        match read {
            Ok(()) => calls.extend(these),
            Err(e) => unread.push(format!(
                "{}: not a ledger file this version reads, left out ({e:#})",
                path.display()
            )),
        }
    }
    calls.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    Ok((calls.into_iter().map(|(_, _, rec)| rec).collect(), unread))
}

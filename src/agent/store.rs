//! An agent's store: where its session logs live, how a log names its session, when it
//! started and where it was written. Each agent's folder says it for its own logs
//! (`claude/store.rs`, `codex/store.rs`, …) through [`Store`]; `crate::stores` lists,
//! chooses and opens them for every agent alike. What is here is what several stores
//! share: the folders walked (links followed), the times read from names and records.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::event::Agent;
use crate::input::file::Opened;
use crate::input::{Input, Pick};

/// A session log found in a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub agent: Agent,
    pub input: Input,
    /// The session id the file's name gives (a database holds many: `None`).
    pub id: Option<String>,
    /// When it started, as far as the name or the file tells (epoch ms).
    pub started_ms: i64,
}

impl Found {
    /// A log file of `agent`'s, started when its name says (else when the file was made).
    pub(crate) fn file(
        agent: Agent,
        path: PathBuf,
        id: Option<String>,
        started: Option<i64>,
    ) -> Found {
        let started_ms = started.unwrap_or_else(|| created_ms(&path));
        Found {
            agent,
            input: Input::Path(path),
            id,
            started_ms,
        }
    }

    /// A database of `agent`'s sessions (each chosen as it is read).
    pub(crate) fn database(agent: Agent, path: PathBuf) -> Found {
        let started_ms = modified_ms(&path);
        Found {
            agent,
            input: Input::Database {
                path,
                pick: Pick::default(),
            },
            id: None,
            started_ms,
        }
    }

    /// The file it is (a database's, a copy's own).
    pub(crate) fn path(&self) -> Option<&Path> {
        match &self.input {
            Input::Path(p) | Input::Database { path: p, .. } | Input::Rest { path: p, .. } => {
                Some(p)
            }
            Input::Stdin => None,
        }
    }
}

/// Where an agent keeps its session logs, and what they say of themselves. The defaults
/// are what most agents' logs share: lines with a top-level `timestamp` and `cwd`.
pub(crate) trait Store: Sync {
    /// Every session log the agent keeps (where its own variables put them), unfiltered.
    fn logs(&self) -> Vec<Found>;

    /// The folders its logs are under, for a watcher (`--live`): a change below one may be
    /// a log's. Whether they exist yet or not (the watcher waits for them).
    fn roots(&self) -> Vec<PathBuf>;

    /// Whether `log` was written in `dir` or below it (`--project`): by the `cwd` its
    /// first records name.
    fn in_project(&self, log: &Found, dir: &Path) -> bool {
        log.path()
            .and_then(cwd_in_head)
            .is_some_and(|cwd| Path::new(&cwd).starts_with(dir))
    }

    /// When `log` started, for a window that ends at `until` (epoch ms): its first
    /// record's time, else what its name or file said. A store whose names tell may
    /// answer without reading.
    fn started_ms(&self, log: &Found, _until: i64) -> i64 {
        log.path()
            .and_then(first_record_ms)
            .unwrap_or(log.started_ms)
    }

    /// The whole session id of `log`, when its name gives only a part.
    fn session_id(&self, log: &Found) -> Option<String> {
        log.id.clone()
    }

    /// Whether the file at `path` is one of the agent's session logs by its place and name
    /// alone: a log with no line of its own says nothing of itself, and is read as its
    /// agent's all the same (`sessions` lists it).
    fn names_log(&self, _path: &Path) -> bool {
        false
    }

    /// Whether the file at `path` is one of the agent's that is not read as the lines it
    /// holds (a log with others read into it, a document of a whole session).
    fn opens(&self, _path: &Path) -> bool {
        false
    }

    /// Opens such a file ([`opens`](Self::opens)), `file` being it at the position the
    /// reading starts from.
    fn open(&self, _path: &Path, file: File) -> io::Result<Opened> {
        Ok(Opened::Plain(file))
    }

    /// The logs read into the session log at `path` where it names them (Claude's
    /// sub-agents' own logs), as they are now: `--follow` reads those that start while
    /// their session is followed as logs of their own, as they are written.
    fn parts_of(&self, _path: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    /// Opens one of the agent's databases, with the sessions `pick` chooses as lines
    /// (`None`: the agent keeps none).
    fn open_database(&self, _path: &Path, _pick: &Pick) -> Option<io::Result<Opened>> {
        None
    }

    /// The ids of the sessions in the database at `path` that start with `prefix`.
    fn database_sessions(&self, _path: &Path, _prefix: &str) -> Vec<String> {
        Vec::new()
    }
}

/// The user's home: `$HOME`, else the system's idea of it.
pub(crate) fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(std::env::home_dir)
}

/// A folder named by an environment variable, when it is set and not empty.
pub(crate) fn env_dir(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The folders in `dir`, sorted (links to folders included).
pub(crate) fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut dirs: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The files in `dir` whose names are `wanted`, sorted (links to files included).
pub(crate) fn files_in(dir: &Path, wanted: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| name_of(p).is_some_and(|n| wanted(&n)) && p.is_file())
        .collect();
    files.sort();
    files
}

/// Every file under `dir`, at most `depth` folders down. Links are followed (a store's
/// folders and logs are often links to another disk); the depth bounds a loop of them.
pub(crate) fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() && depth > 0 {
            walk(&path, depth - 1, out);
        } else if meta.is_file() {
            out.push(path);
        }
    }
}

/// A path's last part, when it is UTF-8.
pub(crate) fn name_of(path: &Path) -> Option<String> {
    path.file_name()?.to_str().map(str::to_string)
}

/// A path's last part without `ext`.
pub(crate) fn stem(path: &Path, ext: &str) -> Option<String> {
    name_of(path)?.strip_suffix(ext).map(str::to_string)
}

/// `YYYY-MM-DDThh-mm[-ss]` in a file's name, read as UTC (whether it is UTC is the
/// store's to say).
pub(crate) fn name_time(s: &str) -> Option<i64> {
    let (date, time) = s.split_once('T')?;
    let mut parts = time.split('-');
    let h = parts.next()?;
    let m = parts.next()?;
    let sec = parts.next().unwrap_or("00");
    let text = format!("{date}T{h}:{m}:{sec}Z");
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

fn to_ms(t: io::Result<SystemTime>) -> Option<i64> {
    let d = t.ok()?.duration_since(SystemTime::UNIX_EPOCH).ok()?;
    i64::try_from(d.as_millis()).ok()
}

/// When a file last changed (epoch ms; 0 when unknown).
pub(crate) fn modified_ms(path: &Path) -> i64 {
    std::fs::metadata(path)
        .ok()
        .and_then(|m| to_ms(m.modified()))
        .unwrap_or(0)
}

/// When a file was made, as far as the file system says (the earlier of its creation and
/// its last change: a copied log was created when copied).
pub(crate) fn created_ms(path: &Path) -> i64 {
    let Ok(meta) = std::fs::metadata(path) else {
        return 0;
    };
    match (to_ms(meta.created()), to_ms(meta.modified())) {
        (Some(c), Some(m)) => c.min(m),
        (c, m) => c.or(m).unwrap_or(0),
    }
}

/// A log line's own time: its top-level `timestamp` (Claude, Codex, Gemini, Qwen).
pub(crate) fn record_ms(line: &[u8]) -> Option<i64> {
    let value = crate::input::json::top_level_value(line.trim_ascii(), "timestamp")?;
    let text = std::str::from_utf8(value.strip_prefix(b"\"")?.strip_suffix(b"\"")?).ok()?;
    text.parse::<jiff::Timestamp>()
        .ok()
        .map(|t| t.as_millisecond())
}

/// The time of a log's first record that has one (in its first 16 KiB).
pub(crate) fn first_record_ms(path: &Path) -> Option<i64> {
    let head = crate::input::file::head(path, 16 << 10).ok()?;
    head.split(|&b| b == b'\n').find_map(record_ms)
}

/// The time of a log's last record that has one (in its last 64 KiB).
pub(crate) fn last_record_ms(path: &Path) -> Option<i64> {
    const LIMIT: u64 = 64 << 10;
    let tail = crate::input::file::tail(path, LIMIT).ok()?;
    // A tail of the whole limit may start inside a line: that one is not looked at.
    let cut = tail.len() as u64 >= LIMIT;
    let mut lines = tail.split(|&b| b == b'\n');
    if cut {
        lines.next();
    }
    lines.rev().find_map(record_ms)
}

/// The working directory a log names first: its first `"cwd"` (Claude, Codex, Qwen write
/// it on their first records), in its first MiB.
pub(crate) fn cwd_in_head(path: &Path) -> Option<String> {
    let head = crate::input::file::head(path, 1 << 20).ok()?;
    let at = memchr::memmem::find(&head, b"\"cwd\":")?;
    let rest = &head[at + 6..];
    let start = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let mut de = serde_json::Deserializer::from_slice(&rest[start..]);
    serde::Deserialize::deserialize(&mut de).ok()
}

/// `f` of each item, in order, the items shared among a thread per core: looking into
/// hundreds of logs before the reading starts is time no reader works.
pub(crate) fn on_all_cores<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(cores);
    let f = &f;
    std::thread::scope(|s| {
        let parts: Vec<_> = items
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        parts
            .into_iter()
            .flat_map(|part| part.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// A log line's own `uuid` (a top-level key).
pub(crate) fn uuid_of(line: &[u8]) -> Option<&str> {
    let value = crate::input::json::top_level_value(line, "uuid")?;
    let inner = value.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    std::str::from_utf8(inner).ok()
}

/// Where `new` goes on from its copy of `old` (a log that starts with another's lines,
/// their `uuid`s kept: Claude Code's resumed sessions): the number and offset of its first
/// line with a `uuid` that `old` does not have, or its end when it holds nothing else
/// (`None`: no copy).
pub(crate) fn after_copy(old: &Path, new: &Path) -> Option<(u64, u64)> {
    use std::io::BufRead;
    let mut seen = std::collections::HashSet::new();
    let mut line = Vec::new();
    let mut rdr = io::BufReader::new(File::open(old).ok()?);
    while rdr.read_until(b'\n', &mut line).ok()? > 0 {
        if let Some(uuid) = uuid_of(line.trim_ascii_end()) {
            seen.insert(uuid.to_string());
        }
        line.clear();
    }
    let mut rdr = io::BufReader::new(File::open(new).ok()?);
    let (mut number, mut offset, mut copied) = (1u64, 0u64, false);
    loop {
        line.clear();
        let n = rdr.read_until(b'\n', &mut line).ok()?;
        if n == 0 {
            // Nothing after the copy: none of it is this log's own (read from its end).
            return copied.then_some((number, offset));
        }
        match uuid_of(line.trim_ascii_end()) {
            Some(uuid) if seen.contains(uuid) => copied = true,
            Some(_) => return copied.then_some((number, offset)),
            None => {}
        }
        number += 1;
        offset += n as u64;
    }
}

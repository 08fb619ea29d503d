//! Opening an input: a file of lines as it is; a zstd-compressed one (Codex compresses
//! rollouts idle for a week to `rollout-*.jsonl.zst`) decompressed as it is read; a
//! SQLite database (OpenCode's) read into lines of its dialect. Told by the first bytes,
//! whatever the file's name.
//!
//! A database is never opened where it lies: SQLite would take locks, and a read-only
//! open still creates the `-wal` and `-shm` files beside it when they are missing. It is
//! copied (with its write-ahead log, which holds the rows an open OpenCode has not yet
//! checkpointed) into a private temporary folder and read there: nothing beside the store
//! changes, and a copy taken while OpenCode writes is consistent (a copy whose log was
//! restarted meanwhile is taken again).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::input::{Input, Pick, open_path};

/// What the reading thread reads.
pub(crate) enum Opened {
    /// A regular file of lines, as it is: its offsets are the input's.
    Plain(File),
    /// Lines made from something else (a decompressed file, a database's rows, stdin).
    Made(Box<dyn Read + Send>),
}

impl Opened {
    pub(crate) fn into_read(self) -> Box<dyn Read + Send> {
        match self {
            Opened::Plain(file) => Box::new(file),
            Opened::Made(rdr) => rdr,
        }
    }
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// What a file holds, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Lines,
    Zstd,
    Sqlite,
}

fn kind_of(file: &File) -> Kind {
    let mut magic = [0u8; 16];
    let n = read_start(file, &mut magic).unwrap_or(0);
    if n >= 4 && magic[..4] == ZSTD_MAGIC {
        Kind::Zstd
    } else if n == 16 && magic == *SQLITE_MAGIC {
        Kind::Sqlite
    } else {
        Kind::Lines
    }
}

/// The first bytes of a file, without moving its position (a pipe's are not looked at:
/// reading them would take them from the stream).
#[cfg(unix)]
fn read_start(file: &File, buf: &mut [u8]) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    if !file.metadata()?.is_file() {
        return Ok(0);
    }
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], n as u64)? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(not(unix))]
fn read_start(_file: &File, _buf: &mut [u8]) -> io::Result<usize> {
    Ok(0)
}

/// Opens an input for the reading thread.
pub(crate) fn open(input: &Input) -> io::Result<Opened> {
    match input {
        Input::Stdin => Ok(Opened::Made(crate::input::stdin())),
        Input::Path(path) => {
            let file = open_path(path)?;
            match kind_of(&file) {
                Kind::Lines if is_gemini_document(path) => gemini_document(file),
                Kind::Lines => match subagents_of(path) {
                    Some(dir) => Ok(Opened::Made(Box::new(WithSubagents::new(file, dir)))),
                    None => Ok(Opened::Plain(file)),
                },
                Kind::Zstd => Ok(Opened::Made(Box::new(zstd::stream::read::Decoder::new(
                    file,
                )?))),
                Kind::Sqlite => database(path, &Pick::default()),
            }
        }
        Input::Database { path, pick } => database(path, pick),
        Input::Rest {
            path,
            copy_of,
            first_line,
        } => {
            let (_, offset) = *first_line
                .get_or_init(|| super::find::after_copy(copy_of, path).unwrap_or((1, 0)));
            let mut file = open_path(path)?;
            io::Seek::seek(&mut file, io::SeekFrom::Start(offset))?;
            Ok(Opened::Made(match subagents_of(path) {
                Some(dir) => Box::new(WithSubagents::new(file, dir)),
                None => Box::new(file),
            }))
        }
    }
}

/// Whether a path names a regular file of lines as they are (one that may be read in
/// parts, at offsets).
pub(crate) fn is_plain(path: &Path) -> bool {
    File::open(path).is_ok_and(|f| {
        f.metadata().is_ok_and(|m| m.is_file())
            && kind_of(&f) == Kind::Lines
            && subagents_of(path).is_none()
    })
}

/// A Gemini CLI chat before 0.39: one JSON document (`session-*.json` in a `chats`
/// folder), not lines.
fn is_gemini_document(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("session-"))
        && path
            .parent()
            .and_then(|p| p.file_name())
            .is_some_and(|n| n == "chats")
}

/// A Gemini CLI chat document (`{sessionId, projectHash, startTime, lastUpdated,
/// messages: […]}`, 0.38 and before) as the lines of the chat log that replaced it: its
/// metadata, then a line per message. Read whole (such a file holds one session).
fn gemini_document(mut file: File) -> io::Result<Opened> {
    #[derive(serde::Deserialize)]
    struct Document {
        #[serde(default)]
        messages: Vec<Box<serde_json::value::RawValue>>,
        #[serde(flatten)]
        meta: serde_json::Map<String, serde_json::Value>,
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let doc: Document = serde_json::from_slice(&bytes).map_err(|e| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a Gemini chat: {e}"),
        )
    })?;
    let mut lines = serde_json::to_vec(&doc.meta)?;
    lines.push(b'\n');
    for m in doc.messages {
        let value: serde_json::Value = serde_json::from_str(m.get())?;
        serde_json::to_writer(&mut lines, &value)?;
        lines.push(b'\n');
    }
    Ok(Opened::Made(Box::new(io::Cursor::new(lines))))
}

/// A Claude Code session log's sub-agents' folder (`<session>.jsonl` beside
/// `<session>/subagents/`), when it has one.
fn subagents_of(path: &Path) -> Option<PathBuf> {
    let stem = path.file_name()?.to_str()?.strip_suffix(".jsonl")?;
    let dir = path.parent()?.join(stem).join("subagents");
    dir.is_dir().then_some(dir)
}

/// A Claude Code session log with its sub-agents' logs read in: after the line whose
/// tool result names a sub-agent (`toolUseResult.agentId`), the lines of
/// `subagents/agent-<id>.jsonl` — where the stream would have had the sub-agent's events,
/// so that its calls belong to the call that started it (the dialect reads them so).
///
/// A sub-agent named again (a `Task` resumed) goes on from where its log was left; the
/// logs no line names (a `Task` interrupted, killed, or still running) are read at the
/// end of the main log: their calls were made, and billed, all the same.
///
/// The main log passes through in blocks, as read: only a line with `"agentId"` in it
/// (rare, and a must for naming one) is taken whole to be looked at, as are the
/// sub-agent's lines and a line longer than the buffer. Memory holds the buffer and the
/// longest such line.
///
/// The lines are numbered as one input: a sub-agent's line is reported (and `get`'s
/// `$line` counts) at its place in the main log's reading, under the main log's name.
struct WithSubagents {
    main: io::BufReader<File>,
    dir: PathBuf,
    /// The sub-agent being read, by its id.
    sub: Option<(String, io::BufReader<File>)>,
    /// How far each sub-agent's log was read, by its id.
    read: std::collections::HashMap<String, u64>,
    /// The main log ended: the sub-agents' logs no line named are read.
    unnamed: Option<std::vec::IntoIter<String>>,
    /// A line taken whole, and how much of it is passed on.
    line: Vec<u8>,
    at: usize,
    /// The main log's last byte passed on was a newline (or none was passed): a sub-agent's
    /// lines read after a log cut mid-line must not join its last line.
    at_line_start: bool,
}

impl WithSubagents {
    fn new(file: File, dir: PathBuf) -> WithSubagents {
        WithSubagents {
            main: io::BufReader::with_capacity(1 << 20, file),
            dir,
            sub: None,
            read: Default::default(),
            unnamed: None,
            line: Vec::new(),
            at: 0,
            at_line_start: true,
        }
    }

    /// Opens a sub-agent's log where the last reading of it stopped.
    fn open_sub(&mut self, agent: &str) {
        let path = self.dir.join(format!("agent-{agent}.jsonl"));
        let from = self.read.get(agent).copied().unwrap_or(0);
        self.sub = File::open(path).ok().and_then(|mut f| {
            io::Seek::seek(&mut f, io::SeekFrom::Start(from)).ok()?;
            Some((agent.to_string(), io::BufReader::with_capacity(1 << 16, f)))
        });
    }

    /// The sub-agent's next line into `self.line`; `false` at its end.
    fn sub_line(&mut self) -> io::Result<bool> {
        use io::BufRead;
        let Some((agent, sub)) = &mut self.sub else {
            return Ok(false);
        };
        self.line.clear();
        self.at = 0;
        let n = sub.read_until(b'\n', &mut self.line)?;
        if n > 0 {
            *self.read.entry(agent.clone()).or_default() += n as u64;
            if !self.line.ends_with(b"\n") {
                self.line.push(b'\n');
            }
            return Ok(true);
        }
        self.sub = None;
        Ok(false)
    }

    /// The main log's next line into `self.line`, and the sub-agent it names opened.
    /// `false` at the end of the log.
    fn main_line(&mut self) -> io::Result<bool> {
        use io::BufRead;
        self.line.clear();
        self.at = 0;
        if self.main.read_until(b'\n', &mut self.line)? == 0 {
            return Ok(false);
        }
        if let Some(agent) = crate::agent::claude::subagent_of(&self.line)
            && is_agent_id(&agent)
        {
            self.open_sub(&agent);
            if self.sub.is_some() && !self.line.ends_with(b"\n") {
                self.line.push(b'\n');
            }
        }
        Ok(true)
    }

    /// After the main log: the next sub-agent log not read to its end opened; `false`
    /// when none is left.
    fn next_unnamed(&mut self) -> bool {
        let dir = &self.dir;
        let unnamed = self.unnamed.get_or_insert_with(|| {
            let mut ids: Vec<String> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name().into_string().ok()?;
                    let id = name.strip_prefix("agent-")?.strip_suffix(".jsonl")?;
                    is_agent_id(id).then(|| id.to_string())
                })
                .collect();
            ids.sort();
            ids.into_iter()
        });
        for agent in unnamed.by_ref() {
            let len =
                std::fs::metadata(dir.join(format!("agent-{agent}.jsonl"))).map_or(0, |m| m.len());
            if self.read.get(&agent).copied().unwrap_or(0) < len {
                self.open_sub(&agent);
                if !std::mem::replace(&mut self.at_line_start, true) {
                    self.line.clear();
                    self.line.push(b'\n');
                    self.at = 0;
                }
                return true;
            }
        }
        false
    }
}

/// A sub-agent's id as Claude Code writes them (a file name is made of it).
fn is_agent_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

impl Read for WithSubagents {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use io::BufRead;
        loop {
            if self.at < self.line.len() {
                let n = buf.len().min(self.line.len() - self.at);
                buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
                self.at += n;
                return Ok(n);
            }
            if self.sub_line()? {
                continue;
            }
            if self.unnamed.is_some() {
                if self.next_unnamed() {
                    continue;
                }
                return Ok(0);
            }
            let data = self.main.fill_buf()?;
            if data.is_empty() {
                self.next_unnamed();
                continue;
            }
            // Whole lines only: a line cut by the buffer's end is taken whole below.
            let whole = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
            let naming = memchr::memmem::find(&data[..whole], b"\"agentId\"");
            let line_start =
                naming.map(|at| memchr::memrchr(b'\n', &data[..at]).map_or(0, |i| i + 1));
            let pass = line_start.unwrap_or(whole).min(buf.len());
            if pass > 0 {
                buf[..pass].copy_from_slice(&data[..pass]);
                self.at_line_start = data[pass - 1] == b'\n';
                self.main.consume(pass);
                return Ok(pass);
            }
            if self.main_line()? {
                self.at_line_start = self.line.ends_with(b"\n");
            } else {
                self.next_unnamed();
            }
        }
    }
}

/// The first `limit` bytes of a session log's lines (decompressed).
pub(crate) fn head(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_path(path)?;
    let mut out = Vec::new();
    match kind_of(&file) {
        Kind::Lines => file.take(limit).read_to_end(&mut out)?,
        Kind::Zstd => zstd::stream::read::Decoder::new(file)?
            .take(limit)
            .read_to_end(&mut out)?,
        Kind::Sqlite => 0,
    };
    Ok(out)
}

/// The last `limit` bytes of a session log's lines (decompressed: a compressed log is read
/// through to its end, keeping the last stretch).
pub(crate) fn tail(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let mut file = open_path(path)?;
    match kind_of(&file) {
        Kind::Lines => {
            let len = file.metadata()?.len();
            io::Seek::seek(&mut file, io::SeekFrom::Start(len.saturating_sub(limit)))?;
            let mut out = Vec::new();
            file.take(limit).read_to_end(&mut out)?;
            Ok(out)
        }
        Kind::Zstd => {
            let mut decoder = zstd::stream::read::Decoder::new(file)?;
            let limit = usize::try_from(limit).unwrap_or(usize::MAX);
            let (mut kept, mut block) = (Vec::new(), vec![0u8; 64 << 10]);
            loop {
                let n = decoder.read(&mut block)?;
                if n == 0 {
                    return Ok(kept);
                }
                kept.extend_from_slice(&block[..n]);
                if kept.len() > 2 * limit {
                    kept.drain(..kept.len() - limit);
                }
            }
        }
        Kind::Sqlite => Ok(Vec::new()),
    }
}

/// The ids of a database's sessions that start with `prefix`.
pub(crate) fn database_sessions(path: &Path, prefix: &str) -> Vec<String> {
    let Ok((_dir, copy)) = private_copy(path) else {
        return Vec::new();
    };
    crate::agent::opencode::db::session_ids(&copy, prefix).unwrap_or_default()
}

fn database(path: &Path, pick: &Pick) -> io::Result<Opened> {
    let (dir, copy) = private_copy(path)?;
    let lines = crate::agent::opencode::db::lines(dir, &copy, pick.clone())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    Ok(Opened::Made(Box::new(lines)))
}

/// A copy of a SQLite database and its write-ahead log in a temporary folder of our own
/// (removed when the folder is dropped).
pub(crate) fn private_copy(path: &Path) -> io::Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::Builder::new()
        .prefix("cursor-stream-db-")
        .tempdir()?;
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let copy = dir.path().join(name);
    let wal = wal_of(path);
    let wal_copy = wal_of(&copy);
    // A checkpoint that restarts the log between the two copies would pair an old
    // database with a new log: the log's header (its salts) must not change meanwhile.
    for _ in 0..5 {
        let before = wal_header(&wal);
        copy_file(path, &copy)?;
        let _ = std::fs::remove_file(&wal_copy);
        if before.is_some() {
            copy_file(&wal, &wal_copy)?;
        }
        if wal_header(&wal) == before {
            return Ok((dir, copy));
        }
    }
    Err(io::Error::other(
        "the database kept changing while it was copied; try again",
    ))
}

fn wal_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

fn wal_header(wal: &Path) -> Option<[u8; 32]> {
    let mut header = [0u8; 32];
    let file = File::open(wal).ok()?;
    let n = read_start(&file, &mut header).ok()?;
    (n == 32).then_some(header)
}

/// Copies the bytes only (read-only on the source: no metadata or times change there).
fn copy_file(from: &Path, to: &Path) -> io::Result<()> {
    let mut src = File::open(from)?;
    let mut dst = File::create(to)?;
    io::copy(&mut src, &mut dst)?;
    Ok(())
}

//! Files as an agent's store holds them: what a file is by its first bytes (lines, zstd,
//! SQLite), its first and last stretch of lines (decompressed), and a private copy of a
//! database. Nothing here writes beside a store, moves a file's position, or takes a lock.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::open_path;
use super::parts::Parts;

/// What the reading thread reads.
pub(crate) enum Opened {
    /// A regular file of lines, as it is: its offsets are the input's.
    Plain(File),
    /// Lines made from something else (a decompressed file, a database's rows, stdin).
    Made(Box<dyn Read + Send>),
    /// Lines of several files, one after another's (a session log with its sub-agents'
    /// logs read in): `parts` says which file each line is from.
    Spliced(Box<dyn Read + Send>, Parts),
}

impl Opened {
    /// The bytes to read, and which file each line is from when they are several's.
    pub(crate) fn into_read(self) -> (Box<dyn Read + Send>, Option<Parts>) {
        match self {
            Opened::Plain(file) => (Box::new(file), None),
            Opened::Made(rdr) => (rdr, None),
            Opened::Spliced(rdr, parts) => (rdr, Some(parts)),
        }
    }
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];
const SQLITE_MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// What a file holds, by its first bytes (whatever its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Lines,
    /// Compressed with zstd (Codex compresses rollouts idle for a week).
    Zstd,
    /// A SQLite database.
    Sqlite,
}

pub(crate) fn kind_of(file: &File) -> Kind {
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
pub(crate) fn read_start(file: &File, buf: &mut [u8]) -> io::Result<usize> {
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
pub(crate) fn read_start(_file: &File, _buf: &mut [u8]) -> io::Result<usize> {
    Ok(0)
}

/// A zstd-compressed file's lines, decompressed as they are read.
pub(crate) fn decompressed(file: File) -> io::Result<Opened> {
    Ok(Opened::Made(Box::new(zstd::stream::read::Decoder::new(
        file,
    )?)))
}

/// The first `limit` bytes of a file's lines (decompressed; none of a database's).
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

/// The last `limit` bytes of a file's lines (or up to twice as many; a compressed file is
/// read through to its end, keeping the last stretch; none of a database's).
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

/// A copy of a SQLite database and its write-ahead log in a temporary folder of our own
/// (removed when the folder is dropped).
///
/// A database is never opened where it lies: SQLite would take locks, and a read-only
/// open still creates the `-wal` and `-shm` files beside it when they are missing. The
/// copy takes the write-ahead log too (it holds the rows a running agent has not yet
/// checkpointed), and a copy whose log was restarted meanwhile is taken again: a copy
/// taken while the agent writes is consistent.
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

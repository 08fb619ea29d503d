//! The input side, which knows no agent: opening the inputs, `--tee`, the line splitter,
//! the reading thread and its cheap peek at each line's `type`.

pub(crate) mod fast_de;
pub(crate) mod file;
pub(crate) mod follow;
pub(crate) mod json;
pub(crate) mod lenient;
pub(crate) mod line_buffer;
pub(crate) mod parts;
pub(crate) mod peek;
pub(crate) mod reader;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// One input, in the order given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Input {
    Stdin,
    Path(PathBuf),
    /// A database that holds many sessions (OpenCode's), read for those `pick` chooses.
    Database {
        path: PathBuf,
        pick: Pick,
    },
    /// A file read from a line on (its number, and its offset in bytes): a resumed
    /// session's log without the copy of the session it resumed (`copy_of`), read apart.
    /// Where the copy ends is found when the file is opened (`stores::open`), by the
    /// thread that reads it.
    Rest {
        path: PathBuf,
        copy_of: PathBuf,
        first_line: std::sync::OnceLock<(u64, u64)>,
    },
}

/// Which of a database's sessions are read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pick {
    /// The session's id (or all).
    pub id: Option<String>,
    /// Sessions changed at or after this time (epoch ms).
    pub since_ms: Option<i64>,
    /// Sessions started at or before this time (epoch ms).
    pub until_ms: Option<i64>,
    /// Sessions whose working directory is this one or below.
    pub project: Option<PathBuf>,
}

impl Input {
    pub(crate) fn name(&self) -> String {
        match self {
            Input::Stdin => "<stdin>".to_string(),
            Input::Path(p) | Input::Database { path: p, .. } | Input::Rest { path: p, .. } => {
                p.display().to_string()
            }
        }
    }

    /// The number and offset of the first line read: `(1, 0)` but for [`Input::Rest`]
    /// once opened.
    pub(crate) fn first_line(&self) -> (u64, u64) {
        match self {
            Input::Rest { first_line, .. } => first_line.get().copied().unwrap_or((1, 0)),
            _ => (1, 0),
        }
    }
}

/// Standard input, ready to be read on the reading thread.
pub(crate) fn stdin() -> Box<dyn Read + Send> {
    enlarge_stdin_pipe();
    Box::new(io::stdin())
}

/// A named input, opened; a directory is refused.
pub(crate) fn open_path(path: &std::path::Path) -> io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    Ok(file)
}

/// A pipe holds 64 KiB by default, so a reader behind a fast producer gets at most that
/// per read and pays a system call and a wake-up for each; 1 MiB reads pay for them 16
/// times less often. Nothing changes for a slow producer: a read still returns as soon as
/// a line is there. Not a pipe, or not allowed: nothing happens.
#[cfg(target_os = "linux")]
fn enlarge_stdin_pipe() {
    const PIPE_SIZE: usize = 1 << 20;
    let _ = rustix::pipe::fcntl_setpipe_size(io::stdin(), PIPE_SIZE);
}

#[cfg(not(target_os = "linux"))]
fn enlarge_stdin_pipe() {}

/// Copies every byte read to a file, before the views see it: a user watching `text`
/// keeps the whole log. Unbuffered, so the copy is complete up to the last read even if
/// the program is killed; that is one write per read, not per line.
pub(crate) struct Tee<R> {
    inner: R,
    /// Shared by the inputs read one after the other, each on its reading thread.
    copy: Option<Arc<File>>,
}

impl<R: Read> Tee<R> {
    pub(crate) fn new(inner: R, copy: Option<Arc<File>>) -> Self {
        Tee { inner, copy }
    }
}

impl<R: Read> Read for Tee<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(copy) = &self.copy {
            (&**copy)
                .write_all(&buf[..n])
                .map_err(|e| io::Error::new(e.kind(), format!("writing the --tee copy: {e}")))?;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tee_copies_what_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("copy.ndjson");
        let file = Arc::new(File::create(&path).unwrap());
        let mut tee = Tee::new(&b"line one\nline two"[..], Some(file));
        let mut got = Vec::new();
        tee.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"line one\nline two");
        assert_eq!(std::fs::read(&path).unwrap(), b"line one\nline two");
    }
}

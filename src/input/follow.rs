//! `--follow`: a log read as `tail -F` reads it — on as it grows, from its start again when
//! it is truncated or replaced (a new file at the same path) — and, with `--from AGENT`,
//! the agent's newest session, then the next one when it starts.
//!
//! At the end of the file the reader waits, looking again every [`POLL`]: a read that waits
//! is what a slow pipe gives, so the views flush what they have and go on at the next line,
//! as with a live stream. A stat every tenth of a second costs nothing, works on every file
//! system (a network share included, where change notifications do not), and keeps each line
//! at most that late. A line cut at the end waits for the rest of it, as the line splitter
//! waits for any line's end. `--idle` ends the reading after so long with nothing new: the
//! view then ends as it would at the end of the file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the end of a followed file is looked at again.
pub(crate) const POLL: Duration = Duration::from_millis(100);
/// How often the agent's store is listed again for a newer session (with `--from`).
pub(crate) const RESCAN: Duration = Duration::from_secs(1);

/// What `--follow` asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Follow {
    /// End after so long with nothing new.
    pub idle: Option<Duration>,
}

/// A file's identity: a file replaced at its path (log rotation, an editor's save) has
/// another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    #[cfg(unix)]
    dev: u64,
    #[cfg(unix)]
    ino: u64,
    #[cfg(not(unix))]
    created: Option<std::time::SystemTime>,
}

fn identity(meta: &std::fs::Metadata) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
    #[cfg(not(unix))]
    {
        Identity {
            created: meta.created().ok(),
        }
    }
}

/// Says, given the file followed, whether a newer session has started.
type MovedOn = Box<dyn FnMut(&Path) -> bool + Send>;

/// How long a cut last line (its writer gone, or slow) holds the reading on its file before
/// another session may be moved to: the line is then read whole when the file is gone
/// back to.
const CUT_LINE_WAIT: Duration = Duration::from_secs(5);

/// Where a followed file's reading got to. Shared, so that whoever opened the file can go
/// on from there later.
#[derive(Debug, Clone, Default)]
pub(crate) struct Left(Arc<Mutex<LeftAt>>);

#[derive(Debug, Clone, Copy, Default)]
struct LeftAt {
    /// The number and byte offset of the first line not read whole.
    line: (u64, u64),
    /// How far the bytes were read (past `line` when a cut line was).
    read_to: u64,
    /// The file read: another at the path was not.
    id: Option<Identity>,
}

impl Left {
    /// Where to go on reading the file at `path` now, if it has something not read: from
    /// the first line not read whole; from its start when it was cut or replaced since.
    pub(crate) fn go_on(&self, path: &Path) -> Option<(u64, u64)> {
        let at = self.at();
        let meta = std::fs::metadata(path).ok()?;
        let replaced = at.id.is_some_and(|id| id != identity(&meta));
        if replaced || meta.len() < at.line.1 {
            return (meta.len() > 0).then_some((1, 0));
        }
        (meta.len() > at.read_to).then_some(at.line)
    }

    fn at(&self) -> LeftAt {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, at: LeftAt) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = at;
    }
}

/// A file followed as it grows. Ends (a read of 0) only when it has been idle for
/// `follow.idle`, or when `moved_on` says a newer session has started.
pub(crate) struct Followed {
    path: PathBuf,
    file: File,
    /// Where the next read starts.
    at: u64,
    /// The first line not read whole: its number and offset.
    line: (u64, u64),
    left: Left,
    id: Identity,
    follow: Follow,
    last_news: Instant,
    moved_on: Option<MovedOn>,
    last_scan: Instant,
}

impl Followed {
    /// Follows the file at `path`, from its start.
    pub(crate) fn open(path: &Path, follow: Follow) -> io::Result<Followed> {
        Followed::open_at(path, (1, 0), follow)
    }

    /// Follows the file at `path` once it is there, as `tail -F` waits for a file not yet
    /// made (an agent about to write its log); with `--idle`, not longer than that.
    pub(crate) fn wait_for(path: &Path, follow: Follow) -> io::Result<Followed> {
        let since = Instant::now();
        loop {
            match Followed::open(path, follow.clone()) {
                Err(e)
                    if e.kind() == io::ErrorKind::NotFound
                        && follow.idle.is_none_or(|idle| since.elapsed() < idle) =>
                {
                    std::thread::sleep(POLL);
                }
                opened => return opened,
            }
        }
    }

    /// Follows the file at `path` from line `line` (its number and offset) on: a resumed
    /// session's log after its copy of the one it resumed, a log followed before from where
    /// it was left. Cut or replaced, it is read from its start again.
    pub(crate) fn open_at(path: &Path, line: (u64, u64), follow: Follow) -> io::Result<Followed> {
        let mut file = crate::input::open_path(path)?;
        let id = identity(&file.metadata()?);
        file.seek(SeekFrom::Start(line.1))?;
        let left = Left::default();
        left.set(LeftAt {
            line,
            read_to: line.1,
            id: Some(id),
        });
        Ok(Followed {
            path: path.to_path_buf(),
            file,
            at: line.1,
            line,
            left,
            id,
            follow,
            last_news: Instant::now(),
            moved_on: None,
            last_scan: Instant::now(),
        })
    }

    /// Where the reading gets to, as it goes.
    pub(crate) fn left(&self) -> Left {
        self.left.clone()
    }

    /// Ends this file once `moved_on(path)` says so (looked at every [`RESCAN`] while the
    /// file is idle, between two lines): another session is to be followed.
    pub(crate) fn until(mut self, moved_on: impl FnMut(&Path) -> bool + Send + 'static) -> Self {
        self.moved_on = Some(Box::new(moved_on));
        self
    }

    /// At the end of the file: from the start again if it was truncated or replaced.
    /// Returns whether there may be something new to read.
    fn reopened(&mut self) -> io::Result<bool> {
        let Ok(meta) = std::fs::metadata(&self.path) else {
            // Gone for now (moved away before its replacement is written): wait.
            return Ok(false);
        };
        if identity(&meta) != self.id {
            let file = crate::input::open_path(&self.path)?;
            self.id = identity(&file.metadata()?);
            self.file = file;
            self.restart();
            return Ok(true);
        }
        if meta.len() < self.at {
            self.file.seek(SeekFrom::Start(0))?;
            self.restart();
            return Ok(true);
        }
        Ok(meta.len() > self.at)
    }

    /// From the file's start again.
    fn restart(&mut self) {
        self.at = 0;
        self.line = (1, 0);
        self.note_left();
    }

    /// Counts the lines that `bytes`, just read, end.
    fn read_on(&mut self, bytes: &[u8]) {
        if let Some(last) = memchr::memrchr(b'\n', bytes) {
            let ends = memchr::memchr_iter(b'\n', bytes).count() as u64;
            self.line = (self.line.0 + ends, self.at + last as u64 + 1);
        }
        self.at += bytes.len() as u64;
        self.note_left();
    }

    fn note_left(&self) {
        self.left.set(LeftAt {
            line: self.line,
            read_to: self.at,
            id: Some(self.id),
        });
    }

    /// Whether the reading ends here: idle too long, or another session is to be followed
    /// (never within a line: the rest of it is waited for).
    fn over(&mut self) -> bool {
        if self
            .follow
            .idle
            .is_some_and(|idle| self.last_news.elapsed() >= idle)
        {
            return true;
        }
        let between_lines = self.at == self.line.1 || self.last_news.elapsed() >= CUT_LINE_WAIT;
        if self.last_scan.elapsed() >= RESCAN
            && between_lines
            && let Some(moved_on) = &mut self.moved_on
        {
            self.last_scan = Instant::now();
            return moved_on(&self.path);
        }
        false
    }
}

impl Read for Followed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.file.read(buf)?;
            if n > 0 {
                self.read_on(&buf[..n]);
                self.last_news = Instant::now();
                return Ok(n);
            }
            if self.reopened()? {
                continue;
            }
            if self.over() {
                return Ok(0);
            }
            std::thread::sleep(POLL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn follow(idle_ms: u64) -> Follow {
        Follow {
            idle: Some(Duration::from_millis(idle_ms)),
        }
    }

    #[test]
    fn a_growing_file_is_read_on_and_ends_when_idle() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "one\n").unwrap();
        let mut f = Followed::open(&path, follow(600)).unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                let mut file = std::fs::OpenOptions::new()
                    .append(true)
                    .open(&path)
                    .unwrap();
                file.write_all(b"two\n").unwrap();
            })
        };
        let mut got = String::new();
        f.read_to_string(&mut got).unwrap();
        writer.join().unwrap();
        assert_eq!(got, "one\ntwo\n");
    }

    #[test]
    fn where_the_reading_got_to_is_the_first_line_not_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "one\ntwo\nthr").unwrap();
        let mut f = Followed::open_at(&path, (1, 0), follow(200)).unwrap();
        let left = f.left();
        let mut got = String::new();
        f.read_to_string(&mut got).unwrap();
        // Nothing new: not gone back to (a cut line read is no news).
        assert_eq!(left.go_on(&path), None, "{got:?}");
        // Its line ended: gone back to from that line's start, read whole.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(b"ee\n").unwrap();
        assert_eq!(left.go_on(&path), Some((3, 8)));
        let mut f = Followed::open_at(&path, (3, 8), follow(200)).unwrap();
        got.clear();
        f.read_to_string(&mut got).unwrap();
        assert_eq!(got, "three\n");
        // Replaced by a shorter file: from its start.
        let new = path.with_extension("new");
        std::fs::write(&new, "x\n").unwrap();
        std::fs::rename(&new, &path).unwrap();
        assert_eq!(left.go_on(&path), Some((1, 0)));
    }

    #[test]
    fn a_truncated_or_replaced_file_is_read_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        std::fs::write(&path, "first version, long\n").unwrap();
        let mut f = Followed::open(&path, follow(800)).unwrap();
        let writer = {
            let path = path.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(200));
                std::fs::write(&path, "cut\n").unwrap(); // truncated, then written
                std::thread::sleep(Duration::from_millis(300));
                let new = path.with_extension("new");
                std::fs::write(&new, "replaced\n").unwrap();
                std::fs::rename(&new, &path).unwrap();
            })
        };
        let mut got = String::new();
        f.read_to_string(&mut got).unwrap();
        writer.join().unwrap();
        assert_eq!(got, "first version, long\ncut\nreplaced\n");
    }
}

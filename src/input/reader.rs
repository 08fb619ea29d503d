//! The reading thread: reads, splits and peeks lines while the views work on earlier ones.
//!
//! The machine has two cores and the work splits in two about evenly: the read (a copy
//! out of the kernel), finding the newlines and peeking each line's type on one side; the
//! views' parsing and writing on the other. The thread hands over whole buffers — the
//! lines are not copied — with each line's place and its peeked type, and the dispatcher
//! gives the buffers back to be refilled. There are never more than `BUFFERS` buffers, so
//! memory stays bounded by a few times the larger of a buffer and the longest line.
//!
//! A batch is sent as soon as a read has produced a complete line, so a live producer's
//! delta reaches the views at once; the dispatcher flushes its output when no batch is
//! waiting, just before it blocks.
//!
//! A large regular file is not read but mapped, a window at a time ([`Reader::spawn_mapped`]):
//! the lines are split and peeked where the kernel keeps the file, with no copy. Measured
//! here on a 1 GiB log in the page cache, the copy of `read(2)` cost 0.10–0.12 s of the
//! reading thread's time, about a third of it; mapping the same bytes in 4 MiB windows
//! costs under 0.02 s.

use std::fs::File;
use std::io::{self, Read};
use std::ops::{Deref, Range};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};

use memmap2::{Mmap, MmapOptions};

use super::line_buffer::{self, Line, LineReader, LineTooLong};
use super::peek::{Peeked, peek};

/// Buffers in circulation: one being read into, one waiting, one with the views.
const BUFFERS: usize = 3;

/// Windows of a mapped file in circulation: one being split, one with the views. Each
/// counts in the resident memory while mapped, so there are fewer than buffers.
const WINDOWS: usize = 2;

/// The lines of one or more reads, in the buffer that holds them.
pub(crate) struct Batch {
    data: Data,
    pub lines: Vec<LineInfo>,
}

/// Where a batch's bytes are.
enum Data {
    Read(Vec<u8>),
    Mapped(Mmap),
}

impl Deref for Data {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Data::Read(buf) => buf,
            Data::Mapped(map) => map,
        }
    }
}

/// Where a line is in its batch, and what its peek found.
pub(crate) struct LineInfo {
    raw: Range<usize>,
    bytes: Range<usize>,
    pub number: u64,
    pub unterminated: bool,
    pub peeked: Peeked,
}

impl Batch {
    pub fn line(&self, info: &LineInfo) -> Line<'_> {
        Line {
            bytes: &self.data[info.bytes.clone()],
            raw: &self.data[info.raw.clone()],
            raw_start: info.raw.start,
            bytes_start: info.bytes.start,
            number: info.number,
            unterminated: info.unterminated,
        }
    }
}

/// What the dispatcher holds of the reading thread.
pub(crate) struct Reader {
    batches: Receiver<io::Result<Batch>>,
    spares: Sender<Batch>,
    /// Joined once the thread has said it is done, so that no thread outlives a whole
    /// input. A thread blocked in a read (the views stopped early) is left to the end of
    /// the process instead: joining it could wait for ever on a silent producer.
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The next batch, or why there is none.
pub(crate) enum Next {
    Batch(Batch),
    /// None is ready; the next `wait` may block.
    NotYet,
    End,
}

impl Reader {
    /// Starts reading `rdr` on its own thread. The thread ends at the end of the input, at
    /// a read error (passed on), or when the `Reader` is dropped and it next sends.
    pub fn spawn<R: Read + Send + 'static>(
        rdr: R,
        buffer_size: usize,
        max_line: Option<usize>,
    ) -> io::Result<Reader> {
        Self::spawn_with(move |batch_tx, spare_rx| {
            let lines = LineReader::with_capacity(rdr, buffer_size).max_line(max_line);
            read_lines(lines, buffer_size, batch_tx, spare_rx)
        })
    }

    /// Starts reading a regular file through a mapping, `window` bytes at a time (more for
    /// a longer line). The lines, their numbers and the errors are those [`Reader::spawn`]
    /// gives for the same file; a file that cannot be mapped is read instead.
    ///
    /// A file cut shorter while it is mapped makes the process fail with SIGBUS, as it
    /// does ripgrep; `--no-mmap` reads instead.
    pub fn spawn_mapped(
        file: File,
        window: usize,
        buffer_size: usize,
        max_line: Option<usize>,
    ) -> io::Result<Reader> {
        Self::spawn_with(move |batch_tx, spare_rx| {
            let mut mapped = Mapped {
                file,
                len: 0,
                offset: 0,
                number: 0,
                window: window.max(1),
                max_line,
            };
            match mapped.read(&batch_tx, spare_rx) {
                Ok(()) => {}
                // Nothing was handed out yet: the file is read the usual way.
                Err(Unmappable(spare_rx)) => {
                    let lines =
                        LineReader::with_capacity(mapped.file, buffer_size).max_line(max_line);
                    read_lines(lines, buffer_size, batch_tx, spare_rx)
                }
            }
        })
    }

    fn spawn_with(
        body: impl FnOnce(SyncSender<io::Result<Batch>>, Receiver<Batch>) + Send + 'static,
    ) -> io::Result<Reader> {
        let (batch_tx, batches) = mpsc::sync_channel(BUFFERS);
        let (spares, spare_rx) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("cursor-stream reader".into())
            .spawn(move || body(batch_tx, spare_rx))?;
        Ok(Reader {
            batches,
            spares,
            thread: Some(thread),
        })
    }

    /// A batch if one is ready, without blocking.
    pub fn poll(&mut self) -> io::Result<Next> {
        match self.batches.try_recv() {
            Ok(batch) => batch.map(Next::Batch),
            Err(TryRecvError::Empty) => Ok(Next::NotYet),
            Err(TryRecvError::Disconnected) => {
                self.join();
                Ok(Next::End)
            }
        }
    }

    /// The next batch, waiting for it.
    pub fn wait(&mut self) -> io::Result<Option<Batch>> {
        match self.batches.recv() {
            Ok(batch) => batch.map(Some),
            Err(_) => {
                self.join();
                Ok(None)
            }
        }
    }

    /// The channel is closed: the thread has returned, or is about to.
    fn join(&mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    /// Gives a batch's buffers back to be filled again.
    pub fn recycle(&self, batch: Batch) {
        let _ = self.spares.send(batch);
    }
}

fn read_lines<R: Read>(
    mut reader: LineReader<R>,
    buffer_size: usize,
    batches: SyncSender<io::Result<Batch>>,
    spares: Receiver<Batch>,
) {
    let mut lines = Vec::new();
    let mut pool = Pool {
        spares,
        free: Vec::new(),
        allocated: 1,
        lent: 0,
        buffer_size,
        limit: BUFFERS,
    };
    loop {
        match reader.fill() {
            Ok(true) => {}
            Ok(false) => return,
            Err(e) => {
                let _ = batches.send(Err(e));
                return;
            }
        }
        while let Some(line) = reader.next_line() {
            lines.push(LineInfo {
                raw: line.raw_start..line.raw_start + line.raw.len(),
                bytes: line.bytes_start..line.bytes_start + line.bytes.len(),
                number: line.number,
                unterminated: line.unterminated,
                peeked: peek(line.bytes),
            });
        }
        if lines.is_empty() {
            continue;
        }
        let Some(spare) = pool.take() else { return };
        let mut spare_lines = spare.lines;
        spare_lines.clear();
        let spare_data = match spare.data {
            Data::Read(buf) => buf,
            Data::Mapped(_) => Vec::new(),
        };
        let batch = Batch {
            data: Data::Read(reader.hand_over(spare_data)),
            lines: std::mem::replace(&mut lines, spare_lines),
        };
        let long_line = batch.data.len() > 2 * buffer_size;
        if batches.send(Ok(batch)).is_err() {
            return;
        }
        pool.lent += 1;
        // A buffer that grew for a long line is not read ahead of: reading the next long
        // line while the views still hold this one would double the memory it takes.
        if long_line && !pool.wait_for_all() {
            return;
        }
    }
}

/// The buffers: those free here, and how many the views hold.
struct Pool {
    spares: Receiver<Batch>,
    free: Vec<Batch>,
    allocated: usize,
    lent: usize,
    buffer_size: usize,
    /// How many may exist.
    limit: usize,
}

impl Pool {
    /// A buffer to read into: a free one, a new one while fewer than `BUFFERS` exist, or
    /// the next one the views give back. `None` when the views are gone.
    fn take(&mut self) -> Option<Batch> {
        self.collect_returned();
        if let Some(batch) = self.free.pop() {
            return Some(batch);
        }
        if self.allocated < self.limit {
            self.allocated += 1;
            return Some(Batch {
                data: Data::Read(Vec::new()),
                lines: Vec::new(),
            });
        }
        let batch = self.spares.recv().ok()?;
        self.lent -= 1;
        Some(self.trimmed(batch))
    }

    fn collect_returned(&mut self) {
        while let Ok(batch) = self.spares.try_recv() {
            self.lent -= 1;
            let batch = self.trimmed(batch);
            self.free.push(batch);
        }
    }

    /// A buffer that grew for a long line is let go at once, not kept in circulation; a
    /// window of a mapped file is unmapped.
    fn trimmed(&self, mut batch: Batch) -> Batch {
        if matches!(batch.data, Data::Mapped(_)) || batch.data.len() > 2 * self.buffer_size {
            batch.data = Data::Read(Vec::new());
        }
        batch
    }

    /// Waits until the views hold no buffer; `false` when they are gone.
    fn wait_for_all(&mut self) -> bool {
        while self.lent > 0 {
            match self.spares.recv() {
                Ok(batch) => {
                    self.lent -= 1;
                    let batch = self.trimmed(batch);
                    self.free.push(batch);
                }
                Err(_) => return false,
            }
        }
        true
    }
}

/// A regular file read through windows mapped one after another. Each window starts
/// where the previous one's last complete line ended and holds at least one line whole:
/// a longer line makes it grow.
struct Mapped {
    file: File,
    /// The file's length as last seen: a file that grows while it is read is read on.
    len: u64,
    /// Where the next line starts.
    offset: u64,
    /// Lines handed out so far.
    number: u64,
    window: usize,
    max_line: Option<usize>,
}

/// The file could not be mapped, before anything was handed out.
struct Unmappable(Receiver<Batch>);

impl Mapped {
    fn read(
        &mut self,
        batches: &SyncSender<io::Result<Batch>>,
        spares: Receiver<Batch>,
    ) -> Result<(), Unmappable> {
        match self.file.metadata() {
            Ok(meta) => self.len = meta.len(),
            Err(_) => return Err(Unmappable(spares)),
        }
        let mut pool = Pool {
            spares,
            free: Vec::new(),
            allocated: 0,
            lent: 0,
            buffer_size: self.window,
            limit: WINDOWS,
        };
        loop {
            // A window is only mapped once one of the views' is given back: no more than
            // `WINDOWS` are ever mapped.
            let Some(spare) = pool.take() else {
                return Ok(());
            };
            let map = match self.next_window() {
                Ok(Some(map)) => map,
                Ok(None) => return Ok(()),
                Err(_) if self.offset == 0 => return Err(Unmappable(pool.spares)),
                Err(e) => {
                    let _ = batches.send(Err(e));
                    return Ok(());
                }
            };
            let mut lines = spare.lines;
            lines.clear();
            let too_long = self.split(&map, &mut lines);
            let long_line = map.len() > 2 * self.window;
            if !lines.is_empty() {
                let batch = Batch {
                    data: Data::Mapped(map),
                    lines,
                };
                if batches.send(Ok(batch)).is_err() {
                    return Ok(());
                }
                pool.lent += 1;
            }
            if let Some(e) = too_long {
                let _ = batches.send(Err(e));
                return Ok(());
            }
            // As for a read buffer: a window grown for a long line is not mapped ahead of.
            if long_line && !pool.wait_for_all() {
                return Ok(());
            }
        }
    }

    /// The window from `offset`: one that ends with a complete line (`\n`), or that holds
    /// the rest of the file. `None` at the end of the file.
    fn next_window(&mut self) -> io::Result<Option<Mmap>> {
        let mut size = self.window;
        loop {
            let left = self.len - self.offset;
            let take = left.min(size as u64) as usize;
            if take == 0 {
                if !self.grew()? {
                    return Ok(None);
                }
                continue;
            }
            // SAFETY: the mapping is only read. Another process may change the file
            // under it; the bytes read are then some mix of old and new (as with reads),
            // and a file cut shorter raises SIGBUS: documented with `--no-mmap`.
            let map = unsafe {
                MmapOptions::new()
                    .offset(self.offset)
                    .len(take)
                    .map(&self.file)?
            };
            let _ = map.advise(memmap2::Advice::Sequential);
            if memchr::memrchr(b'\n', &map).is_some() {
                return Ok(Some(map));
            }
            if take as u64 == left {
                // The last line has no `\n` yet; it may still be coming.
                if self.grew()? {
                    continue;
                }
                return Ok(Some(map));
            }
            if let Some(limit) = self.max_line.filter(|&limit| take > limit) {
                return Err(LineTooLong::error(limit, self.number + 1));
            }
            size = size.saturating_mul(2);
        }
    }

    /// Whether the file is longer than when last seen.
    fn grew(&mut self) -> io::Result<bool> {
        let len = self.file.metadata()?.len();
        let grew = len > self.len;
        self.len = self.len.max(len);
        Ok(grew)
    }

    /// The window's complete lines (all of them when it reaches the end of the file),
    /// as `LineReader` would hand them out; the error for a line over `--max-line`, after
    /// the lines before it.
    fn split(&mut self, map: &[u8], lines: &mut Vec<LineInfo>) -> Option<io::Error> {
        let at_end = self.offset + map.len() as u64 >= self.len;
        let complete = match memchr::memrchr(b'\n', map) {
            Some(i) if !at_end || i + 1 == map.len() => i + 1,
            _ => map.len(),
        };
        let mut pos = 0;
        while pos < complete {
            let (end, next, unterminated) = match memchr::memchr(b'\n', &map[pos..complete]) {
                Some(i) => (pos + i, pos + i + 1, false),
                None => (complete, complete, true),
            };
            let bom = if self.offset == 0 && pos == 0 {
                line_buffer::bom_len(map)
            } else {
                0
            };
            let content = pos + bom;
            let end = line_buffer::without_cr(map, content, end);
            if let Some(limit) = self.max_line.filter(|&limit| end - pos > limit) {
                self.offset += pos as u64;
                return Some(LineTooLong::error(limit, self.number + 1));
            }
            self.number += 1;
            lines.push(LineInfo {
                raw: pos..next,
                bytes: content..end,
                number: self.number,
                unterminated,
                peeked: peek(&map[content..end]),
            });
            pos = next;
        }
        self.offset += complete as u64;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::peek::NameId;

    fn all_lines(input: &'static [u8]) -> Vec<(String, Option<NameId>)> {
        let mut reader = Reader::spawn(input, 16, None).unwrap();
        let mut out = Vec::new();
        while let Some(batch) = reader.wait().unwrap() {
            for info in &batch.lines {
                let kind = match &info.peeked {
                    Peeked::Event(head) => Some(head.name),
                    _ => None,
                };
                out.push((
                    String::from_utf8_lossy(batch.line(info).bytes).into_owned(),
                    kind,
                ));
            }
            reader.recycle(batch);
        }
        out
    }

    #[test]
    fn lines_arrive_in_order_with_their_peek() {
        let got = all_lines(b"{\"type\":\"user\"}\n\nbanner\n{\"type\":\"result\"}");
        assert_eq!(
            got,
            vec![
                (r#"{"type":"user"}"#.to_string(), Some(NameId::USER)),
                (String::new(), None),
                ("banner".to_string(), None),
                (r#"{"type":"result"}"#.to_string(), Some(NameId::RESULT)),
            ]
        );
    }

    /// A line's bytes, raw bytes, number and whether it ended without `\n`.
    type Seen = (Vec<u8>, Vec<u8>, u64, bool);

    /// Every line as read from `reader`, then the error that ended the input, if any.
    fn drain(mut reader: Reader) -> (Vec<Seen>, Option<String>) {
        let mut out = Vec::new();
        loop {
            match reader.wait() {
                Ok(Some(batch)) => {
                    for info in &batch.lines {
                        let line = batch.line(info);
                        out.push((
                            line.bytes.to_vec(),
                            line.raw.to_vec(),
                            line.number,
                            line.unterminated,
                        ));
                    }
                    reader.recycle(batch);
                }
                Ok(None) => return (out, None),
                Err(e) => return (out, Some(e.to_string())),
            }
        }
    }

    /// A mapped file gives the lines of the same file read, whatever the window: a byte
    /// order mark, `\r\n`, empty lines, lines longer than the window, a last line without
    /// `\n`, and `--max-line`.
    #[test]
    fn a_mapped_file_gives_the_lines_a_read_one_gives() {
        let mut data = b"\xEF\xBB\xBF{\"type\":\"user\"}\r\n\n\r\nbanner\n".to_vec();
        for i in 0..300u32 {
            let len = (i * 37) % 700;
            data.extend(std::iter::repeat_n(b'a' + (i % 26) as u8, len as usize));
            data.extend_from_slice(if i % 3 == 0 { b"\r\n" } else { b"\n" });
        }
        data.extend_from_slice(b"{\"type\":\"result\"}");
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in [
            ("all", &data[..]),
            ("terminated", &data[..data.len() - 17]),
            ("bom only", &data[..3]),
            ("empty", &data[..0]),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            for max_line in [None, Some(600)] {
                let read = Reader::spawn(File::open(&path).unwrap(), 64, max_line).unwrap();
                let want = drain(read);
                assert!(want.0.len() > 3 || bytes.len() < 20, "{name}");
                for window in [1, 7, 64, 4096, 1 << 20] {
                    let file = File::open(&path).unwrap();
                    let mapped = Reader::spawn_mapped(file, window, 64, max_line).unwrap();
                    assert_eq!(drain(mapped), want, "{name}, window {window}, {max_line:?}");
                }
            }
        }
    }

    #[test]
    fn a_read_error_is_passed_on() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut reader = Reader::spawn(Failing, 16, None).unwrap();
        let err = reader.wait().err().unwrap();
        assert_eq!(err.to_string(), "disk on fire");
    }
}

//! The reading thread: reads, splits and peeks lines while the views work on earlier ones.
//!
//! The machine has two cores and the work splits in two about evenly: the read (a copy
//! out of the kernel), finding the newlines and peeking each line's type on one side; the
//! views' parsing and writing on the other. The thread hands over whole buffers — the
//! lines are not copied — with each line's place and its peeked type, and the dispatcher
//! gives the buffers back to be refilled. There are never more than a few buffers
//! (`BUFFERS`, more for the workers of `crate::parallel::split`), so memory stays bounded
//! by a few times the larger of a buffer and the longest line.
//!
//! A batch is sent as soon as a read has produced a complete line, so a live producer's
//! delta reaches the views at once; the dispatcher flushes its output when no batch is
//! waiting, just before it blocks.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};

use super::line_buffer::{Line, LineReader};
use super::peek::{Peeked, TypeSet, peek};

/// Buffers in circulation: one being read into, one waiting, one with the views.
const BUFFERS: usize = 3;

/// How to read: the buffers' size and number, the line limit, and where in the input
/// the reading starts.
#[derive(Clone, Copy)]
pub(crate) struct Setup {
    pub buffer_size: usize,
    pub max_line: Option<usize>,
    /// Buffers in circulation (more when several threads hold batches at once).
    pub buffers: usize,
    /// The first line's number and its offset in bytes: `(1, 0)` but for a reading
    /// resumed in the middle of a file.
    pub first_line: (u64, u64),
    /// The event types whose lines are checked whole (see [`peek`]).
    pub checked: TypeSet,
}

impl Setup {
    pub(crate) fn new(buffer_size: usize, max_line: Option<usize>, checked: TypeSet) -> Setup {
        Setup {
            buffer_size,
            max_line,
            buffers: BUFFERS,
            first_line: (1, 0),
            checked,
        }
    }
}

/// The lines of one or more reads, in the buffer that holds them.
pub(crate) struct Batch {
    data: Vec<u8>,
    /// Where `data` starts in the input, in bytes.
    start: u64,
    pub lines: Vec<LineInfo>,
}

/// Where a line is in its batch, and what its peek found.
pub(crate) struct LineInfo {
    raw: Range<usize>,
    bytes: Range<usize>,
    pub number: u64,
    pub unterminated: bool,
    pub peeked: Peeked,
}

impl LineInfo {
    /// The line's length in bytes, terminator included.
    pub(crate) fn len(&self) -> usize {
        self.raw.len()
    }
}

impl Batch {
    /// Where a line starts in the input, in bytes.
    pub(crate) fn offset(&self, info: &LineInfo) -> u64 {
        self.start + info.raw.start as u64
    }

    pub(crate) fn line(&self, info: &LineInfo) -> Line<'_> {
        Line {
            bytes: &self.data[info.bytes.clone()],
            raw: &self.data[info.raw.clone()],
            raw_start: info.raw.start,
            bytes_start: info.bytes.start,
            number: info.number,
            unterminated: info.unterminated,
            offset: Some(self.start + info.raw.start as u64),
        }
    }
}

/// What the dispatcher holds of the reading thread.
pub(crate) struct ReadThread {
    batches: Receiver<io::Result<Batch>>,
    spares: Sender<Batch>,
    /// Joined once the thread has said it is done, so that no thread outlives a whole
    /// input. A thread blocked in a read (the views stopped early) is left to the end of
    /// the process instead: joining it could wait for ever on a silent producer.
    thread: Option<std::thread::JoinHandle<Leftover>>,
    /// What the thread gave back when it was joined: its buffers, for the next input.
    leftover: Option<Leftover>,
}

/// A finished reading thread's buffers: its reader's, the free ones, and where the views
/// give back those they held.
struct Leftover {
    buffer: Option<Vec<u8>>,
    pool: Pool,
}

/// The next batch, or why there is none.
pub(crate) enum Next {
    Batch(Batch),
    /// None is ready; the next `wait` may block.
    NotYet,
    End,
}

impl ReadThread {
    /// Starts reading `rdr` on its own thread, in `reuse`d buffers first (those an earlier
    /// input's thread gave back, [`ReadThread::into_buffers`]): one input after another,
    /// thousands of small session logs allocate (and the kernel zeroes) their buffers once.
    /// The thread ends at the end of the input, at a read error (passed on), or when the
    /// `ReadThread` is dropped and it next sends.
    pub(crate) fn spawn<R: Read + Send + 'static>(
        rdr: R,
        setup: Setup,
        mut reuse: Vec<Vec<u8>>,
    ) -> io::Result<ReadThread> {
        let buffers = setup.buffers.max(2);
        let (batch_tx, batches) = mpsc::sync_channel(buffers);
        let (spares, spare_rx) = mpsc::channel();
        reuse.truncate(buffers);
        let thread = std::thread::Builder::new()
            .name("cursor-stream reader".into())
            .spawn(move || {
                let (number, offset) = setup.first_line;
                let first = reuse.pop().unwrap_or_default();
                let lines = LineReader::with_buffer(rdr, setup.buffer_size, first)
                    .max_line(setup.max_line)
                    .starting_at(number, offset);
                let mut pool = Pool {
                    spares: spare_rx,
                    allocated: 1 + reuse.len(),
                    free: reuse
                        .into_iter()
                        .map(|data| Batch {
                            data,
                            start: 0,
                            lines: Vec::new(),
                        })
                        .collect(),
                    lent: 0,
                    buffers,
                    buffer_size: setup.buffer_size,
                };
                let buffer = read_lines(lines, &mut pool, batch_tx, setup.checked);
                Leftover { buffer, pool }
            })?;
        Ok(ReadThread {
            batches,
            spares,
            thread: Some(thread),
            leftover: None,
        })
    }

    /// The buffers of a reading that ended ([`Next::End`], or `None` from
    /// [`ReadThread::wait`]) after every batch was given back, for the next input's
    /// thread; none for a reading stopped early, or that grew them for a long line.
    pub(crate) fn into_buffers(mut self) -> Vec<Vec<u8>> {
        let Some(Leftover { buffer, mut pool }) = self.leftover.take() else {
            return Vec::new();
        };
        pool.collect_returned();
        let small = |b: &Vec<u8>| b.len() <= 2 * pool.buffer_size;
        buffer
            .into_iter()
            .chain(pool.free.drain(..).map(|batch| batch.data))
            .filter(small)
            .collect()
    }

    /// A batch if one is ready, without blocking.
    pub(crate) fn poll(&mut self) -> io::Result<Next> {
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
    pub(crate) fn wait(&mut self) -> io::Result<Option<Batch>> {
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
            self.leftover = thread.join().ok();
        }
    }

    /// Gives a batch's buffers back to be filled again.
    pub(crate) fn recycle(&self, batch: Batch) {
        let _ = self.spares.send(batch);
    }

    /// Where other threads give batches back (those [`ReadThread::wait`] handed on).
    pub(crate) fn recycler(&self) -> Sender<Batch> {
        self.spares.clone()
    }
}

/// Reads the lines into batches for the views; at the end of the input, gives back the
/// reader's buffer.
fn read_lines<R: Read>(
    mut reader: LineReader<R>,
    pool: &mut Pool,
    batches: SyncSender<io::Result<Batch>>,
    checked: TypeSet,
) -> Option<Vec<u8>> {
    let buffer_size = pool.buffer_size;
    let mut lines = Vec::new();
    loop {
        match reader.fill() {
            Ok(true) => {}
            Ok(false) => return reader.into_buffer(),
            Err(e) => {
                let _ = batches.send(Err(e));
                return None;
            }
        }
        while let Some(line) = reader.next_line() {
            lines.push(LineInfo {
                raw: line.raw_start..line.raw_start + line.raw.len(),
                bytes: line.bytes_start..line.bytes_start + line.bytes.len(),
                number: line.number,
                unterminated: line.unterminated,
                peeked: peek(line.bytes, checked),
            });
        }
        if lines.is_empty() {
            continue;
        }
        let spare = pool.take()?;
        let mut spare_lines = spare.lines;
        spare_lines.clear();
        let batch = Batch {
            start: reader.base(),
            data: reader.hand_over(spare.data),
            lines: std::mem::replace(&mut lines, spare_lines),
        };
        let long_line = batch.data.len() > 2 * buffer_size;
        if batches.send(Ok(batch)).is_err() {
            return None;
        }
        pool.lent += 1;
        // A buffer that grew for a long line is not read ahead of: reading the next long
        // line while the views still hold this one would double the memory it takes.
        if long_line && !pool.wait_for_all() {
            return None;
        }
    }
}

/// The buffers: those free here, and how many the views hold.
struct Pool {
    spares: Receiver<Batch>,
    free: Vec<Batch>,
    allocated: usize,
    lent: usize,
    /// How many may exist at once.
    buffers: usize,
    buffer_size: usize,
}

impl Pool {
    /// A buffer to read into: a free one, a new one while fewer than `BUFFERS` exist, or
    /// the next one the views give back. `None` when the views are gone.
    fn take(&mut self) -> Option<Batch> {
        self.collect_returned();
        if let Some(batch) = self.free.pop() {
            return Some(batch);
        }
        if self.allocated < self.buffers {
            self.allocated += 1;
            return Some(Batch {
                data: Vec::new(),
                start: 0,
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

    /// A buffer that grew for a long line is let go at once, not kept in circulation.
    fn trimmed(&self, mut batch: Batch) -> Batch {
        if batch.data.len() > 2 * self.buffer_size {
            batch.data = Vec::new();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::peek::NameId;

    type Lines = Vec<(String, Option<NameId>)>;

    fn all_lines(input: &'static [u8]) -> Lines {
        all_lines_in(input, Vec::new()).0
    }

    /// The lines of `input` read in `reuse`d buffers, and the buffers left.
    fn all_lines_in(input: &'static [u8], reuse: Vec<Vec<u8>>) -> (Lines, Vec<Vec<u8>>) {
        let mut reader =
            ReadThread::spawn(input, Setup::new(16, None, TypeSet::NONE), reuse).unwrap();
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
        (out, reader.into_buffers())
    }

    #[test]
    fn the_next_input_reads_in_the_buffers_the_last_one_left() {
        let first = b"{\"type\":\"user\"}\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nyy\nzz\n";
        let (lines, buffers) = all_lines_in(first, Vec::new());
        assert_eq!(lines.len(), 4);
        assert!(
            !buffers.is_empty() && buffers.len() <= BUFFERS,
            "{}",
            buffers.len()
        );
        // Their old bytes do not show through.
        let (lines, again) = all_lines_in(b"{\"type\":\"result\"}\nab", buffers);
        assert_eq!(
            lines,
            vec![
                (r#"{"type":"result"}"#.to_string(), Some(NameId::RESULT)),
                ("ab".to_string(), None),
            ]
        );
        assert!(!again.is_empty());
        // A buffer that grew for a long line is let go.
        let long: &'static [u8] = Box::leak(format!("{}\n", "x".repeat(100)).into_bytes().into());
        let (_, after_long) = all_lines_in(long, again);
        assert!(
            after_long.iter().all(|b| b.len() <= 32),
            "{:?}",
            after_long.iter().map(Vec::len).collect::<Vec<_>>()
        );
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

    #[test]
    fn a_read_error_is_passed_on() {
        struct Failing;
        impl Read for Failing {
            fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
                Err(io::Error::other("disk on fire"))
            }
        }
        let mut reader =
            ReadThread::spawn(Failing, Setup::new(16, None, TypeSet::NONE), Vec::new()).unwrap();
        let err = reader.wait().err().unwrap();
        assert_eq!(err.to_string(), "disk on fire");
    }
}

//! The line splitter: one owned buffer, lines handed out as borrowed slices.
//!
//! Modelled on ripgrep's `LineBuffer`: bytes are read into a single buffer, complete
//! lines are yielded in place (no copy), and only the unfinished tail is moved to the
//! front before the next read. A line longer than the buffer makes the buffer grow, so
//! there is no fixed line limit unless the caller sets one (`--max-line`).
//!
//! The consumer drives it in two steps, so that it knows when no complete line is left
//! and the next read may block:
//!
//! ```text
//! while reader.fill()? {                     // one read(2), unless a line is already buffered
//!     while let Some(line) = reader.next_line() { ... }
//! }
//! ```
//!
//! The reading thread (`reader`) is that consumer; it hands whole buffers to the
//! dispatcher, which flushes the output when no batch is waiting (`Dispatcher::feed`).

use std::io::{self, Read};

/// The ASCII record separator that starts each text of a JSON text sequence (RFC 7464).
pub(crate) const RS: u8 = 0x1e;

/// Size of a buffer at start.
///
/// Large reads mean few system calls and, from a pipe, few wake-ups of the reading thread
/// (the stdin pipe is enlarged to the same size). A handful of such buffers are in flight
/// (see `reader`), far below the memory budget.
pub(crate) const DEFAULT_CAPACITY: usize = 1024 * 1024;

/// One line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    /// The line without its `\n` or `\r\n` terminator (and without a byte order mark).
    pub bytes: &'a [u8],
    /// The line exactly as read, terminator (and byte order mark) included: what a
    /// pass-through view writes.
    pub raw: &'a [u8],
    /// Where `raw` and `bytes` start in the reader's buffer, for a consumer that keeps the
    /// buffer after [`LineReader::hand_over`].
    pub raw_start: usize,
    pub bytes_start: usize,
    /// 1-based line number within the current input.
    pub number: u64,
    /// The input ended without a `\n` after this line (a killed producer leaves one).
    pub unterminated: bool,
    /// Where `raw` starts in the input, in bytes, when the reader knows it (not for the
    /// lines a library caller splits itself).
    pub offset: Option<u64>,
}

/// The line is longer than the limit the caller set.
#[derive(Debug)]
pub(crate) struct LineTooLong {
    pub limit: usize,
    pub line: u64,
}

impl std::fmt::Display for LineTooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} is longer than the limit of {} bytes set by --max-line",
            self.line, self.limit
        )
    }
}

impl std::error::Error for LineTooLong {}

pub struct LineReader<R> {
    rdr: R,
    buf: Vec<u8>,
    /// Start of the first byte not yet handed out.
    pos: usize,
    /// End of the valid bytes in `buf`.
    end: usize,
    /// How far past `pos` we already know there is no `\n`; saves rescanning a long line
    /// on every read that extends it.
    scanned: usize,
    eof: bool,
    /// Where `buf[0]` is in the input, in bytes from the reading's start.
    base: u64,
    line_no: u64,
    at_start: bool,
    /// Length of a byte order mark at `pos`, to leave out of the first line's `bytes`.
    bom: usize,
    max_line: Option<usize>,
    /// The size the buffer started with, and that fresh buffers get.
    capacity: usize,
    /// Set by `next_line` when the line at `pos` exceeds `max_line`; `fill` reports it.
    too_long: bool,
}

impl<R: Read> LineReader<R> {
    pub fn new(rdr: R) -> Self {
        Self::with_capacity(rdr, DEFAULT_CAPACITY)
    }

    pub fn with_capacity(rdr: R, capacity: usize) -> Self {
        Self::with_buffer(rdr, capacity, Vec::new())
    }

    /// Reads into `buf`, a buffer another reader gave back ([`LineReader::into_buffer`]):
    /// a worker that reads many inputs one after another allocates (and the kernel zeroes)
    /// none of its pages again.
    pub(crate) fn with_buffer(rdr: R, capacity: usize, mut buf: Vec<u8>) -> Self {
        if buf.len() < capacity.max(1) {
            buf.resize(capacity.max(1), 0);
        }
        LineReader {
            rdr,
            buf,
            capacity: capacity.max(1),
            pos: 0,
            end: 0,
            scanned: 0,
            eof: false,
            base: 0,
            line_no: 0,
            at_start: true,
            bom: 0,
            max_line: None,
            too_long: false,
        }
    }

    /// Refuse lines longer than `limit` bytes with a [`LineTooLong`] error.
    pub fn max_line(mut self, limit: Option<usize>) -> Self {
        self.max_line = limit;
        self
    }

    /// Reads from the middle of an input (at a line's start): the first line is numbered
    /// `number`, at `offset` bytes into the input, and no byte order mark is looked for.
    pub fn starting_at(mut self, number: u64, offset: u64) -> Self {
        if number > 1 {
            self.line_no = number - 1;
            self.at_start = false;
        }
        self.base = offset;
        self
    }

    /// Where the buffer's first byte is in the input (the offset [`starting_at`] gave
    /// included); with [`Line::raw_start`], a line's place in the input. Call before
    /// [`hand_over`](Self::hand_over), which gives that buffer away.
    ///
    /// [`starting_at`]: Self::starting_at
    pub fn base(&self) -> u64 {
        self.base
    }

    /// Make sure a line can be handed out, reading once if none is buffered.
    ///
    /// Returns `false` when the input is exhausted. A `true` does not promise a line:
    /// a read may return only part of one, so call [`next_line`](Self::next_line) until it
    /// returns `None` and then `fill` again.
    pub fn fill(&mut self) -> io::Result<bool> {
        if self.too_long {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                LineTooLong {
                    limit: self.max_line.unwrap_or(0),
                    line: self.line_no + 1,
                },
            ));
        }
        if self.has_line() {
            return Ok(true);
        }
        if self.eof {
            return Ok(self.pos < self.end);
        }
        self.make_room()?;
        let n = loop {
            match self.rdr.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        if n == 0 {
            self.eof = true;
        } else {
            self.end += n;
            if self.at_start {
                self.skip_bom();
            }
        }
        Ok(true)
    }

    /// The next buffered line; at end of input also the last line without `\n`.
    pub fn next_line(&mut self) -> Option<Line<'_>> {
        let from = self.pos + self.scanned;
        let (end, next, unterminated) = match memchr::memchr(b'\n', &self.buf[from..self.end]) {
            Some(i) => (from + i, from + i + 1, false),
            None if self.eof && self.pos < self.end => (self.end, self.end, true),
            None => {
                self.scanned = self.end - self.pos;
                self.exceeds_limit(self.scanned);
                return None;
            }
        };
        let start = self.pos;
        let mut content = start + self.bom;
        // RFC 7464's record separator before a JSON text (`jq --seq` writes one), not noise.
        if content < end && self.buf[content] == RS {
            content += 1;
        }
        let end = if end > content && self.buf[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        if self.exceeds_limit(end - start) {
            return None;
        }
        self.pos = next;
        self.bom = 0;
        self.scanned = 0;
        self.line_no += 1;
        Some(Line {
            bytes: &self.buf[content..end],
            raw: &self.buf[start..next],
            raw_start: start,
            bytes_start: content,
            number: self.line_no,
            unterminated,
            offset: Some(self.base + start as u64),
        })
    }

    /// Gives away the buffer holding the lines handed out so far (at the offsets their
    /// [`Line`]s gave) and goes on in `spare`, to which only the unfinished line is moved.
    /// This lets another thread work on the lines while the next read fills `spare`.
    pub fn hand_over(&mut self, mut spare: Vec<u8>) -> Vec<u8> {
        let tail = self.end - self.pos;
        // As large as the unfinished line needs, not as the buffer grew for a long line.
        let size = self.capacity.max(tail + self.min_read());
        if spare.len() < size {
            spare.resize(size, 0);
        }
        spare[..tail].copy_from_slice(&self.buf[self.pos..self.end]);
        let old = std::mem::replace(&mut self.buf, spare);
        self.base += self.pos as u64;
        self.pos = 0;
        self.end = tail;
        old
    }

    /// The buffer, for the next reader ([`LineReader::with_buffer`]); `None` when it grew
    /// for a long line, so that it is not kept at that size.
    pub(crate) fn into_buffer(self) -> Option<Vec<u8>> {
        (self.buf.len() <= 2 * self.capacity).then_some(self.buf)
    }

    /// The least free space given to a read: a quarter of the starting size, so that
    /// reads stay large without the buffer having to grow.
    fn min_read(&self) -> usize {
        (self.capacity / 4).max(1)
    }

    /// Records (for `fill` to report) that the line at `pos` is over the limit.
    fn exceeds_limit(&mut self, len: usize) -> bool {
        self.too_long = self.max_line.is_some_and(|limit| len > limit);
        self.too_long
    }

    /// Whether a complete line is waiting in the buffer (so the next `fill` will not read).
    fn has_line(&self) -> bool {
        let from = self.pos + self.scanned;
        memchr::memchr(b'\n', &self.buf[from..self.end]).is_some()
    }

    /// Move the unfinished line to the front, and grow when it fills the whole buffer.
    fn make_room(&mut self) -> io::Result<()> {
        let min_read = self.min_read();
        if self.buf.len() - self.end >= min_read {
            return Ok(());
        }
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.base += self.pos as u64;
            self.end -= self.pos;
            self.pos = 0;
        }
        let free = self.buf.len() - self.end;
        if free < min_read || free < self.buf.len() / 4 {
            // Half again, not double: the buffer ends at most half a line larger than the
            // longest line (a large reallocation moves no bytes: the pages are remapped).
            let want = (self.buf.len() + self.buf.len() / 2).max(self.end + min_read);
            self.buf
                .try_reserve_exact(want - self.buf.len())
                .map_err(|_| {
                    io::Error::new(io::ErrorKind::OutOfMemory, "line too long for memory")
                })?;
            self.buf.resize(want, 0);
        }
        Ok(())
    }

    /// Drops a UTF-8 byte order mark at the very start of the input. Decided as soon as
    /// the first bytes are known not to be one, so that no later bytes are mistaken for it.
    fn skip_bom(&mut self) {
        const BOM: &[u8] = b"\xEF\xBB\xBF";
        let have = &self.buf[self.pos..self.end];
        let n = have.len().min(BOM.len());
        if have[..n] != BOM[..n] {
            self.at_start = false;
        } else if n == BOM.len() {
            self.at_start = false;
            self.bom = BOM.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns its data in pieces of the given sizes, cycling.
    struct Chunked<'a> {
        data: &'a [u8],
        sizes: Vec<usize>,
        i: usize,
    }

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let size = self.sizes[self.i % self.sizes.len()];
            self.i += 1;
            let n = size.min(buf.len()).min(self.data.len());
            buf[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    fn lines_of(data: &[u8], sizes: &[usize], capacity: usize) -> Vec<(Vec<u8>, u64, bool)> {
        let rdr = Chunked {
            data,
            sizes: sizes.to_vec(),
            i: 0,
        };
        let mut lr = LineReader::with_capacity(rdr, capacity);
        let mut out = Vec::new();
        while lr.fill().unwrap() {
            while let Some(l) = lr.next_line() {
                out.push((l.bytes.to_vec(), l.number, l.unterminated));
            }
        }
        out
    }

    /// `base` plus a line's `raw_start` is where the line is in the input, whether the
    /// buffer's tail was moved to its front or handed over to a spare, and from an offset.
    #[test]
    fn base_gives_each_line_its_place_in_the_input() {
        let mut data = Vec::new();
        for i in 0..200 {
            data.extend_from_slice(format!("line {i} {}\n", "x".repeat(i % 37)).as_bytes());
        }
        for hand_over in [false, true] {
            let rdr = Chunked {
                data: &data,
                sizes: vec![7, 13, 64],
                i: 0,
            };
            let mut lr = LineReader::with_capacity(rdr, 32).starting_at(1, 1000);
            let mut seen = 0;
            while lr.fill().unwrap() {
                let base = lr.base();
                let mut places = Vec::new();
                while let Some(l) = lr.next_line() {
                    places.push((base + l.raw_start as u64 - 1000, l.raw.to_vec()));
                }
                for (at, raw) in places {
                    let at = at as usize;
                    assert_eq!(&data[at..at + raw.len()], &raw[..]);
                    seen += 1;
                }
                if hand_over {
                    lr.hand_over(Vec::new());
                }
            }
            assert_eq!(seen, 200);
        }
    }

    #[test]
    fn line_straddling_reads_is_whole() {
        let data = b"{\"a\":1}\n{\"b\":2}\n";
        let got = lines_of(data, &[3, 5, 1, 100], 16);
        assert_eq!(
            got,
            vec![
                (b"{\"a\":1}".to_vec(), 1, false),
                (b"{\"b\":2}".to_vec(), 2, false)
            ]
        );
    }

    #[test]
    fn grows_past_initial_capacity() {
        let long = vec![b'x'; 1_000_000];
        let mut data = long.clone();
        data.extend_from_slice(b"\nshort\n");
        let got = lines_of(&data, &[4096], 16);
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].0, long);
        assert_eq!(got[1].0, b"short");
    }

    #[test]
    fn unterminated_last_line_is_yielded() {
        let got = lines_of(b"one\ntwo", &[2], 1024);
        assert_eq!(
            got,
            vec![(b"one".to_vec(), 1, false), (b"two".to_vec(), 2, true)]
        );
    }

    #[test]
    fn crlf_and_bom_are_stripped() {
        let got = lines_of(b"\xEF\xBB\xBFa\r\nb\r\n", &[1], 1024);
        assert_eq!(
            got,
            vec![(b"a".to_vec(), 1, false), (b"b".to_vec(), 2, false)]
        );
    }

    #[test]
    fn a_record_separator_before_a_text_is_stripped() {
        // RFC 7464 (`jq --seq`): RS, the text, LF; an RS elsewhere stays.
        let got = lines_of(b"\x1e{\"a\":1}\n\x1e[2]\r\nx\x1e\n", &[1], 1024);
        let want: Vec<(Vec<u8>, u64, bool)> = vec![
            (b"{\"a\":1}".to_vec(), 1, false),
            (b"[2]".to_vec(), 2, false),
            (b"x\x1e".to_vec(), 3, false),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn raw_lines_reproduce_the_input() {
        let data = b"\xEF\xBB\xBF{}\r\n\n{\"a\":1}\nlast\r";
        for size in 1..data.len() {
            let rdr = Chunked {
                data,
                sizes: vec![size],
                i: 0,
            };
            let mut lr = LineReader::with_capacity(rdr, 4);
            let mut raw = Vec::new();
            while lr.fill().unwrap() {
                while let Some(l) = lr.next_line() {
                    raw.extend_from_slice(l.raw);
                }
            }
            assert_eq!(raw, data, "reads of {size}");
        }
    }

    #[test]
    fn handed_over_buffers_keep_their_lines() {
        let data = b"\xEF\xBB\xBFfirst\r\nsecond\nthird line is longer\nlast";
        for size in 1..data.len() {
            let rdr = Chunked {
                data,
                sizes: vec![size],
                i: 0,
            };
            let mut lr = LineReader::with_capacity(rdr, 8);
            let mut got = Vec::new();
            while lr.fill().unwrap() {
                let mut spans = Vec::new();
                while let Some(l) = lr.next_line() {
                    let bytes = l.bytes_start..l.bytes_start + l.bytes.len();
                    spans.push((bytes, l.raw_start..l.raw_start + l.raw.len()));
                }
                let buf = lr.hand_over(Vec::new());
                for (bytes, raw) in spans {
                    got.push((buf[bytes].to_vec(), buf[raw].to_vec()));
                }
            }
            let bytes: Vec<&[u8]> = got.iter().map(|(b, _)| b.as_slice()).collect();
            assert_eq!(
                bytes,
                [&b"first"[..], b"second", b"third line is longer", b"last"]
            );
            let raw: Vec<u8> = got.iter().flat_map(|(_, r)| r.clone()).collect();
            assert_eq!(raw, data, "reads of {size}");
        }
    }

    #[test]
    fn bom_only_at_the_start() {
        for size in [1, 2, 100] {
            let got = lines_of(b"a\n\xEF\xBB\xBFb\n", &[size], 1024);
            assert_eq!(got[1].0, b"\xEF\xBB\xBFb", "reads of {size}");
        }
    }

    #[test]
    fn blank_lines_are_lines() {
        let got = lines_of(b"\n\na\n", &[100], 1024);
        let bytes: Vec<_> = got.iter().map(|l| l.0.clone()).collect();
        assert_eq!(bytes, vec![b"".to_vec(), b"".to_vec(), b"a".to_vec()]);
    }

    #[test]
    fn empty_input_has_no_lines() {
        assert!(lines_of(b"", &[10], 1024).is_empty());
    }

    #[test]
    fn any_chunking_gives_the_same_lines() {
        let data = b"\xEF\xBB\xBF{\"type\":\"a\"}\n\r\n\xEF\xBB\xBF{}\nxyz\r\n\nlast";
        let expect = lines_of(data, &[data.len()], 1024);
        for size in 1..data.len() {
            for cap in [1, 2, 7, 64] {
                assert_eq!(
                    lines_of(data, &[size], cap),
                    expect,
                    "size {size} cap {cap}"
                );
            }
        }
    }

    #[test]
    fn max_line_is_enforced() {
        let data = b"short\nthis one is far too long\n";
        let rdr = Chunked {
            data,
            sizes: vec![4],
            i: 0,
        };
        let mut lr = LineReader::with_capacity(rdr, 8).max_line(Some(10));
        let mut seen = Vec::new();
        let err = loop {
            match lr.fill() {
                Ok(true) => {
                    while let Some(l) = lr.next_line() {
                        seen.push(l.bytes.to_vec());
                    }
                }
                Ok(false) => panic!("the long line was accepted"),
                Err(e) => break e,
            }
        };
        assert_eq!(seen, vec![b"short".to_vec()]);
        let too_long = err
            .get_ref()
            .unwrap()
            .downcast_ref::<LineTooLong>()
            .unwrap();
        assert_eq!(too_long.line, 2);
    }
}

//! The output side: buffered stdout for the chosen view, stderr for everything else, and
//! the messages about the input ([`diag`]).
//!
//! Both streams are buffered and flushed by the dispatcher when no complete input line is
//! waiting, just before it blocks for more (`Dispatcher::feed`): a live producer's delta
//! reaches the terminal at once, while a large file is written in large blocks.
//! When the two streams alternate, the one that was written last is flushed first, so
//! that a terminal showing both sees them in order.
//!
//! Text written to a terminal is cleaned of control sequences: model and tool text could
//! otherwise move the cursor, clear the screen or retitle the window. Only the styles this
//! tool adds itself reach the terminal.

pub(crate) mod diag;
pub(crate) mod fit;
pub(crate) mod held;

use std::fmt::Write as _;
use std::io::{self, BufWriter, Write};

use anstyle::Style;

const OUT_CAPACITY: usize = 128 * 1024;

/// What a view's copy on a worker asks the view on the main thread, which knows the
/// earlier inputs (see `view::View::answer`).
pub(crate) type Question = Box<dyn std::any::Any + Send>;

/// Where a worker's output goes when several inputs (or the parts of one file) are read
/// at once: to the main thread, which writes every input's output in order
/// (`crate::parallel`). What the worker's [`diag::Diag`] and its view's context hand on
/// besides their bytes.
pub(crate) trait ToMain {
    /// A message about the input, counted and shown (or not) on the main thread, after
    /// everything written before it.
    fn message(&self, kind: &'static str, label: String, msg: String);

    /// Whether the main thread can copy stretches of the input from its file.
    fn copies(&self) -> bool;

    /// `len` bytes of the input from `offset`, for the main thread to copy from the file
    /// to stdout, after everything written before them.
    fn copy(&self, offset: u64, len: usize) -> io::Result<()>;

    /// A question for the view on the main thread, after everything written before it;
    /// `weight`: about what it holds, in bytes.
    fn ask(&self, question: Question, weight: usize);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    Out,
    Err,
}

pub(crate) struct Output {
    out: BufWriter<Box<dyn Write>>,
    err: BufWriter<Box<dyn Write>>,
    last: Channel,
    /// The last byte written to stdout was `\n`, or nothing was written yet.
    out_at_line_start: bool,
    out_is_terminal: bool,
    /// stdout and stderr are both terminals: presumably the same screen.
    shared_terminal: bool,
    color_out: bool,
    color_err: bool,
    line_buffered: bool,
    /// Present for a stream that is a terminal.
    clean_out: Option<Cleaner>,
    clean_err: Option<Cleaner>,
    out_width: Option<usize>,
    err_width: Option<usize>,
}

/// How the two streams behave; resolved once from the flags and the environment.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct OutputMode {
    pub out_is_terminal: bool,
    pub err_is_terminal: bool,
    pub color_out: bool,
    pub color_err: bool,
    pub line_buffered: bool,
    /// The width activity lines are fitted to on stdout, when it is a terminal (see
    /// [`fit::terminal_columns`]); `None` writes them whole.
    pub out_width: Option<usize>,
    pub err_width: Option<usize>,
}

impl Output {
    pub(crate) fn new(out: Box<dyn Write>, err: Box<dyn Write>, mode: OutputMode) -> Output {
        Output {
            out: BufWriter::with_capacity(OUT_CAPACITY, out),
            err: BufWriter::with_capacity(8 * 1024, err),
            last: Channel::Out,
            out_at_line_start: true,
            out_is_terminal: mode.out_is_terminal,
            shared_terminal: mode.out_is_terminal && mode.err_is_terminal,
            color_out: mode.color_out,
            color_err: mode.color_err,
            line_buffered: mode.line_buffered,
            clean_out: mode.out_is_terminal.then(Cleaner::default),
            clean_err: mode.err_is_terminal.then(Cleaner::default),
            out_width: mode.out_width,
            err_width: mode.err_width,
        }
    }

    /// The width lines written to `channel` are fitted to; `None` when they are written
    /// whole (not a terminal).
    pub(crate) fn width(&self, channel: Channel) -> Option<usize> {
        match channel {
            Channel::Out => self.out_width,
            Channel::Err => self.err_width,
        }
    }

    /// Writes the chosen view's output.
    pub(crate) fn write_out(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.last == Channel::Err {
            let _ = self.err.flush();
            self.last = Channel::Out;
        }
        let bytes = match &mut self.clean_out {
            Some(cleaner) => cleaner.clean(bytes),
            None => bytes,
        };
        if bytes.is_empty() {
            return Ok(());
        }
        self.out.write_all(bytes)?;
        self.out_at_line_start = bytes.last() == Some(&b'\n');
        Ok(())
    }

    /// Writes `bytes` to stdout in `style` when stdout takes colors.
    pub(crate) fn write_out_styled(&mut self, style: Style, bytes: &[u8]) -> io::Result<()> {
        if self.color_out && !bytes.is_empty() {
            write!(self.out, "{}", style.render())?;
            self.write_out(bytes)?;
            write!(self.out, "{}", style.render_reset())
        } else {
            self.write_out(bytes)
        }
    }

    /// Writes to stderr. Errors are ignored: there is nowhere left to report them.
    pub(crate) fn write_err(&mut self, bytes: &[u8]) {
        self.switch_to_err();
        let bytes = match &mut self.clean_err {
            Some(cleaner) => cleaner.clean(bytes),
            None => bytes,
        };
        let _ = self.err.write_all(bytes);
    }

    /// Writes to stderr in `style` when stderr takes colors.
    pub(crate) fn write_err_styled(&mut self, style: Style, bytes: &[u8]) {
        if self.color_err && !bytes.is_empty() {
            self.switch_to_err();
            let _ = write!(self.err, "{}", style.render());
            self.write_err(bytes);
            let _ = write!(self.err, "{}", style.render_reset());
        } else {
            self.write_err(bytes);
        }
    }

    fn switch_to_err(&mut self) {
        if self.last == Channel::Out {
            let _ = self.out.flush();
            self.last = Channel::Err;
        }
    }

    /// Before a block of stderr output: on a screen shared with stdout, start a new line
    /// so that a message does not continue the answer's last line.
    pub(crate) fn begin_err_block(&mut self) {
        if self.shared_terminal && !self.out_at_line_start {
            self.write_err(b"\n");
            self.out_at_line_start = true;
        }
    }

    /// Writes to either stream; only stdout's errors are returned.
    pub(crate) fn write_styled(
        &mut self,
        channel: Channel,
        style: Style,
        bytes: &[u8],
    ) -> io::Result<()> {
        match channel {
            Channel::Out => self.write_out_styled(style, bytes),
            Channel::Err => {
                self.write_err_styled(style, bytes);
                Ok(())
            }
        }
    }

    /// Makes sure what is written next to `channel` starts a line of the screen.
    pub(crate) fn begin_line(&mut self, channel: Channel) -> io::Result<()> {
        match channel {
            Channel::Out if !self.out_at_line_start => self.write_out(b"\n"),
            Channel::Out => Ok(()),
            Channel::Err => {
                self.begin_err_block();
                Ok(())
            }
        }
    }

    /// At the end: the terminal's prompt should not follow the answer's last line.
    pub(crate) fn end_terminal_line(&mut self) -> io::Result<()> {
        if self.out_is_terminal && !self.out_at_line_start {
            self.write_out(b"\n")?;
        }
        Ok(())
    }

    /// Whether stdout's last byte ends a line (true when nothing was written).
    pub(crate) fn out_at_line_start(&self) -> bool {
        self.out_at_line_start
    }

    /// Called once per event; flushes only with `--line-buffered`.
    pub(crate) fn event_done(&mut self) -> io::Result<()> {
        if self.line_buffered {
            self.flush()
        } else {
            Ok(())
        }
    }

    /// Whether either stream holds bytes not yet written through.
    pub(crate) fn holds_bytes(&self) -> bool {
        !self.out.buffer().is_empty() || !self.err.buffer().is_empty()
    }

    /// Flushes both streams; stdout's error (a closed pipe) is returned.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        match self.last {
            Channel::Out => {
                let _ = self.err.flush();
                self.out.flush()
            }
            Channel::Err => {
                let r = self.out.flush();
                let _ = self.err.flush();
                r
            }
        }
    }
}

/// Removes terminal control sequences (CSI, OSC, other escapes) and control characters
/// but newline and tab. It keeps its state between writes, so a sequence cut between two
/// deltas is still recognised; invalid UTF-8 becomes U+FFFD.
#[derive(Default)]
struct Cleaner {
    parser: vte::Parser,
    kept: Vec<u8>,
}

impl Cleaner {
    fn clean(&mut self, bytes: &[u8]) -> &[u8] {
        self.kept.clear();
        self.parser.advance(&mut Keep(&mut self.kept), bytes);
        &self.kept
    }
}

/// What the terminal parser lets through.
struct Keep<'a>(&'a mut Vec<u8>);

impl vte::Perform for Keep<'_> {
    fn print(&mut self, c: char) {
        let mut utf8 = [0; 4];
        self.0
            .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
    }

    fn execute(&mut self, byte: u8) {
        if byte == b'\n' || byte == b'\t' {
            self.0.push(byte);
        }
    }
}

/// One line of text: control characters (newlines, terminal escapes) shown escaped, and
/// cut with `…` after `max` characters.
pub(crate) fn one_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max.saturating_add(8)));
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// One line of text, control characters shown escaped, nothing cut: a value piped whole,
/// or fitted to the terminal afterwards.
pub(crate) fn escape_line(s: &str) -> String {
    one_line(s, usize::MAX)
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::testing::Capture;

    /// An `Output` writing into two buffers, and the buffers.
    pub(crate) fn capture(mode: OutputMode) -> (Output, Capture, Capture) {
        let out = Capture::default();
        let err = Capture::default();
        (
            Output::new(Box::new(out.clone()), Box::new(err.clone()), mode),
            out,
            err,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::testing::capture;
    use super::*;

    #[test]
    fn one_line_escapes_and_cuts() {
        assert_eq!(
            one_line("cat <<EOF\nx\x1b[2J", 100),
            "cat <<EOF\\nx\\u{1b}[2J"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
    }

    #[test]
    fn nothing_reaches_stdout_before_a_flush() {
        let (mut o, out, _) = capture(OutputMode::default());
        o.write_out(b"abc").unwrap();
        assert_eq!(out.text(), "");
        o.flush().unwrap();
        assert_eq!(out.text(), "abc");
    }

    #[test]
    fn line_buffered_flushes_after_each_event() {
        let (mut o, out, _) = capture(OutputMode {
            line_buffered: true,
            ..Default::default()
        });
        o.write_out(b"abc").unwrap();
        o.event_done().unwrap();
        assert_eq!(out.text(), "abc");
    }

    #[test]
    fn switching_streams_flushes_the_other_in_order() {
        let (mut o, out, err) = capture(OutputMode::default());
        o.write_out(b"answer").unwrap();
        o.write_err(b"warning");
        assert_eq!(
            out.text(),
            "answer",
            "stdout flushed before stderr is written"
        );
        o.write_out(b" more").unwrap();
        assert_eq!(
            err.text(),
            "warning",
            "stderr flushed before stdout is written"
        );
    }

    #[test]
    fn a_terminal_gets_text_without_control_sequences() {
        let (mut o, out, err) = capture(OutputMode {
            out_is_terminal: true,
            err_is_terminal: true,
            color_out: true,
            ..Default::default()
        });
        o.write_out(b"red \x1b[31mtext\x1b").unwrap();
        o.write_out(b"[0m, \x1b]0;title\x07bell\x07 tab\there\r\n")
            .unwrap();
        o.write_out_styled(Style::new().bold(), b"ours").unwrap();
        o.write_err(b"\x1b[2Jwarning\n");
        o.flush().unwrap();
        assert_eq!(out.text(), "red text, bell tab\there\n\x1b[1mours\x1b[0m");
        assert_eq!(err.text(), "warning\n");
    }

    #[test]
    fn a_pipe_gets_the_text_as_it_is() {
        let (mut o, out, _) = capture(OutputMode::default());
        o.write_out(b"\x1b[31mred\r\n").unwrap();
        o.flush().unwrap();
        assert_eq!(out.text(), "\x1b[31mred\r\n");
    }

    #[test]
    fn shared_terminal_gets_a_fresh_line_for_messages() {
        let (mut o, out, err) = capture(OutputMode {
            out_is_terminal: true,
            err_is_terminal: true,
            ..Default::default()
        });
        o.write_out(b"no newline").unwrap();
        o.begin_err_block();
        o.write_err(b"msg\n");
        o.flush().unwrap();
        assert_eq!(out.text(), "no newline");
        assert_eq!(err.text(), "\nmsg\n");
    }
}

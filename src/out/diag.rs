//! Messages about the input, on stderr, with the file and line they concern.
//!
//! Every problem is reported once, at the line where it is found. When one kind of problem
//! repeats (a log full of banners), the first few are shown and the rest are counted and
//! summed up at the end, so stderr is not flooded.

use std::fmt::{self, Display, Write as _};
use std::sync::Arc;

use anstyle::{AnsiColor, Style};

use super::{Output, ToMain};

/// How many messages of one kind are shown before the rest are only counted.
const SHOWN_PER_KIND: u64 = 5;
const EXCERPT_CHARS: usize = 72;

/// A problem with the input ended the run (`--strict`, `--max-line`): exit status 4.
#[derive(Debug)]
pub(crate) struct BadInput(pub String);

impl Display for BadInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// An input could not be read to its end (a cut compressed log, a disk error): reported,
/// and the other inputs are still read (exit status 2 at the end). What was read of it
/// before stays read.
#[derive(Debug)]
pub(crate) struct InputFailed(pub String);

impl Display for InputFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputFailed {}

/// An event a dialect reads in full, named for the "unreadable … event" reports.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Unreadable {
    /// The event as the user knows it: `assistant`, `tool_call`, `item.completed`, …
    pub event: &'static str,
    /// The kind, for counting repeated reports: `unreadable assistant events`.
    pub kind: &'static str,
}

impl Unreadable {
    /// The reading of a line by its type name (`event` for a name not in the table).
    pub(crate) fn of(name: crate::input::peek::NameId) -> Unreadable {
        match name.names() {
            Some((event, kind)) => Unreadable { event, kind },
            None => unreadable!("event"),
        }
    }
}

/// `unreadable!("assistant")` is the [`Unreadable`] of `assistant` events.
macro_rules! unreadable {
    ($event:literal) => {
        $crate::out::diag::Unreadable {
            event: $event,
            kind: concat!("unreadable ", $event, " events"),
        }
    };
}
pub(crate) use unreadable;

pub(crate) struct Diag {
    source: String,
    /// The file the current line is from, when it is not the input itself (a sub-agent's
    /// log read in with its session's): messages cite it, not the input.
    file: Option<Arc<str>>,
    line: u64,
    /// Stretches of lines begun so far: a new one at each input and at each change of
    /// file within one, so that a line number and this tell one line from every other.
    stretch: u64,
    /// Inputs begun so far (the current one's number).
    inputs: u64,
    strict: bool,
    quiet: bool,
    /// Messages seen so far per kind (shown or not), in the order kinds first appeared.
    seen: Vec<(&'static str, u64)>,
    msg: String,
    /// On a worker reading one of several inputs (`crate::parallel`): every summarised
    /// message goes to the main thread, which counts it with those of the earlier inputs
    /// (the first few of a kind shown, the rest summed up), as one `Diag` would have.
    defer: Option<Box<dyn ToMain>>,
}

impl Diag {
    /// Whether `--quiet` asked for no notes on stderr.
    pub(crate) fn is_quiet(&self) -> bool {
        self.quiet
    }

    pub(crate) fn new(strict: bool, quiet: bool) -> Diag {
        Diag {
            source: String::new(),
            file: None,
            line: 0,
            stretch: 0,
            inputs: 0,
            strict,
            quiet,
            seen: Vec::new(),
            msg: String::new(),
            defer: None,
        }
    }

    /// A worker's `Diag`: summarised messages go with the output to `to`, in order.
    pub(crate) fn deferred(strict: bool, quiet: bool, to: Box<dyn ToMain>) -> Diag {
        Diag {
            defer: Some(to),
            ..Diag::new(strict, quiet)
        }
    }

    /// On a worker: where its output goes to the main thread.
    pub(crate) fn to_main(&self) -> Option<&dyn ToMain> {
        self.defer.as_deref()
    }

    /// A message a worker's `Diag` deferred: counted and shown (or not) here.
    pub(crate) fn replay(
        &mut self,
        out: &mut Output,
        kind: &'static str,
        label: &str,
        msg: String,
    ) {
        self.msg = msg;
        self.emit(out, kind, label);
    }

    pub(crate) fn set_source(&mut self, name: &str) {
        self.source.clear();
        self.source.push_str(name);
        self.file = None;
        self.line = 0;
        self.inputs += 1;
        self.stretch += 1;
    }

    /// The current line is from `file` (see [`Diag::file`]); `None`: the input itself.
    pub(crate) fn set_file(&mut self, file: Option<&Arc<str>>) {
        let same = match (&self.file, file) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        if !same {
            self.file = file.cloned();
            self.stretch += 1;
        }
    }

    /// The file the current line is from: the input's, or the one read in it.
    pub(crate) fn file(&self) -> &str {
        self.file.as_deref().unwrap_or(&self.source)
    }

    /// Which stretch of lines is read (see `stretch`): with [`Diag::line`], which line.
    pub(crate) fn stretch(&self) -> u64 {
        self.stretch
    }

    /// The inputs begun so far: with [`Diag::line`], which line of which input is read.
    pub(crate) fn inputs(&self) -> u64 {
        self.inputs
    }

    pub(crate) fn set_line(&mut self, line: u64) {
        self.line = line;
    }

    /// The current input's name (a session's log, also while its sub-agents' lines are
    /// read: their runs and sessions are its).
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// The current line number (1-based; 0 before the first line).
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// `file:line`, for messages.
    pub(crate) fn position(&self) -> String {
        format!("{}:{}", self.file(), self.line)
    }

    /// A line that is not a usable event. The run goes on unless `--strict`.
    pub(crate) fn bad_line(
        &mut self,
        out: &mut Output,
        kind: &'static str,
        what: impl Display,
        line: &[u8],
    ) -> Result<(), BadInput> {
        self.msg.clear();
        let file = self.file.as_deref().unwrap_or(&self.source);
        let _ = write!(self.msg, "{file}:{}: {what}: {}", self.line, Excerpt(line));
        if self.strict {
            self.msg.push_str(" (stopped by --strict)");
            return Err(BadInput(std::mem::take(&mut self.msg)));
        }
        self.emit(out, kind, "warning");
        Ok(())
    }

    /// The event read, or `None` after reporting why it could not be (a bad line: fatal
    /// under `--strict`).
    pub(crate) fn readable<T, E: Display>(
        &mut self,
        out: &mut Output,
        what: Unreadable,
        line: &[u8],
        read: Result<T, E>,
    ) -> Result<Option<T>, BadInput> {
        match read {
            Ok(value) => Ok(Some(value)),
            Err(e) => {
                let message = format_args!("unreadable {} event ({e})", what.event);
                self.bad_line(out, what.kind, message, line)?;
                Ok(None)
            }
        }
    }

    /// Something worth knowing about the current line that does not stop the run.
    pub(crate) fn warn(&mut self, out: &mut Output, kind: &'static str, what: impl Display) {
        self.msg.clear();
        let file = self.file.as_deref().unwrap_or(&self.source);
        let _ = write!(self.msg, "{file}:{}: {what}", self.line);
        self.emit(out, kind, "warning");
    }

    /// A statement about a whole run (it failed, it did not finish). Never summarised,
    /// never silenced: it explains the exit status.
    pub(crate) fn note(&mut self, out: &mut Output, what: impl Display) {
        out.begin_err_block();
        let label = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
        out.write_err(b"cursor-stream: ");
        out.write_err_styled(label, b"note");
        out.write_err(format!(": {what}\n").as_bytes());
    }

    /// Sums up the messages that were counted but not shown.
    pub(crate) fn finish(&mut self, out: &mut Output) {
        for i in 0..self.seen.len() {
            let (kind, n) = self.seen[i];
            if n > SHOWN_PER_KIND && !self.quiet {
                out.begin_err_block();
                let hidden = n - SHOWN_PER_KIND;
                out.write_err(
                    format!("cursor-stream: {hidden} more warning(s) not shown: {kind}\n")
                        .as_bytes(),
                );
            }
        }
    }

    fn emit(&mut self, out: &mut Output, kind: &'static str, label: &str) {
        if let Some(to) = &self.defer {
            // What the output holds so far goes first, so that the message keeps its
            // place between the two streams.
            let _ = out.flush();
            to.message(kind, label.to_string(), std::mem::take(&mut self.msg));
            return;
        }
        let n = match self.seen.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.seen.push((kind, 1));
                1
            }
        };
        if self.quiet || n > SHOWN_PER_KIND {
            return;
        }
        out.begin_err_block();
        let style = Style::new().fg_color(Some(AnsiColor::Yellow.into())).bold();
        out.write_err(b"cursor-stream: ");
        out.write_err_styled(style, label.as_bytes());
        out.write_err(b": ");
        out.write_err(self.msg.as_bytes());
        out.write_err(b"\n");
    }
}

/// The start of a line, made safe to print: invalid UTF-8 replaced, control characters
/// (terminal escapes among them) shown escaped, long lines cut.
pub(crate) struct Excerpt<'a>(pub &'a [u8]);

impl Display for Excerpt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Only the start is decoded: a bad line can be many MiB.
        let cut = self.0.len().min(EXCERPT_CHARS * 4);
        let text = super::one_line(&String::from_utf8_lossy(&self.0[..cut]), EXCERPT_CHARS);
        f.write_str(&text)?;
        if cut < self.0.len() && !text.ends_with('…') {
            f.write_str("…")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::out::{OutputMode, testing::capture};

    #[test]
    fn excerpt_is_safe_and_short() {
        let s = Excerpt(b"\x1b[31mred\x1b[0m \xff").to_string();
        assert_eq!(s, "\\u{1b}[31mred\\u{1b}[0m \u{fffd}");
        let long = vec![b'a'; 500];
        let s = Excerpt(&long).to_string();
        assert_eq!(s.chars().count(), EXCERPT_CHARS + 1);
        assert!(s.ends_with('…'));
    }

    #[test]
    fn repeated_warnings_are_summarised() {
        let (mut out, _, err) = capture(OutputMode::default());
        let mut d = Diag::new(false, false);
        d.set_source("run.ndjson");
        for line in 1..=12 {
            d.set_line(line);
            d.bad_line(&mut out, "lines that are not JSON", "not JSON", b"banner")
                .unwrap();
        }
        d.finish(&mut out);
        out.flush().unwrap();
        let text = err.text();
        assert_eq!(text.matches("warning: run.ndjson:").count(), 5, "{text}");
        assert!(text.contains("run.ndjson:5: not JSON: banner"), "{text}");
        assert!(
            text.contains("7 more warning(s) not shown: lines that are not JSON"),
            "{text}"
        );
    }

    #[test]
    fn strict_makes_a_bad_line_fatal() {
        let (mut out, _, _) = capture(OutputMode::default());
        let mut d = Diag::new(true, false);
        d.set_source("x");
        d.set_line(3);
        let err = d.bad_line(&mut out, "k", "not JSON", b"T: hi").unwrap_err();
        assert_eq!(err.0, "x:3: not JSON: T: hi (stopped by --strict)");
    }
}

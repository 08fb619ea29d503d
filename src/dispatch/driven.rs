//! What the dispatcher drives: a library [`Handler`], with the command's hooks around it.

use std::fmt::Display;
use std::sync::Arc;

use crate::agent::event::{RunEnd, RunInfo};
use crate::agent::{AnyDialect, RawLine};
use crate::exit::ExitStatus;
use crate::handler::Handler;
use crate::input::peek::{BadLine, Head, TypeSet};
use crate::out::diag::Unreadable;
use crate::runs::Runs;

/// A [`Handler`] as the dispatcher drives it: the normalized events through the
/// `Handler` methods, and around them what the CLI's views add — raw lines, diagnostics,
/// output flushing, the exit status. Every hook defaults to what a library handler needs:
/// nothing.
pub(crate) trait Driven: Handler {
    /// The handler's error, to travel through the dialects (which speak `anyhow`).
    fn into_anyhow(e: Self::Error) -> anyhow::Error;

    /// The event types [`Driven::before`] and [`Driven::after`] are called for.
    fn raw_types(&self) -> TypeSet {
        TypeSet::NONE
    }

    /// Whether every event line is checked whole (see `input::peek::peek`), not only
    /// those that start, end or decide a run (`check`).
    fn checks_every_line(&self) -> bool {
        false
    }

    /// A new input starts.
    fn input(&mut self, _name: &str) {}

    /// The next line's number in its file, and that file when it is not the input itself
    /// (a sub-agent's log read in with its session's; the same `Arc` while the same file
    /// is read).
    fn line(&mut self, _number: u64, _file: Option<&Arc<str>>) {}

    /// A line went through (the output may be flushed, with `--line-buffered`).
    fn line_done(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// No line is waiting: the next may be a while coming.
    fn idle(&mut self) -> anyhow::Result<()> {
        Ok(())
    }

    /// Reading an input failed.
    fn read_error(&mut self, _name: &str, e: std::io::Error) -> anyhow::Error {
        e.into()
    }

    /// Text glued in front of an event on its line.
    fn glued(&mut self, _noise: &[u8]) {}

    /// An event line of a type in [`Driven::raw_types`], before the dialect reads it.
    /// Returns whether the dialect should read it.
    fn before(
        &mut self,
        _line: &RawLine<'_>,
        _head: &Head,
        _dialect: &AnyDialect,
    ) -> anyhow::Result<bool> {
        Ok(true)
    }

    /// An event line of a type in [`Driven::raw_types`], after the dialect read it.
    fn after(&mut self, _line: &RawLine<'_>, _head: &Head) -> anyhow::Result<()> {
        Ok(())
    }

    /// A blank line, or one without `type` that the dialect read.
    fn blank_line(&mut self, _raw: &[u8]) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line without `type` that the dialect read (a Cursor transcript's messages,
    /// Codex's lines before 0.44): an event, though of no type.
    fn untyped_line(&mut self, line: &RawLine<'_>) -> anyhow::Result<()> {
        self.blank_line(line.raw)
    }

    /// A line that is not an event.
    fn bad_line(&mut self, _line: &RawLine<'_>, _bad: &BadLine) -> anyhow::Result<()> {
        Ok(())
    }

    /// An event the dialect needed could not be read.
    fn unreadable(
        &mut self,
        _what: Unreadable,
        _line: &[u8],
        _err: &dyn Display,
    ) -> anyhow::Result<()> {
        Ok(())
    }

    /// The open run's session id became known after its start.
    fn session_seen(&mut self, _id: &str) {}

    /// The open run's model became known after its start.
    fn model_seen(&mut self, _model: &str) {}

    /// The open run's prompt became known after its start (a stream that echoes it).
    fn prompt_seen(&mut self, _prompt: &str) {}

    /// A session's title (see `Sink::title`).
    fn title(&mut self, _session: Option<&str>, _title: &str) {}

    /// The title of the session that holds a line (see `Sink::title_of_line`).
    fn title_of_line(&mut self, _line: &str, _title: &str) {}

    /// A line's id, in the session being read (see `Sink::line_id`).
    fn line_id(&mut self, _id: &str) {}

    /// A session with no run (see `Sink::empty_session`).
    fn empty_session(&mut self, _info: &RunInfo, _last_ms: Option<u64>) {}

    /// A run is ending, `events` event lines long, `end` says how (before
    /// [`Handler::run_end`]).
    fn ending(&mut self, _run: &RunInfo, _end: &RunEnd<'_>, _events: u64) {}

    /// All inputs are read: the exit status.
    fn finish(&mut self, runs: &Runs) -> anyhow::Result<ExitStatus> {
        Ok(runs.status())
    }
}

//! Views: what the user asked to see. One module per view.
//!
//! A view says which event types it wants ([`View::interest`]); the dispatcher calls it
//! for those only, after a cheap peek, so a view that wants `assistant` events never pays
//! for the large `tool_call` lines. Every view also hears when a run starts and ends.

use crate::answer::Answer;
use crate::diag::{BadInput, Diag, Reading};
use crate::event::{BadLine, EventKind, Head, KindSet, ResultEvent};
use crate::line_buffer::Line;
use crate::output::Output;
use crate::session::{ExitStatus, Outcome, Sessions};

pub mod check;
pub mod events;
pub mod get;
pub mod json;
pub mod progress;
pub mod result;
pub mod stats;
pub mod text;
pub mod thinking;
pub mod tools;

/// What views write through (the output streams, the input diagnostics) and what they
/// may want to know of the current run.
pub struct Ctx {
    pub out: Output,
    pub diag: Diag,
    pub run: RunInfo,
}

impl Ctx {
    pub fn new(out: Output, diag: Diag) -> Ctx {
        Ctx {
            out,
            diag,
            run: RunInfo::default(),
        }
    }

    /// The event read, or `None` once reported as unreadable (see [`Diag::readable`]).
    pub fn readable<T>(
        &mut self,
        what: Reading,
        line: &[u8],
        read: Result<T, serde_json::Error>,
    ) -> Result<Option<T>, BadInput> {
        self.diag.readable(&mut self.out, what, line, read)
    }
}

/// The current run, as its `system/init` event describes it (all empty without one).
#[derive(Debug, Default, Clone)]
pub struct RunInfo {
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub cwd: Option<String>,
}

/// One event the view asked for.
pub struct Event<'a> {
    /// The line without its terminator.
    pub line: &'a [u8],
    /// The line exactly as read, terminator included.
    pub raw: &'a [u8],
    pub head: &'a Head,
}

impl Event<'_> {
    pub fn kind(&self) -> EventKind {
        self.head.kind
    }
}

/// How a run ended, with its `result` event when it had one.
pub struct SessionEnd<'a> {
    pub outcome: &'a Outcome,
    pub result: Option<RunResult<'a>>,
}

/// A `result` event, read, with its decoded text and its original line.
pub struct RunResult<'a> {
    pub event: &'a ResultEvent<'a>,
    /// The answer (`result` field), decoded.
    pub text: &'a [u8],
    pub line: &'a [u8],
}

/// Checks a run's rebuilt answer against its `result`, warning when they differ. Returns
/// the result's text when the run succeeded and no assistant event gave any text (a
/// `--output-format json` line fed in): the caller prints that instead.
pub fn settle_answer<'e>(answer: &Answer, end: &SessionEnd<'e>, ctx: &mut Ctx) -> Option<&'e [u8]> {
    let expected = end.result.as_ref()?.text;
    if answer.is_empty() {
        return (*end.outcome == Outcome::Succeeded).then_some(expected);
    }
    if !answer.matches(expected) {
        ctx.diag.warn(
            &mut ctx.out,
            "rebuilt text differs from result",
            format_args!(
                "the text rebuilt from the assistant events ({} bytes) differs from the \
                 result event's text ({} bytes)",
                answer.len(),
                expected.len()
            ),
        );
    }
    None
}

/// A consumer of events, in the manner of ripgrep's `Sink`: every method has a default
/// that does nothing, and an error ends the run (a closed stdout, or `--strict`).
pub trait View {
    /// The event types [`View::event`] is called for.
    fn interest(&self) -> KindSet {
        KindSet::NONE
    }

    /// Whether runs that fail or end without a result are noted on stderr (the run views
    /// do; the log views report runs in their own output).
    fn reports_runs(&self) -> bool {
        true
    }

    /// The exit status once the input is read; by default the run status (0 / 1 / 3).
    fn exit_status(&self, runs: &Sessions) -> ExitStatus {
        runs.status()
    }

    fn session_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line holding only whitespace.
    fn blank_line(&mut self, _raw: &[u8], _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line that is not an event. Returns whether the view reported it itself; if not,
    /// it is reported on stderr.
    fn bad_line(
        &mut self,
        _bad: &BadLine,
        _line: &Line<'_>,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    fn event(&mut self, _ev: &Event<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    fn session_end(&mut self, _end: &SessionEnd<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// The input is exhausted.
    fn finish(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }
}

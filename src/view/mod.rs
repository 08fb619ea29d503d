//! Views: what the user asked to see. One module per view.
//!
//! A view says which event types it wants ([`View::interest`]); the dispatcher calls it
//! for those only, after a cheap peek, so a view that wants `assistant` events never pays
//! for the large `tool_call` lines. Every view also hears when a run starts and ends.

use crate::diag::Diag;
use crate::event::{EventKind, Head, KindSet, ResultEvent};
use crate::output::Output;
use crate::session::Outcome;

pub mod json;
pub mod result;
pub mod text;

/// What views write through: the output streams and the input diagnostics.
pub struct Ctx {
    pub out: Output,
    pub diag: Diag,
}

/// One event the view asked for.
pub struct Event<'a> {
    /// The line as read, without its terminator.
    pub line: &'a [u8],
    pub head: &'a Head<'a>,
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

/// A `result` event, read, and its original line.
pub struct RunResult<'a> {
    pub event: &'a ResultEvent<'a>,
    pub line: &'a [u8],
}

/// A consumer of events, in the manner of ripgrep's `Sink`: every method has a default
/// that does nothing, and an error ends the run (a closed stdout, or `--strict`).
pub trait View {
    /// The event types [`View::event`] is called for.
    fn interest(&self) -> KindSet {
        KindSet::NONE
    }

    fn session_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
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

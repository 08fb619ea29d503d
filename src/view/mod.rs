//! Views: what the user asked to see, written once against the normalized events (see
//! `agent::event`), whatever the agent. One module per view.
//!
//! A view says what it wants decoded ([`View::wants`]); the run's dialect reads only the
//! lines that can give it, so a view that wants the answer never pays for large tool
//! results. The log views also see lines as they are ([`View::raw_types`]).

use std::fmt::Display;

use crate::agent::event::{Agent, AnswerCheck, Event, RunEnd, RunInfo, Wants};
use crate::agent::{AnyDialect, RawLine};
use crate::exit::ExitStatus;
use crate::input::peek::{BadLine, Head, TypeSet};
use crate::out::Output;
use crate::out::diag::{Diag, Reading};
use crate::runs::Runs;

pub mod check;
pub mod events;
pub(crate) mod filter;
pub mod get;
pub mod json;
pub mod progress;
pub mod result;
pub mod stats;
pub mod text;
pub(crate) mod thinking;
pub mod tools;
pub mod transcript;
pub(crate) mod words;

/// What views write through (the output streams, the input diagnostics) and what they
/// may want to know of the current run.
pub struct Ctx {
    pub out: Output,
    pub diag: Diag,
    pub run: RunInfo,
    /// Event lines of the current run so far.
    pub run_events: u64,
}

impl Ctx {
    pub fn new(out: Output, diag: Diag) -> Ctx {
        Ctx {
            out,
            diag,
            run: RunInfo::new(Agent::Cursor),
            run_events: 0,
        }
    }
}

/// Checks a run's streamed answer against its final answer, warning when they differ.
/// Returns the final answer when the run succeeded and no answer text was streamed (a
/// `--output-format json` line fed in): the caller prints that instead.
pub(crate) fn settle_answer<'e>(end: &RunEnd<'e>, ctx: &mut Ctx) -> Option<&'e [u8]> {
    match end.answer {
        AnswerCheck::NothingStreamed if end.outcome == crate::runs::Outcome::Succeeded => {
            end.final_text
        }
        AnswerCheck::Differs { rebuilt, expected } => {
            ctx.diag.warn(
                &mut ctx.out,
                "rebuilt text differs from result",
                format_args!(
                    "the answer text rebuilt from the stream ({rebuilt} bytes) differs from \
                     the run's final answer ({expected} bytes)"
                ),
            );
            None
        }
        _ => None,
    }
}

/// A consumer of events, in the manner of ripgrep's `Sink`: every method has a default
/// that does nothing, and an error ends the run (a closed stdout, or `--strict`).
pub trait View {
    /// What the run's dialect should decode for [`View::event`].
    fn wants(&self) -> Wants {
        Wants::NONE
    }

    /// The event types [`View::before`] and [`View::after`] are called for.
    fn raw_types(&self) -> TypeSet {
        TypeSet::NONE
    }

    /// Whether runs that fail or end without their terminal event are noted on stderr
    /// (the run views do; the log views report runs in their own output).
    fn reports_runs(&self) -> bool {
        true
    }

    /// The exit status once the input is read; by default the run status (0 / 1 / 3).
    fn exit_status(&self, runs: &Runs) -> ExitStatus {
        runs.status()
    }

    /// An event line of a type in [`View::raw_types`], before the dialect reads it.
    /// Returns whether the dialect should read it (`check` skips lines it found broken).
    fn before(
        &mut self,
        _line: &RawLine<'_>,
        _head: &Head,
        _dialect: &AnyDialect,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(true)
    }

    /// An event line of a type in [`View::raw_types`], after the dialect read it (and the
    /// events it gave reached the view).
    fn after(&mut self, _line: &RawLine<'_>, _head: &Head, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line holding only whitespace, or one that is not an event in the sense of the
    /// peek but that the dialect read (Codex's legacy lines have no `type`).
    fn blank_line(&mut self, _raw: &[u8], _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line that is not an event. Returns whether the view reported it itself; if not,
    /// it is reported on stderr.
    fn bad_line(
        &mut self,
        _line: &RawLine<'_>,
        _bad: &BadLine,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// An event the dialect needed could not be read. Returns whether the view reported
    /// it itself; if not, it is reported on stderr.
    fn unreadable(
        &mut self,
        _what: Reading,
        _err: &dyn Display,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// A run starts; `ctx.run` describes it.
    fn run_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    fn event(&mut self, _ev: &Event<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    fn run_end(&mut self, _end: &RunEnd<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// The input is exhausted.
    fn finish(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }
}

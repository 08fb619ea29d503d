//! What a library user implements: a [`Handler`] of the normalized events. The command's
//! views are driven through it too (`view::ViewHandler`), and so is the dispatcher's
//! `Driven`, which adds the command's hooks.

use std::io;

use crate::agent::event::{Event, RunEnd, RunInfo, Wants};

/// Receives the normalized events of a stream, run by run, as a [`Reader`](crate::Reader) reads them.
///
/// In the manner of ripgrep's `Sink`: every method but the error type has a default that
/// does nothing, so a handler implements only what it needs. For each run, in stream order:
/// [`run_start`](Handler::run_start), then any number of [`event`](Handler::event)s, then
/// [`run_end`](Handler::run_end) — always, also for a run whose stream stopped before its
/// end ([`Outcome::NoEnd`](crate::Outcome::NoEnd)).
///
/// Events borrow from the line being read: a handler that keeps something copies it
/// ([`ToolCall::into_owned`](crate::ToolCall::into_owned), `to_vec`). An error returned by
/// a method stops the reading, and [`Reader::read`](crate::Reader::read) returns it.
///
/// The CLI's views are handlers too: each of them is driven through this trait.
pub trait Handler {
    /// The error a method may return to stop the reading; errors reading the input become
    /// one through `From<io::Error>`. [`io::Error`] will do for most handlers.
    type Error: std::error::Error + From<io::Error> + Send + Sync + 'static;

    /// What the reader should decode: [`Wants::ALL`] by default. Asking for less makes
    /// reading faster — a handler that wants only the answer ([`Wants::TEXT`]) never pays
    /// for parsing tool results — and the events it did not ask for may not come. Run
    /// starts and ends always come.
    fn wants(&self) -> Wants {
        Wants::ALL
    }

    /// A run starts: its agent, and the session, model and directory where the stream says.
    /// A session id the start did not give but a later event did is in the `run` passed to
    /// the next calls.
    fn run_start(&mut self, run: &RunInfo) -> Result<(), Self::Error> {
        let _ = run;
        Ok(())
    }

    /// An event of the open run.
    fn event(&mut self, run: &RunInfo, event: &Event<'_>) -> Result<(), Self::Error> {
        let _ = (run, event);
        Ok(())
    }

    /// The open run ended: how, with its final answer and usage where the stream has them.
    /// Tool calls still open were ended just before, with status `pending`.
    fn run_end(&mut self, run: &RunInfo, end: &RunEnd<'_>) -> Result<(), Self::Error> {
        let _ = (run, end);
        Ok(())
    }
}

impl<H: Handler + ?Sized> Handler for &mut H {
    type Error = H::Error;

    fn wants(&self) -> Wants {
        (**self).wants()
    }

    fn run_start(&mut self, run: &RunInfo) -> Result<(), Self::Error> {
        (**self).run_start(run)
    }

    fn event(&mut self, run: &RunInfo, event: &Event<'_>) -> Result<(), Self::Error> {
        (**self).event(run, event)
    }

    fn run_end(&mut self, run: &RunInfo, end: &RunEnd<'_>) -> Result<(), Self::Error> {
        (**self).run_end(run, end)
    }
}

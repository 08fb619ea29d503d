//! What several dialects read alike: a terminal event that cannot be read, an error
//! object read for its `message`.

use serde::Deserialize;

use super::Sink;
use super::event::{Agent, Outcome, RunEnd};
use crate::input::json::MaybeStr;

/// A terminal event that could not be read ends the run all the same (one is opened for
/// it if none is), as unreadable.
pub(crate) fn end_unreadable<S: Sink>(agent: Agent, sink: &mut S) -> anyhow::Result<()> {
    sink.ensure_run(agent)?;
    sink.end_run(RunEnd {
        outcome: Outcome::Unreadable,
        ..RunEnd::unfinished()
    })
}

/// An error object read for its message, `{"message":"…"}` (Claude's and Qwen's
/// `result.error`, Codex's `turn.failed` and failed items).
#[derive(Deserialize, Default)]
pub(crate) struct ErrorMessage<'a> {
    #[serde(borrow, default)]
    pub message: MaybeStr<'a>,
}

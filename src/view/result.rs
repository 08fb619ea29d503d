//! `result`: the final answer of each run, as the agent defines it.
//!
//! Cursor, Claude and Qwen: the `result` event's text (only those lines are parsed).
//! Codex: the last `agent_message` of a completed turn. Gemini: the text after the last
//! tool round (its stream has no final text). OpenCode: the text of the step that
//! finished with reason `stop`. Each run's answer is followed by a newline, as
//! `jq -r .result` prints it. A failed run's text (often the error) is printed too; the
//! exit status and the note on stderr tell it apart.

use crate::agent::event::{RunEnd, Wants};
use crate::view::{Ctx, View};

#[derive(Debug, Default)]
pub(crate) struct ResultView;

impl View for ResultView {
    fn wants(&self) -> Wants {
        Wants::FINAL
    }

    /// Each run's answer owes nothing to the other runs: many files (a folder of session
    /// logs) are read by a worker per core.
    fn fork(&self) -> Option<Self> {
        Some(ResultView)
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if let Some(text) = end.final_text {
            ctx.out.write_out(text)?;
            ctx.out.write_out(b"\n")?;
        }
        Ok(())
    }
}

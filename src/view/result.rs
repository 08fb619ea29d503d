//! `result`: the final answer of each run, from its `result` event.
//!
//! Only `result` lines are parsed; everything else is skipped after the type peek. Each
//! run's text is followed by a newline, as `jq -r .result` prints it. A failed run's text
//! (often the error) is printed too; the exit status and the note on stderr tell it apart.

use crate::view::{Ctx, SessionEnd, View};

#[derive(Debug, Default)]
pub struct ResultView;

impl View for ResultView {
    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if let Some(result) = &end.result {
            ctx.out.write_out(result.text)?;
            ctx.out.write_out(b"\n")?;
        }
        Ok(())
    }
}

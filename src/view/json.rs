//! `json`: what `agent -p --output-format json` would have printed.
//!
//! That format is the `result` event alone, as one JSON object and a newline, and only
//! for a successful run; a failed run prints nothing on stdout and fails. The object is
//! the original line, byte for byte: the event's fields, the ones the CLI adds (`usage`,
//! `request_id`) and any future ones, in the CLI's order.

use crate::session::Outcome;
use crate::view::{Ctx, SessionEnd, View};

#[derive(Debug, Default)]
pub struct JsonView;

impl View for JsonView {
    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if let (Outcome::Succeeded, Some(result)) = (end.outcome, &end.result) {
            ctx.out.write_out(result.line)?;
            ctx.out.write_out(b"\n")?;
        }
        Ok(())
    }
}

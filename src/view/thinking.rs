//! Showing `thinking` events (the model's reasoning) apart from the answer: each phase on
//! its own lines, marked `[thinking]`, dimmed where styles are on.

use anstyle::Style;

use crate::diag::Reading;
use crate::event::{self, ThinkingPhase};
use crate::output::Channel;
use crate::view::{Ctx, Event};

pub struct Thinking {
    channel: Channel,
    /// A phase has been written and not yet ended with a newline.
    open: bool,
    text: Vec<u8>,
}

impl Thinking {
    pub fn new(channel: Channel) -> Thinking {
        Thinking {
            channel,
            open: false,
            text: Vec::new(),
        }
    }

    pub fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.text.clear();
        let read = event::read_thinking(ev.line, &mut self.text);
        let Some(phase) = ctx.readable(Reading::Thinking, ev.line, read)? else {
            return Ok(());
        };
        if !self.text.is_empty() {
            let dim = Style::new().dimmed().italic();
            if !self.open {
                ctx.out.begin_line(self.channel)?;
                ctx.out.write_styled(self.channel, dim, b"[thinking] ")?;
                self.open = true;
            }
            ctx.out.write_styled(self.channel, dim, &self.text)?;
        }
        if phase == ThinkingPhase::Completed {
            self.close(ctx)?;
        }
        Ok(())
    }

    /// Ends the phase's line, if one is open (before anything else is written).
    pub fn close(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.open {
            self.open = false;
            ctx.out.write_styled(self.channel, Style::new(), b"\n")?;
        }
        Ok(())
    }
}

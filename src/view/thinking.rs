//! Showing the model's reasoning apart from the answer, for `text` and `progress`: each
//! phase on its own lines, marked `[thinking]`, dimmed where styles are on.

use anstyle::Style;

use crate::out::Channel;
use crate::view::Ctx;

pub struct Thinking {
    channel: Channel,
    /// A phase has been written and not yet ended with a newline.
    open: bool,
}

impl Thinking {
    pub fn new(channel: Channel) -> Thinking {
        Thinking {
            channel,
            open: false,
        }
    }

    /// Reasoning text; `done` ends the phase.
    pub fn show(&mut self, text: &[u8], done: bool, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !text.is_empty() {
            let dim = Style::new().dimmed().italic();
            if !self.open {
                ctx.out.begin_line(self.channel)?;
                ctx.out.write_styled(self.channel, dim, b"[thinking] ")?;
                self.open = true;
            }
            ctx.out.write_styled(self.channel, dim, text)?;
        }
        if done {
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

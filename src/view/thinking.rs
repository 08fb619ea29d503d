//! Showing the model's reasoning apart from the answer, for `text` and `progress`: each
//! phase on its own lines, marked `[thinking]`, dimmed where styles are on.

use anstyle::Style;

use crate::out::Channel;
use crate::view::Ctx;

pub struct Thinking {
    channel: Channel,
    /// A phase has been written and not yet ended with a newline.
    open: bool,
    /// The last two bytes of the open phase's text.
    tail: [u8; 2],
}

impl Thinking {
    pub fn new(channel: Channel) -> Thinking {
        Thinking {
            channel,
            open: false,
            tail: [0, 0],
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
                self.tail = [0, 0];
            } else if starts_summary(text)
                && matches!(self.tail[1], b'.' | b'!' | b'?' | b':' | b')' | b'\n')
            {
                // Some models' reasoning comes as summaries, each under a bold title,
                // streamed in one phase and sometimes with nothing between them:
                // `…actions.**Executing commands**`. Kept apart as messages are.
                let breaks = match self.tail {
                    [b'\n', b'\n'] => 2,
                    [_, b'\n'] => 1,
                    _ => 0,
                } + text.iter().take(2).take_while(|&&b| b == b'\n').count();
                ctx.out
                    .write_styled(self.channel, dim, &b"\n\n"[breaks.min(2)..])?;
            }
            ctx.out.write_styled(self.channel, dim, text)?;
            self.tail = match text {
                [.., a, b] => [*a, *b],
                [b] => [self.tail[1], *b],
                [] => self.tail,
            };
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

/// Whether reasoning text opens a new summary: a bold title at its start, after at most
/// the line breaks that would separate it.
fn starts_summary(text: &[u8]) -> bool {
    let text = &text[text.iter().take_while(|&&b| b == b'\n').count()..];
    text.starts_with(b"**") && text.get(2).is_some_and(|b| b.is_ascii_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::out::OutputMode;
    use crate::out::diag::Diag;
    use crate::out::testing::capture;

    fn shown(deltas: &[&str]) -> String {
        let (out, stdout, _) = capture(OutputMode::default());
        let mut ctx = Ctx::new(out, Diag::new(false, false));
        let mut t = Thinking::new(Channel::Out);
        for d in deltas {
            t.show(d.as_bytes(), false, &mut ctx).unwrap();
        }
        t.close(&mut ctx).unwrap();
        ctx.out.flush().unwrap();
        stdout.text()
    }

    #[test]
    fn summaries_in_one_phase_are_kept_apart() {
        assert_eq!(
            shown(&[
                "**Planning**\n\nI will",
                " act.",
                "**Executing commands**\n\nNow."
            ]),
            "[thinking] **Planning**\n\nI will act.\n\n**Executing commands**\n\nNow.\n"
        );
        // One line break already there: one more makes the blank line.
        assert_eq!(
            shown(&["Done.", "\n**Next**"]),
            "[thinking] Done.\n\n**Next**\n"
        );
        // Bold within a sentence, or a delta that only closes bold text, is left alone.
        assert_eq!(
            shown(&["This is", " **very**", " bold and ", "**this** too."]),
            "[thinking] This is **very** bold and **this** too.\n"
        );
    }
}

//! Showing the model's reasoning apart from the answer, for `text` and `progress`: each
//! phase on its own lines, marked `[thinking]`, dimmed where styles are on.

use anstyle::Style;

use crate::out::Channel;
use crate::view::Ctx;

pub(crate) struct Thinking {
    channel: Channel,
    /// A phase has been written and not yet ended with a newline.
    open: bool,
    /// The last byte of the phase written so far.
    last: u8,
    /// `*`s that ended the last piece, held back until the next one tells whether they
    /// open a summary's title (at most two bytes).
    held: Vec<u8>,
}

impl Thinking {
    pub(crate) fn new(channel: Channel) -> Thinking {
        Thinking {
            channel,
            open: false,
            last: 0,
            held: Vec::new(),
        }
    }

    /// Reasoning text; `done` ends the phase.
    pub(crate) fn show(&mut self, text: &[u8], done: bool, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !text.is_empty() {
            let dim = Style::new().dimmed().italic();
            if !self.open {
                ctx.out.begin_line(self.channel)?;
                ctx.out.write_styled(self.channel, dim, b"[thinking] ")?;
                self.open = true;
                self.last = 0;
            }
            let mut text = std::mem::take(&mut self.held)
                .into_iter()
                .chain(text.iter().copied())
                .collect::<Vec<u8>>();
            // Bold `*`s at the end may be the start of a title: wait for what follows.
            let keep = text.len()
                - text
                    .iter()
                    .rev()
                    .take(2)
                    .take_while(|&&b| b == b'*')
                    .count();
            self.held = text.split_off(keep);
            let mut start = 0;
            for at in summary_starts(self.last, &text) {
                ctx.out.write_styled(self.channel, dim, &text[start..at])?;
                ctx.out.write_styled(self.channel, dim, b"\n\n")?;
                start = at;
            }
            ctx.out.write_styled(self.channel, dim, &text[start..])?;
            if let Some(&b) = text.last() {
                self.last = b;
            }
        }
        if done {
            self.close(ctx)?;
        }
        Ok(())
    }

    /// Ends the phase's line, if one is open (before anything else is written).
    pub(crate) fn close(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.open {
            self.open = false;
            let held = std::mem::take(&mut self.held);
            ctx.out
                .write_styled(self.channel, Style::new().dimmed().italic(), &held)?;
            ctx.out.write_styled(self.channel, Style::new(), b"\n")?;
        }
        Ok(())
    }
}

/// Where summaries start in `text` with nothing between them and the sentence before:
/// `…actions.**Executing commands**` — some models stream their reasoning as summaries under
/// bold titles, in one phase. `last` is the byte written before `text`. Only right after a
/// sentence's end, so bold words inside a sentence or a list stay where they are.
fn summary_starts(last: u8, text: &[u8]) -> Vec<usize> {
    (0..text.len())
        .filter(|&i| {
            let before = if i == 0 { last } else { text[i - 1] };
            matches!(before, b'.' | b'!' | b'?')
                && text[i..].starts_with(b"**")
                && text.get(i + 2).is_some_and(u8::is_ascii_alphanumeric)
        })
        .collect()
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
        // However the deltas split the place.
        for split in [
            &["additional actions.**", "Executing commands**"][..],
            &["additional actions", ".**Executing commands**"],
            &["additional actions.*", "*Executing commands**"],
            &["additional actions.**Executing commands**"],
        ] {
            assert_eq!(
                shown(split),
                "[thinking] additional actions.\n\n**Executing commands**\n",
                "{split:?}"
            );
        }
        // Bold within a sentence, after a colon, a parenthesis or a line break, or a delta
        // that only closes bold text, is left alone.
        for text in [
            &["This is", " **very**", " bold and ", "**this** too."][..],
            &["Two options:\n", "**Keep** the flag.\n", "**Drop** it."],
            &["I call it (the helper)", "**really** matters here."],
            &["Done.\n", "**Next**"],
        ] {
            assert_eq!(shown(text), format!("[thinking] {}\n", text.concat()));
        }
        // A phase that ends on `*` keeps it.
        assert_eq!(shown(&["stars **"]), "[thinking] stars **\n");
    }
}

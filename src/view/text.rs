//! `text`: the assistant's answer, live, exactly once, for every agent.
//!
//! The dialects give the answer already deduplicated (see `agent`); this view writes it as
//! it comes. Pieces the agent sends as separate messages (Claude, Qwen, Codex, OpenCode)
//! are kept apart by a blank line; Cursor's and Gemini's segments are joined with nothing,
//! as their own result joins them. `--separator` replaces both. Each run's answer is
//! checked against the run's final answer: a difference is reported on stderr. A run with
//! a final answer but no streamed text (a `--output-format json` line fed in) prints the
//! final answer.

use crate::agent::event::{Event, RunEnd, RunInfo, Wants};
use crate::out::Channel;
use crate::view::thinking::Thinking;
use crate::view::{Ctx, View, settle_answer};

#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// Written between segments (the text before and after a round of tool calls, or two
    /// messages).
    pub separator: Option<Vec<u8>>,
    /// Show the reasoning on stderr.
    pub thinking: bool,
}

pub(crate) struct TextView {
    opts: TextOptions,
    answer: AnswerWriter,
    thinking: Thinking,
    /// The previous run's text did not end its line: the next run starts on a new one.
    newline_due: bool,
}

/// Writes a run's answer with the separation due between its segments (`text` and
/// `progress` share it).
#[derive(Default)]
pub(crate) struct AnswerWriter {
    separator: Option<Vec<u8>>,
    /// The run's agent keeps messages apart.
    paragraphs: bool,
    /// Answer text was written in this run; its last two bytes (0 before the second).
    wrote: bool,
    tail: [u8; 2],
    /// A segment ended after this run's last text: the separator is due.
    separator_due: bool,
}

impl AnswerWriter {
    pub(crate) fn new(separator: Option<Vec<u8>>) -> AnswerWriter {
        AnswerWriter {
            separator,
            ..AnswerWriter::default()
        }
    }

    pub(crate) fn run_start(&mut self, run: &RunInfo) {
        self.paragraphs = run.messages_apart || run.agent.separates_messages();
        self.wrote = false;
        self.tail = [0, 0];
        self.separator_due = false;
    }

    /// Answer text, with whatever separation is due before it.
    pub(crate) fn text(&mut self, text: &[u8], ctx: &mut Ctx) -> anyhow::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.separator_due {
            self.separator_due = false;
            match &self.separator {
                Some(sep) => ctx.out.write_out(sep)?,
                None if self.paragraphs => ctx.out.write_out(paragraph_break(self.tail, text))?,
                None => {}
            }
        }
        ctx.out.write_out(text)?;
        self.wrote = true;
        self.tail = match text {
            [.., a, b] => [*a, *b],
            [b] => [self.tail[1], *b],
            [] => self.tail,
        };
        Ok(())
    }

    /// A segment ends: separation is due before more text.
    pub(crate) fn segment(&mut self) {
        self.separator_due = self.wrote;
    }

    /// Something else was written on its own lines between the answer's pieces (`progress`
    /// writes activity lines there): that keeps them apart already.
    pub(crate) fn set_apart(&mut self) {
        if self.wrote {
            self.tail = [b'\n', b'\n'];
        }
    }

    /// The run ended: its final answer is written when no text was streamed.
    pub(crate) fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if let Some(text) = settle_answer(end, ctx) {
            self.separator_due = false;
            self.text(text, ctx)?;
        }
        Ok(())
    }
}

/// What keeps a message apart from the one before it: a blank line, completing whatever
/// line breaks the previous message ended with and the next one starts with.
fn paragraph_break(tail: [u8; 2], next: &[u8]) -> &'static [u8] {
    let ending = match tail {
        [b'\n', b'\n'] => 2,
        [_, b'\n'] => 1,
        _ => 0,
    };
    let starting = next.iter().take(2).take_while(|&&b| b == b'\n').count();
    &b"\n\n"[(ending + starting).min(2)..]
}

impl TextView {
    pub(crate) fn new(opts: TextOptions) -> TextView {
        TextView {
            answer: AnswerWriter::new(opts.separator.clone()),
            opts,
            thinking: Thinking::new(Channel::Err),
            newline_due: false,
        }
    }
}

impl View for TextView {
    fn wants(&self) -> Wants {
        if self.opts.thinking {
            Wants::TEXT | Wants::THINKING | Wants::THINKING_TEXT
        } else {
            Wants::TEXT
        }
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.answer.run_start(&ctx.run);
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev {
            Event::Text([]) => Ok(()),
            Event::Text(text) => {
                self.thinking.close(ctx)?;
                if std::mem::take(&mut self.newline_due) {
                    ctx.out.write_out(b"\n")?;
                }
                self.answer.text(text, ctx)
            }
            Event::Segment => {
                self.answer.segment();
                Ok(())
            }
            Event::Thinking { text, done } => self.thinking.show(text, *done, ctx),
            _ => Ok(()),
        }
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        if let Some(text) = settle_answer(end, ctx).filter(|t| !t.is_empty()) {
            if std::mem::take(&mut self.newline_due) {
                ctx.out.write_out(b"\n")?;
            }
            ctx.out.write_out(text)?;
        }
        self.newline_due = !ctx.out.out_at_line_start();
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        Ok(ctx.out.end_terminal_line()?)
    }

    /// A run's answer owes nothing to the runs before it but the newline due when the
    /// last one left its line open: that the view writes before a copy's first bytes
    /// ([`View::before_forked_output`]), where the output is what one view would have
    /// written. (Forked only to a stdout that is not a terminal.)
    fn fork(&self) -> Option<Self> {
        Some(TextView::new(self.opts.clone()))
    }

    fn before_forked_output(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !ctx.out.out_at_line_start() {
            ctx.out.write_out(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_kept_apart_by_one_blank_line() {
        assert_eq!(paragraph_break(*b"a.", b"Next"), b"\n\n");
        assert_eq!(paragraph_break(*b".\n", b"Next"), b"\n");
        assert_eq!(paragraph_break(*b"\n\n", b"Next"), b"");
        assert_eq!(paragraph_break([0, b'\n'], b"Next"), b"\n");
        assert_eq!(paragraph_break(*b"a.", b"\n\nNext"), b"");
        assert_eq!(paragraph_break(*b"a.", b"\nNext"), b"\n");
    }
}

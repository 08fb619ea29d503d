//! `text`: the assistant's answer, live, exactly once.
//!
//! The answer is rebuilt by [`Answer`] (see there why that is not "concatenate every
//! assistant event"). Each run's answer is checked against its `result`: a difference is
//! reported on stderr. A run with a `result` but no assistant text at all (a
//! `--output-format json` line fed in) prints the result's text.

use crate::answer::Answer;
use crate::diag::Reading;
use crate::event::{EventKind, KindSet};
use crate::output::Channel;
use crate::view::thinking::Thinking;
use crate::view::{Ctx, Event, SessionEnd, View, settle_answer};

#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// Written between segments (the text before and after a round of tool calls).
    pub separator: Option<Vec<u8>>,
    /// Show the reasoning on stderr.
    pub thinking: bool,
}

pub struct TextView {
    opts: TextOptions,
    answer: Answer,
    layout: Layout,
    thinking: Thinking,
}

/// What goes around the answer's text: separators between segments, newlines between runs.
#[derive(Default)]
struct Layout {
    separator: Option<Vec<u8>>,
    /// A tool call came after this run's last text: the separator is due.
    separator_due: bool,
    /// The previous run's text did not end its line: the next run starts on a new one.
    newline_due: bool,
}

impl TextView {
    pub fn new(opts: TextOptions) -> TextView {
        TextView {
            layout: Layout {
                separator: opts.separator.clone(),
                ..Layout::default()
            },
            opts,
            answer: Answer::default(),
            thinking: Thinking::new(Channel::Err),
        }
    }

    fn assistant(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ctx.readable(Reading::Assistant, ev.line, self.answer.assistant(ev.line))? {
            None | Some([]) => Ok(()),
            Some(new) => {
                self.thinking.close(ctx)?;
                self.layout.write(new, ctx)
            }
        }
    }
}

impl Layout {
    /// Writes answer text, with whatever separation is due before it.
    fn write(&mut self, text: &[u8], ctx: &mut Ctx) -> anyhow::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.newline_due {
            ctx.out.write_out(b"\n")?;
            self.newline_due = false;
        }
        if self.separator_due {
            if let Some(sep) = &self.separator {
                ctx.out.write_out(sep)?;
            }
            self.separator_due = false;
        }
        ctx.out.write_out(text)?;
        Ok(())
    }
}

impl View for TextView {
    fn interest(&self) -> KindSet {
        let answer = KindSet::of(&[EventKind::Assistant, EventKind::ToolCall]);
        if self.opts.thinking {
            answer.union(KindSet::of(&[EventKind::Thinking]))
        } else {
            answer
        }
    }

    fn session_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        self.answer.reset();
        self.layout.separator_due = false;
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev.kind() {
            EventKind::Assistant => self.assistant(ev, ctx),
            EventKind::ToolCall => {
                self.answer.tool_call();
                self.layout.separator_due = !self.answer.is_empty();
                Ok(())
            }
            EventKind::Thinking => self.thinking.event(ev, ctx),
            _ => Ok(()),
        }
    }

    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        if let Some(text) = settle_answer(&self.answer, end, ctx) {
            self.layout.separator_due = false;
            self.layout.write(text, ctx)?;
        }
        self.layout.newline_due = !ctx.out.out_at_line_start();
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        Ok(ctx.out.end_terminal_line()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::samples::*;
    use crate::diag::Diag;
    use crate::dispatch::Dispatcher;
    use crate::output::{OutputMode, testing::capture};
    use crate::session::ExitStatus;

    fn run(input: &str, opts: TextOptions) -> (String, String, ExitStatus) {
        let (out, stdout, stderr) = capture(OutputMode::default());
        let ctx = Ctx::new(out, Diag::new(false, false));
        let mut d = Dispatcher::new(TextView::new(opts), ctx, None);
        d.feed("test", std::io::Cursor::new(input.as_bytes().to_vec()))
            .unwrap();
        let status = d.finish().unwrap();
        (stdout.text(), stderr.text(), status)
    }

    fn text(input: &str) -> String {
        run(input, TextOptions::default()).0
    }

    const TOOL: &str = r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{}}"#;
    fn lines(ls: &[&str]) -> String {
        ls.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn non_partial_mode_keeps_the_only_copies() {
        let input = lines(&[SEG_FLUSH, TOOL, FINAL_WORLD]);
        assert_eq!(text(&input), "Hello world");
    }

    #[test]
    fn separator_goes_between_segments_only() {
        let input = lines(&[
            DELTA_A,
            DELTA_B,
            SEG_FLUSH,
            TOOL,
            TOOL,
            DELTA_C,
            FINAL_WORLD,
        ]);
        let opts = TextOptions {
            separator: Some(b"\n--\n".to_vec()),
            thinking: false,
        };
        assert_eq!(run(&input, opts).0, "Hello\n--\n world");
    }

    #[test]
    fn result_mismatch_is_reported() {
        let res = r#"{"type":"result","subtype":"success","is_error":false,"result":"Goodbye"}"#;
        let (out, err, status) = run(&lines(&[SEG_FLUSH, res]), TextOptions::default());
        assert_eq!(out, "Hello");
        assert!(
            err.contains("differs from the result event's text"),
            "{err}"
        );
        assert_eq!(status, ExitStatus::SUCCESS);
    }

    #[test]
    fn result_alone_prints_its_text() {
        let res = r#"{"type":"result","subtype":"success","is_error":false,"result":"Only this"}"#;
        assert_eq!(text(&lines(&[res])), "Only this");
    }

    #[test]
    fn runs_are_separated_by_a_newline() {
        let res = r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello"}"#;
        let init = r#"{"type":"system","subtype":"init","session_id":"s2"}"#;
        let input = lines(&[SEG_FLUSH, res, init, SEG_FLUSH, res]);
        let (out, err, status) = run(&input, TextOptions::default());
        assert_eq!(out, "Hello\nHello");
        assert_eq!(err, "");
        assert_eq!(status, ExitStatus::SUCCESS);
    }

    #[test]
    fn thinking_goes_to_stderr_apart_from_the_answer() {
        let t1 = r#"{"type":"thinking","subtype":"delta","text":"Let me ","timestamp_ms":1}"#;
        let t2 = r#"{"type":"thinking","subtype":"delta","text":"think.","timestamp_ms":1}"#;
        let tc = r#"{"type":"thinking","subtype":"completed","timestamp_ms":1}"#;
        let input = lines(&[t1, t2, tc, SEG_FLUSH]);
        let (out, err, _) = run(
            &input,
            TextOptions {
                separator: None,
                thinking: true,
            },
        );
        assert_eq!(out, "Hello");
        assert!(err.starts_with("[thinking] Let me think.\n"), "{err}");
        let (out, err, _) = run(&input, TextOptions::default());
        assert_eq!(out, "Hello");
        assert!(!err.contains("think"), "{err}");
    }
}

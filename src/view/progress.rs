//! `progress`: a live activity log — one short line per action as it happens, the
//! assistant's answer in between, and a footer per run — for every agent.
//!
//! ```text
//! ▶ Composer 2.5 · /home/dev/greeter · session 3f9c1b7a-6e2d-4a8b-9c0d-1e2f3a4b5c6d
//! I'll find where the flags are parsed.
//! ✓ Searched 'clap::Parser' in src (1 match)
//! Flags live in `src/main.rs`. Adding `--shout`:
//! ✓ Edited /home/dev/greeter/src/main.rs (+3 −0)
//! ✓ Ran `cargo test` (exit 0, 3.2 s)
//! Done: `greeter --shout Ada` now prints `HELLO, ADA!`. All 4 tests pass.
//! ■ success · 8.1 s · 3 tools: 3 ok · tokens: 12,840 in, 356 out, 9,984 cache read
//! ```
//!
//! A tool call's line is written when it ends (its outcome is known then), in the order
//! calls end. With `--activity-stderr` the activity lines and footers go to stderr and
//! stdout holds only the answer, as `text` writes it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use anstyle::{AnsiColor, Style};

use crate::agent::event::{
    Event, NoticeKind, Outcome, RunEnd, StatusClass, ToolEnd, ToolKind, Wants,
};
use crate::out::{Channel, escape_line, fit};
use crate::view::text::AnswerWriter;
use crate::view::thinking::Thinking;
use crate::view::{Ctx, View, words};

#[derive(Debug, Clone, Default)]
pub struct ProgressOptions {
    /// Activity lines and footers on stderr; stdout keeps only the answer.
    pub activity_stderr: bool,
    pub thinking: bool,
}

pub(crate) struct ProgressView {
    opts: ProgressOptions,
    channel: Channel,
    /// The answer is written as `text` writes it.
    answer: AnswerWriter,
    thinking: Thinking,
    /// Calls of the current run by status, for the footer.
    counts: BTreeMap<String, u64>,
}

impl ProgressView {
    pub(crate) fn new(opts: ProgressOptions) -> ProgressView {
        let channel = if opts.activity_stderr {
            Channel::Err
        } else {
            Channel::Out
        };
        ProgressView {
            opts,
            channel,
            answer: AnswerWriter::new(None),
            thinking: Thinking::new(channel),
            counts: BTreeMap::new(),
        }
    }

    /// The room for an activity line's text after its mark, on a terminal.
    fn room(&self, ctx: &Ctx, mark: &str) -> Option<usize> {
        let width = ctx.out.width(self.channel)?;
        Some(width.saturating_sub(fit::width(mark) + 1))
    }

    /// One line of activity, on a line of its own (on a terminal, cut to its width).
    fn activity(
        &mut self,
        ctx: &mut Ctx,
        mark: &str,
        color: AnsiColor,
        text: &str,
    ) -> anyhow::Result<()> {
        let text = match self.room(ctx, mark) {
            Some(room) => fit::cut_end(text, room),
            None => Cow::Borrowed(text),
        };
        self.thinking.close(ctx)?;
        ctx.out.begin_line(self.channel)?;
        let style = Style::new().fg_color(Some(color.into()));
        ctx.out
            .write_styled(self.channel, style.bold(), mark.as_bytes())?;
        ctx.out
            .write_styled(self.channel, style, format!(" {text}").as_bytes())?;
        ctx.out.write_styled(self.channel, Style::new(), b"\n")?;
        if self.channel == Channel::Out {
            self.answer.set_apart();
        }
        Ok(())
    }

    fn tool_ended(&mut self, end: &ToolEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let call = end.call;
        let status = end.status;
        *self
            .counts
            .entry(words::status_word(status).to_string())
            .or_default() += 1;
        let target = words::target(call.target.as_deref(), call.kind, ctx.run.cwd.as_deref());
        if status.class == StatusClass::Pending {
            let mark = "…";
            let line = words::fit_sentence(self.room(ctx, mark), call.kind, &target, |t| {
                format!("Still running: {}", words::tool_and_target(&call.tool, t))
            });
            return self.activity(ctx, mark, AnsiColor::Cyan, &line);
        }
        let (mark, color) = match status.class {
            StatusClass::Ok => ("✓", AnsiColor::Green),
            StatusClass::Rejected => ("✗", AnsiColor::Yellow),
            StatusClass::Unknown | StatusClass::Pending => ("?", AnsiColor::Cyan),
            StatusClass::Failed => ("✗", AnsiColor::Red),
        };
        let line = words::fit_sentence(self.room(ctx, mark), call.kind, &target, |t| {
            words::describe(
                call.kind,
                &call.tool,
                t,
                status,
                end.effect,
                end.duration_ms(),
            )
        });
        self.activity(ctx, mark, color, &line)
    }

    fn footer(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let mut parts = vec![match &end.outcome {
            Outcome::Succeeded => "success".to_string(),
            Outcome::Failed { reason } => format!("failed ({reason})"),
            Outcome::Unreadable => "failed (unreadable result)".to_string(),
            Outcome::NoEnd => "no result: the run did not finish".to_string(),
        }];
        if let Some(ms) = end.duration_ms {
            parts.push(words::duration(ms));
        }
        let total: u64 = self.counts.values().sum();
        if total > 0 {
            let list = words::status_order(&self.counts);
            parts.push(format!(
                "{}: {}",
                words::count(total, "tool", "tools"),
                list.join(", ")
            ));
        }
        if let Some(usage) = &end.usage {
            parts.push(format!("tokens: {}", words::tokens(usage)));
            if let Some(cost) = usage.cost_usd {
                parts.push(format!("${cost:.4}"));
            }
        }
        let color = match end.outcome {
            Outcome::Succeeded => AnsiColor::Green,
            _ => AnsiColor::Red,
        };
        self.counts.clear();
        self.activity(ctx, "■", color, &parts.join(" · "))
    }
}

impl View for ProgressView {
    fn wants(&self) -> Wants {
        let wants = Wants::TEXT | Wants::TOOLS | Wants::TOOL_DETAILS | Wants::NOTICES;
        if self.opts.thinking {
            wants | Wants::THINKING | Wants::THINKING_TEXT
        } else {
            wants
        }
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.counts.clear();
        self.answer.run_start(&ctx.run);
        let run = &ctx.run;
        let mark = "▶";
        let room = self.room(ctx, mark);
        // On a terminal the directory reads `~/…`, and is what gets shortened first.
        let cwd = run.cwd.as_deref().map(|cwd| match room {
            Some(_) => escape_line(&words::tilde(cwd)),
            None => escape_line(cwd),
        });
        let session = run.session_id.as_deref().map(escape_line);
        let line = |cwd: Option<&str>, session: Option<&str>| {
            [
                run.model.as_deref().map(escape_line),
                cwd.map(str::to_string),
                session.map(|s| format!("session {s}")),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<String>>()
            .join(" · ")
        };
        let mut text = line(cwd.as_deref(), session.as_deref());
        if let Some(room) = room.filter(|&room| fit::width(&text) > room) {
            // Too wide: the session as `stats` shows it (its first 8 characters), then the
            // directory shortened.
            let session = session.as_deref().map(words::short_session);
            let session = session.as_deref();
            text = match &cwd {
                Some(cwd) => {
                    words::fit_sentence(Some(room), ToolKind::List, cwd, |c| line(Some(c), session))
                }
                None => line(None, session),
            };
        }
        if text.is_empty() {
            return Ok(());
        }
        self.activity(ctx, mark, AnsiColor::Blue, &text)
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev {
            Event::Text(text) => {
                self.thinking.close(ctx)?;
                self.answer.text(text, ctx)
            }
            Event::Segment => {
                self.answer.segment();
                Ok(())
            }
            Event::Thinking { text, done } => self.thinking.show(text, *done, ctx),
            Event::ToolEnded(end) => self.tool_ended(end, ctx),
            Event::Notice(notice) => {
                let (mark, color) = match notice.kind {
                    NoticeKind::Retry | NoticeKind::Recovered => ("↻", AnsiColor::Yellow),
                    NoticeKind::Warning => ("⚠", AnsiColor::Yellow),
                    NoticeKind::Error => ("✗", AnsiColor::Red),
                };
                self.activity(ctx, mark, color, &escape_line(&notice.text))
            }
            Event::ToolStarted { .. } | Event::Billed(_) | Event::Limit(_) => Ok(()),
        }
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        self.answer.run_end(end, ctx)?;
        self.footer(end, ctx)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        Ok(ctx.out.end_terminal_line()?)
    }
}

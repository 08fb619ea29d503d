//! `progress`: a live activity log — one short line per action as it happens, the
//! assistant's answer in between, and a footer per run.
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
//! A tool call's line is written when it completes (its outcome is known then), in the
//! order calls complete. With `--activity-stderr` the activity lines and footers go to
//! stderr and stdout holds only the answer, as `text` writes it.

use std::collections::BTreeMap;

use anstyle::{AnsiColor, Style};

use crate::answer::Answer;
use crate::calls::CallTracker;
use crate::diag::Reading;
use crate::event::{EventKind, KindSet};
use crate::human;
use crate::output::Channel;
use crate::session::Outcome;
use crate::tool_call::{self, Args, ArgsSummary, OutcomeSummary, Phase};
use crate::view::thinking::Thinking;
use crate::view::{Ctx, Event, SessionEnd, View, settle_answer};

#[derive(Debug, Clone, Default)]
pub struct ProgressOptions {
    /// Activity lines and footers on stderr; stdout keeps only the answer.
    pub activity_stderr: bool,
    pub thinking: bool,
}

pub struct ProgressView {
    opts: ProgressOptions,
    channel: Channel,
    answer: Answer,
    thinking: Thinking,
    tracker: CallTracker<ArgsSummary>,
    /// Calls of the current run by status, for the footer.
    counts: BTreeMap<String, u64>,
}

impl ProgressView {
    pub fn new(opts: ProgressOptions) -> ProgressView {
        let channel = if opts.activity_stderr {
            Channel::Err
        } else {
            Channel::Out
        };
        ProgressView {
            opts,
            channel,
            answer: Answer::default(),
            thinking: Thinking::new(channel),
            tracker: CallTracker::default(),
            counts: BTreeMap::new(),
        }
    }

    /// One line of activity, on a line of its own.
    fn activity(
        &mut self,
        ctx: &mut Ctx,
        mark: &str,
        color: AnsiColor,
        text: &str,
    ) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        ctx.out.begin_line(self.channel)?;
        let style = Style::new().fg_color(Some(color.into()));
        ctx.out
            .write_styled(self.channel, style.bold(), mark.as_bytes())?;
        ctx.out
            .write_styled(self.channel, style, format!(" {text}").as_bytes())?;
        ctx.out.write_styled(self.channel, Style::new(), b"\n")?;
        Ok(())
    }

    fn assistant(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ctx.readable(Reading::Assistant, ev.line, self.answer.assistant(ev.line))? {
            None | Some([]) => Ok(()),
            Some(new) => {
                self.thinking.close(ctx)?;
                ctx.out.write_out(new)?;
                Ok(())
            }
        }
    }

    fn tool_call(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.answer.tool_call();
        let read = tool_call::read_tool_call::<Args, OutcomeSummary>(ev.line);
        let Some(call) = ctx.readable(Reading::ToolCall, ev.line, read)? else {
            return Ok(());
        };
        let call_id = call.call_id.as_deref();
        // A `tool_call` that names no tool is still a call (`tools` and `stats` count it).
        let body = call.call.unwrap_or(tool_call::Call {
            tool: "unknown".into(),
            args: None,
            result: None,
        });
        match call.phase {
            Phase::Started => {
                let started_at = call.started_at_ms.or(call.timestamp_ms);
                self.tracker
                    .start(call_id, &body.tool, body.args.map(|a| a.0), started_at);
            }
            Phase::Completed => {
                let Some(done) = self.tracker.complete(call_id) else {
                    return Ok(());
                };
                let (tool, args, started_at) = match done.started {
                    Some(s) => (s.tool, s.args.or(body.args.map(|a| a.0)), s.started_at_ms),
                    None => (
                        body.tool.into_owned(),
                        body.args.map(|a| a.0),
                        call.started_at_ms,
                    ),
                };
                let completed_at = call.completed_at_ms.or(call.timestamp_ms);
                let duration = completed_at
                    .zip(started_at)
                    .and_then(|(c, s)| c.checked_sub(s));
                let (status, outcome) = match &body.result {
                    Some(r) => (r.status.as_ref(), Some(&r.payload)),
                    None => ("unknown", None),
                };
                self.count(status);
                let target = args
                    .unwrap_or_default()
                    .target_in(&tool, ctx.run.cwd.as_deref());
                let line = describe(&tool, &target, status, outcome, duration);
                let (mark, color) = match status {
                    "success" => ("✓", AnsiColor::Green),
                    "rejected" => ("✗", AnsiColor::Yellow),
                    "unknown" => ("?", AnsiColor::Cyan),
                    _ => ("✗", AnsiColor::Red),
                };
                self.activity(ctx, mark, color, &line)?;
            }
            Phase::Other => {}
        }
        Ok(())
    }

    fn count(&mut self, status: &str) {
        let key = if status == "success" { "ok" } else { status };
        *self.counts.entry(key.to_string()).or_default() += 1;
    }

    fn transport(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        #[derive(serde::Deserialize)]
        struct Transport<'a> {
            #[serde(borrow, default)]
            subtype: Option<std::borrow::Cow<'a, str>>,
            #[serde(default)]
            attempt: crate::lenient::Num,
        }
        let Ok(t) = serde_json::from_slice::<Transport>(ev.line) else {
            return Ok(());
        };
        let attempt = t
            .attempt
            .as_u64()
            .map(|n| format!(" (attempt {n})"))
            .unwrap_or_default();
        let text = match (ev.kind(), t.subtype.as_deref()) {
            (EventKind::Connection, Some("reconnecting")) => {
                format!("Connection lost, reconnecting{attempt}")
            }
            (EventKind::Connection, Some("reconnected")) => "Reconnected".to_string(),
            (EventKind::Retry, Some("starting")) => format!("Retrying{attempt}"),
            (EventKind::Retry, Some("resuming")) => format!("Resuming{attempt}"),
            _ => return Ok(()),
        };
        self.activity(ctx, "↻", AnsiColor::Yellow, &text)
    }

    fn footer(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        for (_, started) in self.tracker.end_run() {
            let args = started.args.unwrap_or_default();
            let target = args.target_in(&started.tool, ctx.run.cwd.as_deref());
            let line = format!("Still running: {}", tool_and_target(&started.tool, &target));
            self.count("pending");
            self.activity(ctx, "…", AnsiColor::Cyan, &line)?;
        }
        let mut parts = vec![match end.outcome {
            Outcome::Succeeded => "success".to_string(),
            Outcome::Failed { subtype, is_error } => {
                format!("failed (subtype {subtype}, is_error {is_error})")
            }
            Outcome::Unreadable => "failed (unreadable result)".to_string(),
            Outcome::NoResult => "no result: the run did not finish".to_string(),
        }];
        let result = end.result.as_ref().map(|r| r.event);
        if let Some(ms) = result.and_then(|r| r.duration_ms()) {
            parts.push(human::duration(ms));
        }
        let total: u64 = self.counts.values().sum();
        if total > 0 {
            let list = human::status_order(&self.counts);
            parts.push(format!(
                "{}: {}",
                human::count(total, "tool", "tools"),
                list.join(", ")
            ));
        }
        if let Some(usage) = result.and_then(|r| r.usage()) {
            let mut tokens = Vec::new();
            for (n, what) in [
                (usage.input_tokens, "in"),
                (usage.output_tokens, "out"),
                (usage.cache_read_tokens, "cache read"),
                (usage.cache_write_tokens, "cache write"),
            ] {
                if let Some(n) = n
                    .as_u64()
                    .filter(|&n| n > 0 || what == "in" || what == "out")
                {
                    tokens.push(format!("{} {what}", human::thousands(n)));
                }
            }
            if !tokens.is_empty() {
                parts.push(format!("tokens: {}", tokens.join(", ")));
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
    fn interest(&self) -> KindSet {
        let kinds = KindSet::of(&[
            EventKind::Assistant,
            EventKind::ToolCall,
            EventKind::Connection,
            EventKind::Retry,
        ]);
        if self.opts.thinking {
            kinds.union(KindSet::of(&[EventKind::Thinking]))
        } else {
            kinds
        }
    }

    fn session_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.answer.reset();
        self.counts.clear();
        let run = &ctx.run;
        let parts: Vec<String> = [
            run.model.clone(),
            run.cwd.clone(),
            run.session_id.as_ref().map(|s| format!("session {s}")),
        ]
        .into_iter()
        .flatten()
        .map(|s| human::one_line(&s, 200))
        .collect();
        if parts.is_empty() {
            return Ok(());
        }
        self.activity(ctx, "▶", AnsiColor::Blue, &parts.join(" · "))
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev.kind() {
            EventKind::Assistant => self.assistant(ev, ctx),
            EventKind::ToolCall => self.tool_call(ev, ctx),
            EventKind::Thinking => self.thinking.event(ev, ctx),
            EventKind::Connection | EventKind::Retry => self.transport(ev, ctx),
            _ => Ok(()),
        }
    }

    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        if let Some(text) = settle_answer(&self.answer, end, ctx) {
            ctx.out.write_out(text)?;
        }
        self.footer(end, ctx)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.thinking.close(ctx)?;
        Ok(ctx.out.end_terminal_line()?)
    }
}

/// "Read src/main.rs (120 lines)", "Ran `cargo test` (exit 0, 3.2 s)", "Rejected: rm -rf build".
fn describe(
    tool: &str,
    target: &str,
    status: &str,
    outcome: Option<&OutcomeSummary>,
    duration_ms: Option<u64>,
) -> String {
    let brief = outcome.map(|o| o.brief(tool, status)).unwrap_or_default();
    match status {
        "success" => {
            let mut details: Vec<String> = Vec::new();
            if !brief.is_empty() {
                details.push(brief);
            }
            if matches!(tool, "shell" | "task" | "mcp" | "webFetch" | "webSearch") {
                details.extend(duration_ms.map(human::duration));
            }
            let phrase = verb_phrase(tool, target);
            if details.is_empty() {
                phrase
            } else {
                format!("{phrase} ({})", details.join(", "))
            }
        }
        "rejected" => match brief.as_str() {
            "" => format!("Rejected: {}", or_tool(target, tool)),
            reason => format!("Rejected: {} — {reason}", or_tool(target, tool)),
        },
        _ => {
            let what = tool_and_target(tool, target);
            match brief.as_str() {
                "" => format!("Failed ({status}): {what}"),
                message => format!("Failed ({status}): {what} — {message}"),
            }
        }
    }
}

/// What the call does, in the past tense, with its main argument.
fn verb_phrase(tool: &str, target: &str) -> String {
    match tool {
        "read" => format!("Read {target}"),
        "shell" => format!("Ran `{target}`"),
        "edit" => format!("Edited {target}"),
        "write" => format!("Wrote {target}"),
        "delete" => format!("Deleted {target}"),
        "grep" => format!("Searched {target}"),
        "glob" => format!("Listed files matching {target}"),
        "ls" => format!("Listed {target}"),
        "updateTodos" => "Updated the todo list".to_string(),
        "mcp" => format!("Called {target}"),
        "task" => format!("Ran a subagent: {target}"),
        "webFetch" => format!("Fetched {target}"),
        "webSearch" => format!("Searched the web for '{target}'"),
        "semSearch" => format!("Searched the codebase for '{target}'"),
        _ if target.is_empty() => format!("Used {}", human::one_line(tool, 40)),
        _ => format!("Used {} on {target}", human::one_line(tool, 40)),
    }
}

fn or_tool(target: &str, tool: &str) -> String {
    if target.is_empty() {
        human::one_line(tool, 40)
    } else {
        target.to_string()
    }
}

/// `shell sleep 100`, for calls that did not do what their verb says.
fn tool_and_target(tool: &str, target: &str) -> String {
    let tool = human::one_line(tool, 40);
    if target.is_empty() {
        tool
    } else {
        format!("{tool} {target}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_call::Text;

    #[test]
    fn sentences_for_common_tools() {
        let ok = OutcomeSummary {
            exit_code: crate::lenient::Num(Some(0.0)),
            ..OutcomeSummary::default()
        };
        assert_eq!(
            describe("shell", "cargo test", "success", Some(&ok), Some(3210)),
            "Ran `cargo test` (exit 0, 3.2 s)"
        );
        let rejected = OutcomeSummary {
            reason: Text(Some(String::new())),
            ..OutcomeSummary::default()
        };
        assert_eq!(
            describe("shell", "rm -rf build", "rejected", Some(&rejected), None),
            "Rejected: rm -rf build"
        );
        let err = OutcomeSummary {
            error_message: Text(Some("File not found".into())),
            ..OutcomeSummary::default()
        };
        assert_eq!(
            describe("read", "src/x.rs", "error", Some(&err), None),
            "Failed (error): read src/x.rs — File not found"
        );
        let lines = OutcomeSummary {
            total_lines: crate::lenient::Num(Some(120.0)),
            ..OutcomeSummary::default()
        };
        assert_eq!(
            describe("read", "src/x.rs", "success", Some(&lines), Some(5)),
            "Read src/x.rs (120 lines)"
        );
        assert_eq!(
            describe("brandNew", "", "success", None, None),
            "Used brandNew"
        );
    }
}

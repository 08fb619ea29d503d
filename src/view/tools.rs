//! `tools`: one line per tool call, in start order, as soon as it completes.
//!
//! A call is listed when it completes, with what its `started` event said (rejected and
//! failed completions carry no `args`). Parallel calls are listed in start order: a call
//! that completes before an earlier one waits for it, so a saved log and a live stream
//! give the same listing. Calls still running when the run ends are listed as `pending`.
//!
//! # `--json` schema
//!
//! One object per call and line, with always the same keys in the same order:
//!
//! | key | value |
//! |---|---|
//! | `call_id` | the call's id, verbatim (it may hold a newline) |
//! | `tool` | the kind without `ToolCall`: `read`, `shell`, `edit`, …, or the function name |
//! | `status` | the result's variant key (`success`, `rejected`, `error`, `failure`, `timeout`, …), `pending` (never completed), `unknown` (completed without a result), or `started` (a start line, with `--starts`) |
//! | `args` | the arguments from the `started` event (or the completion when there was no start), as the CLI wrote them; `null` when unknown |
//! | `result` | the variant's payload as the CLI wrote it; `null` when there is none |
//! | `session_id` | the run's session id, or `null` |
//! | `started_at_ms`, `completed_at_ms` | epoch milliseconds (`startedAtMs`/`completedAtMs`, else the events' `timestamp_ms`), or `null` |
//! | `duration_ms` | `completed_at_ms - started_at_ms` when both are known, else `null` |

use std::collections::BTreeMap;

use anstyle::{AnsiColor, Style};
use serde_json::value::RawValue;

use crate::calls::CallTracker;
use crate::diag::Reading;
use crate::event::{EventKind, KindSet};
use crate::human;
use crate::tool_call::{self, Args, OutcomeSummary, Phase};
use crate::view::{Ctx, Event, SessionEnd, View};

#[derive(Debug, Clone, Default)]
pub struct ToolsOptions {
    pub json: bool,
    /// Also write a line when a call starts.
    pub starts: bool,
    pub filter: CallFilter,
}

/// Which calls are listed. Empty lists let everything through.
#[derive(Debug, Clone, Default)]
pub struct CallFilter {
    /// Tool names, compared without regard to case.
    pub tools: Vec<String>,
    /// Statuses (`ok` is `success`); `failed` means every status but `success`, `pending`
    /// and `started`.
    pub statuses: Vec<String>,
    /// A session id or a prefix of one.
    pub session: Option<String>,
}

impl CallFilter {
    pub fn accepts(&self, call: &CallRecord<'_>) -> bool {
        let tool_ok =
            self.tools.is_empty() || self.tools.iter().any(|t| t.eq_ignore_ascii_case(call.tool));
        let status_ok = self.statuses.is_empty()
            || self.statuses.iter().any(|s| match s.as_str() {
                "ok" => call.status == "success",
                "failed" => !matches!(call.status, "success" | "pending" | "started"),
                s => s == call.status,
            });
        let session_ok = match (&self.session, call.session_id) {
            (None, _) => true,
            (Some(want), Some(id)) => id.starts_with(want.as_str()),
            (Some(_), None) => false,
        };
        tool_ok && status_ok && session_ok
    }
}

/// Everything known about one call at the moment it is listed.
pub struct CallRecord<'a> {
    pub call_id: &'a str,
    pub tool: &'a str,
    pub status: &'a str,
    pub args: Option<&'a RawValue>,
    pub result: Option<&'a RawValue>,
    pub session_id: Option<&'a str>,
    pub started_at_ms: Option<u64>,
    pub completed_at_ms: Option<u64>,
}

impl CallRecord<'_> {
    pub fn duration_ms(&self) -> Option<u64> {
        self.completed_at_ms?.checked_sub(self.started_at_ms?)
    }
}

pub struct ToolsView {
    opts: ToolsOptions,
    tracker: CallTracker<Box<RawValue>>,
    /// Lines by start position; `None` while the call runs. Released from the front.
    order: BTreeMap<u64, Option<Vec<u8>>>,
}

impl ToolsView {
    pub fn new(opts: ToolsOptions) -> ToolsView {
        ToolsView {
            opts,
            tracker: CallTracker::default(),
            order: BTreeMap::new(),
        }
    }

    fn tool_call(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let read = tool_call::read_tool_call::<&RawValue, &RawValue>(ev.line);
        let Some(call) = ctx.readable(Reading::ToolCall, ev.line, read)? else {
            return Ok(());
        };
        let session_id = call.session_id.as_deref().or(ctx.run.session_id.as_deref());
        let call_id = call.call_id.as_deref();
        let tool = call.call.as_ref().map_or("unknown", |c| &c.tool);
        match call.phase {
            Phase::Started => {
                let args = call.call.as_ref().and_then(|c| c.args);
                let started_at = call.started_at_ms.or(call.timestamp_ms);
                let Some(seq) =
                    self.tracker
                        .start(call_id, tool, args.map(RawValue::to_owned), started_at)
                else {
                    return Ok(());
                };
                self.order.insert(seq, None);
                if self.opts.starts {
                    let record = CallRecord {
                        call_id: call_id.unwrap_or(""),
                        tool,
                        status: "started",
                        args,
                        result: None,
                        session_id,
                        started_at_ms: started_at,
                        completed_at_ms: None,
                    };
                    let line = self.render(&record, ctx);
                    ctx.out.write_out(&line)?;
                }
            }
            Phase::Completed => {
                let Some(done) = self.tracker.complete(call_id) else {
                    return Ok(());
                };
                let body = call.call.as_ref();
                let result = body.and_then(|c| c.result.as_ref());
                let (tool, args, started_at) = match &done.started {
                    Some(s) => (
                        s.tool.as_str(),
                        s.args.as_deref().or(body.and_then(|c| c.args)),
                        s.started_at_ms,
                    ),
                    None => (tool, body.and_then(|c| c.args), call.started_at_ms),
                };
                let record = CallRecord {
                    call_id: call_id.unwrap_or(""),
                    tool,
                    status: result.map_or("unknown", |r| &r.status),
                    args,
                    result: result.map(|r| r.payload),
                    session_id,
                    started_at_ms: started_at,
                    completed_at_ms: call.completed_at_ms.or(call.timestamp_ms),
                };
                let line = self.render(&record, ctx);
                self.order.insert(done.seq, Some(line));
                self.release(ctx)?;
            }
            Phase::Other => {}
        }
        Ok(())
    }

    /// Writes the finished lines at the front of the start order.
    fn release(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        while let Some(entry) = self.order.first_entry() {
            let Some(line) = entry.get() else { break };
            ctx.out.write_out(line)?;
            entry.remove();
        }
        Ok(())
    }

    /// The record's line, or nothing when the filter leaves it out.
    fn render(&self, call: &CallRecord<'_>, ctx: &Ctx) -> Vec<u8> {
        let mut line = Vec::new();
        if !self.opts.filter.accepts(call) {
            return line;
        }
        if self.opts.json {
            write_json(call, &mut line);
        } else {
            write_human(call, ctx.out.color_out, ctx.run.cwd.as_deref(), &mut line);
        }
        line
    }
}

impl View for ToolsView {
    fn interest(&self) -> KindSet {
        KindSet::of(&[EventKind::ToolCall])
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.tool_call(ev, ctx)
    }

    fn session_end(&mut self, _end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        for (call_id, started) in self.tracker.end_run() {
            let record = CallRecord {
                call_id: &call_id,
                tool: &started.tool,
                status: "pending",
                args: started.args.as_deref(),
                result: None,
                session_id: ctx.run.session_id.as_deref(),
                started_at_ms: started.started_at_ms,
                completed_at_ms: None,
            };
            let line = self.render(&record, ctx);
            self.order.insert(started.seq, Some(line));
        }
        self.release(ctx)?;
        // Anything left waited for a call that can no longer complete.
        self.order.clear();
        Ok(())
    }
}

fn write_json(call: &CallRecord<'_>, out: &mut Vec<u8>) {
    fn string(out: &mut Vec<u8>, s: Option<&str>) {
        match s {
            Some(s) => serde_json::to_writer(&mut *out, s).expect("writing to a Vec"),
            None => out.extend_from_slice(b"null"),
        }
    }
    fn raw(out: &mut Vec<u8>, v: Option<&RawValue>) {
        out.extend_from_slice(v.map_or("null", RawValue::get).as_bytes());
    }
    fn number(out: &mut Vec<u8>, n: Option<u64>) {
        match n {
            Some(n) => out.extend_from_slice(n.to_string().as_bytes()),
            None => out.extend_from_slice(b"null"),
        }
    }
    out.extend_from_slice(b"{\"call_id\":");
    string(out, Some(call.call_id));
    out.extend_from_slice(b",\"tool\":");
    string(out, Some(call.tool));
    out.extend_from_slice(b",\"status\":");
    string(out, Some(call.status));
    out.extend_from_slice(b",\"args\":");
    raw(out, call.args);
    out.extend_from_slice(b",\"result\":");
    raw(out, call.result);
    out.extend_from_slice(b",\"session_id\":");
    string(out, call.session_id);
    out.extend_from_slice(b",\"started_at_ms\":");
    number(out, call.started_at_ms);
    out.extend_from_slice(b",\"completed_at_ms\":");
    number(out, call.completed_at_ms);
    out.extend_from_slice(b",\"duration_ms\":");
    number(out, call.duration_ms());
    out.extend_from_slice(b"}\n");
}

/// `ok        shell        199 ms  wc -l notes.txt — exit 0`
fn write_human(call: &CallRecord<'_>, color: bool, cwd: Option<&str>, out: &mut Vec<u8>) {
    let args: Args = call
        .args
        .and_then(|a| serde_json::from_str(a.get()).ok())
        .unwrap_or_default();
    let outcome: OutcomeSummary = call
        .result
        .and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default();
    let status = if call.status == "success" {
        "ok"
    } else {
        call.status
    };
    let duration = call.duration_ms().map_or("-".to_string(), human::duration);
    let target = args.0.target_in(call.tool, cwd);
    let brief = outcome.brief(call.tool, call.status);
    let style = status_style(call.status);
    let mut line = String::new();
    if color {
        line.push_str(&format!(
            "{}{status:<9}{}",
            style.render(),
            style.render_reset()
        ));
    } else {
        line.push_str(&format!("{status:<9}"));
    }
    line.push_str(&format!(
        " {:<12} {duration:>8}  {target}",
        human::one_line(call.tool, 40)
    ));
    if !brief.is_empty() {
        line.push_str(" — ");
        line.push_str(&brief);
    }
    line.push('\n');
    out.extend_from_slice(line.as_bytes());
}

pub fn status_style(status: &str) -> Style {
    let color = match status {
        "success" => AnsiColor::Green,
        "rejected" => AnsiColor::Yellow,
        "pending" | "started" | "unknown" => AnsiColor::Cyan,
        _ => AnsiColor::Red,
    };
    Style::new().fg_color(Some(color.into()))
}

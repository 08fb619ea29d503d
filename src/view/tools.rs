//! `tools`: one line per tool call, in start order, as soon as it ends — for every agent.
//!
//! A call is listed when it ends, with what its start said (Cursor's rejected and failed
//! ends carry no arguments). Parallel calls are listed in start order: a call that ends
//! before an earlier one waits for it, so a saved log and a live stream give the same
//! listing. Calls still running when the run ends are listed as `pending`. Pairing starts
//! and ends is the dispatcher's (`agent::calls`), the same for every view.
//!
//! # `--json` schema
//!
//! One object per call and line, with always the same keys in the same order:
//!
//! | key | value |
//! |---|---|
//! | `call_id` | the call's id, verbatim (it may hold a newline); `""` when the agent gives none |
//! | `tool` | the agent's own tool name: Cursor `read`, `shell`, … (the `tool_call` key without `ToolCall`) or the function name; Claude and Qwen the `tool_use` name (`Bash`, `Read`, `mcp__…`); Codex the item type (`command_execution`, `file_change`, `mcp_tool_call`, …); Gemini `tool_name`; OpenCode `part.tool` |
//! | `status` | `success`; the agent's word for a failure (Cursor's result variant `rejected`, `error`, `timeout`, …; Claude `error` or `rejected`; Codex `failed` or `declined`; Gemini the error type; OpenCode `error` or `rejected`); `pending` (never ended); `unknown` (ended without saying how); or `started` (a start line, with `--starts`) |
//! | `args` | the arguments as the agent wrote them (Cursor `args`, Claude and Qwen `input`, Codex the whole item, Gemini `parameters`, OpenCode `state.input`); `null` when unknown |
//! | `result` | the result as the agent wrote it (Cursor the variant's payload, Claude and Qwen the `tool_result` content, Codex the ended item, Gemini `output` or `error`, OpenCode `state.output` or `state.error`); `null` when there is none |
//! | `session_id` | the run's session id, or `null` |
//! | `started_at_ms`, `completed_at_ms` | epoch milliseconds, when the agent says, else `null` |
//! | `duration_ms` | `completed_at_ms - started_at_ms` when both are known, else `null` |
//! | `agent` | `cursor`, `claude`, `codex`, `gemini`, `qwen` or `opencode` |
//! | `parent_call_id` | for a sub-agent's call (Claude, Qwen), the id of the call that started the sub-agent; else `null` |
//! | `file` | the input the call was read from, as named on the command line |
//! | `kind` | what the call does, whatever the agent calls the tool: `shell`, `read`, `edit`, `write`, `search`, `web`, `task`, `todo`, `mcp` or `other` ([`ToolKind::coarse_name`](crate::agent::event::ToolKind::coarse_name)); the same in a session log and in its stream |

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use crate::agent::event::{Event, StatusClass, ToolCall, ToolEnd, ToolStatus, Wants};
use crate::out::{Channel, escape_line};
use crate::view::{Ctx, View, words};

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
    fn accepts(&self, call: &Record<'_>) -> bool {
        let tool_ok = self.tools.is_empty()
            || self
                .tools
                .iter()
                .any(|t| t.eq_ignore_ascii_case(&call.call.tool));
        let status_ok = self.statuses.is_empty()
            || self
                .statuses
                .iter()
                .any(|s| match (s.as_str(), call.status) {
                    ("ok", Some(st)) => st.class == StatusClass::Ok,
                    ("failed", Some(st)) => {
                        !matches!(st.class, StatusClass::Ok | StatusClass::Pending)
                    }
                    (s, Some(st)) => *s == *st.word,
                    (s, None) => s == "started",
                });
        let session_ok = match (&self.session, call.session_id) {
            (None, _) => true,
            (Some(want), Some(id)) => id.starts_with(want.as_str()),
            (Some(_), None) => false,
        };
        tool_ok && status_ok && session_ok
    }
}

/// A line ready to be written; its first `styled` bytes (the status) in `style`. Styles
/// are written apart from the text, which a terminal gets cleaned of escapes.
#[derive(Default)]
struct Line {
    bytes: Vec<u8>,
    styled: usize,
    style: anstyle::Style,
}

impl Line {
    fn write(&self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let (status, rest) = self.bytes.split_at(self.styled);
        ctx.out.write_out_styled(self.style, status)?;
        Ok(ctx.out.write_out(rest)?)
    }
}

/// Everything known about one call at the moment it is listed.
struct Record<'a> {
    call: &'a ToolCall<'a>,
    /// `None` for a start line.
    status: Option<&'a ToolStatus<'a>>,
    end: Option<&'a ToolEnd<'a>>,
    session_id: Option<&'a str>,
}

pub(crate) struct ToolsView {
    opts: ToolsOptions,
    /// Lines by start position; `None` while the call runs. Released from the front.
    order: BTreeMap<u64, Option<Line>>,
}

impl ToolsView {
    pub(crate) fn new(opts: ToolsOptions) -> ToolsView {
        ToolsView {
            opts,
            order: BTreeMap::new(),
        }
    }

    /// Writes the finished lines at the front of the start order.
    fn release(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        while let Some(entry) = self.order.first_entry() {
            let Some(line) = entry.get() else { break };
            line.write(ctx)?;
            entry.remove();
        }
        Ok(())
    }

    /// The record's line, or nothing when the filter leaves it out.
    fn render(&self, call: &Record<'_>, ctx: &Ctx) -> Line {
        let mut line = Line::default();
        if !self.opts.filter.accepts(call) {
            return line;
        }
        if self.opts.json {
            write_json(call, ctx, &mut line.bytes);
        } else {
            write_human(call, ctx, &mut line);
        }
        line
    }
}

impl View for ToolsView {
    fn wants(&self) -> Wants {
        Wants::TOOLS
            | if self.opts.json {
                Wants::TOOL_RAW
            } else {
                Wants::TOOL_DETAILS
            }
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let session_id = ctx.run.session_id.as_deref();
        match ev {
            Event::ToolStarted { call, seq } => {
                self.order.insert(*seq, None);
                if self.opts.starts {
                    let record = Record {
                        call,
                        status: None,
                        end: None,
                        session_id,
                    };
                    self.render(&record, ctx).write(ctx)?;
                }
                Ok(())
            }
            Event::ToolEnded(end) => {
                let record = Record {
                    call: end.call,
                    status: Some(end.status),
                    end: Some(end),
                    session_id,
                };
                let line = self.render(&record, ctx);
                self.order.insert(end.seq, Some(line));
                self.release(ctx)
            }
            _ => Ok(()),
        }
    }

    /// Each input holds whole runs, and the lines wait for their calls within a run: an
    /// input's lines owe nothing to the earlier inputs.
    fn fork(&self) -> Option<Self> {
        Some(ToolsView::new(self.opts.clone()))
    }

    /// Not with `--json` for the parts of one file: measured, it is slower split than
    /// alone (1 GB of Claude's stream, 2 cores: 0.74 s in parts, 0.61 s alone).
    fn fork_part(&self) -> Option<Self> {
        (!self.opts.json).then(|| self.fork()).flatten()
    }

    /// With `--json`: a quarter to two thirds of the input's size.
    fn output_like_input(&self) -> bool {
        self.opts.json
    }

    fn run_end(
        &mut self,
        _end: &crate::agent::event::RunEnd<'_>,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        self.release(ctx)?;
        // Anything left waited for a call that can no longer end.
        self.order.clear();
        Ok(())
    }
}

fn write_json(call: &Record<'_>, ctx: &Ctx, out: &mut Vec<u8>) {
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
    let c = call.call;
    // Made at its size (unless escapes lengthen a string), rather than grown, and copied,
    // as it is written: the names of the fields and the numbers take under 288 bytes.
    let raw_len = |v: Option<&RawValue>| v.map_or(0, |v| v.get().len());
    let str_len = |s: Option<&str>| s.map_or(0, str::len);
    out.reserve(
        288 + raw_len(c.args.as_deref())
            + raw_len(call.end.and_then(|e| e.result))
            + str_len(c.id.as_deref())
            + c.tool.len()
            + str_len(call.session_id)
            + str_len(c.parent.as_deref())
            + ctx.diag.source().len(),
    );
    out.extend_from_slice(b"{\"call_id\":");
    string(out, Some(c.id.as_deref().unwrap_or("")));
    out.extend_from_slice(b",\"tool\":");
    string(out, Some(&c.tool));
    out.extend_from_slice(b",\"status\":");
    string(out, Some(call.status.map_or("started", |s| &*s.word)));
    out.extend_from_slice(b",\"args\":");
    raw(out, c.args.as_deref());
    out.extend_from_slice(b",\"result\":");
    raw(out, call.end.and_then(|e| e.result));
    out.extend_from_slice(b",\"session_id\":");
    string(out, call.session_id);
    out.extend_from_slice(b",\"started_at_ms\":");
    number(out, c.at_ms);
    out.extend_from_slice(b",\"completed_at_ms\":");
    number(out, call.end.and_then(|e| e.ended_ms));
    out.extend_from_slice(b",\"duration_ms\":");
    number(out, call.end.and_then(ToolEnd::duration_ms));
    out.extend_from_slice(b",\"agent\":");
    string(out, Some(ctx.run.agent.name()));
    out.extend_from_slice(b",\"parent_call_id\":");
    string(out, c.parent.as_deref());
    out.extend_from_slice(b",\"file\":");
    string(out, Some(ctx.diag.source()));
    // After the keys of 1.0, which keep their places.
    out.extend_from_slice(b",\"kind\":");
    string(out, Some(c.kind.coarse_name()));
    out.extend_from_slice(b"}\n");
}

/// `ok        shell        199 ms  wc -l notes.txt — exit 0`; on a terminal fitted to its
/// width, the argument shortened first.
fn write_human(call: &Record<'_>, ctx: &Ctx, out: &mut Line) {
    let c = call.call;
    let (status, style) = match call.status {
        Some(s) => (words::status_word(s), words::status_style(s.class)),
        None => ("started", words::status_style(StatusClass::Pending)),
    };
    let duration = call
        .end
        .and_then(ToolEnd::duration_ms)
        .map_or("-".to_string(), words::duration);
    let target = words::target(c.target.as_deref(), c.kind, ctx.run.cwd.as_deref());
    let brief = match call.end {
        Some(end) => words::brief(c.kind, end.status.class, end.effect),
        None => String::new(),
    };
    let tool = escape_line(&c.tool);
    let line = words::fit_sentence(ctx.out.width(Channel::Out), c.kind, &target, |target| {
        let mut line = format!("{status:<9} {tool:<12} {duration:>8}  {target}");
        if !brief.is_empty() {
            line.push_str(" — ");
            line.push_str(&brief);
        }
        line
    });
    // The status is styled after fitting, so that its escapes count no width.
    if line.starts_with(status) {
        out.styled = status.len();
        out.style = style;
    }
    out.bytes.extend_from_slice(line.as_bytes());
    out.bytes.push(b'\n');
}

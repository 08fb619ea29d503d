//! Codex's format before 0.44: no `type` anywhere. A config summary, the prompt, then
//! every core event as `{"id":"<n>","msg":{"type":"<snake_case>",…}}` (deltas left out):
//!
//! ```text
//! {"sandbox":"danger-full-access","approval":"Never","provider":"openai","workdir":"/w","model":"codex-mini-latest",…}
//! {"prompt":"…"}
//! {"id":"1","msg":{"type":"task_started"}}
//! {"id":"1","msg":{"type":"exec_command_begin","call_id":"call_…","command":["bash","-lc","ls"],"cwd":"/w"}}
//! {"id":"1","msg":{"type":"exec_command_end","call_id":"call_…","stdout":"…","stderr":"","exit_code":0}}
//! {"id":"1","msg":{"type":"agent_message","message":"…"}}
//! {"id":"1","msg":{"type":"task_complete","last_agent_message":"…"}}
//! ```
//!
//! The calls take the current format's item names (`command_execution`, `file_change`,
//! `mcp_tool_call`), so that one listing covers both. There is no session id. A run that
//! reported an `error` and never completed failed. The prompt line gives the run's prompt.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::{Codex, TurnUsage};
use crate::agent::event::Outcome;
use crate::agent::event::{
    Agent, AnswerCheck, Effect, Event, Notice, NoticeKind, RunEnd, RunInfo, StatusClass, ToolCall,
    ToolEndRaw, ToolKind, ToolStatus, Wants,
};
use crate::agent::wire::words_of;
use crate::agent::{Dialect, RawLine, Sink};
use crate::input::json::MaybeStr;
use crate::input::lenient::{Flag, Num, Object};

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    msg: Option<Msg<'a>>,
    #[serde(borrow, default)]
    prompt: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model: MaybeStr<'a>,
    #[serde(borrow, default)]
    workdir: MaybeStr<'a>,
    #[serde(default)]
    sandbox: Option<&'a RawValue>,
    #[serde(default)]
    approval: Option<&'a RawValue>,
    #[serde(default)]
    provider: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Msg<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: MaybeStr<'a>,
    #[serde(borrow, default)]
    message: MaybeStr<'a>,
    #[serde(borrow, default)]
    text: MaybeStr<'a>,
    #[serde(borrow, default)]
    last_agent_message: MaybeStr<'a>,
    #[serde(borrow, default)]
    call_id: MaybeStr<'a>,
    #[serde(borrow, default)]
    command: Option<Vec<MaybeStr<'a>>>,
    #[serde(default)]
    exit_code: Num,
    #[serde(default)]
    success: Flag,
    #[serde(borrow, default)]
    stderr: MaybeStr<'a>,
    #[serde(borrow, default)]
    invocation: Option<Invocation<'a>>,
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    info: Object<TokenInfo>,
}

#[derive(Deserialize)]
struct Invocation<'a> {
    #[serde(borrow, default)]
    server: MaybeStr<'a>,
    #[serde(borrow, default)]
    tool: MaybeStr<'a>,
}

/// `token_count` of 0.39 on: `{"info":{"total_token_usage":{…}}}`.
#[derive(Deserialize, Default)]
struct TokenInfo {
    #[serde(default)]
    total_token_usage: Object<TurnUsage>,
}

/// Reads a legacy line; `false` when it is not one (it stays a bad line).
pub(super) fn read<S: Sink>(
    codex: &mut Codex,
    line: &RawLine<'_>,
    sink: &mut S,
) -> anyhow::Result<bool> {
    let Ok(ev) = crate::input::json::from_line::<Line>(line.bytes) else {
        return Ok(false);
    };
    if let Some(msg) = ev.msg {
        sink.ensure_run(Agent::Codex)?;
        event(codex, msg, line, sink)?;
        return Ok(true);
    }
    if let Some(prompt) = ev.prompt {
        // The prompt comes after the run's start (the config summary).
        sink.ensure_run(Agent::Codex)?;
        let words = crate::input::json::from_str::<Cow<'_, str>>(prompt.get());
        if let Some(words) = words.ok().as_deref().and_then(words_of)
            && sink.wants().has(Wants::PROMPT)
        {
            sink.prompt_seen(&words);
        }
        return Ok(true);
    }
    let config = ev.sandbox.is_some() || ev.approval.is_some() || ev.provider.is_some();
    if !config && ev.workdir.0.is_none() {
        return Ok(false);
    }
    codex.reset();
    let mut info = RunInfo::new(Agent::Codex);
    info.model = ev.model.0.map(Cow::into_owned);
    info.cwd = ev.workdir.0.map(Cow::into_owned);
    sink.start_run(info)?;
    Ok(true)
}

/// One core event, by its `msg.type`.
fn event<S: Sink>(
    codex: &mut Codex,
    msg: Msg<'_>,
    line: &RawLine<'_>,
    sink: &mut S,
) -> anyhow::Result<()> {
    let wants = sink.wants();
    match msg.kind.as_deref().unwrap_or("") {
        "agent_message" => codex.agent_message(msg.message.as_deref().unwrap_or(""), sink),
        "agent_reasoning" if wants.has(Wants::THINKING) => sink.event(Event::Thinking {
            text: msg.text.as_deref().unwrap_or("").as_bytes(),
            done: true,
        }),
        begin @ ("exec_command_begin" | "patch_apply_begin" | "mcp_tool_call_begin")
            if wants.has(Wants::TOOLS) =>
        {
            tool_begin(begin, &msg, line, sink)
        }
        end @ ("exec_command_end" | "patch_apply_end" | "mcp_tool_call_end")
            if wants.has(Wants::TOOLS) =>
        {
            tool_end(end, &msg, line, sink)
        }
        "error" | "stream_error" => error(codex, &msg, sink),
        "token_count" => {
            codex.legacy_usage = token_count(msg.info, line).as_ref().map(TurnUsage::usage);
            Ok(())
        }
        "task_complete" => task_complete(codex, &msg, sink),
        _ => Ok(()),
    }
}

/// `msg` as the agent wrote it, for a view that shows calls' raw arguments and results.
fn raw_msg<'l>(line: &RawLine<'l>, wants: Wants) -> Option<Cow<'l, RawValue>> {
    let raw: &RawValue = crate::input::json::from_line::<Raw>(line.bytes).ok()?.msg;
    Some(Cow::Borrowed(raw)).filter(|_| wants.has(Wants::TOOL_RAW))
}

/// `exec_command_begin`, `patch_apply_begin`, `mcp_tool_call_begin`: a call starts.
fn tool_begin<S: Sink>(
    begin: &str,
    msg: &Msg<'_>,
    line: &RawLine<'_>,
    sink: &mut S,
) -> anyhow::Result<()> {
    let wants = sink.wants();
    let (tool, kind) = match begin {
        "exec_command_begin" => ("command_execution", ToolKind::Shell),
        "patch_apply_begin" => ("file_change", ToolKind::Edit),
        _ => ("mcp_tool_call", ToolKind::Mcp),
    };
    let mut call = ToolCall::new(tool, kind);
    call.id = msg.call_id.0.clone();
    call.args = raw_msg(line, wants);
    if wants.has(Wants::TOOL_DETAILS) {
        call.target = match (&msg.command, &msg.invocation) {
            (Some(argv), _) => Some(Cow::Owned(command_line(argv))),
            (None, Some(inv)) => inv
                .server
                .as_deref()
                .zip(inv.tool.as_deref())
                .map(|(s, t)| Cow::Owned(format!("{s}/{t}"))),
            _ => None,
        };
    }
    sink.tool_started(call)
}

/// `exec_command_end`, `patch_apply_end`, `mcp_tool_call_end`: a call ends.
fn tool_end<S: Sink>(
    end: &str,
    msg: &Msg<'_>,
    line: &RawLine<'_>,
    sink: &mut S,
) -> anyhow::Result<()> {
    let wants = sink.wants();
    let ok = match end {
        "exec_command_end" => msg.exit_code.as_i64() == Some(0),
        "patch_apply_end" => msg.success.0 != Some(false),
        _ => msg
            .result
            .is_some_and(|r| r.get().trim_start().starts_with("{\"Ok\"")),
    };
    let mut call = ToolCall::new("unknown", ToolKind::Other);
    call.id = msg.call_id.0.clone();
    let effect = Effect {
        exit_code: msg.exit_code.as_i64(),
        error: (!ok)
            .then(|| msg.stderr.0.clone().filter(|e| !e.is_empty()))
            .flatten()
            .map(Cow::into_owned),
        ..Effect::default()
    };
    sink.tool_ended(ToolEndRaw {
        call,
        status: if ok {
            ToolStatus::success()
        } else {
            ToolStatus::new("failed", StatusClass::Failed)
        },
        result: raw_msg(line, wants),
        effect,
        ended_ms: None,
    })
}

/// `error` (kept: it fails a run that never completes) and `stream_error` (a retry).
fn error<S: Sink>(codex: &mut Codex, msg: &Msg<'_>, sink: &mut S) -> anyhow::Result<()> {
    let text = msg.message.as_deref().unwrap_or("error");
    if msg.kind.as_deref() == Some("error") {
        codex.legacy_error = Some(text.to_owned());
    }
    if !sink.wants().has(Wants::NOTICES) {
        return Ok(());
    }
    let kind = match msg.kind.as_deref() {
        Some("error") => NoticeKind::Error,
        _ => NoticeKind::Retry,
    };
    sink.event(Event::Notice(&Notice {
        kind,
        text: Cow::Borrowed(text),
    }))
}

/// `token_count`'s counts: flat (July 2025), or `info.total_token_usage` (0.39 on).
fn token_count(info: Object<TokenInfo>, line: &RawLine<'_>) -> Option<TurnUsage> {
    #[derive(Deserialize)]
    struct Flat {
        msg: TurnUsage,
    }
    match info.0.and_then(|i| i.total_token_usage.0) {
        Some(total) => Some(total),
        None => crate::input::json::from_line::<Flat>(line.bytes)
            .ok()
            .map(|f| f.msg),
    }
}

/// `task_complete`: the run succeeded; its last message is the final answer.
fn task_complete<S: Sink>(codex: &mut Codex, msg: &Msg<'_>, sink: &mut S) -> anyhow::Result<()> {
    sink.terminal(true);
    if let Some(last) = msg.last_agent_message.as_deref() {
        codex.last_message.clear();
        codex.last_message.extend_from_slice(last.as_bytes());
    }
    let final_text = (sink.wants().has(Wants::FINAL) && !codex.last_message.is_empty())
        .then_some(&codex.last_message[..]);
    let result = sink.end_run(RunEnd {
        outcome: Outcome::Succeeded,
        final_text,
        answer: AnswerCheck::Unchecked,
        usage: codex.legacy_usage,
        duration_ms: None,
        native_json: None,
        last_ms: None,
    });
    codex.reset();
    result
}

#[derive(Deserialize)]
struct Raw<'a> {
    #[serde(borrow)]
    msg: &'a RawValue,
}

/// `["bash","-lc","cargo test"]` → `bash -lc cargo test`.
fn command_line(argv: &[MaybeStr<'_>]) -> String {
    argv.iter()
        .filter_map(|a| a.as_deref())
        .collect::<Vec<_>>()
        .join(" ")
}

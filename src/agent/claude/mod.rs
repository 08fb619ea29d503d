//! Claude Code (`claude -p --output-format stream-json --verbose
//! [--include-partial-messages]`) and Qwen Code (`qwen -p … --output-format stream-json`),
//! which writes Claude's format. The notes are `../shared/spec/agents/claude.md` and
//! `qwen.md`.
//!
//! | normalized | from |
//! |---|---|
//! | run start | `system/init` (hook events may come before it); Qwen when the init has `qwen_code_version`; its prompt from the `user` line `--replay-user-messages` echoes (`isReplay`) |
//! | text | `stream_event` `text_delta`s when the stream has them, and `assistant` text blocks for what they did not give; only events with `parent_tool_use_id: null` (a sub-agent's text is not the answer) |
//! | segments | a new message (`message_start`, or an `assistant` event with another `message.id`), a `tool_use` block |
//! | thinking | `thinking_delta`s, `thinking` blocks |
//! | tool calls | `tool_use` blocks (with `parent` for a sub-agent's calls) → `tool_result` blocks of `user` events, by id; `is_error` fails them, a permission denial rejects them |
//! | notices | `system/api_retry`, `system/model_fallback`, a `rate_limit_event` that is not `allowed` |
//! | run end | `result`: success only for `subtype:"success"` with `is_error` not true (an API error is `success` + `is_error:true`); Qwen's `[API Error: …]` answer is a failure too |
//!
//! With partial messages, each block is streamed as deltas and then repeated whole in an
//! `assistant` event (before its `content_block_stop`); an interrupted block is repeated
//! with `"aborted":true`. What was streamed of the current block is remembered as a length
//! and a CRC ([`Digest`]): the repeat adds only what the deltas did not give, normally
//! nothing, and memory does not grow with the answer.

pub(crate) mod log;
mod spec;
pub(crate) mod store;
mod wire;

pub(crate) use spec::{Reader, SPEC};

use std::borrow::Cow;
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};

use serde_json::value::RawValue;

use super::digest::Digest;
use super::event::{
    Agent, AnswerCheck, Billed, Effect, Event, Limit, Notice, NoticeKind, RunEnd, RunInfo,
    StatusClass, ToolCall, ToolEndRaw, ToolKind, ToolStatus, Usage, Wants,
};
use super::tools;
use super::{Class, Dialect, RawLine, Sink, mentions};
use crate::agent::event::Outcome;
use crate::input::json::rfc3339_ms;
use crate::input::peek::{Head, NameId};
use crate::out::diag::unreadable;
use wire::{Block, BlockKind, DeltaKind, StreamKind};

pub(crate) struct Claude {
    /// Claude, or Qwen: each run's init says which.
    agent: Agent,
    /// Named by `--agent`: the inits do not change it.
    fixed: bool,
    /// The run has `stream_event`s: text comes as deltas first.
    partial: bool,
    /// The current top-level message, by a hash of its id (0: none yet).
    message: u64,
    /// What the deltas gave of the current text block, and of the current thinking block.
    streamed_text: Digest,
    streamed_thinking: Digest,
    /// Tool calls a permission rule denied (their `tool_result` is a rejection).
    denied: HashSet<String>,
    hasher: RandomState,
    scratch: Vec<u8>,
}

impl Dialect for Claude {
    /// Reads every run as `self.agent`'s (`--agent`).
    fn fix_agent(&mut self) {
        self.fixed = true;
    }

    fn agent(&self) -> Agent {
        self.agent
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::SYSTEM | NameId::RESULT => Class::lifecycle(Wants::NOTICES),
            NameId::ASSISTANT => Class::content(Wants::TEXT | Wants::THINKING | Wants::TOOLS),
            // With `--replay-user-messages`, a user line also echoes the prompt.
            NameId::USER => Class::content(Wants::TOOLS | Wants::PROMPT),
            NameId::STREAM_EVENT => Class::content(Wants::TEXT | Wants::THINKING),
            NameId::RATE_LIMIT_EVENT => Class::noise(Wants::NOTICES | Wants::LIMITS),
            NameId::CONTROL_REQUEST | NameId::CONTROL_RESPONSE => Class::noise(Wants::NONE),
            _ => Class::UNKNOWN,
        }
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        match head.name {
            NameId::SYSTEM => self.system(line, head, sink),
            NameId::STREAM_EVENT => self.stream_event(line, sink),
            NameId::ASSISTANT | NameId::USER => self.message_line(line, head.name, sink),
            NameId::RESULT => self.result(line, sink),
            NameId::RATE_LIMIT_EVENT => self.rate_limit(line, sink),
            _ => Ok(()),
        }
    }

    fn reset(&mut self) {
        self.partial = false;
        self.message = 0;
        self.streamed_text.clear();
        self.streamed_thinking.clear();
        self.denied.clear();
    }

    fn lint(&self, head: &Head, line: &[u8]) -> Option<String> {
        super::missing_session_id(head, line)
    }

    /// The `SessionStart` hooks' lines, which Claude Code writes before the `init` of the
    /// run they start.
    fn before_run(&self, head: &Head, line: &[u8]) -> bool {
        head.name == NameId::SYSTEM
            && head.subtype(line).is_some_and(|s| s.starts_with("hook_"))
            && crate::input::json::top_level_value(line, "hook_event")
                == Some(&b"\"SessionStart\""[..])
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        let m = stderr_line.to_ascii_lowercase();
        if self.agent == Agent::Qwen {
            return mentions(&m, &["openai_api_key", "auth-type", "no auth type", "authentication"])
                .then_some(
                    "qwen has no credentials: pass --auth-type and set its key (OPENAI_API_KEY with --auth-type openai)",
                );
        }
        if mentions(&m, &["requires --verbose"]) {
            Some("claude needs --verbose with -p --output-format stream-json")
        } else if mentions(&m, &["cannot be used with root/sudo"]) {
            Some(
                "as root, claude refuses --dangerously-skip-permissions unless IS_SANDBOX=1 is set (in a sandbox only)",
            )
        } else if mentions(
            &m,
            &[
                "invalid api key",
                "please run /login",
                "not logged in",
                "authentication_error",
            ],
        ) {
            Some("claude is not logged in: run `claude /login`, or set ANTHROPIC_API_KEY")
        } else {
            None
        }
    }
}

/// The sub-agent whose own log (`<session>/subagents/agent-<id>.jsonl`) a session log's
/// line names as a tool's result (`toolUseResult.agentId`): `stores::open` reads that log
/// in after the line, where the stream would have had the sub-agent's events.
pub(crate) fn subagent_of(line: &[u8]) -> Option<String> {
    memchr::memmem::find(line, b"\"agentId\"")?;
    #[derive(serde::Deserialize)]
    struct Line<'a> {
        #[serde(rename = "toolUseResult", borrow, default)]
        result: Option<&'a RawValue>,
    }
    let l: Line = crate::input::json::from_line(line).ok()?;
    wire::agent_of_result(l.result)
}

impl Claude {
    pub(crate) fn new(agent: Agent) -> Claude {
        Claude {
            agent,
            fixed: false,
            partial: false,
            message: 0,
            streamed_text: Digest::default(),
            streamed_thinking: Digest::default(),
            denied: HashSet::new(),
            hasher: RandomState::new(),
            scratch: Vec::new(),
        }
    }

    fn system<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let Some(subtype) = head.subtype(line.bytes) else {
            return Ok(());
        };
        match &*subtype {
            "init" | "session_start" => {
                let init = match wire::read_init(line.bytes) {
                    Ok(init) => init,
                    Err(e) => {
                        sink.unreadable(unreadable!("system/init"), line.bytes, &e)?;
                        wire::Init::default()
                    }
                };
                // Each run says which of the two wrote it: a log may append Claude's runs
                // and Qwen's in any order.
                if !self.fixed {
                    let qwen = init.qwen_code_version.is_some() || init.permission_mode.is_some();
                    self.agent = if qwen { Agent::Qwen } else { Agent::Claude };
                }
                self.reset();
                sink.start_run(RunInfo {
                    agent: self.agent,
                    session_id: init.session_id.0.map(Cow::into_owned),
                    model: init.model.0.map(Cow::into_owned),
                    cwd: init.cwd.0.map(Cow::into_owned),
                    ..RunInfo::new(self.agent)
                })
            }
            "permission_denied" => {
                if let Some(id) = wire::read_system(line.bytes).tool_use_id.0 {
                    self.denied.insert(id.into_owned());
                }
                Ok(())
            }
            "api_retry" if sink.wants().has(Wants::NOTICES) => {
                let sys = wire::read_system(line.bytes);
                let mut text = String::from("Retrying");
                if let Some(n) = sys.attempt.as_u64() {
                    text.push_str(&format!(" (attempt {n}"));
                    if let Some(max) = sys.max_retries.as_u64() {
                        text.push_str(&format!(" of {max}"));
                    }
                    text.push(')');
                }
                if let Some(error) = sys.error.0.filter(|e| !e.is_empty()) {
                    text.push_str(&format!(": {error}"));
                }
                sink.event(Event::Notice(&Notice {
                    kind: NoticeKind::Retry,
                    text: Cow::Owned(text),
                }))
            }
            "model_fallback" if sink.wants().has(Wants::NOTICES) => {
                let text = match wire::read_system(line.bytes).fallback() {
                    Some((from, to)) => format!("Model fallback: {from} → {to}"),
                    None => "Model fallback".to_string(),
                };
                sink.event(Event::Notice(&Notice {
                    kind: NoticeKind::Warning,
                    text: Cow::Owned(text),
                }))
            }
            _ => Ok(()),
        }
    }

    /// A `rate_limit_event`: a notice when the state is not `allowed`, and the limit's
    /// state (it has no time of its own: the run's is taken).
    fn rate_limit<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<()> {
        let Some(info) = wire::rate_limit(line.bytes) else {
            return Ok(());
        };
        let status = info.status.0.as_deref();
        if let Some(status) = status.filter(|s| *s != "allowed")
            && sink.wants().has(Wants::NOTICES)
        {
            sink.event(Event::Notice(&Notice {
                kind: NoticeKind::Warning,
                text: Cow::Owned(format!("Rate limit: {status}")),
            }))?;
        }
        if let Some(window) = info.window()
            && sink.wants().has(Wants::LIMITS)
        {
            sink.event(Event::Limit(&Limit {
                window,
                used_percent: None,
                resets_ms: info.resets_at.as_i64().map(|s| s.saturating_mul(1000)),
                status,
                at_ms: None,
                source: "rate_limit_event",
            }))?;
        }
        Ok(())
    }

    fn stream_event<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<()> {
        self.scratch.clear();
        let ev = match wire::read_stream_event(line.bytes, &mut self.scratch) {
            Ok(ev) => ev,
            Err(e) => {
                // An event all the same (a line that is not JSON comes back as an error).
                sink.unreadable(unreadable!("stream_event"), line.bytes, &e)?;
                self.partial = true;
                return Ok(());
            }
        };
        self.partial = true;
        if !ev.top_level {
            return Ok(());
        }
        let wants = sink.wants();
        match ev.kind {
            StreamKind::MessageStart => {
                let id = self.hash(ev.message_id.as_deref().unwrap_or(""));
                if id != self.message {
                    self.message = id;
                    if wants.has(Wants::TEXT) {
                        sink.event(Event::Segment)?;
                    }
                }
            }
            StreamKind::BlockStart => match ev.block {
                BlockKind::Text => self.streamed_text.clear(),
                BlockKind::Thinking => self.streamed_thinking.clear(),
                BlockKind::ToolUse if wants.has(Wants::TEXT) => sink.event(Event::Segment)?,
                _ => {}
            },
            StreamKind::BlockDelta => match ev.delta {
                DeltaKind::Text if wants.has(Wants::TEXT) => {
                    self.streamed_text.add(&self.scratch);
                    sink.event(Event::Text(&self.scratch))?;
                }
                DeltaKind::Thinking if wants.has(Wants::THINKING) => {
                    self.streamed_thinking.add(&self.scratch);
                    sink.event(Event::Thinking {
                        text: &self.scratch,
                        done: false,
                    })?;
                }
                _ => {}
            },
            StreamKind::Other => {}
        }
        Ok(())
    }

    /// An `assistant` or `user` event: its content blocks.
    fn message_line<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        name: NameId,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let what = if name == NameId::ASSISTANT {
            unreadable!("assistant")
        } else {
            unreadable!("user")
        };
        let msg = match wire::read_message(line.bytes) {
            Ok(msg) => msg,
            Err(e) => return sink.unreadable(what, line.bytes, &e),
        };
        self.message(&msg, what, line, name, sink)
    }

    /// A message read from its line (the session log's dialect reads it first).
    fn message<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        what: crate::out::diag::Unreadable,
        line: &RawLine<'_>,
        name: NameId,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if let Some(id) = msg.session_id.as_deref() {
            sink.session_seen(id);
        }
        let wants = sink.wants();
        let parent = msg.parent_tool_use_id.as_deref();
        if name == NameId::USER && parent.is_none() && wants.has(Wants::PROMPT) {
            echoed_prompt(msg, sink);
        }
        if name == NameId::ASSISTANT && parent.is_none() && !self.partial {
            let id = self.hash(msg.message_id.as_deref().unwrap_or(""));
            if id != self.message {
                self.message = id;
                if wants.has(Wants::TEXT) {
                    sink.event(Event::Segment)?;
                }
            }
        }
        let at_ms = msg.timestamp.as_deref().and_then(rfc3339_ms);
        let mut failure = None;
        let blocks = wire::each_block(msg.content, |block| {
            if failure.is_none()
                && let Err(e) = self.block(&block, msg, at_ms, name, sink)
            {
                failure = Some(e);
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        if let Err(e) = blocks {
            return sink.unreadable(what, line.bytes, &e);
        }
        Ok(())
    }

    fn block<S: Sink>(
        &mut self,
        block: &Block<'_>,
        msg: &wire::Message<'_>,
        at_ms: Option<u64>,
        name: NameId,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
        let parent = msg.parent_tool_use_id.as_deref();
        match block.kind {
            // A sub-agent's text and reasoning are not the run's answer.
            BlockKind::Text
                if name == NameId::ASSISTANT && parent.is_none() && wants.has(Wants::TEXT) =>
            {
                let text = block.text.as_deref().unwrap_or("").as_bytes();
                let new = unstreamed(&mut self.streamed_text, text);
                sink.event(Event::Text(new))?;
            }
            BlockKind::Thinking
                if name == NameId::ASSISTANT && parent.is_none() && wants.has(Wants::THINKING) =>
            {
                let text = block.thinking.as_deref().unwrap_or("").as_bytes();
                let new = unstreamed(&mut self.streamed_thinking, text);
                sink.event(Event::Thinking {
                    text: new,
                    done: true,
                })?;
            }
            BlockKind::ToolUse => {
                if parent.is_none() && wants.has(Wants::TEXT) {
                    sink.event(Event::Segment)?;
                }
                if wants.has(Wants::TOOLS) {
                    sink.tool_started(self.tool_call(block, parent, at_ms, wants))?;
                }
            }
            BlockKind::ToolResult if wants.has(Wants::TOOLS) => {
                sink.tool_ended(self.tool_outcome(block, msg, at_ms, wants))?;
            }
            _ => {}
        }
        Ok(())
    }

    fn tool_call<'a>(
        &self,
        block: &Block<'a>,
        parent: Option<&'a str>,
        at_ms: Option<u64>,
        wants: Wants,
    ) -> ToolCall<'a> {
        let tool = block.name.clone().unwrap_or(Cow::Borrowed("unknown"));
        let mut call = tools::call(block.id.clone(), tool, block.input, wants);
        // `mcp__<server>__<tool>`: the name says what is called.
        if let Some(rest) = call.tool.strip_prefix("mcp__")
            && wants.has(Wants::TOOL_DETAILS)
        {
            call.target = Some(Cow::Owned(rest.replacen("__", "/", 1)));
        }
        call.parent = parent.map(Cow::Borrowed);
        call.at_ms = at_ms;
        call
    }

    fn tool_outcome<'a>(
        &self,
        block: &Block<'a>,
        msg: &wire::Message<'a>,
        at_ms: Option<u64>,
        wants: Wants,
    ) -> ToolEndRaw<'a> {
        let id = block.tool_use_id.clone();
        let mut call = ToolCall::new("unknown", ToolKind::Other);
        call.parent = msg.parent_tool_use_id.0.clone();
        let is_error = block.is_error.0 == Some(true);
        let error_text = block
            .content
            .filter(|_| is_error)
            .and_then(wire::first_text);
        let rejected = is_error
            && (id.as_deref().is_some_and(|id| {
                self.denied.contains(id) || wire::never_ran(msg.tool_result_meta, id)
            }) || error_text.as_deref().is_some_and(is_denial)
                || msg.denied());
        let status = if rejected {
            ToolStatus::new("rejected", StatusClass::Rejected)
        } else if is_error {
            ToolStatus::new("error", StatusClass::Failed)
        } else {
            ToolStatus::success()
        };
        let effect = if wants.has(Wants::TOOL_DETAILS) {
            effect(error_text, msg.tool_use_result, is_error)
        } else {
            Effect::default()
        };
        call.id = id;
        ToolEndRaw {
            call,
            status,
            result: block
                .content
                .filter(|_| wants.has(Wants::TOOL_RAW))
                .map(Cow::Borrowed),
            effect,
            ended_ms: at_ms,
        }
    }

    fn result<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<()> {
        sink.ensure_run(self.agent)?;
        sink.terminal(true);
        self.reset();
        let ev = match wire::read_result(line.bytes) {
            Ok(ev) => ev,
            Err(e) => {
                sink.unreadable(unreadable!("result"), line.bytes, &e)?;
                return sink.end_run(RunEnd {
                    outcome: Outcome::Unreadable,
                    ..RunEnd::unfinished()
                });
            }
        };
        if let Some(id) = ev.session_id.as_deref() {
            sink.session_seen(id);
        }
        let text = ev.result.as_deref();
        let outcome = if ev.subtype.as_deref() != Some("success") || ev.is_error.0 == Some(true) {
            let mut reason = format!(
                "subtype {}, is_error {}",
                ev.subtype.as_deref().unwrap_or(""),
                ev.is_error.0.unwrap_or(false)
            );
            if let Some(error) = ev.first_error() {
                reason.push_str(&format!(": {error}"));
            }
            Outcome::Failed { reason }
        } else if self.agent == Agent::Qwen
            && let Some(error) = text.filter(|t| t.starts_with("[API Error:"))
        {
            // Qwen reports a failed model call as a successful answer.
            Outcome::Failed {
                reason: format!("the answer is an API error: {error}"),
            }
        } else {
            Outcome::Succeeded
        };
        let usage = result_usage(&ev, sink)?;
        sink.end_run(RunEnd {
            outcome,
            final_text: text.map(str::as_bytes),
            answer: AnswerCheck::Unchecked,
            usage,
            duration_ms: ev.duration_ms.as_u64(),
            native_json: Some(line.bytes),
            last_ms: None,
        })
    }

    fn hash(&self, id: &str) -> u64 {
        // 0 stands for "no message yet".
        self.hasher.hash_one(id).max(1)
    }
}

/// A run's usage, from its `result`: each model's calls billed apart where the result
/// names them (`modelUsage`: the side models — Haiku's quick calls, a sub-agent on
/// another model — are in no other count, only in the cost), the run's usage then their
/// sum (`None` here: the sink adds what was billed); else the main model's `usage`.
fn result_usage<S: Sink>(ev: &wire::ResultLine<'_>, sink: &mut S) -> anyhow::Result<Option<Usage>> {
    let reasoning = ev.usage.0.as_ref().and_then(|u| {
        u.output_tokens_details
            .as_ref()
            .and_then(|d| d.thinking_tokens.as_u64())
    });
    let Some(models) = ev.model_usage.0.as_ref().filter(|m| !m.is_empty()) else {
        return Ok(ev.usage.0.as_ref().map(|u| Usage {
            input: u.input_tokens.as_u64().unwrap_or(0),
            output: u.output_tokens.as_u64().unwrap_or(0),
            cache_read: u.cache_read_input_tokens.as_u64().unwrap_or(0),
            cache_write: u.cache_creation_input_tokens.as_u64().unwrap_or(0),
            reasoning,
            cost_usd: ev.total_cost_usd.0.filter(|c| c.is_finite()),
            cache_write_1h: None,
        }));
    };
    // The reasoning `usage` counts is the main model's: the one that wrote the most.
    let main = models
        .iter()
        .max_by_key(|(_, m)| m.output_tokens.as_u64())
        .map(|(name, _)| name.as_str());
    for (name, m) in models {
        let usage = Usage {
            input: m.input_tokens.as_u64().unwrap_or(0),
            output: m.output_tokens.as_u64().unwrap_or(0),
            cache_read: m.cache_read_input_tokens.as_u64().unwrap_or(0),
            cache_write: m.cache_creation_input_tokens.as_u64().unwrap_or(0),
            reasoning: reasoning.filter(|_| main == Some(name.as_str())),
            cost_usd: m.cost_usd.0.filter(|c| c.is_finite() && *c >= 0.0),
            cache_write_1h: None,
        };
        sink.event(Event::Billed(&Billed {
            usage,
            model: Some(name),
            at_ms: None,
            id: None,
        }))?;
    }
    Ok(None)
}

/// What a whole block adds to what its deltas already gave: normally nothing; the rest
/// when the deltas gave only its start; all of it when there were no deltas (or, never
/// seen, when they do not match it: nothing is lost).
fn unstreamed<'t>(streamed: &mut Digest, text: &'t [u8]) -> &'t [u8] {
    let new = if streamed.len > 0 && streamed.is_prefix_of(text) {
        &text[streamed.len as usize..]
    } else {
        text
    };
    streamed.clear();
    new
}

/// The text a permission refusal leaves as the tool's result, when no event said so
/// (Claude without `system/permission_denied`, Qwen); and the one a user's "No" at
/// Claude Code's prompt leaves in its session log (`toolUseResult` "User rejected tool
/// use": 2.0.76, 2.1.41 fixtures).
fn is_denial(error: &str) -> bool {
    error.starts_with("Claude requested permissions to")
        || error.starts_with("Qwen Code requires permission to")
        || error.starts_with("The user doesn't want to proceed with this tool use")
}

/// What a tool call did, from its error text and the `tool_use_result` beside.
fn effect(error: Option<String>, structured: Option<&RawValue>, is_error: bool) -> Effect {
    if is_error {
        let exit_code = error.as_deref().and_then(|e| {
            e.strip_prefix("Exit code ")?
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()
        });
        return Effect {
            exit_code,
            error,
            ..Effect::default()
        };
    }
    structured.map(wire::structured_effect).unwrap_or_default()
}

/// The prompt a stream run with `--replay-user-messages` echoes, marked `isReplay` (the
/// harness's own user turns are not: an interruption, a reminder), in the user's words; a
/// local command's output it replays too is not a prompt.
fn echoed_prompt<S: Sink>(msg: &wire::Message<'_>, sink: &mut S) {
    if msg.is_replay.0 != Some(true) {
        return;
    }
    let Some(text) = msg.content.and_then(wire::user_words) else {
        return;
    };
    if text.trim_start().starts_with("<local-command-") {
        return;
    }
    if let Some(words) = wire::users_words(&text) {
        sink.prompt_seen(&words);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_block_adds_only_what_was_not_streamed() {
        let mut d = Digest::default();
        d.add(b"Hel");
        d.add(b"lo");
        assert_eq!(unstreamed(&mut d, b"Hello"), b"");
        d.add(b"Hel");
        assert_eq!(unstreamed(&mut d, b"Hello"), b"lo");
        assert_eq!(
            unstreamed(&mut d, b"Hello"),
            b"Hello",
            "no deltas: all of it"
        );
        d.add(b"Bye");
        assert_eq!(
            unstreamed(&mut d, b"Hello"),
            b"Hello",
            "not what was streamed"
        );
    }
}

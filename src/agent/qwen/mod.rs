//! Qwen Code's session logs: `~/.qwen/projects/<cwd-slug>/chats/<session>.jsonl`
//! (`$QWEN_RUNTIME_DIR`; 0.2's documents are read into these records by `store`). Claude Code's envelope (`sessionId`, `uuid`, `parentUuid`,
//! `type`), Gemini's payload (`message` is a `Content` of `parts`). Qwen's stream is
//! Claude's format, read by `agent::claude`; this is only its log. Notes:
//! `../shared/spec/stores.md` §2.4, `tests/fixtures/recorded/STORES.md`.
//!
//! ```text
//! {"uuid":"…","sessionId":"…","timestamp":"…","type":"user","cwd":"/w","provenance":"real_user","message":{"role":"user","parts":[{"text":"<prompt>"}]}}
//! {…,"type":"assistant","model":"…","usageMetadata":{…},"message":{"role":"model","parts":[{"text":"…","thought":true},{"text":"…"},{"functionCall":{"id","name","args"}}]}}
//! {…,"type":"tool_result","toolCallResult":{"callId","status","errorType",…},"message":{"role":"user","parts":[{"functionResponse":…}]}}
//! {…,"type":"system","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response"|"qwen-code.api_error",…}}}
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | run start | a `user` record of the user's (`provenance` `real_user`, or none) with text |
//! | model | the `assistant` records'; a run whose every call failed, its `api_error` telemetry's |
//! | text, thinking | `assistant` parts (`thought: true` is reasoning); each record a segment |
//! | sub-agents | records marked `isSidechain` (0.2's sub-agent documents, as the store reads them in): their tokens are the run's, their prompt, text and state are not |
//! | tool calls | `functionCall` parts → the `tool_result` record with the same id (`errorType` `execution_denied` is a rejection) |
//! | notices | `qwen-code.api_error` telemetry |
//! | run end | the next prompt, or the end of the log: success when the model's text came last; failed when a failed model call (`api_error`) came last; else no result |
//! | usage | the `qwen-code.api_response` telemetry records, one per billed request (the side requests too, which no message records), each counted once by the record's `uuid` (not its `response_id`: a local or proxied model answers `chatcmpl-…` every time); a log without them, the `assistant` records' `usageMetadata`. `promptTokenCount` includes the cached tokens, `candidatesTokenCount` the thoughts |
//!
//! Told from Claude Code's log (the same envelope) by its records' own keys
//! (`provenance`, `usageMetadata`, `systemPayload`, `toolCallResult`) or, before 0.24
//! wrote `provenance` on every record, by a `message` made of `parts` (Claude's has
//! `content`).

mod spec;
mod store;

pub(crate) use spec::{Reader, SPEC};
pub(crate) use store::is_chat_document;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::{
    Agent, Billed, Effect, Event, Notice, NoticeKind, Outcome, RunEnd, RunInfo, StatusClass,
    ToolCall, ToolEndRaw, ToolKind, ToolStatus, Usage, Wants,
};
use super::tools;
use super::wire::{before_referenced_files, without_elements};
use super::{Class, Dialect, RawLine, Sink};
use crate::input::json::{MaybeStr, rfc3339_ms};
use crate::input::lenient::{Flag, Object, TokenCount};
use crate::input::peek::{Head, NameId};
use crate::out::diag::{Unreadable, unreadable};

#[derive(Default)]
pub(crate) struct QwenLog {
    last: Last,
    answer: Vec<u8>,
    /// The run's model calls came in the telemetry.
    telemetry: bool,
    /// The run's tokens as its messages give them, with their model and time: its usage
    /// where no telemetry came (it misses the side requests).
    messages: Vec<(Usage, Option<String>, Option<u64>)>,
    last_ms: Option<u64>,
}

#[derive(Default, Debug, Clone, PartialEq)]
enum Last {
    #[default]
    Waiting,
    Text,
    Tool,
    Failed(String),
}

#[derive(Deserialize)]
struct Record<'a> {
    /// The record's own id: what a model call's telemetry is counted once by (its
    /// `response_id` is the server's, and a local or proxied model gives the same one to
    /// every call).
    #[serde(borrow, default)]
    uuid: MaybeStr<'a>,
    #[serde(rename = "sessionId", borrow, default)]
    session_id: MaybeStr<'a>,
    #[serde(borrow, default)]
    timestamp: MaybeStr<'a>,
    #[serde(borrow, default)]
    cwd: MaybeStr<'a>,
    #[serde(borrow, default)]
    provenance: MaybeStr<'a>,
    /// A sub-agent's record (0.2's sub-agent documents, read in by the store, say so).
    #[serde(rename = "isSidechain", default)]
    is_sidechain: Flag,
    #[serde(borrow, default)]
    model: MaybeStr<'a>,
    #[serde(borrow, default)]
    message: Object<Content<'a>>,
    #[serde(rename = "usageMetadata", default)]
    usage_metadata: Object<UsageMetadata>,
    #[serde(rename = "toolCallResult", borrow, default)]
    tool_call_result: Object<ToolCallResult<'a>>,
    #[serde(rename = "systemPayload", borrow, default)]
    system_payload: Object<SystemPayload<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Content<'a> {
    #[serde(borrow)]
    parts: Option<Vec<Part<'a>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(borrow)]
    text: MaybeStr<'a>,
    thought: Flag,
    #[serde(rename = "functionCall", borrow)]
    function_call: Option<FunctionCall<'a>>,
    #[serde(rename = "functionResponse", borrow)]
    function_response: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FunctionCall<'a> {
    #[serde(borrow)]
    id: MaybeStr<'a>,
    #[serde(borrow)]
    name: MaybeStr<'a>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct UsageMetadata {
    #[serde(rename = "promptTokenCount")]
    prompt: TokenCount,
    #[serde(rename = "candidatesTokenCount")]
    candidates: TokenCount,
    #[serde(rename = "thoughtsTokenCount")]
    thoughts: TokenCount,
    #[serde(rename = "cachedContentTokenCount")]
    cached: TokenCount,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCallResult<'a> {
    #[serde(rename = "callId", borrow)]
    call_id: MaybeStr<'a>,
    #[serde(borrow)]
    status: MaybeStr<'a>,
    #[serde(rename = "errorType", borrow)]
    error_type: MaybeStr<'a>,
    #[serde(rename = "resultDisplay", borrow)]
    result_display: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct SystemPayload<'a> {
    #[serde(rename = "uiEvent", borrow)]
    ui_event: Option<UiEvent<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct UiEvent<'a> {
    #[serde(rename = "event.name", borrow)]
    name: MaybeStr<'a>,
    input_token_count: TokenCount,
    output_token_count: TokenCount,
    cached_content_token_count: TokenCount,
    thoughts_token_count: TokenCount,
    #[serde(borrow)]
    model: MaybeStr<'a>,
    #[serde(borrow)]
    error_message: MaybeStr<'a>,
}

impl Dialect for QwenLog {
    fn agent(&self) -> Agent {
        Agent::Qwen
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::USER | NameId::ASSISTANT | NameId::TOOL_RESULT | NameId::SYSTEM => {
                Class::message(Wants::ALL)
            }
            // A log's other records (it is no contract: each release adds some).
            _ => Class::noise(Wants::NONE),
        }
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let r: Record = match crate::input::json::from_line(line.bytes) {
            Ok(r) => r,
            Err(e) => return sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        };
        let at_ms = r.timestamp.as_deref().and_then(rfc3339_ms);
        match head.name {
            NameId::USER => self.user(r, at_ms, sink),
            NameId::ASSISTANT => self.assistant(r, line.bytes, at_ms, sink),
            NameId::TOOL_RESULT => self.tool_result(r, at_ms, sink),
            NameId::SYSTEM => self.system(r, line.bytes, at_ms, sink),
            _ => Ok(()),
        }
    }

    fn reset(&mut self) {
        *self = QwenLog::default();
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            self.reset();
            return Ok(());
        }
        let outcome = match std::mem::take(&mut self.last) {
            Last::Text => Outcome::Succeeded,
            Last::Failed(reason) => Outcome::Failed { reason },
            Last::Waiting | Last::Tool => Outcome::NoEnd,
        };
        if !self.telemetry {
            for (usage, model, at_ms) in std::mem::take(&mut self.messages) {
                sink.event(Event::Billed(&Billed {
                    usage,
                    model: model.as_deref(),
                    at_ms,
                    id: None,
                }))?;
            }
        }
        let answer = std::mem::take(&mut self.answer);
        let final_text = (outcome == Outcome::Succeeded && sink.wants().has(Wants::FINAL))
            .then_some(answer.as_slice());
        let result = sink.end_run(RunEnd {
            final_text,
            last_ms: self.last_ms,
            ..RunEnd {
                outcome,
                ..RunEnd::unfinished()
            }
        });
        self.reset();
        result
    }
}

impl QwenLog {
    fn seen<S: Sink>(&mut self, at_ms: Option<u64>, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            // A log cut at the front: its first run's prompt is gone.
            sink.ensure_run(Agent::Qwen)?;
        }
        if at_ms.is_some() {
            self.last_ms = at_ms.max(self.last_ms);
        }
        Ok(())
    }

    fn user<S: Sink>(
        &mut self,
        r: Record<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        // A sub-agent's task was written by the model, not typed: no run.
        if !matches!(r.provenance.as_deref(), None | Some("real_user"))
            || r.is_sidechain.0 == Some(true)
        {
            return Ok(());
        }
        let parts = r.message.0.and_then(|c| c.parts).unwrap_or_default();
        let words: Vec<&str> = parts
            .iter()
            .filter(|p| p.thought.0 != Some(true) && p.function_response.is_none())
            .filter_map(|p| p.text.as_deref())
            .collect();
        if words.is_empty() {
            return Ok(());
        }
        self.finish(sink)?;
        self.last_ms = at_ms;
        sink.start_run(RunInfo {
            session_id: r.session_id.0.map(Cow::into_owned),
            cwd: r.cwd.0.map(Cow::into_owned),
            // The user's words, without the files an `@` added after them (as Gemini CLI),
            // nor the reminders Qwen Code adds.
            prompt: without_elements(
                before_referenced_files(&words.concat()),
                &["system-reminder"],
            ),
            started_ms: at_ms,
            ..RunInfo::new(Agent::Qwen)
        })
    }

    fn assistant<S: Sink>(
        &mut self,
        r: Record<'_>,
        line: &[u8],
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.seen(at_ms, sink)?;
        let sidechain = r.is_sidechain.0 == Some(true);
        if let Some(model) = r.model.as_deref().filter(|_| !sidechain) {
            sink.model_seen(model);
        }
        if let Some(u) = &r.usage_metadata.0 {
            match usage(u.prompt, u.cached, u.candidates, u.thoughts) {
                Some(usage) => {
                    let model = r.model.as_deref().map(str::to_owned);
                    self.messages.push((usage, model, at_ms));
                }
                None => sink.unreadable(unreadable!("usage"), line, &BAD_COUNT)?,
            }
        }
        // A sub-agent's answer is billed to the session, but it is not the run's.
        if sidechain {
            return Ok(());
        }
        let wants = sink.wants();
        let parts = r.message.0.and_then(|c| c.parts).unwrap_or_default();
        let mut segment = true;
        for part in parts {
            if let Some(call) = part.function_call {
                self.last = Last::Tool;
                if wants.has(Wants::TEXT) {
                    sink.event(Event::Segment)?;
                }
                if wants.has(Wants::TOOLS) {
                    let name = call.name.0.unwrap_or(Cow::Borrowed("unknown"));
                    let mut c = tools::call(call.id.0, name, call.args, wants);
                    c.at_ms = at_ms;
                    sink.tool_started(c)?;
                }
                segment = true;
                continue;
            }
            let Some(text) = part.text.as_deref() else {
                continue;
            };
            if part.thought.0 == Some(true) {
                if wants.has(Wants::THINKING) {
                    let text = if wants.has(Wants::THINKING_TEXT) {
                        text
                    } else {
                        ""
                    };
                    sink.event(Event::Thinking {
                        text: text.as_bytes(),
                        done: true,
                    })?;
                }
                continue;
            }
            if text.is_empty() {
                continue;
            }
            if segment {
                self.answer.clear();
            }
            self.last = Last::Text;
            self.answer.extend_from_slice(text.as_bytes());
            if wants.has(Wants::TEXT) {
                if segment {
                    sink.event(Event::Segment)?;
                }
                sink.event(Event::Text(text.as_bytes()))?;
            }
            segment = false;
        }
        Ok(())
    }

    fn tool_result<S: Sink>(
        &mut self,
        r: Record<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.seen(at_ms, sink)?;
        if r.is_sidechain.0 == Some(true) {
            return Ok(());
        }
        self.last = Last::Waiting;
        let wants = sink.wants();
        if !wants.has(Wants::TOOLS) {
            return Ok(());
        }
        let result = r.tool_call_result.0.unwrap_or_default();
        let response = r
            .message
            .0
            .and_then(|c| c.parts)
            .unwrap_or_default()
            .into_iter()
            .find_map(|p| p.function_response);
        let status = match (result.status.as_deref(), result.error_type.as_deref()) {
            (Some("success"), _) => ToolStatus::success(),
            (_, Some("execution_denied")) => ToolStatus::new("rejected", StatusClass::Rejected),
            (Some("cancelled"), _) => ToolStatus::new("cancelled", StatusClass::Rejected),
            (Some(word), _) => ToolStatus::new(word.to_string(), StatusClass::Failed),
            (None, _) => ToolStatus::unknown(),
        };
        let effect = if wants.has(Wants::TOOL_DETAILS) && status.class != StatusClass::Ok {
            Effect {
                error: result.result_display.map(|d| {
                    crate::input::json::from_str::<String>(d.get())
                        .unwrap_or_else(|_| d.get().to_string())
                }),
                ..Effect::default()
            }
        } else {
            Effect::default()
        };
        let mut call = ToolCall::new("unknown", ToolKind::Other);
        call.id = result.call_id.0;
        sink.tool_ended(ToolEndRaw {
            call,
            status,
            result: response
                .filter(|_| wants.has(Wants::TOOL_RAW))
                .map(Cow::Borrowed),
            effect,
            ended_ms: at_ms,
        })
    }

    fn system<S: Sink>(
        &mut self,
        r: Record<'_>,
        line: &[u8],
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let Some(ev) = r.system_payload.0.and_then(|p| p.ui_event) else {
            return Ok(());
        };
        match ev.name.as_deref() {
            Some("qwen-code.api_response") => {
                self.seen(at_ms, sink)?;
                self.telemetry = true;
                let Some(usage) = usage(
                    ev.input_token_count,
                    ev.cached_content_token_count,
                    ev.output_token_count,
                    ev.thoughts_token_count,
                ) else {
                    return sink.unreadable(unreadable!("usage"), line, &BAD_COUNT);
                };
                sink.event(Event::Billed(&Billed {
                    usage,
                    model: ev.model.as_deref(),
                    at_ms,
                    id: r.uuid.as_deref(),
                }))
            }
            Some("qwen-code.api_error") => {
                self.seen(at_ms, sink)?;
                // A run whose every call failed has no answer to name its model.
                if let Some(model) = ev.model.as_deref() {
                    sink.model_seen(model);
                }
                let text = ev
                    .error_message
                    .as_deref()
                    .unwrap_or("the model call failed");
                // A side request's failure after the answer does not undo it.
                if self.last != Last::Text {
                    self.last = Last::Failed(text.to_string());
                }
                if sink.wants().has(Wants::NOTICES) {
                    sink.event(Event::Notice(&Notice {
                        kind: NoticeKind::Error,
                        text: Cow::Owned(format!("API error: {text}")),
                    }))?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

/// What a record with a token count that is no count says.
const BAD_COUNT: &str = "a token count that is no count: left out of the totals";

/// Gemini's names, OpenAI's counts: the prompt counts the cached tokens, and the
/// candidates the thoughts (unlike Gemini's, where they are apart). `None` when a count
/// is no count.
fn usage(
    prompt: TokenCount,
    cached: TokenCount,
    candidates: TokenCount,
    thoughts: TokenCount,
) -> Option<Usage> {
    if TokenCount::any_bad(&[prompt, cached, candidates, thoughts]) {
        return None;
    }
    let cached = cached.get();
    Some(Usage {
        input: prompt.get().saturating_sub(cached),
        output: candidates.get(),
        cache_read: cached,
        reasoning: Some(thoughts.get()),
        ..Usage::default()
    })
}

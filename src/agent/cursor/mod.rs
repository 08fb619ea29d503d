//! Cursor Agent CLI: `agent -p --output-format stream-json [--stream-partial-output]`.
//!
//! The format is described in [`wire`] (and `../shared/spec/stream-json.md`); the answer is
//! rebuilt by [`answer`] (three forms of `assistant` event, each piece once); tool calls
//! are read by [`tool_call`].
//!
//! | normalized | from |
//! |---|---|
//! | run start | `system/init` (or the first event of a run); its prompt from the `user` line that echoes it |
//! | text, segments | `assistant` (deduplicated), a `tool_call` ends a segment |
//! | thinking | `thinking` `delta` / `completed` |
//! | tool calls | `tool_call` `started` / `completed` (the variant key is the status) |
//! | notices | `connection`, `retry` |
//! | run end | `result`: success only for `subtype:"success"` with `is_error` not true; `json` prints the line on success, as the CLI's own json format |

mod answer;
mod legacy;
mod spec;
mod store;
mod subagents;
pub(crate) mod tool_call;
pub(crate) mod transcript;
pub(crate) mod wire;

pub(crate) use spec::{Reader, SPEC};

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde_json::value::RawValue;

use super::event::{
    Agent, Effect, Event, Notice, NoticeKind, RunEnd, RunInfo, StatusClass, ToolEndRaw, ToolKind,
    ToolStatus, Usage, Wants,
};
use super::tools;
use super::{Class, Dialect, RawLine, Sink, mentions};
use crate::agent::event::Outcome;
use crate::input::peek::{Head, NameId};
use crate::out::diag::unreadable;
use answer::Answer;
use tool_call::{CallResult, OutcomeSummary, Payload, Phase, ToolCallEvent, read_tool_call};

#[derive(Default)]
pub(crate) struct Cursor {
    answer: Answer,
    thinking: Vec<u8>,
}

impl Dialect for Cursor {
    fn agent(&self) -> Agent {
        Agent::Cursor
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::SYSTEM | NameId::RESULT => Class::lifecycle(Wants::NONE),
            // The stream echoes the prompt after its `init`.
            NameId::USER => Class::content(Wants::PROMPT),
            NameId::ASSISTANT => Class::content(Wants::TEXT),
            NameId::THINKING => Class::content(Wants::THINKING),
            // A tool call also ends a segment of the answer.
            NameId::TOOL_CALL => Class::content(Wants::TEXT.union(Wants::TOOLS)),
            NameId::CONNECTION | NameId::RETRY => Class::noise(Wants::NOTICES),
            NameId::INTERACTION_QUERY => Class::noise(Wants::NONE),
            _ => Class::UNKNOWN,
        }
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
        match head.name {
            NameId::SYSTEM => self.system(line, head, sink),
            NameId::USER if wants.has(Wants::PROMPT) => {
                if let Some(prompt) = transcript::echoed_prompt(line.bytes) {
                    sink.prompt_seen(&prompt);
                }
                Ok(())
            }
            NameId::ASSISTANT if wants.has(Wants::TEXT) => {
                match self.answer.assistant(line.bytes) {
                    Ok([]) => Ok(()),
                    Ok(new) => sink.event(Event::Text(new)),
                    Err(e) => sink.unreadable(unreadable!("assistant"), line.bytes, &e),
                }
            }
            NameId::THINKING if wants.has(Wants::THINKING) => {
                // Where a phase starts and ends is in the subtype; the text needs the
                // line read.
                if !wants.has(Wants::THINKING_TEXT) {
                    return sink.event(Event::Thinking {
                        text: b"",
                        done: head.subtype(line.bytes).as_deref() == Some("completed"),
                    });
                }
                self.thinking.clear();
                match wire::read_thinking(line.bytes, &mut self.thinking) {
                    Ok(phase) => sink.event(Event::Thinking {
                        text: &self.thinking,
                        done: phase == wire::ThinkingPhase::Completed,
                    }),
                    Err(e) => sink.unreadable(unreadable!("thinking"), line.bytes, &e),
                }
            }
            NameId::TOOL_CALL => {
                if wants.has(Wants::TEXT) {
                    self.answer.tool_call();
                    sink.event(Event::Segment)?;
                }
                if wants.has(Wants::TOOLS) {
                    self.tool_call(line, wants, sink)?;
                }
                Ok(())
            }
            NameId::RESULT => self.result(line, sink),
            NameId::CONNECTION | NameId::RETRY if wants.has(Wants::NOTICES) => {
                match transport(head, line.bytes) {
                    Some(notice) => sink.event(Event::Notice(&notice)),
                    None => Ok(()),
                }
            }
            _ => Ok(()),
        }
    }

    /// A run ended: nothing of it is kept.
    fn reset(&mut self) {
        self.answer.reset();
    }

    fn lint(&self, head: &Head, line: &[u8]) -> Option<String> {
        super::missing_session_id(head, line)
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        let m = stderr_line.to_ascii_lowercase();
        if mentions(&m, &["workspace trust", "trust this directory", "--trust"]) {
            Some(
                "the agent does not trust this directory yet: pass --trust to it (or run `agent` here once)",
            )
        } else if mentions(
            &m,
            &[
                "not authenticated",
                "authentication required",
                "not logged in",
                "agent login",
                "unauthorized",
                "invalid api key",
            ],
        ) {
            Some("the agent is not logged in: run `agent login`, or set CURSOR_API_KEY")
        } else if mentions(
            &m,
            &[
                "usage limit",
                "rate limit",
                "quota",
                "you've hit your",
                "too many requests",
            ],
        ) {
            Some("the account's usage limit is reached: wait for it to reset, or use another model")
        } else if mentions(
            &m,
            &[
                "unknown model",
                "model not found",
                "cannot use this model",
                "invalid model",
                "not a valid model",
            ],
        ) {
            Some("the model is not available to this account: check the --model value")
        } else {
            None
        }
    }
}

impl Cursor {
    fn system<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        // Only `init` starts a run (and forgets the last one's answer).
        if head.subtype(line.bytes).as_deref() != Some("init") {
            return Ok(());
        }
        self.reset();
        match wire::read_system(line.bytes) {
            Ok(sys) => sink.start_run(RunInfo {
                agent: Agent::Cursor,
                session_id: sys.session_id.map(Cow::into_owned),
                model: sys.model.map(Cow::into_owned),
                cwd: sys.cwd.map(Cow::into_owned),
                ..RunInfo::new(Agent::Cursor)
            }),
            Err(e) => {
                sink.unreadable(unreadable!("system/init"), line.bytes, &e)?;
                sink.start_run(RunInfo::new(Agent::Cursor))
            }
        }
    }

    fn tool_call<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        wants: Wants,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        // Keep of the (often huge) result only what the view shows.
        if wants.has(Wants::TOOL_RAW) {
            read_and_emit::<&RawValue, S>(line, wants, sink)
        } else if wants.has(Wants::TOOL_DETAILS) {
            read_and_emit::<OutcomeSummary, S>(line, wants, sink)
        } else {
            read_and_emit::<IgnoredAny, S>(line, wants, sink)
        }
    }

    fn result<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<()> {
        sink.ensure_run(Agent::Cursor)?;
        sink.terminal(true);
        self.reset();
        let end = match wire::read_result(line.bytes) {
            Ok(ev) => {
                if let Some(id) = &ev.session_id {
                    sink.session_seen(id);
                }
                let outcome = if ev.succeeded() {
                    Outcome::Succeeded
                } else {
                    Outcome::Failed {
                        reason: format!(
                            "subtype {}, is_error {}",
                            ev.subtype.as_deref().unwrap_or(""),
                            ev.is_error.unwrap_or(false)
                        ),
                    }
                };
                // Cursor's own JSON output prints nothing for a failed run.
                let native_json = Some(match outcome {
                    Outcome::Succeeded => line.bytes,
                    _ => &[],
                });
                return sink.end_run(RunEnd {
                    outcome,
                    final_text: Some(ev.text().as_bytes()),
                    answer: super::event::AnswerCheck::Unchecked,
                    usage: ev.usage().map(|u| Usage {
                        input: u.input_tokens.as_u64().unwrap_or(0),
                        output: u.output_tokens.as_u64().unwrap_or(0),
                        cache_read: u.cache_read_tokens.as_u64().unwrap_or(0),
                        cache_write: u.cache_write_tokens.as_u64().unwrap_or(0),
                        reasoning: None,
                        cost_usd: None,
                        cache_write_1h: None,
                    }),
                    duration_ms: ev.duration_ms(),
                    native_json,
                    last_ms: None,
                });
            }
            Err(e) => {
                sink.unreadable(unreadable!("result"), line.bytes, &e)?;
                RunEnd {
                    outcome: Outcome::Unreadable,
                    ..RunEnd::unfinished()
                }
            }
        };
        sink.end_run(end)
    }
}

/// What a kept result payload gives the views.
trait Kept<'a>: Payload<'a> {
    fn raw(&self) -> Option<&'a RawValue> {
        None
    }
    fn summary(&self) -> Option<Cow<'_, OutcomeSummary>> {
        None
    }
}

impl<'a> Kept<'a> for &'a RawValue {
    fn raw(&self) -> Option<&'a RawValue> {
        Some(*self)
    }
    fn summary(&self) -> Option<Cow<'_, OutcomeSummary>> {
        crate::input::json::from_str(self.get())
            .ok()
            .map(Cow::Owned)
    }
}

impl Kept<'_> for OutcomeSummary {
    fn summary(&self) -> Option<Cow<'_, OutcomeSummary>> {
        Some(Cow::Borrowed(self))
    }
}

impl Kept<'_> for IgnoredAny {}

fn read_and_emit<'a, P: Kept<'a>, S: Sink>(
    line: &RawLine<'a>,
    wants: Wants,
    sink: &mut S,
) -> anyhow::Result<()> {
    let ev: ToolCallEvent<'a, &'a RawValue, P> = match read_tool_call(line.bytes) {
        Ok(ev) => ev,
        Err(e) => return sink.unreadable(unreadable!("tool_call"), line.bytes, &e),
    };
    if let Some(id) = &ev.session_id {
        sink.session_seen(id);
    }
    let tool = ev.call.as_ref().map_or("unknown", |c| &c.tool);
    let args = ev.call.as_ref().and_then(|c| c.args);
    let mut call = tools::call(ev.call_id.clone(), Cow::Borrowed(tool), args, wants);
    let kind = call.kind;
    call.at_ms = ev.started_at_ms;
    match ev.phase {
        Phase::Started => {
            call.at_ms = ev.started_at_ms.or(ev.timestamp_ms);
            sink.tool_started(call)
        }
        Phase::Completed => {
            let (status, summary, result) = match ev.call.as_ref().and_then(|c| c.result.as_ref()) {
                None => (ToolStatus::unknown(), None, None),
                Some(CallResult::Variant { status, payload }) => (
                    ToolStatus::new(Cow::Borrowed(&**status), class_of(status)),
                    wants
                        .has(Wants::TOOL_DETAILS)
                        .then(|| payload.summary())
                        .flatten(),
                    payload.raw().map(Cow::Borrowed),
                ),
                // It ended, but its result says neither how nor what it did.
                Some(CallResult::Unexpected(raw)) => (
                    ToolStatus::new("unexpected", StatusClass::Unknown),
                    None,
                    raw.as_deref().map(Cow::Borrowed),
                ),
            };
            let effect = match summary {
                Some(summary) => effect(&summary, kind, status.class == StatusClass::Ok),
                None => Effect::default(),
            };
            sink.tool_ended(ToolEndRaw {
                call,
                status,
                result,
                effect,
                ended_ms: ev.completed_at_ms.or(ev.timestamp_ms),
            })
        }
        Phase::Other => Ok(()),
    }
}

/// A result variant's meaning.
fn class_of(variant: &str) -> StatusClass {
    match variant {
        "success" => StatusClass::Ok,
        "rejected" | "permissionDenied" | "readPermissionDenied" | "writePermissionDenied" => {
            StatusClass::Rejected
        }
        _ => StatusClass::Failed,
    }
}

/// What a call did, from its result payload.
fn effect(o: &OutcomeSummary, kind: ToolKind, ok: bool) -> Effect {
    if !ok {
        return Effect {
            error: o.error_text().map(str::to_owned),
            ..Effect::default()
        };
    }
    let mut e = Effect {
        exit_code: o.exit_code.as_i64(),
        signal: o.signal.0.clone().filter(|s| !s.is_empty()),
        ..Effect::default()
    };
    match kind {
        ToolKind::Read => {
            e.empty = o.is_empty.0 == Some(true);
            e.lines = o.total_lines.as_u64();
        }
        ToolKind::Write => e.lines = o.lines_created.as_u64(),
        ToolKind::Edit => {
            e.added = o.lines_added.as_u64();
            e.removed = o.lines_removed.as_u64();
        }
        ToolKind::Grep => {
            e.matches = o.workspace_results.matched_lines;
            e.files = o.workspace_results.files;
        }
        ToolKind::Glob => e.files = o.total_files.as_u64().or(o.files.0),
        ToolKind::Todo => e.todos = o.total_count.as_u64(),
        ToolKind::Mcp if o.is_error.0 == Some(true) => {
            e.error = Some("the tool reported an error".to_string());
        }
        _ => {}
    }
    e
}

/// `connection` and `retry` events, as notices.
fn transport<'a>(head: &Head, line: &[u8]) -> Option<Notice<'a>> {
    #[derive(serde::Deserialize)]
    struct Transport<'a> {
        #[serde(borrow, default)]
        subtype: Option<Cow<'a, str>>,
        #[serde(default)]
        attempt: crate::input::lenient::Num,
    }
    let t: Transport = crate::input::json::from_line(line).ok()?;
    let attempt = t
        .attempt
        .as_u64()
        .map(|n| format!(" (attempt {n})"))
        .unwrap_or_default();
    let (kind, text) = match (head.name, t.subtype.as_deref()) {
        (NameId::CONNECTION, Some("reconnecting")) => (
            NoticeKind::Retry,
            format!("Connection lost, reconnecting{attempt}"),
        ),
        (NameId::CONNECTION, Some("reconnected")) => {
            (NoticeKind::Recovered, "Reconnected".to_string())
        }
        (NameId::RETRY, Some("starting")) => (NoticeKind::Retry, format!("Retrying{attempt}")),
        (NameId::RETRY, Some("resuming")) => (NoticeKind::Retry, format!("Resuming{attempt}")),
        _ => return None,
    };
    Some(Notice {
        kind,
        text: Cow::Owned(text),
    })
}

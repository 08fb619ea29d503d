//! OpenCode: `opencode run --format json` (notes: `../shared/spec/agents/opencode.md`).
//!
//! ```text
//! {"type":"step_start","timestamp":1778041170989,"sessionID":"ses_…","part":{"type":"step-start",…}}
//! {"type":"text","timestamp":…,"sessionID":"ses_…","part":{"id":"prt_…","type":"text","text":"…","time":{…}}}
//! {"type":"tool_use","timestamp":…,"sessionID":"ses_…","part":{"type":"tool","tool":"read","callID":"call_…","state":{"status":"completed","input":{…},"output":"…","time":{"start","end"}}}}
//! {"type":"step_finish","timestamp":…,"sessionID":"ses_…","part":{"reason":"tool-calls"|"stop",…,"tokens":{…},"cost":0}}
//! {"type":"error","timestamp":…,"sessionID":"ses_…","error":{"name":"APIError","data":{"message":"…"}}}
//! {"type":"done","timestamp":…,"sessionID":"ses_…","reason":"idle"}          newer builds only
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | run start | the first event of a session (there is no init line) |
//! | text | `text` parts, each whole when it finishes (a later part with the same id adds to it) |
//! | thinking | `reasoning` parts (with `--thinking`) |
//! | tool calls | `tool_use`: one event per finished call, start and end at once; an auto-rejected permission is a rejection |
//! | run end | none in 1.x: the input ends (or another session starts, or `done` comes). An `error` fails the run even though the CLI exits 0 (≤ 1.14.41); else a last `step_finish` with reason `stop` succeeds; else the run did not finish |
//! | final answer | the text of the step that finished with reason `stop` |
//! | usage | each step's `tokens` and `cost` (its message's: one model call) |
//!
//! For `run`, a `step_finish` with reason `stop` counts as the terminal event, taken back
//! if another step starts.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

pub(crate) mod db;
pub(crate) mod log;
mod spec;
mod storage;
mod store;

pub(crate) use spec::{Reader, SPEC};

use super::event::{
    Agent, AnswerCheck, Billed, Effect, Event, Notice, NoticeKind, RunEnd, RunInfo, StatusClass,
    ToolEndRaw, ToolStatus, Usage, Wants,
};
use super::tools;
use super::{Class, Dialect, RawLine, Sink, mentions};
use crate::agent::event::Outcome;
use crate::input::json::MaybeStr;
use crate::input::lenient::{Num, Object, TokenCount};
use crate::input::peek::{Head, NameId};
use crate::out::diag::{Unreadable, unreadable};

#[derive(Default)]
pub(crate) struct OpenCode {
    /// The open run's session.
    session: Option<String>,
    /// The last step finished with reason `stop`.
    stopped: bool,
    /// The first error the run reported.
    error: Option<String>,
    /// The model of the message being read (a session log's `assistant` line names it).
    pub(super) model: Option<String>,
    /// The message being read completed without an error (a session log's `assistant`
    /// line says): its step finished without a `reason` (before 1.1) is its last.
    pub(super) message_done: bool,
    /// The current step called a tool.
    step_called: bool,
    /// The user stopped the answer (`MessageAbortedError`): an interruption, no failure.
    aborted: bool,
    first_ms: Option<u64>,
    last_ms: Option<u64>,
    /// The id of the last text part, whose later events add to it.
    text_part: Option<String>,
    /// The text of the current step (with [`Wants::FINAL`]).
    step_text: Vec<u8>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(default)]
    timestamp: Num,
    #[serde(rename = "sessionID", borrow, default)]
    session: MaybeStr<'a>,
    #[serde(borrow, default)]
    part: Object<Part<'a>>,
    #[serde(borrow, default)]
    error: Object<ErrorObject<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(borrow)]
    id: MaybeStr<'a>,
    #[serde(borrow)]
    text: MaybeStr<'a>,
    #[serde(borrow)]
    reason: MaybeStr<'a>,
    #[serde(borrow)]
    tool: MaybeStr<'a>,
    #[serde(rename = "callID", borrow)]
    call_id: MaybeStr<'a>,
    #[serde(rename = "messageID", borrow)]
    message_id: MaybeStr<'a>,
    #[serde(borrow)]
    state: Option<State<'a>>,
    tokens: Object<Tokens>,
    cost: Num,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct State<'a> {
    #[serde(borrow)]
    status: MaybeStr<'a>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    metadata: Option<Metadata>,
    time: Option<Time>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Metadata {
    exit: Num,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Time {
    start: Num,
    end: Num,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tokens {
    input: TokenCount,
    output: TokenCount,
    reasoning: TokenCount,
    cache: Object<Cache>,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct Cache {
    read: TokenCount,
    write: TokenCount,
}

/// 1.x `{"name","data":{"message"}}`; 2.x `{"type","message"}`: not the shared
/// [`ErrorMessage`](super::wire::ErrorMessage), as the name counts and 1.x's message is
/// under `data`.
#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorObject<'a> {
    #[serde(borrow)]
    name: MaybeStr<'a>,
    #[serde(borrow)]
    message: MaybeStr<'a>,
    #[serde(borrow)]
    data: Option<ErrorData<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ErrorData<'a> {
    #[serde(borrow)]
    message: MaybeStr<'a>,
}

impl ErrorObject<'_> {
    fn text(&self) -> String {
        let message = self
            .data
            .as_ref()
            .and_then(|d| d.message.as_deref())
            .or(self.message.as_deref());
        match (self.name.as_deref(), message) {
            (Some(name), Some(message)) => format!("{name}: {message}"),
            (None, Some(message)) => message.to_string(),
            (Some(name), None) => name.to_string(),
            (None, None) => "error".to_string(),
        }
    }
}

/// The tool error OpenCode writes for a call it refused without asking (no
/// `--dangerously-skip-permissions`), or that a deny rule stopped.
fn is_refusal(error: &str) -> bool {
    error.starts_with("The user rejected permission")
        || error.starts_with("The user has specified a rule which prevents")
}

impl Dialect for OpenCode {
    fn agent(&self) -> Agent {
        Agent::OpenCode
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::STEP_START | NameId::STEP_FINISH | NameId::ERROR | NameId::DONE => {
                Class::lifecycle(Wants::NOTICES)
            }
            NameId::TEXT => Class::content(Wants::TEXT | Wants::FINAL),
            NameId::REASONING => Class::content(Wants::THINKING),
            NameId::TOOL_USE => Class::content(Wants::TOOLS | Wants::TEXT),
            _ => Class::UNKNOWN,
        }
    }

    fn reset(&mut self) {
        *self = OpenCode::default();
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let mut ev: Line = match crate::input::json::from_line(line.bytes) {
            Ok(ev) => ev,
            Err(e) => return sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        };
        self.enter(ev.session.as_deref(), sink)?;
        if let Some(ms) = ev.timestamp.as_u64() {
            self.first_ms.get_or_insert(ms);
            // A log's lines are a message's parts in order, not by time.
            self.last_ms = Some(self.last_ms.map_or(ms, |last| last.max(ms)));
        }
        let wants = sink.wants();
        let part = ev.part.0.get_or_insert_with(Part::default);
        match head.name {
            NameId::STEP_START => {
                if std::mem::take(&mut self.stopped) {
                    sink.terminal(false);
                }
                self.step_text.clear();
                self.step_called = false;
                Ok(())
            }
            NameId::TEXT => self.text(part, sink),
            NameId::REASONING if wants.has(Wants::THINKING) => sink.event(Event::Thinking {
                text: part.text.as_deref().unwrap_or("").as_bytes(),
                done: true,
            }),
            NameId::TOOL_USE => {
                self.step_called = true;
                if wants.has(Wants::TEXT) {
                    sink.event(Event::Segment)?;
                }
                if wants.has(Wants::TOOLS) {
                    self.tool(std::mem::take(part), wants, sink)?;
                }
                Ok(())
            }
            NameId::STEP_FINISH => self.step_finish(part, line, ev.timestamp.as_u64(), sink),
            NameId::ERROR => self.error_line(ev.error.0.unwrap_or_default(), sink),
            NameId::DONE => {
                sink.terminal(true);
                // The session went idle: the run is over, whatever its last step said.
                self.stopped = true;
                self.finish(sink)
            }
            _ => Ok(()),
        }
    }

    /// The run ends here (the input ended, another session began, or `done`): how it went
    /// is decided now, since the stream has no terminal event.
    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            self.reset();
            return Ok(());
        }
        let outcome = match self.error.take() {
            Some(reason) => Outcome::Failed { reason },
            None if self.aborted => Outcome::NoEnd,
            None if self.stopped => Outcome::Succeeded,
            None => Outcome::NoEnd,
        };
        let succeeded = outcome == Outcome::Succeeded;
        let final_text =
            (succeeded && sink.wants().has(Wants::FINAL)).then_some(&self.step_text[..]);
        let result = sink.end_run(RunEnd {
            outcome,
            final_text,
            answer: AnswerCheck::Unchecked,
            // The steps' tokens, summed by the sink.
            usage: None,
            duration_ms: self
                .first_ms
                .zip(self.last_ms)
                .map(|(a, b)| b.saturating_sub(a)),
            native_json: None,
            last_ms: self.last_ms,
        });
        self.reset();
        result
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        let m = stderr_line.to_ascii_lowercase();
        mentions(&m, &["model not found", "providermodelnotfound"]).then_some(
            "opencode does not know this model: give it as provider/model with --model, one the config defines",
        )
    }
}

impl OpenCode {
    /// A line of session `session`: a run of its own when it is not the open run's.
    fn enter<S: Sink>(&mut self, session: Option<&str>, sink: &mut S) -> anyhow::Result<()> {
        if sink.run_open() {
            if session.is_none() || session == self.session.as_deref() {
                return Ok(());
            }
            // A run opened by a content line of a log cut at the front: its session is the
            // first one named, not the start of another run.
            if let (None, Some(id)) = (&self.session, session) {
                self.session = Some(id.to_owned());
                sink.session_seen(id);
                return Ok(());
            }
            self.finish(sink)?;
        }
        self.reset();
        self.session = session.map(str::to_owned);
        let mut info = RunInfo::new(Agent::OpenCode);
        info.session_id = self.session.clone();
        sink.start_run(info)
    }

    /// A `text` part: whole when it finishes; a later event of the same part adds to it.
    /// Models write parts of white space alone (a space before a tool call): no text, no
    /// segment. Words are kept as written, the white space before them too.
    fn text<S: Sink>(&mut self, part: &mut Part<'_>, sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        let same_part = part
            .id
            .as_deref()
            .is_some_and(|id| self.text_part.as_deref() == Some(id));
        let text = part.text.as_deref().unwrap_or("");
        if !same_part && text.trim().is_empty() {
            return Ok(());
        }
        if !same_part {
            self.text_part = part.id.0.take().map(Cow::into_owned);
        }
        if wants.has(Wants::FINAL) {
            self.step_text.extend_from_slice(text.as_bytes());
        }
        if wants.has(Wants::TEXT) {
            if !same_part {
                sink.event(Event::Segment)?;
            }
            sink.event(Event::Text(text.as_bytes()))?;
        }
        Ok(())
    }

    /// `step_finish`: the step's tokens (its message's: a model call); reason `stop` may
    /// end the run.
    fn step_finish<S: Sink>(
        &mut self,
        part: &Part<'_>,
        line: &RawLine<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if let Some(tokens) = &part.tokens.0 {
            let cache = tokens.cache.0.unwrap_or_default();
            let counts = [
                tokens.input,
                tokens.output,
                tokens.reasoning,
                cache.read,
                cache.write,
            ];
            if TokenCount::any_bad(&counts) {
                sink.unreadable(
                    unreadable!("usage"),
                    line.bytes,
                    &"a token count that is no count: left out of the totals",
                )?;
            } else {
                let reasoning = tokens.reasoning.as_u64();
                let usage = Usage {
                    input: tokens.input.get(),
                    // Reasoning tokens are counted apart from the output here.
                    output: tokens.output.get() + reasoning.unwrap_or(0),
                    cache_read: cache.read.get(),
                    cache_write: cache.write.get(),
                    reasoning,
                    cost_usd: part.cost.0.filter(|c| c.is_finite() && *c >= 0.0),
                    cache_write_1h: None,
                };
                sink.event(Event::Billed(&Billed {
                    usage,
                    model: self.model.as_deref(),
                    at_ms,
                    id: part.message_id.as_deref(),
                }))?;
            }
        }
        self.stopped = match part.reason.as_deref() {
            Some(reason) => reason == "stop",
            // Before 1.1 a step said no reason: the last of a message that completed
            // without an error, and called no tool, is where the answer stopped.
            None => self.message_done && !self.step_called,
        };
        if self.stopped {
            sink.terminal(true);
        }
        Ok(())
    }

    /// An `error` event: a notice, and the first fails the run, but the user's stopping
    /// the answer (`MessageAbortedError`), which leaves it without a result (as Codex's
    /// `turn_aborted`).
    fn error_line<S: Sink>(&mut self, error: ErrorObject<'_>, sink: &mut S) -> anyhow::Result<()> {
        let text = error.text();
        if sink.wants().has(Wants::NOTICES) {
            sink.event(Event::Notice(&Notice {
                kind: NoticeKind::Error,
                text: Cow::Borrowed(&text),
            }))?;
        }
        if error.name.as_deref() == Some("MessageAbortedError") {
            self.aborted = true;
        } else {
            self.error.get_or_insert(text);
        }
        Ok(())
    }

    /// A `tool_use`, for a view that lists tools: one event per finished call.
    fn tool<S: Sink>(&mut self, part: Part<'_>, wants: Wants, sink: &mut S) -> anyhow::Result<()> {
        let state = part.state.unwrap_or_default();
        let tool = part.tool.0.unwrap_or(Cow::Borrowed("unknown"));
        let time = state.time.unwrap_or_default();
        let mut call = tools::call(part.call_id.0.or(part.id.0), tool, state.input, wants);
        call.at_ms = time.start.as_u64();
        // Not finished (a session log's part, left `running` by a killed OpenCode): it
        // started, and is pending when the run ends.
        if matches!(state.status.as_deref(), Some("running" | "pending")) {
            return sink.tool_started(call);
        }
        let error = state.error.map(|e| {
            crate::input::json::from_str::<String>(e.get()).unwrap_or_else(|_| e.get().to_owned())
        });
        let status = match state.status.as_deref() {
            Some("completed") => ToolStatus::success(),
            _ => match &error {
                Some(e) if is_refusal(e) => ToolStatus::new("rejected", StatusClass::Rejected),
                _ => ToolStatus::new("error", StatusClass::Failed),
            },
        };
        let effect = if wants.has(Wants::TOOL_DETAILS) {
            Effect {
                exit_code: state.metadata.and_then(|m| m.exit.as_i64()),
                error: error.filter(|_| status.class != StatusClass::Ok),
                ..Effect::default()
            }
        } else {
            Effect::default()
        };
        // One event per finished call: its start and its end at once.
        sink.tool_started(call.clone())?;
        sink.tool_ended(ToolEndRaw {
            call,
            status,
            result: state
                .output
                .or(state.error)
                .filter(|_| wants.has(Wants::TOOL_RAW))
                .map(Cow::Borrowed),
            effect,
            ended_ms: time.end.as_u64(),
        })
    }
}

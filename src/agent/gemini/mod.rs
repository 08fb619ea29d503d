//! Gemini CLI: `gemini -p … --output-format stream-json` (notes:
//! `../shared/spec/agents/gemini.md`).
//!
//! ```text
//! {"type":"init","timestamp":"2026-04-11T22:35:47.989Z","session_id":"…","model":"auto-gemini-3"}
//! {"type":"message","timestamp":"…","role":"user","content":"<prompt>"}
//! {"type":"message","timestamp":"…","role":"assistant","content":"hel","delta":true}
//! {"type":"tool_use","timestamp":"…","tool_name":"read_file","tool_id":"…","parameters":{…}}
//! {"type":"tool_result","timestamp":"…","tool_id":"…","status":"success"|"error","output":"…","error":{"type","message"}}
//! {"type":"error","timestamp":"…","severity":"warning"|"error","message":"…"}
//! {"type":"result","timestamp":"…","status":"success"|"error","error":{…},"stats":{…}}
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | run start | `init` (before 0.42 a notice may be glued before it on the same line: the input side finds the event); its prompt from the user `message` that echoes it |
//! | text | assistant `message` deltas; the first delta of 0.13–0.25, the CLI's own `-p` deprecation notice, is a notice, not the answer |
//! | segments | a round of tool calls |
//! | tool calls | `tool_use` → `tool_result` by `tool_id`; the status word is the error's `type` |
//! | notices | `error` events (never fatal by themselves) |
//! | run end | `result`: `status:"error"` is a failure even when the CLI exits 0 (an empty or blocked model answer) |
//! | final answer | the text after the last tool round: the stream has no final text, so it is kept while the run goes |

pub(crate) mod chat;
mod spec;
pub(crate) mod store;

pub(crate) use spec::{Reader, SPEC};

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::event::{
    Agent, AnswerCheck, Effect, Event, Notice, NoticeKind, RunEnd, RunInfo, StatusClass, ToolCall,
    ToolEndRaw, ToolStatus, Usage, Wants,
};
use super::tools;
use super::wire::{before_referenced_files, end_unreadable, words_of};
use super::{Class, Dialect, RawLine, Sink, mentions};
use crate::agent::event::Outcome;
use crate::input::json::{
    MaybeStr, append_escaped, is_string_text, plain_value, rfc3339_ms, string_body,
};
use crate::input::lenient::{Num, Object};
use crate::input::peek::{Head, NameId, fast_paths};
use crate::out::diag::Unreadable;

/// The notice the CLI (0.13–0.25) sends as the first assistant delta when the prompt is
/// given with `-p`.
const DEPRECATION: &str = "The --prompt (-p) flag has been deprecated";

#[derive(Default)]
pub(crate) struct Gemini {
    /// An assistant delta came in this run (the deprecation notice can only be the first).
    answered: bool,
    /// The text since the last tool round, for the final answer (with [`Wants::FINAL`]).
    last_segment: Vec<u8>,
    /// A delta's text with its escapes decoded, by [`fast_message`] (reused, not
    /// allocated per line).
    decoded: Vec<u8>,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    timestamp: MaybeStr<'a>,
    #[serde(borrow, default)]
    session_id: MaybeStr<'a>,
    #[serde(borrow, default)]
    model: MaybeStr<'a>,
    #[serde(borrow, default)]
    role: MaybeStr<'a>,
    #[serde(borrow, default)]
    content: MaybeStr<'a>,
    #[serde(borrow, default)]
    tool_name: MaybeStr<'a>,
    #[serde(borrow, default)]
    tool_id: MaybeStr<'a>,
    #[serde(borrow, default)]
    parameters: Option<&'a RawValue>,
    #[serde(borrow, default)]
    status: MaybeStr<'a>,
    #[serde(borrow, default)]
    output: Option<&'a RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(borrow, default)]
    severity: MaybeStr<'a>,
    #[serde(borrow, default)]
    message: MaybeStr<'a>,
    #[serde(default)]
    stats: Object<Stats>,
}

/// The `error` of a `tool_result` or a `result`, `{"type","message"}`: not the shared
/// [`ErrorMessage`](super::wire::ErrorMessage), as its `type` is a failed call's status word.
#[derive(Deserialize, Default)]
struct ErrorObject<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: MaybeStr<'a>,
    #[serde(borrow, default)]
    message: MaybeStr<'a>,
}

/// The line's error object (empty when it has none, or one that cannot be read).
fn error_object(error: Option<&RawValue>) -> ErrorObject<'_> {
    error
        .and_then(|e| crate::input::json::from_str(e.get()).ok())
        .unwrap_or_default()
}

/// A `message` laid out as Gemini CLI writes it, read without a parser:
///
/// ```text
/// {"type":"message","timestamp":"<plain>","role":"<plain>","content":"<text>"}
/// {"type":"message","timestamp":"<plain>","role":"<plain>","content":"<text>","delta":true}
/// ```
///
/// Its role, and its content decoded as serde_json decodes it (into `decoded` when it has
/// escapes); `None` for any other line (and for `\u` escapes), which is then parsed. Every
/// string is checked as a JSON string is, so it agrees with the parser on every line it
/// takes (`tests/it/reference.rs`).
fn fast_message<'a>(line: &'a [u8], decoded: &'a mut Vec<u8>) -> Option<(&'a [u8], &'a [u8])> {
    let rest = line.strip_prefix(br#"{"type":"message","timestamp":""#)?;
    let (_, rest) = plain_value(rest)?;
    let (role, rest) = plain_value(rest.strip_prefix(br#","role":""#)?)?;
    let (body, escaped, rest) = string_body(rest.strip_prefix(br#","content":""#)?)?;
    if !matches!(rest, b"}" | br#","delta":true}"# | br#","delta":false}"#) {
        return None;
    }
    if !escaped {
        return is_string_text(body).then_some((role, body));
    }
    decoded.clear();
    append_escaped(body, decoded)?;
    Some((role, &decoded[..]))
}

/// A user message: the prompt as typed (with piped input, that input), without the
/// files an `@` added after it.
fn prompt<S: Sink>(content: &[u8], sink: &mut S) {
    if !sink.wants().has(Wants::PROMPT) {
        return;
    }
    let content = String::from_utf8_lossy(content);
    if let Some(words) = words_of(before_referenced_files(&content)) {
        sink.prompt_seen(&words);
    }
}

/// `result.stats`: `input_tokens` counts the cached ones, `input` does not (0.22+).
#[derive(Deserialize, Default)]
#[serde(default)]
struct Stats {
    input_tokens: Num,
    output_tokens: Num,
    cached: Num,
    input: Num,
    duration_ms: Num,
}

impl Stats {
    /// The tokens, when the stats count the input's.
    fn usage(&self) -> Option<Usage> {
        let cached = self.cached.as_u64().unwrap_or(0);
        self.input_tokens.as_u64().map(|input_tokens| Usage {
            input: self
                .input
                .as_u64()
                .unwrap_or(input_tokens.saturating_sub(cached)),
            output: self.output_tokens.as_u64().unwrap_or(0),
            cache_read: cached,
            cache_write: 0,
            reasoning: None,
            cost_usd: None,
            cache_write_1h: None,
        })
    }
}

impl Dialect for Gemini {
    fn agent(&self) -> Agent {
        Agent::Gemini
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::INIT | NameId::RESULT => Class::lifecycle(Wants::NONE),
            // A user message is the prompt, echoed.
            NameId::MESSAGE => Class::content(Wants::TEXT | Wants::FINAL | Wants::PROMPT),
            NameId::TOOL_USE | NameId::TOOL_RESULT => {
                Class::content(Wants::TEXT | Wants::FINAL | Wants::TOOLS)
            }
            NameId::ERROR => Class::noise(Wants::NOTICES),
            _ => Class::UNKNOWN,
        }
    }

    fn reset(&mut self) {
        self.answered = false;
        self.last_segment.clear();
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
        match head.name {
            NameId::TOOL_USE | NameId::TOOL_RESULT if !wants.has(Wants::TOOLS) => {
                // A view that lists no tools only needs to know that a tool round came (it
                // ends the answer's segment), and the peek has told: the arguments and
                // output, most of a Gemini log, are not read — as such a view does not read
                // Cursor's `tool_call` lines.
                return self.tool_round(wants, sink);
            }
            NameId::MESSAGE if fast_paths() => {
                if let Some(done) = self.read_fast_message(line.bytes, sink) {
                    return done;
                }
            }
            _ => {}
        }
        let ev: Line = match crate::input::json::from_line(line.bytes) {
            Ok(ev) => ev,
            Err(e) => {
                sink.unreadable(Unreadable::of(head.name), line.bytes, &e)?;
                if head.name != NameId::RESULT {
                    return Ok(());
                }
                self.reset();
                return end_unreadable(Agent::Gemini, sink);
            }
        };
        match head.name {
            NameId::INIT => self.init(ev, sink),
            NameId::MESSAGE if ev.role.as_deref() == Some("assistant") => {
                self.assistant(ev.content.as_deref().unwrap_or("").as_bytes(), sink)
            }
            NameId::MESSAGE if ev.role.as_deref() == Some("user") => {
                prompt(ev.content.as_deref().unwrap_or("").as_bytes(), sink);
                Ok(())
            }
            NameId::TOOL_USE => self.tool_use(ev, sink),
            NameId::TOOL_RESULT => self.tool_result(ev, sink),
            NameId::ERROR if wants.has(Wants::NOTICES) => {
                let kind = match ev.severity.as_deref() {
                    Some("error") => NoticeKind::Error,
                    _ => NoticeKind::Warning,
                };
                sink.event(Event::Notice(&Notice {
                    kind,
                    text: Cow::Borrowed(ev.message.as_deref().unwrap_or("error")),
                }))
            }
            NameId::RESULT => self.result(ev, sink),
            _ => Ok(()),
        }
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        let m = stderr_line.to_ascii_lowercase();
        if mentions(
            &m,
            &["auth method", "gemini_api_key", "when using gemini api"],
        ) {
            Some(
                "gemini has no credentials: set GEMINI_API_KEY (or GOOGLE_API_KEY), or log in once interactively",
            )
        } else if mentions(&m, &["untrusted", "trusted folder"]) {
            Some(
                "gemini does not trust this folder in headless mode: trust it once interactively, or run it in a trusted folder",
            )
        } else {
            None
        }
    }
}

impl Gemini {
    /// A `message` read by [`fast_message`]: what reading it gave, or `None` when its
    /// layout is another (the line is then parsed).
    fn read_fast_message<S: Sink>(
        &mut self,
        line: &[u8],
        sink: &mut S,
    ) -> Option<anyhow::Result<()>> {
        let mut decoded = std::mem::take(&mut self.decoded);
        let read = fast_message(line, &mut decoded).map(|(role, content)| match role {
            b"assistant" => self.assistant(content, sink),
            b"user" => {
                prompt(content, sink);
                Ok(())
            }
            _ => Ok(()),
        });
        self.decoded = decoded;
        read
    }

    /// `init`: a run starts.
    fn init<S: Sink>(&mut self, ev: Line<'_>, sink: &mut S) -> anyhow::Result<()> {
        self.reset();
        sink.start_run(RunInfo {
            agent: Agent::Gemini,
            session_id: ev.session_id.0.map(Cow::into_owned),
            model: ev.model.0.map(Cow::into_owned),
            ..RunInfo::new(Agent::Gemini)
        })
    }

    /// An assistant delta (its text is UTF-8: read from a JSON string).
    fn assistant<S: Sink>(&mut self, text: &[u8], sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        let first = !std::mem::replace(&mut self.answered, true);
        if first && text.starts_with(DEPRECATION.as_bytes()) {
            if wants.has(Wants::NOTICES) {
                let text = String::from_utf8_lossy(text);
                sink.event(Event::Notice(&Notice {
                    kind: NoticeKind::Warning,
                    text: Cow::Borrowed(text.trim_end()),
                }))?;
            }
            return Ok(());
        }
        if wants.has(Wants::FINAL) {
            self.last_segment.extend_from_slice(text);
        }
        sink.event(Event::Text(text))
    }

    /// A tool round ends a segment: the answer is the text after the last one.
    fn tool_round<S: Sink>(&mut self, wants: Wants, sink: &mut S) -> anyhow::Result<()> {
        self.last_segment.clear();
        if wants.has(Wants::TEXT) {
            sink.event(Event::Segment)?;
        }
        Ok(())
    }

    /// `tool_use`, for a view that lists tools: a call starts.
    fn tool_use<S: Sink>(&mut self, ev: Line<'_>, sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        self.tool_round(wants, sink)?;
        let tool = ev.tool_name.0.unwrap_or(Cow::Borrowed("unknown"));
        let mut call = tools::call(ev.tool_id.0, tool, ev.parameters, wants);
        call.at_ms = ev.timestamp.as_deref().and_then(rfc3339_ms);
        sink.tool_started(call)
    }

    /// `tool_result`, for a view that lists tools: a call ends; the status word of a
    /// failure is its error's `type`.
    fn tool_result<S: Sink>(&mut self, ev: Line<'_>, sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        self.tool_round(wants, sink)?;
        let error = error_object(ev.error);
        let status = match ev.status.as_deref() {
            Some("success") => ToolStatus::success(),
            _ => {
                let word = error.kind.0.clone().unwrap_or(Cow::Borrowed("error"));
                let class = match &*word {
                    "permission_denied" | "policy_violation" => StatusClass::Rejected,
                    _ => StatusClass::Failed,
                };
                ToolStatus::new(word, class)
            }
        };
        let effect = match &status.class {
            StatusClass::Ok => Effect::default(),
            _ => Effect {
                error: error.message.0.map(Cow::into_owned),
                ..Effect::default()
            },
        };
        let mut call = ToolCall::new("unknown", super::event::ToolKind::Other);
        call.id = ev.tool_id.0;
        sink.tool_ended(ToolEndRaw {
            call,
            status,
            result: ev
                .output
                .or(ev.error)
                .filter(|_| wants.has(Wants::TOOL_RAW))
                .map(Cow::Borrowed),
            effect,
            ended_ms: ev.timestamp.as_deref().and_then(rfc3339_ms),
        })
    }

    /// `result`: the run ends; `status:"error"` fails it.
    fn result<S: Sink>(&mut self, ev: Line<'_>, sink: &mut S) -> anyhow::Result<()> {
        sink.ensure_run(Agent::Gemini)?;
        sink.terminal(true);
        let outcome = match ev.status.as_deref() {
            Some("success") => Outcome::Succeeded,
            status => {
                let error = error_object(ev.error);
                Outcome::Failed {
                    reason: match (error.kind.as_deref(), error.message.as_deref()) {
                        (Some(kind), Some(message)) => format!("{kind}: {message}"),
                        (None, Some(message)) => message.to_string(),
                        _ => format!("status {}", status.unwrap_or("missing")),
                    },
                }
            }
        };
        let stats = ev.stats.0.unwrap_or_default();
        let end = RunEnd {
            outcome,
            // No text after the last tool round: no final answer.
            final_text: (sink.wants().has(Wants::FINAL) && !self.last_segment.is_empty())
                .then_some(&self.last_segment[..]),
            answer: AnswerCheck::Unchecked,
            usage: stats.usage(),
            // Failed results say 0: no duration.
            duration_ms: stats.duration_ms.as_u64().filter(|&ms| ms > 0),
            native_json: None,
            last_ms: None,
        };
        let result = sink.end_run(end);
        self.reset();
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the content, the fast read of a message agrees with the parser: the same
    /// role and text where it reads the line, and it never reads a line the parser refuses.
    #[test]
    fn fast_messages_agree_with_the_parser() {
        let contents = [
            "\"plain\"",
            "\"line\\nbreak \\\"quoted\\\" back\\\\slash \\/ \\b\\f\\r\\t\"",
            "\"caf\u{e9} \u{1f389}\"",
            "\"\\u00e9\"",
            "\"\\ud800\"",
            "\"raw \u{1} control\"",
            "\"raw \t tab\"",
            "\"bad \\x escape\"",
            "\"cut \\",
            "\"\"",
            "42",
            "null",
        ];
        let ends = [
            "}",
            ",\"delta\":true}",
            ",\"delta\":false}",
            ",\"delta\":1}",
            "} x",
            "",
        ];
        let mut scratch = Vec::new();
        let mut fast = 0;
        for content in contents {
            for end in ends {
                for role in ["assistant", "user", "assi\\u0073tant", "bad \u{2} role"] {
                    let line = format!(
                        r#"{{"type":"message","timestamp":"2026-10-06T14:13:21.442Z","role":"{role}","content":{content}{end}"#
                    );
                    let parsed = serde_json::from_str::<Line>(&line).ok();
                    let Some((got_role, got_text)) = fast_message(line.as_bytes(), &mut scratch)
                    else {
                        continue;
                    };
                    fast += 1;
                    let parsed = parsed.unwrap_or_else(|| panic!("taken, but not JSON: {line}"));
                    assert_eq!(
                        Some(got_role),
                        parsed.role.as_deref().map(str::as_bytes),
                        "{line}"
                    );
                    assert_eq!(
                        Some(got_text),
                        parsed.content.as_deref().map(str::as_bytes),
                        "{line}"
                    );
                }
            }
        }
        assert!(fast >= 20, "{fast}");
    }
}

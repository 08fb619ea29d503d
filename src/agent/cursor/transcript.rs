//! Cursor Agent's session logs, the agent transcripts:
//! `~/.cursor/projects/<cwd-slug>/agent-transcripts/<id>/<id>.jsonl` (`$CURSOR_CONFIG_DIR`).
//! One message a line, with no envelope, no ids, no model, no tokens and no tool results:
//! Cursor keeps those elsewhere (its usage only in the stream's `result`). Notes:
//! `../shared/spec/stores.md` §2.6b.
//!
//! ```text
//! {"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, Jul 28, 2026, 12:06 PM (UTC+2)</timestamp>\n<user_query>\n…\n</user_query>"}]}}
//! {"role":"assistant","message":{"content":[{"type":"text","text":"…"},{"type":"tool_use","name":"Shell","input":{…}}]}}
//! {"type":"turn_ended","status":"success"|"error"|"aborted","error":"…"}
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | session id | the chat's id, from the file's name (`<id>/<id>.jsonl`): no line holds it |
//! | run start | a `user` line: the prompt is its `<user_query>` (the whole text before Cursor wrapped it); the time, its `<timestamp>` (local time to the minute, with its offset) |
//! | text | `assistant` lines' text blocks, each line a segment |
//! | tool calls | `tool_use` blocks, each told once as ended, with status `unknown`: the log has neither ids nor results |
//! | run end | `turn_ended`: `success`, `error` (failed, with its `error`), `aborted` (no result); else the next prompt or the end of the log (no result) |

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::agent::event::{
    Agent, Effect, Event, Outcome, RunEnd, RunInfo, ToolEndRaw, ToolStatus, Wants,
};
use crate::agent::tools;
use crate::agent::{Class, Dialect, RawLine, Sink};
use crate::input::json::MaybeStr;
use crate::input::peek::{Head, NameId};
use crate::out::diag::Unreadable;

#[derive(Default)]
pub(crate) struct Transcript {
    /// The text of the run's last message.
    answer: Vec<u8>,
    /// The session's id: the chat's, which only the file's name holds.
    session: Option<String>,
}

/// The chat id a transcript's path names: `…/agent-transcripts/<id>/<id>.jsonl`, or
/// `…/agent-transcripts/<id>.jsonl` before; `None` for any other name (a copy elsewhere,
/// stdin), which says nothing certain.
fn chat_id(name: &str) -> Option<&str> {
    let path = std::path::Path::new(name);
    let id = path
        .file_name()?
        .to_str()?
        .strip_suffix(".jsonl")
        .filter(|id| !id.is_empty())?;
    let parent = path.parent()?.file_name()?.to_str()?;
    (parent == id || parent == "agent-transcripts").then_some(id)
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    role: MaybeStr<'a>,
    #[serde(borrow, default)]
    message: Option<Message<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: MaybeStr<'a>,
    #[serde(borrow)]
    text: MaybeStr<'a>,
    #[serde(borrow)]
    name: MaybeStr<'a>,
    #[serde(borrow)]
    input: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct TurnEnded<'a> {
    #[serde(borrow, default)]
    status: MaybeStr<'a>,
    #[serde(borrow, default)]
    error: MaybeStr<'a>,
}

impl Dialect for Transcript {
    fn agent(&self) -> Agent {
        Agent::Cursor
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::TURN_ENDED => Class::message(Wants::ALL),
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
        let end: TurnEnded = match crate::input::json::from_line(line.bytes) {
            Ok(e) => e,
            Err(e) => return sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        };
        let outcome = match end.status.as_deref() {
            Some("success") => Outcome::Succeeded,
            Some("error") => Outcome::Failed {
                reason: end
                    .error
                    .0
                    .map_or_else(|| "turn_ended: error".to_string(), Cow::into_owned),
            },
            _ => Outcome::NoEnd,
        };
        self.end(outcome, sink)
    }

    fn untyped<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<bool> {
        let Ok(msg) = crate::input::json::from_line::<Line>(line.bytes) else {
            return Ok(false);
        };
        let Some(message) = msg.message else {
            return Ok(false);
        };
        let blocks = blocks(message.content);
        match msg.role.as_deref() {
            Some("user") => {
                let text: String = blocks.iter().filter_map(|b| b.text.as_deref()).collect();
                self.end(Outcome::NoEnd, sink)?;
                let (prompt, started_ms) = prompt_of(&text);
                sink.start_run(RunInfo {
                    prompt: Some(prompt),
                    started_ms,
                    session_id: self.session.clone(),
                    ..RunInfo::new(Agent::Cursor)
                })?;
            }
            Some("assistant") => {
                if !sink.run_open() {
                    sink.start_run(RunInfo {
                        session_id: self.session.clone(),
                        ..RunInfo::new(Agent::Cursor)
                    })?;
                }
                self.assistant(&blocks, sink)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.answer.clear();
    }

    fn input_named(&mut self, name: &str) {
        self.session = chat_id(name).map(str::to_owned);
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.end(Outcome::NoEnd, sink)
    }
}

impl Transcript {
    fn assistant<S: Sink>(&mut self, blocks: &[Block<'_>], sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        let mut segment = true;
        for b in blocks {
            match b.kind.as_deref() {
                Some("text") => {
                    let text = b.text.as_deref().unwrap_or("");
                    if segment {
                        self.answer.clear();
                    }
                    self.answer.extend_from_slice(text.as_bytes());
                    if wants.has(Wants::TEXT) {
                        if segment {
                            sink.event(Event::Segment)?;
                        }
                        sink.event(Event::Text(text.as_bytes()))?;
                    }
                    segment = false;
                }
                Some("tool_use") => {
                    segment = true;
                    if !wants.has(Wants::TOOLS) {
                        continue;
                    }
                    let name = b.name.0.clone().unwrap_or(Cow::Borrowed("unknown"));
                    // No id to pair a start with an end: the call is told once, ended.
                    let call = tools::call(None, name, b.input, wants);
                    sink.tool_ended(ToolEndRaw {
                        call,
                        status: ToolStatus::unknown(),
                        result: None,
                        effect: Effect::default(),
                        ended_ms: None,
                    })?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn end<S: Sink>(&mut self, outcome: Outcome, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            self.reset();
            return Ok(());
        }
        let answer = std::mem::take(&mut self.answer);
        let final_text = (outcome == Outcome::Succeeded && sink.wants().has(Wants::FINAL))
            .then_some(answer.as_slice());
        let result = sink.end_run(RunEnd {
            final_text,
            ..RunEnd {
                outcome,
                ..RunEnd::unfinished()
            }
        });
        self.answer = answer;
        self.reset();
        result
    }
}

fn blocks(content: Option<&RawValue>) -> Vec<Block<'_>> {
    let Some(content) = content else {
        return Vec::new();
    };
    if let Ok(text) = crate::input::json::from_str::<Cow<'_, str>>(content.get()) {
        return vec![Block {
            kind: MaybeStr(Some(Cow::Borrowed("text"))),
            text: MaybeStr(Some(text)),
            ..Block::default()
        }];
    }
    crate::input::json::from_str(content.get()).unwrap_or_default()
}

/// The prompt a `user` line of Cursor's stream echoes after its `init` (its
/// `message.content` as the transcripts write it), unwrapped as theirs; `None` when it
/// holds no words.
pub(super) fn echoed_prompt(line: &[u8]) -> Option<String> {
    let message = crate::input::json::from_line::<Line>(line).ok()?.message?;
    let blocks = blocks(message.content);
    let text: String = blocks.iter().filter_map(|b| b.text.as_deref()).collect();
    let (prompt, _) = prompt_of(&text);
    (!prompt.is_empty()).then_some(prompt)
}

/// The prompt inside Cursor's wrapping (`<user_query>…</user_query>`, else the text
/// without its `<timestamp>`), and the time its `<timestamp>` gives.
fn prompt_of(text: &str) -> (String, Option<u64>) {
    let inner = |open: &str, close: &str| {
        let start = text.find(open)? + open.len();
        let end = start + text[start..].find(close)?;
        Some(&text[start..end])
    };
    let started = inner("<timestamp>", "</timestamp>").and_then(parse_timestamp);
    let prompt = match inner("<user_query>", "</user_query>") {
        Some(q) => q.trim().to_string(),
        None => match text.find("</timestamp>") {
            Some(at) => text[at + "</timestamp>".len()..].trim().to_string(),
            None => text.trim().to_string(),
        },
    };
    (prompt, started)
}

/// `Tuesday, Jul 28, 2026, 12:06 PM (UTC+2)` (also `UTC+05:30`, `UTC-3`, `UTC`).
fn parse_timestamp(s: &str) -> Option<u64> {
    let (local, zone) = s.rsplit_once('(')?;
    let zone = zone.trim_end_matches(')').trim();
    let offset = zone.strip_prefix("UTC").unwrap_or(zone);
    let minutes: i64 = if offset.is_empty() {
        0
    } else {
        let (sign, rest) = match offset.as_bytes()[0] {
            b'+' => (1, &offset[1..]),
            b'-' => (-1, &offset[1..]),
            _ => return None,
        };
        let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
        sign * (h.parse::<i64>().ok()? * 60 + m.parse::<i64>().ok()?)
    };
    // Drop the weekday: "Jul 28, 2026, 12:06 PM".
    let local = local.trim().split_once(", ")?.1.trim();
    let civil = jiff::civil::DateTime::strptime("%b %d, %Y, %I:%M %p", local).ok()?;
    let utc = civil
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .ok()?
        .timestamp();
    let ms = utc.as_millisecond() - minutes * 60_000;
    u64::try_from(ms).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_and_its_time_are_unwrapped() {
        let text = "<timestamp>Tuesday, Jul 28, 2026, 12:06 PM (UTC+2)</timestamp>\n<user_query>\nlist the workspace\n</user_query>";
        let (prompt, at) = prompt_of(text);
        assert_eq!(prompt, "list the workspace");
        let expected: jiff::Timestamp = "2026-07-28T10:06:00Z".parse().unwrap();
        assert_eq!(at, Some(expected.as_millisecond() as u64));
        assert_eq!(prompt_of("plain words").0, "plain words");
        assert_eq!(
            parse_timestamp("Monday, Jan 5, 2026, 9:30 AM (UTC-05:30)"),
            "2026-01-05T15:00:00Z"
                .parse::<jiff::Timestamp>()
                .ok()
                .map(|t| t.as_millisecond() as u64)
        );
    }
}

//! Cursor Agent's session logs, the agent transcripts:
//! `~/.cursor/projects/<cwd-slug>/agent-transcripts/<id>/<id>.jsonl` (`$CURSOR_CONFIG_DIR`;
//! before, `<id>.jsonl` or `<id>.txt`, read into these lines by [`super::legacy`]).
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
//! A transcript records what was said, not when calls started or how they ended: it is
//! judged by what it can say.
//!
//! | normalized | from |
//! |---|---|
//! | session id | the chat's id, from the file's name (`<id>/<id>.jsonl`, `<id>.txt`): no line holds it |
//! | run start | a `user` line: the prompt is its `<user_query>` (the whole text before Cursor wrapped it); the time, its `<timestamp>` (local time to the minute, with its offset), else (before 2026.08) the file's. A line of context alone (`<attached_files>…`, no query, no words of the user's) starts none |
//! | text | `assistant` lines' text blocks, each line a segment; the answer is all of the run's, joined (as the stream's `result` joins them) |
//! | thinking | `thinking` blocks (the `.txt`'s `[Thinking]` and `<think>`) |
//! | tool calls | `tool_use` blocks, each started where it is (with an id of its place, `<line>:<n>`: the log has none) and ended, status `unknown` (no result is kept), when the agent goes on (its next line) or the turn ends `success`; a call the run stops at stays pending |
//! | sub-agent | a `Task` call's sub-agent transcript, read in after it (see [`super::subagents`]): its calls under that call, its words not the answer |
//! | run end | `turn_ended`: `success`, `error` (failed, with its `error`), `aborted` (no result); else, in a transcript that writes no `turn_ended` (before 2026.08), the next prompt or the end of the log: a success when the run's last block is the answer's text, else no result |

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::agent::event::{
    Agent, Effect, Event, Outcome, RunEnd, RunInfo, ToolCall, ToolEndRaw, ToolStatus, Wants,
};
use crate::agent::tools;
use crate::agent::{Class, Dialect, RawLine, Sink};
use crate::input::json::MaybeStr;
use crate::input::lenient::Num;
use crate::input::peek::{Head, NameId};
use crate::out::diag::Unreadable;

#[derive(Default)]
pub(crate) struct Transcript {
    /// The run's answer: all of its text, joined (with [`Wants::FINAL`]).
    answer: Vec<u8>,
    /// The run's last block was the answer's text.
    ends_in_text: bool,
    /// The transcript writes `turn_ended` (2026.08 on): a run without one did not end.
    turns_end: bool,
    /// The main agent's calls that started and have not ended: their ids and tools.
    calls: Vec<(String, String)>,
    /// The ids of the last main line's calls, in place order: a sub-agent's `task`.
    placed: Vec<String>,
    /// A sub-agent's calls that started and have not ended.
    sub_calls: Vec<(String, String)>,
    /// The session's id: the chat's, which only the file's name holds.
    session: Option<String>,
    /// The file's creation and last change (epoch ms), the times of a transcript that
    /// writes none.
    file_times: Option<(u64, u64)>,
    /// A `<timestamp>` was read in this transcript.
    timed: bool,
}

/// The chat id a transcript's path names: `…/agent-transcripts/<id>/<id>.jsonl`, or
/// `…/agent-transcripts/<id>.jsonl` or `<id>.txt` before; `None` for any other name (a
/// copy elsewhere, stdin), which says nothing certain.
fn chat_id(name: &str) -> Option<&str> {
    let path = std::path::Path::new(name);
    let file = path.file_name()?.to_str()?;
    let id = file
        .strip_suffix(".jsonl")
        .or_else(|| file.strip_suffix(".txt"))
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
    /// A sub-agent's line, read in by [`super::subagents`]: its id.
    #[serde(borrow, default)]
    subagent: MaybeStr<'a>,
    /// The place of its `Task` call among the main line's calls.
    #[serde(default)]
    task: Num,
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
    /// A sub-agent's turn: not the run's.
    #[serde(borrow, default)]
    subagent: MaybeStr<'a>,
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
        if end.subagent.0.is_some() {
            return Ok(());
        }
        self.turns_end = true;
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
        if let Some(sub) = msg.subagent.as_deref() {
            if msg.role.as_deref() == Some("assistant") {
                self.subagent(sub, msg.task.as_u64(), &blocks, line.number, sink)?;
            }
            return Ok(true);
        }
        match msg.role.as_deref() {
            Some("user") => {
                let text: String = blocks.iter().filter_map(|b| b.text.as_deref()).collect();
                if !is_context(&text) {
                    self.prompt(&text, sink)?;
                }
            }
            Some("assistant") => {
                if !sink.run_open() {
                    sink.start_run(RunInfo {
                        session_id: self.session.clone(),
                        ..RunInfo::new(Agent::Cursor)
                    })?;
                }
                // The agent went on: the calls it made before returned.
                self.end_calls(sink)?;
                self.assistant(&blocks, line.number, sink)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.answer.clear();
        self.ends_in_text = false;
        self.calls.clear();
        self.placed.clear();
        self.sub_calls.clear();
    }

    fn input_named(&mut self, name: &str) {
        self.session = chat_id(name).map(str::to_owned);
        let path = std::path::Path::new(name);
        self.file_times = path.is_file().then(|| {
            let ms = |t: i64| u64::try_from(t).unwrap_or(0);
            (
                ms(crate::agent::store::created_ms(path)),
                ms(crate::agent::store::modified_ms(path)),
            )
        });
        self.timed = false;
        self.turns_end = false;
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        let outcome = self.untold_end();
        self.end(outcome, sink)
    }
}

impl Transcript {
    /// A user's prompt: the open run ends (see [`Self::untold_end`]), the prompt's starts.
    fn prompt<S: Sink>(&mut self, text: &str, sink: &mut S) -> anyhow::Result<()> {
        let outcome = self.untold_end();
        self.end(outcome, sink)?;
        let (prompt, at) = prompt_of(text);
        self.timed |= at.is_some();
        let started_ms = at.or(self
            .file_times
            .filter(|_| !self.timed)
            .map(|(created, _)| created));
        sink.start_run(RunInfo {
            prompt: Some(prompt),
            started_ms,
            session_id: self.session.clone(),
            ..RunInfo::new(Agent::Cursor)
        })
    }

    /// How a run that no `turn_ended` closed went: before 2026.08 none was written, and a
    /// run whose last block is the answer's text is a success; else it did not end.
    fn untold_end(&self) -> Outcome {
        if !self.turns_end && self.ends_in_text {
            Outcome::Succeeded
        } else {
            Outcome::NoEnd
        }
    }

    fn assistant<S: Sink>(
        &mut self,
        blocks: &[Block<'_>],
        line: u64,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
        let mut segment = true;
        self.placed.clear();
        for b in blocks {
            match b.kind.as_deref() {
                Some("text") => {
                    let text = b.text.as_deref().unwrap_or("");
                    if wants.has(Wants::FINAL) {
                        self.answer.extend_from_slice(text.as_bytes());
                    }
                    if wants.has(Wants::TEXT) {
                        if segment {
                            sink.event(Event::Segment)?;
                        }
                        sink.event(Event::Text(text.as_bytes()))?;
                    }
                    self.ends_in_text |= !text.trim().is_empty();
                    segment = false;
                }
                Some("thinking") if wants.has(Wants::THINKING) => {
                    let text = b.text.as_deref().unwrap_or("");
                    sink.event(Event::Thinking {
                        text: text.as_bytes(),
                        done: true,
                    })?;
                }
                Some("tool_use") => {
                    segment = true;
                    self.ends_in_text = false;
                    let id = format!("{line}:{}", self.placed.len() + 1);
                    self.placed.push(id.clone());
                    let name = b.name.0.clone().unwrap_or(Cow::Borrowed("unknown"));
                    self.calls.push((id.clone(), name.clone().into_owned()));
                    if wants.has(Wants::TOOLS) {
                        let call = tools::call(Some(Cow::Owned(id)), name, b.input, wants);
                        sink.tool_started(call)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A sub-agent's line: its calls, under the `Task` call at `task` of the main line
    /// before (else under the sub-agent's own id); its words are its answer to that call,
    /// not the run's.
    fn subagent<S: Sink>(
        &mut self,
        sub: &str,
        task: Option<u64>,
        blocks: &[Block<'_>],
        line: u64,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        sink.ensure_run(Agent::Cursor)?;
        let parent = task
            .and_then(|t| self.placed.get(usize::try_from(t).ok()?))
            .map_or(sub, String::as_str)
            .to_string();
        // The sub-agent went on: its calls before returned.
        let ended = std::mem::take(&mut self.sub_calls);
        end_each(&ended, sink)?;
        let wants = sink.wants();
        let tool_uses = blocks
            .iter()
            .filter(|b| b.kind.as_deref() == Some("tool_use"));
        for (n, b) in tool_uses.enumerate() {
            let id = format!("{line}:{}", n + 1);
            let name = b.name.0.clone().unwrap_or(Cow::Borrowed("unknown"));
            self.sub_calls.push((id.clone(), name.clone().into_owned()));
            if wants.has(Wants::TOOLS) {
                let mut call = tools::call(Some(Cow::Owned(id)), name, b.input, wants);
                call.parent = Some(Cow::Borrowed(&parent));
                sink.tool_started(call)?;
            }
        }
        Ok(())
    }

    /// The calls in flight ended (the agent went on, or the turn ended well), with no
    /// word of how: the transcript keeps no results.
    fn end_calls<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        let main = std::mem::take(&mut self.calls);
        let sub = std::mem::take(&mut self.sub_calls);
        end_each(&sub, sink)?;
        end_each(&main, sink)
    }

    fn end<S: Sink>(&mut self, outcome: Outcome, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            self.reset();
            return Ok(());
        }
        if outcome == Outcome::Succeeded {
            self.end_calls(sink)?;
        }
        let answer = std::mem::take(&mut self.answer);
        let final_text = (outcome == Outcome::Succeeded && sink.wants().has(Wants::FINAL))
            .then_some(answer.as_slice());
        // A transcript that says no time was last written when its file was.
        let last_ms = self.file_times.filter(|_| !self.timed).map(|(_, m)| m);
        let result = sink.end_run(RunEnd {
            final_text,
            last_ms,
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

/// Each call ended, status `unknown`.
fn end_each<S: Sink>(calls: &[(String, String)], sink: &mut S) -> anyhow::Result<()> {
    if !sink.wants().has(Wants::TOOLS) {
        return Ok(());
    }
    for (id, tool) in calls {
        let mut call = ToolCall::new(tool.as_str(), tools::kind_of(tool));
        call.id = Some(Cow::Borrowed(id));
        sink.tool_ended(ToolEndRaw {
            call,
            status: ToolStatus::unknown(),
            result: None,
            effect: Effect::default(),
            ended_ms: None,
        })?;
    }
    Ok(())
}

/// A user line of context alone, which Cursor adds between prompts (`<attached_files>`,
/// `<system_reminder>`, …, its elements and nothing else): no prompt. One with a
/// `<user_query>`, or with words of the user's outside any element, is one.
fn is_context(text: &str) -> bool {
    if text.contains("<user_query>") {
        return false;
    }
    let mut rest = text.trim();
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let Some(tag) = rest
            .strip_prefix('<')
            .and_then(|r| r.split(['>', ' ', '\n']).next())
            .filter(|t| !t.is_empty() && !t.starts_with('/'))
        else {
            return false;
        };
        let close = format!("</{tag}>");
        let Some(at) = rest.find(&close) else {
            return false;
        };
        rest = rest[at + close.len()..].trim_start();
    }
    true
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
pub(super) fn prompt_of(text: &str) -> (String, Option<u64>) {
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
    let utc = civil.to_zoned(jiff::tz::TimeZone::UTC).ok()?.timestamp();
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

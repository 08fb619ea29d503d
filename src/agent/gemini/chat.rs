//! Gemini CLI's session logs: `~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`
//! (0.39 on; `GEMINI_CLI_HOME` replaces `~`). An append-only replay log of the chat.
//! Notes: `../shared/spec/stores.md` §2.3, `tests/fixtures/recorded/STORES.md`.
//!
//! ```text
//! {"sessionId":"…","projectHash":"…","startTime":"…","lastUpdated":"…","kind":"main"}
//! {"$set":{"messages":[…]}}                       the history, rewritten (start, resume, a failed prompt dropped)
//! {"id":"…","timestamp":"…","type":"user","content":[{"text":"<prompt>"}]}
//! {"$set":{"lastUpdated":"…"}}
//! {"id":"<m>","timestamp":"…","type":"gemini","content":"…","thoughts":[…],"tokens":{…},"model":"…"}
//! {"id":"<m>",…,"toolCalls":[{"id","name","args","result":[{"functionResponse":…}],"status":"success"|"error"|"cancelled","agentId"}]}
//! {"id":"…","type":"user","content":[{"functionResponse":…}]}    the results, sent back
//! {"$rewindTo":"<id>"}
//! {"$subagent":"<id>","id":"…","type":"gemini",…}    a sub-agent's message, read in by the store
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | run start | a `user` message with text (not the `functionResponse`s that carry results back) |
//! | working directory | the project root the chat's folder is of (`store::project_root`) |
//! | text, thinking | a `gemini` message's `content` (a message each, kept apart by `text`) and its `thoughts` |
//! | tool calls | a `gemini` message's `toolCalls`, each with its result (the `functionResponse`'s `output` or `error`, not the terminal cells shown) and status (a call the policy denied is a rejection) |
//! | sub-agents | their messages' tokens and calls, under the call that names the sub-agent (`agentId`, 0.39 on), else under the sub-agent's id; their prompts and text are not the run's |
//! | notices | `info`, `warning`, `error` messages; a `$rewindTo` |
//! | run end | the next prompt, or the end of the log: success when the model's text came last; failed when an `error` message came, or when the CLI dropped the prompt from the history (a `$set` of the messages without it: what a failed model call leaves); else no result |
//! | usage | each `gemini` message's `tokens` (`input` counts `cached`; `thoughts` are part of the output) |
//!
//! A message is written again with the same id when its tool calls or tokens arrive: the
//! last one wins. So each message is held (a copy of its line) until a record with
//! another id comes, and read then. The history inside a `$set` (a resumed session's
//! restored messages, the A2A server's checkpoints) is never read as new messages. A
//! chat with no prompt (the A2A server's often holds only its first record) is still a
//! session: the sink hears of it at the end.

use std::borrow::Cow;
use std::collections::HashMap;

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::agent::event::{
    Agent, Billed, Effect, Event, Notice, NoticeKind, Outcome, RunEnd, RunInfo, StatusClass,
    ToolEndRaw, ToolStatus, Usage, Wants,
};
use crate::agent::tools;
use crate::agent::wire::{before_referenced_files, words_of};
use crate::agent::{Class, Dialect, RawLine, Sink};
use crate::input::json::{MaybeStr, rfc3339_ms};
use crate::input::lenient::{Object, TokenCount};
use crate::input::peek::{Head, NameId};
use crate::out::diag::{Unreadable, unreadable};

#[derive(Default)]
pub(crate) struct Chat {
    session: Option<String>,
    /// The project root of the chat being read, from its path.
    cwd: Option<String>,
    /// When the session started and was last written, as its records say.
    started_ms: Option<u64>,
    updated_ms: Option<u64>,
    /// A run was read in this input, or the sink heard that the session has none.
    ran: bool,
    /// The call that started each sub-agent, by the sub-agent's id.
    subagent_calls: HashMap<String, String>,
    /// The message held until a record with another id comes: its id and its line.
    held_id: Option<String>,
    held: Vec<u8>,
    /// The open run's prompt's id, and what its last word was.
    prompt_id: Option<String>,
    last: Last,
    error: Option<String>,
    /// The text of the run's last message.
    answer: Vec<u8>,
    last_ms: Option<u64>,
}

#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    #[default]
    Waiting,
    Text,
    Tool,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow, default)]
    id: MaybeStr<'a>,
    #[serde(borrow, default)]
    timestamp: MaybeStr<'a>,
    #[serde(rename = "type", borrow, default)]
    kind: MaybeStr<'a>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thoughts: Option<Vec<Thought<'a>>>,
    #[serde(borrow, default)]
    model: MaybeStr<'a>,
    #[serde(default)]
    tokens: Object<Tokens>,
    #[serde(rename = "toolCalls", borrow, default)]
    tool_calls: Option<Vec<ToolCallRecord<'a>>>,
    /// The sub-agent whose message this is (the store marks them).
    #[serde(rename = "$subagent", borrow, default)]
    subagent: MaybeStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Thought<'a> {
    #[serde(borrow)]
    subject: MaybeStr<'a>,
    #[serde(borrow)]
    description: MaybeStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Tokens {
    input: TokenCount,
    output: TokenCount,
    cached: TokenCount,
    thoughts: TokenCount,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct ToolCallRecord<'a> {
    #[serde(borrow)]
    id: MaybeStr<'a>,
    #[serde(borrow)]
    name: MaybeStr<'a>,
    #[serde(borrow)]
    args: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    status: MaybeStr<'a>,
    #[serde(borrow)]
    timestamp: MaybeStr<'a>,
    /// The sub-agent the call ran (0.39 on): its chat is `chats/<session>/<agentId>.jsonl`.
    #[serde(rename = "agentId", borrow)]
    agent_id: MaybeStr<'a>,
}

/// A part of a message's content.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(borrow)]
    text: MaybeStr<'a>,
    #[serde(rename = "functionResponse", borrow)]
    function_response: Option<&'a RawValue>,
}

/// A line without `type`: the session's first record, or a change of it.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Untyped<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: MaybeStr<'a>,
    #[serde(rename = "startTime", borrow)]
    start_time: MaybeStr<'a>,
    #[serde(rename = "lastUpdated", borrow)]
    last_updated: MaybeStr<'a>,
    #[serde(rename = "$set", borrow)]
    set: Option<Set<'a>>,
    #[serde(rename = "$rewindTo", borrow)]
    rewind_to: MaybeStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Set<'a> {
    #[serde(rename = "sessionId", borrow)]
    session_id: MaybeStr<'a>,
    #[serde(rename = "lastUpdated", borrow)]
    last_updated: MaybeStr<'a>,
    #[serde(borrow)]
    summary: MaybeStr<'a>,
    #[serde(borrow)]
    messages: Option<Vec<Id<'a>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Id<'a> {
    #[serde(borrow)]
    id: MaybeStr<'a>,
}

impl Dialect for Chat {
    fn agent(&self) -> Agent {
        Agent::Gemini
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::USER | NameId::GEMINI | NameId::INFO | NameId::WARNING | NameId::ERROR => {
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
        let id = match crate::input::json::from_line::<Id>(line.bytes) {
            Ok(m) => m.id.0.map(Cow::into_owned),
            Err(e) => return sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        };
        if id.is_none() || id != self.held_id {
            self.flush(sink)?;
        }
        self.held_id = id;
        self.held.clear();
        self.held.extend_from_slice(line.bytes);
        Ok(())
    }

    fn input_named(&mut self, name: &str) {
        self.cwd = super::store::project_root(std::path::Path::new(name));
    }

    fn untyped<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<bool> {
        let Ok(record) = crate::input::json::from_line::<Untyped>(line.bytes) else {
            return Ok(false);
        };
        let updated = record
            .set
            .as_ref()
            .map_or(&record.last_updated, |s| &s.last_updated);
        if let Some(ms) = updated.as_deref().and_then(rfc3339_ms) {
            self.updated_ms = self.updated_ms.max(Some(ms));
        }
        if let Some(set) = &record.set {
            // `lastUpdated` alone sits between a message and its second writing.
            if set.messages.is_none() && set.session_id.0.is_none() && set.summary.0.is_none() {
                return Ok(true);
            }
        }
        self.flush(sink)?;
        if let Some(id) = record.session_id.0 {
            // The session's first record, written again by each invocation that resumes
            // it: what was open did not go on.
            self.end(sink)?;
            self.session = Some(id.into_owned());
            let started = record.start_time.as_deref().and_then(rfc3339_ms);
            self.started_ms = self.started_ms.or(started);
        }
        if let Some(set) = record.set {
            self.set(set, sink);
        }
        if let Some(to) = record.rewind_to.as_deref()
            && sink.run_open()
            && sink.wants().has(Wants::NOTICES)
        {
            sink.event(Event::Notice(&Notice {
                kind: NoticeKind::Warning,
                text: Cow::Owned(format!("The chat was rewound to message {to}")),
            }))?;
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.prompt_id = None;
        self.last = Last::Waiting;
        self.error = None;
        self.answer.clear();
        self.last_ms = None;
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.flush(sink)?;
        self.end(sink)?;
        if !std::mem::replace(&mut self.ran, true) && self.session.is_some() {
            let info = RunInfo {
                session_id: self.session.clone(),
                cwd: self.cwd.clone(),
                started_ms: self.started_ms,
                ..RunInfo::new(Agent::Gemini)
            };
            sink.empty_session(&info, self.updated_ms);
        }
        Ok(())
    }

    fn start_afresh(&mut self) {
        let cwd = self.cwd.take();
        *self = Chat {
            cwd,
            ..Chat::default()
        };
    }
}

impl Chat {
    /// A `$set` that changes more than the time: the session's id, its title, or its
    /// history rewritten.
    fn set<S: Sink>(&mut self, set: Set<'_>, sink: &mut S) {
        if let Some(id) = set.session_id.0 {
            self.session = Some(id.into_owned());
        }
        if let Some(summary) = set.summary.as_deref() {
            sink.title(self.session.as_deref(), summary);
        }
        // The history rewritten without the open run's prompt, which nothing answered
        // yet: it failed.
        if let (Some(messages), Some(prompt)) = (&set.messages, &self.prompt_id)
            && sink.run_open()
            && self.last == Last::Waiting
            && !messages
                .iter()
                .any(|m| m.id.as_deref() == Some(prompt.as_str()))
        {
            self.error.get_or_insert_with(|| {
                "the model call failed (Gemini CLI dropped the prompt from the history)".to_string()
            });
        }
    }

    /// Reads the held message: no record with its id can come any more.
    fn flush<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        self.held_id = None;
        let result = self.message(&held, sink);
        self.held = held;
        self.held.clear();
        result
    }

    fn message<S: Sink>(&mut self, line: &[u8], sink: &mut S) -> anyhow::Result<()> {
        let msg: Message = match crate::input::json::from_line(line) {
            Ok(m) => m,
            Err(e) => return sink.unreadable(Unreadable::of(NameId::GEMINI), line, &e),
        };
        let at_ms = msg.timestamp.as_deref().and_then(rfc3339_ms);
        if let Some(agent) = msg.subagent.0.clone() {
            return self.subagent_message(msg, &agent, line, at_ms, sink);
        }
        match msg.kind.as_deref().unwrap_or("") {
            "user" => {
                let (words, results) = parts(msg.content);
                match words {
                    Some(prompt) if !results => self.prompt(prompt, msg.id.0, at_ms, sink),
                    _ => {
                        self.seen(at_ms, sink);
                        Ok(())
                    }
                }
            }
            "gemini" => self.answer(msg, line, at_ms, sink),
            kind @ ("info" | "warning" | "error") => self.notice(kind, msg.content, at_ms, sink),
            _ => Ok(()),
        }
    }

    /// A prompt: the open run ends, a run starts.
    fn prompt<S: Sink>(
        &mut self,
        prompt: String,
        id: Option<Cow<'_, str>>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.end(sink)?;
        self.prompt_id = id.map(Cow::into_owned);
        self.last_ms = at_ms;
        // The user's words, without the files an `@` added after them.
        let prompt = words_of(before_referenced_files(&prompt));
        self.open_run(prompt, at_ms, sink)
    }

    fn open_run<S: Sink>(
        &mut self,
        prompt: Option<String>,
        started_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.ran = true;
        sink.start_run(RunInfo {
            session_id: self.session.clone(),
            cwd: self.cwd.clone(),
            prompt,
            started_ms,
            messages_apart: true,
            ..RunInfo::new(Agent::Gemini)
        })
    }

    /// An `info`, `warning` or `error` message: a notice; an error fails the run.
    fn notice<S: Sink>(
        &mut self,
        kind: &str,
        content: Option<&RawValue>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if !sink.run_open() {
            return Ok(());
        }
        self.seen(at_ms, sink);
        let text = parts(content).0.unwrap_or_default();
        if kind == "error" {
            self.error.get_or_insert_with(|| text.clone());
        }
        if sink.wants().has(Wants::NOTICES) {
            let kind = match kind {
                "error" => NoticeKind::Error,
                _ => NoticeKind::Warning,
            };
            sink.event(Event::Notice(&Notice {
                kind,
                text: Cow::Owned(text),
            }))?;
        }
        Ok(())
    }

    fn seen<S: Sink>(&mut self, at_ms: Option<u64>, sink: &S) {
        if sink.run_open() && at_ms.is_some() {
            self.last_ms = at_ms.max(self.last_ms);
        }
    }

    /// A `gemini` message: its thoughts, its text, its tool calls and their results.
    fn answer<S: Sink>(
        &mut self,
        msg: Message<'_>,
        line: &[u8],
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if !sink.run_open() {
            // A log cut at the front: its first run's prompt is gone.
            self.open_run(None, None, sink)?;
        }
        self.seen(at_ms, sink);
        if let Some(model) = msg.model.as_deref() {
            sink.model_seen(model);
        }
        self.bill(&msg, line, at_ms, sink)?;
        let wants = sink.wants();
        if wants.has(Wants::THINKING) {
            thoughts(msg.thoughts.as_deref().unwrap_or_default(), wants, sink)?;
        }
        let text = parts(msg.content).0.unwrap_or_default();
        if !text.is_empty() {
            self.last = Last::Text;
            self.answer.clear();
            self.answer.extend_from_slice(text.as_bytes());
            if wants.has(Wants::TEXT) {
                sink.event(Event::Segment)?;
                sink.event(Event::Text(text.as_bytes()))?;
            }
        }
        let calls = msg.tool_calls.unwrap_or_default();
        if !calls.is_empty() {
            self.last = Last::Tool;
        }
        for call in calls {
            self.tool_call(call, None, sink)?;
        }
        Ok(())
    }

    /// A sub-agent's message: a `gemini` one's tokens and tool calls are the run's (its
    /// calls under the call that started the sub-agent); its prompts and text are not.
    fn subagent_message<S: Sink>(
        &mut self,
        msg: Message<'_>,
        agent: &str,
        line: &[u8],
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if msg.kind.as_deref() != Some("gemini") {
            return Ok(());
        }
        if !sink.run_open() {
            self.open_run(None, None, sink)?;
        }
        self.seen(at_ms, sink);
        self.bill(&msg, line, at_ms, sink)?;
        let parent = self
            .subagent_calls
            .get(agent)
            .map_or(agent, String::as_str)
            .to_string();
        for call in msg.tool_calls.unwrap_or_default() {
            self.tool_call(call, Some(&parent), sink)?;
        }
        Ok(())
    }

    /// A `gemini` message's tokens.
    fn bill<S: Sink>(
        &mut self,
        msg: &Message<'_>,
        line: &[u8],
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let Some(t) = &msg.tokens.0 else {
            return Ok(());
        };
        if TokenCount::any_bad(&[t.input, t.output, t.cached, t.thoughts]) {
            return sink.unreadable(
                unreadable!("usage"),
                line,
                &"a token count that is no count: left out of the totals",
            );
        }
        let cached = t.cached.get();
        let thoughts = t.thoughts.get();
        let usage = Usage {
            input: t.input.get().saturating_sub(cached),
            output: t.output.get() + thoughts,
            cache_read: cached,
            reasoning: Some(thoughts),
            ..Usage::default()
        };
        sink.event(Event::Billed(&Billed {
            usage,
            model: msg.model.as_deref(),
            at_ms,
            id: msg.id.as_deref(),
        }))
    }

    /// A tool call, whole: it is written once it ended, with its result.
    fn tool_call<S: Sink>(
        &mut self,
        c: ToolCallRecord<'_>,
        parent: Option<&str>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if let (Some(agent), Some(id)) = (c.agent_id.as_deref(), c.id.as_deref()) {
            self.subagent_calls
                .insert(agent.to_string(), id.to_string());
        }
        let wants = sink.wants();
        if !wants.has(Wants::TOOLS) {
            return Ok(());
        }
        let name = c.name.0.clone().unwrap_or(Cow::Borrowed("unknown"));
        let mut call = tools::call(c.id.0.clone(), name, c.args, wants);
        call.at_ms = c.timestamp.as_deref().and_then(rfc3339_ms);
        call.parent = parent.map(|p| Cow::Owned(p.to_string()));
        // A start without an id is paired with no end: the end alone says it all.
        if call.id.is_some() {
            sink.tool_started(call.clone())?;
        }
        let response = c.result.and_then(response_of).unwrap_or_default();
        let status = status_of(c.status.as_deref(), response.error.as_deref());
        let effect = Effect {
            error: response
                .error
                .filter(|_| status.class != StatusClass::Ok && wants.has(Wants::TOOL_DETAILS)),
            ..Effect::default()
        };
        sink.tool_ended(ToolEndRaw {
            call,
            status,
            result: response
                .shown
                .or(c.result)
                .filter(|_| wants.has(Wants::TOOL_RAW))
                .map(Cow::Borrowed),
            effect,
            ended_ms: None,
        })
    }

    /// The open run ends as its last word says.
    fn end<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            self.reset();
            return Ok(());
        }
        let outcome = match self.error.take() {
            Some(reason) => Outcome::Failed { reason },
            None if self.last == Last::Text => Outcome::Succeeded,
            None => Outcome::NoEnd,
        };
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
        self.answer = answer;
        self.reset();
        result
    }
}

/// A `gemini` message's thoughts, each `subject: description`.
fn thoughts<S: Sink>(thoughts: &[Thought<'_>], wants: Wants, sink: &mut S) -> anyhow::Result<()> {
    let n = thoughts.len();
    for (i, t) in thoughts.iter().enumerate() {
        let mut text = String::new();
        if wants.has(Wants::THINKING_TEXT) {
            if let Some(s) = t.subject.as_deref().filter(|s| !s.is_empty()) {
                text.push_str(s);
                text.push_str(": ");
            }
            text.push_str(t.description.as_deref().unwrap_or(""));
            if i + 1 < n {
                text.push('\n');
            }
        }
        sink.event(Event::Thinking {
            text: text.as_bytes(),
            done: i + 1 == n,
        })?;
    }
    Ok(())
}

/// A call's status: its record's word (a call the policy denied, or one cancelled, is a
/// rejection).
fn status_of(word: Option<&str>, error: Option<&str>) -> ToolStatus<'static> {
    match word {
        Some("success") => ToolStatus::success(),
        Some(word) => {
            let denied = error.is_some_and(|e| e.contains("denied by policy"));
            let class = if denied || word == "cancelled" {
                StatusClass::Rejected
            } else {
                StatusClass::Failed
            };
            let word = if denied { "rejected" } else { word };
            ToolStatus::new(word.to_string(), class)
        }
        None => ToolStatus::unknown(),
    }
}

/// A message's content: its words (text parts, or the string), and whether it carries
/// function responses.
fn parts(content: Option<&RawValue>) -> (Option<String>, bool) {
    let Some(content) = content else {
        return (None, false);
    };
    if let Ok(text) = crate::input::json::from_str::<Cow<'_, str>>(content.get()) {
        return (Some(text.into_owned()), false);
    }
    let parts: Vec<Part> = crate::input::json::from_str(content.get()).unwrap_or_default();
    let results = parts.iter().any(|p| p.function_response.is_some());
    let words: Vec<&str> = parts.iter().filter_map(|p| p.text.as_deref()).collect();
    ((!words.is_empty()).then(|| words.concat()), results)
}

/// A call's result, `[{"functionResponse":{"response":{"output"|"error":…}}}]`: the
/// model's view of it, as the stream's `tool_result` gives it (the record's
/// `resultDisplay` is what the terminal showed: for a shell, rows of styled cells).
#[derive(Default)]
struct Response<'a> {
    error: Option<String>,
    /// The `output`, else the `error`, as written.
    shown: Option<&'a RawValue>,
}

fn response_of(result: &RawValue) -> Option<Response<'_>> {
    #[derive(Deserialize)]
    struct Item<'a> {
        #[serde(rename = "functionResponse", borrow, default)]
        function_response: Option<Fr<'a>>,
    }
    #[derive(Deserialize)]
    struct Fr<'a> {
        #[serde(borrow, default)]
        response: Option<R<'a>>,
    }
    #[derive(Deserialize)]
    struct R<'a> {
        #[serde(borrow, default)]
        output: Option<&'a RawValue>,
        #[serde(borrow, default)]
        error: Option<&'a RawValue>,
    }
    let items: Vec<Item> = crate::input::json::from_str(result.get()).ok()?;
    let response = items
        .into_iter()
        .find_map(|i| i.function_response?.response)?;
    let error = response.error.map(|e| {
        crate::input::json::from_str::<String>(e.get()).unwrap_or_else(|_| e.get().to_string())
    });
    Some(Response {
        error,
        shown: response.output.or(response.error),
    })
}

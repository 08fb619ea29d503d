//! Codex's session logs, the rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
//! (`$CODEX_HOME`; `archived_sessions/` after `codex archive`; `.jsonl.zst` once compressed,
//! read through `stores::open`). One session a file, every turn of it, interactive ones
//! included. Notes: `../shared/spec/stores.md` §2.2, `tests/fixtures/recorded/STORES.md`.
//!
//! ```text
//! {"timestamp":"…","type":"session_meta","payload":{"id":"<session>","cwd":"/w","cli_version":"0.169.0",…}}
//! {"timestamp":"…","type":"turn_context","payload":{"model":"gpt-5.5","cwd":"/w",…}}
//! {"timestamp":"…","type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":[{"type":"text","text":"<prompt>"}]}}}
//! {"timestamp":"…","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"…"}]}}
//! {"timestamp":"…","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"echo hi\"}","call_id":"call_…"}}
//! {"timestamp":"…","type":"response_item","payload":{"type":"function_call_output","call_id":"call_…","output":"…Process exited with code 0…"}}
//! {"timestamp":"…","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{…},"last_token_usage":{…}}}}
//! {"timestamp":"…","type":"event_msg","payload":{"type":"task_complete","last_agent_message":"…","error":null}}
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | run start | the prompt: `event_msg` `user_message` (before 0.1xx) or `item_completed` of a `UserMessage` (the `user` messages of `response_item`s also carry the context Codex adds: not read) |
//! | text | `response_item` `message`s of the assistant, each a segment (the `event_msg` copies are not read) |
//! | thinking | `response_item` `reasoning` summaries |
//! | tool calls | `function_call`, `custom_tool_call`, `local_shell_call` → their `…_output` by `call_id` (the exit code from the output); `web_search_call` whole |
//! | notices | `event_msg` `error`, `stream_error` |
//! | run end | `task_complete` (failed when it carries an `error`); `turn_aborted` and a log that stops mid-turn are no result |
//! | usage | each response's `token_usage_record` (0.16x on); before those, the increase of `token_count`'s cumulative `total_token_usage` over the run (a re-sent count adds nothing) |
//! | a fork | its parent's `session_meta` and history come after its own `session_meta`, written when it was made (at that second, or with their old times): neither runs nor tokens of the fork ([`Replay`]) |
//! | final answer | `task_complete`'s `last_agent_message` |

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::TurnUsage;
use crate::agent::event::{
    Agent, Billed, Effect, Event, Notice, NoticeKind, Outcome, RunEnd, RunInfo, StatusClass,
    ToolCall, ToolEndRaw, ToolKind, ToolStatus, Usage, Wants,
};
use crate::agent::tools;
use crate::agent::wire::without_elements;
use crate::agent::{Class, Dialect, RawLine, Sink};
use crate::input::json::{MaybeStr, plain_value, rfc3339_ms};
use crate::input::lenient::{Num, Object, TokenCount};
use crate::input::peek::{Head, NameId, fast_paths};
use crate::out::diag::{Unreadable, unreadable};

#[derive(Default)]
pub(crate) struct Rollout {
    session: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    /// The cumulative usage last counted.
    total: Option<Tokens>,
    /// The open run's responses own usage came (`token_usage_record`, 0.16x on), which
    /// counts each response once whatever the `token_count`s say (the first may come
    /// after the tool's output, or never, when Codex is killed).
    records: bool,
    /// The open run's increases of the cumulative count, each with its time: its tokens
    /// where no `token_usage_record` comes.
    increases: Vec<(Usage, Option<u64>)>,
    /// An error the open run reported, which fails it unless it completes.
    error: Option<String>,
    /// How the open run's last word leaves it, for a log that stops.
    last_ms: Option<u64>,
    /// A tool's arguments, parsed out of their string, for the call being read.
    args: Option<Box<RawValue>>,
    /// Where the file is in a fork's replay of its parent.
    replay: Replay,
}

/// A fork's rollout (or a sub-agent's) starts with its own `session_meta`, then its
/// parent's and the parent's history, written when the fork was made: those lines are
/// not the fork's runs, nor its tokens. They come at the second of the fork's own first
/// line (or before it); the first line after that second is the fork's own.
#[derive(Default, Debug, Clone, PartialEq, Eq)]
enum Replay {
    #[default]
    None,
    /// The file's own `session_meta` came, at this second: a second one starts a replay.
    Fork(String),
    /// Replaying the parent, up to this second.
    Replaying(String),
    /// Past the replay, or none: every line is the file's own.
    Done,
}

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    timestamp: MaybeStr<'a>,
    #[serde(borrow, default)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Meta<'a> {
    #[serde(borrow)]
    id: MaybeStr<'a>,
    #[serde(borrow)]
    cwd: MaybeStr<'a>,
    #[serde(borrow)]
    model: MaybeStr<'a>,
}

/// An `event_msg`'s or a `response_item`'s payload: the fields this dialect reads.
#[derive(Deserialize, Default)]
#[serde(default)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: MaybeStr<'a>,
    #[serde(borrow)]
    role: MaybeStr<'a>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    #[serde(borrow)]
    summary: Option<&'a RawValue>,
    #[serde(borrow)]
    name: MaybeStr<'a>,
    #[serde(borrow)]
    arguments: MaybeStr<'a>,
    #[serde(borrow)]
    input: MaybeStr<'a>,
    #[serde(borrow)]
    call_id: MaybeStr<'a>,
    #[serde(borrow)]
    output: Option<&'a RawValue>,
    #[serde(borrow)]
    action: Option<&'a RawValue>,
    #[serde(borrow)]
    message: MaybeStr<'a>,
    #[serde(borrow)]
    last_agent_message: MaybeStr<'a>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
    #[serde(borrow)]
    reason: MaybeStr<'a>,
    #[serde(borrow)]
    item: Option<&'a RawValue>,
    info: Object<Info>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Info {
    total_token_usage: Object<TurnUsage>,
}

/// Raw cumulative counts, to take differences of.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Tokens([u64; 5]);

impl Tokens {
    fn of(u: &TurnUsage) -> Tokens {
        let n = |x: TokenCount| x.get();
        Tokens([
            n(u.input_tokens),
            n(u.cached_input_tokens),
            n(u.cache_write_input_tokens),
            n(u.output_tokens),
            n(u.reasoning_output_tokens),
        ])
    }

    /// Whether no count of this one is above `other`'s.
    fn below(&self, other: &Tokens) -> bool {
        (0..5).all(|i| self.0[i] <= other.0[i])
    }

    /// What was used since `base` (nothing where a count went down: a new thread's).
    fn since(self, base: Option<Tokens>) -> Usage {
        let base = base.unwrap_or_default();
        let d: Vec<u64> = (0..5)
            .map(|i| self.0[i].saturating_sub(base.0[i]))
            .collect();
        Usage {
            input: d[0].saturating_sub(d[1] + d[2]),
            output: d[3],
            cache_read: d[1],
            cache_write: d[2],
            reasoning: Some(d[4]),
            cost_usd: None,
            cache_write_1h: None,
        }
    }
}

impl Dialect for Rollout {
    fn agent(&self) -> Agent {
        Agent::Codex
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::EVENT_MSG | NameId::RESPONSE_ITEM | NameId::SESSION_META => {
                Class::message(Wants::ALL)
            }
            NameId::TURN_CONTEXT => Class::message(Wants::NONE),
            NameId::TOKEN_USAGE_RECORD => Class::message(Wants::NONE),
            NameId::COMPACTED | NameId::WORLD_STATE => Class::noise(Wants::NONE),
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
        if matches!(head.name, NameId::RESPONSE_ITEM | NameId::EVENT_MSG)
            && let Some(timestamp) = time_only(line.bytes, sink.wants().has(Wants::TOOLS))
        {
            self.seen_at(Some(timestamp), sink);
            return Ok(());
        }
        let parsed: Line = match crate::input::json::from_line(line.bytes) {
            Ok(l) => l,
            Err(e) => return sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        };
        let Some(payload) = parsed.payload else {
            return Ok(());
        };
        let at_ms = parsed.timestamp.as_deref().and_then(rfc3339_ms);
        let second = parsed.timestamp.as_deref().and_then(|t| t.get(..19));
        let replaying = self.replaying_at(second);
        match head.name {
            NameId::SESSION_META | NameId::TURN_CONTEXT => {
                let meta: Meta = crate::input::json::from_str(payload.get()).unwrap_or_default();
                if head.name == NameId::SESSION_META {
                    if self.session.is_none() {
                        self.session = meta.id.0.map(Cow::into_owned);
                        if let Some(second) = second {
                            self.replay = Replay::Fork(second.to_string());
                        }
                    } else if let Replay::Fork(fork) = std::mem::take(&mut self.replay) {
                        // A fork's file goes on with its parent's `session_meta` and
                        // history, replayed when it was made: not its own.
                        self.replay = Replay::Replaying(fork);
                    }
                    return Ok(());
                }
                if let Some(cwd) = meta.cwd.0 {
                    self.cwd = Some(cwd.into_owned());
                }
                if let Some(model) = meta.model.0 {
                    if sink.run_open() {
                        sink.model_seen(&model);
                    }
                    self.model = Some(model.into_owned());
                }
                Ok(())
            }
            NameId::EVENT_MSG if replaying => {
                // Only the counts: the fork's own continue from its parent's.
                let p: Payload = crate::input::json::from_str(payload.get()).unwrap_or_default();
                if p.kind.as_deref() == Some("token_count")
                    && let Some(total) = p.info.0.and_then(|i| i.total_token_usage.0)
                {
                    self.total = Some(Tokens::of(&total));
                }
                Ok(())
            }
            _ if replaying => Ok(()),
            NameId::TOKEN_USAGE_RECORD => {
                #[derive(Deserialize, Default)]
                #[serde(default)]
                struct Record<'a> {
                    usage: Object<TurnUsage>,
                    #[serde(borrow)]
                    response_id: MaybeStr<'a>,
                }
                if !sink.run_open() {
                    return Ok(());
                }
                let r: Record = crate::input::json::from_str(payload.get()).unwrap_or_default();
                let Some(u) = r.usage.0 else { return Ok(()) };
                if u.is_bad() {
                    return sink.unreadable(
                        unreadable!("usage"),
                        line.bytes,
                        &"a token count that is no count: left out of the totals",
                    );
                }
                self.records = true;
                sink.event(Event::Billed(&Billed {
                    usage: Tokens::of(&u).since(None),
                    model: self.model.as_deref(),
                    at_ms,
                    id: r.response_id.as_deref(),
                }))
            }
            NameId::EVENT_MSG | NameId::RESPONSE_ITEM => {
                let p: Payload = match crate::input::json::from_str(payload.get()) {
                    Ok(p) => p,
                    Err(e) => {
                        return sink.unreadable(Unreadable::of(head.name), line.bytes, &e);
                    }
                };
                self.seen_at(parsed.timestamp.as_deref(), sink);
                if head.name == NameId::EVENT_MSG {
                    self.event(p, at_ms, sink)
                } else {
                    self.item(p, sink)
                }
            }
            _ => Ok(()),
        }
    }

    fn reset(&mut self) {
        self.error = None;
        self.last_ms = None;
        self.args = None;
        self.records = false;
        self.increases.clear();
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        let outcome = match self.error.take() {
            Some(reason) => Outcome::Failed { reason },
            None => Outcome::NoEnd,
        };
        self.end(outcome, None, sink)
    }

    fn start_afresh(&mut self) {
        *self = Rollout::default();
    }
}

impl Rollout {
    /// Whether a line of this second is still a fork's replay of its parent: the replay
    /// ends with the first line after the second the fork was made in.
    fn replaying_at(&mut self, second: Option<&str>) -> bool {
        if let Replay::Replaying(fork) = &self.replay
            && second.is_some_and(|s| s > fork.as_str())
        {
            self.replay = Replay::Done;
        }
        matches!(self.replay, Replay::Replaying(_))
    }

    /// A line of the run's own at `timestamp`: its last activity, unless a fork replays.
    fn seen_at<S: Sink>(&mut self, timestamp: Option<&str>, sink: &S) {
        if self.replaying_at(timestamp.and_then(|t| t.get(..19))) {
            return;
        }
        let at_ms = timestamp.and_then(rfc3339_ms);
        if sink.run_open() && at_ms.is_some() {
            self.last_ms = at_ms.max(self.last_ms);
        }
    }

    fn event<S: Sink>(
        &mut self,
        p: Payload<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        match p.kind.as_deref().unwrap_or("") {
            "user_message" => {
                let prompt = p.message.as_deref().unwrap_or("").to_string();
                self.prompt(prompt, at_ms, sink)
            }
            "item_completed" => {
                let Some(item) = p.item else { return Ok(()) };
                let item: Payload = crate::input::json::from_str(item.get()).unwrap_or_default();
                if item.kind.as_deref() != Some("UserMessage") {
                    return Ok(());
                }
                let prompt = texts(item.content, &["text"]);
                self.prompt(prompt, at_ms, sink)
            }
            "task_complete" => {
                let outcome = match p.error.and_then(error_text) {
                    Some(reason) => Outcome::Failed { reason },
                    None => Outcome::Succeeded,
                };
                self.error = None;
                let last = p.last_agent_message.0;
                self.end(outcome, last.as_deref().map(str::as_bytes), sink)
            }
            "turn_aborted" => {
                self.error = None;
                self.end(Outcome::NoEnd, None, sink)
            }
            "error" | "stream_error" => {
                let text = p.message.as_deref().unwrap_or("error").to_string();
                if sink.run_open() && sink.wants().has(Wants::NOTICES) {
                    let kind = if p.kind.as_deref() == Some("error") {
                        NoticeKind::Error
                    } else {
                        NoticeKind::Retry
                    };
                    sink.event(Event::Notice(&Notice {
                        kind,
                        text: Cow::Borrowed(&text),
                    }))?;
                }
                if p.kind.as_deref() == Some("error") {
                    self.error.get_or_insert(text);
                }
                Ok(())
            }
            "token_count" => {
                let Some(total) = p.info.0.and_then(|i| i.total_token_usage.0) else {
                    return Ok(());
                };
                let total = Tokens::of(&total);
                // A count sent again adds nothing; one that went down starts afresh.
                if sink.run_open() && Some(total) != self.total {
                    let increase = total.since(self.total.filter(|t| t.below(&total)));
                    self.increases.push((increase, at_ms));
                }
                self.total = Some(total);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A prompt: the open run ends (the log went on without completing it), the prompt's
    /// starts.
    fn prompt<S: Sink>(
        &mut self,
        prompt: String,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.finish(sink)?;
        self.last_ms = at_ms;
        sink.start_run(RunInfo {
            session_id: self.session.clone(),
            model: self.model.clone(),
            cwd: self.cwd.clone(),
            prompt: users_words(&prompt),
            started_ms: at_ms,
            ..RunInfo::new(Agent::Codex)
        })
    }

    fn end<S: Sink>(
        &mut self,
        outcome: Outcome,
        final_text: Option<&[u8]>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if !sink.run_open() {
            self.reset();
            return Ok(());
        }
        if !self.records {
            for (usage, at_ms) in std::mem::take(&mut self.increases) {
                sink.event(Event::Billed(&Billed {
                    usage,
                    model: self.model.as_deref(),
                    at_ms,
                    id: None,
                }))?;
            }
        }
        let last_ms = self.last_ms;
        self.reset();
        sink.end_run(RunEnd {
            final_text: final_text.filter(|_| sink.wants().intersects(Wants::FINAL)),
            last_ms,
            ..RunEnd {
                outcome,
                ..RunEnd::unfinished()
            }
        })
    }

    fn item<S: Sink>(&mut self, p: Payload<'_>, sink: &mut S) -> anyhow::Result<()> {
        if !sink.run_open() {
            // Before the first prompt: the context Codex adds, or a fork's replay.
            return Ok(());
        }
        let wants = sink.wants();
        match p.kind.as_deref().unwrap_or("") {
            "message" if p.role.as_deref() == Some("assistant") => {
                if wants.has(Wants::TEXT) {
                    let text = texts(p.content, &["output_text", "text"]);
                    sink.event(Event::Segment)?;
                    sink.event(Event::Text(text.as_bytes()))?;
                }
                Ok(())
            }
            "reasoning" if wants.has(Wants::THINKING) => {
                let text = texts(p.summary, &["summary_text"]);
                let text = if wants.has(Wants::THINKING_TEXT) {
                    text.as_bytes()
                } else {
                    b""
                };
                sink.event(Event::Thinking { text, done: true })
            }
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                if wants.has(Wants::TEXT) {
                    sink.event(Event::Segment)?;
                }
                if !wants.has(Wants::TOOLS) {
                    return Ok(());
                }
                let name = match p.kind.as_deref() {
                    Some("local_shell_call") => Cow::Borrowed("local_shell"),
                    _ => p.name.0.clone().unwrap_or(Cow::Borrowed("unknown")),
                };
                // The arguments are a JSON text in a string (a patch's, plain text).
                self.args = match (&p.arguments.0, &p.input.0, p.action) {
                    (Some(args), _, _) => RawValue::from_string(args.to_string()).ok(),
                    (None, Some(input), _) => {
                        serde_json::value::to_raw_value(&serde_json::json!({ "input": input })).ok()
                    }
                    (None, None, Some(action)) => Some(action.to_owned()),
                    _ => None,
                };
                let call = tools::call(p.call_id.0.clone(), name, self.args.as_deref(), wants);
                let call = ToolCall {
                    args: call.args.map(|a| Cow::Owned(a.into_owned())),
                    target: call.target.map(|t| Cow::Owned(t.into_owned())),
                    ..call
                };
                sink.tool_started(call)
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                if !wants.has(Wants::TOOLS) {
                    return Ok(());
                }
                let output = p.output.map(output_text).unwrap_or_default();
                let (status, effect) = outcome_of(&output, wants);
                let mut call = ToolCall::new("unknown", ToolKind::Other);
                call.id = p.call_id.0;
                sink.tool_ended(ToolEndRaw {
                    call,
                    status,
                    result: p
                        .output
                        .filter(|_| wants.has(Wants::TOOL_RAW))
                        .map(Cow::Borrowed),
                    effect,
                    ended_ms: None,
                })
            }
            "web_search_call" if wants.has(Wants::TOOLS) => {
                let call = tools::call(None, Cow::Borrowed("web_search"), p.action, wants);
                sink.tool_started(call.clone())?;
                sink.tool_ended(ToolEndRaw {
                    call,
                    status: ToolStatus::success(),
                    result: None,
                    effect: Effect::default(),
                    ended_ms: None,
                })
            }
            _ => Ok(()),
        }
    }
}

/// The time of a line only whose time a view reads, told from its bytes in the layout
/// Codex writes, `{"timestamp":"…","ordinal":N,"type":"…","payload":{"type":"…"` (the
/// ordinal in recent releases, 0.169 among them): a tool's output when the view shows no
/// tools, and an `item_completed` of anything but the prompt (`UserMessage`), which the
/// `response_item`s say again. Together most of a rollout's bytes. `None` for any other
/// line or layout (read by a parse), and on the reference path.
fn time_only(line: &[u8], tools: bool) -> Option<&str> {
    if !fast_paths() {
        return None;
    }
    let (time, rest) = plain_value(line.strip_prefix(br#"{"timestamp":""#)?)?;
    let rest = match rest.strip_prefix(br#","ordinal":"#) {
        Some(n) => &n[n.iter().take_while(|b| b.is_ascii_digit()).count()..],
        None => rest,
    };
    let time_only =
        if let Some(kind) = rest.strip_prefix(br#","type":"response_item","payload":{"type":""#) {
            let outputs: [&[u8]; 3] = [
                b"function_call_output\"",
                b"custom_tool_call_output\"",
                b"local_shell_call_output\"",
            ];
            !tools && outputs.iter().any(|k| kind.starts_with(k))
        } else {
            let mut rest =
                rest.strip_prefix(br#","type":"event_msg","payload":{"type":"item_completed""#)?;
            // `"thread_id":"…","turn_id":"…"`, then the item.
            loop {
                if let Some(item) = rest.strip_prefix(br#","item":{"type":""#) {
                    break !item.starts_with(b"UserMessage\"");
                }
                let value = rest.strip_prefix(b",\"")?;
                let (_key, value) = plain_value(value)?;
                (_, rest) = plain_value(value.strip_prefix(b":\"")?)?;
            }
        };
    time_only.then_some(())?;
    std::str::from_utf8(time).ok()
}

/// The text of a content list's parts of the given types, joined.
fn texts(content: Option<&RawValue>, kinds: &[&str]) -> String {
    #[derive(Deserialize)]
    struct Part<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: MaybeStr<'a>,
        #[serde(borrow, default)]
        text: MaybeStr<'a>,
    }
    let Some(content) = content else {
        return String::new();
    };
    let parts: Vec<Part> = crate::input::json::from_str(content.get()).unwrap_or_default();
    parts
        .iter()
        .filter(|p| p.kind.as_deref().is_some_and(|k| kinds.contains(&k)))
        .filter_map(|p| p.text.as_deref())
        .collect()
}

/// An error object's message, or its text.
fn error_text(error: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct E<'a> {
        #[serde(borrow, default)]
        message: MaybeStr<'a>,
    }
    if error.get() == "null" {
        return None;
    }
    match crate::input::json::from_str::<E>(error.get()) {
        Ok(e) => Some(
            e.message
                .0
                .map_or_else(|| error.get().to_string(), Cow::into_owned),
        ),
        Err(_) => crate::input::json::from_str::<String>(error.get()).ok(),
    }
}

/// A tool output as text: a string, or (before 0.1xx) `{"output":"…","metadata":{"exit_code":N}}`
/// in a string.
fn output_text(output: &RawValue) -> String {
    crate::input::json::from_str::<String>(output.get())
        .unwrap_or_else(|_| output.get().to_string())
}

/// How a call went, from its output: an exit code Codex reports (`Process exited with
/// code N`, or `metadata.exit_code`), a refusal of the approval policy or the user.
fn outcome_of(output: &str, wants: Wants) -> (ToolStatus<'static>, Effect) {
    #[derive(Deserialize)]
    struct Old {
        #[serde(default)]
        metadata: Object<OldMeta>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct OldMeta {
        exit_code: Num,
    }
    let exit_code = output
        .find("Process exited with code ")
        .and_then(|at| {
            output[at + 25..]
                .split(|c: char| !c.is_ascii_digit() && c != '-')
                .next()?
                .parse::<i64>()
                .ok()
        })
        .or_else(|| {
            crate::input::json::from_str::<Old>(output)
                .ok()
                .and_then(|o| o.metadata.0?.exit_code.as_i64())
        });
    let refused = output.starts_with("approval policy")
        || output.contains("rejected by user")
        || output.starts_with("exec command rejected");
    let status = if refused {
        ToolStatus::new("rejected", StatusClass::Rejected)
    } else if exit_code.is_some_and(|c| c != 0) {
        ToolStatus::new("failed", StatusClass::Failed)
    } else {
        ToolStatus::success()
    };
    let effect = if wants.has(Wants::TOOL_DETAILS) {
        Effect {
            exit_code,
            error: (status.class != StatusClass::Ok).then(|| crate::out::one_line(output, 200)),
            ..Effect::default()
        }
    } else {
        Effect::default()
    };
    (status, effect)
}

/// What the user typed, from a prompt as Codex logs it: without the context its IDE
/// extension writes before the request (`# Context from my IDE setup:` … `## My request
/// for Codex:`), and without the `<environment_context>` and `<user_instructions>` Codex
/// adds. `None` when no words are left.
fn users_words(prompt: &str) -> Option<String> {
    const IDE: &str = "# Context from my IDE setup:";
    const REQUEST: &str = "## My request for Codex:";
    let request = match prompt.find(REQUEST) {
        Some(at) if prompt.trim_start().starts_with(IDE) => &prompt[at + REQUEST.len()..],
        _ => prompt,
    };
    without_elements(request, &["environment_context", "user_instructions"])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_is_the_request_without_the_ides_context() {
        let ide = "# Context from my IDE setup:\n\n## Open tabs:\n- a.ts: a.ts\n\n## My request for Codex:\nIs this done?\n";
        assert_eq!(users_words(ide).as_deref(), Some("Is this done?"));
        let plain = "Explain ## My request for Codex: as a heading";
        assert_eq!(users_words(plain).as_deref(), Some(plain));
        let context =
            "<environment_context>\n  <cwd>/w</cwd>\n</environment_context>\nfix the test";
        assert_eq!(users_words(context).as_deref(), Some("fix the test"));
    }

    #[test]
    fn exit_codes_and_refusals_are_read_from_the_output() {
        let ok = "Chunk ID: 1\nProcess exited with code 0\nOutput:\nhi\n";
        assert_eq!(outcome_of(ok, Wants::ALL).0.class, StatusClass::Ok);
        let failed = outcome_of("Process exited with code 3\n", Wants::ALL);
        assert_eq!(failed.0.class, StatusClass::Failed);
        assert_eq!(failed.1.exit_code, Some(3));
        let old = r#"{"output":"x","metadata":{"exit_code":2,"duration_seconds":0.1}}"#;
        assert_eq!(outcome_of(old, Wants::ALL).1.exit_code, Some(2));
        let refused = "approval policy is Never; reject command — you cannot ask";
        assert_eq!(
            outcome_of(refused, Wants::ALL).0.class,
            StatusClass::Rejected
        );
    }

    #[test]
    fn usage_is_the_increase_of_the_total() {
        let base = Tokens([1000, 200, 0, 70, 0]);
        let now = Tokens([2003, 403, 0, 143, 10]);
        let u = now.since(Some(base));
        assert_eq!(
            (u.input, u.cache_read, u.output, u.reasoning),
            (800, 203, 73, Some(10))
        );
    }
}

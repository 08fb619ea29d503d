//! Codex's session logs, the rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`
//! (`$CODEX_HOME`; `archived_sessions/` after `codex archive`; `.jsonl.zst` once compressed,
//! read through `stores::open`). One session a file, every turn of it, interactive ones
//! included. Notes: `../shared/spec/stores.md` §2.2, `tests/fixtures/recorded/STORES.md`;
//! the shapes, version by version: `spec.rs`, `tests/fixtures/history/codex/VERSIONS.md`.
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
//! Before 0.3x a rollout had no envelope: a header `{"id":"<session>","timestamp":"…",
//! "instructions":…}`, then the response items bare (`{"type":"message",…}`), and
//! `{"record_type":"state"}` after each turn; no time, model or tokens.
//!
//! | normalized | from |
//! |---|---|
//! | session | the first `session_meta` (the header before 0.3x), even where it comes after the run started (a file that starts mid-turn); a file with no prompt is still a session |
//! | working directory | the `session_meta`'s, then each `turn_context`'s; before 0.3x the `<cwd>` of the `<environment_context>` Codex adds |
//! | run start | the prompt: `event_msg` `user_message` (before 0.148) or `item_completed` of a `UserMessage`; before 0.3x the `user` message items (but the context Codex adds); the `user` messages of `response_item`s carry that context since, and are not read |
//! | text | `response_item` `message`s of the assistant, each a segment (the `event_msg` copies are not read) |
//! | thinking | `response_item` `reasoning` summaries |
//! | tool calls | `function_call`, `custom_tool_call`, `local_shell_call` → their `…_output` by `call_id` (how it went from the output, [`calls`]), timed by their lines; `web_search_call` whole |
//! | notices | `event_msg` `error`, `stream_error` |
//! | run end | `task_complete` (failed when it carries an `error`, or follows one with no answer); before `task_started` was written (0.6x), a run whose model's last item is its answer succeeded (the next prompt, or the end of the file, after it); `turn_aborted` (the run's items written after it stay its), an `error`, or a log that stops mid-turn are no success |
//! | usage | each response's `token_usage_record` (0.16x on); before those, what the cumulative `token_count`s add ([`counts`]) |
//! | rate limits | `token_count`'s `rate_limits`, each window by its length ([`limits`]) |
//! | a fork | its parent's `session_meta` and history come after its own `session_meta`, written when it was made: neither runs nor tokens of the fork's ([`replay`]) |
//! | final answer | `task_complete`'s `last_agent_message`; before it, the answer that ended the run |

mod calls;
mod counts;
mod limits;
mod replay;

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::TurnUsage;
use crate::agent::event::{
    Agent, Billed, Effect, Event, Notice, NoticeKind, Outcome, RunEnd, RunInfo, ToolCall,
    ToolEndRaw, ToolKind, ToolStatus, Usage, Wants,
};
use crate::agent::tools;
use crate::agent::wire::without_elements;
use crate::agent::{Class, Dialect, RawLine, Sink};
use crate::input::json::{MaybeStr, plain_value, rfc3339_ms};
use crate::input::lenient::Object;
use crate::input::peek::{Head, NameId, fast_paths};
use crate::out::diag::{Unreadable, unreadable};
use counts::{Counts, Tokens};
use replay::{Marks, Replay};

#[derive(Default)]
pub(crate) struct Rollout {
    /// The file's own session id: its first `session_meta`'s (the header's before 0.3x).
    session: Option<String>,
    cwd: Option<String>,
    model: Option<String>,
    /// When the file started, and the time of its last line: what a file with no run is
    /// listed by.
    started_ms: Option<u64>,
    seen_ms: Option<u64>,
    /// A run started in the file.
    ran: bool,
    /// A rollout of before 0.3x: a header, then bare response items.
    bare: bool,
    /// The file writes `task_started`: a run ends with its `task_complete`, not with an
    /// answer.
    tasks: bool,
    counts: Counts,
    replay: Replay,
    /// The open run's.
    turn: Turn,
    /// A tool's arguments, parsed out of their string, for the call being read.
    args: Option<Box<RawValue>>,
}

/// What the open run said of how it ends, and the tokens it used.
#[derive(Default)]
struct Turn {
    /// Its responses' own usage came (`token_usage_record`, 0.16x on), which counts each
    /// response once whatever the `token_count`s say (the first may come after the tool's
    /// output, or never, when Codex is killed).
    records: bool,
    /// What its cumulative counts added, each with its time: its tokens where no
    /// `token_usage_record` comes.
    increases: Vec<(Usage, Option<u64>)>,
    /// An error it reported, which fails it unless it completes with an answer.
    error: Option<String>,
    /// It was aborted (`turn_aborted`): no success, whatever comes after.
    aborted: bool,
    /// The model's last item was its answer: that answer (its text when the view wants
    /// the final answer).
    answer: Option<String>,
    /// The time of its last line.
    last_ms: Option<u64>,
}

impl Turn {
    fn reset(&mut self) {
        self.records = false;
        self.increases.clear();
        self.error = None;
        self.aborted = false;
        self.answer = None;
        self.last_ms = None;
    }
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

/// An `event_msg`'s or a `response_item`'s payload (a bare item before 0.3x): the fields
/// this dialect reads.
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
    item: Option<&'a RawValue>,
    #[serde(borrow)]
    thread_id: MaybeStr<'a>,
    info: Object<Info>,
    #[serde(borrow)]
    rate_limits: Option<&'a RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Info {
    total_token_usage: Object<TurnUsage>,
    last_token_usage: Object<TurnUsage>,
}

impl Payload<'_> {
    fn is(&self, kind: &str) -> bool {
        self.kind.as_deref() == Some(kind)
    }

    /// What the line says that ends a fork's replay of its parent.
    fn marks(&self, own: Option<&str>) -> Marks {
        Marks {
            starts_turn: self.is("task_started"),
            ends_turn: self.is("task_complete") || self.is("turn_aborted"),
            own_thread: self.is("thread_settings_applied")
                && own.is_some_and(|own| self.thread_id.as_deref() == Some(own)),
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
            // Before 0.3x, the response items bare (`function_call` and the others are
            // names no agent's stream has).
            NameId::MESSAGE | NameId::REASONING | NameId::OTHER => Class::message(Wants::ALL),
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
            let at_ms = rfc3339_ms(timestamp);
            if !self.replayed(at_ms, Marks::default()) {
                self.seen_at(at_ms, sink);
            }
            return Ok(());
        }
        if matches!(
            head.name,
            NameId::MESSAGE | NameId::REASONING | NameId::OTHER
        ) {
            return self.bare_item(line, head, sink);
        }
        let parsed: Line = match crate::input::json::from_line(line.bytes) {
            Ok(l) => l,
            Err(e) => return sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        };
        let Some(payload) = parsed.payload else {
            return Ok(());
        };
        let at_ms = parsed.timestamp.as_deref().and_then(rfc3339_ms);
        match head.name {
            NameId::SESSION_META => self.meta(payload, at_ms, sink),
            NameId::TURN_CONTEXT if !self.replayed(at_ms, Marks::default()) => {
                self.context(payload, sink)
            }
            NameId::TOKEN_USAGE_RECORD if !self.replayed(at_ms, Marks::default()) => {
                self.usage_record(line, payload, at_ms, sink)
            }
            NameId::EVENT_MSG | NameId::RESPONSE_ITEM => {
                let p: Payload = match crate::input::json::from_str(payload.get()) {
                    Ok(p) => p,
                    Err(e) => {
                        return sink.unreadable(Unreadable::of(head.name), line.bytes, &e);
                    }
                };
                if self.replayed(at_ms, p.marks(self.session.as_deref())) {
                    self.replayed_count(&p);
                    return Ok(());
                }
                self.seen_at(at_ms, sink);
                if head.name == NameId::EVENT_MSG {
                    self.event(p, at_ms, sink)
                } else {
                    self.item(p, at_ms, sink)
                }
            }
            _ => Ok(()),
        }
    }

    /// Before 0.3x: the header (the session's id and start), and the state kept after
    /// each turn.
    fn untyped<S: Sink>(&mut self, line: &RawLine<'_>, _sink: &mut S) -> anyhow::Result<bool> {
        #[derive(Deserialize)]
        struct Header<'a> {
            #[serde(borrow, default)]
            id: MaybeStr<'a>,
            #[serde(borrow, default)]
            timestamp: MaybeStr<'a>,
            #[serde(borrow, default)]
            record_type: MaybeStr<'a>,
        }
        let Ok(h) = crate::input::json::from_line::<Header>(line.bytes) else {
            return Ok(false);
        };
        if h.record_type.0.is_some() {
            return Ok(true);
        }
        let (Some(id), Some(at)) = (h.id.0, h.timestamp.as_deref()) else {
            return Ok(false);
        };
        self.bare = true;
        if self.session.is_none() {
            self.session = Some(id.into_owned());
            self.started_ms = rfc3339_ms(at);
            self.seen_ms = self.started_ms;
        }
        Ok(true)
    }

    fn reset(&mut self) {
        self.turn.reset();
        self.args = None;
    }

    /// The input ended: the open run with it; a file that held no run is still a
    /// session (opened, and nothing sent; or a fork with nothing of its own yet).
    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.close(sink)?;
        if !self.ran
            && let Some(id) = &self.session
        {
            let info = RunInfo {
                session_id: Some(id.clone()),
                model: self.model.clone(),
                cwd: self.cwd.clone(),
                started_ms: self.started_ms,
                ..RunInfo::new(Agent::Codex)
            };
            sink.empty_session(&info, self.seen_ms);
        }
        Ok(())
    }

    fn start_afresh(&mut self) {
        *self = Rollout::default();
    }
}

impl Rollout {
    /// A line at `at_ms` that says `marks`: whether it is a fork's replay of its parent.
    /// The file's own lines go on from its `session_meta`: no replay comes after them.
    fn replayed(&mut self, at_ms: Option<u64>, marks: Marks) -> bool {
        self.seen_ms = self.seen_ms.max(at_ms);
        if self.session.is_some() && !self.replay.replaying() {
            self.replay.none();
        }
        self.replay.line(at_ms, marks)
    }

    /// A line of the run's own at `at_ms`: its last activity.
    fn seen_at<S: Sink>(&mut self, at_ms: Option<u64>, sink: &S) {
        if sink.run_open() && at_ms.is_some() {
            self.turn.last_ms = at_ms.max(self.turn.last_ms);
        }
    }

    /// A `session_meta`: the file's own (its first), its parent's (a fork's replay starts),
    /// or its own again (a resume appends to the file, 0.145).
    fn meta<S: Sink>(
        &mut self,
        payload: &RawValue,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let meta: Meta = crate::input::json::from_str(payload.get()).unwrap_or_default();
        self.seen_ms = self.seen_ms.max(at_ms);
        let Some(id) = meta.id.0 else { return Ok(()) };
        match &self.session {
            None => {
                // A file that starts mid-turn names its session after the run started.
                if sink.run_open() {
                    sink.session_seen(&id);
                }
                self.session = Some(id.into_owned());
                self.started_ms = at_ms;
                if self.cwd.is_none() {
                    self.cwd = meta.cwd.0.map(Cow::into_owned);
                }
            }
            Some(own) if *own != id => self.replay.start(at_ms),
            Some(_) => {}
        }
        Ok(())
    }

    /// A `turn_context`: the model and working directory of what follows.
    fn context<S: Sink>(&mut self, payload: &RawValue, sink: &mut S) -> anyhow::Result<()> {
        let meta: Meta = crate::input::json::from_str(payload.get()).unwrap_or_default();
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

    /// A `token_usage_record`: one response's own usage (0.16x on).
    fn usage_record<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        payload: &RawValue,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
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
        self.turn.records = true;
        sink.event(Event::Billed(&Billed {
            usage: Tokens::of(&u).usage(),
            model: self.model.as_deref(),
            at_ms,
            id: r.response_id.as_deref(),
        }))
    }

    /// A replayed count: what the fork's own counts go on from.
    fn replayed_count(&mut self, p: &Payload<'_>) {
        if p.is("token_count")
            && let Some(total) = p
                .info
                .0
                .as_ref()
                .and_then(|i| i.total_token_usage.0.as_ref())
        {
            self.counts.replayed(Tokens::of(total));
        }
    }

    fn event<S: Sink>(
        &mut self,
        p: Payload<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        match p.kind.as_deref().unwrap_or("") {
            "task_started" => {
                self.tasks = true;
                Ok(())
            }
            "user_message" => {
                let prompt = p.message.as_deref().unwrap_or("").to_string();
                self.prompt(prompt, at_ms, sink)
            }
            "item_completed" => {
                let Some(item) = p.item else { return Ok(()) };
                let item: Payload = crate::input::json::from_str(item.get()).unwrap_or_default();
                if !item.is("UserMessage") {
                    return Ok(());
                }
                let prompt = texts(item.content, &["text"]);
                self.prompt(prompt, at_ms, sink)
            }
            "task_complete" => self.task_complete(p, sink),
            "turn_aborted" => {
                // The run stays open: what was written after the abort is still its.
                self.turn.aborted = sink.run_open();
                Ok(())
            }
            "error" | "stream_error" => self.notice(p, sink),
            "token_count" => {
                if let Some(rate_limits) = p.rate_limits
                    && sink.wants().has(Wants::LIMITS)
                {
                    for limit in limits::limits(rate_limits, at_ms) {
                        sink.event(Event::Limit(&limit))?;
                    }
                }
                self.token_count(p, at_ms, sink)
            }
            _ => Ok(()),
        }
    }

    /// `task_complete`: the run succeeded, unless it carries an error, or an error came
    /// and no answer (0.121: a model call failed, then the turn completed with nothing).
    fn task_complete<S: Sink>(&mut self, p: Payload<'_>, sink: &mut S) -> anyhow::Result<()> {
        let reported = self.turn.error.take();
        let last = p.last_agent_message.0;
        let outcome = match (p.error.and_then(error_text), reported) {
            (Some(reason), _) => Outcome::Failed { reason },
            (None, Some(reason)) if last.is_none() => Outcome::Failed { reason },
            _ => Outcome::Succeeded,
        };
        self.end(outcome, last.as_deref().map(str::as_bytes), sink)
    }

    fn notice<S: Sink>(&mut self, p: Payload<'_>, sink: &mut S) -> anyhow::Result<()> {
        let text = p.message.as_deref().unwrap_or("error").to_string();
        let error = p.is("error");
        if sink.run_open() && sink.wants().has(Wants::NOTICES) {
            let kind = if error {
                NoticeKind::Error
            } else {
                NoticeKind::Retry
            };
            sink.event(Event::Notice(&Notice {
                kind,
                text: Cow::Borrowed(&text),
            }))?;
        }
        if error && sink.run_open() {
            self.turn.error.get_or_insert(text);
        }
        Ok(())
    }

    /// A cumulative `token_count`: within a run, what it adds is the run's; outside one,
    /// only what later counts go on from.
    fn token_count<S: Sink>(
        &mut self,
        p: Payload<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let Some(info) = p.info.0 else { return Ok(()) };
        let Some(total) = info.total_token_usage.0 else {
            return Ok(());
        };
        let total = Tokens::of(&total);
        if !sink.run_open() {
            self.counts.replayed(total);
            return Ok(());
        }
        let last = info.last_token_usage.0.map(|l| Tokens::of(&l));
        if let Some(increase) = self.counts.own(total, last) {
            self.turn.increases.push((increase, at_ms));
        }
        Ok(())
    }

    /// A prompt: the open run ends (the log went on without completing it), the prompt's
    /// starts.
    fn prompt<S: Sink>(
        &mut self,
        prompt: String,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.close(sink)?;
        let started_ms = match at_ms {
            // Before 0.3x no line but the header has a time: the first run started with
            // the file.
            None if self.bare && !self.ran => self.started_ms,
            at => at,
        };
        self.ran = true;
        self.turn.last_ms = at_ms;
        sink.start_run(RunInfo {
            session_id: self.session.clone(),
            model: self.model.clone(),
            cwd: self.cwd.clone(),
            prompt: users_words(&prompt),
            started_ms,
            ..RunInfo::new(Agent::Codex)
        })
    }

    /// The open run ends where no `task_complete` ended it: failed by an error it
    /// reported; a success where the file writes no `task_complete` and the model's last
    /// item was its answer; else no result.
    fn close<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        let turn = &mut self.turn;
        let (outcome, answer) = match (turn.error.take(), turn.answer.take()) {
            _ if turn.aborted => (Outcome::NoEnd, None),
            (Some(reason), _) => (Outcome::Failed { reason }, None),
            (None, Some(answer)) if !self.tasks => (Outcome::Succeeded, Some(answer)),
            _ => (Outcome::NoEnd, None),
        };
        self.end(outcome, answer.as_deref().map(str::as_bytes), sink)
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
        if !self.turn.records {
            for (usage, at_ms) in std::mem::take(&mut self.turn.increases) {
                sink.event(Event::Billed(&Billed {
                    usage,
                    model: self.model.as_deref(),
                    at_ms,
                    id: None,
                }))?;
            }
        }
        let last_ms = self.turn.last_ms;
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

    /// A line of a rollout of before 0.3x: a response item, bare.
    fn bare_item<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if !self.bare {
            // A record of a later release this dialect does not know.
            return Ok(());
        }
        match crate::input::json::from_line::<Payload>(line.bytes) {
            Ok(p) => self.item(p, None, sink),
            Err(e) => sink.unreadable(Unreadable::of(head.name), line.bytes, &e),
        }
    }

    fn item<S: Sink>(
        &mut self,
        p: Payload<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let kind = p.kind.as_deref().unwrap_or("");
        if self.bare && kind == "message" && p.role.as_deref() == Some("user") {
            return self.bare_prompt(p, sink);
        }
        if !sink.run_open() {
            // Before the first prompt: the context Codex adds.
            return Ok(());
        }
        let wants = sink.wants();
        match kind {
            "message" if p.role.as_deref() == Some("assistant") => self.answer(p, sink),
            "reasoning" => {
                self.turn.answer = None;
                if !wants.has(Wants::THINKING) {
                    return Ok(());
                }
                let text = texts(p.summary, &["summary_text"]);
                let text = if wants.has(Wants::THINKING_TEXT) {
                    text.as_bytes()
                } else {
                    b""
                };
                sink.event(Event::Thinking { text, done: true })
            }
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                self.turn.answer = None;
                self.call(p, at_ms, sink)
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                self.output(p, at_ms, sink)
            }
            "web_search_call" => {
                self.turn.answer = None;
                self.web_search(p, sink)
            }
            _ => Ok(()),
        }
    }

    /// A `user` message item before 0.3x: the prompt, or the context Codex adds (the
    /// working directory in it).
    fn bare_prompt<S: Sink>(&mut self, p: Payload<'_>, sink: &mut S) -> anyhow::Result<()> {
        let text = texts(p.content, &["input_text", "text"]);
        let context = text.trim_start();
        if let Some(env) = context.strip_prefix("<environment_context>") {
            if self.cwd.is_none() {
                self.cwd = element(env, "cwd").map(str::to_string);
            }
            return Ok(());
        }
        if context.starts_with("<user_instructions>") {
            return Ok(());
        }
        self.prompt(text, None, sink)
    }

    /// An assistant message: a segment of the answer, and the answer so far.
    fn answer<S: Sink>(&mut self, p: Payload<'_>, sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        if !wants.intersects(Wants::TEXT | Wants::FINAL) {
            self.turn.answer = Some(String::new());
            return Ok(());
        }
        let text = texts(p.content, &["output_text", "text"]);
        if wants.has(Wants::TEXT) {
            sink.event(Event::Segment)?;
            sink.event(Event::Text(text.as_bytes()))?;
        }
        self.turn.answer = Some(if wants.has(Wants::FINAL) {
            text
        } else {
            String::new()
        });
        Ok(())
    }

    /// A tool call, at the time of its line.
    fn call<S: Sink>(
        &mut self,
        p: Payload<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
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
        let target = match call.target {
            Some(t) => Some(t.into_owned()),
            None if wants.has(Wants::TOOL_DETAILS) => {
                calls::target(&call.tool, p.arguments.as_deref(), p.input.as_deref())
            }
            None => None,
        };
        sink.tool_started(ToolCall {
            args: call.args.map(|a| Cow::Owned(a.into_owned())),
            target: target.map(Cow::Owned),
            at_ms,
            ..call
        })
    }

    /// A tool call's output, at the time of its line.
    fn output<S: Sink>(
        &mut self,
        p: Payload<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
        if !wants.has(Wants::TOOLS) {
            return Ok(());
        }
        let output = p.output.map(calls::output_text).unwrap_or_default();
        let (status, effect) = calls::outcome_of(&output, wants);
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
            ended_ms: at_ms,
        })
    }

    /// A web search, whole in one item.
    fn web_search<S: Sink>(&mut self, p: Payload<'_>, sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        if !wants.has(Wants::TOOLS) {
            return Ok(());
        }
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
}

/// The text of the first `<name>…</name>` element in `text`, trimmed.
fn element<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let start = text.find(&open)? + open.len();
    let len = text[start..].find(&close)?;
    Some(text[start..start + len].trim()).filter(|s| !s.is_empty())
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
}

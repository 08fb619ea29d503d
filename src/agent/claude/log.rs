//! Claude Code's session logs: `~/.claude/projects/<cwd-slug>/<session>.jsonl`
//! (`$CLAUDE_CONFIG_DIR/projects`), one file per session, interactive sessions included.
//! The notes are `../shared/spec/stores.md` §2.1 and the recorded fixtures'
//! `tests/fixtures/recorded/STORES.md`.
//!
//! ```text
//! {"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"…","version":"2.1.x","type":"user","message":{"role":"user","content":"<prompt>"},"uuid":"…","timestamp":"…"}
//! {"parentUuid":"…",…,"message":{"id":"msg_…","model":"claude-…","content":[{"type":"text","text":"…"}],"usage":{…}},"requestId":"req_…","type":"assistant",…}
//! {"parentUuid":"…",…,"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_…","content":"…"}]},"toolUseResult":{…},…}
//! ```
//!
//! The messages are the stream's (`assistant`, `user`), read by the stream's dialect
//! ([`Claude`]); what differs is around them:
//!
//! | normalized | from |
//! |---|---|
//! | run start | a `user` message in the user's words: a prompt (a session is one run per prompt); not a tool result, not `isMeta` (caveats, a command's expansion), not `isCompactSummary`, not an interruption; a slash command starts one only when the model answers it |
//! | text, thinking, tools | as in the stream (one line per content block; the tool result in the next `user` message) |
//! | run end | the next prompt, or the end of the file: success when the run's last word was the model's text; failed when it was the CLI's `isApiErrorMessage` answer; no result when the log stops mid-turn (a tool call or its result last, an interruption) |
//! | usage | each response's `message.usage`, once per `message.id` + `requestId` (every block's line repeats it; the largest is kept) |
//! | final answer | the text of the run's last message |
//!
//! A sub-agent's messages (`isSidechain`) inline in the file (before 2.1) belong to the
//! open `Task`/`Agent` call; a file that starts with them (`subagents/agent-*.jsonl`) is
//! the sub-agent's own log, read as a session of its own.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt::Display;
use std::hash::{BuildHasher, RandomState};

use super::wire::{self, MessageUsage};
use super::{Claude, Dialect};
use crate::agent::event::{
    Agent, Billed, Event, Notice, NoticeKind, Outcome, RunEnd, RunInfo, ToolCall, ToolEndRaw,
    ToolKind, Wants,
};
use crate::agent::{Class, RawLine, Sink};
use crate::input::json::rfc3339_ms;
use crate::input::peek::{Head, NameId};
use crate::out::diag::{Unreadable, unreadable};

pub(crate) struct ClaudeLog {
    /// The messages' reading, shared with the stream's dialect.
    inner: Claude,
    state: State,
    /// What the file says of its session, whatever run is open.
    file: FileFacts,
    /// The main agent's message ids in this log (hashed), whose sub-agent copies are not
    /// counted again.
    messages: HashSet<u64>,
    hasher: RandomState,
}

impl Default for ClaudeLog {
    fn default() -> Self {
        ClaudeLog {
            inner: Claude::new(Agent::Claude),
            state: State::default(),
            file: FileFacts::default(),
            messages: HashSet::new(),
            hasher: RandomState::new(),
        }
    }
}

/// What a log file says of its session: a session is its file (its lines may carry
/// another session's id: the first prompt after "clear context", a compaction's
/// summary, a resumed session's copied prompt).
#[derive(Default)]
struct FileFacts {
    /// The session id the file's name gives (`<uuid>.jsonl`, a sub-agent's
    /// `agent-<id>.jsonl`); else the lines' own.
    session: Option<String>,
    /// The file's name, as given.
    name: String,
    /// The `sessionId` and `cwd` of the first message that has each, and the time of
    /// the last record read.
    first_session: Option<String>,
    first_cwd: Option<String>,
    last_ms: Option<u64>,
    /// A run was opened in this file.
    runs: bool,
}

impl FileFacts {
    fn seen(&mut self, msg: &wire::Message<'_>, at_ms: Option<u64>) {
        if self.first_session.is_none() {
            self.first_session = msg.session_id.as_deref().map(str::to_owned);
        }
        if self.first_cwd.is_none() {
            self.first_cwd = msg.cwd.as_deref().map(str::to_owned);
        }
        self.last_ms = self.last_ms.max(at_ms);
    }

    /// The session a run read from `msg` is of.
    fn session_of(&self, msg: &wire::Message<'_>) -> Option<String> {
        self.session
            .clone()
            .or_else(|| msg.session_id.as_deref().map(str::to_owned))
    }
}

/// What the log says so far of the open run.
#[derive(Default)]
struct State {
    last: Last,
    /// The text of the run's last message so far (its final answer).
    answer: Vec<u8>,
    /// The response whose usage is being read: a hash of its `message.id` and
    /// `requestId`, and the largest usage its lines gave, told when the next begins.
    response: Option<(u64, Response)>,
    /// The time of the run's last record.
    last_ms: Option<u64>,
    /// Whether the file is a sub-agent's own log (its first message is a sidechain's).
    sidechain_file: Option<bool>,
    /// The `Task`/`Agent` calls still open: inline sidechain messages belong to the last.
    tasks: Vec<String>,
    /// The sub-agents whose result came, by agent id, with the call that started each.
    agents: Vec<(String, String)>,
    /// The tool calls the run made (a result whose call is not in the log, cut before
    /// it, is no call of the run's).
    calls: HashSet<String>,
    /// The model the run's last answer named.
    model: Option<String>,
    /// A slash command, waiting to see whether the model answers it.
    command: Option<RunInfo>,
}

/// The run's last word, which says how it ended.
#[derive(Default, Debug, Clone, PartialEq)]
enum Last {
    #[default]
    Nothing,
    /// The prompt, or a tool's result: the model's turn.
    Waiting,
    /// The model's text.
    Text,
    /// A tool call, not yet answered.
    Tool,
    /// The CLI's answer for a failed model call.
    ApiError(String),
    /// The user interrupted the turn.
    Interrupted,
}

impl Dialect for ClaudeLog {
    fn agent(&self) -> Agent {
        Agent::Claude
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::USER | NameId::ASSISTANT => Class::message(Wants::ALL),
            NameId::SYSTEM => Class::noise(Wants::NOTICES),
            // Small and rare, and `sessions` shows them whatever it asked for.
            NameId::SUMMARY | NameId::AI_TITLE | NameId::CUSTOM_TITLE => {
                Class::message(Wants::NONE)
            }
            NameId::FILE_HISTORY_SNAPSHOT
            | NameId::QUEUE_OPERATION
            | NameId::ATTACHMENT
            | NameId::PROGRESS
            | NameId::LAST_PROMPT => Class::noise(Wants::NONE),
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
        match head.name {
            NameId::USER | NameId::ASSISTANT => self.message_line(line, head.name, sink),
            NameId::SYSTEM => self.system(line, head, sink),
            NameId::SUMMARY | NameId::AI_TITLE | NameId::CUSTOM_TITLE => {
                title(line, head.name, sink);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn input_named(&mut self, name: &str) {
        self.file = FileFacts {
            session: super::store::session_of_file(name),
            name: name.to_owned(),
            ..FileFacts::default()
        };
    }

    fn reset(&mut self) {
        self.inner.reset();
        let sidechain_file = self.state.sidechain_file;
        self.state = State {
            sidechain_file,
            ..State::default()
        };
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.end_run(sink)?;
        self.reset();
        if !std::mem::replace(&mut self.file.runs, true) {
            self.empty_session(sink);
        }
        Ok(())
    }

    fn start_afresh(&mut self) {
        self.state.sidechain_file = None;
        self.messages.clear();
        self.file = FileFacts {
            session: self.file.session.take(),
            name: std::mem::take(&mut self.file.name),
            ..FileFacts::default()
        };
    }
}

/// A title record: a `summary` titles the session that holds the line it names
/// (wherever that is; one that names none titles no session), the others the session
/// being read. Read for a view that shows titles only.
fn title<S: Sink>(line: &RawLine<'_>, name: NameId, sink: &mut S) {
    if !sink.wants().has(Wants::TITLES) {
        return;
    }
    let Some(title) = wire::read_title(line.bytes) else {
        return;
    };
    match (name, title.leaf) {
        (NameId::SUMMARY, Some(leaf)) => sink.title_of_line(&leaf, &title.text),
        (NameId::SUMMARY, None) => {}
        _ => sink.title(None, &title.text),
    }
}

impl ClaudeLog {
    fn message_line<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        name: NameId,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if name == NameId::USER && self.results_unread(line.bytes, sink) {
            // All they tell is that the model's turn goes on.
            self.state.last = Last::Waiting;
            if sink.wants().has(Wants::TITLES)
                && let Some(id) = crate::agent::store::uuid_of(line.bytes)
            {
                sink.line_id(id);
            }
            return Ok(());
        }
        let what = if name == NameId::ASSISTANT {
            unreadable!("assistant")
        } else {
            unreadable!("user")
        };
        let mut msg = match wire::read_message(line.bytes) {
            Ok(msg) => msg,
            Err(e) => return sink.unreadable(what, line.bytes, &e),
        };
        let at_ms = msg.timestamp.as_deref().and_then(rfc3339_ms);
        self.file.seen(&msg, at_ms);
        let nested = self.nest(&mut msg);
        let read_on = match name {
            NameId::USER if !nested => self.user_message(&msg, at_ms, sink)?,
            NameId::ASSISTANT if !nested => self.main_answer(&msg, at_ms, sink)?,
            _ => true,
        };
        if read_on {
            self.blocks(&msg, what, line, name, nested, sink)?;
        }
        if !nested
            && sink.run_open()
            && sink.wants().has(Wants::TITLES)
            && let Some(id) = msg.uuid.as_deref()
        {
            sink.line_id(id);
        }
        Ok(())
    }

    /// Tool results of the main agent, for a view that shows no tools, told without a
    /// parse (their content, often most of the log, would be read twice over).
    fn results_unread<S: Sink>(&self, line: &[u8], sink: &S) -> bool {
        self.state.sidechain_file == Some(false)
            && !sink.wants().has(Wants::TOOLS)
            && sink.run_open()
            && self.state.command.is_none()
            && wire::main_tool_results(line)
    }

    /// Whether the message is a sub-agent's inside its parent's log (inline before 2.1;
    /// spliced in from `subagents/` by the store after): then it belongs to the call that
    /// started the sub-agent, told by the agent id its result named, else the open task's.
    fn nest(&mut self, msg: &mut wire::Message<'_>) -> bool {
        let sidechain = msg.is_sidechain.0 == Some(true);
        let sidechain_file = *self.state.sidechain_file.get_or_insert(sidechain);
        let nested = sidechain && !sidechain_file;
        if nested {
            let by_agent = msg.agent_id.as_deref().and_then(|a| {
                self.state
                    .agents
                    .iter()
                    .find(|(agent, _)| agent == a)
                    .map(|(_, call)| call.clone())
            });
            let task = by_agent.or_else(|| self.state.tasks.last().cloned());
            msg.parent_tool_use_id.0 = Some(Cow::Owned(task.unwrap_or_default()));
        }
        nested
    }

    /// A main-agent `user` message: a prompt, a command or what it printed, an
    /// interruption, a command's expansion; `true` when it holds tool results, read on.
    fn user_message<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<bool> {
        match said_by_user(msg) {
            Said::Prompt(prompt) => self.prompt(msg, prompt, at_ms, false, sink)?,
            Said::Command(prompt) => self.prompt(msg, prompt, at_ms, true, sink)?,
            Said::CommandOutput => self.state.command = None,
            Said::Interrupted => {
                self.open_command(sink)?;
                self.state.last = Last::Interrupted;
                self.seen(at_ms);
            }
            // A command's expansion: the model is asked, the command is a run.
            Said::Meta => self.open_command(sink)?,
            Said::ToolResults => return Ok(true),
        }
        Ok(false)
    }

    /// A main-agent answer: the model's (its model noted), or the CLI's own (`<synthetic>`:
    /// a failed call's error, or a 'No response requested.' that answers nothing);
    /// `true` when its blocks are read on.
    fn main_answer<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<bool> {
        let synthetic = msg.model.as_deref() == Some("<synthetic>");
        if msg.is_api_error.0 == Some(true) {
            // No run of a slash command: only the model's answer makes one.
            self.state.command = None;
            self.ensure_open(msg, at_ms, sink)?;
            self.seen(at_ms);
            let text = msg.content.and_then(wire::first_text).unwrap_or_default();
            self.state.last = Last::ApiError(text);
            return Ok(false);
        }
        if synthetic {
            return Ok(false);
        }
        self.open_command(sink)?;
        self.ensure_open(msg, at_ms, sink)?;
        if let Some(model) = msg.model.as_deref() {
            self.model(model, sink);
        }
        Ok(true)
    }

    /// The model of the run's answers: the last one named (after a fallback or a
    /// `/model` switch inside a run, the later one).
    fn model<S: Sink>(&mut self, model: &str, sink: &mut S) {
        match self.state.model.as_deref() {
            Some(known) if known == model => return,
            Some(_) => sink.model_changed(model),
            None => sink.model_seen(model),
        }
        self.state.model = Some(model.to_owned());
    }

    /// A message's content blocks: text, tools, usage.
    fn blocks<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        what: Unreadable,
        line: &RawLine<'_>,
        name: NameId,
        nested: bool,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.open_command(sink)?;
        let at_ms = msg.timestamp.as_deref().and_then(rfc3339_ms);
        self.ensure_open(msg, at_ms, sink)?;
        if name == NameId::ASSISTANT {
            // A run's last activity is its prompt's time, or its last model message's: a
            // tool result's is not looked at (it is read without a parse where it can).
            self.seen(at_ms);
            self.count_usage(msg, nested, line.bytes, sink)?;
        }
        let wants = sink.wants();
        if name == NameId::USER && !nested && !wants.has(Wants::TOOLS) {
            // Tool results, for a view that shows no tools (as above).
            self.state.last = Last::Waiting;
            return Ok(());
        }
        let result_of_agent = wire::agent_of_result(msg.tool_use_result);
        let mut tap = Tap {
            sink,
            state: &mut self.state,
            wants,
            nested,
            result_of_agent,
        };
        self.inner.message(msg, what, line, name, &mut tap)
    }

    /// A run is open: the prompt's, or, in a log cut at the front (its first run's prompt
    /// gone, a compaction's continuation, a sub-agent's own log), one of its own.
    fn ensure_open<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        at_ms: Option<u64>,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if sink.run_open() {
            return Ok(());
        }
        self.file.runs = true;
        self.state.last_ms = at_ms;
        sink.start_run(RunInfo {
            session_id: self.file.session_of(msg),
            cwd: msg.cwd.as_deref().map(str::to_owned),
            started_ms: at_ms,
            ..RunInfo::new(Agent::Claude)
        })
    }

    /// A log that holds no run (only titles for other sessions, a local command, a copy
    /// of the session it resumed and nothing more): its session all the same. Where no
    /// message was read (a copy's lines are left to the log it copies), the file's first
    /// and last records say where and when.
    fn empty_session<S: Sink>(&mut self, sink: &mut S) {
        let file = &self.file;
        let Some(session) = file.session.clone().or_else(|| file.first_session.clone()) else {
            return;
        };
        let path = std::path::Path::new(&file.name);
        let unread = file.last_ms.is_none() && path.is_file();
        let cwd = match &file.first_cwd {
            None if unread => crate::agent::store::cwd_in_head(path),
            cwd => cwd.clone(),
        };
        let last_ms = match file.last_ms {
            None if unread => {
                crate::agent::store::last_record_ms(path).and_then(|ms| u64::try_from(ms).ok())
            }
            ms => ms,
        };
        let info = RunInfo {
            session_id: Some(session),
            cwd,
            ..RunInfo::new(Agent::Claude)
        };
        sink.empty_session(&info, last_ms);
    }

    /// A prompt: the open run ends, the prompt's starts (a slash command's when the
    /// model answers it).
    fn prompt<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        prompt: String,
        at_ms: Option<u64>,
        command: bool,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        self.end_run(sink)?;
        self.reset();
        let info = RunInfo {
            session_id: self.file.session_of(msg),
            cwd: msg.cwd.as_deref().map(str::to_owned),
            prompt: wire::users_words(&prompt),
            started_ms: at_ms,
            ..RunInfo::new(Agent::Claude)
        };
        self.state.last_ms = at_ms;
        if command {
            self.state.command = Some(info);
            return Ok(());
        }
        self.state.last = Last::Waiting;
        self.file.runs = true;
        sink.start_run(info)
    }

    /// The model answers a slash command: it is a run.
    fn open_command<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        match self.state.command.take() {
            Some(info) => {
                self.state.last = Last::Waiting;
                self.file.runs = true;
                sink.start_run(info)
            }
            None => Ok(()),
        }
    }

    fn system<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if !sink.run_open() || !sink.wants().has(Wants::NOTICES) {
            return Ok(());
        }
        let Some(subtype) = head.subtype(line.bytes) else {
            return Ok(());
        };
        let (kind, text) = match &*subtype {
            "api_error" => (NoticeKind::Retry, wire::read_log_retry(line.bytes)),
            "compact_boundary" => (
                NoticeKind::Warning,
                "The conversation was compacted".to_string(),
            ),
            _ => return Ok(()),
        };
        sink.event(Event::Notice(&Notice {
            kind,
            text: Cow::Owned(text),
        }))
    }

    fn seen(&mut self, at_ms: Option<u64>) {
        if at_ms.is_some() {
            self.state.last_ms = at_ms.max(self.state.last_ms);
        }
    }

    /// A response's usage, once: every line of it repeats it (the last may be larger). A
    /// sub-agent's copy of one of its parent's messages (a new request id, the same
    /// message id) was not billed again.
    fn count_usage<S: Sink>(
        &mut self,
        msg: &wire::Message<'_>,
        nested: bool,
        line: &[u8],
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let Some(usage) = msg.usage.clone() else {
            return Ok(());
        };
        if usage.is_bad() {
            return sink.unreadable(
                unreadable!("usage"),
                line,
                &"a token count that is no count: left out of the totals",
            );
        }
        let message = self
            .hasher
            .hash_one(msg.message_id.as_deref().unwrap_or(""));
        if nested {
            if msg.message_id.is_some() && self.messages.contains(&message) {
                return Ok(());
            }
        } else if msg.message_id.is_some() {
            self.messages.insert(message);
        }
        let key = self.hasher.hash_one((
            msg.message_id.as_deref().unwrap_or(""),
            msg.request_id.as_deref().unwrap_or(""),
        ));
        if let Some((k, kept)) = &mut self.state.response
            && *k == key
        {
            if usage.total() > kept.usage.total() {
                kept.usage = usage;
            }
            return Ok(());
        }
        let id = match (msg.message_id.as_deref(), msg.request_id.as_deref()) {
            (Some(m), Some(r)) => Some(format!("{m}:{r}")),
            (Some(m), None) => Some(m.to_string()),
            _ => None,
        };
        let response = Response {
            usage,
            model: msg.model.as_deref().map(str::to_owned),
            at_ms: msg.timestamp.as_deref().and_then(rfc3339_ms),
            id,
            cost_usd: msg.cost_usd.0.filter(|c| c.is_finite() && *c >= 0.0),
        };
        if let Some((_, done)) = self.state.response.replace((key, response)) {
            done.bill(sink)?;
        }
        Ok(())
    }

    /// The open run ends as its last word says.
    fn end_run<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.state.command = None;
        if !sink.run_open() {
            return Ok(());
        }
        if let Some((_, done)) = self.state.response.take() {
            done.bill(sink)?;
        }
        let outcome = match std::mem::take(&mut self.state.last) {
            Last::Text => Outcome::Succeeded,
            Last::ApiError(text) => Outcome::Failed {
                reason: if text.is_empty() {
                    "the model call failed".to_string()
                } else {
                    text
                },
            },
            Last::Nothing | Last::Waiting | Last::Tool | Last::Interrupted => Outcome::NoEnd,
        };
        // What `result` prints of a failed run: the CLI's error text.
        let failure = match &outcome {
            Outcome::Failed { reason } => Some(reason.clone()),
            _ => None,
        };
        let final_text = match &outcome {
            Outcome::Succeeded => Some(self.state.answer.as_slice()),
            _ => failure.as_deref().map(str::as_bytes),
        };
        sink.end_run(RunEnd {
            outcome,
            final_text,
            last_ms: self.state.last_ms,
            ..RunEnd::unfinished()
        })
    }
}

/// A response's tokens, kept until its last line is read.
struct Response {
    usage: MessageUsage,
    model: Option<String>,
    at_ms: Option<u64>,
    /// `message.id:requestId`.
    id: Option<String>,
    /// What the line says it cost (`costUSD`, releases of 2025).
    cost_usd: Option<f64>,
}

impl Response {
    fn bill<S: Sink>(self, sink: &mut S) -> anyhow::Result<()> {
        let mut usage = self.usage.usage();
        usage.cost_usd = self.cost_usd;
        sink.event(Event::Billed(&Billed {
            usage,
            model: self.model.as_deref().filter(|m| *m != "<synthetic>"),
            at_ms: self.at_ms,
            id: self.id.as_deref(),
        }))
    }
}

/// What a `user` message is.
enum Said {
    /// The user's words: a run starts.
    Prompt(String),
    /// A slash command (`<command-name>/x</command-name>…`): a run if the model answers.
    Command(String),
    /// A local command's output or caveat, a bash-mode command (`!cmd`) or its output:
    /// no run.
    CommandOutput,
    /// `[Request interrupted by user…]`.
    Interrupted,
    /// Not the user's words (`isMeta`, `isCompactSummary`).
    Meta,
    /// Tool results (or nothing the user said).
    ToolResults,
}

fn said_by_user(msg: &wire::Message<'_>) -> Said {
    if msg.is_meta.0 == Some(true) || msg.is_compact_summary.0 == Some(true) {
        return Said::Meta;
    }
    let Some(text) = msg.content.and_then(wire::user_words) else {
        return Said::ToolResults;
    };
    let start = text.trim_start();
    if start.starts_with("[Request interrupted by user") {
        Said::Interrupted
    } else if [
        "<local-command-",
        "<bash-input>",
        "<bash-stdout>",
        "<bash-stderr>",
    ]
    .iter()
    .any(|tag| start.starts_with(tag))
    {
        Said::CommandOutput
    } else if start.starts_with("<command-name>") || start.starts_with("<command-message>") {
        Said::Command(text)
    } else {
        Said::Prompt(text)
    }
}

/// The sink the messages are read into: it watches the run's last word and its answer,
/// and passes on what the view asked for (the reading is asked for text and tools too,
/// which say how the run ends).
struct Tap<'s, S> {
    sink: &'s mut S,
    state: &'s mut State,
    /// What the view wants.
    wants: Wants,
    /// A sub-agent's message: its text is not the run's.
    nested: bool,
    /// The agent id a tool result names (`toolUseResult.agentId`): its sub-agent's log.
    result_of_agent: Option<String>,
}

impl<S: Sink> Sink for Tap<'_, S> {
    fn wants(&self) -> Wants {
        self.wants | Wants::TEXT | Wants::TOOLS
    }

    fn run_open(&self) -> bool {
        self.sink.run_open()
    }

    fn start_run(&mut self, info: RunInfo) -> anyhow::Result<()> {
        self.sink.start_run(info)
    }

    fn ensure_run(&mut self, agent: Agent) -> anyhow::Result<()> {
        self.sink.ensure_run(agent)
    }

    fn session_seen(&mut self, id: &str) {
        self.sink.session_seen(id)
    }

    fn model_seen(&mut self, model: &str) {
        self.sink.model_seen(model)
    }

    fn prompt_seen(&mut self, prompt: &str) {
        self.sink.prompt_seen(prompt)
    }

    fn model_changed(&mut self, model: &str) {
        self.sink.model_changed(model)
    }

    fn event(&mut self, ev: Event<'_>) -> anyhow::Result<()> {
        match ev {
            Event::Text(text) if !self.nested => {
                // A block of blank text (Opus 4.6 opens answers with "\n\n") is no answer.
                if !text.trim_ascii().is_empty() {
                    self.state.last = Last::Text;
                }
                if self.wants.intersects(Wants::FINAL | Wants::TEXT) {
                    self.state.answer.extend_from_slice(text);
                }
                if !self.wants.has(Wants::TEXT) {
                    return Ok(());
                }
            }
            Event::Segment => {
                self.state.answer.clear();
                if !self.wants.has(Wants::TEXT) {
                    return Ok(());
                }
            }
            _ => {}
        }
        self.sink.event(ev)
    }

    fn tool_started(&mut self, call: ToolCall<'_>) -> anyhow::Result<()> {
        if let Some(id) = call.id.as_deref() {
            self.state.calls.insert(id.to_owned());
        }
        if !self.nested {
            self.state.last = Last::Tool;
            if call.kind == ToolKind::Task
                && let Some(id) = call.id.as_deref()
            {
                self.state.tasks.push(id.to_owned());
            }
        }
        if self.wants.has(Wants::TOOLS) {
            self.sink.tool_started(call)?;
        }
        Ok(())
    }

    fn tool_ended(&mut self, end: ToolEndRaw<'_>) -> anyhow::Result<()> {
        if !self.nested {
            self.state.last = Last::Waiting;
            if let Some(id) = end.call.id.as_deref() {
                self.state.tasks.retain(|t| t != id);
                if let Some(agent) = self.result_of_agent.take() {
                    self.state.agents.push((agent, id.to_owned()));
                }
            }
        }
        // A result whose call is not in the log (cut before it) is no call of the run's.
        let called = end
            .call
            .id
            .as_deref()
            .is_none_or(|id| self.state.calls.contains(id));
        if called && self.wants.has(Wants::TOOLS) {
            self.sink.tool_ended(end)?;
        }
        Ok(())
    }

    fn end_run(&mut self, end: RunEnd<'_>) -> anyhow::Result<()> {
        self.sink.end_run(end)
    }

    fn terminal(&mut self, reached: bool) {
        self.sink.terminal(reached)
    }

    fn unreadable(
        &mut self,
        what: Unreadable,
        line: &[u8],
        err: &dyn Display,
    ) -> anyhow::Result<()> {
        self.sink.unreadable(what, line, err)
    }
}

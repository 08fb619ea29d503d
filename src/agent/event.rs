//! The normalized events: what every agent's stream comes down to.
//!
//! A dialect reads its agent's lines and gives, in stream order: a run start
//! ([`RunInfo`]), then [`Event`]s — answer text already deduplicated, segment
//! boundaries, reasoning, tool calls started and ended, notices — and a run end
//! ([`RunEnd`]). The views are written once against these, for every agent.
//!
//! Events borrow from the line being read (or from the dialect's scratch) for the length
//! of one call; a view that keeps something copies it.
//!
//! These types are the library's API (re-exported at the crate root); what only the
//! dialects and views use is `pub(crate)`. Enums and structs that may grow are
//! `#[non_exhaustive]`, so that a new agent, kind or field is not a breaking change.

use std::borrow::Cow;
use std::fmt;

use serde_json::value::RawValue;

pub use super::Agent;

/// What a handler asks to be decoded (a set of flags, combined with `|`); run starts and
/// ends always come.
///
/// ```
/// use cursor_stream::Wants;
///
/// let wants = Wants::TEXT | Wants::TOOLS;
/// assert!(wants.has(Wants::TEXT) && !wants.has(Wants::TOOL_RAW));
/// assert!(Wants::ALL.has(wants));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wants(u16);

impl Wants {
    /// Nothing but run starts and ends.
    pub const NONE: Wants = Wants(0);
    /// [`Event::Text`] and [`Event::Segment`]; also the check of the rebuilt answer.
    pub const TEXT: Wants = Wants(1);
    /// [`Event::Thinking`]: at least where phases start and end (`stats` counts them).
    pub const THINKING: Wants = Wants(1 << 1);
    /// The reasoning's text in [`Event::Thinking`] too (a dialect may leave it out
    /// otherwise, when reading it costs a parse).
    pub const THINKING_TEXT: Wants = Wants(1 << 7);
    /// [`Event::ToolStarted`] and [`Event::ToolEnded`].
    pub const TOOLS: Wants = Wants(1 << 2);
    /// Tool calls' arguments and results as the agent wrote them (`tools --json`).
    pub const TOOL_RAW: Wants = Wants(1 << 3);
    /// Tool calls' main argument and effect, for people (`tools`, `progress`).
    pub const TOOL_DETAILS: Wants = Wants(1 << 4);
    /// [`Event::Notice`].
    pub const NOTICES: Wants = Wants(1 << 5);
    /// [`RunEnd::final_text`] for the agents whose stream has no final answer of its own
    /// (Codex, Gemini, OpenCode keep it for this).
    pub const FINAL: Wants = Wants(1 << 6);
    /// [`Event::Billed`]: each model call's tokens, as a session log records them.
    pub const BILLED: Wants = Wants(1 << 8);
    /// The prompt of a stream that echoes it on a line after its run's start (Cursor,
    /// Gemini CLI, Codex before 0.44, Claude Code with `--replay-user-messages`): then in
    /// the run's [`RunInfo::prompt`] from that line on. A session log's comes with its run
    /// start whatever is asked.
    pub const PROMPT: Wants = Wants(1 << 9);
    /// Sessions' titles, and the ids of the lines a title may name (`sessions`).
    pub const TITLES: Wants = Wants(1 << 10);
    /// [`Event::Limit`]: the rate limits' state, as the agent recorded it.
    pub const LIMITS: Wants = Wants(1 << 11);
    /// Everything, including what may be added later.
    pub const ALL: Wants = Wants(u16::MAX);

    /// Both sets (as `|`, in a `const`).
    pub const fn union(self, o: Wants) -> Wants {
        Wants(self.0 | o.0)
    }

    /// Whether the two sets have a flag in common.
    pub const fn intersects(self, o: Wants) -> bool {
        self.0 & o.0 != 0
    }

    /// Whether every flag of `o` is in this set.
    pub const fn has(self, o: Wants) -> bool {
        self.0 & o.0 == o.0
    }
}

impl std::ops::BitOr for Wants {
    type Output = Wants;
    fn bitor(self, o: Wants) -> Wants {
        self.union(o)
    }
}

/// A run starts: what its agent said of it (all empty where the stream does not say).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunInfo {
    /// The agent that wrote the run.
    pub agent: Agent,
    /// Cursor, Claude, Qwen, Gemini `session_id`; Codex `thread_id`; OpenCode `sessionID`.
    /// Taken from the first event that has it when the run's start does not say (a log
    /// cut at the front).
    pub session_id: Option<String>,
    /// The model, as the agent names it (`Auto`, `claude-opus-…`), where its start says.
    pub model: Option<String>,
    /// The working directory, where its start says.
    pub cwd: Option<String>,
    /// The prompt the run answers, where the input has it (an agent's session log: a
    /// session is one run per prompt).
    pub prompt: Option<String>,
    /// When the run started, in epoch milliseconds, where the input says.
    pub started_ms: Option<u64>,
    /// Its answer comes as whole messages, kept apart by `text`, though the agent's stream
    /// joins its segments with nothing (a session log's messages: Gemini's chat).
    pub(crate) messages_apart: bool,
}

impl RunInfo {
    pub(crate) fn new(agent: Agent) -> RunInfo {
        RunInfo {
            agent,
            session_id: None,
            model: None,
            cwd: None,
            prompt: None,
            started_ms: None,
            messages_apart: false,
        }
    }
}

/// One normalized event of a run.
#[derive(Debug)]
#[non_exhaustive]
pub enum Event<'a> {
    /// New answer text, deduplicated: each piece of the answer comes exactly once.
    Text(&'a [u8]),
    /// The answer text that follows starts a new segment (after a round of tool calls) or
    /// a new message; `text --separator` writes between them.
    Segment,
    /// Reasoning. `done` ends a phase (a phase may also come whole, with `done`).
    Thinking {
        /// New reasoning text (empty when the agent hides it, or without
        /// [`Wants::THINKING_TEXT`]).
        text: &'a [u8],
        /// This ends the phase.
        done: bool,
    },
    /// A tool call starts.
    ToolStarted {
        /// The call, as its start describes it.
        call: &'a ToolCall<'a>,
        /// Its place in start order within the run, from 0.
        seq: u64,
    },
    /// A tool call ended (or never will: status `pending` at the run's end).
    ToolEnded(&'a ToolEnd<'a>),
    /// Something the agent reports that is not the answer: a retry, a warning.
    Notice(&'a Notice<'a>),
    /// A model call's tokens (with [`Wants::BILLED`]): each billed call once, as a
    /// session log records them. A stream's runs give their usage at their end instead
    /// ([`RunEnd::usage`]), which sums these where both are known.
    Billed(&'a Billed<'a>),
    /// A rate limit's state as the agent recorded it (with [`Wants::LIMITS`]): Codex's
    /// `rate_limits`, Claude's `rate_limit_event`. Never guessed.
    Limit(&'a Limit<'a>),
}

/// A rate limit's window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LimitWindow {
    /// The five hours that start at a window's first call.
    FiveHour,
    /// The seven days.
    SevenDay,
}

impl LimitWindow {
    /// The name the rows use: `five_hour`, `seven_day` (Claude's own words).
    pub fn name(self) -> &'static str {
        match self {
            LimitWindow::FiveHour => "five_hour",
            LimitWindow::SevenDay => "seven_day",
        }
    }

    /// The window of a length in minutes, as Codex gives it (`299` or `300`, `10080`).
    pub fn of_minutes(minutes: f64) -> Option<LimitWindow> {
        match (minutes / 60.0).round() as i64 {
            5 => Some(LimitWindow::FiveHour),
            168 => Some(LimitWindow::SevenDay),
            _ => None,
        }
    }
}

/// A rate limit's state at one time, as the agent recorded it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Limit<'a> {
    /// Which window the state is of.
    pub window: LimitWindow,
    /// How much of the window is used, in percent, where the agent says (Codex does;
    /// Claude gives a status).
    pub used_percent: Option<f64>,
    /// When the window resets (epoch ms), where the agent says.
    pub resets_ms: Option<i64>,
    /// The agent's word for the state (Claude's `allowed`, `allowed_warning`, `rejected`).
    pub status: Option<&'a str>,
    /// When it was recorded (epoch ms), where the line says.
    pub at_ms: Option<u64>,
    /// What the agent wrote it in (`rate_limits`, `rate_limit_event`).
    pub source: &'static str,
}

/// A model call's tokens, and when and with which model it was made, where the log says.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Billed<'a> {
    pub usage: Usage,
    /// The model, as the agent names it.
    pub model: Option<&'a str>,
    /// Epoch milliseconds.
    pub at_ms: Option<u64>,
    /// What identifies the call across files (a response id, Claude's `message.id` and
    /// `requestId`), to count it once however many logs copy it.
    pub id: Option<&'a str>,
}

/// A tool call, as its start (or its end, when no start was seen) describes it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ToolCall<'a> {
    /// The call's id, verbatim (Cursor's ids hold newlines).
    pub id: Option<Cow<'a, str>>,
    /// The agent's own name for the tool: `read` (Cursor's `readToolCall`), `Bash`,
    /// `command_execution`, `run_shell_command`, `bash`, …
    pub tool: Cow<'a, str>,
    /// What kind of thing the tool does, whatever the agent calls it.
    pub kind: ToolKind,
    /// The arguments as the agent wrote them (with [`Wants::TOOL_RAW`]).
    pub args: Option<Cow<'a, RawValue>>,
    /// The main argument — a path, a command, a pattern — unshortened (with
    /// [`Wants::TOOL_DETAILS`]).
    pub target: Option<Cow<'a, str>>,
    /// The id of the call that started the sub-agent this call belongs to (Claude, Qwen).
    pub parent: Option<Cow<'a, str>>,
    /// Epoch milliseconds, when the agent says.
    pub at_ms: Option<u64>,
}

impl<'a> ToolCall<'a> {
    pub(crate) fn new(tool: impl Into<Cow<'a, str>>, kind: ToolKind) -> ToolCall<'a> {
        ToolCall {
            id: None,
            tool: tool.into(),
            kind,
            args: None,
            target: None,
            parent: None,
            at_ms: None,
        }
    }

    /// A copy that owns everything, to be kept past the line.
    pub fn into_owned(self) -> ToolCall<'static> {
        ToolCall {
            id: self.id.map(|s| Cow::Owned(s.into_owned())),
            tool: Cow::Owned(self.tool.into_owned()),
            kind: self.kind,
            args: self.args.map(|a| Cow::Owned(a.into_owned())),
            target: self.target.map(|s| Cow::Owned(s.into_owned())),
            parent: self.parent.map(|s| Cow::Owned(s.into_owned())),
            at_ms: self.at_ms,
        }
    }
}

/// How a tool call ended, as the dialect read it from the end event.
#[derive(Debug)]
pub(crate) struct ToolEndRaw<'a> {
    /// The call as the end event describes it (its id, and what it repeats of the call).
    pub call: ToolCall<'a>,
    pub status: ToolStatus<'a>,
    /// The result as the agent wrote it (with [`Wants::TOOL_RAW`]).
    pub result: Option<Cow<'a, RawValue>>,
    /// What the call did, for people (with [`Wants::TOOL_DETAILS`]).
    pub effect: Effect,
    /// Epoch milliseconds, when the agent says.
    pub ended_ms: Option<u64>,
}

/// A tool call that ended, matched with its start.
#[derive(Debug)]
#[non_exhaustive]
pub struct ToolEnd<'a> {
    /// The call: from its start when there was one, else from its end.
    pub call: &'a ToolCall<'a>,
    /// Its place in start order within the run.
    pub seq: u64,
    /// Whether a start was seen for it.
    pub started: bool,
    /// How it ended.
    pub status: &'a ToolStatus<'a>,
    /// The result as the agent wrote it, JSON (with [`Wants::TOOL_RAW`]): Cursor the
    /// result variant's payload, Claude and Qwen the `tool_result` content, Codex the
    /// completed item, Gemini `output` or `error`, OpenCode `state.output` or `state.error`.
    pub result: Option<&'a RawValue>,
    /// What the call did, for people (with [`Wants::TOOL_DETAILS`]).
    pub effect: &'a Effect,
    /// Epoch milliseconds, when the agent says.
    pub ended_ms: Option<u64>,
}

impl ToolEnd<'_> {
    /// From its start to its end, when the agent gives both times.
    pub fn duration_ms(&self) -> Option<u64> {
        self.ended_ms?.checked_sub(self.call.at_ms?)
    }
}

/// A tool call's status: the agent's own word, and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolStatus<'a> {
    /// `success` for every agent's success; otherwise the agent's word for the failure
    /// (`rejected`, `error`, `failed`, `declined`, `timeout`, `tool_not_registered`, …),
    /// `pending` (never ended), `unknown` (ended without saying how) or `unexpected` (ended
    /// with a result of a shape the dialect does not know).
    pub word: Cow<'a, str>,
    /// What the word means.
    pub class: StatusClass,
}

impl<'a> ToolStatus<'a> {
    pub(crate) fn success() -> ToolStatus<'a> {
        ToolStatus::new("success", StatusClass::Ok)
    }

    pub(crate) fn pending() -> ToolStatus<'a> {
        ToolStatus::new("pending", StatusClass::Pending)
    }

    pub(crate) fn unknown() -> ToolStatus<'a> {
        ToolStatus::new("unknown", StatusClass::Unknown)
    }

    pub(crate) fn new(word: impl Into<Cow<'a, str>>, class: StatusClass) -> ToolStatus<'a> {
        ToolStatus {
            word: word.into(),
            class,
        }
    }
}

/// What a status means, whatever the agent called it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StatusClass {
    /// It succeeded.
    Ok,
    /// Refused by a permission rule, the user or a hook: it did not run.
    Rejected,
    /// It ran and failed.
    Failed,
    /// Still running when the run ended.
    Pending,
    /// Ended without saying how.
    Unknown,
}

/// What kind of thing a tool does, whatever the agent calls it: the human views phrase
/// their lines by it ("Ran", "Read", "Edited").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolKind {
    /// Running a command.
    Shell,
    /// Reading a file.
    Read,
    /// Changing a file.
    Edit,
    /// Writing a file whole.
    Write,
    /// Deleting a file.
    Delete,
    /// Searching file contents.
    Grep,
    /// Finding files by name.
    Glob,
    /// Listing a directory.
    List,
    /// Fetching a URL.
    Fetch,
    /// Searching the web.
    WebSearch,
    /// Searching the codebase by meaning.
    CodeSearch,
    /// A tool of an MCP server.
    Mcp,
    /// A sub-agent.
    Task,
    /// The agent's to-do list.
    Todo,
    /// Anything else.
    Other,
}

impl ToolKind {
    /// A short lowercase name for the kind (`shell`, `read`, `web_search`, …), as `stats`
    /// groups its totals by.
    pub fn name(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::Read => "read",
            ToolKind::Edit => "edit",
            ToolKind::Write => "write",
            ToolKind::Delete => "delete",
            ToolKind::Grep => "grep",
            ToolKind::Glob => "glob",
            ToolKind::List => "list",
            ToolKind::Fetch => "fetch",
            ToolKind::WebSearch => "web_search",
            ToolKind::CodeSearch => "code_search",
            ToolKind::Mcp => "mcp",
            ToolKind::Task => "task",
            ToolKind::Todo => "todo",
            ToolKind::Other => "other",
        }
    }

    /// What the call does, in the few words every tool record carries as its `kind`
    /// (`tools --json`, `events --normalized`, the transcript): `shell`, `read`, `edit`,
    /// `write`, `search`, `web`, `task`, `todo`, `mcp` or `other`. Coarser than
    /// [`name`](ToolKind::name), so that one call reads the same whichever of its agent's
    /// records it was read from (Codex's rollout names a command `exec_command`, its stream
    /// `command_execution`: both `shell`), and a program needs no agent's tool list.
    pub fn coarse_name(self) -> &'static str {
        match self {
            ToolKind::Shell => "shell",
            ToolKind::Read => "read",
            // Removing a file changes the tree as an edit does (Codex's patches delete too).
            ToolKind::Edit | ToolKind::Delete => "edit",
            ToolKind::Write => "write",
            // Finding what is where: by content, by name, by listing, by meaning.
            ToolKind::Grep | ToolKind::Glob | ToolKind::List | ToolKind::CodeSearch => "search",
            ToolKind::Fetch | ToolKind::WebSearch => "web",
            ToolKind::Mcp => "mcp",
            ToolKind::Task => "task",
            ToolKind::Todo => "todo",
            ToolKind::Other => "other",
        }
    }
}

/// What a tool call did, in the terms the human views show. Every field is optional:
/// each agent tells what it tells.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Effect {
    /// A command's exit code.
    pub exit_code: Option<i64>,
    /// The signal that ended a command.
    pub signal: Option<String>,
    /// Lines read, or written.
    pub lines: Option<u64>,
    /// The file read, or the search's result, was empty.
    pub empty: bool,
    /// Lines added by an edit.
    pub added: Option<u64>,
    /// Lines removed by an edit.
    pub removed: Option<u64>,
    /// Matches of a search.
    pub matches: Option<u64>,
    /// Files found or listed.
    pub files: Option<u64>,
    /// Items of a to-do list.
    pub todos: Option<u64>,
    /// The error text of a call that did not succeed.
    pub error: Option<String>,
}

/// Something the agent reports that is not the answer.
#[derive(Debug)]
#[non_exhaustive]
pub struct Notice<'a> {
    /// What it is about.
    pub kind: NoticeKind,
    /// One line for people: `Retrying (attempt 2)`.
    pub text: Cow<'a, str>,
}

/// What a [`Notice`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum NoticeKind {
    /// The connection to the model was lost or is being retried.
    Retry,
    /// It came back.
    Recovered,
    /// A warning (a loop detected, a turn limit near).
    Warning,
    /// An error the agent reports; whether it fails the run is the run end's to say.
    Error,
}

/// A run ended (or the input did, or the next run started first).
#[derive(Debug)]
#[non_exhaustive]
pub struct RunEnd<'a> {
    /// How it ended.
    pub outcome: Outcome,
    /// The run's final answer as the agent defines it (Cursor, Claude and Qwen
    /// `result.result`; Codex the last `agent_message`; Gemini the text after the last tool
    /// round; OpenCode the text of the step that stopped), where the stream has it.
    pub final_text: Option<&'a [u8]>,
    /// The answer streamed as [`Event::Text`] against `final_text`.
    pub answer: AnswerCheck,
    /// The tokens it used, where the stream says.
    pub usage: Option<Usage>,
    /// How long it took, as the agent measured it.
    pub duration_ms: Option<u64>,
    /// What the agent's own `--output-format json` prints for this run, when the stream
    /// says: its `result` line (Cursor's, Claude's), or nothing at all (empty: Cursor's
    /// for a failed run).
    pub native_json: Option<&'a [u8]>,
    /// The time of the run's last record, in epoch milliseconds, where the input says.
    pub last_ms: Option<u64>,
}

impl RunEnd<'_> {
    /// A run that ended without its terminal event.
    pub(crate) fn unfinished() -> RunEnd<'static> {
        RunEnd {
            outcome: Outcome::NoEnd,
            final_text: None,
            answer: AnswerCheck::Unchecked,
            usage: None,
            duration_ms: None,
            native_json: None,
            last_ms: None,
        }
    }
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Its agent's terminal event says it succeeded.
    Succeeded,
    /// The run failed.
    Failed {
        /// Why, in a few words, as the agent put it (`subtype error_max_turns, is_error
        /// true`, `turn.failed: …`).
        reason: String,
    },
    /// The terminal event was there but could not be read.
    Unreadable,
    /// No terminal event.
    NoEnd,
}

impl Outcome {
    /// The word for machine-readable output (`stats --json`, the synthesized `json`).
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Succeeded => "success",
            Outcome::Failed { .. } | Outcome::Unreadable => "error",
            Outcome::NoEnd => "no_result",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Succeeded => f.write_str("the run succeeded"),
            Outcome::Failed { reason } => write!(f, "the run failed ({reason})"),
            Outcome::Unreadable => f.write_str("the run's terminal event could not be read"),
            Outcome::NoEnd => f.write_str(
                "the stream ended without a result event: the run did not finish \
                 (killed, crashed, or failed before answering)",
            ),
        }
    }
}

/// How the streamed answer compares with the agent's final answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AnswerCheck {
    /// They are the same, byte for byte.
    Matches,
    /// They differ.
    Differs {
        /// The length of the text rebuilt from the stream, in bytes.
        rebuilt: u64,
        /// The length of the final answer, in bytes.
        expected: u64,
    },
    /// No answer text came before the final answer (a `--output-format json` line fed in).
    NothingStreamed,
    /// Not compared: text was not asked for, or the agent has nothing to compare with.
    Unchecked,
}

/// Token counts (and cost) of a run, normalized across agents.
///
/// `input` is the prompt tokens not read from a cache; `cache_read` and `cache_write` the
/// rest; `output` every generated token, reasoning included; `reasoning` the part of
/// `output` spent reasoning, when the agent says.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[non_exhaustive]
pub struct Usage {
    /// Prompt tokens not read from a cache.
    pub input: u64,
    /// Generated tokens, reasoning included.
    pub output: u64,
    /// Prompt tokens read from a cache.
    pub cache_read: u64,
    /// Prompt tokens written to a cache.
    pub cache_write: u64,
    /// The part of `output` spent reasoning, when the agent says.
    pub reasoning: Option<u64>,
    /// The cost in US dollars, when the agent reports one.
    pub cost_usd: Option<f64>,
    /// The part of `cache_write` kept for an hour (priced higher than the 5-minute
    /// cache's), when the agent says.
    pub cache_write_1h: Option<u64>,
}

impl Usage {
    /// Adds another run's (or step's) usage to this one.
    pub fn add(&mut self, o: &Usage) {
        // Saturating: a hostile log's counts must not wrap the sums around.
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
        self.reasoning = sum(self.reasoning, o.reasoning);
        self.cache_write_1h = sum(self.cache_write_1h, o.cache_write_1h);
        self.cost_usd = match (self.cost_usd, o.cost_usd) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
    }
}

fn sum(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.saturating_add(b)),
        (a, b) => a.or(b),
    }
}

//! Agent dialects: each agent's wire format, read into the normalized events of [`event`].
//!
//! A dialect keeps the state its format needs (Cursor's three forms of assistant text,
//! Claude's streamed-then-repeated blocks, Gemini's deltas, Codex's items) and pushes what
//! it reads into a `Sink` — the dispatcher, which tracks runs, pairs tool calls
//! (`calls`) and hands the events to the view. Which agent wrote a stream is told from
//! its first events (`detect`).
//!
//! | agent | module | run start | terminal event |
//! |---|---|---|---|
//! | Cursor | `cursor` | `system/init` | `result` |
//! | Claude Code, Qwen Code | `claude` | `system/init` | `result` |
//! | Codex | `codex` | `thread.started` | `turn.completed` / `turn.failed` |
//! | Gemini CLI | `gemini` | `init` | `result` |
//! | OpenCode | `opencode` | its first event | none (`step_finish` with reason `stop`, or `done`) |

pub(crate) mod calls;
pub(crate) mod claude;
pub(crate) mod codex;
pub(crate) mod cursor;
pub(crate) mod detect;
pub(crate) mod digest;
pub(crate) mod event;
pub(crate) mod gemini;
pub(crate) mod opencode;
pub(crate) mod tools;
pub(crate) mod wire;

use std::fmt::Display;

use crate::input::peek::{Head, NameId, TypeSet};
use crate::out::diag::Unreadable;
use event::{Agent, Event, RunEnd, RunInfo, ToolCall, ToolEndRaw, Wants};

/// A line, as the dialects and the raw views see it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawLine<'a> {
    /// The JSON object (without terminator, and without text glued before it).
    pub bytes: &'a [u8],
    /// The line exactly as read, terminator included: what a pass-through view writes.
    pub raw: &'a [u8],
    pub number: u64,
    /// The input ended without a newline after this line (a killed producer leaves one).
    pub unterminated: bool,
    /// Where `raw` starts in the input, in bytes, when the reader knows it.
    pub offset: Option<u64>,
}

/// What a wire type is to a dialect, from the peek alone (a table lookup, no parse).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Class {
    /// The type belongs to a run: it opens one when none is open (the rest of a stream cut
    /// before its first line is still a run).
    pub opens: bool,
    /// Decoded whatever the view wants: it starts or ends a run, or decides how it ends.
    pub always: bool,
    /// What decoding it can give.
    pub yields: Wants,
    /// The dialect knows the type (`check` counts the others).
    pub known: bool,
}

impl Class {
    pub(crate) const UNKNOWN: Class = Class {
        opens: false,
        always: false,
        yields: Wants::NONE,
        known: false,
    };

    /// Starts, ends or decides a run.
    pub(crate) const fn lifecycle(yields: Wants) -> Class {
        Class {
            opens: false,
            always: true,
            yields,
            known: true,
        }
    }

    /// Content of a run.
    pub(crate) const fn content(yields: Wants) -> Class {
        Class {
            opens: true,
            always: false,
            yields,
            known: true,
        }
    }

    /// Known, but not part of the run's content: transport, hooks, control messages.
    pub(crate) const fn noise(yields: Wants) -> Class {
        Class {
            opens: false,
            always: false,
            yields,
            known: true,
        }
    }
}

/// Where a dialect pushes what it reads. The dispatcher implements it.
pub(crate) trait Sink {
    /// What the view asked for: a dialect reads only what serves it.
    fn wants(&self) -> Wants;
    fn run_open(&self) -> bool;
    /// A run starts; the open one, if any, ended without its terminal event.
    fn start_run(&mut self, info: RunInfo) -> anyhow::Result<()>;
    /// Opens a run with nothing known of it, unless one is open.
    fn ensure_run(&mut self, agent: Agent) -> anyhow::Result<()>;
    /// The run's session id, seen on some event: kept when its start did not say.
    fn session_seen(&mut self, id: &str);
    fn event(&mut self, ev: Event<'_>) -> anyhow::Result<()>;
    /// A tool call starts (paired with its end by the sink).
    fn tool_started(&mut self, call: ToolCall<'_>) -> anyhow::Result<()>;
    /// A tool call ends.
    fn tool_ended(&mut self, end: ToolEndRaw<'_>) -> anyhow::Result<()>;
    /// The open run ends. `end.answer` is filled in by the sink.
    fn end_run(&mut self, end: RunEnd<'_>) -> anyhow::Result<()>;
    /// The agent's terminal event was seen (`run` stops an agent that lingers after it),
    /// or, with `false`, the run went on after all (OpenCode's `stop` followed by a step).
    fn terminal(&mut self, reached: bool);
    /// A line the run needed could not be read: reported at its line, fatal under
    /// `--strict`, and passed to `check`.
    fn unreadable(
        &mut self,
        what: Unreadable,
        line: &[u8],
        err: &dyn Display,
    ) -> anyhow::Result<()>;
}

/// An agent's wire format, read into the normalized events: what a dialect must say
/// (its agent, what each wire type is, how to read a line, what to forget when a run
/// ends), and what most take as it is (no untyped lines, an unfinished run at the end of
/// the input, no lint of their own, no hints).
pub(crate) trait Dialect {
    /// The agent whose stream this reads (Claude's dialect reads Qwen's too: each run's
    /// `init` says which).
    fn agent(&self) -> Agent;

    /// What a wire type is, from the peek alone (a table lookup, no parse).
    fn classify(&self, name: NameId) -> Class;

    /// Reads one line of a type the dispatcher asked for (see [`AnyDialect::interest`]).
    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()>;

    /// Forgets what the run being read left (its end was read, or it ends here).
    fn reset(&mut self);

    /// A JSON object without `type`: whether the dialect read it (else it is a bad line).
    fn untyped<S: Sink>(&mut self, _line: &RawLine<'_>, _sink: &mut S) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// The input ended, or another agent's run begins: the open run ends here. Most
    /// formats then did not finish the run; one without a terminal event (OpenCode)
    /// decides now how its run went.
    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.reset();
        if sink.run_open() {
            sink.end_run(RunEnd::unfinished())?;
        }
        Ok(())
    }

    /// After [`finish`](Self::finish), where a run of the same agent starts afresh (a run
    /// boundary, see `detect::Boundaries`): forgets what a run leaves to the next besides
    /// what `finish` reset, so that the dialect is as a new one.
    fn start_afresh(&mut self) {}

    /// A rule of the format that `check` reports besides the normalized ones.
    fn lint(&self, _head: &Head, _line: &[u8]) -> Option<String> {
        None
    }

    /// A one-line hint for a line the agent wrote on its stderr, for the failures its
    /// users run into most (`run` shows it; the messages come from public reports and
    /// from running the CLIs offline, `../shared/e2e/`).
    fn hint(&self, _stderr_line: &str) -> Option<&'static str> {
        None
    }
}

/// The dialects, behind one predictable branch per line (static dispatch: each view gets
/// its own copy of each dialect's reading, inlined).
pub(crate) enum AnyDialect {
    Cursor(cursor::Cursor),
    Claude(claude::Claude),
    Codex(codex::Codex),
    Gemini(gemini::Gemini),
    OpenCode(opencode::OpenCode),
}

macro_rules! each {
    ($self:expr, $d:ident => $e:expr) => {
        match $self {
            AnyDialect::Cursor($d) => $e,
            AnyDialect::Claude($d) => $e,
            AnyDialect::Codex($d) => $e,
            AnyDialect::Gemini($d) => $e,
            AnyDialect::OpenCode($d) => $e,
        }
    };
}

impl AnyDialect {
    pub(crate) fn new(agent: Agent) -> AnyDialect {
        match agent {
            Agent::Cursor => AnyDialect::Cursor(cursor::Cursor::default()),
            Agent::Claude | Agent::Qwen => AnyDialect::Claude(claude::Claude::new(agent)),
            Agent::Codex => AnyDialect::Codex(codex::Codex::default()),
            Agent::Gemini => AnyDialect::Gemini(gemini::Gemini::default()),
            Agent::OpenCode => AnyDialect::OpenCode(opencode::OpenCode::default()),
        }
    }

    /// A dialect for `agent` that reads every run as `agent`'s (`--agent`): Claude's does
    /// not become Qwen's on a Qwen init, nor the reverse.
    pub(crate) fn forced(agent: Agent) -> AnyDialect {
        let mut dialect = AnyDialect::new(agent);
        if let AnyDialect::Claude(d) = &mut dialect {
            d.fix_agent();
        }
        dialect
    }

    /// The wire types worth decoding for a view that wants `wants`: those that start, end
    /// or decide a run, and those that can give what it wants. Computed once per dialect.
    pub(crate) fn interest(&self, wants: Wants) -> TypeSet {
        let mut set = TypeSet::NONE;
        for name in NameId::all() {
            let class = self.classify(name);
            if class.always || class.yields.intersects(wants) {
                set.insert(name);
            }
        }
        set
    }

    /// After [`Dialect::finish`], where a run of `agent` starts afresh: the same dialect,
    /// forgetting what a run leaves to the next, when it is `agent`'s (it keeps its
    /// buffers, already grown), else `false` (another agent's dialect is needed).
    pub(crate) fn start_afresh_as(&mut self, agent: Agent) -> bool {
        if self.agent() != agent {
            return false;
        }
        self.start_afresh();
        true
    }
}

impl Dialect for AnyDialect {
    fn agent(&self) -> Agent {
        each!(self, d => d.agent())
    }

    fn classify(&self, name: NameId) -> Class {
        each!(self, d => d.classify(name))
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        each!(self, d => d.decode(line, head, sink))
    }

    fn reset(&mut self) {
        each!(self, d => d.reset())
    }

    fn untyped<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<bool> {
        each!(self, d => d.untyped(line, sink))
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        each!(self, d => d.finish(sink))
    }

    fn start_afresh(&mut self) {
        each!(self, d => d.start_afresh())
    }

    fn lint(&self, head: &Head, line: &[u8]) -> Option<String> {
        each!(self, d => d.lint(head, line))
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        each!(self, d => d.hint(stderr_line))
    }
}

/// Whether a line of stderr, lowercased, holds one of `needles` (for [`Dialect::hint`]).
pub(crate) fn mentions(lowercase: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| lowercase.contains(n))
}

/// Every event has a `session_id` (Cursor's and Claude's rule), but the control messages
/// that answer Claude's SDK: `check` reports the lines without.
pub(crate) fn missing_session_id(head: &Head, line: &[u8]) -> Option<String> {
    let exempt = matches!(
        head.name,
        NameId::CONTROL_REQUEST | NameId::CONTROL_RESPONSE
    );
    (!exempt && !crate::input::json::has_top_level_key(line, &["session_id"]))
        .then(|| format!("{} event without session_id", head.type_name))
}

impl NameId {
    /// Every name in the table, and `OTHER`.
    pub(crate) fn all() -> impl Iterator<Item = NameId> {
        (0..=NameId::OTHER.index()).map(NameId::from_index)
    }
}

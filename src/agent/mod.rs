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
pub(crate) mod qwen;
mod spec;
pub(crate) mod store;
pub(crate) mod tools;
pub(crate) mod wire;

pub(crate) use spec::{AnswerScope, Spec, Version, alias_in, model_alias};

use std::fmt::Display;

use crate::input::peek::{Head, NameId, TypeSet};
use crate::out::diag::Unreadable;
use event::{Event, RunEnd, RunInfo, ToolCall, ToolEndRaw, Wants};

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
    /// Checked whole on the reading thread (see `input::peek::peek`).
    pub always: bool,
    /// Decoded whatever the view wants, as content: a session log's messages, which
    /// decide where runs start and how they end, but are too large and too many to be
    /// checked whole before (a broken one is reported where the dialect reads it).
    pub decides: bool,
    /// What decoding it can give.
    pub yields: Wants,
    /// The dialect knows the type (`check` counts the others).
    pub known: bool,
}

impl Class {
    pub(crate) const UNKNOWN: Class = Class {
        opens: false,
        always: false,
        decides: false,
        yields: Wants::NONE,
        known: false,
    };

    /// Starts, ends or decides a run.
    pub(crate) const fn lifecycle(yields: Wants) -> Class {
        Class {
            opens: false,
            always: true,
            decides: false,
            yields,
            known: true,
        }
    }

    /// Content of a run.
    pub(crate) const fn content(yields: Wants) -> Class {
        Class {
            opens: true,
            always: false,
            decides: false,
            yields,
            known: true,
        }
    }

    /// A session log's message: content that also decides where runs start and how they
    /// end, so always decoded. The dialect opens the runs itself.
    pub(crate) const fn message(yields: Wants) -> Class {
        Class {
            opens: false,
            always: false,
            decides: true,
            yields,
            known: true,
        }
    }

    /// Known, but not part of the run's content: transport, hooks, control messages.
    pub(crate) const fn noise(yields: Wants) -> Class {
        Class {
            opens: false,
            always: false,
            decides: false,
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
    /// The run's model, seen on some event: kept when its start did not say (a session
    /// log names it on each answer, not where the run starts).
    fn model_seen(&mut self, model: &str);
    /// The run's prompt, in the user's words, echoed by its stream after its start (with
    /// [`Wants::PROMPT`]): kept when its start did not say.
    fn prompt_seen(&mut self, prompt: &str);
    /// A session's title, as its log names it (for the session being read, when
    /// `session` is `None`).
    fn title(&mut self, _session: Option<&str>, _title: &str) {}
    /// The run's model changed within it (a fallback, a `/model` switch): the later one is
    /// the run's. A sink that keeps the first takes it as [`Sink::model_seen`].
    fn model_changed(&mut self, model: &str) {
        self.model_seen(model)
    }
    /// The title of whichever session holds the line whose id is `line` (Claude's
    /// `summary` names its session by a line's `uuid`, often from another session's log).
    fn title_of_line(&mut self, _line: &str, _title: &str) {}
    /// The id of a line of the session being read, which a title elsewhere may name
    /// ([`Sink::title_of_line`]). Told only to a view that wants titles ([`Wants::TITLES`]).
    fn line_id(&mut self, _id: &str) {}
    /// A session whose log holds no run (it says what it is, no prompt was sent): what
    /// `info` says of it, and its last activity (epoch ms). `sessions` lists it.
    fn empty_session(&mut self, _info: &RunInfo, _last_ms: Option<u64>) {}
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

    /// The agent was named (`--agent`): every run is read as its, whatever the lines say
    /// (Claude's dialect does not become Qwen's on a Qwen init, nor the reverse).
    fn fix_agent(&mut self) {}

    /// The input the dialect starts to read: its name (a path, or `<stdin>`), for a format
    /// that keeps a fact in its file's name only (Cursor's transcripts: their session id).
    fn input_named(&mut self, _name: &str) {}

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

    /// Whether a line read where no run is open belongs to the run that starts next
    /// (Claude's `SessionStart` hooks come before its `init`): the dispatcher holds it
    /// until that run starts, so that it is read in it.
    fn before_run(&self, _head: &Head, _line: &[u8]) -> bool {
        false
    }

    /// A one-line hint for a line the agent wrote on its stderr, for the failures its
    /// users run into most (`run` shows it; the messages come from public reports and
    /// from running the CLIs offline, `../shared/e2e/`).
    fn hint(&self, _stderr_line: &str) -> Option<&'static str> {
        None
    }
}

/// What an input is: an agent's stream (what `-p` prints), or the log the agent keeps of
/// its sessions on disk (`~/.claude/projects`, `~/.codex/sessions`, …). Each is read by a
/// dialect of its own; both give the same normalized events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Format {
    pub agent: Agent,
    /// The agent's session log, not its stream.
    pub log: bool,
}

impl Format {
    pub(crate) const fn stream(agent: Agent) -> Format {
        Format { agent, log: false }
    }

    pub(crate) const fn log(agent: Agent) -> Format {
        Format { agent, log: true }
    }

    /// One format of each dialect: every agent's stream and log.
    pub(crate) fn all() -> impl Iterator<Item = Format> {
        Agent::ALL
            .into_iter()
            .flat_map(|agent| [Format::stream(agent), Format::log(agent)])
    }

    /// Whether one dialect reads both (Claude's stream dialect reads Qwen's stream).
    pub(crate) fn same_dialect(self, other: Format) -> bool {
        let family = |f: Format| match f.log {
            false => Format::stream(f.agent.spec().stream_read_as()),
            true => f,
        };
        family(self) == family(other)
    }
}

/// An agent's two dialects: of its stream, and of its session log (boxed: a log's
/// reading keeps more state than a stream's, and the enum holding them all stays small).
pub(crate) enum StreamOrLog<S, L> {
    Stream(S),
    Log(Box<L>),
}

macro_rules! stream_or_log {
    ($self:expr, $d:ident => $e:expr) => {
        match $self {
            StreamOrLog::Stream($d) => $e,
            StreamOrLog::Log($d) => $e,
        }
    };
}

impl<S: Dialect, L: Dialect> StreamOrLog<S, L> {
    fn is_log(&self) -> bool {
        matches!(self, StreamOrLog::Log(_))
    }
}

impl<S: Dialect, L: Dialect> Dialect for StreamOrLog<S, L> {
    fn agent(&self) -> Agent {
        stream_or_log!(self, d => d.agent())
    }

    fn classify(&self, name: NameId) -> Class {
        stream_or_log!(self, d => d.classify(name))
    }

    fn decode<K: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut K,
    ) -> anyhow::Result<()> {
        stream_or_log!(self, d => d.decode(line, head, sink))
    }

    fn reset(&mut self) {
        stream_or_log!(self, d => d.reset())
    }

    fn fix_agent(&mut self) {
        stream_or_log!(self, d => d.fix_agent())
    }

    fn input_named(&mut self, name: &str) {
        stream_or_log!(self, d => d.input_named(name))
    }

    fn untyped<K: Sink>(&mut self, line: &RawLine<'_>, sink: &mut K) -> anyhow::Result<bool> {
        stream_or_log!(self, d => d.untyped(line, sink))
    }

    fn finish<K: Sink>(&mut self, sink: &mut K) -> anyhow::Result<()> {
        stream_or_log!(self, d => d.finish(sink))
    }

    fn start_afresh(&mut self) {
        stream_or_log!(self, d => d.start_afresh())
    }

    fn before_run(&self, head: &Head, line: &[u8]) -> bool {
        stream_or_log!(self, d => d.before_run(head, line))
    }

    fn lint(&self, head: &Head, line: &[u8]) -> Option<String> {
        stream_or_log!(self, d => d.lint(head, line))
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        stream_or_log!(self, d => d.hint(stderr_line))
    }
}

/// The agents, from their one list (`Variant => folder`): [`Agent`], [`AnyDialect`] (a
/// variant per agent, each its folder's `Reader`: static dispatch, one predictable branch
/// per line) and [`Agent::spec`] (its folder's `SPEC`).
macro_rules! agents {
    ($( $(#[$doc:meta])* $variant:ident => $folder:ident, )+) => {
        /// The agents whose streams and session logs this tool reads.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Agent {
            $( $(#[$doc])* $variant, )+
        }

        impl Agent {
            /// Every agent, in the order of the README.
            pub const ALL: [Agent; [$(stringify!($variant)),+].len()] = [$(Agent::$variant),+];

            /// What the tool knows of the agent: its folder's [`Spec`].
            pub(crate) fn spec(self) -> &'static dyn Spec {
                match self {
                    $( Agent::$variant => &$folder::SPEC, )+
                }
            }
        }

        /// The dialects, an agent's stream or log each.
        pub(crate) enum AnyDialect {
            $( $variant($folder::Reader), )+
        }

        impl AnyDialect {
            /// What the dialect reads.
            pub(crate) fn format(&self) -> Format {
                match self {
                    $( AnyDialect::$variant(d) => Format { agent: d.agent(), log: d.is_log() }, )+
                }
            }
        }

        impl Dialect for AnyDialect {
            fn agent(&self) -> Agent {
                match self { $( AnyDialect::$variant(d) => d.agent(), )+ }
            }

            fn classify(&self, name: NameId) -> Class {
                match self { $( AnyDialect::$variant(d) => d.classify(name), )+ }
            }

            fn decode<S: Sink>(
                &mut self,
                line: &RawLine<'_>,
                head: &Head,
                sink: &mut S,
            ) -> anyhow::Result<()> {
                match self { $( AnyDialect::$variant(d) => d.decode(line, head, sink), )+ }
            }

            fn reset(&mut self) {
                match self { $( AnyDialect::$variant(d) => d.reset(), )+ }
            }

            fn fix_agent(&mut self) {
                match self { $( AnyDialect::$variant(d) => d.fix_agent(), )+ }
            }

            fn input_named(&mut self, name: &str) {
                match self { $( AnyDialect::$variant(d) => d.input_named(name), )+ }
            }

            fn untyped<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<bool> {
                match self { $( AnyDialect::$variant(d) => d.untyped(line, sink), )+ }
            }

            fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
                match self { $( AnyDialect::$variant(d) => d.finish(sink), )+ }
            }

            fn start_afresh(&mut self) {
                match self { $( AnyDialect::$variant(d) => d.start_afresh(), )+ }
            }

            fn lint(&self, head: &Head, line: &[u8]) -> Option<String> {
                match self { $( AnyDialect::$variant(d) => d.lint(head, line), )+ }
            }

            fn before_run(&self, head: &Head, line: &[u8]) -> bool {
                match self { $( AnyDialect::$variant(d) => d.before_run(head, line), )+ }
            }

            fn hint(&self, stderr_line: &str) -> Option<&'static str> {
                match self { $( AnyDialect::$variant(d) => d.hint(stderr_line), )+ }
            }
        }
    };
}

agents! {
    /// Cursor Agent CLI, `agent -p --output-format stream-json`.
    Cursor => cursor,
    /// Claude Code, `claude -p --output-format stream-json --verbose`.
    Claude => claude,
    /// Codex, `codex exec --json`.
    Codex => codex,
    /// Gemini CLI, `gemini -p … --output-format stream-json`.
    Gemini => gemini,
    /// Qwen Code, `qwen -p … --output-format stream-json` (Claude's format).
    Qwen => qwen,
    /// OpenCode, `opencode run --format json`.
    OpenCode => opencode,
}

impl AnyDialect {
    /// The dialect of an agent's stream.
    pub(crate) fn new(agent: Agent) -> AnyDialect {
        AnyDialect::of(Format::stream(agent))
    }

    /// The dialect that reads `format`.
    pub(crate) fn of(format: Format) -> AnyDialect {
        format.agent.spec().dialect(format.log)
    }

    /// The wire types worth decoding for a view that wants `wants`: those that start, end
    /// or decide a run, and those that can give what it wants. Computed once per dialect.
    pub(crate) fn interest(&self, wants: Wants) -> TypeSet {
        let mut set = TypeSet::NONE;
        for name in NameId::all() {
            let class = self.classify(name);
            if class.always || class.decides || class.yields.intersects(wants) {
                set.insert(name);
            }
        }
        set
    }

    /// After [`Dialect::finish`], where a run of `format` starts afresh: the same dialect,
    /// forgetting what a run leaves to the next, when it reads `format` (it keeps its
    /// buffers, already grown), else `false` (another dialect is needed).
    pub(crate) fn start_afresh_as(&mut self, format: Format) -> bool {
        if self.format() != format {
            return false;
        }
        self.start_afresh();
        true
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

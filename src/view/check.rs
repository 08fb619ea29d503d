//! `check`: validate a stream and report what is wrong, by line, for every agent.
//!
//! Every line is parsed in full (a view that shows text only parses what it needs; a
//! validator cannot). Problems, each with its file and line:
//!
//! | kind | what | applies to |
//! |---|---|---|
//! | `malformed_line` | not JSON, not an object, no usable `type`, or truncated | all |
//! | `unreadable_event` | a known event whose fields have the wrong shape | all |
//! | `missing_session_id` | an event without `session_id` (transport events included) | Cursor, Claude, Qwen |
//! | `completion_without_start` | a tool call that ended without having started | all |
//! | `call_never_completed` | a started call with no end before its run ended | all |
//! | `duplicate_result` | a second terminal event for the same session | Cursor (one result per session) |
//! | `text_differs` | the answer rebuilt from the stream is not the run's final answer | Cursor, Claude, Qwen |
//! | `no_result` | a run that ended without its terminal event | all |
//!
//! Event types the run's agent does not know are counted, not reported as problems. Exit
//! status 0 when there is no problem, 1 otherwise. `--json` writes one object per problem
//! and a last object summing up.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Display;
use std::hash::{BuildHasher, RandomState};

use serde::Serialize;

use crate::agent::event::{Agent, AnswerCheck, Event, Outcome, RunEnd, StatusClass, Wants};
use crate::agent::{AnyDialect, Dialect, RawLine};
use crate::exit::ExitStatus;
use crate::input::peek::{BadLine, Head, TypeSet};
use crate::out::Question;
use crate::out::diag::{Excerpt, Unreadable};
use crate::runs::Runs;
use crate::view::{Ctx, View};

#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    pub json: bool,
}

/// Where a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Position {
    file: String,
    line: u64,
}

#[derive(Serialize)]
struct Problem<'a> {
    #[serde(rename = "type")]
    record: &'static str,
    file: &'a str,
    line: u64,
    kind: &'static str,
    message: &'a str,
}

#[derive(Serialize)]
struct Summary<'a> {
    #[serde(rename = "type")]
    record: &'static str,
    ok: bool,
    problems: u64,
    by_kind: &'a BTreeMap<&'static str, u64>,
    runs: u64,
    events: u64,
    unknown_types: &'a BTreeMap<String, u64>,
    /// Events of unknown types past the first [`UNKNOWN_TYPES`] names (not listed).
    #[serde(skip_serializing_if = "is_zero")]
    unknown_types_not_listed: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Unknown event type names listed at most: a hostile log could make every line a new one.
const UNKNOWN_TYPES: usize = 100;

pub(crate) struct CheckView {
    opts: CheckOptions,
    /// Where each call of the run started, by its position in start order.
    starts: HashMap<u64, Position>,
    /// Sessions whose result was seen, by a hash of their id: 16 bytes a session, not the
    /// id (a log of a million runs would keep 100 MB of ids).
    sessions_with_result: HashSet<u64>,
    hasher: RandomState,
    by_kind: BTreeMap<&'static str, u64>,
    unknown_types: BTreeMap<String, u64>,
    unknown_types_not_listed: u64,
    events: u64,
    runs: u64,
    /// A copy reading one of several inputs, or one part of a file, on a worker
    /// ([`View::fork`]): what spans inputs (a session's second result, the unknown types
    /// listed) is asked of the view on the main thread ([`CheckQuestion`]).
    copy: bool,
}

/// What a copy asks the view on the main thread, which knows the earlier inputs.
enum CheckQuestion {
    /// A Cursor session's first result in this input: a problem if an earlier input had
    /// one (this is its line).
    Result { session: u64, problem: Vec<u8> },
    /// An event of a type its agent does not know.
    UnknownType(String),
}

impl CheckView {
    pub(crate) fn new(opts: CheckOptions) -> CheckView {
        CheckView {
            opts,
            starts: HashMap::new(),
            sessions_with_result: HashSet::new(),
            hasher: RandomState::new(),
            by_kind: BTreeMap::new(),
            unknown_types: BTreeMap::new(),
            unknown_types_not_listed: 0,
            events: 0,
            runs: 0,
            copy: false,
        }
    }

    fn here(ctx: &Ctx) -> Position {
        Position {
            file: ctx.diag.file().to_string(),
            line: ctx.diag.line(),
        }
    }

    fn problem(
        &mut self,
        at: &Position,
        kind: &'static str,
        message: &str,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        *self.by_kind.entry(kind).or_default() += 1;
        ctx.out.write_out(&self.problem_line(at, kind, message)?)?;
        Ok(())
    }

    fn problem_line(
        &self,
        at: &Position,
        kind: &'static str,
        message: &str,
    ) -> anyhow::Result<Vec<u8>> {
        let mut line = if self.opts.json {
            serde_json::to_vec(&Problem {
                record: "problem",
                file: &at.file,
                line: at.line,
                kind,
                message,
            })?
        } else {
            format!("{}:{}: {kind}: {message}", at.file, at.line).into_bytes()
        };
        line.push(b'\n');
        Ok(line)
    }

    /// Counts an event of a type its agent does not know, by name for the first few
    /// names.
    fn unknown_type(&mut self, name: &str) {
        if let Some(n) = self.unknown_types.get_mut(name) {
            *n += 1;
        } else if self.unknown_types.len() < UNKNOWN_TYPES {
            self.unknown_types.insert(name.to_string(), 1);
        } else {
            self.unknown_types_not_listed += 1;
        }
    }

    fn problem_here(
        &mut self,
        kind: &'static str,
        message: &str,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        let at = Self::here(ctx);
        self.problem(&at, kind, message, ctx)
    }
}

fn quoted(id: Option<&str>) -> String {
    id.map_or("without call_id".to_string(), |id| {
        serde_json::to_string(id).unwrap_or_default()
    })
}

impl View for CheckView {
    fn wants(&self) -> Wants {
        Wants::TEXT
            | Wants::THINKING
            | Wants::THINKING_TEXT
            | Wants::TOOLS
            | Wants::NOTICES
            | Wants::FINAL
    }

    fn raw_types(&self) -> TypeSet {
        TypeSet::ALL
    }

    fn checks_every_line(&self) -> bool {
        true
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        if self.by_kind.is_empty() {
            ExitStatus::SUCCESS
        } else {
            ExitStatus::PROBLEMS
        }
    }

    /// Each run's problems are its own; a session's second result and the unknown types
    /// listed span inputs, and are asked of the view on the main thread.
    fn fork(&self) -> Option<Self> {
        Some(CheckView {
            copy: true,
            hasher: self.hasher.clone(),
            ..CheckView::new(self.opts.clone())
        })
    }

    fn merge(&mut self, later: Self) {
        for (kind, n) in later.by_kind {
            *self.by_kind.entry(kind).or_default() += n;
        }
        self.events += later.events;
        self.runs += later.runs;
    }

    fn answer(&mut self, question: Question, ctx: &mut Ctx) -> anyhow::Result<()> {
        let Ok(question) = question.downcast::<CheckQuestion>() else {
            return Ok(());
        };
        match *question {
            CheckQuestion::Result { session, problem } => {
                if !self.sessions_with_result.insert(session) {
                    *self.by_kind.entry("duplicate_result").or_default() += 1;
                    ctx.out.write_out(&problem)?;
                }
            }
            CheckQuestion::UnknownType(name) => self.unknown_type(&name),
        }
        Ok(())
    }

    fn run_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        self.starts.clear();
        self.runs += 1;
        Ok(())
    }

    fn bad_line(
        &mut self,
        line: &RawLine<'_>,
        bad: &BadLine,
        ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        let what = if line.unterminated {
            format!("truncated last line: {bad}")
        } else {
            bad.to_string()
        };
        let message = format!("{what}: {}", Excerpt(line.bytes));
        self.problem_here("malformed_line", &message, ctx)?;
        Ok(true)
    }

    fn before(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        dialect: &AnyDialect,
        ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        self.events += 1;
        if let Some(message) = dialect.lint(head, line.bytes) {
            self.problem_here("missing_session_id", &message, ctx)?;
        }
        if !dialect.classify(head.name).known {
            let name = &*head.type_name;
            if !self.copy {
                self.unknown_type(name);
            } else if let Err(q) = ctx.ask(
                Box::new(CheckQuestion::UnknownType(name.into())),
                name.len(),
            ) {
                self.answer(q, ctx)?;
            }
        }
        Ok(true)
    }

    fn unreadable(
        &mut self,
        what: Unreadable,
        err: &dyn Display,
        ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        self.problem_here("unreadable_event", &format!("{}: {err}", what.event), ctx)?;
        Ok(true)
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev {
            Event::ToolStarted { seq, .. } => {
                self.starts.insert(*seq, Self::here(ctx));
            }
            Event::ToolEnded(end) if end.status.class == StatusClass::Pending => {
                let at = self
                    .starts
                    .remove(&end.seq)
                    .unwrap_or_else(|| Self::here(ctx));
                let message = format!(
                    "{} call {} started but never completed",
                    end.call.tool,
                    quoted(end.call.id.as_deref())
                );
                self.problem(&at, "call_never_completed", &message, ctx)?;
            }
            Event::ToolEnded(end) => {
                self.starts.remove(&end.seq);
                if !end.started {
                    let message = format!(
                        "{} call {} completed without a started event",
                        end.call.tool,
                        quoted(end.call.id.as_deref())
                    );
                    self.problem_here("completion_without_start", &message, ctx)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let session = ctx
            .run
            .session_id
            .as_deref()
            .map(|s| format!("session {s}"))
            .unwrap_or_else(|| "a run".to_string());
        if end.outcome == Outcome::NoEnd {
            let message = format!("{session} ended without a result event");
            return self.problem_here("no_result", &message, ctx);
        }
        // A Cursor stream ends a session with one `result` (the run's line that its json
        // format prints); a transcript's session ends each prompt's turn, with no result.
        if ctx.run.agent == Agent::Cursor
            && end.native_json.is_some()
            && let Some(id) = ctx.run.session_id.as_deref()
        {
            let session = self.hasher.hash_one(id);
            let message = || format!("a second result event for session {id}");
            if !self.sessions_with_result.insert(session) {
                self.problem_here("duplicate_result", &message(), ctx)?;
            } else if self.copy {
                let problem =
                    self.problem_line(&Self::here(ctx), "duplicate_result", &message())?;
                let weight = problem.len();
                let q = Box::new(CheckQuestion::Result { session, problem });
                // Given back only to a view reading alone: the session is new to all the
                // inputs, and already in the set.
                let _ = ctx.ask(q, weight);
            }
        }
        if let AnswerCheck::Differs { rebuilt, expected } = end.answer {
            let message = format!(
                "{session}: the text rebuilt from the stream ({rebuilt} bytes) differs from \
                 the final answer ({expected} bytes)"
            );
            self.problem_here("text_differs", &message, ctx)?;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let problems: u64 = self.by_kind.values().sum();
        let mut out = if self.opts.json {
            serde_json::to_vec(&Summary {
                record: "summary",
                ok: problems == 0,
                problems,
                by_kind: &self.by_kind,
                runs: self.runs,
                events: self.events,
                unknown_types: &self.unknown_types,
                unknown_types_not_listed: self.unknown_types_not_listed,
            })?
        } else {
            let mut s = if problems == 0 {
                format!(
                    "ok: {} events in {} run(s), no problem",
                    self.events, self.runs
                )
            } else {
                let kinds: Vec<String> = self
                    .by_kind
                    .iter()
                    .map(|(k, n)| format!("{n} {k}"))
                    .collect();
                format!(
                    "{problems} problem(s) in {} events, {} run(s): {}",
                    self.events,
                    self.runs,
                    kinds.join(", ")
                )
            };
            if !self.unknown_types.is_empty() {
                let mut types: Vec<String> = self
                    .unknown_types
                    .iter()
                    .map(|(t, n)| format!("{t} ×{n}"))
                    .collect();
                if self.unknown_types_not_listed > 0 {
                    types.push(format!(
                        "{} more of other types",
                        self.unknown_types_not_listed
                    ));
                }
                s.push_str(&format!(
                    "; unknown event types (not problems): {}",
                    types.join(", ")
                ));
            }
            s.into_bytes()
        };
        out.push(b'\n');
        ctx.out.write_out(&out)?;
        Ok(())
    }
}

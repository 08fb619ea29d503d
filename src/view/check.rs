//! `check`: validate a stream against the format and report what is wrong, by line.
//!
//! Every line is parsed in full (a view that shows text only parses what it needs; a
//! validator cannot). Problems, each with its file and line:
//!
//! | kind | what |
//! |---|---|
//! | `malformed_line` | not JSON, not an object, no usable `type`, or truncated |
//! | `unreadable_event` | a known event whose fields have the wrong shape |
//! | `missing_session_id` | an event without `session_id` (transport events included) |
//! | `completion_without_start` | a `tool_call` completion whose `call_id` never started |
//! | `call_never_completed` | a started call with no completion before its run ended |
//! | `duplicate_result` | a second `result` for the same session |
//! | `text_differs` | the answer rebuilt from the assistant events is not the `result` text |
//! | `no_result` | a run that ended without a `result` |
//!
//! Event types the tool does not know are counted, not reported as problems. Exit status
//! 0 when there is no problem, 1 otherwise. `--json` writes one object per problem and a
//! last object summing up.

use std::collections::{BTreeMap, HashSet};

use serde::Deserialize;
use serde::Serialize;
use serde::de::IgnoredAny;

use crate::answer::Answer;
use crate::calls::CallTracker;
use crate::event::{self, BadLine, EventKind, KindSet};
use crate::line_buffer::Line;
use crate::session::{ExitStatus, Outcome, Sessions};
use crate::tool_call::{self, Phase};
use crate::view::{Ctx, Event, SessionEnd, View};

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
}

pub struct CheckView {
    opts: CheckOptions,
    answer: Answer,
    tracker: CallTracker<Position>,
    sessions_with_result: HashSet<String>,
    by_kind: BTreeMap<&'static str, u64>,
    unknown_types: BTreeMap<String, u64>,
    events: u64,
    runs: u64,
}

impl CheckView {
    pub fn new(opts: CheckOptions) -> CheckView {
        CheckView {
            opts,
            answer: Answer::default(),
            tracker: CallTracker::default(),
            sessions_with_result: HashSet::new(),
            by_kind: BTreeMap::new(),
            unknown_types: BTreeMap::new(),
            events: 0,
            runs: 0,
        }
    }

    fn here(ctx: &Ctx) -> Position {
        Position {
            file: ctx.diag.source().to_string(),
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
        ctx.out.write_out(&line)?;
        Ok(())
    }

    fn tool_call(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.answer.tool_call();
        let call = match tool_call::read_tool_call::<IgnoredAny, IgnoredAny>(ev.line) {
            Ok(call) => call,
            Err(e) => {
                let at = Self::here(ctx);
                return self.problem(&at, "unreadable_event", &format!("tool_call: {e}"), ctx);
            }
        };
        let id = call.call_id.as_deref();
        let kind = call.call.as_ref().map_or("unknown", |c| c.tool.as_ref());
        match call.phase {
            Phase::Started => {
                self.tracker.start(id, kind, Some(Self::here(ctx)), None);
            }
            Phase::Completed => {
                let done = self.tracker.complete(id);
                if done.is_some_and(|d| d.started.is_none()) {
                    let at = Self::here(ctx);
                    let message = format!(
                        "{kind} call {} completed without a started event",
                        quoted(id)
                    );
                    self.problem(&at, "completion_without_start", &message, ctx)?;
                }
            }
            Phase::Other => {}
        }
        Ok(())
    }
}

fn quoted(id: Option<&str>) -> String {
    id.map_or("without call_id".to_string(), |id| {
        serde_json::to_string(id).unwrap_or_default()
    })
}

#[derive(Deserialize)]
struct Common {
    #[serde(default)]
    session_id: Option<IgnoredAny>,
}

impl View for CheckView {
    fn interest(&self) -> KindSet {
        KindSet::ALL
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Sessions) -> ExitStatus {
        if self.by_kind.is_empty() {
            ExitStatus::SUCCESS
        } else {
            ExitStatus(1)
        }
    }

    fn session_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        self.answer.reset();
        self.runs += 1;
        Ok(())
    }

    fn bad_line(&mut self, bad: &BadLine, line: &Line<'_>, ctx: &mut Ctx) -> anyhow::Result<bool> {
        let at = Self::here(ctx);
        let what = if line.unterminated {
            format!("truncated last line: {bad}")
        } else {
            bad.to_string()
        };
        let message = format!("{what}: {}", crate::diag::Excerpt(line.bytes));
        self.problem(&at, "malformed_line", &message, ctx)?;
        Ok(true)
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.events += 1;
        let common: Common = match serde_json::from_slice(ev.line) {
            Ok(c) => c,
            Err(e) => {
                let at = Self::here(ctx);
                let message = format!("not JSON ({e}): {}", crate::diag::Excerpt(ev.line));
                return self.problem(&at, "malformed_line", &message, ctx);
            }
        };
        if common.session_id.is_none() {
            let at = Self::here(ctx);
            let message = format!("{} event without session_id", ev.head.type_name);
            self.problem(&at, "missing_session_id", &message, ctx)?;
        }
        match ev.kind() {
            EventKind::Assistant => {
                if let Err(e) = self.answer.assistant(ev.line) {
                    let at = Self::here(ctx);
                    self.problem(&at, "unreadable_event", &format!("assistant: {e}"), ctx)?;
                }
            }
            EventKind::ToolCall => self.tool_call(ev, ctx)?,
            EventKind::Result => match event::read_result(ev.line) {
                Ok(result) => {
                    let id = result.session_id.as_deref();
                    if let Some(id) =
                        id.filter(|id| !self.sessions_with_result.insert(id.to_string()))
                    {
                        let at = Self::here(ctx);
                        let message = format!("a second result event for session {id}");
                        self.problem(&at, "duplicate_result", &message, ctx)?;
                    }
                }
                Err(e) => {
                    let at = Self::here(ctx);
                    self.problem(&at, "unreadable_event", &format!("result: {e}"), ctx)?;
                }
            },
            EventKind::Other => {
                *self
                    .unknown_types
                    .entry(ev.head.type_name.to_string())
                    .or_default() += 1;
            }
            _ => {}
        }
        Ok(())
    }

    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        for (id, started) in self.tracker.end_run() {
            let at = started.args.unwrap_or_else(|| Self::here(ctx));
            let message = format!(
                "{} call {} started but never completed",
                started.tool,
                quoted(Some(&id))
            );
            self.problem(&at, "call_never_completed", &message, ctx)?;
        }
        let at = Self::here(ctx);
        let session = ctx
            .run
            .session_id
            .as_deref()
            .map(|s| format!("session {s}"))
            .unwrap_or_else(|| "a run".to_string());
        match (&end.result, end.outcome) {
            (_, Outcome::NoResult) => {
                let message = format!("{session} ended without a result event");
                self.problem(&at, "no_result", &message, ctx)?;
            }
            (Some(result), _) => {
                let expected = result.text;
                if !self.answer.is_empty() && !self.answer.matches(expected) {
                    let message = format!(
                        "{session}: the text rebuilt from the assistant events ({} bytes) \
                         differs from the result ({} bytes)",
                        self.answer.len(),
                        expected.len()
                    );
                    self.problem(&at, "text_differs", &message, ctx)?;
                }
            }
            (None, _) => {}
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
                let types: Vec<String> = self
                    .unknown_types
                    .iter()
                    .map(|(t, n)| format!("{t} ×{n}"))
                    .collect();
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

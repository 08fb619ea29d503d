//! The engine the dialects push into ([`Sink`]): runs and their exit status, tool calls
//! paired start to end (`agent::calls`), the streamed answer checked against the final
//! one — once, for every agent — and the normalized events passed to the [`Driven`]
//! handler.

use std::borrow::Cow;
use std::fmt::Display;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Driven;
use crate::agent::calls::{Calls, Matched};
use crate::agent::digest::Digest;
use crate::agent::event::{
    Agent, AnswerCheck, Effect, Event, RunEnd, RunInfo, ToolCall, ToolEnd, ToolEndRaw, ToolStatus,
    Usage, Wants,
};
use crate::agent::{AnswerScope, Sink};
use crate::input::peek::{BadLine, TypeSet};
use crate::out::diag::Unreadable;
use crate::runs::Runs;

/// What the dialects push into: runs, tool-call pairing and the answer check, done once
/// for every agent, and the handler.
pub(super) struct Engine<D> {
    pub(super) handler: D,
    /// The open run (or the last one).
    run: RunInfo,
    /// Event lines of the open run so far.
    pub(super) run_events: u64,
    pub(super) runs: Runs,
    calls: Calls,
    pub(super) wants: Wants,
    pub(super) raw_types: TypeSet,
    /// The streamed answer the run's final answer is compared with (all of it, or since
    /// its last segment boundary, by agent), when the view wants text.
    answer: Digest,
    scope: Option<AnswerScope>,
    /// Answer text came in this run.
    streamed: bool,
    /// The run's model calls' tokens ([`Event::Billed`]), summed: its usage, when its end
    /// does not give one.
    billed: Option<Usage>,
    pub(super) terminal: Option<Arc<AtomicBool>>,
}

/// A line a dialect could not read is not JSON, or not an event (see
/// `input::peek::peek`): it goes back to the dispatcher as the error of its decode, and
/// is reported as a bad line.
#[derive(Debug)]
pub(super) struct Broken(pub(super) BadLine);

impl Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Broken {}

impl<D: Driven> Engine<D> {
    pub(super) fn new(handler: D) -> Engine<D> {
        Engine {
            wants: handler.wants(),
            raw_types: handler.raw_types(),
            handler,
            run: RunInfo::new(Agent::Cursor),
            run_events: 0,
            runs: Runs::default(),
            calls: Calls::default(),
            answer: Digest::default(),
            scope: None,
            streamed: false,
            billed: None,
            terminal: None,
        }
    }
}

impl<D: Driven> Sink for Engine<D> {
    fn wants(&self) -> Wants {
        self.wants
    }

    fn run_open(&self) -> bool {
        self.runs.is_open()
    }

    fn start_run(&mut self, info: RunInfo) -> anyhow::Result<()> {
        if self.runs.is_open() {
            self.end_run(RunEnd::unfinished())?;
        }
        self.runs.start();
        self.run = info;
        self.run_events = 1;
        self.answer.clear();
        self.streamed = false;
        self.billed = None;
        self.scope = self
            .run
            .agent
            .spec()
            .answer_scope()
            .filter(|_| self.wants.has(Wants::TEXT));
        self.handler.run_start(&self.run).map_err(D::into_anyhow)
    }

    fn ensure_run(&mut self, agent: Agent) -> anyhow::Result<()> {
        if self.runs.is_open() {
            return Ok(());
        }
        self.start_run(RunInfo::new(agent))
    }

    fn session_seen(&mut self, id: &str) {
        if self.run.session_id.is_none() && self.runs.is_open() {
            self.run.session_id = Some(id.to_owned());
            self.handler.session_seen(id);
        }
    }

    fn title(&mut self, session: Option<&str>, title: &str) {
        self.handler.title(session, title);
    }

    fn title_of_line(&mut self, line: &str, title: &str) {
        self.handler.title_of_line(line, title);
    }

    fn line_id(&mut self, id: &str) {
        self.handler.line_id(id);
    }

    fn empty_session(&mut self, info: &RunInfo, last_ms: Option<u64>) {
        self.handler.empty_session(info, last_ms);
    }

    fn model_changed(&mut self, model: &str) {
        if self.runs.is_open() && self.run.model.as_deref() != Some(model) {
            self.run.model = Some(model.to_owned());
            self.handler.model_seen(model);
        }
    }

    fn model_seen(&mut self, model: &str) {
        if self.run.model.is_none() && self.runs.is_open() {
            self.run.model = Some(model.to_owned());
            self.handler.model_seen(model);
        }
    }

    fn prompt_seen(&mut self, prompt: &str) {
        if self.run.prompt.is_none() && self.runs.is_open() {
            self.run.prompt = Some(prompt.to_owned());
            self.handler.prompt_seen(prompt);
        }
    }

    fn event(&mut self, ev: Event<'_>) -> anyhow::Result<()> {
        match ev {
            Event::Text([]) => return Ok(()),
            Event::Text(text) => {
                self.streamed = true;
                if self.scope.is_some() {
                    self.answer.add(text);
                }
            }
            Event::Segment if self.scope == Some(AnswerScope::LastSegment) => self.answer.clear(),
            Event::Billed(billed) => {
                self.billed
                    .get_or_insert_with(Usage::default)
                    .add(&billed.usage);
                if !self.wants.has(Wants::BILLED) {
                    return Ok(());
                }
            }
            _ => {}
        }
        self.handler.event(&self.run, &ev).map_err(D::into_anyhow)
    }

    fn tool_started(&mut self, call: ToolCall<'_>) -> anyhow::Result<()> {
        match self.calls.start(&call) {
            Some(seq) => self
                .handler
                .event(&self.run, &Event::ToolStarted { call: &call, seq })
                .map_err(D::into_anyhow),
            None => Ok(()),
        }
    }

    fn tool_ended(&mut self, end: ToolEndRaw<'_>) -> anyhow::Result<()> {
        let matched = self.calls.end(end.call.id.as_deref());
        let (started, seq, call) = match &matched {
            Matched::Again => return Ok(()),
            Matched::Unstarted(seq) => (false, *seq, None),
            Matched::Started(s) => (true, s.seq, Some(&s.call)),
        };
        // What the start said, completed by what the end says (Cursor's rejected and
        // failed ends carry no arguments; a start may lack what its end repeats).
        let merged;
        let call = match call {
            Some(start) => {
                merged = ToolCall {
                    id: start.id.as_deref().map(Into::into),
                    tool: start.tool.as_ref().into(),
                    kind: start.kind,
                    args: start
                        .args
                        .as_deref()
                        .or(end.call.args.as_deref())
                        .map(Cow::Borrowed),
                    target: start
                        .target
                        .as_deref()
                        .or(end.call.target.as_deref())
                        .map(Into::into),
                    parent: start
                        .parent
                        .as_deref()
                        .or(end.call.parent.as_deref())
                        .map(Into::into),
                    at_ms: start.at_ms,
                };
                &merged
            }
            None => &end.call,
        };
        let tool_end = ToolEnd {
            call,
            seq,
            started,
            status: &end.status,
            result: end.result.as_deref(),
            effect: &end.effect,
            ended_ms: end.ended_ms,
        };
        self.handler
            .event(&self.run, &Event::ToolEnded(&tool_end))
            .map_err(D::into_anyhow)
    }

    fn end_run(&mut self, mut end: RunEnd<'_>) -> anyhow::Result<()> {
        if !self.runs.is_open() {
            return Ok(());
        }
        self.handler.ending(&self.run, &end, self.run_events);
        let pending = ToolStatus::pending();
        let nothing = Effect::default();
        for started in self.calls.end_run() {
            let tool_end = ToolEnd {
                call: &started.call,
                seq: started.seq,
                started: true,
                status: &pending,
                result: None,
                effect: &nothing,
                ended_ms: None,
            };
            self.handler
                .event(&self.run, &Event::ToolEnded(&tool_end))
                .map_err(D::into_anyhow)?;
        }
        if end.usage.is_none() {
            end.usage = self.billed.take();
        }
        end.answer = match end.final_text {
            _ if !self.wants.has(Wants::TEXT) => AnswerCheck::Unchecked,
            Some(_) if !self.streamed => AnswerCheck::NothingStreamed,
            Some(_) if self.scope.is_none() => AnswerCheck::Unchecked,
            Some(expected) if self.answer.matches(expected) => AnswerCheck::Matches,
            Some(expected) => AnswerCheck::Differs {
                rebuilt: self.answer.len,
                expected: expected.len() as u64,
            },
            None => AnswerCheck::Unchecked,
        };
        self.finish_run(end)
    }

    fn terminal(&mut self, reached: bool) {
        if let Some(flag) = &self.terminal {
            flag.store(reached, Ordering::Relaxed);
        }
    }

    fn unreadable(
        &mut self,
        what: Unreadable,
        line: &[u8],
        err: &dyn Display,
    ) -> anyhow::Result<()> {
        if let Err(bad) = crate::input::peek::verify(line) {
            return Err(Broken(bad).into());
        }
        self.handler.unreadable(what, line, err)
    }
}

impl<D: Driven> Engine<D> {
    fn finish_run(&mut self, end: RunEnd<'_>) -> anyhow::Result<()> {
        self.runs.end(&end.outcome);
        self.handler
            .run_end(&self.run, &end)
            .map_err(D::into_anyhow)
    }
}

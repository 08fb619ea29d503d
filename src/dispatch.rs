//! The dispatcher: lines in, the run's dialect reads them, normalized events out to the
//! chosen view.
//!
//! Lines come from the reading thread (see `input::reader`) already split and with their
//! `type` peeked, as soon as a read returns them; output is flushed when no line is
//! waiting, just before the dispatcher blocks for more (a live producer may be slow).
//!
//! Which agent wrote an input is told from its first events (`agent::detect`): until a
//! line tells, lines are held (copied, at most [`HOLD_LINES`] or [`HOLD_BYTES`]) and then
//! replayed through the dialect; an input that never tells is read as Cursor's. A log that
//! appends runs of different agents is read run by run: a line that only another agent
//! writes, between runs or where a run starts, hands the input to that agent's dialect.
//!
//! The [`Engine`] is what the dialects push into: it tracks runs for the exit status,
//! pairs tool calls (`agent::calls`), checks the streamed answer against the final one,
//! and passes everything to the view.

use std::borrow::Cow;
use std::fmt::Display;
use std::io::Read;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::agent::calls::{Calls, Matched};
use crate::agent::digest::Digest;
use crate::agent::event::{
    Agent, AnswerCheck, Effect, Event, Outcome, RunEnd, RunInfo, ToolCall, ToolEnd, ToolOutcome,
    ToolStatus, Wants,
};
use crate::agent::{AnyDialect, RawLine, Sink, detect};
use crate::exit::ExitStatus;
use crate::input::line_buffer::{Line, LineTooLong};
use crate::input::peek::{BadLine, Head, NameId, Peeked, Subtype, TypeSet};
use crate::input::reader::{Next, Reader};
use crate::out::diag::{BadInput, Excerpt, Reading};
use crate::runs::Runs;
use crate::view::{Ctx, View};

/// How many lines, and bytes, are held at most while the agent is not yet known.
pub(crate) const HOLD_LINES: usize = 16;
pub(crate) const HOLD_BYTES: usize = 1 << 20;

pub struct Dispatcher<V> {
    engine: Engine<V>,
    slot: Slot,
    /// `--agent`: no detection.
    forced: Option<Agent>,
    max_line: Option<usize>,
    buffer_size: usize,
}

/// The current input's dialect, or the lines held until the agent is known.
enum Slot {
    Undecided(Held),
    Ready {
        dialect: AnyDialect,
        /// The wire types worth decoding for the view.
        interest: TypeSet,
    },
}

#[derive(Default)]
struct Held {
    data: Vec<u8>,
    lines: Vec<HeldLine>,
}

struct HeldLine {
    raw: Range<usize>,
    bytes: Range<usize>,
    number: u64,
    unterminated: bool,
    peeked: Peeked,
}

impl<V: View> Dispatcher<V> {
    pub fn new(view: V, ctx: Ctx, max_line: Option<usize>) -> Self {
        Dispatcher {
            engine: Engine::new(view, ctx),
            slot: Slot::Undecided(Held::default()),
            forced: None,
            max_line,
            buffer_size: crate::input::line_buffer::DEFAULT_CAPACITY,
        }
    }

    /// Reads every input as `agent`'s stream, with no detection (`--agent`).
    pub fn agent(mut self, agent: Option<Agent>) -> Self {
        self.forced = agent;
        self
    }

    /// Reads with buffers of this size instead of the usual 1 MiB (they still grow for a
    /// longer line). Small buffers exercise the splitter harder; tests and the fuzz
    /// target use them.
    pub fn buffer_size(mut self, size: usize) -> Self {
        self.buffer_size = size.max(1);
        self
    }

    /// Sets `flag` while the agent's terminal event has been seen (for `run`, which stops
    /// an agent that lingers after it).
    pub fn signal_terminal(mut self, flag: Arc<AtomicBool>) -> Self {
        self.engine.terminal = Some(flag);
        self
    }

    pub fn ctx(&mut self) -> &mut Ctx {
        &mut self.engine.ctx
    }

    /// Reads one input to its end. Each input holds whole runs: a run still open at the
    /// end of its input ended there.
    ///
    /// The input is read, split and peeked on a thread of its own (see `input::reader`);
    /// here the lines go through the dialect to the view, in order.
    pub fn feed<R: Read + Send + 'static>(&mut self, name: &str, rdr: R) -> anyhow::Result<()> {
        self.engine.ctx.diag.set_source(name);
        self.slot = match self.forced {
            Some(agent) => ready(agent, self.engine.wants),
            None => Slot::Undecided(Held::default()),
        };
        let mut reader = Reader::spawn(rdr, self.buffer_size, self.max_line)?;
        loop {
            let batch = match reader.poll() {
                Ok(Next::Batch(batch)) => batch,
                Ok(Next::NotYet) => {
                    // Nothing complete is waiting: the next line may be a while coming.
                    self.engine.ctx.out.flush()?;
                    match reader.wait() {
                        Ok(Some(batch)) => batch,
                        Ok(None) => break,
                        Err(e) => return Err(read_error(name, e)),
                    }
                }
                Ok(Next::End) => break,
                Err(e) => return Err(read_error(name, e)),
            };
            for info in &batch.lines {
                self.line(&batch.line(info), &info.peeked)?;
                self.engine.ctx.out.event_done()?;
            }
            reader.recycle(batch);
        }
        if let Slot::Undecided(_) = self.slot {
            self.decide(Agent::Cursor)?;
        }
        if let Slot::Ready { dialect, .. } = &mut self.slot {
            dialect.finish(&mut self.engine)?;
        }
        self.engine.ctx.out.flush()?;
        Ok(())
    }

    /// All inputs are read: gives the exit status.
    pub fn finish(mut self) -> anyhow::Result<ExitStatus> {
        let engine = &mut self.engine;
        if engine.runs.count() == 0 && engine.reports_runs {
            engine.ctx.diag.note(
                &mut engine.ctx.out,
                "the input holds no run and no result event",
            );
        }
        engine.view.finish(&mut engine.ctx)?;
        engine.ctx.diag.finish(&mut engine.ctx.out);
        engine.ctx.out.flush()?;
        Ok(engine.view.exit_status(&engine.runs))
    }

    fn line(&mut self, line: &Line<'_>, peeked: &Peeked) -> anyhow::Result<()> {
        if let Slot::Undecided(held) = &mut self.slot {
            let verdict = match peeked {
                Peeked::Event(head) => detect::sniff(head, &line.bytes[head.start..]),
                Peeked::Bad(BadLine::NoType) => detect::sniff_untyped(line.bytes),
                _ => None,
            };
            match verdict {
                Some(agent) => self.decide(agent)?,
                None => {
                    held.push(line, peeked);
                    if held.lines.len() >= HOLD_LINES || held.data.len() >= HOLD_BYTES {
                        self.decide(Agent::Cursor)?;
                    }
                    return Ok(());
                }
            }
        }
        self.process(line, peeked)
    }

    /// The agent is known: the held lines go through its dialect.
    fn decide(&mut self, agent: Agent) -> anyhow::Result<()> {
        let Slot::Undecided(held) =
            std::mem::replace(&mut self.slot, ready(agent, self.engine.wants))
        else {
            return Ok(());
        };
        for h in &held.lines {
            let line = Line {
                bytes: &held.data[h.bytes.clone()],
                raw: &held.data[h.raw.clone()],
                raw_start: 0,
                bytes_start: 0,
                number: h.number,
                unterminated: h.unterminated,
            };
            self.process(&line, &h.peeked)?;
        }
        Ok(())
    }

    fn process(&mut self, line: &Line<'_>, peeked: &Peeked) -> anyhow::Result<()> {
        self.engine.ctx.diag.set_line(line.number);
        let engine = &mut self.engine;
        let Slot::Ready { dialect, interest } = &mut self.slot else {
            unreachable!("lines are processed once the agent is known");
        };
        let mut raw = RawLine {
            bytes: line.bytes,
            raw: line.raw,
            number: line.number,
            unterminated: line.unterminated,
        };
        let head = match peeked {
            Peeked::Event(head) => head,
            Peeked::Blank => return engine.view.blank_line(line.raw, &mut engine.ctx),
            Peeked::Bad(bad) => {
                if *bad == BadLine::NoType && dialect.untyped(&raw, engine)? {
                    return engine.view.blank_line(line.raw, &mut engine.ctx);
                }
                if !engine.view.bad_line(&raw, bad, &mut engine.ctx)? {
                    engine.report_bad_line(bad, &raw)?;
                }
                return Ok(());
            }
        };
        if head.start > 0 {
            let (noise, json) = line.bytes.split_at(head.start);
            raw.bytes = json;
            engine.ctx.diag.warn(
                &mut engine.ctx.out,
                "text glued before an event",
                format_args!("text before the event on this line: {}", Excerpt(noise)),
            );
        }
        let mut class = dialect.classify(head.name);
        if let Some(agent) = other_agent(dialect, head, &raw, class, engine.runs.is_open()) {
            dialect.finish(engine)?;
            (*dialect, *interest) = dialect_for(agent, engine.wants);
            class = dialect.classify(head.name);
        }
        engine.ctx.run_events += u64::from(engine.runs.is_open());
        let raw_view = engine.raw_types.contains(head.name);
        if raw_view && !engine.view.before(&raw, head, dialect, &mut engine.ctx)? {
            return Ok(());
        }
        if class.opens && !engine.runs.is_open() {
            engine.ensure_run(dialect.agent())?;
            engine.ctx.run_events = 1;
        }
        if interest.contains(head.name) {
            dialect.decode(&raw, head, engine)?;
        }
        if raw_view {
            engine.view.after(&raw, head, &mut engine.ctx)?;
        }
        Ok(())
    }
}

/// A dialect for `agent`, with what it should decode for the view.
fn dialect_for(agent: Agent, wants: Wants) -> (AnyDialect, TypeSet) {
    let dialect = AnyDialect::new(agent);
    let interest = dialect.interest(wants);
    (dialect, interest)
}

fn ready(agent: Agent, wants: Wants) -> Slot {
    let (dialect, interest) = dialect_for(agent, wants);
    Slot::Ready { dialect, interest }
}

/// The agent the line belongs to, when it is not the current dialect's: only a line of a
/// type the dialect does not know, or one where a run starts (or between runs), can tell.
fn other_agent(
    dialect: &AnyDialect,
    head: &Head,
    line: &RawLine<'_>,
    class: crate::agent::Class,
    run_open: bool,
) -> Option<Agent> {
    let starts_run = match head.name {
        NameId::SYSTEM => {
            matches!(&head.subtype, Subtype::Known(Some(s)) if s == "init")
                || head.subtype == Subtype::NotPeeked
        }
        NameId::INIT | NameId::THREAD_STARTED | NameId::SESSION_CREATED => true,
        _ => false,
    };
    if class.known && run_open && !starts_run {
        return None;
    }
    detect::sniff(head, line.bytes).filter(|&agent| !same_dialect(agent, dialect.agent()))
}

/// Qwen is read by Claude's dialect.
fn same_dialect(a: Agent, b: Agent) -> bool {
    let family = |a| match a {
        Agent::Qwen => Agent::Claude,
        a => a,
    };
    family(a) == family(b)
}

impl Held {
    fn push(&mut self, line: &Line<'_>, peeked: &Peeked) {
        let start = self.data.len();
        self.data.extend_from_slice(line.raw);
        let offset = line.bytes.as_ptr() as usize - line.raw.as_ptr() as usize;
        self.lines.push(HeldLine {
            raw: start..self.data.len(),
            bytes: start + offset..start + offset + line.bytes.len(),
            number: line.number,
            unterminated: line.unterminated,
            peeked: peeked.clone(),
        });
    }
}

/// What the dialects push into: runs, tool-call pairing and the answer check, done once
/// for every agent, and the view.
pub(crate) struct Engine<V> {
    view: V,
    ctx: Ctx,
    runs: Runs,
    calls: Calls,
    wants: Wants,
    raw_types: TypeSet,
    reports_runs: bool,
    /// The streamed answer the run's final answer is compared with (all of it, or since
    /// its last segment boundary, by agent), when the view wants text.
    answer: Digest,
    scope: Option<Scope>,
    /// Answer text came in this run.
    streamed: bool,
    terminal: Option<Arc<AtomicBool>>,
}

impl<V: View> Engine<V> {
    fn new(view: V, ctx: Ctx) -> Engine<V> {
        Engine {
            wants: view.wants(),
            raw_types: view.raw_types(),
            reports_runs: view.reports_runs(),
            view,
            ctx,
            runs: Runs::default(),
            calls: Calls::default(),
            answer: Digest::default(),
            scope: None,
            streamed: false,
            terminal: None,
        }
    }

    fn report_bad_line(&mut self, bad: &BadLine, line: &RawLine<'_>) -> anyhow::Result<()> {
        let (kind, what): (&'static str, String) = match bad {
            BadLine::NotJson(_) if line.unterminated => (
                "truncated last line",
                format!("truncated last line, no newline at the end of the input ({bad})"),
            ),
            BadLine::NotJson(_) => ("lines that are not JSON", bad.to_string()),
            BadLine::NotObject => ("JSON lines that are not objects", bad.to_string()),
            BadLine::NoType | BadLine::BadType(_) => {
                ("objects without a usable type", bad.to_string())
            }
        };
        self.ctx
            .diag
            .bad_line(&mut self.ctx.out, kind, what, line.bytes)?;
        Ok(())
    }

    /// Says on stderr why a run did not succeed.
    fn note_outcome(&mut self, end: &RunEnd<'_>) {
        if end.outcome == Outcome::Succeeded || !self.reports_runs {
            return;
        }
        let mut position = self.ctx.diag.position();
        if let Some(id) = &self.ctx.run.session_id {
            position = format!("{position}: session {id}");
        }
        let failed_text = end
            .final_text
            .filter(|t| !t.is_empty() && end.outcome != Outcome::NoEnd)
            .map(|t| format!(": {}", Excerpt(t)))
            .unwrap_or_default();
        self.ctx.diag.note(
            &mut self.ctx.out,
            format_args!("{position}: {}{failed_text}", end.outcome),
        );
    }
}

impl<V: View> Sink for Engine<V> {
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
        self.ctx.run = info;
        self.ctx.run_events = 1;
        self.answer.clear();
        self.streamed = false;
        self.scope = answer_scope(self.ctx.run.agent).filter(|_| self.wants.has(Wants::TEXT));
        self.view.run_start(&mut self.ctx)
    }

    fn ensure_run(&mut self, agent: Agent) -> anyhow::Result<()> {
        if self.runs.is_open() {
            return Ok(());
        }
        self.start_run(RunInfo::new(agent))
    }

    fn session_seen(&mut self, id: &str) {
        if self.ctx.run.session_id.is_none() && self.runs.is_open() {
            self.ctx.run.session_id = Some(id.to_owned());
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
            Event::Segment if self.scope == Some(Scope::LastSegment) => self.answer.clear(),
            _ => {}
        }
        self.view.event(&ev, &mut self.ctx)
    }

    fn tool_started(&mut self, call: ToolCall<'_>) -> anyhow::Result<()> {
        match self.calls.start(&call) {
            Some(seq) => self
                .view
                .event(&Event::ToolStarted { call: &call, seq }, &mut self.ctx),
            None => Ok(()),
        }
    }

    fn tool_ended(&mut self, end: ToolOutcome<'_>) -> anyhow::Result<()> {
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
        self.view.event(&Event::ToolEnded(&tool_end), &mut self.ctx)
    }

    fn end_run(&mut self, mut end: RunEnd<'_>) -> anyhow::Result<()> {
        if !self.runs.is_open() {
            return Ok(());
        }
        self.note_outcome(&end);
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
            self.view
                .event(&Event::ToolEnded(&tool_end), &mut self.ctx)?;
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

    fn unreadable(&mut self, what: Reading, line: &[u8], err: &dyn Display) -> anyhow::Result<()> {
        if !self.view.unreadable(what, err, &mut self.ctx)? {
            self.ctx
                .diag
                .readable::<(), _>(&mut self.ctx.out, what, line, Err(err))?;
        }
        Ok(())
    }
}

impl<V: View> Engine<V> {
    fn finish_run(&mut self, end: RunEnd<'_>) -> anyhow::Result<()> {
        self.runs.end(&end.outcome);
        self.view.run_end(&end, &mut self.ctx)
    }
}

/// Which of the streamed answer the agent's final answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// All of it (Cursor's `result` joins every segment).
    Whole,
    /// The last message only (Claude's and Qwen's `result`).
    LastSegment,
}

fn answer_scope(agent: Agent) -> Option<Scope> {
    match agent {
        Agent::Cursor => Some(Scope::Whole),
        Agent::Claude | Agent::Qwen => Some(Scope::LastSegment),
        // Their final answer is taken from the stream itself: nothing to compare.
        Agent::Codex | Agent::Gemini | Agent::OpenCode => None,
    }
}

/// A read error as the user should see it: `--max-line` is bad input (status 4), the rest
/// is an input error (status 2).
fn read_error(name: &str, e: std::io::Error) -> anyhow::Error {
    if let Some(too_long) = e.get_ref().and_then(|e| e.downcast_ref::<LineTooLong>()) {
        return BadInput(format!("{name}: {too_long}")).into();
    }
    anyhow::Error::new(e).context(format!("reading {name}"))
}

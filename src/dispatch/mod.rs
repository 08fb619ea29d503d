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
//! The [`Engine`] (`engine.rs`) is what the dialects push into: it tracks runs for the
//! exit status, pairs tool calls (`agent::calls`), checks the streamed answer against the
//! final one, and passes everything to a [`Driven`] handler (`driven.rs`): the library's
//! [`Handler`](crate::Handler) methods for the normalized events, whoever reads (a CLI view
//! through `view::ViewHandler`, or a library user's handler through `read::Plain`), and
//! the CLI's hooks for raw lines and diagnostics, which a library handler leaves to their
//! defaults.

use std::io::Read;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::agent::event::{Agent, Wants};
use crate::agent::{AnyDialect, Dialect, Format, RawLine, Sink, detect};
use crate::exit::ExitStatus;
use crate::input::line_buffer::{Line, LineReader, LineTooLong};
use crate::input::parts::Parts;
use crate::input::peek::{BadLine, Head, NameId, Peeked, TypeSet, peek};
use crate::input::reader::{Batch, LineInfo, Next, ReadThread, Setup};
use crate::out::diag::InputFailed;
use crate::runs::Runs;

mod driven;
mod engine;

pub(crate) use driven::Driven;
use engine::{Broken, Engine};

/// How many lines, and bytes, are held at most while the agent is not yet known.
pub(crate) const HOLD_LINES: usize = 16;
pub(crate) const HOLD_BYTES: usize = 1 << 20;

pub(crate) struct Dispatcher<D> {
    engine: Engine<D>,
    slot: Slot,
    /// `--agent`: no detection, no other agent's dialect; every run is that dialect's, so
    /// this agent's.
    forced: Option<Agent>,
    max_line: Option<usize>,
    buffer_size: usize,
    /// The event types checked whole (see [`checked_types`]).
    checked: TypeSet,
    boundaries: detect::Boundaries,
    /// Read on this thread, not on a reading thread of the input's own (see
    /// [`Dispatcher::inline`]).
    inline: bool,
    /// The last input's buffer, for the next one when reading inline.
    spare: Vec<u8>,
    /// The last input's reading thread's buffers, for the next one's.
    read_buffers: Vec<Vec<u8>>,
    /// The current input's name, for its dialect ([`Dialect::input_named`]).
    input_name: String,
    /// Lines read where no run is open that belong to the run that starts next
    /// ([`Dialect::before_run`]), held until it starts (at most [`HOLD_LINES`] or
    /// [`HOLD_BYTES`]: past that, or when no run starts, they are read where they are).
    prelude: HeldLines,
    /// Whether such lines are held (not while they are read at last).
    holding: bool,
    /// For an input of several files' lines, which file each line is from.
    parts: Option<Parts>,
    /// The file the line being read is from, when it is not the input itself (a
    /// sub-agent's log read in with its session's).
    file: Option<Arc<str>>,
}

/// The current input's dialect, or the lines held until the agent is known.
enum Slot {
    Undecided(HeldLines),
    Ready {
        dialect: AnyDialect,
        /// The wire types worth decoding for the view.
        interest: TypeSet,
    },
}

#[derive(Default)]
struct HeldLines {
    data: Vec<u8>,
    lines: Vec<HeldLine>,
}

struct HeldLine {
    raw: Range<usize>,
    bytes: Range<usize>,
    number: u64,
    unterminated: bool,
    offset: Option<u64>,
    peeked: Peeked,
    /// The file it is from, when not the input itself (as the dispatcher's `file`).
    file: Option<Arc<str>>,
}

impl<D: Driven> Dispatcher<D> {
    pub(crate) fn new(handler: D, max_line: Option<usize>) -> Self {
        Dispatcher {
            checked: checked_types(&handler),
            engine: Engine::new(handler),
            slot: Slot::Undecided(HeldLines::default()),
            max_line,
            buffer_size: crate::input::line_buffer::DEFAULT_CAPACITY,
            forced: None,
            boundaries: detect::Boundaries::default(),
            inline: false,
            spare: Vec::new(),
            read_buffers: Vec::new(),
            input_name: String::new(),
            prelude: HeldLines::default(),
            holding: true,
            parts: None,
            file: None,
        }
    }

    /// Reads each input on the calling thread, starting in `buffer` (one a reading of
    /// another input left, see [`Dispatcher::take_buffer`]). For the workers of
    /// `crate::parallel`, one per core already: a reading thread per input would add a
    /// thread, fresh buffers and two hand-overs per buffer to each of thousands of small
    /// session logs, and the two threads of each worker would take turns on its core.
    /// Only for regular files: nothing is flushed while waiting for a read.
    pub(crate) fn inline(mut self, buffer: Vec<u8>) -> Self {
        self.inline = true;
        self.spare = buffer;
        self
    }

    /// The buffer the inline reading left, for the next input's dispatcher.
    pub(crate) fn take_buffer(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.spare)
    }

    /// Reads every input as `agent`'s stream (`--agent`): no detection, no switch to
    /// another agent's dialect, and every run is `agent`'s.
    pub(crate) fn agent(mut self, agent: Option<Agent>) -> Self {
        self.forced = agent;
        self
    }

    /// Reads with buffers of this size instead of the usual 1 MiB (they still grow for a
    /// longer line). Small buffers exercise the splitter harder; tests and the fuzz
    /// target use them.
    pub(crate) fn buffer_size(mut self, size: usize) -> Self {
        self.buffer_size = size.max(1);
        self
    }

    /// Sets `flag` while the agent's terminal event has been seen (for `run`, which stops
    /// an agent that lingers after it).
    pub(crate) fn signal_terminal(mut self, flag: Arc<AtomicBool>) -> Self {
        self.engine.terminal = Some(flag);
        self
    }

    pub(crate) fn handler(&mut self) -> &mut D {
        &mut self.engine.handler
    }

    /// Reads one input to its end. Each input holds whole runs: a run still open at the
    /// end of its input ended there.
    ///
    /// The input is read, split and peeked on a thread of its own (see `input::reader`);
    /// here the lines go through the dialect to the view, in order.
    pub(crate) fn feed<R: Read + Send + 'static>(
        &mut self,
        name: &str,
        rdr: R,
    ) -> anyhow::Result<()> {
        self.begin(name);
        self.resume(name, rdr, (1, 0))
    }

    /// Goes on reading the current input from the middle: `rdr` starts at the line
    /// numbered `first_line.0`, `first_line.1` bytes into the input, and reads to its end
    /// (the reading of one big file in parts, when a part did not end cleanly).
    pub(crate) fn resume<R: Read + Send + 'static>(
        &mut self,
        name: &str,
        rdr: R,
        first_line: (u64, u64),
    ) -> anyhow::Result<()> {
        match self.read_on(name, rdr, first_line) {
            // What was read of a failed input is ended as an input's end ends it (its
            // open run has no end); the caller reports it and goes on with the others.
            Err(e) if e.is::<InputFailed>() => {
                self.end()?;
                Err(e)
            }
            read => read.and_then(|()| self.end()),
        }
    }

    fn read_on<R: Read + Send + 'static>(
        &mut self,
        name: &str,
        rdr: R,
        first_line: (u64, u64),
    ) -> anyhow::Result<()> {
        if self.inline {
            return self.read_inline(name, rdr, first_line);
        }
        let setup = Setup {
            first_line,
            ..Setup::new(self.buffer_size, self.max_line, self.checked)
        };
        let mut reader = ReadThread::spawn(rdr, setup, std::mem::take(&mut self.read_buffers))?;
        loop {
            let batch = match reader.poll() {
                Ok(Next::Batch(batch)) => batch,
                Ok(Next::NotYet) => {
                    // Nothing complete is waiting: the next line may be a while coming.
                    self.engine.handler.idle()?;
                    match reader.wait() {
                        Ok(Some(batch)) => batch,
                        Ok(None) => break,
                        Err(e) => return Err(self.engine.handler.read_error(name, e)),
                    }
                }
                Ok(Next::End) => break,
                Err(e) => return Err(self.engine.handler.read_error(name, e)),
            };
            self.lines(&batch, &batch.lines)?;
            reader.recycle(batch);
        }
        self.read_buffers = reader.into_buffers();
        Ok(())
    }

    /// Reads, splits and peeks on this thread (see [`Dispatcher::inline`]), in the
    /// buffer the last input left.
    fn read_inline<R: Read>(
        &mut self,
        name: &str,
        rdr: R,
        (number, offset): (u64, u64),
    ) -> anyhow::Result<()> {
        let buffer = std::mem::take(&mut self.spare);
        let mut lines = LineReader::with_buffer(rdr, self.buffer_size, buffer)
            .max_line(self.max_line)
            .starting_at(number, offset);
        let result = loop {
            match lines.fill() {
                Ok(true) => {}
                Ok(false) => break Ok(()),
                Err(e) => break Err(self.engine.handler.read_error(name, e)),
            }
            let mut step = Ok(());
            while let Some(line) = lines.next_line() {
                let line = self.placed(line);
                let peeked = peek(line.bytes, self.checked);
                step = self
                    .line(&line, &peeked)
                    .and_then(|()| self.engine.handler.line_done());
                if step.is_err() {
                    break;
                }
            }
            if step.is_err() {
                break step;
            }
        };
        self.spare = lines.into_buffer().unwrap_or_default();
        result
    }

    /// Some of a batch's lines, read on another thread (see `crate::parallel::split`).
    pub(crate) fn lines(&mut self, batch: &Batch, lines: &[LineInfo]) -> anyhow::Result<()> {
        for info in lines {
            let line = self.placed(batch.line(info));
            self.line(&line, &info.peeked)?;
            self.engine.handler.line_done()?;
        }
        Ok(())
    }

    /// The reading stops at a run boundary (see [`detect::Boundaries`]), where another
    /// thread reads on: ends the dialect as the boundary would. Returns `false`, having
    /// done nothing, when the reading from the start would not have started afresh there
    /// (a run still open, the agent not yet known): then this one must read on.
    pub(crate) fn cut(&mut self) -> anyhow::Result<bool> {
        let Slot::Ready { dialect, .. } = &mut self.slot else {
            return Ok(false);
        };
        if self.engine.runs.is_open()
            || !self.boundaries.after_terminal()
            || !self.prelude.lines.is_empty()
        {
            return Ok(false);
        }
        dialect.finish(&mut self.engine)?;
        self.engine.handler.idle()?;
        Ok(true)
    }

    /// An input starts: its lines come through [`Dispatcher::push`], then [`Dispatcher::end`].
    pub(crate) fn begin(&mut self, name: &str) {
        self.engine.handler.input(name);
        self.input_name.clear();
        self.input_name.push_str(name);
        self.boundaries = detect::Boundaries::default();
        self.slot = Slot::Undecided(HeldLines::default());
        self.prelude = HeldLines::default();
        self.parts = None;
        self.file = None;
    }

    /// The input just begun is made of several files' lines: `parts` says which file
    /// each is from, so that every line is reported (and `get`'s `$line` counts) in its
    /// own file, not at its place in the stream they make.
    pub(crate) fn spliced(&mut self, parts: Option<Parts>) {
        self.parts = parts;
    }

    /// A line as the reading split it, numbered in its own file (and that file noted).
    fn placed<'l>(&mut self, mut line: Line<'l>) -> Line<'l> {
        if let (Some(parts), Some(offset)) = (&mut self.parts, line.offset) {
            let (file, number) = parts.place(offset, line.number);
            line.number = number;
            let same = match (&self.file, file) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (a, b) => a.is_none() && b.is_none(),
            };
            if !same {
                self.file = file.cloned();
            }
        }
        line
    }

    /// One line the caller already split (with or without its `\n` or `\r\n`), numbered
    /// from 1 within its input: peeked here, then as [`Dispatcher::feed`]'s lines. A line
    /// over the `max_line` limit is refused as the reading thread refuses it.
    pub(crate) fn push(&mut self, line: &[u8], number: u64) -> anyhow::Result<()> {
        let raw = line;
        let unterminated = !line.ends_with(b"\n");
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line
            .strip_prefix(&[crate::input::line_buffer::RS])
            .unwrap_or(line);
        let mut bytes = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(limit) = self.max_line
            && bytes.len() > limit
        {
            let too_long = LineTooLong {
                limit,
                line: number,
            };
            let e = std::io::Error::new(std::io::ErrorKind::InvalidData, too_long);
            return Err(self.engine.handler.read_error("input", e));
        }
        if number == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        let peeked = crate::input::peek::peek(bytes, self.checked);
        let line = Line {
            bytes,
            raw,
            raw_start: 0,
            bytes_start: 0,
            number,
            unterminated,
            offset: None,
        };
        self.line(&line, &peeked)?;
        self.engine.handler.line_done()
    }

    /// The input ended: a run still open ends with it.
    pub(crate) fn end(&mut self) -> anyhow::Result<()> {
        if let Slot::Undecided(held) = &self.slot {
            // An input that held no line is the log its name says, if one does (a session
            // log copied whole into a resumed one reads nothing of its own).
            let named_log = held
                .lines
                .is_empty()
                .then(|| log_named(&self.input_name))
                .flatten();
            let format = named_log.unwrap_or(Format::stream(Agent::Cursor));
            self.decide(self.named(format))?;
        }
        self.replay_prelude()?;
        if let Slot::Ready { dialect, .. } = &mut self.slot {
            dialect.finish(&mut self.engine)?;
        }
        self.engine.handler.idle()
    }

    /// The handler and the runs it saw, without finishing (a worker's input, merged by
    /// `crate::parallel`).
    pub(crate) fn into_parts(self) -> (D, Runs) {
        (self.engine.handler, self.engine.runs)
    }

    /// All inputs are read: gives the exit status.
    pub(crate) fn finish(mut self) -> anyhow::Result<ExitStatus> {
        self.engine.handler.finish(&self.engine.runs)
    }

    fn line(&mut self, line: &Line<'_>, peeked: &Peeked) -> anyhow::Result<()> {
        if let Some(format) = self.boundaries.next(peeked, line.bytes)
            && matches!(self.slot, Slot::Ready { .. })
            && !self.engine.runs.is_open()
        {
            self.renew(self.named(format))?;
        }
        if let Slot::Undecided(held) = &mut self.slot {
            let verdict = match peeked {
                Peeked::Event(head) => detect::sniff(head, &line.bytes[head.start..]),
                Peeked::Bad(BadLine::NoType) => detect::sniff_untyped(line.bytes),
                _ => None,
            };
            // A named agent is never second-guessed: the line only tells its stream from
            // its log, and a line that tells nothing is its stream's (a stream cut before
            // its first line is read as it comes, not held).
            let verdict = match (verdict, self.forced) {
                (verdict, Some(agent)) => Some(Format {
                    agent,
                    log: verdict.is_some_and(|f| f.log),
                }),
                (verdict, None) => verdict,
            };
            match verdict {
                Some(format) => self.decide(format)?,
                None => {
                    held.push(line, peeked, self.file.as_ref());
                    if held.lines.len() >= HOLD_LINES || held.data.len() >= HOLD_BYTES {
                        self.decide(self.named(Format::stream(Agent::Cursor)))?;
                    }
                    return Ok(());
                }
            }
        }
        self.process(line, peeked)
    }

    /// A new run, and nothing of the last one carries over: its dialect as a reading
    /// that starts here has it.
    fn renew(&mut self, format: Format) -> anyhow::Result<()> {
        if let Slot::Ready { dialect, interest } = &mut self.slot {
            dialect.finish(&mut self.engine)?;
            if !dialect.start_afresh_as(format) {
                (*dialect, *interest) = dialect_for(format, self.engine.wants);
                dialect.input_named(&self.input_name);
                if self.forced.is_some() {
                    dialect.fix_agent();
                }
            }
        }
        Ok(())
    }

    /// The format a line tells, as `--agent` names it: the named agent's stream or log.
    fn named(&self, format: Format) -> Format {
        match self.forced {
            Some(agent) => Format { agent, ..format },
            None => format,
        }
    }

    /// The format is known: the held lines go through its dialect.
    fn decide(&mut self, format: Format) -> anyhow::Result<()> {
        let mut next = ready(format, self.engine.wants);
        if let (Some(_), Slot::Ready { dialect, .. }) = (self.forced, &mut next) {
            dialect.fix_agent();
        }
        let Slot::Undecided(held) = std::mem::replace(&mut self.slot, next) else {
            return Ok(());
        };
        if let Slot::Ready { dialect, .. } = &mut self.slot {
            dialect.input_named(&self.input_name);
        }
        self.replay(held, |this, line, peeked| this.process(line, peeked))
    }

    fn process(&mut self, line: &Line<'_>, peeked: &Peeked) -> anyhow::Result<()> {
        if !self.prelude.lines.is_empty() && !self.prelude_goes_on(line, peeked) {
            self.replay_prelude()?;
        }
        let Some((raw, head)) = self.read(line, peeked)? else {
            return Ok(());
        };
        if !self.prelude.lines.is_empty() && self.engine.runs.is_open() {
            // The run the held lines come before started on this line: they are read in
            // it, before what the view makes of this line.
            self.replay_prelude()?;
            self.engine.handler.line(line.number, self.file.as_ref());
        }
        if self.engine.raw_types.contains(head.name) {
            self.engine.handler.after(&raw, head)?;
        }
        Ok(())
    }

    /// Whether the held lines still wait for their run after this line: it is one more of
    /// them, or it starts or opens the run.
    fn prelude_goes_on(&self, line: &Line<'_>, peeked: &Peeked) -> bool {
        let (Peeked::Event(head), Slot::Ready { dialect, .. }) = (peeked, &self.slot) else {
            return false;
        };
        let bytes = &line.bytes[head.start..];
        dialect.before_run(head, bytes)
            || detect::starts_run(head, bytes)
            || dialect.classify(head.name).opens
    }

    /// The held lines, read now: in the run that just started, or, when none did, where
    /// they were (outside any run).
    fn replay_prelude(&mut self) -> anyhow::Result<()> {
        let held = std::mem::take(&mut self.prelude);
        self.holding = false;
        let result = self.replay(held, |this, line, peeked| {
            this.engine.handler.line(line.number, this.file.as_ref());
            this.process(line, peeked)?;
            this.engine.handler.line_done()
        });
        self.holding = true;
        result
    }

    /// Held lines to `f`, each read as from the file it came from; then the file of the
    /// line being read again.
    fn replay(
        &mut self,
        held: HeldLines,
        mut f: impl FnMut(&mut Self, &Line<'_>, &Peeked) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let current = self.file.clone();
        let result = held.replay(|line, peeked, file| {
            self.file = file.cloned();
            f(self, line, peeked)
        });
        self.file = current;
        result
    }

    /// Reads a line into the dialect: the line as the raw views see it and its head, when
    /// [`Driven::after`] is still to be told of it.
    fn read<'l, 'p>(
        &mut self,
        line: &Line<'l>,
        peeked: &'p Peeked,
    ) -> anyhow::Result<Option<(RawLine<'l>, &'p Head)>> {
        self.engine.handler.line(line.number, self.file.as_ref());
        let checked = self.checked;
        let engine = &mut self.engine;
        let Slot::Ready { dialect, interest } = &mut self.slot else {
            unreachable!("lines are processed once the agent is known");
        };
        let mut raw = RawLine {
            bytes: line.bytes,
            raw: line.raw,
            number: line.number,
            unterminated: line.unterminated,
            offset: line.offset,
        };
        let head = match peeked {
            Peeked::Event(head) => head,
            Peeked::Blank => return engine.handler.blank_line(line.raw).map(|()| None),
            Peeked::Bad(bad) => return not_an_event(dialect, engine, &raw, bad).map(|()| None),
        };
        if head.start > 0 {
            let (noise, json) = line.bytes.split_at(head.start);
            raw.bytes = json;
            engine.handler.glued(noise);
        }
        let mut class = dialect.classify(head.name);
        if self.forced.is_none()
            && let Some(format) = other_format(dialect, head, &raw, class, engine.runs.is_open())
        {
            dialect.finish(engine)?;
            (*dialect, *interest) = dialect_for(format, engine.wants);
            class = dialect.classify(head.name);
        }
        if self.holding
            && !engine.runs.is_open()
            && dialect.before_run(head, raw.bytes)
            && self.prelude.has_room(line)
        {
            self.prelude.push(line, peeked, self.file.as_ref());
            return Ok(None);
        }
        // A line that would open a run is checked whole first: a broken one opens none.
        if class.opens
            && !engine.runs.is_open()
            && !checked.contains(head.name)
            && let Err(bad) = crate::input::peek::verify(raw.bytes)
        {
            return engine.handler.bad_line(&raw, &bad).map(|()| None);
        }
        engine.run_events += u64::from(engine.runs.is_open());
        let raw_view = engine.raw_types.contains(head.name);
        if raw_view && !engine.handler.before(&raw, head, dialect)? {
            return Ok(None);
        }
        if class.opens && !engine.runs.is_open() {
            engine.ensure_run(dialect.agent())?;
            engine.run_events = 1;
        }
        if interest.contains(head.name)
            && let Err(e) = dialect.decode(&raw, head, engine)
        {
            // A line the dialect could not read because it is broken (one not checked
            // whole before) is not an event after all.
            let Broken(bad) = e.downcast::<Broken>()?;
            engine.run_events -= u64::from(engine.runs.is_open());
            if still_written(dialect, &raw) {
                return engine.handler.blank_line(line.raw).map(|()| None);
            }
            return engine.handler.bad_line(&raw, &bad).map(|()| None);
        }
        Ok(Some((raw, head)))
    }
}

/// The event types whose lines are checked whole as they are read (see
/// `input::peek::peek`): those that start, end or decide a run for some agent — what
/// they say changes the exit status — or every type, for a handler that checks every line.
pub(crate) fn checked_types<D: Driven>(handler: &D) -> TypeSet {
    if handler.checks_every_line() {
        return TypeSet::ALL;
    }
    let mut set = TypeSet::NONE;
    for format in Format::all() {
        let dialect = AnyDialect::of(format);
        for name in NameId::all() {
            if dialect.classify(name).always {
                set.insert(name);
            }
        }
    }
    set
}

/// The agent whose session log the path names by its place and name alone.
fn log_named(name: &str) -> Option<Format> {
    let path = std::path::Path::new(name);
    Agent::ALL
        .into_iter()
        .find(|agent| agent.spec().store().names_log(path))
        .map(Format::log)
}

/// A line that is not an event: one without `type` the dialect reads, a session log's
/// last line still being written, or a bad line.
fn not_an_event<D: Driven>(
    dialect: &mut AnyDialect,
    engine: &mut Engine<D>,
    raw: &RawLine<'_>,
    bad: &BadLine,
) -> anyhow::Result<()> {
    if *bad == BadLine::NoType && dialect.untyped(raw, engine)? {
        return engine.handler.untyped_line(raw);
    }
    if still_written(dialect, raw) {
        return engine.handler.blank_line(raw.raw);
    }
    engine.handler.bad_line(raw, bad)
}

/// A session log's last line, cut where the agent is still writing it: read up to it, and
/// no warning (a stream cut the same way did not finish, and says so).
fn still_written(dialect: &AnyDialect, line: &RawLine<'_>) -> bool {
    line.unterminated && dialect.format().log
}

/// A dialect for `format`, with what it should decode for the view.
fn dialect_for(format: Format, wants: Wants) -> (AnyDialect, TypeSet) {
    let dialect = AnyDialect::of(format);
    let interest = dialect.interest(wants);
    (dialect, interest)
}

fn ready(format: Format, wants: Wants) -> Slot {
    let (dialect, interest) = dialect_for(format, wants);
    Slot::Ready { dialect, interest }
}

/// The format the line belongs to, when it is not the current dialect's: only a line of a
/// type the dialect does not know, or one where a run starts (or between runs), can tell.
fn other_format(
    dialect: &AnyDialect,
    head: &Head,
    line: &RawLine<'_>,
    class: crate::agent::Class,
    run_open: bool,
) -> Option<Format> {
    if class.known && run_open && !detect::starts_run(head, line.bytes) {
        return None;
    }
    detect::sniff(head, line.bytes).filter(|&format| !format.same_dialect(dialect.format()))
}

impl HeldLines {
    /// Whether `line` can be held too.
    fn has_room(&self, line: &Line<'_>) -> bool {
        self.lines.len() < HOLD_LINES && self.data.len() + line.raw.len() <= HOLD_BYTES
    }

    /// Each held line to `f`, as it was read, with the file it is from.
    fn replay(
        &self,
        mut f: impl FnMut(&Line<'_>, &Peeked, Option<&Arc<str>>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        for h in &self.lines {
            let line = Line {
                bytes: &self.data[h.bytes.clone()],
                raw: &self.data[h.raw.clone()],
                raw_start: 0,
                bytes_start: 0,
                number: h.number,
                unterminated: h.unterminated,
                offset: h.offset,
            };
            f(&line, &h.peeked, h.file.as_ref())?;
        }
        Ok(())
    }

    fn push(&mut self, line: &Line<'_>, peeked: &Peeked, file: Option<&Arc<str>>) {
        let start = self.data.len();
        self.data.extend_from_slice(line.raw);
        let offset = line.bytes.as_ptr() as usize - line.raw.as_ptr() as usize;
        self.lines.push(HeldLine {
            raw: start..self.data.len(),
            bytes: start + offset..start + offset + line.bytes.len(),
            number: line.number,
            unterminated: line.unterminated,
            offset: line.offset,
            peeked: peeked.clone(),
            file: file.cloned(),
        });
    }
}

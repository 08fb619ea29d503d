//! Views: what the user asked to see, written once against the normalized events (see
//! `agent::event`), whatever the agent. One module per view.
//!
//! A view says what it wants decoded ([`View::wants`]); the run's dialect reads only the
//! lines that can give it, so a view that wants the answer never pays for large tool
//! results. The log views also see lines as they are ([`View::raw_types`]).
//!
//! Views are read through the library's own API: [`ViewHandler`] makes a view and its
//! output a [`Handler`] — the one the library's users implement — and adds the CLI's hooks
//! (raw lines, diagnostics, flushing, the exit status).

use std::fmt::{self, Display};
use std::sync::Arc;

use crate::agent::event::{Agent, AnswerCheck, Event, Outcome, RunEnd, RunInfo, Wants};
use crate::agent::{AnyDialect, RawLine};
use crate::dispatch::Driven;
use crate::exit::ExitStatus;
use crate::handler::Handler;
use crate::input::line_buffer::LineTooLong;
use crate::input::peek::{BadLine, Head, TypeSet};
use crate::out::diag::{BadInput, Diag, Excerpt, InputFailed, Unreadable};
use crate::out::{Output, Question};
use crate::runs::Runs;

pub(crate) mod check;
pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod filter;
pub(crate) mod get;
pub(crate) mod json;
pub(crate) mod normalized;
pub(crate) mod progress;
pub(crate) mod result;
pub(crate) mod sessions;
pub(crate) mod stats;
pub(crate) mod statusline;
pub(crate) mod text;
pub(crate) mod thinking;
pub(crate) mod tools;
pub(crate) mod transcript;
pub(crate) mod usage;
pub(crate) mod words;

/// What views write through (the output streams, the input diagnostics) and what they
/// may want to know of the current run.
pub(crate) struct Ctx {
    pub out: Output,
    pub diag: Diag,
    /// The current run, as the engine keeps it (a copy: the views read it here), or the
    /// last one.
    pub run: RunInfo,
    /// Event lines of the current run, once it ends.
    pub run_events: u64,
    /// A run is open.
    run_open: bool,
    /// The current line ended the run.
    ended_here: bool,
}

impl Ctx {
    pub(crate) fn new(out: Output, diag: Diag) -> Ctx {
        Ctx {
            out,
            diag,
            run: RunInfo::new(Agent::Cursor),
            run_events: 0,
            run_open: false,
            ended_here: false,
        }
    }

    /// Whether the current line belongs to [`Ctx::run`]: read while it was open, or the
    /// line that ended it. Lines between runs (Claude's hooks before its `init`) do not.
    pub(crate) fn line_in_run(&self) -> bool {
        self.run_open || self.ended_here
    }

    /// Whether the current line ended [`Ctx::run`].
    pub(crate) fn ends_run(&self) -> bool {
        self.ended_here
    }

    /// Writes a line of the input exactly as read (`raw`, at `offset` in the input). A
    /// view's copy on a worker reading a regular file leaves where the line is instead,
    /// and the main thread copies it from the file: a view passing most of its input
    /// through (`events`) can then run a whole input ahead of the output without holding
    /// its lines in memory.
    pub(crate) fn write_line(&mut self, raw: &[u8], offset: Option<u64>) -> std::io::Result<()> {
        if let Some(offset) = offset
            && let Some(to) = self.diag.to_main()
            && to.copies()
        {
            // What the output holds so far goes first.
            if self.out.holds_bytes() {
                self.out.flush()?;
            }
            return to.copy(offset, raw.len());
        }
        self.out.write_out(raw)
    }

    /// Leaves `question` at this place in a view's copy's output: the view on the main
    /// thread answers it there ([`View::answer`]), knowing what the earlier inputs held.
    /// `weight`: about what it holds, in bytes (a worker sends its output on when it
    /// holds enough). Gives the question back to a view reading alone, which answers it
    /// itself.
    pub(crate) fn ask(&mut self, question: Question, weight: usize) -> Result<(), Question> {
        // A worker's output goes to the main thread where its `Diag`'s messages do.
        let Some(to) = self.diag.to_main() else {
            return Err(question);
        };
        // What the output holds so far goes first.
        let _ = self.out.flush();
        to.ask(question, weight);
        Ok(())
    }
}

/// Checks a run's streamed answer against its final answer, warning when they differ.
/// Returns the final answer when the run succeeded and no answer text was streamed (a
/// `--output-format json` line fed in): the caller prints that instead.
pub(crate) fn settle_answer<'e>(end: &RunEnd<'e>, ctx: &mut Ctx) -> Option<&'e [u8]> {
    match end.answer {
        AnswerCheck::NothingStreamed if end.outcome == Outcome::Succeeded => end.final_text,
        AnswerCheck::Differs { rebuilt, expected } => {
            ctx.diag.warn(
                &mut ctx.out,
                "rebuilt text differs from result",
                format_args!(
                    "the answer text rebuilt from the stream ({rebuilt} bytes) differs from \
                     the run's final answer ({expected} bytes)"
                ),
            );
            None
        }
        _ => None,
    }
}

/// A consumer of events, in the manner of ripgrep's `Sink`: every method has a default
/// that does nothing, and an error ends the run (a closed stdout, or `--strict`).
pub(crate) trait View: Send {
    /// What the run's dialect should decode for [`View::event`].
    fn wants(&self) -> Wants {
        Wants::NONE
    }

    /// The event types [`View::before`] and [`View::after`] are called for.
    fn raw_types(&self) -> TypeSet {
        TypeSet::NONE
    }

    /// Whether every event line is checked whole, as JSON (`check`), not only those that
    /// start, end or decide a run: a broken line then comes to [`View::bad_line`].
    fn checks_every_line(&self) -> bool {
        false
    }

    /// Whether runs that fail or end without their terminal event are noted on stderr
    /// (the run views do; the log views report runs in their own output).
    fn reports_runs(&self) -> bool {
        true
    }

    /// The exit status once the input is read; by default the run status (0 / 1 / 3).
    fn exit_status(&self, runs: &Runs) -> ExitStatus {
        runs.status()
    }

    /// An event line of a type in [`View::raw_types`], before the dialect reads it.
    /// Returns whether the dialect should read it (`check` skips lines it found broken).
    fn before(
        &mut self,
        _line: &RawLine<'_>,
        _head: &Head,
        _dialect: &AnyDialect,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(true)
    }

    /// An event line of a type in [`View::raw_types`], after the dialect read it (and the
    /// events it gave reached the view).
    fn after(&mut self, _line: &RawLine<'_>, _head: &Head, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line holding only whitespace, or one that is not an event in the sense of the
    /// peek but that the dialect read (Codex's legacy lines have no `type`).
    fn blank_line(&mut self, _raw: &[u8], _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A line without `type` that the dialect read (a Cursor transcript's messages):
    /// as a blank line, but to a view that counts events.
    fn untyped_line(&mut self, line: &RawLine<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.blank_line(line.raw, ctx)
    }

    /// A line that is not an event. Returns whether the view reported it itself; if not,
    /// it is reported on stderr.
    fn bad_line(
        &mut self,
        _line: &RawLine<'_>,
        _bad: &BadLine,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// An event the dialect needed could not be read. Returns whether the view reported
    /// it itself; if not, it is reported on stderr.
    fn unreadable(
        &mut self,
        _what: Unreadable,
        _err: &dyn Display,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        Ok(false)
    }

    /// A run starts; `ctx.run` describes it.
    /// A session's title, as its log names it (`None`: the session being read).
    fn title(&mut self, _session: Option<&str>, _title: &str, _ctx: &mut Ctx) {}

    /// The title of the session that holds the line whose id is `line`, wherever it is.
    fn title_of_line(&mut self, _line: &str, _title: &str, _ctx: &mut Ctx) {}

    /// The id of a line of the session being read (for [`View::title_of_line`]).
    fn line_id(&mut self, _id: &str, _ctx: &mut Ctx) {}

    /// A session whose log holds no run: what `info` says of it, its last activity.
    fn empty_session(&mut self, _info: &RunInfo, _last_ms: Option<u64>, _ctx: &mut Ctx) {}

    fn run_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    fn event(&mut self, _ev: &Event<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    fn run_end(&mut self, _end: &RunEnd<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// The input is exhausted.
    fn finish(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// A fresh view with the same options, to read one of several inputs on a worker
    /// thread (`crate::parallel`); `None` (the default) reads them one after another.
    ///
    /// Only for a view whose output for an input does not depend on what earlier inputs
    /// held (each input holds whole runs), and whose state at the end is summed up by
    /// [`View::merge`]: the copies' outputs, written in argument order, then the merged
    /// view's [`View::finish`], are then the same bytes as one view reading every input.
    fn fork(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }

    /// A copy to read a part of one large file (`crate::parallel`'s `split`): the
    /// [`View::fork`] copy, unless the view reads one file faster alone.
    fn fork_part(&self) -> Option<Self>
    where
        Self: Sized,
    {
        self.fork()
    }

    /// Whether the view writes about as many bytes as it reads (`tools --json`, `events
    /// --normalized`): `crate::parallel` then reads large files one after another, as its
    /// copies would mostly wait for the output of the file before theirs.
    fn output_like_input(&self) -> bool {
        false
    }

    /// Adds what a [`View::fork`] copy gathered, over an input after those `self` has seen.
    fn merge(&mut self, _later: Self)
    where
        Self: Sized,
    {
    }

    /// Answers what a [`View::fork`] copy asked ([`Ctx::ask`]) at that place in its
    /// output: after the earlier inputs' copies were merged, and after the questions
    /// asked before it. [`View::before_forked_output`] is not called before what it
    /// writes: a view that has both must not write in an answer before the input's first
    /// bytes.
    fn answer(&mut self, _question: Question, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }

    /// Before the first bytes a [`View::fork`] copy wrote to stdout for an input, in
    /// argument order: what one view reading every input would have written before them
    /// (the table's header before the first row).
    fn before_forked_output(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        Ok(())
    }
}

/// A view with what it writes through: the [`Handler`] the engine drives for the CLI.
pub(crate) struct ViewHandler<V> {
    pub view: V,
    pub ctx: Ctx,
}

impl<V: View> ViewHandler<V> {
    pub(crate) fn new(view: V, ctx: Ctx) -> ViewHandler<V> {
        ViewHandler { view, ctx }
    }
}

/// A view's error, carried as the [`Handler`] error through the engine and unwrapped
/// again (`--strict`'s bad input and a closed stdout are told apart by their type).
#[derive(Debug)]
pub(crate) struct ViewError(anyhow::Error);

impl fmt::Display for ViewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for ViewError {}

impl From<std::io::Error> for ViewError {
    fn from(e: std::io::Error) -> ViewError {
        ViewError(e.into())
    }
}

impl<V: View> Handler for ViewHandler<V> {
    type Error = ViewError;

    fn wants(&self) -> Wants {
        self.view.wants()
    }

    fn run_start(&mut self, run: &RunInfo) -> Result<(), ViewError> {
        self.ctx.run.clone_from(run);
        self.ctx.run_open = true;
        self.view.run_start(&mut self.ctx).map_err(ViewError)
    }

    fn event(&mut self, _run: &RunInfo, event: &Event<'_>) -> Result<(), ViewError> {
        self.view.event(event, &mut self.ctx).map_err(ViewError)
    }

    fn run_end(&mut self, _run: &RunInfo, end: &RunEnd<'_>) -> Result<(), ViewError> {
        self.ctx.run_open = false;
        self.ctx.ended_here = true;
        self.view.run_end(end, &mut self.ctx).map_err(ViewError)
    }
}

impl<V: View> Driven for ViewHandler<V> {
    fn into_anyhow(e: ViewError) -> anyhow::Error {
        e.0
    }

    fn raw_types(&self) -> TypeSet {
        self.view.raw_types()
    }

    fn checks_every_line(&self) -> bool {
        self.view.checks_every_line()
    }

    fn input(&mut self, name: &str) {
        self.ctx.diag.set_source(name);
    }

    fn line(&mut self, number: u64, file: Option<&Arc<str>>) {
        self.ctx.diag.set_line(number);
        self.ctx.diag.set_file(file);
        self.ctx.ended_here = false;
    }

    fn line_done(&mut self) -> anyhow::Result<()> {
        Ok(self.ctx.out.event_done()?)
    }

    fn idle(&mut self) -> anyhow::Result<()> {
        Ok(self.ctx.out.flush()?)
    }

    /// `--max-line` is bad input (status 4), the rest is an input error (status 2).
    fn read_error(&mut self, name: &str, e: std::io::Error) -> anyhow::Error {
        if let Some(too_long) = e.get_ref().and_then(|e| e.downcast_ref::<LineTooLong>()) {
            return BadInput(format!("{name}: {too_long}")).into();
        }
        InputFailed(format!("cannot read {name} to its end: {e}")).into()
    }

    fn glued(&mut self, noise: &[u8]) {
        self.ctx.diag.warn(
            &mut self.ctx.out,
            "text glued before an event",
            format_args!("text before the event on this line: {}", Excerpt(noise)),
        );
    }

    fn before(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        dialect: &AnyDialect,
    ) -> anyhow::Result<bool> {
        self.view.before(line, head, dialect, &mut self.ctx)
    }

    fn after(&mut self, line: &RawLine<'_>, head: &Head) -> anyhow::Result<()> {
        self.view.after(line, head, &mut self.ctx)
    }

    fn blank_line(&mut self, raw: &[u8]) -> anyhow::Result<()> {
        self.view.blank_line(raw, &mut self.ctx)
    }

    fn untyped_line(&mut self, line: &RawLine<'_>) -> anyhow::Result<()> {
        self.view.untyped_line(line, &mut self.ctx)
    }

    fn bad_line(&mut self, line: &RawLine<'_>, bad: &BadLine) -> anyhow::Result<()> {
        if self.view.bad_line(line, bad, &mut self.ctx)? {
            return Ok(());
        }
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

    fn unreadable(
        &mut self,
        what: Unreadable,
        line: &[u8],
        err: &dyn Display,
    ) -> anyhow::Result<()> {
        if !self.view.unreadable(what, err, &mut self.ctx)? {
            self.ctx
                .diag
                .readable::<(), _>(&mut self.ctx.out, what, line, Err(err))?;
        }
        Ok(())
    }

    fn session_seen(&mut self, id: &str) {
        self.ctx.run.session_id = Some(id.to_owned());
    }

    fn model_seen(&mut self, model: &str) {
        self.ctx.run.model = Some(model.to_owned());
    }

    fn prompt_seen(&mut self, prompt: &str) {
        self.ctx.run.prompt = Some(prompt.to_owned());
    }

    fn title(&mut self, session: Option<&str>, title: &str) {
        self.view.title(session, title, &mut self.ctx);
    }

    fn title_of_line(&mut self, line: &str, title: &str) {
        self.view.title_of_line(line, title, &mut self.ctx);
    }

    fn line_id(&mut self, id: &str) {
        self.view.line_id(id, &mut self.ctx);
    }

    fn empty_session(&mut self, info: &RunInfo, last_ms: Option<u64>) {
        self.view.empty_session(info, last_ms, &mut self.ctx);
    }

    /// Says on stderr why a run did not succeed.
    fn ending(&mut self, run: &RunInfo, end: &RunEnd<'_>, events: u64) {
        self.ctx.run_events = events;
        if end.outcome == Outcome::Succeeded || !self.view.reports_runs() {
            return;
        }
        let mut position = self.ctx.diag.position();
        if let Some(id) = &run.session_id {
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

    fn finish(&mut self, runs: &Runs) -> anyhow::Result<ExitStatus> {
        let ctx = &mut self.ctx;
        if runs.count() == 0 && self.view.reports_runs() {
            ctx.diag
                .note(&mut ctx.out, "the input holds no run and no result event");
        }
        self.view.finish(ctx)?;
        ctx.diag.finish(&mut ctx.out);
        ctx.out.flush()?;
        Ok(self.view.exit_status(runs))
    }
}

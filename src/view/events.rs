//! `events`: the matching events, passed through byte for byte.
//!
//! Lines are written exactly as read (terminator included), never re-serialized. Lines
//! that are not events (blank, not JSON) meet no criterion: they pass only with no
//! filter at all (so `events` alone reproduces its input) or with `--invert`.
//!
//! `-c` counts the matching events (blank and bad lines are not events). Exit status, as
//! grep's: 0 when some event matched, 1 when none did.

use crate::agent::RawLine;
use crate::agent::event::{Event, RunEnd, Wants};
use crate::exit::ExitStatus;
use crate::input::peek::{BadLine, Head, TypeSet};
use crate::out::held::HeldOutput;
use crate::runs::Runs;
use crate::view::filter::{EventFilter, LineFacts};
use crate::view::{Ctx, View};

#[derive(Debug, Clone, Default)]
pub struct EventsOptions {
    pub filter: EventFilter,
    /// Only the events of the last run in the input.
    pub last_run: bool,
    /// Print the number of matching events instead of the events.
    pub count: bool,
}

pub(crate) struct EventsView {
    opts: EventsOptions,
    matched: u64,
    facts: LineFacts,
    /// With `--last-run`: the current run's matching lines, written at the end.
    held: HeldOutput,
    /// With `--last-run`, the last run has ended: the next event line after the one that
    /// ended it starts the next run's lines.
    run_ended: bool,
}

impl EventsView {
    pub(crate) fn new(opts: EventsOptions) -> EventsView {
        EventsView {
            opts,
            matched: 0,
            facts: LineFacts::default(),
            held: HeldOutput::default(),
            run_ended: false,
        }
    }

    /// Writes (or holds, or counts) a line. Only events are counted; blank and bad
    /// lines that pass are written but are not events.
    /// With `--last-run`: what was held is the last run's, and a new run begins.
    fn next_run(&mut self) -> anyhow::Result<()> {
        self.run_ended = false;
        self.held.clear()?;
        self.matched = 0;
        Ok(())
    }

    fn pass(
        &mut self,
        raw: &[u8],
        offset: Option<u64>,
        is_event: bool,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        self.matched += u64::from(is_event);
        if self.opts.count {
            return Ok(());
        }
        if self.opts.last_run {
            return self.held.push(raw);
        }
        ctx.write_line(raw, offset)?;
        Ok(())
    }
}

impl View for EventsView {
    fn wants(&self) -> Wants {
        self.opts.filter.wants()
    }

    fn raw_types(&self) -> TypeSet {
        self.opts.filter.raw_types()
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        if self.matched > 0 {
            ExitStatus::SUCCESS
        } else {
            ExitStatus::NO_MATCH
        }
    }

    /// Lines pass or not by what their own run says; only the count (for `--count` and
    /// the exit status) spans inputs. The lines a copy passes are most of its input: it
    /// leaves where they are in the file ([`Ctx::write_line`]) rather than the bytes,
    /// since a later input's worker may only run a bounded buffer ahead of the output.
    /// `--last-run` keeps the last run of all the inputs: one view reads them in turn.
    fn fork(&self) -> Option<Self> {
        (!self.opts.last_run).then(|| EventsView::new(self.opts.clone()))
    }

    fn merge(&mut self, later: Self) {
        self.matched += later.matched;
    }

    fn run_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.run_ended {
            self.next_run()?;
        }
        Ok(())
    }

    /// With `--last-run`, a run's lines are those after the last run's end, from the
    /// first event line: the lines before its start that belong to it (Claude's hooks
    /// before its `init`) are kept with it.
    fn run_end(&mut self, _end: &RunEnd<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        self.run_ended = self.opts.last_run;
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.facts.event(ev, ctx);
        Ok(())
    }

    fn after(&mut self, line: &RawLine<'_>, head: &Head, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.run_ended && !ctx.line_in_run() {
            self.next_run()?;
        }
        if self.opts.filter.passes(line, head, &self.facts, ctx) {
            self.pass(line.raw, line.offset, true, ctx)?;
        }
        Ok(())
    }

    /// An event of no type (a Cursor transcript's message): no criterion on types or
    /// fields matches it, but it is an event for `-c` and the exit status.
    fn untyped_line(&mut self, line: &RawLine<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.filter.passes_non_events() {
            self.pass(line.raw, line.offset, true, ctx)?;
        }
        Ok(())
    }

    fn blank_line(&mut self, raw: &[u8], ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.filter.passes_non_events() {
            self.pass(raw, None, false, ctx)?;
        }
        Ok(())
    }

    fn bad_line(
        &mut self,
        line: &RawLine<'_>,
        _bad: &BadLine,
        ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        if self.opts.filter.passes_non_events() {
            self.pass(line.raw, line.offset, false, ctx)?;
        }
        Ok(false)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.count {
            ctx.out
                .write_out(format!("{}\n", self.matched).as_bytes())?;
        } else if self.opts.last_run {
            self.held.write_to(&mut ctx.out)?;
        }
        Ok(())
    }
}

//! The dispatcher: lines in, events routed to the chosen view.
//!
//! Lines come from the reading thread (see `reader`) already split and with their `type`
//! peeked (see `event`), as soon as a read returns them; output is flushed when no line is
//! waiting, just before the dispatcher blocks for more (a live producer may be slow). Runs
//! are tracked for the exit status, and only the event types the view asked for reach it.

use std::borrow::Cow;
use std::io::Read;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::diag::{BadInput, Reading};
use crate::event::{self, BadLine, EventKind, Head, Subtype};
use crate::line_buffer::{Line, LineTooLong};
use crate::reader::{Next, Peeked, Reader};
use crate::session::{ExitStatus, Outcome, Sessions};
use crate::view::{Ctx, Event, RunInfo, RunResult, SessionEnd, View};

pub struct Dispatcher<V> {
    view: V,
    interest: event::KindSet,
    sessions: Sessions,
    ctx: Ctx,
    max_line: Option<usize>,
    buffer_size: usize,
    reports_runs: bool,
    /// Set when a `result` event arrives (for `run`, which stops the agent after it).
    result_seen: Option<Arc<AtomicBool>>,
}

impl<V: View> Dispatcher<V> {
    pub fn new(view: V, ctx: Ctx, max_line: Option<usize>) -> Self {
        Dispatcher {
            interest: view.interest(),
            reports_runs: view.reports_runs(),
            buffer_size: crate::line_buffer::DEFAULT_CAPACITY,
            result_seen: None,
            view,
            sessions: Sessions::default(),
            ctx,
            max_line,
        }
    }

    /// Reads with buffers of this size instead of the usual 1 MiB (they still grow for a
    /// longer line). Small buffers exercise the splitter harder; tests and the fuzz
    /// target use them.
    pub fn buffer_size(mut self, size: usize) -> Self {
        self.buffer_size = size.max(1);
        self
    }

    /// Sets `flag` when a `result` event arrives.
    pub fn signal_results(mut self, flag: Arc<AtomicBool>) -> Self {
        self.result_seen = Some(flag);
        self
    }

    pub fn ctx(&mut self) -> &mut Ctx {
        &mut self.ctx
    }

    /// Reads one input to its end. Each input holds whole runs: a run still open at the
    /// end of its input ended there without a result (a killed producer's log).
    ///
    /// The input is read, split and peeked on a thread of its own (see `reader`); here
    /// the lines go to the view in order.
    pub fn feed<R: Read + Send + 'static>(&mut self, name: &str, rdr: R) -> anyhow::Result<()> {
        self.ctx.diag.set_source(name);
        let mut reader = Reader::spawn(rdr, self.buffer_size, self.max_line)?;
        loop {
            let batch = match reader.poll() {
                Ok(Next::Batch(batch)) => batch,
                Ok(Next::NotYet) => {
                    // Nothing complete is waiting: the next line may be a while coming.
                    self.ctx.out.flush()?;
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
                self.ctx.diag.set_line(info.number);
                self.line(&batch.line(info), &info.peeked)?;
                self.ctx.out.event_done()?;
            }
            reader.recycle(batch);
        }
        self.ctx.out.flush()?;
        self.end_open_run()
    }

    fn end_open_run(&mut self) -> anyhow::Result<()> {
        if self.sessions.is_open() {
            let outcome = self.sessions.end(Outcome::NoResult);
            self.run_ended(&outcome, None)?;
        }
        Ok(())
    }

    /// All inputs are read: gives the exit status.
    pub fn finish(mut self) -> anyhow::Result<ExitStatus> {
        self.end_open_run()?;
        if self.sessions.runs() == 0 && self.reports_runs {
            self.ctx.diag.note(
                &mut self.ctx.out,
                "the input holds no run and no result event",
            );
        }
        self.view.finish(&mut self.ctx)?;
        self.ctx.diag.finish(&mut self.ctx.out);
        self.ctx.out.flush()?;
        Ok(self.view.exit_status(&self.sessions))
    }

    fn line(&mut self, line: &Line<'_>, peeked: &Peeked) -> anyhow::Result<()> {
        let bytes = line.bytes;
        let head = match peeked {
            Peeked::Event(head) => head,
            Peeked::Blank => return self.view.blank_line(line.raw, &mut self.ctx),
            Peeked::Bad(bad) => {
                if !self.view.bad_line(bad, line, &mut self.ctx)? {
                    self.report_bad_line(bad, bytes, line.unterminated)?;
                }
                return Ok(());
            }
        };
        match head.kind {
            EventKind::System => self.system(head, bytes)?,
            kind if kind.opens_session() && !self.sessions.is_open() => {
                self.start(RunInfo::default())?
            }
            _ => {}
        }
        if self.interest.contains(head.kind) {
            let ev = Event {
                line: bytes,
                raw: line.raw,
                head,
            };
            self.view.event(&ev, &mut self.ctx)?;
        }
        if head.kind == EventKind::Result {
            self.result(bytes)?;
        }
        Ok(())
    }

    fn report_bad_line(
        &mut self,
        bad: &BadLine,
        line: &[u8],
        unterminated: bool,
    ) -> anyhow::Result<()> {
        let (kind, what): (&'static str, String) = match bad {
            BadLine::NotJson(_) if unterminated => (
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
            .bad_line(&mut self.ctx.out, kind, what, line)?;
        Ok(())
    }

    fn system(&mut self, head: &Head, line: &[u8]) -> anyhow::Result<()> {
        let is_init = match &head.subtype {
            Subtype::Known(sub) => sub.as_deref() == Some("init"),
            Subtype::NotPeeked => true,
        };
        if !is_init {
            return Ok(());
        }
        match self
            .ctx
            .readable(Reading::SystemInit, line, event::read_system(line))?
        {
            Some(sys) if sys.subtype.as_deref() == Some("init") => self.start(RunInfo {
                session_id: sys.session_id.map(Cow::into_owned),
                model: sys.model.map(Cow::into_owned),
                cwd: sys.cwd.map(Cow::into_owned),
            }),
            Some(_) => Ok(()),
            None => self.start(RunInfo::default()),
        }
    }

    /// A run starts; the one still open, if any, ended without a result.
    fn start(&mut self, run: RunInfo) -> anyhow::Result<()> {
        self.end_open_run()?;
        self.sessions.start();
        self.ctx.run = run;
        self.view.session_start(&mut self.ctx)
    }

    fn result(&mut self, line: &[u8]) -> anyhow::Result<()> {
        if let Some(flag) = &self.result_seen {
            flag.store(true, Ordering::Relaxed);
        }
        let parsed = self
            .ctx
            .readable(Reading::Result, line, event::read_result(line))?;
        let outcome = match &parsed {
            Some(ev) if ev.succeeded() => Outcome::Succeeded,
            Some(ev) => Outcome::Failed {
                subtype: ev.subtype.as_deref().unwrap_or("").to_owned(),
                is_error: ev.is_error.unwrap_or(false),
            },
            None => Outcome::Unreadable,
        };
        let outcome = self.sessions.end(outcome);
        let result = parsed.as_ref().map(|event| RunResult {
            event,
            text: event.text().as_bytes(),
            line,
        });
        self.run_ended(&outcome, result)
    }

    fn run_ended(
        &mut self,
        outcome: &Outcome,
        result: Option<RunResult<'_>>,
    ) -> anyhow::Result<()> {
        if *outcome != Outcome::Succeeded && self.reports_runs {
            let mut position = self.ctx.diag.position();
            if let Some(id) = &self.ctx.run.session_id {
                position = format!("{position}: session {id}");
            }
            let failed_text = result
                .as_ref()
                .map(|r| r.text)
                .filter(|t| !t.is_empty())
                .map(|t| format!(": {}", crate::diag::Excerpt(t)))
                .unwrap_or_default();
            self.ctx.diag.note(
                &mut self.ctx.out,
                format_args!("{position}: {outcome}{failed_text}"),
            );
        }
        self.view
            .session_end(&SessionEnd { outcome, result }, &mut self.ctx)
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

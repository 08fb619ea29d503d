//! One big file read by several workers at once, split at run boundaries.
//!
//! The reading thread reads, splits and peeks the file as for one reader (see
//! `input::reader`); a dealer thread hands its batches of lines to the workers in turns,
//! a *part* of at least [`PART`] bytes to each. A part ends only at a run boundary
//! ([`detect::Boundaries`]: the line after a terminal event starts a run and tells its
//! agent), where the dispatcher starts the next run afresh, as at the start of an input.
//! So each part is read by a worker of its own, with a fresh dispatcher and a copy of
//! the view ([`View::fork`]), and the main thread writes the parts' output in order and
//! merges the copies, as for many files (see the parent module). Nothing is copied: a
//! batch that holds a boundary goes to both workers, each reading its side.
//!
//! A boundary is only clean if the reading from the start would start afresh there: the
//! last run closed, and the agent known (a file that opens with lines telling no agent
//! holds them until one does), which the peek alone cannot see. The worker at a part's
//! end checks ([`Dispatcher::cut`]); when the boundary is not clean, that worker reads the
//! rest of the file itself, from where the next part starts, and the later parts' output
//! is dropped unwritten. `tests/it/reference.rs` compares parts of every size, and a file
//! whose first part ends before its agent is known, with the plain reading.
//!
//! For a regular file only (the rest of it can be read again), of at least two parts, and
//! at most [`MAX_WORKERS`] workers.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, SyncSender, sync_channel};

use super::{
    PiecesFrom, PiecesTo, Source, Spares, WORKER_BUFFER, pieces_channel, shorter, worker_ctx,
    write_pieces,
};
use crate::agent::detect;
use crate::agent::event::Wants;
use crate::config::Config;
use crate::dispatch::{Dispatcher, Driven, checked_types};
use crate::exit::ExitStatus;
use crate::input::Input;
use crate::input::reader::{Batch, ReadThread, Setup};
use crate::out::diag::Diag;
use crate::out::{Output, OutputMode};
use crate::runs::Runs;
use crate::view::{Ctx, View, ViewHandler};

/// The least a part holds, in bytes: a part ends at the first run boundary after it.
/// Small enough that a worker's output for its part mostly fits the pieces it may write
/// ahead ([`AHEAD`](super::AHEAD)); large enough that handing one out (a fresh dispatcher,
/// a copy of the view) costs little next to reading it. `CURSOR_STREAM_PART` sets another
/// (the tests cut at every boundary).
///
/// It must also be well under the batches in flight (a few [`WORKER_BUFFER`]s): the
/// dealer can only hand the next worker a part while the reading thread has a buffer to
/// fill, and with larger parts one worker holds every buffer while the other waits.
const PART: u64 = 512 << 10;

/// The reading thread, which the parts share, reads, splits and peeks several times
/// faster than a worker decodes (`stats --json`), so a few workers catch up with it: more
/// than this would wait for it, and each holds buffers and output (see [`drive`]).
const MAX_WORKERS: usize = 4;

fn part_size() -> u64 {
    std::env::var("CURSOR_STREAM_PART")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(PART)
}

/// What the dealer tells a worker.
enum Work<V> {
    /// A part starts: the view's copy and where its output and its end go.
    Begin(Part<V>),
    /// Lines of the part.
    Lines(Arc<Batch>, Range<usize>),
    /// The part ends: at a run boundary, where the next part starts (its line number and
    /// offset), or at the end of the file.
    End(Option<(u64, u64)>),
    /// Reading the file failed here.
    Failed(io::Error),
}

struct Part<V> {
    view: V,
    /// The file's first part.
    first: bool,
    pieces: PiecesTo,
    done: SyncSender<Done<V>>,
}

/// A part, read.
struct Done<V> {
    view: V,
    runs: Runs,
    result: anyhow::Result<()>,
    /// The part did not end cleanly: its worker read the rest of the file.
    read_on: bool,
}

/// What the main thread receives of a part, in the file's order.
struct Gathered<V> {
    pieces: PiecesFrom,
    done: Receiver<Done<V>>,
}

/// Whether `config`'s one input is a regular file large enough to read in parts, by a
/// view that decodes tool calls (most of a log's bytes). A view that only wants the
/// answer, or only the peeked types, is about as fast as the reading thread the parts
/// share: split, it would only pay for the workers.
pub(crate) fn worth_it(config: &Config, wants: Wants) -> bool {
    let [Input::Path(path)] = config.inputs.as_slice() else {
        return false;
    };
    cfg!(unix)
        && wants.intersects(Wants::TOOLS)
        && std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() >= 2 * part_size())
        && crate::stores::open::is_plain(path)
}

/// Reads `config`'s one file in parts with `jobs` workers, `view` gathering; gives the
/// exit status as the plain reading does. Gives the view back when it does not fork
/// (nothing read).
pub(crate) fn drive<V: View>(
    view: V,
    config: &Config,
    mode: OutputMode,
    jobs: usize,
) -> Result<anyhow::Result<ExitStatus>, V> {
    let Some(proto) = view.fork_part() else {
        return Err(view);
    };
    let [Input::Path(path)] = config.inputs.as_slice() else {
        return Err(view);
    };
    let jobs = jobs.min(MAX_WORKERS);
    let name = config.inputs[0].name();
    let out = Output::new(Box::new(io::stdout().lock()), Box::new(io::stderr()), mode);
    let ctx = Ctx::new(out, Diag::new(config.strict, config.quiet));
    let mut handler = ViewHandler::new(view, ctx);
    let opened = File::open(path).and_then(|file| Ok((file.try_clone()?, file)));
    let (file, again) = match opened {
        // The parts and the rest read from a part's end count offsets from the file's
        // start: a handle that shares a position already moved (`/dev/fd/N` on macOS) is
        // read by one reader.
        Ok((file, _)) if !io::Seek::stream_position(&mut &file).is_ok_and(|at| at == 0) => {
            let ViewHandler { view, .. } = handler;
            return Err(view);
        }
        Ok(files) => files,
        Err(e) => {
            let ctx = &mut handler.ctx;
            ctx.out.begin_err_block();
            ctx.out
                .write_err(format!("cursor-stream: error: cannot read {name}: {e}\n").as_bytes());
            return Ok(handler.finish(&Runs::default()).map(|_| ExitStatus::ERROR));
        }
    };
    let setup = Setup {
        // A batch or two with each worker, one with the dealer, one being read into.
        buffers: 2 * jobs + 2,
        ..Setup::new(WORKER_BUFFER, config.max_line, checked_types(&handler))
    };
    let reader = match ReadThread::spawn(file, setup, Vec::new()) {
        Ok(reader) => reader,
        Err(e) => return Ok(Err(e.into())),
    };
    let again = Arc::new(again);
    // Parts dealt and not yet written: each may hold `AHEAD` pieces of output.
    let (parts_to, parts_from) = sync_channel::<Gathered<V>>(jobs + 1);
    Ok(std::thread::scope(|s| {
        let mut workers = Vec::with_capacity(jobs);
        for _ in 0..jobs {
            let (to, from) = sync_channel::<Work<V>>(8);
            workers.push(to);
            let worker = Worker {
                recycle: reader.recycler(),
                name: &name,
                config,
                mode,
                again: again.clone(),
            };
            s.spawn(move || worker.run(from));
        }
        // The parts' lines passed through are copied from the file (`Mark::Copy`).
        let source = Source::default();
        #[cfg(unix)]
        if let Ok(file) = again.try_clone() {
            let _ = source.set(file);
        }
        s.spawn(move || deal(reader, proto, workers, parts_to, Spares::default(), source));
        gather(&mut handler, parts_from, &name)
    }))
}

/// The dealer: the batches to the workers in turns, a part to each.
fn deal<V: View>(
    mut reader: ReadThread,
    proto: V,
    workers: Vec<SyncSender<Work<V>>>,
    parts: SyncSender<Gathered<V>>,
    spares: Spares,
    source: Source,
) {
    let mut turn = 0;
    let begin = |turn: usize, first: bool| -> Option<()> {
        let (pieces_to, pieces) = pieces_channel(&spares, source.clone());
        let (done_to, done) = sync_channel(1);
        parts.send(Gathered { pieces, done }).ok()?;
        let part = Part {
            view: proto.fork_part()?,
            first,
            pieces: pieces_to,
            done: done_to,
        };
        workers[turn].send(Work::Begin(part)).ok()
    };
    let send = |turn: usize, work: Work<V>| workers[turn].send(work).ok();
    if begin(turn, true).is_none() {
        return;
    }
    let part = part_size();
    let mut size = 0u64;
    let mut boundaries = detect::Boundaries::default();
    loop {
        let batch = match reader.wait() {
            Ok(Some(batch)) => Arc::new(batch),
            Ok(None) => break,
            Err(e) => {
                let _ = send(turn, Work::Failed(e));
                return;
            }
        };
        let mut from = 0;
        for (i, info) in batch.lines.iter().enumerate() {
            let boundary = boundaries.next(&info.peeked, batch.line(info).bytes);
            if size >= part && boundary.is_some() {
                if from < i && send(turn, Work::Lines(batch.clone(), from..i)).is_none() {
                    return;
                }
                let next = (info.number, batch.offset(info));
                if send(turn, Work::End(Some(next))).is_none() {
                    return;
                }
                turn = (turn + 1) % workers.len();
                if begin(turn, false).is_none() {
                    return;
                }
                (from, size) = (i, 0);
            }
            size += info.len() as u64;
        }
        let all = batch.lines.len();
        if from == all {
            // No line left for the worker (a batch always holds one; the buffer goes back).
            if let Some(batch) = Arc::into_inner(batch) {
                reader.recycle(batch);
            }
        } else if send(turn, Work::Lines(batch, from..all)).is_none() {
            return;
        }
    }
    let _ = send(turn, Work::End(None));
}

/// What a worker needs besides its work.
struct Worker<'c> {
    recycle: Sender<Batch>,
    name: &'c str,
    config: &'c Config,
    mode: OutputMode,
    /// The file again, to read on from a part's end that was not clean.
    again: Arc<File>,
}

/// A part being read.
struct Reading<V: View> {
    dispatcher: Dispatcher<ViewHandler<V>>,
    result: anyhow::Result<()>,
    done: SyncSender<Done<V>>,
}

impl Worker<'_> {
    fn run<V: View>(self, work: Receiver<Work<V>>) {
        let mut part: Option<Reading<V>> = None;
        // Once no later part is wanted (the main thread is gone, or this worker read the
        // rest of the file), the batches still come back: the reading thread may be
        // waiting for one, and the dealer for the reading thread.
        let mut gone = false;
        // Ends when the dealer is done (or gone).
        for item in work {
            match item {
                Work::Begin(_) | Work::End(_) | Work::Failed(_) if gone => {}
                Work::Begin(p) => part = Some(self.begin(p)),
                Work::Lines(batch, lines) => {
                    if let Some(r) = &mut part
                        && r.result.is_ok()
                    {
                        r.result = r.dispatcher.lines(&batch, &batch.lines[lines]);
                    }
                    if let Some(batch) = Arc::into_inner(batch) {
                        let _ = self.recycle.send(batch);
                    }
                }
                Work::End(next) => {
                    let Some(mut r) = part.take() else { continue };
                    let mut read_on = false;
                    if r.result.is_ok() {
                        r.result = match next {
                            None => r.dispatcher.end(),
                            Some(next) => match r.dispatcher.cut() {
                                Ok(true) => Ok(()),
                                Ok(false) => {
                                    read_on = true;
                                    self.read_on(&mut r.dispatcher, next)
                                }
                                Err(e) => Err(e),
                            },
                        };
                    }
                    let sent = r.finish(None, read_on);
                    gone = !sent || read_on;
                }
                Work::Failed(e) => {
                    let Some(mut r) = part.take() else { continue };
                    let e = r.dispatcher.handler().read_error(self.name, e);
                    r.finish(Some(e), false);
                    gone = true;
                }
            }
        }
    }

    fn begin<V: View>(&self, part: Part<V>) -> Reading<V> {
        let ctx = worker_ctx(part.pieces, self.config, self.mode);
        let mut dispatcher =
            Dispatcher::new(ViewHandler::new(part.view, ctx), self.config.max_line)
                .buffer_size(WORKER_BUFFER);
        // A later part starts at a run boundary, which tells the agent (see the module
        // doc); `--agent` is for the start of the file.
        if part.first {
            dispatcher = dispatcher.agent(self.config.agent);
        }
        dispatcher.begin(self.name);
        Reading {
            dispatcher,
            result: Ok(()),
            done: part.done,
        }
    }

    /// The part did not end at a clean boundary: reads the rest of the file, as the
    /// reading from the start would have gone on.
    fn read_on<V: View>(
        &self,
        dispatcher: &mut Dispatcher<ViewHandler<V>>,
        (line, offset): (u64, u64),
    ) -> anyhow::Result<()> {
        let rest = At {
            file: self.again.clone(),
            offset,
        };
        dispatcher.resume(self.name, rest, (line, offset))
    }
}

impl<V: View> Reading<V> {
    /// The part is read (or failed with `error`): what its copy of the view holds goes to
    /// the main thread. Returns whether the main thread is still there.
    fn finish(self, error: Option<anyhow::Error>, read_on: bool) -> bool {
        let (handler, runs) = self.dispatcher.into_parts();
        let ViewHandler { view, ctx } = handler;
        // Dropping the output sends what it holds.
        drop(ctx);
        let done = Done {
            view,
            runs,
            result: error.map_or(self.result, Err),
            read_on,
        };
        self.done.send(done).is_ok()
    }
}

/// The main thread: the parts' pieces in order, the copies merged, the end.
fn gather<V: View>(
    handler: &mut ViewHandler<V>,
    parts: Receiver<Gathered<V>>,
    name: &str,
) -> anyhow::Result<ExitStatus> {
    let mut runs = Runs::default();
    let mut lost = 0;
    // Ends when the dealer is done and every part is written.
    for part in parts {
        lost += write_pieces(handler, &part.pieces)?;
        let done = part
            .done
            .recv()
            .map_err(|_| anyhow::anyhow!("a worker reading the input stopped"))?;
        runs.merge(&done.runs);
        handler.view.merge(done.view);
        done.result?;
        if done.read_on {
            // The later parts' workers find their channels closed and stop.
            break;
        }
    }
    if lost > 0 {
        shorter(&mut handler.ctx, name, lost);
        return handler.finish(&runs).map(|_| ExitStatus::ERROR);
    }
    handler.finish(&runs)
}

/// The rest of a file from `offset`, read where it is (`pread`): the reading thread
/// may still be reading the same open file.
struct At {
    file: Arc<File>,
    offset: u64,
}

impl io::Read for At {
    /// Elsewhere than on Unix [`super::read_at`] refuses, and [`worth_it`] never splits.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = super::read_at(&self.file, buf, self.offset)?;
        self.offset += n as u64;
        Ok(n)
    }
}

//! Many files at once: one worker per core, the outputs in argument order.
//!
//! Each input holds whole runs, so a view whose output for an input owes nothing to the
//! earlier inputs ([`View::fork`]) can read every input with a copy of itself on a worker
//! thread. A worker writes its output and diagnostics as [`Piece`]s (its output gathered
//! to [`PIECE`] bytes, see [`Pieces`]) into a small bounded channel of that input's own;
//! the main thread drains the channels in argument order,
//! writes the pieces, counts the diagnostics with one [`Diag`] (the first few of a kind
//! shown, the rest summed up at the end, as when one view reads everything), merges each
//! copy's state into the view ([`View::merge`]) and the runs for the exit status, then
//! finishes as the sequential reading does. A worker that got ahead waits on its full
//! channel: memory stays bounded (about [`AHEAD`] pieces a worker), whatever the
//! sizes of the inputs. The bytes are those of the sequential reading (`tests/reference.rs`
//! compares both).
//!
//! One big file is read the same way, in parts that end at run boundaries
//! ([`split`]).
//!
//! Only for files, read by a view that forks, to a stdout and stderr that are not
//! terminals (a terminal's cleaning and fitting keep state across inputs), without
//! `--tee`, `--strict` or `--line-buffered`: the rest reads the inputs one after another.

mod split;

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::config::Config;
use crate::dispatch::{Dispatcher, Driven};
use crate::exit::ExitStatus;
use crate::input::{self, Input};
use crate::out::diag::Diag;
use crate::out::{Output, OutputMode};
use crate::runs::Runs;
use crate::view::{Ctx, View, ViewHandler};

/// What a worker wrote, in order.
pub(crate) enum Piece {
    Out(Vec<u8>),
    Err(Vec<u8>),
    /// A diagnostic of a kind that is summarised after a few (see [`Diag`]).
    Diag {
        kind: &'static str,
        label: String,
        msg: String,
    },
}

/// Pieces a worker may write ahead of the main thread, per input: all but the last are
/// at least [`PIECE`] bytes (or end where the other stream or a message begins), so about
/// 512 KiB waits per worker at most (more only for a longer line).
const AHEAD: usize = 4;

/// The size a worker's output is gathered to before it is sent as one piece.
const PIECE: usize = 128 * 1024;

/// A worker's read buffers: half the usual 1 MiB, so that two workers' buffers (three
/// each in circulation, see `input::reader`) keep the peak near the sequential reading's
/// (the lines split the same whatever the read sizes).
const WORKER_BUFFER: usize = 512 * 1024;

/// Reads `config`'s inputs with one worker per core when they may be read in parallel
/// (see the module doc): several files, or one large file in parts. Gives the view back
/// when they may not (nothing read). `CURSOR_STREAM_JOBS` overrides the number of cores
/// (`1` reads as one reader does, as the tests compare).
pub(crate) fn drive<V: View>(
    view: V,
    config: &Config,
    mode: OutputMode,
) -> Result<anyhow::Result<ExitStatus>, V> {
    let plain = config.tee.is_none()
        && config.run.is_none()
        && !config.strict
        && !config.line_buffered
        && !config.out_is_terminal
        && !config.err_is_terminal
        && config.inputs.iter().all(|i| matches!(i, Input::Path(_)));
    if !plain {
        return Err(view);
    }
    let cores = std::env::var("CURSOR_STREAM_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if cores < 2 {
        return Err(view);
    }
    match config.inputs.len() {
        0 => Err(view),
        1 if split::worth_it(config, view.wants()) => split::drive(view, config, mode, cores),
        1 => Err(view),
        n => drive_files(view, config, mode, cores.min(n)),
    }
}

/// A worker's input, read: the view's copy and the runs to merge, how the reading ended.
struct Done<V> {
    view: Option<V>,
    runs: Runs,
    result: anyhow::Result<()>,
    /// The input could not be opened: this message instead.
    unopened: Option<String>,
}

/// One input's work: the view's copy, where its pieces and its end go.
struct Job<V> {
    view: V,
    pieces: SyncSender<Piece>,
    done: SyncSender<Done<V>>,
}

/// Reads `config`'s inputs with `jobs` workers, `view` gathering; gives the exit status as
/// the sequential reading does. Gives the view back when it does not fork (nothing read).
fn drive_files<V: View>(
    view: V,
    config: &Config,
    mode: OutputMode,
    jobs: usize,
) -> Result<anyhow::Result<ExitStatus>, V> {
    let n = config.inputs.len();
    let Some(copies) = (0..n).map(|_| view.fork()).collect::<Option<Vec<V>>>() else {
        return Err(view);
    };
    let mut pieces: Vec<Receiver<Piece>> = Vec::with_capacity(n);
    let mut dones: Vec<Receiver<Done<V>>> = Vec::with_capacity(n);
    let mut queue = Vec::with_capacity(n);
    for copy in copies {
        let (pieces_to, pieces_from) = sync_channel(AHEAD);
        let (done_to, done_from) = sync_channel(1);
        pieces.push(pieces_from);
        dones.push(done_from);
        queue.push(Some(Job {
            view: copy,
            pieces: pieces_to,
            done: done_to,
        }));
    }
    // Inputs are taken in argument order: the one the main thread waits for is always
    // being read, so a worker waiting on a full channel never holds everything up.
    let queue = Mutex::new((0usize, queue));
    let take = || {
        let mut q = queue.lock().ok()?;
        let (next, jobs) = &mut *q;
        let job = jobs.get_mut(*next)?.take()?;
        *next += 1;
        Some((*next - 1, job))
    };
    let out = Output::new(Box::new(io::stdout().lock()), Box::new(io::stderr()), mode);
    let ctx = Ctx::new(out, Diag::new(config.strict, config.quiet));
    let mut handler = ViewHandler::new(view, ctx);
    Ok(std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                while let Some((k, job)) = take() {
                    let done = read_one(job.view, &config.inputs[k], config, mode, job.pieces);
                    if job.done.send(done).is_err() {
                        break; // the main thread stopped (an error, a closed stdout)
                    }
                }
            });
        }
        let status = gather(&mut handler, &pieces, &dones);
        // Workers still writing find their channels closed and stop.
        drop(pieces);
        drop(dones);
        status
    }))
}

/// The main thread: the inputs' pieces in argument order, the copies merged, the end.
fn gather<V: View>(
    handler: &mut ViewHandler<V>,
    pieces: &[Receiver<Piece>],
    dones: &[Receiver<Done<V>>],
) -> anyhow::Result<ExitStatus> {
    let mut runs = Runs::default();
    let mut unopened = false;
    for (from, done) in pieces.iter().zip(dones) {
        write_pieces(handler, from)?;
        let done = done
            .recv()
            .map_err(|_| anyhow::anyhow!("a worker reading the inputs stopped"))?;
        let ctx = &mut handler.ctx;
        if let Some(message) = done.unopened {
            ctx.out.begin_err_block();
            ctx.out.write_err(message.as_bytes());
            unopened = true;
        }
        runs.merge(&done.runs);
        if let Some(copy) = done.view {
            handler.view.merge(copy);
        }
        done.result?;
    }
    let status = handler.finish(&runs)?;
    Ok(if unopened { ExitStatus::ERROR } else { status })
}

/// Writes what a worker wrote for one input (or part), until it is done.
fn write_pieces<V: View>(
    handler: &mut ViewHandler<V>,
    from: &Receiver<Piece>,
) -> anyhow::Result<()> {
    let mut first_out = true;
    // Ends when the worker dropped its senders: the input is read.
    for piece in from {
        let ctx = &mut handler.ctx;
        match piece {
            Piece::Out(bytes) => {
                if std::mem::take(&mut first_out) {
                    handler.view.before_forked_output(ctx)?;
                }
                ctx.out.write_out(&bytes)?
            }
            Piece::Err(bytes) => ctx.out.write_err(&bytes),
            Piece::Diag { kind, label, msg } => ctx.diag.replay(&mut ctx.out, kind, &label, msg),
        }
    }
    Ok(())
}

/// A worker reads one input with its copy of the view, writing into `to`.
fn read_one<V: View>(
    view: V,
    input: &Input,
    config: &Config,
    mode: OutputMode,
    to: SyncSender<Piece>,
) -> Done<V> {
    let name = input.name();
    let rdr = match input::open(input) {
        Ok(rdr) => rdr,
        Err(e) => {
            return Done {
                view: Some(view),
                runs: Runs::default(),
                result: Ok(()),
                unopened: Some(format!("cursor-stream: error: cannot read {name}: {e}\n")),
            };
        }
    };
    let ctx = worker_ctx(to, config, mode);
    let mut dispatcher = Dispatcher::new(ViewHandler::new(view, ctx), config.max_line)
        .agent(config.agent)
        .buffer_size(WORKER_BUFFER);
    let result = dispatcher.feed(&name, rdr);
    let (handler, runs) = dispatcher.into_parts();
    let ViewHandler { view, ctx } = handler;
    // Dropping the output flushes what it holds, as the sequential reading's output is
    // flushed when it stops on an error; then the input's channel closes.
    drop(ctx);
    Done {
        view: Some(view),
        runs,
        result,
        unopened: None,
    }
}

/// What a worker's view writes through: its output and its messages, as pieces into `to`.
fn worker_ctx(to: SyncSender<Piece>, config: &Config, mode: OutputMode) -> Ctx {
    let pieces = Pieces::new(to);
    let out = Output::new(
        Box::new(PieceWriter {
            pieces: pieces.clone(),
            err: false,
        }),
        Box::new(PieceWriter {
            pieces: pieces.clone(),
            err: true,
        }),
        mode,
    );
    Ctx::new(out, Diag::deferred(config.strict, config.quiet, pieces))
}

/// A worker's two output streams and its deferred messages, in the order they were
/// written, gathered into pieces of [`PIECE`] bytes.
///
/// The views flush their output whenever no input line is waiting, which on a worker is
/// often. Sent as they came, those flushes made small pieces: a later input's worker
/// filled its [`AHEAD`] pieces at once and waited for the earlier input to end, so the
/// workers took turns instead of running side by side (8 files, `stats --json`: 1.01×
/// faster than one file after another; both cores 60 % busy).
#[derive(Clone)]
pub(crate) struct Pieces(Rc<RefCell<Gathered>>);

struct Gathered {
    to: SyncSender<Piece>,
    held: Vec<u8>,
    /// What `held` is: stderr's bytes, or stdout's.
    held_err: bool,
}

impl Pieces {
    fn new(to: SyncSender<Piece>) -> Pieces {
        Pieces(Rc::new(RefCell::new(Gathered {
            to,
            held: Vec::new(),
            held_err: false,
        })))
    }

    fn write(&self, err: bool, bytes: &[u8]) -> io::Result<()> {
        let mut g = self.0.borrow_mut();
        if g.held_err != err {
            g.send_held()?;
            g.held_err = err;
        }
        g.held.extend_from_slice(bytes);
        if g.held.len() >= PIECE {
            g.send_held()?;
        }
        Ok(())
    }

    /// A summarised message, after everything written before it.
    pub(crate) fn diag(&self, kind: &'static str, label: String, msg: String) {
        let mut g = self.0.borrow_mut();
        if g.send_held().is_ok() {
            let _ = g.to.send(Piece::Diag { kind, label, msg });
        }
    }
}

impl Gathered {
    /// The main thread is gone (it stopped on an error): as a closed pipe.
    fn send_held(&mut self) -> io::Result<()> {
        if self.held.is_empty() {
            return Ok(());
        }
        let bytes = std::mem::replace(&mut self.held, Vec::with_capacity(PIECE));
        let piece = if self.held_err {
            Piece::Err(bytes)
        } else {
            Piece::Out(bytes)
        };
        self.to
            .send(piece)
            .map_err(|_| io::Error::from(io::ErrorKind::BrokenPipe))
    }
}

impl Drop for Gathered {
    /// The worker's output and `Diag` are gone, the input read: what is left goes.
    fn drop(&mut self) {
        let _ = self.send_held();
    }
}

/// One of a worker's output streams.
struct PieceWriter {
    pieces: Pieces,
    err: bool,
}

impl Write for PieceWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pieces.write(self.err, buf)?;
        Ok(buf.len())
    }

    /// Nothing: the pieces are sent when full, when the other stream or a message
    /// begins, and at the end of the input.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(from: &Receiver<Piece>) -> Vec<(char, Vec<u8>)> {
        from.try_iter()
            .map(|piece| match piece {
                Piece::Out(b) => ('o', b),
                Piece::Err(b) => ('e', b),
                Piece::Diag { msg, .. } => ('d', msg.into_bytes()),
            })
            .collect()
    }

    /// A view flushing after every line must not make a piece of every flush: the later
    /// inputs' workers would fill their few pieces at once and wait.
    #[test]
    fn flushed_output_is_sent_in_large_pieces() {
        let (to, from) = sync_channel(64);
        let pieces = Pieces::new(to);
        let mut out = PieceWriter {
            pieces: pieces.clone(),
            err: false,
        };
        let line = [b'x'; 100];
        for _ in 0..3000 {
            out.write_all(&line).unwrap();
            out.flush().unwrap();
        }
        drop(out);
        drop(pieces);
        let got = received(&from);
        assert_eq!(
            got.len(),
            300_000 / PIECE + 1,
            "pieces of {PIECE} bytes and the rest"
        );
        assert!(got[..got.len() - 1].iter().all(|(_, b)| b.len() >= PIECE));
        assert_eq!(got.iter().map(|(_, b)| b.len()).sum::<usize>(), 300_000);
    }

    /// What is gathered goes before the other stream's bytes and before a message.
    #[test]
    fn the_streams_and_the_messages_keep_their_order() {
        let (to, from) = sync_channel(64);
        let pieces = Pieces::new(to);
        let writer = |err| PieceWriter {
            pieces: pieces.clone(),
            err,
        };
        let (mut out, mut err) = (writer(false), writer(true));
        out.write_all(b"a").unwrap();
        out.write_all(b"b").unwrap();
        err.write_all(b"c").unwrap();
        pieces.diag("kind", "f:1".into(), "d".into());
        out.write_all(b"e").unwrap();
        drop((out, err, pieces));
        let got = received(&from);
        let want: Vec<(char, Vec<u8>)> = vec![
            ('o', b"ab".to_vec()),
            ('e', b"c".to_vec()),
            ('d', b"d".to_vec()),
            ('o', b"e".to_vec()),
        ];
        assert_eq!(got, want);
    }
}

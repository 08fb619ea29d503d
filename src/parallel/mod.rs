//! Many files at once: one worker per core, the outputs in argument order.
//!
//! Each input holds whole runs, so a view whose output for an input owes nothing to the
//! earlier inputs ([`View::fork`]) can read every input with a copy of itself on a worker
//! thread. A worker writes its output, its diagnostics and its questions for the view on
//! the main thread ([`View::answer`]) as [`Piece`]s (gathered to [`PIECE`] bytes, see
//! [`Pieces`]) into a small bounded channel of that input's own; the main thread drains
//! the channels in argument order, writes the pieces, counts the diagnostics with one
//! [`Diag`] (the first few of a kind shown, the rest summed up at the end, as when one
//! view reads everything), answers the questions, merges each copy's state into the view
//! ([`View::merge`]) and the runs for the exit status, then finishes as the sequential
//! reading does. A worker that got ahead waits on its full channel, and takes a new input
//! only while fewer than [`INPUTS_AHEAD`] are read and not yet written: memory stays
//! bounded, whatever the sizes and the number of the inputs. The bytes are those of the
//! sequential reading (`tests/it/reference.rs` compares both).
//!
//! A view that passes lines through as read (`events`) would fill its few pieces with
//! them and wait: its copy leaves where the lines are in a regular file instead
//! ([`Mark::Copy`], 24 bytes for a stretch of any number of lines), and the main thread
//! copies them from the file with the worker's own handle. A later input's worker then
//! runs a whole input ahead, holding none of its lines.
//!
//! One big file is read the same way, in parts that end at run boundaries
//! ([`split`]).
//!
//! Only for files, read by a view that forks, to a stdout and stderr that are not
//! terminals (a terminal's cleaning and fitting keep state across inputs), without
//! `--tee`, `--strict` or `--line-buffered`: the rest reads the inputs one after another.

mod split;

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex, OnceLock};

use crate::config::Config;
use crate::dispatch::{Dispatcher, Driven};
use crate::exit::ExitStatus;
use crate::input::Input;
use crate::input::file::Opened;
use crate::out::diag::{Diag, InputFailed};
use crate::out::{Output, OutputMode, Question, ToMain};
use crate::runs::Runs;
use crate::view::{Ctx, View, ViewHandler};

/// What a worker wrote, in order: its bytes, and the marks that say which stream each
/// stretch of them goes to and what comes between them.
pub(crate) struct Piece {
    bytes: Vec<u8>,
    marks: Vec<Mark>,
}

enum Mark {
    /// The bytes from the last stretch's end to this offset go to stdout.
    Out(usize),
    /// The bytes from the last stretch's end to this offset go to stderr.
    Err(usize),
    /// A diagnostic of a kind that is summarised after a few (see [`Diag`]); boxed, so
    /// that a mark takes 24 bytes.
    Diag(Box<DiagMark>),
    /// A question for the view on the main thread ([`View::answer`]).
    Ask(Question),
    /// Bytes of the input file, to copy from it to stdout: lines passed through as read
    /// ([`Ctx::write_line`]).
    Copy { offset: u64, len: u64 },
}

struct DiagMark {
    kind: &'static str,
    label: String,
    msg: String,
}

/// What a [`Mark::Copy`] weighs in a piece: the mark itself. A piece of such marks holds
/// thousands of stretches of its input, so a view passing most of its lines through
/// (`events --type tool_call`) runs a whole input ahead in a few pieces, with no copy of
/// its lines in memory.
const COPY_WEIGHT: usize = std::mem::size_of::<Mark>();

/// Pieces a worker may write ahead of the main thread, per input: each holds at most
/// about [`PIECE`] bytes (more only for a longer line), so about 512 KiB waits per input.
const AHEAD: usize = 4;

/// Inputs taken by the workers and not yet written, per worker. A finished input's
/// pieces wait for the main thread: with no bound, a slow first input and thousands of
/// small ones after it would hold a piece each.
const INPUTS_AHEAD: usize = 2;

/// The size a worker's output is gathered to before it is sent as one piece (what its
/// messages and questions hold counted in).
const PIECE: usize = 128 * 1024;

/// The most marks in a piece: a view that writes little and asks often (`check`, a
/// question a run) sends its pieces no more often than this.
const MARKS: usize = 1024;

/// A worker's read buffer: half the usual 1 MiB. A worker reading whole files holds one
/// (it reads on its own thread, [`Dispatcher::inline`]); one reading a part of a large file
/// shares the reading thread's, three in circulation (see `split`). Either way the peak
/// stays near the sequential reading's (the lines split the same whatever the read sizes).
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
        && config.follow.is_none()
        && !config.strict
        && !config.line_buffered
        && !config.out_is_terminal
        && !config.err_is_terminal
        && config.inputs.iter().all(|i| !matches!(i, Input::Stdin));
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
        _ if view.output_like_input() && typical_size(&config.inputs) > LARGE_INPUT => Err(view),
        n => drive_files(view, config, mode, cores.min(n)),
    }
}

/// Above this size (the median of the inputs'), a view whose output is about as large as
/// its input ([`View::output_like_input`]) reads the files one after another: a later
/// file's worker may write only [`AHEAD`] pieces ahead of the output, then waits for the
/// earlier file's, and the workers take turns. Measured (`tools --json`, 1 GB of Claude's
/// stream cut into files, 2 cores, the files in parallel against one after another): 4 MiB
/// files 0.48 against 0.82 s, 8 MiB 0.64 against 0.79 s, 16 MiB 0.91 against 0.74 s, 128
/// MiB 0.93 against 0.64 s; a 1 GB home's Claude logs (1.1 MB on average) 0.53 against
/// 0.76 s.
const LARGE_INPUT: u64 = 12 << 20;

/// The median size of the inputs that are files (a database's, which holds many sessions,
/// left out).
fn typical_size(inputs: &[Input]) -> u64 {
    let mut sizes: Vec<u64> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::Path(p) | Input::Rest { path: p, .. } => std::fs::metadata(p).ok(),
            Input::Database { .. } | Input::Stdin => None,
        })
        .map(|m| m.len())
        .collect();
    sizes.sort_unstable();
    sizes.get(sizes.len() / 2).copied().unwrap_or(0)
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
    pieces: PiecesTo,
    done: SyncSender<Done<V>>,
}

/// The input file a worker reads, for the main thread to copy stretches of
/// ([`Mark::Copy`]): the handle the worker opened, so the same file whatever happens to
/// its name. Set when the input is a regular file.
pub(crate) type Source = Arc<OnceLock<File>>;

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
    let spares = Spares::default();
    let mut pieces: Vec<PiecesFrom> = Vec::with_capacity(n);
    let mut dones: Vec<Receiver<Done<V>>> = Vec::with_capacity(n);
    let mut queue = Vec::with_capacity(n);
    for copy in copies {
        let (pieces_to, pieces_from) = pieces_channel(&spares, Source::default());
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
    let take = &take;
    // A ticket for each input taken and not yet written: the main thread takes one back
    // as it ends each input.
    let (ticket, tickets) = sync_channel::<()>(INPUTS_AHEAD * jobs);
    let out = Output::new(Box::new(io::stdout().lock()), Box::new(io::stderr()), mode);
    let ctx = Ctx::new(out, Diag::new(config.strict, config.quiet));
    let mut handler = ViewHandler::new(view, ctx);
    Ok(std::thread::scope(|s| {
        for _ in 0..jobs {
            let ticket = ticket.clone();
            s.spawn(move || {
                // One read buffer for all the worker's inputs.
                let mut buffer = Vec::new();
                // Ends when the main thread stopped, or every input is taken.
                while ticket.send(()).is_ok()
                    && let Some((k, job)) = take()
                {
                    let input = &config.inputs[k];
                    let done = read_one(job.view, input, config, mode, job.pieces, &mut buffer);
                    if job.done.send(done).is_err() {
                        break; // the main thread stopped (an error, a closed stdout)
                    }
                }
            });
        }
        drop(ticket);
        // Workers still writing find their channels closed and stop.
        let status = gather(&mut handler, pieces, &dones, &tickets, config);
        drop(dones);
        drop(tickets);
        status
    }))
}

/// The main thread: the inputs' pieces in argument order, the copies merged, the end.
/// Each input's channel, and its handle on the file, goes once the input is written.
fn gather<V: View>(
    handler: &mut ViewHandler<V>,
    pieces: Vec<PiecesFrom>,
    dones: &[Receiver<Done<V>>],
    tickets: &Receiver<()>,
    config: &Config,
) -> anyhow::Result<ExitStatus> {
    let mut runs = Runs::default();
    let mut unopened = false;
    for ((from, done), input) in pieces.into_iter().zip(dones).zip(&config.inputs) {
        let lost = write_pieces(handler, &from)?;
        drop(from);
        if lost > 0 {
            shorter(&mut handler.ctx, &input.name(), lost);
            unopened = true;
        }
        let done = done
            .recv()
            .map_err(|_| anyhow::anyhow!("a worker reading the inputs stopped"))?;
        // This input's ticket (taken before it was): a worker may take another.
        let _ = tickets.try_recv();
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
        match done.result {
            // As the sequential reading: reported, and the other inputs are still read.
            Err(e) if e.is::<InputFailed>() => {
                let ctx = &mut handler.ctx;
                ctx.out.begin_err_block();
                ctx.out
                    .write_err(format!("cursor-stream: error: {e}\n").as_bytes());
                unopened = true;
            }
            result => result?,
        }
    }
    let status = handler.finish(&runs)?;
    Ok(if unopened { ExitStatus::ERROR } else { status })
}

/// Writes what a worker wrote for one input (or part), until it is done. Gives the bytes
/// of lines passed through that were no longer in the file to copy (see [`Copier`]).
fn write_pieces<V: View>(handler: &mut ViewHandler<V>, from: &PiecesFrom) -> anyhow::Result<u64> {
    let mut first_out = true;
    let mut copier = Copier::default();
    // Ends when the worker dropped its senders: the input is read.
    for Piece { bytes, marks } in &from.from {
        let mut at = 0;
        for mark in marks {
            let ctx = &mut handler.ctx;
            match mark {
                Mark::Out(end) => {
                    if std::mem::take(&mut first_out) {
                        handler.view.before_forked_output(ctx)?;
                    }
                    handler.ctx.out.write_out(&bytes[at..end])?;
                    at = end;
                }
                Mark::Err(end) => {
                    ctx.out.write_err(&bytes[at..end]);
                    at = end;
                }
                Mark::Diag(d) => ctx.diag.replay(&mut ctx.out, d.kind, &d.label, d.msg),
                Mark::Ask(question) => handler.view.answer(question, ctx)?,
                Mark::Copy { offset, len } => {
                    if std::mem::take(&mut first_out) {
                        handler.view.before_forked_output(ctx)?;
                    }
                    let file = from.source.get().ok_or_else(|| {
                        anyhow::anyhow!("a worker left stretches of an input it did not open")
                    })?;
                    copier.copy(file, offset, len, &mut handler.ctx.out)?;
                }
            }
        }
        from.spares.give(bytes);
    }
    Ok(copier.lost)
}

/// The message for an input cut shorter while it was read: its worker had read `lost`
/// bytes of lines to pass through that were no longer there to copy.
fn shorter(ctx: &mut Ctx, name: &str, lost: u64) {
    ctx.out.begin_err_block();
    ctx.out.write_err(
        format!(
            "cursor-stream: error: {name} became shorter while it was read: \
             {lost} bytes of the lines passed through are missing\n"
        )
        .as_bytes(),
    );
}

/// Copies stretches of an input file to stdout ([`Mark::Copy`]) through a window of the
/// file: stretches a few lines apart (`events --type assistant` on alternating lines)
/// cost one read for every [`WINDOW`] bytes, not one each.
#[derive(Default)]
struct Copier {
    window: Vec<u8>,
    /// Where `window` starts in the file.
    start: u64,
    /// Bytes no longer in the file (cut shorter since the worker read them).
    lost: u64,
}

const WINDOW: usize = 256 * 1024;

impl Copier {
    fn copy(
        &mut self,
        file: &File,
        offset: u64,
        len: u64,
        out: &mut crate::out::Output,
    ) -> anyhow::Result<()> {
        let end = offset + len;
        let mut at = offset;
        while at < end {
            let in_window = at >= self.start && at < self.start + self.window.len() as u64;
            if !in_window {
                self.window.resize(WINDOW, 0);
                let n = read_at(file, &mut self.window, at)?;
                self.window.truncate(n);
                self.start = at;
                if n == 0 {
                    self.lost += end - at;
                    return Ok(());
                }
            }
            let from = (at - self.start) as usize;
            let take = (self.window.len() - from).min((end - at) as usize);
            out.write_out(&self.window[from..from + take])?;
            at += take as u64;
        }
        Ok(())
    }
}

/// `pread`: reads at `at` without moving the handle's position, which another thread
/// may be reading from.
#[cfg(unix)]
pub(super) fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    use std::os::unix::fs::FileExt;
    loop {
        match file.read_at(buf, at) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            r => return r,
        }
    }
}

/// Elsewhere no [`Source`] is set (Windows' `seek_read` would move the worker's own
/// reading position, which its handle shares): the views write the bytes, and no file
/// is read in parts.
#[cfg(not(unix))]
pub(super) fn read_at(_: &File, _: &mut [u8], _: u64) -> io::Result<usize> {
    Err(io::ErrorKind::Unsupported.into())
}

/// A worker reads one input with its copy of the view, writing into `to`.
fn read_one<V: View>(
    view: V,
    input: &Input,
    config: &Config,
    mode: OutputMode,
    to: PiecesTo,
    buffer: &mut Vec<u8>,
) -> Done<V> {
    let name = input.name();
    let opened = crate::stores::open::open(input).map(|opened| match opened {
        Opened::Plain(file) => {
            // The main thread's handle on a regular file, to copy stretches from
            // (`Mark::Copy`): the same file, whatever happens to its name.
            // Offsets count from where the reading starts: a handle that shares a
            // position already moved (`/dev/fd/N` on macOS) passes the bytes.
            #[cfg(unix)]
            if file.metadata().is_ok_and(|m| m.is_file())
                && io::Seek::stream_position(&mut &file).is_ok_and(|at| at == 0)
                && let Ok(copy) = file.try_clone()
            {
                let _ = to.source.set(copy);
            }
            (Box::new(file) as Box<dyn io::Read + Send>, None)
        }
        // Lines made from something else: no offset in them is one in a file.
        Opened::Made(rdr) => (rdr, None),
        Opened::Spliced(rdr, parts) => (rdr, Some(parts)),
    });
    let (rdr, parts) = match opened {
        Ok(opened) => opened,
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
        .buffer_size(WORKER_BUFFER)
        .inline(std::mem::take(buffer));
    dispatcher.begin(&name);
    dispatcher.spliced(parts);
    let result = dispatcher.resume(&name, rdr, input.first_line());
    *buffer = dispatcher.take_buffer();
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
fn worker_ctx(to: PiecesTo, config: &Config, mode: OutputMode) -> Ctx {
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
    Ctx::new(
        out,
        Diag::deferred(config.strict, config.quiet, Box::new(pieces)),
    )
}

/// Where a worker sends the pieces of one input (or part).
pub(crate) struct PiecesTo {
    to: SyncSender<Piece>,
    spares: Spares,
    source: Source,
}

/// Where the main thread takes them, giving their buffers back.
pub(crate) struct PiecesFrom {
    from: Receiver<Piece>,
    spares: Spares,
    source: Source,
}

/// The pieces of one input (or part): at most [`AHEAD`] wait. `source`: the file they
/// copy from, once it is open.
fn pieces_channel(spares: &Spares, source: Source) -> (PiecesTo, PiecesFrom) {
    let (to, from) = sync_channel(AHEAD);
    let spares = spares.clone();
    (
        PiecesTo {
            to,
            spares: spares.clone(),
            source: source.clone(),
        },
        PiecesFrom {
            from,
            spares,
            source,
        },
    )
}

/// A worker's two output streams, its deferred messages and its questions, in the order
/// they were written, gathered into pieces of about [`PIECE`] bytes.
///
/// The views flush their output whenever no input line is waiting, which on a worker is
/// often. Sent as they came, those flushes would make small pieces: a later input's
/// worker would fill its [`AHEAD`] pieces at once and wait for the earlier input to end,
/// so the workers would take turns instead of running side by side. Messages and
/// questions are marks in a piece for the same reason.
#[derive(Clone)]
pub(crate) struct Pieces(Rc<RefCell<Gathered>>);

struct Gathered {
    to: SyncSender<Piece>,
    /// The main thread can copy stretches of the input from the file ([`Mark::Copy`]).
    copies: bool,
    piece: Piece,
    /// What the piece's messages and questions hold, in bytes.
    weight: usize,
    /// The piece's marks but its stretches of the input, which only weigh.
    counted: usize,
    spares: Spares,
    /// The main thread is gone (it stopped on an error, or stdout closed).
    gone: bool,
}

impl Pieces {
    fn new(PiecesTo { to, spares, source }: PiecesTo) -> Pieces {
        Pieces(Rc::new(RefCell::new(Gathered {
            to,
            copies: source.get().is_some(),
            piece: Piece {
                bytes: Vec::new(),
                marks: Vec::new(),
            },
            weight: 0,
            counted: 0,
            spares,
            gone: false,
        })))
    }

    fn write(&self, err: bool, bytes: &[u8]) -> io::Result<()> {
        let mut g = self.0.borrow_mut();
        g.still_there()?;
        if g.piece.bytes.capacity() == 0 {
            g.piece.bytes = g.spares.take();
        }
        // A piece is sent before it would outgrow its buffer: grown, it would be copied
        // to one twice as large.
        if !g.piece.bytes.is_empty() && g.piece.bytes.len() + bytes.len() > g.piece.bytes.capacity()
        {
            g.send()?;
            g.piece.bytes = g.spares.take();
        }
        let piece = &mut g.piece;
        piece.bytes.extend_from_slice(bytes);
        let end = piece.bytes.len();
        match piece.marks.last_mut() {
            Some(Mark::Out(e)) if !err => *e = end,
            Some(Mark::Err(e)) if err => *e = end,
            _ => {
                piece
                    .marks
                    .push(if err { Mark::Err(end) } else { Mark::Out(end) });
                g.counted += 1;
            }
        }
        g.send_if_full()
    }

    fn mark(&self, mark: Mark, weight: usize) -> io::Result<()> {
        let mut g = self.0.borrow_mut();
        g.still_there()?;
        g.piece.marks.push(mark);
        g.weight += weight;
        g.counted += 1;
        g.send_if_full()
    }
}

impl ToMain for Pieces {
    /// A summarised message, after everything written before it.
    fn message(&self, kind: &'static str, label: String, msg: String) {
        let weight = label.len() + msg.len();
        let _ = self.mark(Mark::Diag(Box::new(DiagMark { kind, label, msg })), weight);
    }

    /// Whether the main thread can copy stretches of this input from its file.
    fn copies(&self) -> bool {
        self.0.borrow().copies
    }

    /// `len` bytes of the input from `offset`, for the main thread to copy from the file
    /// to stdout, after everything written before them. Joins the stretch before when
    /// they follow it.
    fn copy(&self, offset: u64, len: usize) -> io::Result<()> {
        let mut g = self.0.borrow_mut();
        g.still_there()?;
        if let Some(Mark::Copy { offset: o, len: l }) = g.piece.marks.last_mut()
            && *o + *l == offset
        {
            *l += len as u64;
            return Ok(());
        }
        g.piece.marks.push(Mark::Copy {
            offset,
            len: len as u64,
        });
        g.weight += COPY_WEIGHT;
        g.send_if_full()
    }

    /// A question for the view on the main thread, after everything written before it;
    /// `weight`: about what it holds, in bytes.
    fn ask(&self, question: Question, weight: usize) {
        let _ = self.mark(Mark::Ask(question), weight);
    }
}

impl Gathered {
    /// As a closed pipe once the main thread is gone: the view stops reading at its next
    /// write or flush, as the sequential reading does. A view that only asks (`check` on a
    /// clean log) would otherwise read its whole input for nothing.
    fn still_there(&self) -> io::Result<()> {
        if self.gone {
            return Err(io::Error::from(io::ErrorKind::BrokenPipe));
        }
        Ok(())
    }

    fn send_if_full(&mut self) -> io::Result<()> {
        if self.piece.bytes.len() + self.weight >= PIECE || self.counted >= MARKS {
            self.send()?;
        }
        Ok(())
    }

    /// The main thread is gone (it stopped on an error): as a closed pipe.
    fn send(&mut self) -> io::Result<()> {
        if self.piece.marks.is_empty() {
            return Ok(());
        }
        let piece = Piece {
            bytes: std::mem::take(&mut self.piece.bytes),
            marks: std::mem::take(&mut self.piece.marks),
        };
        self.weight = 0;
        self.counted = 0;
        if self.to.send(piece).is_err() {
            self.gone = true;
        }
        self.still_there()
    }
}

impl Drop for Gathered {
    /// The worker's output and `Diag` are gone, the input read: what is left goes. A
    /// small last piece goes in a buffer of its size, its large one back to the spares:
    /// it may wait long for the main thread.
    fn drop(&mut self) {
        if self.piece.bytes.len() < PIECE / 4 {
            let small = self.piece.bytes.as_slice().to_vec();
            self.spares
                .give(std::mem::replace(&mut self.piece.bytes, small));
        }
        let _ = self.send();
    }
}

/// The buffers of pieces written out, for the workers to fill again.
///
/// A new buffer for every piece would cost a page fault for every page of output: glibc
/// gives blocks this large fresh pages (`mmap`, or the heap grown and trimmed again).
#[derive(Clone, Default)]
pub(crate) struct Spares(Arc<Mutex<Vec<Vec<u8>>>>);

/// The most buffers kept: about what the workers may have written ahead.
const SPARES: usize = 16;

impl Spares {
    fn take(&self) -> Vec<u8> {
        let spare = self.0.lock().ok().and_then(|mut spares| spares.pop());
        spare.unwrap_or_else(|| Vec::with_capacity(PIECE))
    }

    /// Keeps `bytes`' buffer, unless it grew for a long line or enough are kept.
    fn give(&self, mut bytes: Vec<u8>) {
        if bytes.capacity() != PIECE {
            return;
        }
        bytes.clear();
        if let Ok(mut spares) = self.0.lock()
            && spares.len() < SPARES
        {
            spares.push(bytes);
        }
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

    /// Nothing is sent: the pieces go when full and at the end of the input. Fails once
    /// the main thread is gone.
    fn flush(&mut self) -> io::Result<()> {
        self.pieces.0.borrow().still_there()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker's pieces, with a channel the test reads.
    fn pieces() -> (Pieces, Receiver<Piece>) {
        let (to, from) = sync_channel(64);
        let spares = Spares::default();
        (
            Pieces::new(PiecesTo {
                to,
                spares,
                source: Source::default(),
            }),
            from,
        )
    }

    /// The pieces received: each one's size in bytes, and what they hold in order
    /// (`o`, `e`: a stretch of stdout or stderr; `d`: a message; `q`: a question).
    fn received(from: &Receiver<Piece>) -> (Vec<usize>, Vec<(char, Vec<u8>)>) {
        let mut sizes = Vec::new();
        let mut got = Vec::new();
        for Piece { bytes, marks } in from.try_iter() {
            sizes.push(bytes.len());
            let mut at = 0;
            for mark in marks {
                got.push(match mark {
                    Mark::Out(end) => ('o', bytes[std::mem::replace(&mut at, end)..end].to_vec()),
                    Mark::Err(end) => ('e', bytes[std::mem::replace(&mut at, end)..end].to_vec()),
                    Mark::Diag(d) => ('d', d.msg.into_bytes()),
                    Mark::Copy { offset, len } => ('c', format!("{offset}+{len}").into_bytes()),
                    Mark::Ask(q) => ('q', vec![*q.downcast::<u8>().unwrap()]),
                });
            }
        }
        (sizes, got)
    }

    /// A view flushing after every line must not make a piece of every flush: the later
    /// inputs' workers would fill their few pieces at once and wait. Nor may a piece
    /// outgrow its buffer (it would be copied into one twice as large).
    #[test]
    fn flushed_output_is_sent_in_large_pieces() {
        let (pieces, from) = pieces();
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
        let (sizes, _) = received(&from);
        let full = PIECE / 100 * 100;
        assert_eq!(sizes, [full, full, 300_000 - 2 * full]);
    }

    /// What is gathered keeps its order: the two streams, the messages, the questions;
    /// the marks do not end a piece.
    #[test]
    fn the_streams_the_messages_and_the_questions_keep_their_order() {
        let (pieces, from) = pieces();
        let writer = |err| PieceWriter {
            pieces: pieces.clone(),
            err,
        };
        let (mut out, mut err) = (writer(false), writer(true));
        out.write_all(b"a").unwrap();
        out.write_all(b"b").unwrap();
        err.write_all(b"c").unwrap();
        pieces.message("kind", "f:1".into(), "d".into());
        pieces.ask(Box::new(7u8), 1);
        out.write_all(b"e").unwrap();
        drop((out, err, pieces));
        let (sizes, got) = received(&from);
        let want: Vec<(char, Vec<u8>)> = vec![
            ('o', b"ab".to_vec()),
            ('e', b"c".to_vec()),
            ('d', b"d".to_vec()),
            ('q', vec![7]),
            ('o', b"e".to_vec()),
        ];
        assert_eq!(got, want);
        assert_eq!(sizes, [4], "one piece");
    }

    /// Once the main thread is gone, a worker's next flush fails as on a closed pipe,
    /// even when its view only asks: it stops reading, as the sequential reading would.
    #[test]
    fn a_worker_hears_at_its_next_flush_that_the_main_thread_is_gone() {
        let (pieces, from) = pieces();
        let mut out = PieceWriter {
            pieces: pieces.clone(),
            err: false,
        };
        drop(from);
        out.flush().unwrap();
        for _ in 0..MARKS {
            pieces.ask(Box::new(1u8), 1);
        }
        let gone = out.flush().unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::BrokenPipe);
        assert!(out.write_all(b"x").is_err());
    }

    /// Stretches of the input that follow each other are one mark; a piece holds
    /// thousands of them, not [`MARKS`].
    #[test]
    fn stretches_of_the_input_join_and_weigh_little() {
        let (pieces, from) = pieces();
        for i in 0..3000u64 {
            // Two lines of 10 bytes out of every three.
            pieces.copy(i * 30, 10).unwrap();
            pieces.copy(i * 30 + 10, 10).unwrap();
        }
        drop(pieces);
        let (sizes, got) = received(&from);
        assert_eq!(sizes, [0], "one piece");
        assert_eq!(got.len(), 3000);
        assert_eq!(got[2], ('c', b"60+20".to_vec()));
    }

    /// The main thread copies the stretches from the file, reading it a window at a
    /// time; what a file cut shorter since the worker read it no longer holds is counted
    /// as lost, not silently skipped.
    #[cfg(unix)]
    #[test]
    fn stretches_are_copied_from_the_file_and_a_shorter_file_is_counted() {
        let mut file = tempfile::tempfile().unwrap();
        let bytes: Vec<u8> = (0..WINDOW + 100).map(|i| (i % 251) as u8).collect();
        file.write_all(&bytes).unwrap();
        let (mut out, stdout, _) = crate::out::testing::capture(OutputMode::default());
        let mut copier = Copier::default();
        copier.copy(&file, 2, 5, &mut out).unwrap();
        copier.copy(&file, 10, 3, &mut out).unwrap();
        // Across the window's end.
        copier.copy(&file, WINDOW as u64 - 4, 8, &mut out).unwrap();
        out.flush().unwrap();
        let mut want = bytes[2..7].to_vec();
        want.extend(&bytes[10..13]);
        want.extend(&bytes[WINDOW - 4..WINDOW + 4]);
        assert_eq!(stdout.take(), want);
        assert_eq!(copier.lost, 0);
        copier
            .copy(&file, WINDOW as u64 + 90, 20, &mut out)
            .unwrap();
        out.flush().unwrap();
        assert_eq!(stdout.take(), &bytes[WINDOW + 90..]);
        assert_eq!(copier.lost, 10);
    }

    /// Questions with no output between them go in pieces of [`MARKS`], or of what they
    /// weigh.
    #[test]
    fn questions_alone_are_sent_when_there_are_enough_of_them() {
        let (pieces, from) = pieces();
        for _ in 0..MARKS + 1 {
            pieces.ask(Box::new(1u8), 1);
        }
        pieces.ask(Box::new(2u8), PIECE);
        pieces.ask(Box::new(3u8), 1);
        drop(pieces);
        let (sizes, got) = received(&from);
        assert_eq!(
            sizes.len(),
            3,
            "{MARKS} questions, then 2 up to a heavy one, then the last"
        );
        assert_eq!(got.len(), MARKS + 3);
        assert_eq!(got[MARKS + 1..], [('q', vec![2]), ('q', vec![3])]);
    }
}

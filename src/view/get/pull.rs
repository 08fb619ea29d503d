//! `input` and `inputs`: a program that reads further inputs pulls them, where `get`
//! pushes each input as it is read. Such a program runs on a thread of its own, which
//! pulls the inputs from a bounded channel (memory stays flat: `reduce inputs as $e …`
//! over a gigabyte holds a few dozen inputs at a time) and sends its values back, in
//! order, for the view to write. Without `-n`, each input the program did not pull is
//! `.` for a run of the program, as in jq.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use jaq_json::Val;

use super::data::{Inputs, RcIter};
use super::jv::Jv;
use super::program::{Failure, Program};

/// Inputs held between the reader and the program, and values between the program and
/// the writer.
const HELD: usize = 64;

/// An input, and where it comes from (`$run`, `input_filename`, `$line` when it is `.`).
pub(crate) struct Item {
    pub value: Val,
    pub run: Val,
    pub file: Val,
    pub line: u64,
}

/// What the program gave.
pub(crate) enum Out {
    Value(Val),
    /// A runtime error, with the file and line of the input it ran on.
    Error {
        message: String,
        file: String,
        line: u64,
    },
    Halt(i32),
}

/// The program's thread, and the channels to it and from it.
pub(crate) struct Puller {
    to: Option<SyncSender<Item>>,
    from: Receiver<Out>,
    thread: Option<JoinHandle<()>>,
}

impl Puller {
    /// Starts `program`: on `null` once (`-n`), else on each input it does not pull.
    pub(crate) fn start(program: Arc<Program>, null_input: bool) -> std::io::Result<Puller> {
        let (to, inputs) = sync_channel::<Item>(HELD);
        let (out, from) = sync_channel::<Out>(HELD);
        let thread = std::thread::Builder::new()
            .name("get-program".into())
            .stack_size(super::LARGE_STACK)
            .spawn(move || drive(&program, null_input, inputs, &out))?;
        Ok(Puller {
            to: Some(to),
            from,
            thread: Some(thread),
        })
    }

    /// Hands `item` to the program, and `each` what the program gave meanwhile (while the
    /// program's inputs are full, its values are taken, so that neither side waits on the
    /// other).
    pub(crate) fn push(
        &mut self,
        item: Item,
        mut each: impl FnMut(Out) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        let mut item = Some(item);
        while let (Some(to), Some(next)) = (&self.to, item.take()) {
            match to.try_send(next) {
                Ok(()) => {}
                Err(TrySendError::Full(back)) => {
                    item = Some(back);
                    if let Ok(out) = self.from.recv_timeout(Duration::from_millis(5)) {
                        each(out)?;
                    }
                }
                // The program ended (`halt`, or `-n` with no `inputs` left to read).
                Err(TrySendError::Disconnected(_)) => self.to = None,
            }
        }
        while let Ok(out) = self.from.try_recv() {
            each(out)?;
        }
        Ok(())
    }

    /// No more inputs: `each` what the program gives until it ends.
    pub(crate) fn finish(
        &mut self,
        mut each: impl FnMut(Out) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        self.to = None;
        for out in self.from.iter() {
            each(out)?;
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        Ok(())
    }
}

/// The program's thread: runs it, sending what it gives, until its inputs end or the
/// view stops listening.
fn drive(program: &Program, null_input: bool, inputs: Receiver<Item>, out: &SyncSender<Out>) {
    // Where the input last pulled comes from: `.`'s, when it was pulled as `.`.
    let last: RefCell<(Val, Val, u64)> = RefCell::new((Val::Null, Val::Null, 0));
    let pulled = inputs.iter().map(|item| {
        *last.borrow_mut() = (item.run, item.file, item.line);
        Ok(Jv(item.value))
    });
    let pulled = RcIter::new(pulled);
    let pulled: Inputs<'_> = &pulled;
    if null_input {
        run(
            program,
            Val::Null,
            (Val::Null, Val::Null, 0),
            pulled,
            &last,
            out,
        );
        return;
    }
    loop {
        let mut next = pulled;
        let Some(Ok(first)) = next.next() else {
            return;
        };
        let place = last.borrow().clone();
        if !run(program, first.0, place, pulled, &last, out) {
            return;
        }
    }
}

/// One run of the program on `input` from `place` (`$run`, `input_filename`, `$line`);
/// whether to go on (no `halt`, the view still listening). An error is placed, as jq
/// places it, at the input read last (`last`).
fn run(
    program: &Program,
    input: Val,
    (run, file, line): (Val, Val, u64),
    inputs: Inputs<'_>,
    last: &RefCell<(Val, Val, u64)>,
    out: &SyncSender<Out>,
) -> bool {
    for result in program.run(input, &run, &file, line, inputs) {
        let (sent, go_on) = match result {
            Ok(v) => (Out::Value(v), true),
            Err(Failure::Error(message)) => {
                let (_, file, line) = last.borrow().clone();
                let file = match &file {
                    Val::TStr(s) | Val::BStr(s) => String::from_utf8_lossy(s).into_owned(),
                    _ => "<unknown>".to_string(),
                };
                // jq goes on with the next input.
                let sent = out.send(Out::Error {
                    message,
                    file,
                    line,
                });
                return sent.is_ok();
            }
            Err(Failure::Halt(status)) => (Out::Halt(status), false),
        };
        if out.send(sent).is_err() || !go_on {
            return false;
        }
    }
    true
}

//! An input made of several files' lines (a Claude Code session log with its sub-agents'
//! logs read in where their calls are): which file each line comes from, and its number
//! there.
//!
//! The reader that splices the files says where each stretch starts in the stream it
//! makes, before it hands out the stretch's first byte ([`PartsTx::starts`]); the
//! dispatcher, which sees every line's offset in that stream, follows ([`Parts::place`]).
//! Nothing is added to the bytes (a `--tee` copy is what the views read), no line is
//! copied, and only one entry per stretch is sent: memory stays that of the reading.

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};

/// Where a stretch of another file's lines starts in the spliced stream.
struct Part {
    /// Its first byte's offset in the stream (as the line reader counts them).
    at: u64,
    /// The file, and its first line's number there; `None`: the input's own lines again.
    file: Option<(Arc<str>, u64)>,
}

/// The splicing reader's end: says where each stretch starts.
pub(crate) struct PartsTx(Sender<Part>);

/// The dispatcher's end: each line's file and number.
pub(crate) struct Parts {
    rx: Receiver<Part>,
    /// The next stretch, received but not yet reached.
    next: Option<Part>,
    /// The file being read, and what to add to a line's number in the stream for its
    /// number there (`None`: the input's own lines).
    file: Option<(Arc<str>, u64)>,
    /// Lines of other files read so far: the input's own lines are numbered without them.
    others: u64,
}

/// A pair of ends for one input.
pub(crate) fn parts() -> (PartsTx, Parts) {
    let (tx, rx) = mpsc::channel();
    let parts = Parts {
        rx,
        next: None,
        file: None,
        others: 0,
    };
    (PartsTx(tx), parts)
}

impl PartsTx {
    /// The bytes handed out from `at` on are `file`'s lines from its line `first_line`
    /// (`None`: the input's own, where they were left). Called before the first of them
    /// is handed out, so that the dispatcher has it before it sees the line.
    pub(crate) fn starts(&self, at: u64, file: Option<(Arc<str>, u64)>) {
        // The dispatcher gone, nobody reads the lines either.
        let _ = self.0.send(Part { at, file });
    }
}

impl Parts {
    /// The file of the line at `offset` in the stream, numbered `number` there (`None`:
    /// the input itself), and the line's number in it.
    pub(crate) fn place(&mut self, offset: u64, number: u64) -> (Option<&Arc<str>>, u64) {
        loop {
            if self.next.is_none() {
                self.next = self.rx.try_recv().ok();
            }
            match self.next.take_if(|part| part.at <= offset) {
                Some(part) => {
                    // From the line's number in the stream to its number in the file.
                    self.file = part
                        .file
                        .map(|(file, first)| (file, first.wrapping_sub(number)));
                }
                None => break,
            }
        }
        match &self.file {
            Some((file, shift)) => {
                self.others += 1;
                (Some(file), number.wrapping_add(*shift))
            }
            None => (None, number.saturating_sub(self.others)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_in_their_own_files() {
        let (tx, mut parts) = parts();
        let sub: Arc<str> = Arc::from("sub.jsonl");
        // Main lines 1-2 (10 bytes each), the sub-agent's lines 3-4 (its own 1-2), main
        // line 3, the sub-agent again from its line 3.
        tx.starts(20, Some((sub.clone(), 1)));
        tx.starts(40, None);
        tx.starts(50, Some((sub.clone(), 3)));
        let got: Vec<_> = [(0, 1), (10, 2), (20, 3), (30, 4), (40, 5), (50, 6)]
            .into_iter()
            .map(|(at, n)| {
                let (file, number) = parts.place(at, n);
                (file.map(|f| f.to_string()), number)
            })
            .collect();
        let sub = Some("sub.jsonl".to_string());
        assert_eq!(
            got,
            [
                (None, 1),
                (None, 2),
                (sub.clone(), 1),
                (sub.clone(), 2),
                (None, 3),
                (sub, 3)
            ]
        );
    }
}

//! Pairing tool calls' starts and ends within a run, for every agent (the one place).
//!
//! Calls are matched by id, compared verbatim (Cursor's ids hold a newline). Parallel
//! calls end in any order; an end may come without a start; a second end of the same call
//! is ignored. Memory holds the calls in flight and one hash per ended call of the current
//! run: it is bounded by the run, not by the log.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};

use super::event::ToolCall;

/// A call that started and has not ended.
#[derive(Debug)]
pub(crate) struct Started {
    /// Position in start order within the run.
    pub seq: u64,
    pub call: ToolCall<'static>,
}

/// What an end matched.
#[derive(Debug)]
pub(crate) enum Matched {
    Started(Started),
    /// No start was seen: a call of its own, at this position.
    Unstarted(u64),
    /// The call had already ended: ignore this end.
    Again,
}

pub(crate) struct Calls {
    in_flight: HashMap<String, Started>,
    /// Calls started without an id: no end can find them, so they are pending when the
    /// run ends.
    anonymous: Vec<Started>,
    ended: HashSet<u64>,
    hasher: RandomState,
    next_seq: u64,
}

impl Default for Calls {
    fn default() -> Self {
        Calls {
            in_flight: HashMap::new(),
            anonymous: Vec::new(),
            ended: HashSet::new(),
            hasher: RandomState::new(),
            next_seq: 0,
        }
    }
}

impl Calls {
    /// A call starts: its position, or `None` for a repeated start.
    pub(crate) fn start(&mut self, call: &ToolCall<'_>) -> Option<u64> {
        let seq = self.next_seq;
        let started = Started {
            seq,
            call: call.clone().into_owned(),
        };
        match call.id.as_deref() {
            Some(id) => {
                if self.in_flight.contains_key(id) || self.ended.contains(&self.hash(id)) {
                    return None;
                }
                self.in_flight.insert(id.to_owned(), started);
            }
            None => self.anonymous.push(started),
        }
        self.next_seq += 1;
        Some(seq)
    }

    /// A call ends.
    pub(crate) fn end(&mut self, id: Option<&str>) -> Matched {
        let Some(id) = id else {
            // Without an id nothing can be matched: a call of its own.
            return Matched::Unstarted(self.take_seq());
        };
        if !self.ended.insert(self.hash(id)) {
            return Matched::Again;
        }
        match self.in_flight.remove(id) {
            Some(started) => Matched::Started(started),
            None => Matched::Unstarted(self.take_seq()),
        }
    }

    /// The run ended: the calls still in flight, in start order, and a clean slate.
    pub(crate) fn end_run(&mut self) -> Vec<Started> {
        let mut pending: Vec<_> = self.in_flight.drain().map(|(_, s)| s).collect();
        pending.append(&mut self.anonymous);
        pending.sort_by_key(|s| s.seq);
        self.ended.clear();
        self.next_seq = 0;
        pending
    }

    fn take_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::event::ToolKind;

    fn call(id: Option<&str>) -> ToolCall<'static> {
        let mut c = ToolCall::new("shell", ToolKind::Shell);
        c.id = id.map(|s| s.to_owned().into());
        c
    }

    fn seq(m: Matched) -> u64 {
        match m {
            Matched::Started(s) => s.seq,
            Matched::Unstarted(seq) => seq,
            Matched::Again => panic!("ended again"),
        }
    }

    #[test]
    fn parallel_calls_end_out_of_order() {
        let mut t = Calls::default();
        assert_eq!(t.start(&call(Some("a\nx"))), Some(0));
        assert_eq!(t.start(&call(Some("b\nx"))), Some(1));
        assert_eq!(seq(t.end(Some("b\nx"))), 1);
        assert_eq!(seq(t.end(Some("a\nx"))), 0);
        assert!(t.end_run().is_empty());
    }

    #[test]
    fn ids_are_compared_verbatim() {
        let mut t = Calls::default();
        t.start(&call(Some("call-1\nfc_1")));
        assert!(matches!(t.end(Some("call-1")), Matched::Unstarted(1)));
        assert_eq!(t.end_run().len(), 1, "the real call is still pending");
    }

    #[test]
    fn end_without_start_and_repeated_ends() {
        let mut t = Calls::default();
        assert!(matches!(t.end(Some("task")), Matched::Unstarted(0)));
        assert!(matches!(t.end(Some("task")), Matched::Again));
        assert!(t.start(&call(Some("task"))).is_none());
    }

    #[test]
    fn a_call_without_id_is_pending_at_the_end() {
        let mut t = Calls::default();
        assert_eq!(t.start(&call(None)), Some(0));
        assert!(matches!(t.end(None), Matched::Unstarted(1)));
        let pending = t.end_run();
        assert_eq!(pending.len(), 1);
        assert_eq!(pending[0].seq, 0);
    }

    #[test]
    fn run_end_gives_pending_calls_in_start_order_and_a_clean_slate() {
        let mut t = Calls::default();
        for id in ["z", "a", "m"] {
            t.start(&call(Some(id)));
        }
        t.end(Some("a"));
        let pending: Vec<_> = t
            .end_run()
            .into_iter()
            .map(|s| s.call.id.unwrap().into_owned())
            .collect();
        assert_eq!(pending, ["z", "m"]);
        assert_eq!(t.start(&call(Some("a"))), Some(0), "a new run");
    }
}

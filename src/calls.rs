//! Pairing `started` and `completed` tool calls within a run.
//!
//! Calls are matched by `call_id`, compared verbatim (real ids hold a newline). Parallel
//! calls complete in any order; a completion may come without a start; a second
//! completion of the same call is ignored. Memory holds the calls in flight and one hash
//! per completed call of the current run: it is bounded by the run, not by the log.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};

/// What the `started` event told about a call.
#[derive(Debug)]
pub struct Started<A> {
    /// Position in start order within the run.
    pub seq: u64,
    pub tool: String,
    pub args: Option<A>,
    pub started_at_ms: Option<u64>,
}

/// A completion matched (or not) to its start.
#[derive(Debug)]
pub struct Completion<A> {
    pub seq: u64,
    /// `None` when the call completed without a `started` event.
    pub started: Option<Started<A>>,
}

pub struct CallTracker<A> {
    in_flight: HashMap<String, Started<A>>,
    /// Calls started without a `call_id`: no completion can find them, so they are
    /// pending when the run ends.
    anonymous: Vec<Started<A>>,
    completed: HashSet<u64>,
    hasher: RandomState,
    next_seq: u64,
}

impl<A> Default for CallTracker<A> {
    fn default() -> Self {
        CallTracker {
            in_flight: HashMap::new(),
            anonymous: Vec::new(),
            completed: HashSet::new(),
            hasher: RandomState::new(),
            next_seq: 0,
        }
    }
}

impl<A> CallTracker<A> {
    /// A call starts. Returns its position, or `None` for a repeated start.
    pub fn start(
        &mut self,
        call_id: Option<&str>,
        tool: &str,
        args: Option<A>,
        started_at_ms: Option<u64>,
    ) -> Option<u64> {
        let seq = self.next_seq;
        let started = Started {
            seq,
            tool: tool.to_owned(),
            args,
            started_at_ms,
        };
        match call_id {
            Some(id) => {
                if self.in_flight.contains_key(id) || self.completed.contains(&self.hash(id)) {
                    return None;
                }
                self.in_flight.insert(id.to_owned(), started);
            }
            None => self.anonymous.push(started),
        }
        self.next_seq += 1;
        Some(seq)
    }

    /// A call completes. Returns `None` when it already had.
    pub fn complete(&mut self, call_id: Option<&str>) -> Option<Completion<A>> {
        let Some(id) = call_id else {
            // Without an id nothing can be matched: a call of its own.
            return Some(self.unstarted());
        };
        if !self.completed.insert(self.hash(id)) {
            return None;
        }
        match self.in_flight.remove(id) {
            Some(started) => Some(Completion {
                seq: started.seq,
                started: Some(started),
            }),
            None => Some(self.unstarted()),
        }
    }

    /// The run ended: the calls still in flight, in start order (those without an id
    /// with an empty one), and a clean slate.
    pub fn end_run(&mut self) -> Vec<(String, Started<A>)> {
        let mut pending: Vec<_> = self.in_flight.drain().collect();
        pending.extend(self.anonymous.drain(..).map(|s| (String::new(), s)));
        pending.sort_by_key(|(_, s)| s.seq);
        self.completed.clear();
        self.next_seq = 0;
        pending
    }

    pub fn in_flight(&self) -> usize {
        self.in_flight.len() + self.anonymous.len()
    }

    fn unstarted(&mut self) -> Completion<A> {
        let seq = self.next_seq;
        self.next_seq += 1;
        Completion { seq, started: None }
    }

    fn hash(&self, id: &str) -> u64 {
        self.hasher.hash_one(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_calls_complete_out_of_order() {
        let mut t = CallTracker::<()>::default();
        assert_eq!(t.start(Some("a\nx"), "shell", None, Some(1)), Some(0));
        assert_eq!(t.start(Some("b\nx"), "shell", None, Some(2)), Some(1));
        let b = t.complete(Some("b\nx")).unwrap();
        assert_eq!(b.seq, 1);
        assert_eq!(b.started.unwrap().started_at_ms, Some(2));
        assert_eq!(t.complete(Some("a\nx")).unwrap().seq, 0);
        assert_eq!(t.in_flight(), 0);
    }

    #[test]
    fn ids_are_compared_verbatim() {
        let mut t = CallTracker::<()>::default();
        t.start(Some("call-1\nfc_1"), "read", None, None);
        let c = t.complete(Some("call-1")).unwrap();
        assert!(c.started.is_none(), "a prefix of the id is another id");
        assert_eq!(t.in_flight(), 1);
    }

    #[test]
    fn completion_without_start_and_duplicates() {
        let mut t = CallTracker::<()>::default();
        let c = t.complete(Some("task")).unwrap();
        assert!(c.started.is_none());
        assert!(t.complete(Some("task")).is_none(), "counted once");
        assert!(t.start(Some("task"), "task", None, None).is_none());
    }

    #[test]
    fn a_call_without_id_is_pending_at_the_end() {
        let mut t = CallTracker::<()>::default();
        assert_eq!(t.start(None, "shell", None, None), Some(0));
        assert_eq!(t.complete(None).unwrap().seq, 1, "a completion of its own");
        let pending = t.end_run();
        assert_eq!(pending.len(), 1);
        assert_eq!((pending[0].0.as_str(), pending[0].1.seq), ("", 0));
    }

    #[test]
    fn rejected_completion_keeps_the_start_args() {
        let mut t = CallTracker::default();
        t.start(Some("c"), "shell", Some("rm -rf build"), None);
        let c = t.complete(Some("c")).unwrap();
        assert_eq!(c.started.unwrap().args, Some("rm -rf build"));
    }

    #[test]
    fn run_end_gives_pending_calls_in_start_order() {
        let mut t = CallTracker::<()>::default();
        for id in ["z", "a", "m"] {
            t.start(Some(id), "shell", None, None);
        }
        t.complete(Some("a"));
        let pending: Vec<_> = t.end_run().into_iter().map(|(id, _)| id).collect();
        assert_eq!(pending, ["z", "m"]);
        assert_eq!(t.start(Some("a"), "read", None, None), Some(0), "a new run");
    }
}

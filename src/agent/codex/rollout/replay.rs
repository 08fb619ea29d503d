//! A fork's replay of its parent. A rollout that forks a session (a resume written to a
//! new file, 0.3x; a sub-agent forked from its parent's thread, 0.119 on) starts with its
//! own `session_meta`, then its parent's `session_meta` and the parent's history, all
//! written at once when the fork is made: neither runs nor tokens of the fork's (its
//! counts are what the fork's own go on from).
//!
//! The replay ends with the first line that is the fork's own:
//!
//! - a line naming the fork's own thread (`thread_settings_applied{thread_id}`, 0.148 on);
//! - a `task_started` while the replayed turn is still open: a sub-agent is forked in the
//!   middle of its parent's turn, and starts its own at once (0.119);
//! - a line written more than a second after the one before it: the replay is written in
//!   one go, its lines each right after the last however long it takes (a history of
//!   hundreds of MB spans many seconds), and the fork's own first line comes when its
//!   user types (0.36).

/// Where the file is in a fork's replay.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) enum Replay {
    /// No replay started (none yet, or the file is no fork).
    #[default]
    None,
    Replaying {
        /// The time of the replay's last line (epoch ms).
        last_ms: Option<u64>,
        /// A replayed turn started and did not end.
        turn_open: bool,
    },
    /// Past the replay: every line is the file's own.
    Done,
}

/// What a line says that ends a replay, besides its time.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Marks {
    /// It starts a turn (`task_started`).
    pub starts_turn: bool,
    /// It ends a turn (`task_complete`, `turn_aborted`).
    pub ends_turn: bool,
    /// It names the file's own thread.
    pub own_thread: bool,
}

/// The gap between two lines past which the second is not the replay's (ms).
const GAP_MS: u64 = 1000;

impl Replay {
    /// The parent's `session_meta`, at `at_ms`, came after the file's own: the replay
    /// starts. (A file has one replay, before its own lines.)
    pub(super) fn start(&mut self, at_ms: Option<u64>) {
        if *self == Replay::None {
            *self = Replay::Replaying {
                last_ms: at_ms,
                turn_open: false,
            };
        }
    }

    /// The file's own lines started without a replay: none comes after them.
    pub(super) fn none(&mut self) {
        if *self == Replay::None {
            *self = Replay::Done;
        }
    }

    /// A line at `at_ms`, which its time alone may tell from the replay: whether it is
    /// still the replay's.
    pub(super) fn at(&mut self, at_ms: Option<u64>) -> bool {
        let Replay::Replaying { last_ms, .. } = self else {
            return false;
        };
        match (*last_ms, at_ms) {
            (Some(last), Some(at)) if at > last.saturating_add(GAP_MS) => {
                *self = Replay::Done;
                false
            }
            (_, Some(at)) => {
                *last_ms = Some(at.max(last_ms.unwrap_or(0)));
                true
            }
            (_, None) => true,
        }
    }

    /// A line at `at_ms` that says `marks`: whether it is still the replay's.
    pub(super) fn line(&mut self, at_ms: Option<u64>, marks: Marks) -> bool {
        if !self.at(at_ms) {
            return false;
        }
        let Replay::Replaying { turn_open, .. } = self else {
            return false;
        };
        if marks.own_thread || (marks.starts_turn && *turn_open) {
            *self = Replay::Done;
            return false;
        }
        if marks.starts_turn {
            *turn_open = true;
        } else if marks.ends_turn {
            *turn_open = false;
        }
        true
    }

    pub(super) fn replaying(&self) -> bool {
        matches!(self, Replay::Replaying { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAIN: Marks = Marks {
        starts_turn: false,
        ends_turn: false,
        own_thread: false,
    };
    const TASK_STARTED: Marks = Marks {
        starts_turn: true,
        ..PLAIN
    };

    /// A replay whose lines span many seconds, each right after the one before (remark D5
    /// of review-6f50fcc: the second of the fork's first line does not bound it).
    #[test]
    fn a_replay_written_over_seconds_is_still_a_replay() {
        let mut r = Replay::default();
        r.start(Some(10_900));
        for at in (10_950..14_000).step_by(150) {
            assert!(r.line(Some(at), PLAIN), "{at}");
        }
        assert!(!r.line(Some(20_000), PLAIN));
        assert!(!r.line(Some(20_001), TASK_STARTED));
        assert_eq!(r, Replay::Done);
    }

    /// A sub-agent's own turn starts in the second of its parent's replayed one.
    #[test]
    fn a_turn_started_in_a_replayed_open_turn_is_the_fork_s() {
        let mut r = Replay::default();
        r.start(Some(0));
        assert!(r.line(Some(1), TASK_STARTED));
        assert!(r.line(Some(2), PLAIN));
        assert!(!r.line(Some(3), TASK_STARTED));
        let mut r = Replay::default();
        r.start(Some(0));
        let ends = Marks {
            ends_turn: true,
            ..PLAIN
        };
        assert!(r.line(Some(1), TASK_STARTED));
        assert!(r.line(Some(2), ends));
        assert!(r.line(Some(3), TASK_STARTED));
        let own = Marks {
            own_thread: true,
            ..PLAIN
        };
        assert!(!r.line(Some(4), own));
    }
}

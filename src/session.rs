//! Runs (sessions) in a stream, how each ended, and the exit status that follows.
//!
//! One producer process is one run: `system/init`, content, and at most one `result`.
//! A log made by appending runs holds several back to back. A run that ends without a
//! `result` (the stream stops, or the next run's `init` arrives first) did not finish:
//! the producer was killed, crashed, or failed and wrote its error to its own stderr.

use std::fmt;

/// The process's exit status. The run views share the statuses below; the log views
/// (`events`, `get`, `stats`, `check`) give some numbers their own meaning, as documented
/// in the README.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus(pub u8);

impl ExitStatus {
    /// Every run in the input ended with a successful `result`.
    pub const SUCCESS: ExitStatus = ExitStatus(0);
    /// A run's `result` reports a failure (`is_error: true`, or a subtype other than
    /// `success`).
    pub const RUN_FAILED: ExitStatus = ExitStatus(1);
    /// Usage error, or an input could not be read.
    pub const ERROR: ExitStatus = ExitStatus(2);
    /// The input ended without a `result` for some run, or held no run at all.
    pub const NO_RESULT: ExitStatus = ExitStatus(3);
    /// `--strict` or `--max-line`, and a line was not usable.
    pub const BAD_INPUT: ExitStatus = ExitStatus(4);

    pub fn code(self) -> u8 {
        self.0
    }
}

/// How one run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Succeeded,
    Failed {
        subtype: String,
        is_error: bool,
    },
    /// The `result` line was there but could not be read.
    Unreadable,
    NoResult,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Succeeded => f.write_str("the run succeeded"),
            Outcome::Failed { subtype, is_error } => write!(
                f,
                "the run failed (result subtype \"{subtype}\", is_error {is_error})"
            ),
            Outcome::Unreadable => f.write_str("the run's result event could not be read"),
            Outcome::NoResult => f.write_str(
                "the stream ended without a result event: the run did not finish \
                 (killed, crashed, or failed before answering)",
            ),
        }
    }
}

/// Counts runs and their outcomes as the dispatcher sees them.
#[derive(Debug, Default)]
pub struct Sessions {
    open: bool,
    succeeded: u64,
    failed: u64,
    unfinished: u64,
}

impl Sessions {
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// A run begins. The caller ends the open one first.
    pub fn start(&mut self) {
        debug_assert!(!self.open, "a run starts while another is open");
        self.open = true;
    }

    /// The open run ends (a `result`, the next run's `init`, or the end of the input).
    pub fn end(&mut self, outcome: Outcome) -> Outcome {
        self.open = false;
        match outcome {
            Outcome::Succeeded => self.succeeded += 1,
            Outcome::Failed { .. } | Outcome::Unreadable => self.failed += 1,
            Outcome::NoResult => self.unfinished += 1,
        }
        outcome
    }

    pub fn runs(&self) -> u64 {
        self.succeeded + self.failed + self.unfinished
    }

    /// 0 only when every run succeeded; a reported failure outranks a missing result.
    pub fn status(&self) -> ExitStatus {
        if self.failed > 0 {
            ExitStatus::RUN_FAILED
        } else if self.unfinished > 0 || self.succeeded == 0 {
            ExitStatus::NO_RESULT
        } else {
            ExitStatus::SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_run_at_all_is_no_result() {
        assert_eq!(Sessions::default().status(), ExitStatus::NO_RESULT);
    }

    #[test]
    fn one_unfinished_run_among_successes_is_no_result() {
        let mut s = Sessions::default();
        s.start();
        s.end(Outcome::NoResult);
        s.start();
        s.end(Outcome::Succeeded);
        assert_eq!(s.runs(), 2);
        assert_eq!(s.status(), ExitStatus::NO_RESULT);
    }

    #[test]
    fn failure_outranks_missing_result() {
        let mut s = Sessions::default();
        s.start();
        s.end(Outcome::NoResult);
        s.start();
        s.end(Outcome::Failed {
            subtype: "error".into(),
            is_error: true,
        });
        assert_eq!(s.status(), ExitStatus::RUN_FAILED);
    }

    #[test]
    fn all_succeeded_is_success() {
        let mut s = Sessions::default();
        for _ in 0..3 {
            s.start();
            s.end(Outcome::Succeeded);
        }
        assert_eq!(s.status(), ExitStatus::SUCCESS);
    }
}

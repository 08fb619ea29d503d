//! Runs in a stream, how each ended, and the exit status that follows.
//!
//! One agent process answering one prompt is one run: its start, its content, and at most
//! one terminal event (each dialect says which event that is). A log made by appending
//! runs holds several back to back. A run that ends without its terminal event (the stream
//! stops, or the next run starts first) did not finish: the agent was killed, crashed, or
//! failed and wrote its error to its own stderr.

use crate::agent::event::Outcome;
use crate::exit::ExitStatus;

/// Counts runs and their outcomes as the dispatcher sees them.
#[derive(Debug, Default)]
pub(crate) struct Runs {
    open: bool,
    succeeded: u64,
    failed: u64,
    unfinished: u64,
}

impl Runs {
    pub(crate) fn is_open(&self) -> bool {
        self.open
    }

    /// A run begins. The caller ends the open one first.
    pub(crate) fn start(&mut self) {
        debug_assert!(!self.open, "a run starts while another is open");
        self.open = true;
    }

    /// The open run ends.
    pub(crate) fn end(&mut self, outcome: &Outcome) {
        self.open = false;
        match outcome {
            Outcome::Succeeded => self.succeeded += 1,
            Outcome::Failed { .. } | Outcome::Unreadable => self.failed += 1,
            Outcome::NoEnd => self.unfinished += 1,
        }
    }

    /// Adds the runs of an input read apart (by a worker; see `crate::parallel`).
    pub(crate) fn merge(&mut self, other: &Runs) {
        self.succeeded += other.succeeded;
        self.failed += other.failed;
        self.unfinished += other.unfinished;
    }

    pub(crate) fn count(&self) -> u64 {
        self.succeeded + self.failed + self.unfinished
    }

    /// 0 only when every run succeeded; a reported failure outranks a missing end.
    pub(crate) fn status(&self) -> ExitStatus {
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

    fn runs(outcomes: &[Outcome]) -> Runs {
        let mut r = Runs::default();
        for o in outcomes {
            r.start();
            r.end(o);
        }
        r
    }

    #[test]
    fn no_run_at_all_is_no_result() {
        assert_eq!(Runs::default().status(), ExitStatus::NO_RESULT);
    }

    #[test]
    fn one_unfinished_run_among_successes_is_no_result() {
        let r = runs(&[Outcome::NoEnd, Outcome::Succeeded]);
        assert_eq!(r.count(), 2);
        assert_eq!(r.status(), ExitStatus::NO_RESULT);
    }

    #[test]
    fn failure_outranks_missing_end() {
        let failed = Outcome::Failed { reason: "x".into() };
        assert_eq!(
            runs(&[Outcome::NoEnd, failed]).status(),
            ExitStatus::RUN_FAILED
        );
    }

    #[test]
    fn all_succeeded_is_success() {
        let r = runs(&[Outcome::Succeeded, Outcome::Succeeded, Outcome::Succeeded]);
        assert_eq!(r.status(), ExitStatus::SUCCESS);
    }
}

//! The process's exit statuses, all named in one place.
//!
//! The run views share 0 / 1 / 3 (decided by [`crate::runs::Runs::status`]); the log views
//! give some numbers their own meaning, as grep and jq do; `run` adds the statuses of a
//! supervised process.

/// An exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExitStatus(pub u8);

impl ExitStatus {
    /// Every run in the input ended with a success.
    pub const SUCCESS: ExitStatus = ExitStatus(0);
    /// A run ended with a failure (the agent's own terminal event says so, or one of the
    /// traps each dialect knows).
    pub const RUN_FAILED: ExitStatus = ExitStatus(1);
    /// Usage error, or an input could not be read.
    pub const ERROR: ExitStatus = ExitStatus(2);
    /// The input ended without the terminal event of some run, or held no run at all.
    pub const NO_RESULT: ExitStatus = ExitStatus(3);
    /// `--strict` or `--max-line`, and a line was not usable.
    pub const BAD_INPUT: ExitStatus = ExitStatus(4);

    /// `events`: no event matched (as grep's 1).
    pub const NO_MATCH: ExitStatus = ExitStatus(1);
    /// `check`: a problem was found.
    pub const PROBLEMS: ExitStatus = ExitStatus(1);
    /// `get -e`: the last value was `false` or `null` (as jq's 1).
    pub const FALSY: ExitStatus = ExitStatus(1);
    /// `get -e`: there was no value at all (as jq's 4).
    pub const NO_VALUE: ExitStatus = ExitStatus(4);
    /// `get`: a path step failed on some event (as jq's 5).
    pub const PATH_ERROR: ExitStatus = ExitStatus(5);

    /// `run`: the agent printed nothing for `--idle-timeout` (as `timeout(1)`).
    pub const TIMED_OUT: ExitStatus = ExitStatus(124);
    /// `run`: the command could not be started (as a shell says for a missing command).
    pub const CANNOT_START: ExitStatus = ExitStatus(127);
    /// `run`: stopped by SIGHUP, its terminal closed (128 + SIGHUP, as a shell reports it).
    pub const HUNG_UP: ExitStatus = ExitStatus(129);
    /// `run`: stopped by Ctrl-C (128 + SIGINT).
    pub const INTERRUPTED: ExitStatus = ExitStatus(130);
    /// `run`: our stdout was closed, so the agent was stopped (128 + SIGPIPE, as a shell
    /// reports a writer killed by the closed pipe; not the log views' quiet 0, since the run
    /// was cut short).
    pub const OUTPUT_CLOSED: ExitStatus = ExitStatus(141);
    /// `run`: stopped by SIGTERM (`timeout`, a cancelled CI job; 128 + SIGTERM).
    pub const TERMINATED: ExitStatus = ExitStatus(143);

    pub fn code(self) -> u8 {
        self.0
    }
}

//! `run`: start the agent, show its stream live, and stop it when it is done.
//!
//! An agent can keep running after its terminal event (Cursor's and Claude's `result`,
//! Codex's `turn.completed`, …), and a hung agent would stall a CI job for ever. So the
//! command runs in a process group of its own (which also holds the children that Gemini
//! and Qwen re-spawn themselves as), its stdout goes through the chosen view, and a
//! watchdog thread stops the group (SIGTERM, then SIGKILL) when the terminal event has
//! arrived and the agent has not exited within the grace period, or when it has printed
//! nothing for the idle timeout. The agent's stderr is passed through, and the usual
//! failures get a one-line hint for that agent. Its stdin is ours, but for a terminal: in
//! the background, reading it would stop the agent (SIGTTIN).
//!
//! Signals reach `run` only, not the agent's group, so a thread waits for them:
//! - SIGINT (Ctrl-C), SIGTERM (`timeout`, a cancelled CI job) and SIGHUP (the terminal
//!   closed) stop the group as the watchdog does; the view writes what it had and reports
//!   the run's end, and `run` exits with 128 + the signal (130, 143, 129);
//! - a second one of them sends SIGKILL at once;
//! - one that `run` was started ignoring (`nohup`, a shell's background job) stays ignored,
//!   as it does for the agent, which inherits that;
//! - SIGPIPE stays ignored (as in every Rust program): a closed stdout is an error that
//!   stops the agent, and `run` exits 141.
//!
//! A process group is not enough: Claude's hooks and the shell commands of Gemini and
//! OpenCode start sessions of their own, and would outlive the agent holding its stdout
//! open. On Linux `run` makes itself the subreaper of everything the agent starts, so
//! orphans stay its descendants, and every signal goes to the group and to each
//! descendant found in `/proc`.

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, IsTerminal, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{SigSet, Signal as Caught};
use rustix::process::{Pid, Signal, kill_process, kill_process_group};

use crate::agent::event::Agent;
use crate::agent::{AnyDialect, Dialect};
use crate::exit::ExitStatus;

/// How long a stopped agent gets between SIGTERM and SIGKILL.
const KILL_AFTER: Duration = Duration::from_secs(2);
const TICK: Duration = Duration::from_millis(20);

#[derive(Debug, Clone)]
pub(crate) struct RunOptions {
    pub command: Vec<OsString>,
    /// How long the agent may keep running after its `result`.
    pub grace: Duration,
    /// Stop the agent when it prints nothing for this long.
    pub idle_timeout: Option<Duration>,
}

/// What the threads watching the agent share.
#[derive(Default)]
pub(crate) struct Watch {
    start: Option<Instant>,
    /// Milliseconds since `start` of the agent's last output.
    last_output_ms: AtomicU64,
    /// Milliseconds since `start` when the terminal event arrived; 0 before.
    result_ms: AtomicU64,
    /// The dispatcher sets it while the agent's terminal event has been seen (OpenCode can
    /// take it back: a step after its `stop`).
    pub result_seen: Arc<AtomicBool>,
    exited: AtomicBool,
    timed_out: AtomicBool,
    /// The first of [`STOPPING`] that arrived; 0 before.
    stopped_by: AtomicI32,
    stopped_after_result: AtomicBool,
    /// The agent had exited, but what it left behind still held its output.
    stopped_leftovers: AtomicBool,
}

impl Watch {
    fn now_ms(&self) -> u64 {
        self.start.map_or(0, |s| s.elapsed().as_millis() as u64)
    }

    fn output_seen(&self) {
        self.last_output_ms.store(self.now_ms(), Ordering::Relaxed);
    }
}

/// The started agent, ready to be read.
pub(crate) struct Supervised {
    child: Arc<Mutex<Child>>,
    stdout: Option<ActivityReader<std::process::ChildStdout>>,
    pub watch: Arc<Watch>,
    stderr_thread: Option<thread::JoinHandle<Vec<&'static str>>>,
    watchdog: Option<thread::JoinHandle<()>>,
    pgid: Pid,
    description: String,
}

/// The agent could not be started.
pub(crate) struct CannotStart(pub String);

/// Spawns the agent in a process group of its own, its stdout and stderr piped to us.
fn spawn(program: &OsStr, args: &[OsString]) -> Result<Child, CannotStart> {
    // Orphans of the agent are re-parented to us, not to init, so that they can be
    // found and stopped (Linux only; elsewhere the process group has to do).
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_child_subreaper(Some(rustix::process::getpid()));
    // The agent's group is in the background, where reading the terminal would stop it
    // (SIGTTIN) for good; handing it the foreground instead (tcsetpgrp) would put our
    // own output in the background and have to be undone on every way out. A pipe or a
    // file (a prompt on stdin) is passed on.
    let stdin = if io::stdin().is_terminal() {
        Stdio::null()
    } else {
        Stdio::inherit()
    };
    Command::new(program)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // A group of its own, so that the agent and everything it started can be
        // stopped together.
        .process_group(0)
        .spawn()
        .map_err(|e| CannotStart(format!("cannot start {}: {e}", program.to_string_lossy())))
}

impl Supervised {
    /// Starts the agent, and the threads that watch it: its stderr passed on, the
    /// watchdog, and the one that takes the stopping signals.
    pub(crate) fn start(opts: &RunOptions) -> Result<Supervised, CannotStart> {
        let Some((program, args)) = opts.command.split_first() else {
            return Err(CannotStart("no command given".into()));
        };
        let description = opts
            .command
            .iter()
            .map(|a| a.to_string_lossy())
            .collect::<Vec<_>>()
            .join(" ");
        let mut child = spawn(program, args)?;
        // After the spawn, as the agent would inherit the mask, and before any thread is
        // started, so that all of them block the signals too and only `on_signals` gets them.
        let stopping = block_stopping_signals();
        let pgid = Pid::from_child(&child);
        let watch = Arc::new(Watch {
            start: Some(Instant::now()),
            ..Watch::default()
        });
        let stdout = ActivityReader {
            inner: child.stdout.take().expect("stdout is piped"),
            watch: watch.clone(),
        };
        let stderr = child.stderr.take().expect("stderr is piped");
        let agent = Agent::from_program(&program.to_string_lossy());
        let stderr_thread = {
            let watch = watch.clone();
            thread::Builder::new()
                .name("agent stderr".into())
                .spawn(move || pass_stderr(stderr, agent, &watch))
                .ok()
        };
        let child = Arc::new(Mutex::new(child));
        let watchdog = {
            let (child, watch, opts) = (child.clone(), watch.clone(), opts.clone());
            thread::Builder::new()
                .name("watchdog".into())
                .spawn(move || watchdog(&child, pgid, &watch, &opts))
                .ok()
        };
        if let Some(set) = stopping {
            let watch = watch.clone();
            let waiting = thread::Builder::new()
                .name("signals".into())
                .spawn(move || on_signals(&set, pgid, &watch));
            if waiting.is_err() {
                // Nothing would take them: they keep their default action (ending us).
                let _ = set.thread_unblock();
            }
        }
        Ok(Supervised {
            child,
            stdout: Some(stdout),
            watch,
            stderr_thread,
            watchdog,
            pgid,
            description,
        })
    }

    /// The agent's stdout, to be read by the views (once).
    pub(crate) fn take_stdout(&mut self) -> ActivityReader<std::process::ChildStdout> {
        self.stdout
            .take()
            .expect("the agent's stdout is taken once")
    }

    /// Stops the agent now (our output is gone): SIGTERM, and SIGKILL if it lingers.
    /// Whether it was still running.
    pub(crate) fn abort(&self) -> bool {
        let was_running = self
            .child
            .lock()
            .is_ok_and(|mut c| matches!(c.try_wait(), Ok(None)));
        stop(self.pgid);
        let deadline = Instant::now() + KILL_AFTER;
        while Instant::now() < deadline {
            let exited = self
                .child
                .lock()
                .map(|mut c| matches!(c.try_wait(), Ok(Some(_))))
                .unwrap_or(true);
            if exited {
                break;
            }
            thread::sleep(TICK);
        }
        signal_all(self.pgid, Signal::KILL);
        was_running
    }

    /// When a signal stopped the agent: the status `run` exits with (128 + the signal), after
    /// a line on stderr saying so.
    pub(crate) fn stopped_by_signal(&self) -> Option<ExitStatus> {
        let signal = Caught::try_from(self.watch.stopped_by.load(Ordering::Relaxed)).ok()?;
        let _ = writeln!(
            io::stderr(),
            "cursor-stream: interrupted by {}: the agent was stopped",
            signal.as_str()
        );
        Some(match signal {
            Caught::SIGHUP => ExitStatus::HUNG_UP,
            Caught::SIGINT => ExitStatus::INTERRUPTED,
            Caught::SIGTERM => ExitStatus::TERMINATED,
            other => ExitStatus(128u8.saturating_add(other as u8)),
        })
    }

    /// Waits for the agent to exit, after its stdout ended; gives the status `run` exits
    /// with, from the views' status and how the agent ended.
    pub(crate) fn finish(mut self, view_status: ExitStatus) -> ExitStatus {
        let status = {
            let mut child = self.child.lock().unwrap_or_else(|e| e.into_inner());
            child.wait()
        };
        self.watch.exited.store(true, Ordering::Relaxed);
        // Anything the agent left behind goes too.
        signal_all(self.pgid, Signal::KILL);
        reap_descendants();
        if let Some(watchdog) = self.watchdog.take() {
            let _ = watchdog.join();
        }
        let hints = self
            .stderr_thread
            .take()
            .and_then(|t| t.join().ok())
            .unwrap_or_default();
        let mut err = io::stderr().lock();
        for hint in hints {
            let _ = writeln!(err, "cursor-stream: hint: {hint}");
        }
        let watch = &self.watch;
        if watch.stopped_leftovers.load(Ordering::Relaxed) {
            let _ = writeln!(
                err,
                "cursor-stream: note: the agent had exited, but processes it started still held its output: stopped"
            );
        }
        if let Some(status) = self.stopped_by_signal() {
            return status;
        }
        if watch.timed_out.load(Ordering::Relaxed) {
            return ExitStatus::TIMED_OUT;
        }
        if watch.result_seen.load(Ordering::Relaxed) {
            if watch.stopped_after_result.load(Ordering::Relaxed) {
                let _ = writeln!(
                    err,
                    "cursor-stream: note: the agent was still running after its result: stopped"
                );
            }
            return view_status;
        }
        // No result: the agent's own failure says more than "no result".
        match status {
            Ok(s) if s.code().is_some_and(|c| c != 0) => {
                let code = s.code().unwrap_or(1);
                let _ = writeln!(
                    err,
                    "cursor-stream: the agent exited with status {code} without a result: {}",
                    self.description
                );
                ExitStatus(u8::try_from(code).unwrap_or(1))
            }
            Ok(s) if s.signal().is_some() => {
                let signal = s.signal().unwrap_or(0);
                let _ = writeln!(
                    err,
                    "cursor-stream: the agent was killed by signal {signal} without a result"
                );
                ExitStatus(128u8.saturating_add(u8::try_from(signal).unwrap_or(0)))
            }
            _ => view_status,
        }
    }
}

/// The agent's stdout, noting when it last printed something.
pub(crate) struct ActivityReader<R> {
    inner: R,
    watch: Arc<Watch>,
}

impl<R: Read> Read for ActivityReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.watch.output_seen();
        }
        Ok(n)
    }
}

/// Copies the agent's stderr to ours as it comes, and names the failures it recognises.
fn pass_stderr(stderr: impl Read, agent: Option<Agent>, watch: &Watch) -> Vec<&'static str> {
    let mut hints = Vec::new();
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return hints,
            Ok(_) => {}
        }
        watch.output_seen();
        let mut err = io::stderr().lock();
        let _ = err.write_all(&line);
        let _ = err.flush();
        let hint = hint_for(agent, &String::from_utf8_lossy(&line));
        if let Some(hint) = hint.filter(|h| !hints.contains(h)) {
            hints.push(hint);
        }
    }
}

/// A one-line hint for the failures users of each agent CLI run into most (each dialect
/// knows its agent's, see `Dialect::hint`). With no agent known, every agent's hints are
/// tried.
pub(crate) fn hint_for(agent: Option<Agent>, message: &str) -> Option<&'static str> {
    let agents: &[Agent] = match &agent {
        Some(a) => std::slice::from_ref(a),
        None => &Agent::ALL,
    };
    agents
        .iter()
        .find_map(|&agent| AnyDialect::new(agent).hint(message))
}

/// The signals that stop `run`, and the agent with it.
const STOPPING: [Caught; 3] = [Caught::SIGINT, Caught::SIGTERM, Caught::SIGHUP];

/// Blocks those of [`STOPPING`] that are not ignored, in this thread and so in the threads
/// it starts after, for [`on_signals`] to wait for; the set blocked.
fn block_stopping_signals() -> Option<SigSet> {
    let ignored = ignored_signals();
    let mut set = SigSet::empty();
    for signal in STOPPING {
        if ignored & (1 << (signal as i32 - 1)) == 0 {
            set.add(signal);
        }
    }
    set.thread_block().ok()?;
    Some(set)
}

/// The signals this process was started ignoring, as a mask (bit N-1 for signal N), from
/// `/proc` (Linux); none elsewhere.
fn ignored_signals() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .unwrap_or(0)
}

/// Waits for the blocked signals: the first stops the agent's group as the watchdog does
/// (SIGTERM, then SIGKILL after [`KILL_AFTER`]), a second kills it at once.
fn on_signals(set: &SigSet, pgid: Pid, watch: &Watch) {
    while let Ok(signal) = set.wait() {
        if watch.exited.load(Ordering::Relaxed) {
            // The agent is gone and only our own output is left to write: end as the
            // signal would have ended us.
            std::process::exit(128 + signal as i32);
        }
        let first = watch
            .stopped_by
            .compare_exchange(0, signal as i32, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok();
        if first {
            stop(pgid);
        } else {
            signal_all(pgid, Signal::KILL);
        }
    }
}

fn stop(pgid: Pid) {
    let _ = signal_all(pgid, Signal::TERM);
}

/// Sends `signal` to the agent's process group and to every other descendant of ours
/// (those that started a session of their own).
/// Whether any process was there to be signalled.
fn signal_all(pgid: Pid, signal: Signal) -> bool {
    let group = kill_process_group(pgid, signal).is_ok();
    let found = descendants();
    for &pid in &found {
        let _ = kill_process(pid, signal);
    }
    // Where `/proc` can be read, it knows better than the group (which may hold only
    // zombies); elsewhere the group is all there is.
    if cfg!(target_os = "linux") {
        !found.is_empty()
    } else {
        group
    }
}

/// Our living descendants, from the parent of each process in `/proc` (empty elsewhere);
/// zombies are left out, they are gone but for their exit status.
fn descendants() -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let parents: Vec<(i32, i32)> = entries
        .filter_map(|e| {
            let pid: i32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
            let (state, parent) = state_and_parent(&stat)?;
            (state != b'Z').then_some((pid, parent))
        })
        .collect();
    let mut found = vec![rustix::process::getpid().as_raw_nonzero().get()];
    let mut next = 0;
    while next < found.len() {
        let parent = found[next];
        found.extend(
            parents
                .iter()
                .filter(|&&(pid, ppid)| ppid == parent && !found.contains(&pid))
                .map(|&(pid, _)| pid)
                .collect::<Vec<_>>(),
        );
        next += 1;
    }
    found
        .into_iter()
        .skip(1)
        .filter_map(Pid::from_raw)
        .collect()
}

/// The state and parent pid in `/proc/<pid>/stat`: the two fields after the command,
/// which is in parentheses and may itself hold spaces and parentheses.
fn state_and_parent(stat: &[u8]) -> Option<(u8, i32)> {
    let after = &stat[memchr::memrchr(b')', stat)? + 1..];
    let mut fields = after.split(|&b| b == b' ').filter(|f| !f.is_empty());
    let state = *fields.next()?.first()?;
    let parent = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
    Some((state, parent))
}

/// Waits briefly for the killed descendants to be gone and reaps those re-parented to us,
/// so that none outlives `run`.
fn reap_descendants() {
    let deadline = Instant::now() + KILL_AFTER;
    loop {
        while let Ok(Some(_)) = rustix::process::wait(rustix::process::WaitOptions::NOHANG) {}
        if descendants().is_empty() || Instant::now() >= deadline {
            return;
        }
        thread::sleep(Duration::from_millis(5));
    }
}

fn watchdog(child: &Mutex<Child>, pgid: Pid, watch: &Watch, opts: &RunOptions) {
    let mut term_sent_at: Option<Instant> = None;
    // When the agent itself exited; its output may still be held open by what it started.
    let mut agent_exited_ms: Option<u64> = None;
    let mut leftovers_looked_for = false;
    loop {
        thread::sleep(TICK);
        if watch.exited.load(Ordering::Relaxed) {
            return;
        }
        let now = watch.now_ms();
        if agent_exited_ms.is_none()
            && child
                .try_lock()
                .is_ok_and(|mut c| matches!(c.try_wait(), Ok(Some(_))))
        {
            agent_exited_ms = Some(now);
        }
        if let Some(at) = term_sent_at {
            if at.elapsed() >= KILL_AFTER {
                signal_all(pgid, Signal::KILL);
            }
            continue;
        }
        if watch.stopped_by.load(Ordering::Relaxed) != 0 {
            term_sent_at = Some(Instant::now());
            continue;
        }
        let grace = opts.grace.as_millis() as u64;
        // The agent is gone and its stdout still open: whatever holds it gets the same
        // grace as an agent lingering after its result.
        if let Some(at) = agent_exited_ms {
            // Once: when nothing is left, the stream is only still being read (a slow view).
            if !leftovers_looked_for && now.saturating_sub(at) >= grace {
                leftovers_looked_for = true;
                if signal_all(pgid, Signal::TERM) {
                    watch.stopped_leftovers.store(true, Ordering::Relaxed);
                    term_sent_at = Some(Instant::now());
                }
            }
            continue;
        }
        if !watch.result_seen.load(Ordering::Relaxed) {
            // The run went on after all (OpenCode): the grace starts again at the next end.
            watch.result_ms.store(0, Ordering::Relaxed);
        } else {
            let at = match watch.result_ms.load(Ordering::Relaxed) {
                0 => {
                    watch.result_ms.store(now.max(1), Ordering::Relaxed);
                    now
                }
                at => at,
            };
            if now.saturating_sub(at) >= grace {
                watch.stopped_after_result.store(true, Ordering::Relaxed);
                stop(pgid);
                term_sent_at = Some(Instant::now());
                continue;
            }
        }
        if let Some(idle) = opts.idle_timeout {
            let quiet = now.saturating_sub(watch.last_output_ms.load(Ordering::Relaxed));
            if quiet >= idle.as_millis() as u64 && !watch.result_seen.load(Ordering::Relaxed) {
                watch.timed_out.store(true, Ordering::Relaxed);
                let _ = writeln!(
                    io::stderr().lock(),
                    "cursor-stream: the agent printed nothing for {}: stopping it",
                    humantime::format_duration(idle)
                );
                stop(pgid);
                term_sent_at = Some(Instant::now());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_and_parent_read_past_a_command_with_parentheses_and_spaces() {
        let stat = b"4242 (node (a) b) S 4200 4242 4242 0 -1 4194560";
        assert_eq!(state_and_parent(stat), Some((b'S', 4200)));
        assert_eq!(state_and_parent(b"7 (sleep) Z 1 7 7"), Some((b'Z', 1)));
        assert_eq!(state_and_parent(b"7 (sleep"), None);
        assert_eq!(state_and_parent(b"7 (x) R"), None);
    }

    #[test]
    fn hints_for_the_usual_failures() {
        let hint = |agent, m| hint_for(agent, m).unwrap_or("");
        let cursor = Some(Agent::Cursor);
        assert!(hint(cursor, "⚠ Workspace Trust Required").contains("--trust"));
        assert!(
            hint(
                cursor,
                "Error: Authentication required. Please run 'agent login'"
            )
            .contains("login")
        );
        assert!(hint(cursor, "You've hit your usage limit for this month").contains("usage limit"));
        assert!(hint(cursor, "Cannot use this model: gpt-9").contains("--model"));
        assert!(
            hint(
                Some(Agent::Claude),
                "Error: When using --print, --output-format=stream-json requires --verbose"
            )
            .contains("--verbose")
        );
        assert!(
            hint(
                None,
                "Not inside a trusted directory and --skip-git-repo-check was not specified."
            )
            .contains("codex")
        );
        assert_eq!(hint_for(None, "all good"), None);
    }
}

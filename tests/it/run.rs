//! `cursor-stream run` with the small fake agents in `tests/fake-agents/`: one that hangs
//! after its result, one killed before it, one that goes silent, one that fails with an
//! error on stderr. Each test checks the exit status, the timing, and that no process the
//! agent started is left behind, even one in a session of its own.

use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::terminal::pty;
use rustix::process::{Pid, Signal, kill_process};

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn agent(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fake-agents")
        .join(name)
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

fn run(args: &[&str], command: &[&Path]) -> Ran {
    let start = Instant::now();
    let out = Command::new(BIN)
        .env_remove("NO_COLOR")
        .arg("run")
        .args(args)
        .arg("--")
        .args(command)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: start.elapsed(),
    }
}

/// Whether a process is still alive (a zombie waiting for its parent counts as gone).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z'),
        Err(_) => false,
    }
}

fn pids(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap()
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

fn assert_all_gone(pids: &[u32]) {
    // The group was killed when `run` returned; give the kernel a moment to reap.
    let deadline = Instant::now() + Duration::from_secs(2);
    while pids.iter().any(|&p| alive(p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    for &pid in pids {
        assert!(!alive(pid), "process {pid} was left running");
    }
}

/// How long a test waits for what should take a moment: generous, for a loaded machine.
const PATIENCE: Duration = Duration::from_secs(20);

/// Polls `done` until it holds or `PATIENCE` has passed; whether it held.
fn wait_until(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    true
}

/// Reads a stream to its end on a thread of its own.
fn collect(mut from: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = from.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// Waits for a fake agent that wrote its pid first in `pidfile` to `exec` `sleep`.
fn sleeping_agent(pidfile: &Path) {
    let asleep = wait_until(|| {
        pids_in(pidfile).first().is_some_and(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c == "sleep\n")
        })
    });
    assert!(asleep, "the agent did not start");
}

/// Waits for `child` to exit; if it does not within `PATIENCE`, kills it and the agent
/// processes in `pids`, and fails with `why`.
fn exit_status(child: &mut Child, pids: &[u32], why: &str) -> std::process::ExitStatus {
    let mut status = None;
    if wait_until(|| {
        status = child.try_wait().unwrap();
        status.is_some()
    }) {
        return status.unwrap();
    }
    let _ = child.kill();
    let _ = child.wait();
    for &pid in pids {
        let _ = kill_process(Pid::from_raw(pid as i32).unwrap(), Signal::KILL);
    }
    panic!("{why}");
}

/// Kills what a failed test left running, so that a failure leaves nothing behind.
fn kill_leftovers(pids: &[u32]) {
    for &pid in pids.iter().filter(|&&p| alive(p)) {
        let _ = kill_process(Pid::from_raw(pid as i32).unwrap(), Signal::KILL);
    }
}

#[test]
fn an_agent_that_hangs_after_its_result_is_stopped_after_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let ran = run(
        &["--grace", "1s"],
        &[
            &agent("hangs-after-result.sh"),
            &fixture("nopartial.ndjson"),
            &pidfile,
        ],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.took < Duration::from_millis(2500),
        "took {:?}",
        ran.took
    );
    assert!(
        ran.took >= Duration::from_secs(1),
        "stopped before the grace: {:?}",
        ran.took
    );
    assert!(
        ran.stdout
            .contains("✓ Ran `wc -l notes.txt` (exit 0, 199 ms)")
            && ran.stdout.contains("■ success"),
        "{}",
        ran.stdout
    );
    assert!(
        ran.stderr
            .contains("still running after its result: stopped"),
        "{}",
        ran.stderr
    );
    let pids = pids(&pidfile);
    assert_eq!(pids.len(), 2, "the agent and the child it left");
    assert_all_gone(&pids);
}

#[test]
fn a_command_the_agent_started_in_a_session_of_its_own_is_stopped_too() {
    // Out of the agent's process group and holding its stdout open: without `run` finding
    // it, the stream would never end.
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let ran = run(
        &["--grace", "1s", "--view", "result"],
        &[
            &agent("leaves-a-session.sh"),
            &fixture("nopartial.ndjson"),
            &pidfile,
        ],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(
        ran.took < Duration::from_millis(2500),
        "took {:?}",
        ran.took
    );
    assert!(
        ran.stderr
            .contains("processes it started still held its output: stopped"),
        "{}",
        ran.stderr
    );
    let pids = pids(&pidfile);
    assert_eq!(pids.len(), 1, "the command in its own session");
    assert_all_gone(&pids);
}

#[test]
fn an_agent_killed_before_its_result_gives_its_own_status() {
    let ran = run(
        &["--view", "text"],
        &[&agent("dies-without-result.sh"), &fixture("partial.ndjson")],
    );
    assert_eq!(ran.code, Some(128 + 9), "{}", ran.stderr);
    assert!(ran.stdout.starts_with("I'll check"), "{}", ran.stdout);
    assert!(
        ran.stderr
            .contains("the agent was killed by signal 9 without a result"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_silent_agent_is_stopped_after_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let ran = run(
        &["--idle-timeout", "1s"],
        &[
            &agent("goes-silent.sh"),
            &fixture("partial.ndjson"),
            &pidfile,
        ],
    );
    assert_eq!(ran.code, Some(124), "{}", ran.stderr);
    assert!(
        ran.took < Duration::from_millis(2500),
        "took {:?}",
        ran.took
    );
    assert!(
        ran.stderr
            .contains("the agent printed nothing for 1s: stopping it"),
        "{}",
        ran.stderr
    );
    assert_all_gone(&pids(&pidfile));
}

#[test]
fn an_agent_that_fails_on_stderr_passes_it_on_with_a_hint() {
    let ran = run(&[], &[&agent("fails-with-stderr.sh")]);
    assert_eq!(ran.code, Some(1), "{}", ran.stderr);
    assert!(
        ran.stderr
            .contains("Error: Authentication required. Please run 'agent login' first.\n"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr
            .contains("cursor-stream: hint: the agent is not logged in"),
        "{}",
        ran.stderr
    );
    assert!(
        ran.stderr.contains("exited with status 1 without a result"),
        "{}",
        ran.stderr
    );
}

#[test]
fn a_finished_agent_gives_the_views_status_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let tee = dir.path().join("raw.ndjson");
    let stream = fixture("partial.ndjson");
    let ran = run(
        &["--view", "text", "--tee", tee.to_str().unwrap()],
        &[&agent("finishes.sh"), &stream],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert!(ran.took < Duration::from_secs(1), "took {:?}", ran.took);
    assert_eq!(
        ran.stdout,
        std::fs::read_to_string(fixture("partial.expected")).unwrap()
    );
    assert_eq!(
        std::fs::read(&tee).unwrap(),
        std::fs::read(&stream).unwrap()
    );

    let failed = run(
        &["--view", "json"],
        &[&agent("finishes.sh"), &fixture("failed.ndjson")],
    );
    assert_eq!(failed.code, Some(1));
    assert_eq!(failed.stdout, "");
}

#[test]
fn an_agent_that_exited_while_our_output_waits_for_its_reader_leaves_nothing_to_stop() {
    // The agent printed its whole run and exited, but our stdout is not read for a while:
    // the grace passes with the stream still being written, and there is nothing to stop
    // and nothing to say about it.
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("big.ndjson");
    let answer = "x".repeat(600_000);
    std::fs::write(
        &stream,
        format!(
            "{{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}}\n\
             {{\"type\":\"assistant\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{answer}\"}}]}},\"session_id\":\"s\"}}\n\
             {{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"{answer}\",\"session_id\":\"s\"}}\n"
        ),
    )
    .unwrap();
    let mut child = Command::new(BIN)
        .args(["run", "--grace", "0s", "--view", "text", "--"])
        .arg(agent("finishes.sh"))
        .arg(&stream)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(800));
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0), "{err}");
    assert_eq!(out.trim_end(), answer);
    assert!(!err.contains("note"), "{err}");
}

#[test]
fn a_command_that_cannot_start_is_127() {
    let ran = run(&[], &[Path::new("/no/such/agent")]);
    assert_eq!(ran.code, Some(127));
    assert!(
        ran.stderr.contains("cannot start /no/such/agent"),
        "{}",
        ran.stderr
    );
}

/// Ctrl-C (SIGINT), SIGTERM (`timeout`, a cancelled CI job) and SIGHUP (a closed terminal)
/// stop the agent's whole group, everything it started included, at once: what the view
/// had is written, the run's end is reported, and the status is 128 + the signal, as a
/// shell reports a process the signal killed.
#[test]
fn a_signal_stops_the_agent_and_gives_128_and_the_signal() {
    for (signal, name, code) in [
        (Signal::INT, "SIGINT", 130),
        (Signal::TERM, "SIGTERM", 143),
        (Signal::HUP, "SIGHUP", 129),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pids");
        let mut child = Command::new(BIN)
            .args(["run", "--view", "text", "--"])
            .arg(agent("hangs-after-result.sh"))
            .arg(fixture("no-result.ndjson"))
            .arg(&pidfile)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = collect(child.stdout.take().unwrap());
        let err = collect(child.stderr.take().unwrap());
        // The agent has printed its stream (no result) and sleeps, as does the child it
        // started.
        sleeping_agent(&pidfile);
        let agent = pids(&pidfile);
        // Its processes do not inherit the signals `run` blocks to wait for them.
        let status = std::fs::read_to_string(format!("/proc/{}/status", agent[1])).unwrap();
        let unblocked = status.contains("\nSigBlk:\t0000000000000000\n");
        let start = Instant::now();
        kill_process(Pid::from_raw(child.id() as i32).unwrap(), signal).unwrap();
        let status = exit_status(&mut child, &agent, &format!("{name}: run did not exit"));
        // The agent stops on SIGTERM: no wait for the SIGKILL that follows.
        let took = start.elapsed();
        let (out, err) = (out.join().unwrap(), err.join().unwrap());
        let stopped = wait_until(|| agent.iter().all(|&p| !alive(p)));
        kill_leftovers(&agent);
        assert_eq!(
            (status.code(), status.signal()),
            (Some(code), None),
            "{name}: {err}"
        );
        assert!(stopped, "{name}: the agent was left running");
        assert!(took < Duration::from_secs(3), "{name}: took {took:?}");
        assert!(unblocked, "{name}: the agent's child has signals blocked");
        assert!(out.ends_with("Let me look"), "{name}: {out}");
        assert!(
            err.contains("the stream ended without a result event"),
            "{name}: {err}"
        );
        assert!(
            err.contains(&format!("interrupted by {name}: the agent was stopped")),
            "{name}: {err}"
        );
    }
}

/// Nothing reads `run`'s output any more (`run … | head`): the agent is stopped, and the
/// status says the run was cut short (141, as a shell reports a writer SIGPIPE killed), not
/// the 0 of a log view whose reader had seen enough.
#[test]
fn a_closed_stdout_stops_the_agent_and_gives_141() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pids");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = Command::new(BIN)
        .args(["run", "--view", "text", "--"])
        .arg(agent("goes-silent.sh"))
        .arg(fixture("partial.ndjson"))
        .arg(&pidfile)
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let err = collect(child.stderr.take().unwrap());
    let status = exit_status(&mut child, &pids_in(&pidfile), "run did not exit");
    let err = err.join().unwrap();
    let agent = pids(&pidfile);
    let stopped = wait_until(|| agent.iter().all(|&p| !alive(p)));
    kill_leftovers(&agent);
    assert_eq!(status.code(), Some(141), "{err}");
    assert!(stopped, "the agent was left running");
    assert!(
        err.contains("the output was closed: the agent was stopped"),
        "{err}"
    );
}

/// The pids in `file`, none while it is not there yet.
fn pids_in(file: &Path) -> Vec<u32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// `run` typed at a terminal, and an agent that reads stdin: the agent is in a background
/// process group, where reading the terminal would stop it (SIGTTIN) for ever, so it reads
/// end of file instead.
#[test]
fn an_agent_that_reads_stdin_does_not_hang_on_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let (pidfile, linefile) = (dir.path().join("pid"), dir.path().join("line"));
    let (theirs, _ours) = pty(80);
    let terminal = theirs.try_clone().unwrap();
    let mut cmd = Command::new(BIN);
    cmd.args(["run", "--view", "result", "--"])
        .arg(agent("reads-stdin.sh"))
        .arg(fixture("nopartial.ndjson"))
        .arg(&pidfile)
        .arg(&linefile)
        .stdin(theirs)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // As a shell starts it: in the foreground of a session whose controlling terminal is
    // its stdin.
    // SAFETY: only system calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::setsid()?;
            rustix::process::ioctl_tiocsctty(&terminal)?;
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let out = collect(child.stdout.take().unwrap());
    let err = collect(child.stderr.take().unwrap());
    let mut agent = Vec::new();
    let mut status = None;
    let exited = wait_until(|| {
        agent = pids_in(&pidfile);
        status = child.try_wait().unwrap();
        status.is_some()
    });
    if !exited {
        let state = agent
            .first()
            .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
            .unwrap_or_default();
        let _ = child.kill();
        let _ = child.wait();
        kill_leftovers(&agent);
        panic!("run hangs; the agent: {state}");
    }
    let (out, err) = (out.join().unwrap(), err.join().unwrap());
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{err}");
    assert_eq!(std::fs::read_to_string(&linefile).unwrap(), "\n");
    assert!(!out.is_empty(), "{err}");
}

/// A prompt piped to `run` still reaches the agent.
#[test]
fn an_agent_reads_what_is_piped_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let (pidfile, linefile) = (dir.path().join("pid"), dir.path().join("line"));
    let mut child = Command::new(BIN)
        .args(["run", "--view", "result", "--"])
        .arg(agent("reads-stdin.sh"))
        .arg(fixture("nopartial.ndjson"))
        .arg(&pidfile)
        .arg(&linefile)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"fix the build\n").unwrap();
    drop(stdin);
    let err = collect(child.stderr.take().unwrap());
    let out = collect(child.stdout.take().unwrap());
    let status = exit_status(&mut child, &pids_in(&pidfile), "run did not exit");
    let err = err.join().unwrap();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(!out.join().unwrap().is_empty());
    assert_eq!(
        std::fs::read_to_string(&linefile).unwrap(),
        "fix the build\n"
    );
}

#[test]
fn completions_and_man_page_come_from_the_definitions() {
    for shell in ["bash", "zsh", "fish"] {
        let out = Command::new(BIN)
            .args(["completions", shell])
            .output()
            .unwrap();
        assert!(out.status.success());
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(
            script.contains("cursor-stream") && script.contains("idle-timeout"),
            "{shell}"
        );
    }
    let out = Command::new(BIN).arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(
        page.starts_with(".ie") || page.contains(".TH cursor-stream"),
        "{page}"
    );
}

/// `--version` says the crate's version; `--help` and the man page name every agent read.
#[test]
fn version_help_and_man_page_say_what_is_read() {
    let out = Command::new(BIN).arg("--version").output().unwrap();
    let version = String::from_utf8(out.stdout).unwrap();
    assert!(
        version.starts_with(&format!("cursor-stream {}\n", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let short = Command::new(BIN).arg("-V").output().unwrap();
    assert_eq!(
        String::from_utf8(short.stdout).unwrap(),
        format!("cursor-stream {}\n", env!("CARGO_PKG_VERSION"))
    );
    let help = Command::new(BIN).arg("--help").output().unwrap();
    let man = Command::new(BIN).arg("man").output().unwrap();
    for (what, text) in [("--help", help.stdout), ("man", man.stdout)] {
        let text = String::from_utf8(text).unwrap();
        for agent in [
            "Cursor",
            "Claude Code",
            "Codex",
            "Gemini CLI",
            "Qwen Code",
            "OpenCode",
        ] {
            assert!(text.contains(agent), "{what} does not name {agent}");
        }
    }
}

/// Every agent's terminal event starts the grace: Claude's and Qwen's `result`, Codex's
/// `turn.completed`, Gemini's `result`, OpenCode's final `step_finish`.
#[test]
fn every_agent_that_lingers_after_its_terminal_event_is_stopped_after_the_grace() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for name in ["claude", "qwen", "codex", "gemini", "opencode"] {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pids");
        let stream = examples.join(format!("{name}.ndjson"));
        let ran = run(
            &["--grace", "1s", "--view", "result"],
            &[&agent("hangs-after-result.sh"), &stream, &pidfile],
        );
        assert_eq!(ran.code, Some(0), "{name}: {}", ran.stderr);
        assert!(
            ran.took >= Duration::from_secs(1) && ran.took < Duration::from_millis(2500),
            "{name}: took {:?}",
            ran.took
        );
        assert!(!ran.stdout.is_empty(), "{name}: no final answer");
        assert!(
            ran.stderr
                .contains("still running after its result: stopped"),
            "{name}: {}",
            ran.stderr
        );
        assert_all_gone(&pids(&pidfile));
    }
}

/// OpenCode has no terminal event: a step that ends with `stop` counts as one, and a step
/// that starts after it takes it back (the agent is then stopped by the idle timeout, not
/// by the grace).
#[test]
fn an_opencode_step_after_stop_takes_the_end_back() {
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("resumed.ndjson");
    let session = r#""sessionID":"ses_1""#;
    std::fs::write(
        &stream,
        format!(
            "{}\n{}\n{}\n",
            format_args!(r#"{{"type":"step_start","timestamp":1,{session},"part":{{"type":"step-start"}}}}"#),
            format_args!(r#"{{"type":"step_finish","timestamp":2,{session},"part":{{"type":"step-finish","reason":"stop"}}}}"#),
            format_args!(r#"{{"type":"step_start","timestamp":3,{session},"part":{{"type":"step-start"}}}}"#),
        ),
    )
    .unwrap();
    let pidfile = dir.path().join("pids");
    let ran = run(
        &["--grace", "1s", "--idle-timeout", "2s", "--view", "result"],
        &[&agent("hangs-after-result.sh"), &stream, &pidfile],
    );
    assert_eq!(ran.code, Some(124), "{}", ran.stderr);
    assert!(ran.took >= Duration::from_secs(2), "took {:?}", ran.took);
    assert_all_gone(&pids(&pidfile));
}

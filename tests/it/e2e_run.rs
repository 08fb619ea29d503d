//! `cursor-stream run` with the real agent CLIs, offline (opt-in).
//!
//! Each test starts a scripted model server (`scripts/record/mock.py`) and a real CLI
//! (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode at the versions pinned in
//! `scripts/record/agents.py`) under `cursor-stream run`, inside a network namespace of its
//! own that has only loopback, so nothing can leave the machine whatever the CLI tries.
//!
//! `cargo test` leaves them out (`#[ignore]`): they need the pinned CLIs installed in the
//! cache (`python3 scripts/record/record.py install`) and `unshare -n` (root, or user
//! namespaces). `scripts/record/ci-e2e.sh` installs the CLIs and runs them
//! (`cargo test --test it -- --ignored e2e_run::`); asked for where the CLIs or `unshare -n` are
//! missing, a test says it skipped, and fails under `CI=true`.
//!
//! How: every test re-executes this test binary, for itself only, under `unshare -n`; the
//! copy inside the namespace brings `lo` up, starts the mock on 127.0.0.1 and does the work.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::prerequisite;

/// The cursor-stream under test: this build, or CURSOR_STREAM_E2E_BIN (another build).
fn bin() -> String {
    std::env::var("CURSOR_STREAM_E2E_BIN").unwrap_or(env!("CARGO_BIN_EXE_cursor-stream").into())
}
const REPO: &str = env!("CARGO_MANIFEST_DIR");
const PORT: u16 = 8765; // the namespace is the test's own: no clash
const INSIDE: &str = "CS_E2E_NETNS";

fn agents_py() -> PathBuf {
    Path::new(REPO).join("scripts/record/agents.py")
}

/// Why the suite cannot run here, if it cannot.
fn unavailable() -> Option<String> {
    let out = Command::new("python3")
        .arg(agents_py())
        .arg("installed")
        .output();
    let Some(out) = out.ok().filter(|o| o.status.success()) else {
        return Some("python3 cannot run scripts/record/agents.py".into());
    };
    let info: Value = serde_json::from_slice(&out.stdout).expect("agents.py installed: JSON");
    let missing: Vec<&str> = info["installed"]
        .as_object()
        .expect("installed: an object")
        .iter()
        .filter(|(_, ok)| ok != &&Value::Bool(true))
        .map(|(agent, _)| agent.as_str())
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "pinned CLIs not installed in {} ({}): run `python3 scripts/record/record.py install`",
            info["cache"].as_str().unwrap_or("?"),
            missing.join(", ")
        ));
    }
    let netns = Command::new("unshare")
        .args(["-n", "--", "true"])
        .stderr(Stdio::null())
        .status();
    if !netns.is_ok_and(|s| s.success()) {
        return Some("`unshare -n` does not work here (needs root or user namespaces)".into());
    }
    None
}

/// Runs the calling test again inside a loopback-only network namespace, and tells the
/// caller whether it is that copy (true: do the work) or the outer one (false: done).
fn in_netns(test: &str) -> bool {
    if std::env::var_os(INSIDE).is_some() {
        let up = Command::new("ip")
            .args(["link", "set", "lo", "up"])
            .status();
        assert!(up.is_ok_and(|s| s.success()), "ip link set lo up failed");
        return true;
    }
    if let Some(why) = unavailable() {
        prerequisite::missing(&why);
        return false;
    }
    let out = Command::new("unshare")
        .args(["-n", "--"])
        .arg(std::env::current_exe().expect("the test binary"))
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .arg("--include-ignored") // the copy runs whether asked by name or by --ignored
        .env(INSIDE, "1")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("unshare runs");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && text.contains("1 passed"),
        "{test} inside the namespace failed:\n{text}"
    );
    false
}

/// The mock model server, stopped when dropped.
struct Mock {
    child: Child,
    log: PathBuf,
}

impl Mock {
    fn start(dir: &Path) -> Mock {
        let ready = dir.join("mock.ready");
        let log = dir.join("mock.jsonl");
        let child = Command::new("python3")
            .arg(Path::new(REPO).join("scripts/record/mock.py"))
            .args([
                "--port",
                &PORT.to_string(),
                "--lifetime",
                "600",
                "--stall-seconds",
                "120",
            ])
            .arg("--log")
            .arg(&log)
            .arg("--ready")
            .arg(&ready)
            .spawn()
            .expect("the mock starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while !ready.exists() {
            assert!(Instant::now() < deadline, "the mock did not start");
            sleep(Duration::from_millis(50));
        }
        Mock { child, log }
    }

    /// Waits until the mock went silent in the middle of `run`'s answer.
    fn wait_for_stall(&self, run: &str, timeout: Duration) {
        self.wait_for("stall", run, timeout);
    }

    /// Waits until the mock logged `event` ("stall", or "tools": calls sent) for `run`.
    fn wait_for(&self, event: &str, run: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        let (event, run) = (
            format!("\"event\": \"{event}\""),
            format!("\"run\": \"{run}\""),
        );
        loop {
            let log = fs::read_to_string(&self.log).unwrap_or_default();
            if log.lines().any(|l| l.contains(&event) && l.contains(&run)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the mock never logged {event} for {run}"
            );
            sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One real CLI, laid out by agents.py (fresh HOME, project, settings pointing at the mock).
struct Agent {
    name: String,
    run: String,
    marker: String,
    argv: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: PathBuf,
    expect: Value,
    dir: tempfile::TempDir,
}

fn agent(name: &str, scenario: &str, extra: &[&str]) -> Agent {
    let dir = tempfile::tempdir().expect("a temp dir");
    let out = Command::new("python3")
        .arg(agents_py())
        .args(["prepare", "--agent", name, "--scenario", scenario])
        .args(["--port", &PORT.to_string(), "--dir"])
        .arg(dir.path().join("run"))
        .args(extra)
        .output()
        .expect("agents.py prepare");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let setup: Value = serde_json::from_slice(&out.stdout).expect("prepare: JSON");
    let expect = Command::new("python3")
        .arg(agents_py())
        .args(["expect", "--agent", name, "--scenario", scenario])
        .output()
        .expect("agents.py expect");
    let strings = |v: &Value| v.as_str().expect("a string").to_owned();
    let marker = format!("{name}-{scenario}-{}", std::process::id());
    let mut env: BTreeMap<String, String> = setup["env"]
        .as_object()
        .expect("env")
        .iter()
        .map(|(k, v)| (k.clone(), strings(v)))
        .collect();
    // Inherited by everything the CLI starts: how leftover processes are found.
    env.insert("CS_E2E_RUN".into(), marker.clone());
    Agent {
        name: name.into(),
        run: format!("{name}-{scenario}"),
        marker,
        argv: setup["argv"]
            .as_array()
            .expect("argv")
            .iter()
            .map(strings)
            .collect(),
        env,
        cwd: PathBuf::from(strings(&setup["cwd"])),
        expect: serde_json::from_slice(&expect.stdout).expect("expect: JSON"),
        dir,
    }
}

impl Agent {
    /// `cursor-stream run <flags> -- <the CLI>`, started (stdout and stderr to files).
    fn start(&self, flags: &[&str]) -> Child {
        let out = fs::File::create(self.dir.path().join("out")).expect("out");
        let err = fs::File::create(self.dir.path().join("err")).expect("err");
        Command::new(bin())
            .arg("run")
            .args(flags)
            .arg("--")
            .args(&self.argv)
            .env_clear()
            .envs(&self.env)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .expect("cursor-stream starts")
    }

    fn wait(&self, mut child: Child, limit: Duration) -> Ran {
        let deadline = Instant::now() + limit;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!(
                    "{}: cursor-stream run did not end within {limit:?}",
                    self.name
                );
            }
            sleep(Duration::from_millis(50));
        };
        Ran {
            status,
            stdout: fs::read_to_string(self.dir.path().join("out")).unwrap_or_default(),
            stderr: fs::read_to_string(self.dir.path().join("err")).unwrap_or_default(),
        }
    }

    fn run(&self, flags: &[&str]) -> Ran {
        let child = self.start(flags);
        self.wait(child, Duration::from_secs(240))
    }

    /// The expected `text` output: the scripted pieces, joined as expect-schema.md says.
    fn expected_text(&self) -> String {
        let run = &self.expect["runs"][0];
        let pieces: Vec<&str> = run["answer_pieces"]
            .as_array()
            .expect("answer pieces")
            .iter()
            .map(|p| p.as_str().unwrap())
            .collect();
        let mut text = String::new();
        for piece in pieces {
            if !text.is_empty() && self.name != "gemini" {
                text.push_str(if text.ends_with("\n\n") {
                    ""
                } else if text.ends_with('\n') {
                    "\n"
                } else {
                    "\n\n"
                });
            }
            text.push_str(piece);
        }
        text
    }

    fn final_answer(&self) -> String {
        self.expect["runs"][0]["final"]
            .as_str()
            .expect("a final answer")
            .to_owned()
    }

    /// Processes still alive that the CLI started (found by the marker in their env).
    fn leftovers(&self) -> Vec<String> {
        let needle = format!("CS_E2E_RUN={}", self.marker);
        let mut left = Vec::new();
        for entry in fs::read_dir("/proc").expect("/proc").flatten() {
            let pid = entry.file_name().to_string_lossy().into_owned();
            if !pid.bytes().all(|b| b.is_ascii_digit()) || pid == std::process::id().to_string() {
                continue;
            }
            let Ok(environ) = fs::read(entry.path().join("environ")) else {
                continue;
            };
            if environ.split(|&b| b == 0).any(|v| v == needle.as_bytes()) {
                let cmd = fs::read(entry.path().join("cmdline")).unwrap_or_default();
                let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
                // group and session: a process that escaped run's group (setsid) shows here
                let stat = fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
                let ids: Vec<&str> = stat
                    .rsplit_once(')')
                    .map(|(_, r)| r.split_whitespace().skip(2).take(2).collect())
                    .unwrap_or_default();
                left.push(format!(
                    "pid {pid} (group {}, session {}): {}",
                    ids.first().unwrap_or(&"?"),
                    ids.get(1).unwrap_or(&"?"),
                    cmd.chars().take(120).collect::<String>()
                ));
            }
        }
        left
    }

    /// Asserts that nothing the CLI started is left (Qwen's and Gemini's re-spawned
    /// workers included), allowing a moment for the kernel to reap.
    fn assert_nothing_left(&self) {
        let deadline = Instant::now() + Duration::from_secs(3);
        loop {
            let left = self.leftovers();
            if left.is_empty() {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "{}: processes left behind: {left:#?}",
                self.name
            );
            sleep(Duration::from_millis(100));
        }
    }
}

struct Ran {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Ran {
    fn code(&self) -> Option<i32> {
        self.status.code()
    }
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.status, self.stdout, self.stderr
        )
    }
}

/// The pids of the processes whose `stat` field `field` (after the command name: 1 the
/// parent, 2 the process group) is `value`.
fn procs_where(field: usize, value: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …: comm may hold spaces, so split after the last ')'
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        if fields.next() == Some("Z") {
            continue; // a zombie is gone, only not yet reaped
        }
        if fields.nth(field - 1).and_then(|p| p.parse::<u32>().ok()) == Some(value) {
            out.extend(
                entry
                    .file_name()
                    .to_str()
                    .and_then(|p| p.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// The agent `run` started: its only child, the leader of a process group of its own.
fn the_agent(run_pid: u32) -> u32 {
    let kids = procs_where(1, run_pid);
    assert_eq!(kids.len(), 1, "the agent is run's only child: {kids:?}");
    kids[0]
}

/// Asserts that the process group `pgid` is empty (allowing a moment to reap).
fn assert_group_gone(name: &str, pgid: u32) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = procs_where(2, pgid);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{name}: group {pgid} still has {left:?}"
        );
        sleep(Duration::from_millis(100));
    }
}

fn kill(signal: &str, target: &str) {
    let ok = Command::new("kill").args([signal, "--", target]).status();
    assert!(ok.is_ok_and(|s| s.success()), "kill {signal} {target}");
}

// ---- the checks, once per agent -----------------------------------------------------------

/// A run with a tool call: exit 0, the scripted answer once (`text`), the final answer
/// (`result`, from the same stream kept with --tee), the tool call with its status.
fn answers(name: &str) {
    let a = agent(name, "tool", &[]);
    let _mock = Mock::start(a.dir.path());
    let tee = a.dir.path().join("raw.ndjson");
    let ran = a.run(&["--view", "text", "--tee", tee.to_str().unwrap()]);
    assert_eq!(ran.code(), Some(0), "{name}: {ran:?}");
    assert_eq!(
        ran.stdout.trim_end_matches('\n'),
        a.expected_text(),
        "{name}: {ran:?}"
    );
    let result = Command::new(bin())
        .arg("result")
        .arg(&tee)
        .output()
        .expect("result");
    assert_eq!(result.status.code(), Some(0), "{name}: result");
    assert_eq!(
        String::from_utf8_lossy(&result.stdout),
        a.final_answer() + "\n",
        "{name}"
    );
    let tools = Command::new(bin())
        .args(["tools", "--json"])
        .arg(&tee)
        .output()
        .expect("tools");
    let calls: Vec<Value> = String::from_utf8_lossy(&tools.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("tools --json: JSON lines"))
        .collect();
    // The call ids are the CLI's or the mock's: read from the stream, as the recorder does.
    let expect = Command::new("python3")
        .arg(agents_py())
        .args(["expect", "--agent", name, "--scenario", "tool", "--stdout"])
        .arg(&tee)
        .output()
        .expect("agents.py expect");
    let expect: Value = serde_json::from_slice(&expect.stdout).expect("expect: JSON");
    let want = expect["runs"][0]["tools"]
        .as_array()
        .expect("tools")
        .clone();
    assert_eq!(calls.len(), want.len(), "{name}: tools --json {calls:?}");
    for (got, want) in calls.iter().zip(&want) {
        assert_eq!(got["tool"], want["tool"], "{name}: {got}");
        assert_eq!(got["call_id"], want["call_id"].clone(), "{name}: {got}");
        assert_eq!(got["status"], "success", "{name}: {got}");
    }
    a.assert_nothing_left();
}

/// Megabytes of tool output go through `run` whole, and the answer after them.
fn big_output(name: &str) {
    let a = agent(name, "bigout", &["--lines", "300000"]);
    let _mock = Mock::start(a.dir.path());
    let ran = a.run(&["--view", "result"]);
    assert_eq!(ran.code(), Some(0), "{name}: {ran:?}");
    assert_eq!(ran.stdout, a.final_answer() + "\n", "{name}: {ran:?}");
}

/// The server refuses the request: the run failed, status 1, whatever the CLI exits with
/// (Gemini 144 with a result, Codex `turn.failed`, OpenCode an `error` line…).
fn fails(name: &str) {
    let a = agent(name, "badrequest", &[]);
    let _mock = Mock::start(a.dir.path());
    let ran = a.run(&["--view", "result"]);
    assert_eq!(ran.code(), Some(1), "{name}: {ran:?}");
    a.assert_nothing_left();
}

/// The CLI is killed mid-answer by someone else (SIGTERM to its group): no result, so
/// never 0 — 3 when the CLI itself exits 0 (Gemini), else the CLI's own 128 + 15.
fn killed(name: &str) {
    let a = agent(name, "killed", &[]);
    let mock = Mock::start(a.dir.path());
    let child = a.start(&["--view", "text"]);
    mock.wait_for_stall(&a.run, Duration::from_secs(60));
    sleep(Duration::from_millis(500));
    let pgid = the_agent(child.id());
    kill("-TERM", &format!("-{pgid}")); // the agent's group (run made it its own)
    let ran = a.wait(child, Duration::from_secs(30));
    let want = if name == "gemini" { 3 } else { 143 };
    assert_eq!(ran.code(), Some(want), "{name}: {ran:?}");
    assert_group_gone(name, pgid);
    a.assert_nothing_left();
}

/// The mock goes silent mid-answer: `--idle-timeout` stops the CLI with 124, and nothing
/// it started is left, re-spawned workers included. (20 s: OpenCode prints nothing at all
/// until its first step, which can take over 10 s on a loaded machine.)
fn idle_timeout(name: &str) {
    let a = agent(name, "killed", &[]);
    let mock = Mock::start(a.dir.path());
    let started = Instant::now();
    let child = a.start(&["--view", "text", "--idle-timeout", "20s"]);
    mock.wait_for_stall(&a.run, Duration::from_secs(60));
    let pgid = the_agent(child.id());
    let ran = a.wait(child, Duration::from_secs(90));
    assert_eq!(ran.code(), Some(124), "{name}: {ran:?}");
    assert!(
        ran.stderr.contains("printed nothing for 20s"),
        "{name}: {ran:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "{name}: took {:?}",
        started.elapsed()
    );
    assert_group_gone(name, pgid);
    a.assert_nothing_left();
}

/// Ctrl-C (SIGINT to cursor-stream) stops the whole group: 130, nothing left.
fn ctrl_c(name: &str) {
    let a = agent(name, "killed", &[]);
    let mock = Mock::start(a.dir.path());
    let child = a.start(&["--view", "text"]);
    mock.wait_for_stall(&a.run, Duration::from_secs(60));
    let pgid = the_agent(child.id());
    kill("-INT", &child.id().to_string());
    let ran = a.wait(child, Duration::from_secs(30));
    assert_eq!(ran.code(), Some(130), "{name}: {ran:?}");
    assert_group_gone(name, pgid);
    a.assert_nothing_left();
}

/// Ctrl-C while a tool runs (a command that sleeps 30 s): 130, and the command is gone too,
/// wherever the CLI started it.
fn ctrl_c_mid_tool(name: &str) {
    let a = agent(name, "midtool", &[]);
    let mock = Mock::start(a.dir.path());
    let child = a.start(&["--view", "text"]);
    mock.wait_for("tools", &a.run, Duration::from_secs(60));
    let deadline = Instant::now() + Duration::from_secs(30);
    while !a.leftovers().iter().any(|p| p.contains("time.sleep(30)")) {
        assert!(
            Instant::now() < deadline,
            "{name}: the command never started"
        );
        sleep(Duration::from_millis(100));
    }
    let pgid = the_agent(child.id());
    kill("-INT", &child.id().to_string());
    let ran = a.wait(child, Duration::from_secs(30));
    assert_eq!(ran.code(), Some(130), "{name}: {ran:?}");
    assert_group_gone(name, pgid);
    a.assert_nothing_left();
}

/// A CLI still running after its result is stopped after `--grace`; the status is the
/// run's (0), and nothing is left. Claude and Gemini linger by themselves here (a SessionEnd
/// hook that sleeps; Claude starts its hooks in a session of their own, out of run's group);
/// for the other CLIs, which have no such hook, a shell after the CLI keeps the group
/// alive, as a wrapper script would.
fn grace(name: &str) {
    let mut a = agent(name, "plain", &["--linger"]);
    if !["claude", "gemini"].contains(&name) {
        let mut argv = vec![
            "/bin/sh".into(),
            "-c".into(),
            "\"$@\"; sleep 60".into(),
            "sh".into(),
        ];
        argv.append(&mut a.argv);
        a.argv = argv;
    }
    let _mock = Mock::start(a.dir.path());
    let started = Instant::now();
    let ran = a.run(&["--view", "result", "--grace", "2s"]);
    assert_eq!(ran.code(), Some(0), "{name}: {ran:?}");
    assert_eq!(ran.stdout, a.final_answer() + "\n", "{name}: {ran:?}");
    assert!(
        ran.stderr.contains("still running after its result"),
        "{name}: {ran:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(50),
        "{name}: took {:?}",
        started.elapsed()
    );
    a.assert_nothing_left();
}

/// Runs `check` for `agent` inside a namespace of its own (each check starts its mock).
fn e2e(test: &str, agent: &str, check: fn(&str)) {
    if in_netns(test) {
        check(agent);
    }
}

/// `mod <agent> { #[test] fn <check>() … }` for each check: the test's own name is what
/// `in_netns` re-runs inside the namespace.
macro_rules! e2e_checks {
    ($agent:ident: $($check:ident),*) => {
        mod $agent { $(
            #[test]
            #[ignore = "the real agent CLIs and `unshare -n`: scripts/record/ci-e2e.sh runs these"]
            fn $check() {
                super::e2e(
                    concat!("e2e_run::", stringify!($agent), "::", stringify!($check)),
                    stringify!($agent),
                    super::$check,
                );
            }
        )* }
    };
}

macro_rules! e2e_tests {
    ($($agent:ident),*) => { $(
        e2e_checks!($agent: answers, big_output, fails, killed, idle_timeout, ctrl_c, ctrl_c_mid_tool, grace);
    )* };
}

e2e_tests!(claude, codex, gemini, qwen, opencode);

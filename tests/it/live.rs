//! `usage --live`: the report redrawn in place in a real terminal (tmux) as logs are
//! written, `q` giving the terminal back; a snapshot a line when not on a terminal.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::home::in_home;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// The rollout of tests/fixtures/history/codex/`version`, copied into `home`'s sessions.
fn add_rollout(home: &Path, version: &str, day: u32) -> PathBuf {
    let file = crate::home::codex_fixture(version);
    let to = crate::home::codex_session_path(home, &file, day);
    // Written beside, then moved in: the watcher sees a whole log.
    let part = to.with_extension("part");
    std::fs::copy(&file, &part).unwrap();
    std::fs::rename(&part, &to).unwrap();
    to
}

struct Tmux {
    socket: String,
}

impl Tmux {
    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The pane `live`, 160 × 40, running `command`.
    fn start(&self, command: &str) {
        self.run(&[
            "new-session",
            "-d",
            "-s",
            "live",
            "-x",
            "160",
            "-y",
            "40",
            command,
        ]);
    }

    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "live"])
    }

    /// Waits (up to `limit`) for the screen to hold `needle`; when it did.
    fn wait_for(&self, needle: &str, limit: Duration) -> Option<Instant> {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if self.screen().contains(needle) {
                return Some(Instant::now());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.run(&["kill-server"]);
    }
}

/// The shell command a pane runs: a line before, the live report of `home`, its status.
fn live_in_pane(home: &Path) -> String {
    format!(
        "printf 'before\\n'; env -u CODEX_HOME HOME={} TZ=UTC NO_COLOR=1 {BIN} usage daily --live --from codex; echo EXITED $?; sleep 60",
        home.display()
    )
}

fn have_tmux() -> bool {
    let have = Command::new("tmux").arg("-V").output().is_ok();
    if !have {
        crate::prerequisite::missing("tmux is not installed");
    }
    have
}

/// In tmux: the daily table drawn, a day added within a second of a new log being written,
/// `q` quits with status 0 and the shell's screen is back, the table gone.
#[test]
fn the_report_is_redrawn_in_a_real_terminal_and_q_gives_it_back() {
    if !have_tmux() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    add_rollout(home.path(), "0.58-token-info-null", 1);
    let tmux = Tmux {
        socket: format!("cs-live-{}", std::process::id()),
    };
    let command = live_in_pane(home.path());
    tmux.start(&command);
    assert!(
        tmux.wait_for("2025-11-17", Duration::from_secs(10))
            .is_some(),
        "{}",
        tmux.screen()
    );
    assert!(tmux.screen().contains("q quits"));
    assert!(
        !tmux.screen().contains("before"),
        "the report has a screen of its own"
    );
    let written = Instant::now();
    add_rollout(home.path(), "0.117-archived-task-events", 2);
    let seen = tmux
        .wait_for("2026-03-31", Duration::from_secs(5))
        .unwrap_or_else(|| panic!("the new day: {}", tmux.screen()));
    assert!(
        seen - written < Duration::from_secs(1),
        "{:?} after the write",
        seen - written
    );
    tmux.run(&["send-keys", "-t", "live", "q"]);
    assert!(
        tmux.wait_for("EXITED 0", Duration::from_secs(5)).is_some(),
        "{}",
        tmux.screen()
    );
    let screen = tmux.screen();
    assert!(
        screen.contains("before"),
        "the shell's screen is back: {screen}"
    );
    assert!(
        !screen.contains("2025-11-17"),
        "the report is gone: {screen}"
    );
}

/// Ctrl-C (a key in raw mode, not a signal) ends it as `q` does; a SIGTERM gives the
/// terminal back too. Each in a tmux server of its own: killing a server's last session
/// ends it, and a session started while it exits can be lost with it.
#[test]
fn ctrl_c_and_a_kill_give_the_terminal_back_too() {
    if !have_tmux() {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    add_rollout(home.path(), "0.58-token-info-null", 1);
    let command = live_in_pane(home.path());
    let tmux = Tmux {
        socket: format!("cs-live-{}-ctrl-c", std::process::id()),
    };
    tmux.start(&command);
    assert!(
        tmux.wait_for("q quits", Duration::from_secs(10)).is_some(),
        "{}",
        tmux.screen()
    );
    tmux.run(&["send-keys", "-t", "live", "C-c"]);
    assert!(
        tmux.wait_for("EXITED 0", Duration::from_secs(5)).is_some(),
        "{}",
        tmux.screen()
    );
    assert!(tmux.screen().contains("before"));

    // SIGTERM (a `kill`): the terminal given back as well, the status 128 + 15, and the
    // terminal's modes as they were (raw mode left: lines edited and echoed again).
    let tmux = Tmux {
        socket: format!("cs-live-{}-term", std::process::id()),
    };
    tmux.start(&command.replace(
        "echo EXITED $?;",
        "echo EXITED $?; stty -a | tr ' ' '\\n' | grep -x -e -icanon -e icanon;",
    ));
    assert!(
        tmux.wait_for("q quits", Duration::from_secs(10)).is_some(),
        "{}",
        tmux.screen()
    );
    // The pane's shell's child, by /proc (Linux, as tmux here), killed by sh's builtin.
    let shell = tmux.run(&["display", "-p", "-t", "live", "#{pane_pid}"]);
    let shell = shell.trim();
    let children = format!("/proc/{shell}/task/{shell}/children");
    let pid = std::fs::read_to_string(&children).unwrap();
    assert!(!pid.trim().is_empty(), "the command's process");
    let killed = Command::new("sh")
        .args(["-c", &format!("kill -TERM {}", pid.trim())])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(
        tmux.wait_for("EXITED 143", Duration::from_secs(5))
            .is_some(),
        "{}",
        tmux.screen()
    );
    // stty's answer, after.
    tmux.wait_for("icanon", Duration::from_secs(5));
    let screen = tmux.screen();
    assert!(screen.contains("before"), "{screen}");
    assert!(
        screen.lines().any(|l| l.trim() == "icanon"),
        "canonical mode is back: {screen}"
    );
}

/// `cursor-stream ARGS --live` piped, reading `home`: its snapshots, each within 10 s
/// (a test fails, it does not hang); the process is killed when done with.
struct Snapshots {
    child: std::process::Child,
    rx: std::sync::mpsc::Receiver<String>,
}

impl Snapshots {
    fn start(home: &Path, args: &[&str]) -> Snapshots {
        let mut cmd = Command::new(BIN);
        cmd.args(args);
        in_home(&mut cmd, home);
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Snapshots { child, rx }
    }

    fn next(&self) -> Value {
        let line = self.rx.recv_timeout(Duration::from_secs(10));
        serde_json::from_str(&line.expect("a snapshot within 10 s")).unwrap()
    }
}

impl Drop for Snapshots {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Not on a terminal: `{"at", "rows"}` at the start, and again when a log is written.
#[test]
fn not_on_a_terminal_each_change_is_a_snapshot_line() {
    let home = tempfile::tempdir().unwrap();
    add_rollout(home.path(), "0.58-token-info-null", 1);
    let live = Snapshots::start(
        home.path(),
        &["usage", "blocks", "--live", "--from", "codex"],
    );
    let first = live.next();
    assert!(first["at"].as_str().unwrap().ends_with('Z'));
    assert_eq!(first["rows"].as_array().unwrap().len(), 1, "{first}");
    assert_eq!(first["rows"][0]["limits"][0]["window"], "five_hour");
    let written = Instant::now();
    add_rollout(home.path(), "0.117-archived-task-events", 2);
    let next = live.next();
    assert!(
        written.elapsed() < Duration::from_secs(1),
        "{:?}",
        written.elapsed()
    );
    assert!(next["rows"].as_array().unwrap().len() > 1, "{next}");
}

/// `sessions --live`, piped: the sessions at the start, then with the one just written.
#[test]
fn sessions_live_adds_a_session_when_its_log_is_written() {
    let home = tempfile::tempdir().unwrap();
    add_rollout(home.path(), "0.58-token-info-null", 1);
    let live = Snapshots::start(home.path(), &["sessions", "--live", "--from", "codex"]);
    let first = live.next();
    assert_eq!(first["rows"].as_array().unwrap().len(), 1, "{first}");
    let written = Instant::now();
    let log = add_rollout(home.path(), "0.117-archived-task-events", 2);
    let next = live.next();
    assert!(
        written.elapsed() < Duration::from_secs(1),
        "{:?}",
        written.elapsed()
    );
    let files: Vec<&str> = next["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["file"].as_str())
        .collect();
    assert!(
        files
            .iter()
            .any(|f| f.ends_with(&*log.file_name().unwrap().to_string_lossy())),
        "{next}"
    );
}

/// A home where the agent has written nothing yet: the first snapshot at the start, with no
/// rows, then the first log once its folders are made.
#[test]
fn an_agent_folder_made_after_the_start_is_watched() {
    let home = tempfile::tempdir().unwrap();
    let live = Snapshots::start(
        home.path(),
        &["usage", "daily", "--live", "--from", "codex"],
    );
    let first = live.next();
    assert_eq!(first["rows"], serde_json::json!([]), "{first}");
    add_rollout(home.path(), "0.58-token-info-null", 1);
    let then = live.next();
    assert_eq!(then["rows"][0]["date"], "2025-11-17", "{then}");
}

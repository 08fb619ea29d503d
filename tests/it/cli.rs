//! The binary, run as a user runs it, on the project's own fixtures.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use assert_cmd::Command;
use predicates::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(fixture(name)).unwrap()
}

/// `n` copies of `run` in `dir`, named in the order they are listed.
fn copies(dir: &Path, run: &[u8], n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let path = dir.join(format!("f{i:03}.ndjson"));
            std::fs::write(&path, run).unwrap();
            path
        })
        .collect()
}

fn cs() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("NO_COLOR");
    cmd
}

/// The last line that holds a `result` event, as the producer wrote it.
fn result_line(name: &str) -> String {
    read(name)
        .lines()
        .rev()
        .find(|l| l.contains(r#""type":"result""#))
        .unwrap()
        .trim_end_matches('\r')
        .to_string()
}

#[test]
fn text_writes_each_fixture_answer_exactly_once() {
    for name in [
        "partial",
        "nopartial",
        "documented",
        "parallel",
        "non-json",
        "key-order",
    ] {
        cs().arg("text")
            .arg(fixture(&format!("{name}.ndjson")))
            .assert()
            .code(0)
            .stdout(read(&format!("{name}.expected")));
    }
}

#[test]
fn text_equals_the_result_event_byte_for_byte() {
    for name in [
        "partial",
        "nopartial",
        "documented",
        "parallel",
        "key-order",
    ] {
        let line = result_line(&format!("{name}.ndjson"));
        let event: serde_json::Value = serde_json::from_str(&line).unwrap();
        cs().arg("text")
            .arg(fixture(&format!("{name}.ndjson")))
            .assert()
            .stdout(event["result"].as_str().unwrap().to_string())
            .stderr(predicate::str::contains("differs").not());
    }
}

#[test]
fn crlf_lines_read_like_lf_lines() {
    cs().args(["text"])
        .arg(fixture("crlf.ndjson"))
        .assert()
        .code(0)
        .stdout(read("nopartial.expected"))
        .stderr("");
    cs().args(["json"])
        .arg(fixture("crlf.ndjson"))
        .assert()
        .stdout(format!("{}\n", result_line("nopartial.ndjson")));
}

#[test]
fn result_prints_the_answer_and_exits_0() {
    cs().arg("result")
        .arg(fixture("partial.ndjson"))
        .assert()
        .code(0)
        .stdout(format!("{}\n", read("partial.expected")))
        .stderr("");
}

#[test]
fn result_exits_1_on_a_failed_run_and_says_so() {
    cs().arg("result")
        .arg(fixture("failed.ndjson"))
        .assert()
        .code(1)
        .stdout("Usage limit reached for this billing period.\n")
        .stderr(
            predicate::str::contains("the run failed").and(predicate::str::contains(
                "session deadbeef-0000-4000-8000-00000000000a",
            )),
        );
}

#[test]
fn no_result_exits_3_and_says_the_run_did_not_finish() {
    for view in ["result", "json", "text"] {
        let assert = cs()
            .arg(view)
            .arg(fixture("no-result.ndjson"))
            .assert()
            .code(3)
            .stderr(predicate::str::contains("ended without a result event"));
        let expected_out = if view == "text" { "Let me look" } else { "" };
        assert.stdout(expected_out);
    }
}

#[test]
fn truncated_last_line_is_reported_and_the_text_kept() {
    cs().arg("text")
        .arg(fixture("truncated.ndjson"))
        .assert()
        .code(3)
        .stdout(read("truncated.expected"))
        .stderr(
            predicate::str::contains("truncated.ndjson:41: truncated last line")
                .and(predicate::str::contains("ended without a result event")),
        );
}

#[test]
fn json_prints_the_result_line_unchanged() {
    for name in ["partial", "nopartial", "key-order"] {
        let file = format!("{name}.ndjson");
        cs().arg("json")
            .arg(fixture(&file))
            .assert()
            .code(0)
            .stdout(format!("{}\n", result_line(&file)));
    }
}

#[test]
fn json_prints_nothing_for_a_failed_run() {
    cs().arg("json")
        .arg(fixture("failed.ndjson"))
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("the run failed"));
}

#[test]
fn appended_runs_give_one_answer_each() {
    let two = fixture("two-runs.ndjson");
    cs().arg("text").arg(&two).assert().code(0).stdout(format!(
        "{}\n{}",
        read("nopartial.expected"),
        read("parallel.expected")
    ));
    cs().arg("result")
        .arg(&two)
        .assert()
        .code(0)
        .stdout(format!(
            "{}\n{}\n",
            read("nopartial.expected"),
            read("parallel.expected")
        ));
    cs().arg("json").arg(&two).assert().code(0).stdout(format!(
        "{}\n{}\n",
        result_line("nopartial.ndjson"),
        result_line("parallel.ndjson")
    ));
}

#[test]
fn several_files_are_read_in_order_and_a_missing_one_is_exit_2() {
    cs().arg("result")
        .arg(fixture("parallel.ndjson"))
        .arg(fixture("nopartial.ndjson"))
        .assert()
        .code(0)
        .stdout(format!(
            "{}\n{}\n",
            read("parallel.expected"),
            read("nopartial.expected")
        ));
    cs().arg("result")
        .arg("no-such-file.ndjson")
        .arg(fixture("parallel.ndjson"))
        .assert()
        .code(2)
        .stdout(format!("{}\n", read("parallel.expected")))
        .stderr(predicate::str::contains("cannot read no-such-file.ndjson"));
}

#[test]
fn stdin_is_read_without_arguments_and_with_dash() {
    let input = read("partial.ndjson");
    cs().arg("text")
        .write_stdin(input.clone())
        .assert()
        .code(0)
        .stdout(read("partial.expected"));
    cs().args(["result", "-"])
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout(format!("{}\n", read("partial.expected")));
}

#[test]
fn non_json_lines_are_reported_with_their_line_and_the_run_goes_on() {
    let assert = cs()
        .arg("text")
        .arg(fixture("non-json.ndjson"))
        .assert()
        .code(0)
        .stdout("Hi!");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(stderr.contains("non-json.ndjson:1: not JSON"), "{stderr}");
    assert!(stderr.contains("non-json.ndjson:4: not JSON"), "{stderr}");
    assert!(stderr.contains("T: 0.42s"), "{stderr}");
    assert!(
        stderr.contains("non-json.ndjson:5: not JSON") && stderr.contains("RetriableError"),
        "{stderr}"
    );
    assert!(
        stderr.contains("non-json.ndjson:8: JSON but not an object"),
        "{stderr}"
    );
    assert!(
        !stderr.contains('\x1b'),
        "terminal escapes from the input are shown escaped: {stderr}"
    );
}

#[test]
fn strict_stops_at_the_first_bad_line_with_exit_4() {
    cs().args(["text", "--strict"])
        .arg(fixture("non-json.ndjson"))
        .assert()
        .code(4)
        .stdout("")
        .stderr(
            predicate::str::contains("non-json.ndjson:1: not JSON")
                .and(predicate::str::contains("--strict")),
        );
    cs().args(["--strict", "text"])
        .arg(fixture("partial.ndjson"))
        .assert()
        .code(0);
}

#[test]
fn max_line_refuses_longer_lines_with_exit_4() {
    cs().args(["result", "--max-line", "700"])
        .arg(fixture("partial.ndjson"))
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "longer than the limit of 700 bytes",
        ));
    cs().args(["result", "--max-line", "64K"])
        .arg(fixture("partial.ndjson"))
        .assert()
        .code(0);
}

#[test]
fn empty_input_has_no_result() {
    cs().arg("result")
        .write_stdin("")
        .assert()
        .code(3)
        .stdout("")
        .stderr(predicate::str::contains("no run and no result"));
}

#[test]
fn thinking_is_shown_on_stderr_only_when_asked() {
    let file = fixture("partial.ndjson");
    cs().arg("text")
        .arg(&file)
        .assert()
        .stdout(read("partial.expected"))
        .stderr("");
    cs().args(["text", "--thinking"])
        .arg(&file)
        .assert()
        .stdout(read("partial.expected"))
        .stderr(
            "[thinking] The user wants the cart test fixed.\n[thinking] Rounding is missing.\n",
        );
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let file = fixture("partial.ndjson");
    cs().args(["text", "--thinking", "--color", "always"])
        .arg(&file)
        .assert()
        .stderr(predicate::str::contains("\x1b["));
    cs().args(["text", "--thinking", "--color", "never"])
        .arg(&file)
        .assert()
        .stderr(predicate::str::contains("\x1b[").not());
    // `auto` is off when stderr is not a terminal, as here, whatever NO_COLOR says.
    cs().args(["text", "--thinking"])
        .arg(&file)
        .assert()
        .stderr(predicate::str::contains("\x1b[").not());
}

#[test]
fn separator_goes_between_segments() {
    cs().args(["text", "--separator", r"\n\n"])
        .arg(fixture("nopartial.ndjson"))
        .assert()
        .stdout(
            "I'll read `notes.txt` and count its lines.\n\n`notes.txt` has 3 lines. Wrote `3` to `count.txt`.",
        );
}

#[test]
fn help_has_examples_and_the_exit_statuses() {
    cs().arg("--help").assert().code(0).stdout(
        predicate::str::contains("Examples:")
            .and(predicate::str::contains("Exit status:"))
            .and(predicate::str::contains(
                "3  the input ended without a run's terminal event",
            )),
    );
    for view in ["text", "result", "json"] {
        cs().args([view, "--help"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("Examples:"));
    }
    cs().arg("nonsense").assert().code(2);
}

/// Many copies of a run, so that the output is far larger than any pipe buffer.
fn big_input(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("big.ndjson");
    let run = read("partial.ndjson");
    let mut f = std::fs::File::create(&path).unwrap();
    for _ in 0..4000 {
        f.write_all(run.as_bytes()).unwrap();
    }
    path
}

/// Runs `cmd`, reads the first 100 bytes of its stdout and closes it, as `| head -c 100`
/// does: those bytes, and how the process ended (within a minute, or the test fails).
fn first_100_bytes_then_close(cmd: &mut StdCommand) -> ([u8; 100], std::process::Output) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 100];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || tx.send(child.wait_with_output().unwrap()).unwrap());
    let out = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the process ends once its stdout is closed");
    (first, out)
}

#[test]
fn closed_stdout_ends_quietly_with_status_0() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_input(&dir);
    let (first, out) = first_100_bytes_then_close(StdCommand::new(BIN).arg("text").arg(&big));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    assert!(first.starts_with(b"I'll check the failing test first."));
}

/// One file read in parts by several workers (parts of one run each): a closed stdout
/// stops the workers, the dealer and the reading thread, quietly. (A worker that stopped
/// with batches in hand could leave the reading thread waiting for them, and the process
/// with it; the workers give them back, but this test does not force that race.)
#[test]
fn closed_stdout_ends_quietly_when_one_file_is_read_in_parts() {
    let dir = tempfile::tempdir().unwrap();
    let big = big_input(&dir);
    for _ in 0..5 {
        let (_, out) = first_100_bytes_then_close(
            StdCommand::new(BIN)
                .args(["tools", "--failed", "--starts"])
                .arg(&big)
                .env("CURSOR_STREAM_JOBS", "2")
                .env("CURSOR_STREAM_PART", "1"),
        );
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }
}

/// Several files: a worker takes an input only a few inputs ahead of the output. With a
/// slow first input (a FIFO no one writes yet), the later files are opened when the
/// output nears them, as one after another would (so a file removed meanwhile cannot be
/// read), not all at once, each finished one holding a piece of output until its turn.
#[cfg(unix)]
#[test]
fn workers_take_files_only_a_few_ahead_of_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let slow = dir.path().join("slow.ndjson");
    let made = StdCommand::new("mkfifo").arg(&slow).status().unwrap();
    assert!(made.success());
    let run = read("documented.ndjson");
    let files = copies(dir.path(), run.as_bytes(), 40);
    let child = StdCommand::new(BIN)
        .arg("check")
        .arg(&slow)
        .args(&files)
        .env("CURSOR_STREAM_JOBS", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Time for the workers to take every file they may.
    thread::sleep(Duration::from_millis(500));
    for file in &files[10..] {
        std::fs::remove_file(file).unwrap();
    }
    // Opens the FIFO (its reader waits for that), writes the run and closes it.
    std::fs::write(&slow, &run).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.matches("cannot read").count(), 30, "{stderr}");
    assert_eq!(out.status.code(), Some(2));
}

/// A worker's `events` leaves where the lines it passes are in a regular file, and the
/// main thread copies them from there; a FIFO among the files cannot be read twice, so
/// its worker passes the bytes themselves. Either way every line comes out as read.
#[test]
fn events_pass_every_line_of_files_and_a_fifo_as_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("live.ndjson");
    let made = StdCommand::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let names = [
        "non-json.ndjson",
        "two-runs.ndjson",
        "crlf.ndjson",
        "documented.ndjson",
    ];
    let child = StdCommand::new(BIN)
        .arg("events")
        .arg(fixture(names[0]))
        .arg(&fifo)
        .args(names[1..].iter().map(|n| fixture(n)))
        .env("CURSOR_STREAM_JOBS", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bytes = |name: &str| std::fs::read(fixture(name)).unwrap();
    let live = bytes("partial.ndjson");
    std::fs::write(&fifo, &live).unwrap();
    let out = child.wait_with_output().unwrap();
    let mut want = bytes(names[0]);
    want.extend(&live);
    for name in &names[1..] {
        want.extend(bytes(name));
    }
    assert!(
        out.stdout == want,
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_eq!(out.status.code(), Some(0));
}

/// Each input's handles close once it is written: more inputs than a process may hold
/// open are read as one after another reads them.
#[cfg(unix)]
#[test]
fn more_files_than_open_handles_are_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let run = std::fs::read(fixture("documented.ndjson")).unwrap();
    let files = copies(dir.path(), &run, 150);
    for view in [
        &["stats", "--json"][..],
        &["events"],
        &["events", "--count"],
    ] {
        let out = StdCommand::new("sh")
            .arg("-c")
            .arg(r#"ulimit -n 64 && exec "$0" "$@""#)
            .arg(BIN)
            .args(view)
            .args(&files)
            .env("CURSOR_STREAM_JOBS", "2")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("cannot read"), "{view:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{view:?}: {stderr}");
    }
}

/// `--tool` keeps what the dialect found on the current line: line 7 of the second file
/// is not line 7 of the first (one reader took the first file's tools for it).
#[test]
fn tool_facts_belong_to_their_own_input() {
    for jobs in ["1", "2"] {
        let out = cs()
            .args(["events", "--tool", "shell"])
            .arg(fixture("parallel.ndjson"))
            .arg(fixture("partial.ndjson"))
            .env("CURSOR_STREAM_JOBS", jobs)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 6, "{jobs} jobs: {stdout}");
        assert!(!stdout.contains(r#""type":"assistant""#), "{stdout}");
    }
}

#[test]
fn a_delta_appears_while_the_producer_is_still_running() {
    let mut child = StdCommand::new(BIN)
        .arg("text")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let mut buf = [0u8; 256];
        loop {
            match stdout.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => tx.send(buf[..n].to_vec()).unwrap(),
            }
        }
    });
    let delta = |text: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}]}},"session_id":"s","timestamp_ms":1}}"#
        ) + "\n"
    };
    stdin
        .write_all(br#"{"type":"system","subtype":"init","session_id":"s"}"#)
        .unwrap();
    stdin.write_all(b"\n").unwrap();
    for word in ["Hello", " live", " world"] {
        stdin.write_all(delta(word).as_bytes()).unwrap();
        stdin.flush().unwrap();
        // The producer keeps its stdout open: the word must arrive now, not at the end.
        let got = rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the delta did not reach stdout while the stream was open");
        assert_eq!(String::from_utf8(got).unwrap(), word);
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(3));
}

use crate::prerequisite;

/// Whether util-linux's `script` runs here (installed, and a pseudo-terminal to be had).
fn script_runs() -> bool {
    StdCommand::new("script")
        .args(["-qec", "true", "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs the binary with stdout and stderr on a pseudo-terminal, through `script`: what the
/// terminal got, once the binary ended with status 0.
fn on_terminal(args: &str, no_color: bool) -> String {
    let mut cmd = StdCommand::new("script");
    cmd.args(["-qec", &format!("{BIN} {args}"), "/dev/null"]);
    if no_color {
        cmd.env("NO_COLOR", "1");
    } else {
        cmd.env_remove("NO_COLOR");
    }
    let out = cmd.stdin(Stdio::null()).output().unwrap();
    let screen = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{args}: {:?}: {screen:?}", out.status);
    screen
}

#[test]
fn on_a_terminal_the_answer_ends_its_line_and_colors_follow_no_color() {
    if !script_runs() {
        return prerequisite::missing("util-linux `script` cannot run here");
    }
    let file = fixture("partial.ndjson");
    let file = file.display();
    let plain = on_terminal(&format!("text {file}"), false);
    let nopartial = fixture("nopartial.ndjson");
    let screen = on_terminal(&format!("text {}", nopartial.display()), false);
    assert!(screen.ends_with("`count.txt`.\r\n"), "{screen:?}");
    assert!(
        !plain.contains('\x1b'),
        "no styles without --thinking: {plain:?}"
    );

    let colored = on_terminal(&format!("text --thinking {file}"), false);
    assert!(colored.contains("\x1b["), "{colored:?}");
    let no_color = on_terminal(&format!("text --thinking {file}"), true);
    assert!(!no_color.contains('\x1b'), "{no_color:?}");
    assert!(
        no_color.contains("[thinking] Rounding is missing."),
        "{no_color:?}"
    );
}

/// B18: an error found after parsing shows the usage line of the command that was run.
#[test]
fn a_bad_value_shows_the_usage_of_its_own_command() {
    for (args, command) in [
        (&["usage", "--timezone", "Mars/Olympus"][..], "usage"),
        (&["stats", "--since", "soon", "x"], "stats"),
        (&["sessions", "--until", "someday"], "sessions"),
        (&["get", "--jsonargs", ".", "{"], "get"),
    ] {
        let out = cs().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("Usage: cursor-stream {command} ")),
            "{args:?}: {err}"
        );
    }
}

/// B21: the help says what the commands do: `usage` and `sessions` with no file read the
/// logs, not stdin; `usage --since` is read in `--timezone`; `--version` names the prices.
#[test]
fn help_and_version_say_what_the_binary_does() {
    for command in ["usage", "sessions"] {
        let out = cs().args([command, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(!help.contains("nothing reads stdin"), "{command}: {help}");
        assert!(
            help.contains("every agent's session logs are read"),
            "{command}: {help}"
        );
    }
    let usage = cs().args(["usage", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&usage.stdout).contains("in --timezone"));
    let stats = cs().args(["stats", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&stats.stdout).contains("nothing reads stdin"));
    let version = cs().arg("--version").output().unwrap();
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(version.contains("prices built in: litellm"), "{version}");
}

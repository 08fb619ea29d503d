//! What a terminal of a given width shows, and what a pipe gets: the binary runs with its
//! stdout on a real pseudo-terminal of a chosen size (or `COLUMNS` set), and every activity
//! line of `tools`, `progress` and `stats` must fit; piped, every value must be whole.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;

use crate::terminal::pty;
use unicode_width::UnicodeWidthStr;

use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// What a terminal shows, and what went to stderr (a pipe).
struct Screen {
    out: String,
    err: String,
}

/// Runs the binary with its stdout on a terminal `columns` wide; `COLUMNS` as given (unset
/// otherwise); stdin on the same terminal when `stdin_eof`, which then sends Ctrl-D.
fn on_terminal(args: &[&str], columns: u16, env_columns: Option<&str>, stdin_eof: bool) -> Screen {
    let (theirs, mut ours) = pty(columns);
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env_remove("COLUMNS")
        .env_remove("NO_COLOR")
        .stdout(theirs.try_clone().unwrap())
        .stderr(Stdio::piped());
    if let Some(c) = env_columns {
        cmd.env("COLUMNS", c);
    }
    if stdin_eof {
        cmd.stdin(theirs.try_clone().unwrap());
    } else {
        cmd.stdin(Stdio::null());
    }
    let mut child = cmd.spawn().unwrap();
    // Only the child holds the terminal's side now: our reads end when it exits.
    drop(cmd);
    drop(theirs);
    let mut keys = ours.try_clone().unwrap();
    let reader = thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut buf = [0; 4096];
        // A pseudo-terminal reports EIO, not EOF, once its other side is closed.
        while let Ok(n) = ours.read(&mut buf) {
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&buf[..n]);
        }
        bytes
    });
    if stdin_eof {
        // The terminal's end-of-file, typed as a person would.
        keys.write_all(b"\x04").unwrap();
    }
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    child.wait().unwrap();
    drop(keys);
    let bytes = reader.join().unwrap();
    Screen {
        // The terminal turns each newline into CR LF.
        out: String::from_utf8(bytes).unwrap().replace("\r\n", "\n"),
        err,
    }
}

/// The same run with stdout a pipe.
fn piped(args: &[&str], env_columns: &str) -> String {
    let out = Command::new(BIN)
        .args(args)
        .env("COLUMNS", env_columns)
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// The activity lines of `progress`: those its marks start (the answer's prose is the
/// terminal's to wrap).
fn activity(screen: &str) -> Vec<&str> {
    screen
        .lines()
        .filter(|l| {
            ["▶", "✓", "✗", "?", "…", "■", "↻", "⚠"]
                .iter()
                .any(|m| l.starts_with(m))
        })
        .collect()
}

fn assert_fits(lines: &[&str], columns: usize, what: &str) {
    assert!(!lines.is_empty(), "{what}: no line");
    for l in lines {
        assert!(
            l.width() <= columns,
            "{what}: {} columns, wider than {columns}: {l}",
            l.width()
        );
    }
}

const WINDOWS: &str = "windows-paths.ndjson";
const SKILL: &str = r"C:\Users\craig\.cursor\skills\brainstorming\SKILL.md";
const VUE: &str = r"components\roof\RoofQuickLinearCalculator.vue";

fn windows() -> String {
    fixture(WINDOWS).display().to_string()
}

#[test]
fn tools_lines_fit_an_80_column_terminal_and_keep_file_names() {
    let f = windows();
    let screen = on_terminal(&["tools", "--color", "never", &f], 80, None, false);
    let lines: Vec<&str> = screen.out.lines().collect();
    assert_eq!(lines.len(), 5, "{}", screen.out);
    assert_fits(&lines, 80, "tools");
    // Shortened in the middle: the file name stays, the run directory is gone.
    assert!(
        lines[0].contains(r"C:\…") && lines[0].ends_with(r"SKILL.md — 96 lines"),
        "{}",
        lines[0]
    );
    assert!(
        lines[2].contains("RoofQuickLinearCalculator.vue — 430 lines"),
        "{}",
        lines[2]
    );
    assert!(!screen.out.contains("run-0024"), "{}", screen.out);
    // A command keeps its start.
    assert!(lines[4].contains("Select-String -Path '"), "{}", lines[4]);
    assert!(lines[4].ends_with("— exit 0"), "{}", lines[4]);
}

#[test]
fn columns_set_by_the_user_wins_over_the_terminal_size() {
    let f = windows();
    for columns in ["60", "40", "24"] {
        let screen = on_terminal(&["tools", &f], 200, Some(columns), false);
        let lines: Vec<&str> = screen.out.lines().collect();
        // Colours are on here: measure what shows.
        let plain: Vec<String> = lines.iter().map(|l| strip_styles(l)).collect();
        let plain: Vec<&str> = plain.iter().map(String::as_str).collect();
        assert_fits(&plain, columns.parse().unwrap(), "tools with COLUMNS");
        assert!(
            screen.out.contains("\x1b["),
            "a terminal still gets colours"
        );
    }
}

#[test]
fn progress_activity_lines_fit_and_the_answer_is_left_whole() {
    let f = windows();
    for columns in [80u16, 50] {
        let screen = on_terminal(&["progress", "--color", "never", &f], columns, None, false);
        assert_fits(&activity(&screen.out), columns.into(), "progress");
        assert!(
            screen.out.contains(
                "Renamed the button in `RoofQuickLinearCalculator.vue`; its behaviour is unchanged."
            ),
            "the answer is written whole: {}",
            screen.out
        );
    }
    let screen = on_terminal(&["progress", "--color", "never", &f], 80, None, false);
    let header = activity(&screen.out)[0];
    assert!(header.starts_with(r"▶ GPT-5.1 · D:\…\"), "{header}");
    assert!(header.ends_with("run-0024 · session 5a1d0c2e"), "{header}");
}

#[test]
fn stats_fits_any_width_as_a_table_or_a_few_lines_per_run() {
    let f = windows();
    let two = fixture("two-runs.ndjson").display().to_string();
    for columns in [160u16, 80, 40, 12] {
        let screen = on_terminal(
            &["stats", "--color", "never", &f, &two],
            columns,
            None,
            false,
        );
        let lines: Vec<&str> = screen.out.lines().collect();
        assert_fits(&lines, columns.into(), "stats");
        if columns == 160 {
            assert!(lines[0].starts_with("AGENT"), "a table: {}", screen.out);
            assert!(lines[0].contains("DIRECTORY"), "{}", lines[0]);
        } else {
            assert!(lines[0].starts_with("cursor · "), "{}", screen.out);
        }
    }
}

#[test]
fn piped_output_holds_every_value_whole_whatever_columns_says() {
    let f = windows();
    let tools = piped(&["tools", &f], "40");
    assert!(tools.contains(&format!("{SKILL} — 96 lines")), "{tools}");
    assert!(tools.contains(&format!("{VUE} — 430 lines")), "{tools}");
    assert!(
        tools.contains("Select-String -Path 'components\\roof\\*.vue' -Pattern 'Clear manual entries' | Select-Object -First 5 LineNumber, Line — exit 0"),
        "{tools}"
    );
    assert!(!tools.contains('…'), "nothing elided in a pipe: {tools}");
    let progress = piped(&["progress", &f], "40");
    assert!(
        progress.contains(
            r"▶ GPT-5.1 · D:\Downloads\Skill-Evaluation-Lab\.worktrees\cursor-runner-automation\.worktrees\cursor-runs\run-0024 · session 5a1d0c2e-7b3f-4e6a-9c81-2f4d6b8e0a13"
        ),
        "{progress}"
    );
    let stats = piped(&["stats", &f], "40");
    assert!(stats.contains(r"D:\Downloads\Skill-Evaluation-Lab\.worktrees\cursor-runner-automation\.worktrees\cursor-runs\run-0024"), "{stats}");
    assert!(!stats.contains('…'), "{stats}");
}

#[test]
fn json_output_is_the_same_on_a_terminal_and_in_a_pipe() {
    let f = windows();
    for view in ["tools", "stats"] {
        let screen = on_terminal(&[view, "--json", &f], 30, None, false);
        assert_eq!(screen.out, piped(&[view, "--json", &f], "30"), "{view}");
    }
}

#[test]
fn a_terminal_on_stdin_is_told_where_the_stream_is_read_from() {
    let screen = on_terminal(&["text"], 80, None, true);
    assert_eq!(
        screen.err.matches("reading the stream from stdin").count(),
        1,
        "{}",
        screen.err
    );
    // Piped input gets no such line.
    let out = Command::new(BIN)
        .arg("text")
        .stdin(File::open(fixture(WINDOWS)).unwrap())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("reading the stream"));
}

/// Every real capture, when `../shared/captures` is there: activity lines fit 80 columns.
#[test]
fn real_captures_fit_80_columns() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/captures");
    let Ok(top) = std::fs::read_dir(&dir) else {
        return prerequisite::missing(&format!("no {}", dir.display()));
    };
    let mut files = Vec::new();
    for entry in top.flatten() {
        let p = entry.path();
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().flatten().map(|e| e.path()));
        } else {
            files.push(p);
        }
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    assert!(!files.is_empty());
    for file in &files {
        let f = file.display().to_string();
        let tools = on_terminal(&["tools", "--color", "never", &f], 80, None, false);
        let lines: Vec<&str> = tools.out.lines().collect();
        for l in &lines {
            assert!(l.width() <= 80, "{f}: {l}");
        }
        let progress = on_terminal(&["progress", "--color", "never", &f], 80, None, false);
        for l in activity(&progress.out) {
            assert!(l.width() <= 80, "{f}: {l}");
        }
    }
    let all: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    let mut args = vec!["stats", "--color", "never"];
    args.extend(all.iter().map(String::as_str));
    let stats = on_terminal(&args, 80, None, false);
    assert_fits(
        &stats.out.lines().collect::<Vec<_>>(),
        80,
        "stats of every capture",
    );
}

/// The text without the styles this tool adds (`ESC [ … m`).
fn strip_styles(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// `stats` on a terminal writes each run when it ends, as it does piped: a live stream (a
/// loop of runs, `tail -f`) shows every run without waiting for the end of the input.
#[test]
fn stats_on_a_terminal_shows_each_run_as_it_ends() {
    let log = std::fs::read_to_string(fixture("two-runs.ndjson")).unwrap();
    let second = log.find("{\"type\":\"system\"").and_then(|first| {
        log[first + 1..]
            .find("{\"type\":\"system\"")
            .map(|i| first + 1 + i)
    });
    let (first_run, second_run) = log.split_at(second.expect("two runs"));
    for columns in [80u16, 160] {
        let (theirs, mut ours) = pty(columns);
        let mut child = Command::new(BIN)
            .arg("stats")
            .env_remove("COLUMNS")
            .stdout(theirs.try_clone().unwrap())
            .stdin(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        drop(theirs);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(first_run.as_bytes()).unwrap();
        stdin.flush().unwrap();
        // The first run's row, while the input stays open.
        let (tx, rx) = std::sync::mpsc::channel();
        thread::spawn(move || {
            let mut buf = [0; 4096];
            while let Ok(n) = ours.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        let mut shown = Vec::new();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !String::from_utf8_lossy(&shown).contains("0b7e4d21") {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(bytes) => shown.extend(bytes),
                Err(_) => panic!(
                    "{columns} columns: the first run is not shown before the input ends: {:?}",
                    String::from_utf8_lossy(&shown)
                ),
            }
        }
        stdin.write_all(second_run.as_bytes()).unwrap();
        drop(stdin);
        assert!(child.wait().unwrap().success());
    }
}

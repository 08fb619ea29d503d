//! The shortcuts (type peek, assistant fast path, tool-kind peek, top-level key scan) must
//! not change any output: every view is run on the generated corpus both ways — as
//! shipped, and with `CURSOR_STREAM_REFERENCE=1`, which sends every line through the plain
//! parser — and the outputs are compared byte for byte.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Output};

#[allow(dead_code)]
#[path = "../examples/generate.rs"]
mod generate;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn run(args: &[&str], file: &Path, reference: bool) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args).arg(file).env_remove("NO_COLOR");
    if reference {
        cmd.env("CURSOR_STREAM_REFERENCE", "1");
    } else {
        cmd.env_remove("CURSOR_STREAM_REFERENCE");
    }
    cmd.output().unwrap()
}

/// The `.ndjson` files under `dir` and its folders, but `fuzz/`: the fuzzer's finds are
/// lines broken in the middle after a valid start, which the fast peek takes as an event
/// (then reported unreadable) and the plain parser as not JSON, by design.
fn ndjson_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && path.ends_with("fuzz") {
            continue;
        } else if path.is_dir() {
            ndjson_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ndjson") {
            out.push(path);
        }
    }
}

/// A generated log of Cursor runs and one of Claude runs, then every fixture of every
/// agent (odd shapes, bad lines) appended: the dialects switch run by run.
fn corpus(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("corpus.ndjson");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    generate::generate(&mut out, 3 << 20, 7, false).unwrap();
    generate::generate(&mut out, 256 << 10, 8, true).unwrap();
    generate::generate_claude(&mut out, 2 << 20, 9).unwrap();
    generate::generate_agent(&mut out, 512 << 10, 12, "codex").unwrap();
    generate::generate_agent(&mut out, 512 << 10, 13, "gemini").unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names = Vec::new();
    ndjson_files(&fixtures, &mut names);
    names.sort();
    for name in names {
        let mut bytes = std::fs::read(name).unwrap();
        if bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
        out.write_all(&bytes).unwrap();
    }
    out.flush().unwrap();
    path
}

#[test]
fn every_view_gives_the_same_output_with_and_without_the_shortcuts() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let views: &[&[&str]] = &[
        &["text"],
        &["text", "--thinking", "--separator", "\\n--\\n"],
        &["result"],
        &["json"],
        &["tools"],
        &["tools", "--json", "--starts"],
        &["tools", "--failed", "--tool", "shell,read"],
        &["progress", "--thinking"],
        &["events", "--type", "tool_call", "--subtype", "completed"],
        &["events", "--tool", "shell,edit,Bash,command_execution"],
        &["events", "--type", "stream_event,item.completed,message"],
        &["events", "-c", "-v", "--type", "assistant"],
        &[
            "get",
            "-r",
            ".message.content[].text",
            "--type",
            "assistant",
        ],
        &["get", ".tool_call[]?.result?", "--subtype", "completed"],
        &["stats"],
        &["stats", "--json"],
        &["check", "--json"],
    ];
    for args in views {
        let fast = run(args, &corpus, false);
        let reference = run(args, &corpus, true);
        assert!(!fast.stdout.is_empty(), "{args:?} wrote nothing");
        assert_same(
            &fast,
            &reference,
            &format!("{args:?}, against the reference path"),
        );
    }
}

/// `got` wrote the bytes `want` wrote, on stdout and on stderr, and ended the same way.
fn assert_same(got: &Output, want: &Output, what: &str) {
    assert!(got.stdout == want.stdout, "{what}: stdout differs");
    assert_eq!(
        String::from_utf8_lossy(&got.stderr),
        String::from_utf8_lossy(&want.stderr),
        "{what}"
    );
    assert_eq!(got.status.code(), want.status.code(), "{what}");
}

/// `args` over `files` with `jobs` workers (`CURSOR_STREAM_JOBS`): stdout, stderr, the
/// two on one pipe (their interleaving), and the exit status.
fn run_jobs(args: &[&str], files: &[std::path::PathBuf], jobs: &str) -> (Output, Vec<u8>) {
    let command = |program: &str| {
        let mut cmd = Command::new(program);
        cmd.env("CURSOR_STREAM_JOBS", jobs).env_remove("NO_COLOR");
        cmd
    };
    let apart = command(BIN).args(args).args(files).output().unwrap();
    let together = command("sh")
        .arg("-c")
        .arg(r#""$0" "$@" 2>&1"#)
        .arg(BIN)
        .args(args)
        .args(files)
        .output()
        .unwrap();
    (apart, together.stdout)
}

/// Many files read by one worker per core give the bytes of one file after another: each
/// generated agent's log and every fixture as an input of its own, a missing file among
/// them, bad lines enough that some warnings are only counted.
#[test]
fn many_files_read_in_parallel_give_the_same_bytes_as_one_after_another() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (i, agent) in ["cursor", "claude", "codex", "gemini"]
        .into_iter()
        .enumerate()
    {
        let path = dir.path().join(format!("{agent}.ndjson"));
        let mut out = BufWriter::new(File::create(&path).unwrap());
        match agent {
            "cursor" => generate::generate(&mut out, 1 << 20, 21, false).unwrap(),
            "claude" => generate::generate_claude(&mut out, 512 << 10, 22).unwrap(),
            _ => generate::generate_agent(&mut out, 256 << 10, 23 + i as u64, agent).unwrap(),
        }
        out.flush().unwrap();
        files.push(path);
    }
    files.push(dir.path().join("missing.ndjson"));
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names = Vec::new();
    ndjson_files(&fixtures, &mut names);
    names.sort();
    files.extend(names);
    let views: &[&[&str]] = &[
        &["tools"],
        &["tools", "--json", "--starts"],
        &["tools", "--failed"],
        &["events", "--type", "tool_call,item.completed,tool_result"],
        &["events"],
        &["events", "--count", "--type", "result"],
        &["stats", "--json"],
        &["stats"],
        &["check", "--json"],
    ];
    for args in views {
        let (one, one_together) = run_jobs(args, &files, "1");
        assert!(!one.stdout.is_empty(), "{args:?} wrote nothing");
        for jobs in ["2", "3"] {
            let (many, many_together) = run_jobs(args, &files, jobs);
            assert_same(&many, &one, &format!("{args:?}, {jobs} workers"));
            assert!(
                many_together == one_together,
                "{args:?}, {jobs} workers: stdout and stderr interleave differently"
            );
        }
    }
}

#[test]
fn the_generated_corpus_rebuilds_to_its_results() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("generated.ndjson");
    let mut out = BufWriter::new(File::create(&path).unwrap());
    generate::generate(&mut out, 2 << 20, 11, false).unwrap();
    out.flush().unwrap();
    drop(out);
    let text = run(&["text"], &path, false);
    let results = run(&["result"], &path, false);
    assert_eq!(text.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&text.stderr), "");
    // `result` ends every answer with a newline; `text` puts one between runs.
    let mut expected = results.stdout.clone();
    expected.pop();
    assert!(text.stdout == expected, "text differs from the results");
}

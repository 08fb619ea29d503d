//! The shortcuts (type peek, assistant fast path, tool-kind peek, top-level key scan) must
//! not change any output: every view is run on the generated corpus both ways — as
//! shipped, and with `CURSOR_STREAM_REFERENCE=1`, which sends every line through the plain
//! parser — and the outputs are compared byte for byte.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Output};

use crate::generate;

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

/// The `.ndjson` files under `dir` and its folders: the fuzzer's finds and the lines
/// broken after a valid start (`fuzz/`, `edges/`) included.
fn ndjson_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
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
    run_parts(args, files, jobs, None)
}

/// As [`run_jobs`], one file read in parts of at least `part` bytes (`CURSOR_STREAM_PART`).
fn run_parts(
    args: &[&str],
    files: &[std::path::PathBuf],
    jobs: &str,
    part: Option<&str>,
) -> (Output, Vec<u8>) {
    let command = |program: &str| {
        let mut cmd = Command::new(program);
        cmd.env("CURSOR_STREAM_JOBS", jobs).env_remove("NO_COLOR");
        match part {
            Some(part) => cmd.env("CURSOR_STREAM_PART", part),
            None => cmd.env_remove("CURSOR_STREAM_PART"),
        };
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
/// them, bad lines enough that some warnings are only counted, sessions whose result an
/// earlier input had (`check`'s `duplicate_result`), and more unknown event types than
/// `check` lists by name.
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
    // Event types Cursor does not know, more names than `check` lists: each input's
    // worker sees names the earlier inputs listed, and names past the list.
    for (name, types) in [("unknown-a", 0..60), ("unknown-b", 30..190)] {
        let path = dir.path().join(format!("{name}.ndjson"));
        let id = format!("{name}-session");
        let mut lines = vec![format!(
            r#"{{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"{id}","model":"m","permissionMode":"default"}}"#
        )];
        for t in types.clone().chain(types.rev()) {
            lines.push(format!(r#"{{"type":"new_{t}","session_id":"{id}"}}"#));
        }
        lines.push(format!(
            r#"{{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"","session_id":"{id}"}}"#
        ));
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        files.push(path);
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut names = Vec::new();
    ndjson_files(&fixtures, &mut names);
    names.sort();
    files.extend(names);
    let views: &[&[&str]] = &[
        &["text"],
        &["text", "--thinking", "--separator", "\\n--\\n"],
        &["result"],
        &["usage", "run", "--json"],
        &["tools"],
        &["tools", "--json", "--starts"],
        &["tools", "--failed"],
        &["events", "--type", "tool_call,item.completed,tool_result"],
        &["events"],
        &["events", "-v", "--type", "assistant,stream_event"],
        &["events", "--count", "--type", "result"],
        &["events", "--normalized"],
        &["stats", "--json"],
        &["stats"],
        &["check"],
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

/// One file read in parts by one worker per core gives the bytes of one reader, whatever
/// the parts' size: the corpus (every agent's generated runs, every fixture, runs whose
/// `result` line is cut short or cannot be read, Claude's run before Qwen's); and the corpus after a `result` line
/// that tells no agent, so that the first part ends before the agent is known and its
/// worker must read the rest of the file itself (the later parts' output dropped).
#[test]
fn one_file_read_in_parts_gives_the_same_bytes_as_one_reader() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let mut bytes = std::fs::read(&corpus).unwrap();
    let init = |id: &str| {
        format!(
            r#"{{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"{id}","model":"m","permissionMode":"default"}}"#
        )
    };
    let answer = |id: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"done"}}]}},"session_id":"{id}"}}"#
        )
    };
    for run in 0..6 {
        let id = format!("cut-{run}");
        let end = match run % 3 {
            0 => format!(
                r#"{{"type":"result","subtype":"success","duration_ms":5,"duration_api_ms":5,"is_error":false,"result":"done","session_id":"{id}"}}"#
            ),
            1 => r#"{"type":"result","subtype":"success","is_error":false,"res"#.to_string(),
            _ => {
                format!(r#"{{"type":"result","subtype":"success","result":7,"session_id":"{id}"}}"#)
            }
        };
        for line in [init(&id), answer(&id), end] {
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
    }
    // Claude's run, then Qwen's, then Claude's: at each boundary the run takes its own
    // agent's name, as a part starting there does; and Qwen's run, a blank line and
    // Claude's hooks before its `init` (no boundary a part can start at).
    let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    for fixture in [
        "claude/thinking",
        "qwen/plain",
        "claude/thinking",
        "mixed/qwen-then-claude",
    ] {
        bytes.extend(std::fs::read(agents.join(format!("{fixture}.ndjson"))).unwrap());
    }
    std::fs::write(&corpus, &bytes).unwrap();
    let late = dir.path().join("agent-told-late.ndjson");
    let mut told_late = br#"{"type":"result","subtype":"success","result":"orphan"}"#.to_vec();
    told_late.push(b'\n');
    told_late.extend_from_slice(&bytes);
    std::fs::write(&late, &told_late).unwrap();
    let views: &[&[&str]] = &[
        &["stats", "--json"],
        &["stats"],
        &["tools"],
        &["tools", "--failed"],
        &[
            "events",
            "--count",
            "--tool",
            "shell,edit,Bash,command_execution",
        ],
        &["events", "--tool", "shell,edit,Bash,command_execution"],
        &["events", "-v", "--tool", "shell,Bash"],
        &["events", "--normalized"],
        &["check"],
        &["check", "--json"],
    ];
    for file in [corpus, late] {
        let files = [file];
        for args in views {
            let (one, one_together) = run_parts(args, &files, "1", None);
            assert!(!one.stdout.is_empty(), "{args:?} wrote nothing");
            for (jobs, part) in [("2", "1"), ("3", "1"), ("2", "20000"), ("2", "1000000")] {
                let (parts, parts_together) = run_parts(args, &files, jobs, Some(part));
                let what = format!(
                    "{args:?} on {:?}, {jobs} workers, parts of {part} bytes",
                    files[0]
                );
                assert_same(&parts, &one, &what);
                assert!(
                    parts_together == one_together,
                    "{what}: stdout and stderr interleave differently"
                );
            }
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

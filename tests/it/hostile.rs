//! Each class of bad input, with the behaviour the guide documents for it.
//!
//! cursor-stream sits at the end of pipes fed by programs that crash, get killed, print
//! banners and emit shapes nobody documented: it must never panic or hang, must say what
//! was wrong and where, and must keep going.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use assert_cmd::Command as Cmd;
use predicates::prelude::*;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn cs(args: &[&str]) -> Cmd {
    let mut cmd = Cmd::new(BIN);
    cmd.env_remove("NO_COLOR").args(args);
    cmd
}

const INIT: &str = r#"{"type":"system","subtype":"init","session_id":"s1"}"#;
const HELLO: &str = r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]},"session_id":"s1"}"#;
const RESULT: &str =
    r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"s1"}"#;

/// A good run with `extra` lines after the init.
fn run_with(extra: &[&[u8]]) -> Vec<u8> {
    let mut input = Vec::new();
    for line in [INIT.as_bytes()]
        .into_iter()
        .chain(extra.iter().copied())
        .chain([HELLO.as_bytes(), RESULT.as_bytes()])
    {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    input
}

fn stderr_of(args: &[&str], input: Vec<u8>) -> (i32, String, String) {
    let out = cs(args).write_stdin(input).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn empty_input_and_blank_lines_hold_no_run() {
    for input in ["", "\n\n   \n\t\r\n"] {
        cs(&["text"])
            .write_stdin(input)
            .assert()
            .code(3)
            .stdout("")
            .stderr("cursor-stream: note: the input holds no run and no result event\n");
    }
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let mut input = b"\xEF\xBB\xBF".to_vec();
    input.extend(run_with(&[]));
    cs(&["text"])
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout("Hello")
        .stderr("");
}

#[test]
fn non_json_lines_are_reported_and_skipped() {
    let input = run_with(&[
        b"Update available: run `agent update`",
        b"T: 1.2s",
        b"\x1b[31mRetriableError: [unavailable] reset\x1b[0m",
    ]);
    let (code, out, err) = stderr_of(&["text"], input);
    assert_eq!((code, out.as_str()), (0, "Hello"));
    assert!(
        err.contains("<stdin>:2: not JSON (expected value at line 1 column 1): Update available"),
        "{err}"
    );
    assert!(err.contains("<stdin>:3: not JSON"), "{err}");
    assert!(
        err.contains(
            "<stdin>:4: not JSON (expected value at line 1 column 1): \\u{1b}[31mRetriableError"
        ),
        "terminal escapes are shown escaped: {err}"
    );
    assert!(!err.contains('\x1b'), "{err}");
}

#[test]
fn json_that_is_not_an_object_is_reported() {
    let input = run_with(&[b"[]", b"\"x\"", b"42", b"null"]);
    let (code, out, err) = stderr_of(&["text"], input);
    assert_eq!((code, out.as_str()), (0, "Hello"));
    for n in 2..=5 {
        assert!(
            err.contains(&format!("<stdin>:{n}: JSON but not an object")),
            "{n}: {err}"
        );
    }
}

#[test]
fn invalid_utf8_inside_a_string_is_reported_by_the_view_that_reads_it() {
    let bad = b"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\"}]},\"session_id\":\"s1\"}";
    let input = run_with(&[bad]);
    let (code, out, err) = stderr_of(&["text"], input.clone());
    assert_eq!((code, out.as_str()), (0, "Hello"));
    assert!(
        err.contains("<stdin>:2: unreadable assistant event (invalid unicode code point"),
        "{err}"
    );
    // A view that does not read assistant events does not look inside them.
    cs(&["result"])
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout("Hello\n")
        .stderr("");
}

#[test]
fn nul_bytes_are_reported() {
    let raw_nul_in_string = b"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\x00b\"}]},\"session_id\":\"s1\"}";
    let input = run_with(&[b"\x00\x00\x00", raw_nul_in_string]);
    let (code, out, err) = stderr_of(&["text"], input);
    assert_eq!((code, out.as_str()), (0, "Hello"));
    assert!(err.contains("<stdin>:2: not JSON"), "{err}");
    // A raw control character in a string is not JSON, found where the line is read.
    assert!(
        err.contains("<stdin>:3: not JSON (control character"),
        "{err}"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let depth = 100_000;
    let mut deep = br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"!"}]},"extra":"#.to_vec();
    deep.extend(std::iter::repeat_n(b'[', depth));
    deep.extend(std::iter::repeat_n(b']', depth));
    deep.extend_from_slice(b",\"session_id\":\"s1\"}");
    let mut tool = br#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"result":{"success":"#.to_vec();
    tool.extend(std::iter::repeat_n(b'[', depth));
    tool.extend(std::iter::repeat_n(b']', depth));
    tool.extend_from_slice(b"}}},\"session_id\":\"s1\"}");
    let input = run_with(&[&deep, &tool]);
    for view in [
        "text",
        "tools",
        "stats",
        "check",
        "events",
        "progress",
        "transcript",
    ] {
        let (code, _, err) = stderr_of(&[view], input.clone());
        assert!(code == 0 || code == 1, "{view}: {code} {err}");
        assert!(!err.contains("panicked"), "{view}: {err}");
    }
    // Values that are skipped are skipped without recursion, whatever their depth.
    let (_, out, err) = stderr_of(&["text"], input);
    assert_eq!(out, "!Hello");
    assert!(!err.contains("unreadable"), "{err}");
    let (_, out, _) = stderr_of(&["get", ".type"], run_with(&[&tool]));
    assert_eq!(
        out,
        "\"system\"\n\"tool_call\"\n\"assistant\"\n\"result\"\n"
    );
    // Where the depth is in what a view reads, the event is reported.
    let mut nested_text =
        br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"#
            .to_vec();
    nested_text.extend(std::iter::repeat_n(b'[', depth));
    nested_text.extend(std::iter::repeat_n(b']', depth));
    nested_text.extend_from_slice(b"}]},\"session_id\":\"s1\"}");
    let (_, out, err) = stderr_of(&["text"], run_with(&[&nested_text]));
    assert_eq!(out, "Hello");
    assert!(
        err.contains("<stdin>:2: unreadable assistant event (invalid type: sequence"),
        "{err}"
    );
}

#[test]
fn out_of_range_numbers_are_tolerated_where_they_do_not_matter() {
    let huge_ts = br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}]},"session_id":"s1","timestamp_ms":1e999}"#;
    let result = r#"{"type":"result","subtype":"success","is_error":false,"result":"Hi","duration_ms":1e999,"session_id":"s1"}"#;
    let input = [INIT.as_bytes(), &huge_ts[..], result.as_bytes()]
        .iter()
        .flat_map(|l| l.iter().copied().chain([b'\n']))
        .collect::<Vec<u8>>();
    // The timestamp only tells a delta from a flush; the duration is read leniently.
    cs(&["text"])
        .write_stdin(input.clone())
        .assert()
        .code(0)
        .stdout("Hi")
        .stderr("");
    cs(&["stats", "--json"])
        .write_stdin(input)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            r#""status":"success","duration_ms":null"#,
        ));
    // Where the number is read, the event is unreadable, and says so.
    let bad_delta = r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"timestamp_ms":1e999,"session_id":"s1"}"#;
    cs(&["tools"])
        .write_stdin(run_with(&[bad_delta.as_bytes()]))
        .assert()
        .code(0)
        .stdout("")
        .stderr(predicate::str::contains(
            "<stdin>:2: unreadable tool_call event (number out of range",
        ));
}

#[test]
fn duplicate_keys_take_the_first_type() {
    let dup = br#"{"type":"assistant","type":"result","message":{"role":"assistant","content":[{"type":"text","text":"!"}]},"session_id":"s1"}"#;
    let input = run_with(&[dup]);
    // The peek reads the first `type`; the run's own result still comes last.
    cs(&["events", "-c", "--type", "assistant"])
        .write_stdin(input)
        .assert()
        .stdout("2\n");
}

#[test]
fn type_not_first_spaced_or_escaped_is_still_found() {
    let lines: [&[u8]; 3] = [
        br#"{"session_id":"s1","message":{"content":[{"text":"a","type":"text"}],"role":"assistant"},"type":"assistant"}"#,
        br#"{ "type" : "assistant" , "message" : { "content" : [ { "type" : "text" , "text" : "b" } ] } }"#,
        br#"{"\u0074ype":"assistant","message":{"content":[{"type":"text","text":"c"}]}}"#,
    ];
    let mut input = Vec::new();
    for line in [INIT.as_bytes()].into_iter().chain(lines) {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    cs(&["text"])
        .write_stdin(input)
        .assert()
        .code(3)
        .stdout("abc");
}

#[test]
fn fields_of_the_wrong_type_are_reported_or_taken_as_absent() {
    let lines: [&[u8]; 6] = [
        br#"{"type":"assistant","message":{"role":"assistant","content":"plain string"},"session_id":"s1"}"#,
        br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":7}]},"session_id":"s1"}"#,
        br#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":"shell","session_id":"s1"}"#,
        br#"{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"session_id":"s1"}"#,
        br#"{"type":"tool_call","subtype":"completed","call_id":42,"tool_call":{"shellToolCall":{"result":{"success":{"exitCode":"zero"}}}},"session_id":"s1"}"#,
        br#"{"type":"assistant","message":{"role":"assistant","content":42},"session_id":"s1"}"#,
    ];
    let input = run_with(&lines);
    let (code, out, err) = stderr_of(&["text"], input.clone());
    // A plain-string content is taken as the text, as chat APIs allow.
    assert_eq!((code, out.as_str()), (0, "plain stringHello"));
    assert!(
        err.contains("<stdin>:3: unreadable assistant event (invalid type: integer `7`"),
        "{err}"
    );
    assert!(
        err.contains("<stdin>:7: unreadable assistant event (invalid type: integer `42`"),
        "{err}"
    );
    let (code, out, err) = stderr_of(&["tools"], input);
    assert_eq!(code, 0, "{err}");
    // `tool_call` a string: a call of no known tool; no `call_id` (or a number): a call
    // that cannot be paired, listed on its own.
    assert_eq!(
        out,
        "pending   unknown             -  \n\
         pending   shell               -  ls\n\
         ok        shell               -  \n",
        "{out}"
    );
}

#[test]
fn a_usage_or_error_block_of_another_type_loses_that_field_not_the_terminal_event() {
    // Each agent's terminal event, its usage (or stats, or error) a string or a list: the
    // run still ends as the event says, with no usage.
    let cases: [(&str, &str, i32); 5] = [
        (
            "codex",
            "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n\
             {\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"hi\"}}\n\
             {\"type\":\"turn.completed\",\"usage\":\"n/a\"}\n",
            0,
        ),
        (
            "codex",
            "{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n\
             {\"type\":\"turn.failed\",\"error\":\"quota\"}\n",
            1,
        ),
        (
            "claude",
            "{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\",\"tools\":[]}\n\
             {\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"hi\",\"session_id\":\"s\",\"usage\":[1]}\n",
            0,
        ),
        (
            "gemini",
            "{\"type\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n\
             {\"type\":\"message\",\"role\":\"assistant\",\"content\":\"hi\",\"delta\":true}\n\
             {\"type\":\"result\",\"status\":\"success\",\"stats\":\"n/a\"}\n",
            0,
        ),
        (
            "opencode",
            "{\"type\":\"step_start\",\"sessionID\":\"ses_1\",\"part\":{\"type\":\"step-start\"}}\n\
             {\"type\":\"text\",\"sessionID\":\"ses_1\",\"part\":{\"type\":\"text\",\"text\":\"hi\"}}\n\
             {\"type\":\"step_finish\",\"sessionID\":\"ses_1\",\"part\":{\"type\":\"step-finish\",\"reason\":\"stop\",\"tokens\":\"n/a\"}}\n",
            0,
        ),
    ];
    for (agent, input, status) in cases {
        let (code, out, err) = stderr_of(&["result"], input.as_bytes().to_vec());
        assert_eq!(code, status, "{agent}: {out}{err}");
        assert!(!err.contains("unreadable"), "{agent}: {err}");
        let (_, out, err) = stderr_of(&["stats", "--json"], input.as_bytes().to_vec());
        assert!(!err.contains("unreadable"), "{agent}: {err}");
        assert!(
            out.contains(&format!("\"agent\":\"{agent}\"")),
            "{agent}: {out}"
        );
        assert!(out.contains("\"usage\":null"), "{agent}: {out}");
    }
}

/// Peak memory of a run, as the binary reports it with `CURSOR_STREAM_PEAK_MEMORY`.
fn peak_kib(args: &[&str], input: &Path) -> u64 {
    let out = Command::new(BIN)
        .args(args)
        .arg(input)
        .env("CURSOR_STREAM_PEAK_MEMORY", "1")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("peak memory"))
        .unwrap_or_else(|| panic!("no peak memory report: {err}"));
    line.rsplit(": ")
        .next()
        .unwrap()
        .trim_end_matches(" KiB")
        .parse()
        .unwrap()
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "peak memory is read from /proc")]
fn a_100_mb_line_is_read_and_memory_follows_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.ndjson");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let line_len = 100 << 20;
    writeln!(f, "{INIT}").unwrap();
    write!(f, r#"{{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{{"readToolCall":{{"args":{{"path":"big.txt"}},"result":{{"success":{{"totalLines":1,"content":""#).unwrap();
    f.write_all(&vec![b'x'; line_len]).unwrap();
    writeln!(f, r#""}}}}}}}},"session_id":"s1"}}"#).unwrap();
    writeln!(f, "{HELLO}\n{RESULT}").unwrap();
    f.flush().unwrap();
    drop(f);

    cs(&["tools"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout("ok        read                -  big.txt — 1 line\n");
    cs(&["text"]).arg(&path).assert().code(0).stdout("Hello");
    let line_kib = (line_len / 1024) as u64;
    for view in ["text", "tools", "stats"] {
        let peak = peak_kib(&[view], &path);
        // The buffer grows by half again, so it ends at most 1.5 times the line; the
        // rest is a constant: code, a few small buffers.
        assert!(
            peak < line_kib * 3 / 2 + 48 * 1024,
            "{view}: {peak} KiB for a {line_kib} KiB line"
        );
    }
}

#[test]
fn one_hundred_mb_without_a_newline_is_one_truncated_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nonewline.ndjson");
    std::fs::write(&path, vec![b'a'; 100 << 20]).unwrap();
    cs(&["text"])
        .arg(&path)
        .assert()
        .code(3)
        .stdout("")
        .stderr(predicate::str::contains(":1: truncated last line"));
    cs(&["text", "--max-line", "1M"])
        .arg(&path)
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "line 1 is longer than the limit of 1048576 bytes set by --max-line",
        ));
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "peak memory is read from /proc")]
fn memory_does_not_grow_with_the_number_of_runs() {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.ndjson");
    let many = dir.path().join("many.ndjson");
    let run = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tools-edge.ndjson"),
    )
    .unwrap();
    std::fs::write(&one, &run).unwrap();
    std::fs::write(&many, run.repeat(20_000)).unwrap();
    for view in ["tools", "stats", "progress", "check"] {
        let small = peak_kib(&[view], &one);
        let large = peak_kib(&[view], &many);
        // 20 000 runs, each with a call that never completes: nothing is kept across runs.
        assert!(
            large < small + 8 * 1024,
            "{view}: {small} KiB for one run, {large} KiB for 20 000"
        );
    }
    // A transcript keeps what it shows, which its budget bounds: 1 MiB of Markdown, 5 MiB of
    // page, each run's section rendered where it is kept; and the read buffers one small run
    // never fills (3 MiB), the table of runs and the run being read. Measured: 9.5 MiB more
    // than one run with --html (15.7 MiB in all, release build), where an 8 MiB page with
    // each section rendered apart, then copied, took 12.6 MiB more.
    for (args, budget_mib) in [(&["transcript"][..], 1), (&["transcript", "--html"][..], 5)] {
        let small = peak_kib(args, &one);
        let large = peak_kib(args, &many);
        assert!(
            large < small + (budget_mib + 6) * 1024,
            "{args:?}: {small} KiB for one run, {large} KiB for 20 000"
        );
    }
}

#[test]
fn the_inputs_the_fuzzer_found_are_handled() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        for view in [
            "text",
            "tools",
            "progress",
            "stats",
            "check",
            "events",
            "transcript",
        ] {
            let out = Command::new(BIN).arg(view).arg(&path).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !err.contains("panicked") && out.status.code().is_some(),
                "{view} on {}: {err}",
                path.display()
            );
        }
    }
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "peak memory is read from /proc")]
fn a_stream_of_deltas_that_never_flushes_keeps_memory_flat() {
    // 64 MiB of Cursor deltas in one segment, with no flush and no result: the text is
    // compared by length and hash to recognise repeats, never kept.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deltas.ndjson");
    let small_path = dir.path().join("ten-deltas.ndjson");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(
        f,
        r#"{{"type":"system","subtype":"init","session_id":"s1","model":"m"}}"#
    )
    .unwrap();
    let word = "delta text of a long answer that never ends ".repeat(2);
    let mut written = 0;
    let mut i = 0u64;
    while written < 64 << 20 {
        let line = format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"{word}{i} "}}]}},"session_id":"s1","timestamp_ms":{i}}}"#
        );
        writeln!(f, "{line}").unwrap();
        written += line.len() + 1;
        i += 1;
        if i == 10 {
            f.flush().unwrap();
            std::fs::copy(&path, &small_path).unwrap();
        }
    }
    drop(f);
    // The goal is 16 MiB whatever the input (40 MiB before the text was hashed). A release
    // build takes 5.7 MiB for ten deltas and 9.7-10.2 MiB for these 64 MiB (the read buffer,
    // the output buffer, the pieces of a file read in parts). A debug build maps a binary
    // twice as large and starts 6 MiB higher (12 MiB for ten deltas, 16.5 MiB seen on CI), so
    // what is asserted in every build is what the input adds: 4-4.5 MiB measured.
    for view in ["text", "progress", "stats"] {
        let small = peak_kib(&[view], &small_path);
        let peak = peak_kib(&[view], &path);
        assert!(
            peak < small + 8 * 1024,
            "{view}: {peak} KiB for 64 MiB of deltas, {small} KiB for ten"
        );
        if !cfg!(debug_assertions) {
            assert!(peak < 16 * 1024, "{view}: {peak} KiB for 64 MiB of deltas");
        }
    }
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "peak memory is read from /proc")]
fn the_last_session_of_a_large_log_is_held_in_a_temporary_file_not_in_memory() {
    // Three runs: 24 MiB, 40 MiB, then 6 MiB of events. `--last-session` holds each run's
    // lines until the next one starts, past 2 MiB in a temporary file: the file is emptied
    // twice and the last run comes back whole (it held 40 MiB in memory before).
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("three-runs.ndjson");
    let small_path = dir.path().join("one-small-run.ndjson");
    let mut log = Vec::new();
    let mut last_run = Vec::new();
    for (run, mib) in [(1, 24), (2, 40), (3, 6)] {
        let start = log.len();
        writeln!(
            log,
            r#"{{"type":"system","subtype":"init","session_id":"s{run}","model":"m"}}"#
        )
        .unwrap();
        let mut i = 0u64;
        while log.len() - start < mib << 20 {
            writeln!(
                log,
                r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"run {run}, line {i} of an answer"}}]}},"session_id":"s{run}"}}"#
            )
            .unwrap();
            i += 1;
        }
        last_run = log[start..].to_vec();
    }
    std::fs::write(&path, &log).unwrap();
    std::fs::write(
        &small_path,
        &last_run[..4096 + last_run[4096..].iter().position(|&b| b == b'\n').unwrap() + 1],
    )
    .unwrap();

    let out = Command::new(BIN)
        .args(["events", "--last-run"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout == last_run, "the last run, byte for byte");

    // The log's first two runs as a file of their own: the largest run is the last.
    let two_runs = dir.path().join("two-runs.ndjson");
    let second_end = log.len() - last_run.len();
    std::fs::write(&two_runs, &log[..second_end]).unwrap();
    let out = Command::new(BIN)
        .args(["events", "--last-run"])
        .arg(&two_runs)
        .output()
        .unwrap();
    let second_start = log[..second_end - 1]
        .windows(br#"{"type":"system""#.len())
        .rposition(|w| w == br#"{"type":"system""#)
        .unwrap();
    assert!(
        out.stdout == log[second_start..second_end],
        "the 40 MiB run"
    );

    let small = peak_kib(&["events", "--last-run"], &small_path);
    let large = peak_kib(&["events", "--last-run"], &two_runs);
    assert!(
        large < small + 8 * 1024,
        "{large} KiB for a 40 MiB last run, {small} KiB for 4 KiB"
    );

    // No temporary file can be made: the run is held in memory, nothing is lost.
    let out = Command::new(BIN)
        .args(["events", "--last-run"])
        .arg(&path)
        .env("TMPDIR", dir.path().join("no-such-dir"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout == last_run, "the last run, held in memory");
}

/// A view on a fixture of `tests/fixtures/edges/`, as shipped and with the shortcuts off
/// (`CURSOR_STREAM_REFERENCE=1`): both must give the same status, stdout and stderr.
fn on_both_paths(args: &[&str], fixture: &str) -> (i32, String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/edges")
        .join(fixture);
    let [fast, plain] = ["0", "1"].map(|reference| {
        let out = Command::new(BIN)
            .args(args)
            .arg(&path)
            .env("CURSOR_STREAM_REFERENCE", reference)
            .env_remove("NO_COLOR")
            .current_dir(path.parent().unwrap())
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    });
    assert_eq!(fast, plain, "{args:?} on {fixture}: the two paths differ");
    fast
}

/// A terminal event with a usable start but a broken body is not an event: the run has
/// no end (status 3), on both paths, in every view.
#[test]
fn a_broken_terminal_event_is_not_json_and_the_run_has_no_end() {
    let (code, out, err) = on_both_paths(&["result"], "garbled-result.ndjson");
    assert_eq!((code, out.as_str()), (3, ""));
    assert!(
        err.contains("garbled-result.ndjson:2: not JSON (trailing characters"),
        "{err}"
    );
    assert!(!err.contains("could not be read"), "{err}");
    let (code, out, _) = on_both_paths(&["events", "--count"], "garbled-result.ndjson");
    assert_eq!((code, out.as_str()), (0, "1\n"));
    let (_, out, _) = on_both_paths(&["events"], "garbled-result.ndjson");
    assert_eq!(out.lines().count(), 2, "a bad line passes with no filter");
    let (code, out, _) = on_both_paths(&["check"], "garbled-result.ndjson");
    assert_eq!(code, 1);
    assert!(out.contains(":2: malformed_line: not JSON"), "{out}");
    assert!(out.contains("in 1 events"), "{out}");
}

/// A `type` given twice, or a `subtype` that is not a string, makes a line that starts or
/// ends a run no event, on both paths (it was a success on the fast path).
#[test]
fn a_repeated_type_or_a_bad_subtype_is_refused_on_both_paths() {
    for (fixture, why) in [
        ("repeated-type.ndjson", "duplicate field `type`"),
        ("subtype-not-a-string.ndjson", "invalid type: integer `5`"),
    ] {
        let (code, out, err) = on_both_paths(&["result"], fixture);
        assert_eq!((code, out.as_str()), (3, ""), "{fixture}");
        assert!(
            err.contains(&format!(":2: unusable \"type\"/\"subtype\" ({why}")),
            "{fixture}: {err}"
        );
        let (code, out, _) = on_both_paths(&["check"], fixture);
        assert_eq!(code, 1, "{fixture}");
        assert!(out.contains(":2: malformed_line"), "{fixture}: {out}");
    }
}

/// A content line broken after a usable start is reported as not JSON by the view that
/// reads it, and what it would have said is not taken.
#[test]
fn a_broken_content_line_is_not_json_where_it_is_read() {
    let (code, out, err) = on_both_paths(&["text"], "garbled-delta.ndjson");
    assert_eq!((code, out.as_str()), (0, "Hello"));
    assert!(
        err.contains("garbled-delta.ndjson:2: not JSON (trailing characters"),
        "{err}"
    );
    assert!(!err.contains("unreadable"), "{err}");
    let (code, out, _) = on_both_paths(&["check"], "garbled-delta.ndjson");
    assert_eq!(code, 1);
    assert!(out.contains(":2: malformed_line: not JSON"), "{out}");
    // A broken line that would open a run (a stream cut before its start) opens none.
    let (code, out, err) = on_both_paths(&["stats"], "garbled-first-line.ndjson");
    assert_eq!((code, out.as_str()), (0, "no runs\n"));
    assert!(err.contains(":1: not JSON"), "{err}");
}

/// Cursor: a `system` event that is not an `init`, its `subtype` not right after `type`,
/// in the middle of a run, does not forget the answer so far (it was printed twice).
#[test]
fn a_system_event_mid_run_does_not_reset_the_answer() {
    let (code, out, err) = on_both_paths(&["text"], "system-status-mid-run.ndjson");
    assert_eq!((code, out.as_str(), err.as_str()), (0, "Hello", ""));
    let (_, out, _) = on_both_paths(&["stats", "--json"], "system-status-mid-run.ndjson");
    assert!(out.contains(r#""answer_bytes":5"#), "{out}");
}

/// Cursor: a `thinking` event whose text is not a string, its `subtype` not right after
/// `type`: a view that counts thinking phases does not read the text, on either path.
#[test]
fn a_thinking_phase_is_told_by_its_subtype_wherever_it_is() {
    let (code, _, err) = on_both_paths(&["stats"], "thinking-text-not-a-string.ndjson");
    assert_eq!((code, err.as_str()), (0, ""));
}

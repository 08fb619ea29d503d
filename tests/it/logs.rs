//! The log views (`events`, `get`, `stats`, `check`) and `--tee`, on the project's
//! fixtures; `events` and `get` also against jq on the same data (skipped without jq, a
//! failure under `CI=true`).

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// Fixtures that are clean JSON throughout, so jq reads them too.
const CLEAN: &[&str] = &[
    "partial.ndjson",
    "nopartial.ndjson",
    "documented.ndjson",
    "parallel.ndjson",
    "two-runs.ndjson",
    "tools-edge.ndjson",
    "key-order.ndjson",
    "failed.ndjson",
];

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn cs(args: &[&str]) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("NO_COLOR").args(args);
    cmd
}

fn output(args: &[&str], file: &Path) -> (i32, Vec<u8>, String) {
    let out = cs(args).arg(file).output().unwrap();
    (
        out.status.code().unwrap(),
        out.stdout,
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn jq(args: &[&str], file: &Path) -> Option<(i32, Vec<u8>)> {
    let out = StdCommand::new("jq")
        .args(args)
        .arg(file)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    Some((out.status.code().unwrap(), out.stdout))
}

fn have_jq() -> bool {
    let ok = StdCommand::new("jq")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        prerequisite::missing("jq is not installed");
    }
    ok
}

fn values(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(bytes)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn events_without_filter_reproduces_the_input_byte_for_byte() {
    for name in [
        "partial.ndjson",
        "crlf.ndjson",
        "non-json.ndjson",
        "truncated.ndjson",
        "key-order.ndjson",
    ] {
        let file = fixture(name);
        let (_, stdout, _) = output(&["events"], &file);
        assert_eq!(stdout, std::fs::read(&file).unwrap(), "{name}");
    }
    let with_bom_and_blanks =
        b"\xEF\xBB\xBF{\"type\":\"user\"}\r\n\r\n  \nnot json\n{\"type\":\"x\"}";
    cs(&["events"])
        .write_stdin(&with_bom_and_blanks[..])
        .assert()
        .code(0)
        .stdout(&with_bom_and_blanks[..]);
}

#[test]
fn events_filters_pass_the_original_lines() {
    let file = fixture("crlf.ndjson");
    let (code, stdout, _) = output(
        &[
            "events",
            "--type",
            "tool_call",
            "--subtype",
            "completed",
            "--tool",
            "shell",
        ],
        &file,
    );
    assert_eq!(code, 0);
    let text = String::from_utf8(stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.ends_with("}\r\n"), "the CRLF terminator is kept");
    assert!(text.contains(r#""command":"wc -l notes.txt""#));
    assert!(std::fs::read_to_string(&file).unwrap().contains(&text));
}

#[test]
fn events_count_invert_and_exit_status() {
    let file = fixture("partial.ndjson");
    let (code, stdout, _) = output(&["events", "-c", "--type", "assistant"], &file);
    assert_eq!((code, stdout), (0, b"30\n".to_vec()));
    let (code, stdout, _) = output(&["events", "-c", "--type", "no_such_type"], &file);
    assert_eq!((code, stdout), (1, b"0\n".to_vec()));
    let (_, all, _) = output(&["events", "-c"], &file);
    let (_, inverted, _) = output(&["events", "-c", "-v", "--type", "assistant"], &file);
    let n = |b: Vec<u8>| String::from_utf8(b).unwrap().trim().parse::<u64>().unwrap();
    assert_eq!(n(all), 30 + n(inverted));
}

#[test]
fn events_by_session_and_last_session() {
    let two = fixture("two-runs.ndjson");
    let (_, last, _) = output(&["events", "--last-run"], &two);
    assert_eq!(last, std::fs::read(fixture("parallel.ndjson")).unwrap());
    let (_, first, _) = output(&["events", "--session", "0b7e4d21"], &two);
    assert_eq!(first, std::fs::read(fixture("nopartial.ndjson")).unwrap());
    let (_, count, _) = output(&["events", "--last-run", "-c", "--type", "tool_call"], &two);
    assert_eq!(count, b"4\n");
}

#[test]
fn events_select_the_same_events_as_jq() {
    if !have_jq() {
        return;
    }
    let cases: &[(&[&str], &str)] = &[
        (&["--type", "tool_call"], r#"select(.type=="tool_call")"#),
        (
            &["--type", "tool_call", "--subtype", "completed"],
            r#"select(.type=="tool_call" and .subtype=="completed")"#,
        ),
        (
            &["--tool", "shell"],
            r#"select(.type=="tool_call" and (.tool_call | has("shellToolCall")))"#,
        ),
        (
            &["-v", "--type", "assistant,thinking"],
            r#"select(.type!="assistant" and .type!="thinking")"#,
        ),
        (&["--subtype", "delta"], r#"select(.subtype=="delta")"#),
    ];
    for name in CLEAN {
        let file = fixture(name);
        for (args, filter) in cases {
            let mut all = vec!["events"];
            all.extend_from_slice(args);
            let (_, ours, _) = output(&all, &file);
            let (_, theirs) = jq(&["-c", filter], &file).unwrap();
            assert_eq!(values(&ours), values(&theirs), "{name}: {args:?}");
        }
    }
}

#[test]
fn get_extracts_like_jq() {
    if !have_jq() {
        return;
    }
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["--type", "assistant", ".message.content[].text"],
            &[
                "-c",
                r#"select(.type=="assistant") | .message.content[].text"#,
            ],
        ),
        (
            &["-r", "--type", "assistant", ".message.content[].text"],
            &[
                "-r",
                r#"select(.type=="assistant") | .message.content[].text"#,
            ],
        ),
        (
            &["-j", "--type", "assistant", ".message.content[0].text"],
            &[
                "-j",
                r#"select(.type=="assistant") | .message.content[0].text"#,
            ],
        ),
        (&[".type, .subtype"], &["-c", ".type, .subtype"]),
        (
            &[r#".["session_id"], ."type""#],
            &["-c", r#".["session_id"], ."type""#],
        ),
        (&[".message.content[-1]"], &["-c", ".message.content[-1]"]),
        (&[".tool_call[]?.args"], &["-c", ".tool_call[]?.args"]),
        (&[".usage"], &["-c", ".usage"]),
        (&["."], &["-c", "."]),
        (
            &["-r", "--type", "result", ".result"],
            &["-r", r#"select(.type=="result") | .result"#],
        ),
    ];
    for name in CLEAN {
        let file = fixture(name);
        for (ours_args, jq_args) in cases {
            let mut all = vec!["get"];
            all.extend_from_slice(ours_args);
            let (code, ours, stderr) = output(&all, &file);
            let (jq_code, theirs) = jq(jq_args, &file).unwrap();
            assert_eq!(
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs),
                "{name}: {ours_args:?}\n{stderr}"
            );
            // jq 1.6 takes its status from the last event only; ours is 5 when any failed.
            if stderr.is_empty() {
                assert_eq!((code, jq_code), (0, 0), "{name}: {ours_args:?}");
            } else {
                assert_eq!(code, 5, "{name}: {ours_args:?}");
            }
        }
    }
}

/// Events with repeated keys, at the top, nested, in arrays of objects, spelled with an
/// escape (`"\u0073"` is `"s"`).
const DUPLICATE_KEYS: &str = concat!(
    r#"{"type":"x","a":{"k":1,"k":2}}"#,
    "\n",
    r#"{"type":"x","a":{"p":1,"q":{"k":"first","m":[{"z":0,"z":{"deep":1,"deep":[{"w":1,"w":2}]}}],"k":"second"},"p":3}}"#,
    "\n",
    r#"{"type":"x","a":[{"id":1,"id":2},{"id":"s","o":{},"id":"t"},[{"n":null,"n":false}]]}"#,
    "\n",
    r#"{"type":"x","a":{"s":"one","\u0073":"two\nlines"},"b":{"k":{"x":1},"k":"now a string"}}"#,
    "\n",
    r#"{"type":"x","a":{ "k" : 1 , "j" : [ 1 , { "k" : 2 , "k" : 3 } ] , "k" : { } },"type":"y"}"#,
    "\n",
);

/// A repeated key holds the last of its values, where the first stood, as in jq (which reads
/// the event into an object first): in every value written, at any depth, and in `.[]`.
/// The expected outputs are jq's (`jq -c`, `jq -rc`) on the same lines.
#[test]
fn get_takes_the_last_of_duplicate_keys_as_jq() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["."],
            concat!(
                r#"{"type":"x","a":{"k":2}}"#,
                "\n",
                r#"{"type":"x","a":{"p":3,"q":{"k":"second","m":[{"z":{"deep":[{"w":2}]}}]}}}"#,
                "\n",
                r#"{"type":"x","a":[{"id":2},{"id":"t","o":{}},[{"n":false}]]}"#,
                "\n",
                r#"{"type":"x","a":{"s":"two\nlines"},"b":{"k":"now a string"}}"#,
                "\n",
                r#"{"type":"y","a":{"k":{},"j":[1,{"k":3}]}}"#,
                "\n",
            ),
        ),
        (
            &[".a"],
            concat!(
                r#"{"k":2}"#,
                "\n",
                r#"{"p":3,"q":{"k":"second","m":[{"z":{"deep":[{"w":2}]}}]}}"#,
                "\n",
                r#"[{"id":2},{"id":"t","o":{}},[{"n":false}]]"#,
                "\n",
                r#"{"s":"two\nlines"}"#,
                "\n",
                r#"{"k":{},"j":[1,{"k":3}]}"#,
                "\n",
            ),
        ),
        (
            &[".a[]"],
            concat!(
                "2\n3\n",
                r#"{"k":"second","m":[{"z":{"deep":[{"w":2}]}}]}"#,
                "\n",
                r#"{"id":2}"#,
                "\n",
                r#"{"id":"t","o":{}}"#,
                "\n",
                r#"[{"n":false}]"#,
                "\n",
                r#""two\nlines""#,
                "\n{}\n",
                r#"[1,{"k":3}]"#,
                "\n",
            ),
        ),
        (
            &[".b, .b.k, .a[]?.k?"],
            concat!(
                "null\nnull\n",
                "null\nnull\n\"second\"\n",
                "null\nnull\nnull\nnull\n",
                r#"{"k":"now a string"}"#,
                "\n\"now a string\"\n",
                "null\nnull\nnull\n",
            ),
        ),
        (
            &["-r", ".a[]?"],
            concat!(
                "2\n3\n",
                r#"{"k":"second","m":[{"z":{"deep":[{"w":2}]}}]}"#,
                "\n",
                r#"{"id":2}"#,
                "\n",
                r#"{"id":"t","o":{}}"#,
                "\n",
                r#"[{"n":false}]"#,
                "\n",
                "two\nlines\n{}\n",
                r#"[1,{"k":3}]"#,
                "\n",
            ),
        ),
        (&["-r", ".a.s?"], "null\nnull\ntwo\nlines\nnull\n"),
    ];
    for (args, expected) in cases {
        let assert = cs(&["get"])
            .args(*args)
            .write_stdin(DUPLICATE_KEYS)
            .assert()
            .code(0);
        let out = assert.get_output();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            *expected,
            "{args:?}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn get_exit_status_follows_jq() {
    let file = fixture("failed.ndjson");
    let status = |args: &[&str]| {
        let mut all = vec!["get"];
        all.extend_from_slice(args);
        output(&all, &file).0
    };
    assert_eq!(status(&["-e", "--type", "result", ".is_error"]), 0);
    assert_eq!(status(&["-e", "--type", "result", ".no_such_key"]), 1);
    assert_eq!(status(&["-e", "--type", "no_such_type", ".x"]), 4);
    assert_eq!(status(&[".message.role.x"]), 5);
    assert_eq!(status(&[".message.role.x?"]), 0);
    if have_jq() {
        for (args, filter) in [
            (["-e", ".is_error"], ".is_error"),
            (["-e", ".no_such_key"], ".no_such_key"),
        ] {
            let jq_code = jq(&["-e", filter], &file).unwrap().0;
            let mut all = vec!["get"];
            all.extend_from_slice(&args);
            assert_eq!(output(&all, &file).0, jq_code, "{filter}");
        }
    }
}

#[test]
fn get_reports_path_errors_with_the_line() {
    let (code, stdout, stderr) = output(&["get", ".message.role.x"], &fixture("failed.ndjson"));
    assert_eq!(code, 5);
    assert_eq!(String::from_utf8(stdout).unwrap(), "null\nnull\n");
    assert!(
        stderr.contains(r#"failed.ndjson:2: jq error: Cannot index string with string ("x")"#)
            && stderr
                .contains(r#"failed.ndjson:3: jq error: Cannot index string with string ("x")"#),
        "{stderr}"
    );
}

#[test]
fn invalid_program_is_a_usage_error_pointing_at_the_column() {
    cs(&["get", ".message..text"])
        .arg(fixture("partial.ndjson"))
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("invalid program at line 1, column 9: unexpected `.`")
                .and(predicate::str::contains("  .message..text\n          ^")),
        );
}

#[test]
fn stats_has_a_row_per_run_and_totals() {
    let (code, stdout, _) = output(&["stats"], &fixture("two-runs.ndjson"));
    assert_eq!(code, 0);
    let text = String::from_utf8(stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].starts_with("AGENT     SESSION   MODEL"), "{text}");
    assert!(lines[1].starts_with("cursor    0b7e4d21  Auto              success         9.1 s       92 B      2          9,120/211  3 (3 ok; edit 1, read 1, shell 1)  /tmp/notes"), "{text}");
    assert!(
        lines[2]
            .starts_with("cursor    1e27aa42  Auto              success         4.3 s       36 B"),
        "{text}"
    );
    assert!(
        lines[3].starts_with("-         TOTAL     -                 2 runs"),
        "{text}"
    );
    assert!(
        lines[3].ends_with("5 (5 ok; edit 1, read 1, shell 3)  runs: 2 success"),
        "{text}"
    );
}

/// One run of each agent, from `examples/`, in one stream.
fn every_agents_example() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut log = Vec::new();
    for name in ["claude", "codex", "gemini", "opencode", "qwen", "session"] {
        log.extend(std::fs::read(dir.join(name).with_extension("ndjson")).unwrap());
    }
    log
}

/// Over several agents the TOTAL row counts tools by kind (every agent's shell is one
/// `shell`), while each run's row keeps its agent's own names; `--json` rows keep them too.
#[test]
fn stats_totals_group_tools_by_kind_over_agents() {
    let assert = cs(&["stats"]).write_stdin(every_agents_example()).assert();
    let text = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 8, "{text}");
    let tools = |agent: &str| {
        let line = lines.iter().find(|l| l.starts_with(agent)).unwrap();
        line[line.find(" (").unwrap()..].to_string()
    };
    assert!(tools("claude").contains("; Bash 1, Read 1)"), "{text}");
    assert!(
        tools("codex").contains("; command_execution 3, file_change 1, todo_list 1)"),
        "{text}"
    );
    assert!(
        tools("gemini").contains("; read_file 1, replace 2, run_shell_command 1)"),
        "{text}"
    );
    assert!(
        tools("opencode").contains("; bash 1, edit 2, read 1)"),
        "{text}"
    );
    assert!(
        tools("cursor").contains("; edit 1, grep 1, shell 1)"),
        "{text}"
    );
    assert!(
        lines[7].ends_with(
            "  20 (15 ok, 1 edit_no_occurrence_found, 3 error, 1 failed; \
             edit 6, grep 1, read 5, shell 7, todo 1)  runs: 6 success"
        ),
        "{text}"
    );

    let assert = cs(&["stats", "--json"])
        .write_stdin(every_agents_example())
        .assert();
    let rows = values(&assert.get_output().stdout);
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows[0]["tools"],
        serde_json::json!({
            "total": 2,
            "by_status": {"ok": 1, "error": 1},
            "by_kind": {"Bash": 1, "Read": 1},
        })
    );
    assert_eq!(rows[1]["tools"]["by_kind"]["command_execution"], 3);
}

#[test]
fn stats_json_is_one_object_per_run() {
    let (_, stdout, _) = output(&["stats", "--json"], &fixture("tools-edge.ndjson"));
    let rows = values(&stdout);
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    assert_eq!(row["session_id"], "e0e0e0e0-1111-4222-8333-444444444444");
    assert_eq!(row["status"], "success");
    assert_eq!(row["duration_ms"], 7000);
    assert_eq!(row["answer_bytes"], 23);
    assert_eq!(row["tools"]["total"], 6);
    assert_eq!(row["tools"]["by_status"]["pending"], 1);
    assert_eq!(row["tools"]["by_status"]["error"], 2);
    assert_eq!(row["tools"]["by_kind"]["shell"], 2);
    assert_eq!(row["usage"], Value::Null);

    let (_, stdout, _) = output(&["stats", "--json"], &fixture("no-result.ndjson"));
    assert_eq!(values(&stdout)[0]["status"], "no_result");

    // Each row names its input: the path as given, `<stdin>` for stdin.
    let (two, edge) = (fixture("two-runs.ndjson"), fixture("tools-edge.ndjson"));
    let out = cs(&["stats", "--json"])
        .arg(&two)
        .arg(&edge)
        .output()
        .unwrap();
    let files: Vec<Value> = values(&out.stdout)
        .iter()
        .map(|r| r["file"].clone())
        .collect();
    assert_eq!(
        files,
        [
            two.to_str().unwrap(),
            two.to_str().unwrap(),
            edge.to_str().unwrap()
        ]
    );
    let input = std::fs::read(&edge).unwrap();
    let assert = cs(&["stats", "--json"]).write_stdin(input).assert();
    assert_eq!(values(&assert.get_output().stdout)[0]["file"], "<stdin>");
}

#[test]
fn check_passes_a_clean_stream() {
    cs(&["check"])
        .arg(fixture("nopartial.ndjson"))
        .assert()
        .code(0)
        .stdout("ok: 15 events in 1 run(s), no problem\n");
}

#[test]
fn check_reports_each_problem_with_its_line() {
    let input = [
        r#"{"type":"system","subtype":"init","session_id":"s1"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]},"session_id":"s1"}"#,
        r#"{"type":"tool_call","subtype":"completed","call_id":"x","tool_call":{"readToolCall":{"result":{"success":{}}}},"session_id":"s1"}"#,
        r#"{"type":"tool_call","subtype":"started","call_id":"y","tool_call":{"shellToolCall":{"args":{}}},"session_id":"s1"}"#,
        r#"{"type":"brand_new","session_id":"s1"}"#,
        r#"{"type":"connection","subtype":"reconnected"}"#,
        "T: 1.2s",
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Goodbye","session_id":"s1"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s1"}"#,
        r#"{"type":"system","subtype":"init","session_id":"s2"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"cut"#,
    ]
    .join("\n");
    let assert = cs(&["check"]).write_stdin(input.clone()).assert().code(1);
    let report = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for expected in [
        "<stdin>:3: completion_without_start: read call \"x\" completed without a started event",
        "<stdin>:6: missing_session_id: connection event without session_id",
        "<stdin>:7: malformed_line: not JSON",
        "<stdin>:4: call_never_completed: shell call \"y\" started but never completed",
        "<stdin>:8: text_differs: session s1: the text rebuilt from the stream (5 bytes) differs from the final answer (7 bytes)",
        "<stdin>:9: duplicate_result: a second result event for session s1",
        "<stdin>:11: malformed_line: truncated last line",
        "<stdin>:11: no_result: session s2 ended without a result event",
        "unknown event types (not problems): brand_new ×1",
    ] {
        assert!(report.contains(expected), "{expected:?} not in\n{report}");
    }

    let assert = cs(&["check", "--json"]).write_stdin(input).assert().code(1);
    let records = values(&assert.get_output().stdout);
    let summary = records.last().unwrap();
    assert_eq!(summary["type"], "summary");
    assert_eq!(summary["ok"], false);
    assert_eq!(summary["problems"], (records.len() - 1) as u64);
    assert_eq!(summary["unknown_types"]["brand_new"], 1);
    assert_eq!(records[0]["type"], "problem");
    assert_eq!(records[0]["line"], 3);
    assert_eq!(records[0]["kind"], "completion_without_start");
}

/// A log where every line has a type of its own: `check` lists the first hundred names and
/// counts the rest, so that neither its memory nor its summary grows with the log.
#[test]
fn check_lists_a_bounded_number_of_unknown_types() {
    let mut input =
        String::from("{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\"}\n");
    for i in 0..150 {
        input.push_str(&format!(
            "{{\"type\":\"new_{i:03}\",\"session_id\":\"s\"}}\n"
        ));
        input.push_str(&format!(
            "{{\"type\":\"new_{i:03}\",\"session_id\":\"s\"}}\n"
        ));
    }
    input.push_str("{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"\",\"session_id\":\"s\"}\n");
    let assert = cs(&["check"]).write_stdin(input.clone()).assert().code(0);
    let report = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    assert!(
        report.contains("new_099 ×2, 100 more of other types"),
        "{report}"
    );
    assert!(!report.contains("new_100"), "{report}");

    let assert = cs(&["check", "--json"]).write_stdin(input).assert().code(0);
    let summary = values(&assert.get_output().stdout).pop().unwrap();
    assert_eq!(summary["unknown_types"].as_object().unwrap().len(), 100);
    assert_eq!(summary["unknown_types"]["new_000"], 2);
    assert_eq!(summary["unknown_types_not_listed"], 100);
}

#[test]
fn check_on_the_messy_fixtures() {
    let (code, stdout, _) = output(&["check"], &fixture("non-json.ndjson"));
    assert_eq!(code, 1);
    let report = String::from_utf8(stdout).unwrap();
    assert_eq!(report.matches(": malformed_line: ").count(), 5, "{report}");
    assert!(
        report.contains("non-json.ndjson:5: malformed_line: not JSON"),
        "{report}"
    );
}

#[test]
fn tee_keeps_the_raw_input_whatever_the_view_shows() {
    let dir = tempfile::tempdir().unwrap();
    for view in ["text", "result", "tools", "stats"] {
        let copy = dir.path().join(format!("{view}.ndjson"));
        let input = std::fs::read(fixture("crlf.ndjson")).unwrap();
        cs(&[view, "--tee"])
            .arg(&copy)
            .write_stdin(input.clone())
            .assert()
            .success();
        assert_eq!(std::fs::read(&copy).unwrap(), input, "{view}");
    }
    let copy = dir.path().join("files.ndjson");
    cs(&["text", "--tee"])
        .arg(&copy)
        .arg(fixture("partial.ndjson"))
        .arg(fixture("non-json.ndjson"))
        .assert()
        .code(0);
    let mut both = std::fs::read(fixture("partial.ndjson")).unwrap();
    both.extend(std::fs::read(fixture("non-json.ndjson")).unwrap());
    assert_eq!(std::fs::read(&copy).unwrap(), both);
    cs(&["text", "--tee", "/no/such/dir/x.ndjson"])
        .arg(fixture("partial.ndjson"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("cannot create the --tee file"));
}

/// A view must read the event, not the peek: `subtype` after `timestamp_ms` is still the
/// subtype (this counted one phase instead of two on the fast path).
#[test]
fn stats_counts_thinking_phases_whatever_the_key_order() {
    for reference in [false, true] {
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(["stats", "--json"])
            .arg(fixture("thinking-reordered.ndjson"));
        if reference {
            cmd.env("CURSOR_STREAM_REFERENCE", "1");
        }
        let out = cmd.output().unwrap();
        let rows = values(&out.stdout);
        assert_eq!(rows[0]["thinking_phases"], 2, "reference path: {reference}");
    }
}

fn agent_fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents")
        .join(path)
}

/// `events` and `get` know no format: `--type` is the agent's own name; `--tool` asks the
/// run's dialect which lines start or end a call of the tool (Claude's `tool_result` lines
/// name no tool: the dialect paired them with their `tool_use`).
#[test]
fn events_and_get_take_every_agents_own_names() {
    let codex = agent_fixture("codex/multi-message.ndjson");
    let (code, ours, _) = output(&["events", "--type", "item.completed"], &codex);
    assert_eq!(code, 0);
    if let Some((_, theirs)) = jq(&["-c", r#"select(.type=="item.completed")"#], &codex) {
        assert_eq!(values(&ours), values(&theirs));
    }
    let (_, texts, _) = output(
        &[
            "get",
            "-r",
            ".item.text",
            "--type",
            "item.completed",
            "--tool",
            "command_execution",
            "-v",
        ],
        &codex,
    );
    assert!(!texts.is_empty());

    let claude = agent_fixture("claude/parallel-out-of-order.ndjson");
    let (code, ours, _) = output(&["events", "--tool", "bash"], &claude);
    assert_eq!(code, 0);
    let expected: Vec<Value> = std::fs::read_to_string(&claude)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| {
            let blocks = v["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let bash_ids: Vec<String> = std::fs::read_to_string(&claude)
                .unwrap()
                .lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .flat_map(|v| {
                    v["message"]["content"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                })
                .filter(|b| b["type"] == "tool_use" && b["name"] == "Bash")
                .map(|b| b["id"].as_str().unwrap().to_string())
                .collect();
            blocks.iter().any(|b| {
                (b["type"] == "tool_use" && b["name"] == "Bash")
                    || (b["type"] == "tool_result"
                        && bash_ids.iter().any(|id| b["tool_use_id"] == id.as_str()))
            })
        })
        .collect();
    assert!(!expected.is_empty(), "the fixture has Bash calls");
    assert_eq!(values(&ours), expected);

    // Gemini puts its session id on `init` only: the run's id selects its other lines.
    let gemini = agent_fixture("gemini/tool-use-deltas.ndjson");
    let count = |session: &str| {
        let (_, out, _) = output(
            &["events", "-c", "--type", "message", "--session", session],
            &gemini,
        );
        String::from_utf8(out).unwrap()
    };
    let (_, all, _) = output(&["events", "-c", "--type", "message"], &gemini);
    assert_ne!(String::from_utf8(all.clone()).unwrap(), "0\n");
    assert_eq!(count("f3dc9edc"), String::from_utf8(all).unwrap());
    assert_eq!(count("0000"), "0\n");
}

/// A log cut at the front (rotation) has no `system/init`, but every later event carries the
/// session id: the run's row takes it from the first event that has one, for every agent
/// that repeats it.
#[test]
fn stats_takes_the_session_id_from_later_events_when_the_start_is_cut() {
    let cursor = [
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"session_id":"s-cut"}"#,
        r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]},"session_id":"s-cut"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"s-cut"}"#,
    ];
    let claude = [
        r#"{"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Hello"}]},"session_id":"c-cut"}"#,
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"c-cut"}"#,
    ];
    for (agent, lines, id) in [
        ("cursor", &cursor[..], "s-cut"),
        ("cursor", &cursor[1..], "s-cut"),
        ("claude", &claude[..], "c-cut"),
    ] {
        let input = lines.join("\n") + "\n";
        let assert = cs(&["stats", "--json", "--agent", agent])
            .write_stdin(input.clone())
            .assert()
            .code(0);
        let rows = values(&assert.get_output().stdout);
        assert_eq!(rows.len(), 1, "{agent}: {input}");
        assert_eq!(rows[0]["session_id"], id, "{agent}: {input}");
    }

    // OpenCode has no init line: the run was opened by a content line before its session
    // was known, and the session's first id must not start a second run.
    let whole = std::fs::read_to_string(agent_fixture("opencode/multi-step-stop.ndjson")).unwrap();
    for skip in [1, 2] {
        let cut: String = whole.split_inclusive('\n').skip(skip).collect();
        let assert = cs(&["stats", "--json"]).write_stdin(cut).assert().code(0);
        let rows = values(&assert.get_output().stdout);
        assert_eq!(rows.len(), 1, "cut {skip}: {rows:?}");
        assert_eq!(rows[0]["session_id"], "ses_9b7aab5abee0NT1mND8Tnh0T8y");
        assert_eq!(rows[0]["status"], "success");
    }
}

/// A view that lists no tools does not read tool lines (that is what makes Codex `text`
/// fast), so a tool line broken inside its content is not its concern; `check` and `tools`,
/// which read them, report it with its line number. The answer is whole either way.
#[test]
fn a_broken_tool_line_is_reported_by_the_views_that_read_tools() {
    let codex = "{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n\
        {\"type\":\"turn.started\"}\n\
        {\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"command_execution\",\"command\":\"ls\",\"aggregated_output\":\"a\\qb\",\"exit_code\":0,\"status\":\"completed\"}}\n\
        {\"type\":\"item.completed\",\"item\":{\"id\":\"item_1\",\"type\":\"agent_message\",\"text\":\"done\"}}\n\
        {\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":1,\"cached_input_tokens\":0,\"output_tokens\":1}}\n";
    let gemini = "{\"type\":\"init\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"session_id\":\"s1\",\"model\":\"gemini-2.5-pro\"}\n\
        {\"type\":\"tool_use\",\"timestamp\":\"2026-01-01T00:00:01.000Z\",\"tool_name\":\"list_directory\",\"tool_id\":\"t-1\",\"parameters\":{\"dir_path\":\"a\\qb\"}}\n\
        {\"type\":\"tool_result\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"tool_id\":\"t-1\",\"status\":\"success\",\"output\":\"x\"}\n\
        {\"type\":\"message\",\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"role\":\"assistant\",\"content\":\"done\",\"delta\":true}\n\
        {\"type\":\"result\",\"timestamp\":\"2026-01-01T00:00:04.000Z\",\"status\":\"success\",\"stats\":{\"total_tokens\":2,\"input_tokens\":1,\"output_tokens\":1,\"duration_ms\":4,\"tool_calls\":1}}\n";
    let dir = tempfile::tempdir().unwrap();
    for (agent, log, line) in [("codex", codex, 3), ("gemini", gemini, 2)] {
        let file = dir.path().join(format!("{agent}.ndjson"));
        std::fs::write(&file, log).unwrap();
        let at = format!("{agent}.ndjson:{line}:");

        let (code, out, err) = output(&["text"], &file);
        assert_eq!((code, out.as_slice()), (0, &b"done"[..]), "{agent}: {err}");
        assert!(err.is_empty(), "{agent}: text read a tool line: {err}");

        let (code, out, err) = output(&["check"], &file);
        let report = String::from_utf8_lossy(&out).into_owned() + &err;
        assert_eq!(code, 1, "{agent}: {report}");
        assert!(
            report.contains(&at) && report.contains("invalid escape"),
            "{agent}: {report}"
        );

        let (_, _, err) = output(&["tools"], &file);
        assert!(
            err.contains(&at) && err.contains("invalid escape"),
            "{agent}: {err}"
        );
    }
}

/// The lines between two runs belong to the run they come before: Claude's hooks before
/// its `init` carry its session id, and `--session` with that id, and `--last-session`,
/// take them; the run before does not.
#[test]
fn lines_between_runs_belong_to_the_run_they_start() {
    let log = agent_fixture("mixed/qwen-then-claude.ndjson");
    let text = std::fs::read_to_string(&log).unwrap();
    let with_id = |prefix: &str| {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .filter(|l| {
                serde_json::from_str::<Value>(l).unwrap()["session_id"]
                    .as_str()
                    .is_some_and(|id| id.starts_with(prefix))
            })
            .count()
    };
    let (qwen, claude) = ("2ad09af8", "6be1679f");
    for (id, reference) in [(qwen, "0"), (claude, "0"), (qwen, "1"), (claude, "1")] {
        let out = cs(&["events", "-c", "--session", id])
            .arg(&log)
            .env("CURSOR_STREAM_REFERENCE", reference)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{}\n", with_id(id)),
            "--session {id}"
        );
    }
    // Every line of the Claude run, from its first hook on (`--last-session` is the name
    // `--last-run` had).
    let (_, last, _) = output(&["events", "--last-session"], &log);
    let claude_run = std::fs::read(agent_fixture("claude/hooks-before-init.ndjson")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&last),
        String::from_utf8_lossy(&claude_run)
    );
    // The last run with none of the lines asked for gives none, not the run before's.
    let dir = tempfile::tempdir().unwrap();
    let claude_then_qwen = dir.path().join("claude-then-qwen.ndjson");
    let qwen_run = std::fs::read(agent_fixture("qwen/plain.ndjson")).unwrap();
    std::fs::write(&claude_then_qwen, [claude_run, qwen_run].concat()).unwrap();
    let asked = ["events", "--last-run", "--type", "rate_limit_event"];
    let (_, last, _) = output(&asked, &claude_then_qwen);
    assert_eq!(String::from_utf8_lossy(&last), "");
    let (_, last, _) = output(&asked, &log);
    assert_eq!(String::from_utf8_lossy(&last).lines().count(), 1);
}

//! `get` speaks jq: jq's own test suite through it, the inputs a jq user expects (every
//! JSON value on a line), jq's options and exit statuses, `$run` and `$line`, and the
//! shortcuts (paths, the `select` read off the peek) giving the engine's bytes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

/// What `get` must pass of `../shared/jq-tests/run.py` (jq 1.6 passes 383, the jaq binary
/// 3.1.2 366).
/// `get` reached 462 when this was written (402 before its values followed jq's: `jv.rs`;
/// 439 before jq 1.8's words for operators, iteration, indexing, `trim`, `toboolean` and
/// negative counts, dates and `ltrimstr`/`rtrimstr` as 1.8);
/// the test asserts it does not fall back, one test of slack for a loaded machine's 5 s
/// timeout.
const JQ_SUITE_GOAL: u64 = 503;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn get(args: &[&str], stdin: &[u8]) -> Output {
    get_with_env(args, stdin, &[])
}

/// `get ARGS` with `stdin` piped in and the variables of `env` set.
fn get_with_env(args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .arg("get")
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CURSOR_STREAM_REFERENCE")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn jqs_own_suite_passes_at_least_what_jq_1_6_passes() {
    let runner = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/jq-tests/run.py");
    if !runner.exists() {
        return prerequisite::missing("../shared/jq-tests is not here");
    }
    let out = Command::new("python3")
        .arg(&runner)
        .args(["--bin", BIN, "--json", "--min", &JQ_SUITE_GOAL.to_string()])
        .output();
    let Ok(out) = out else {
        return prerequisite::missing("python3 is not installed");
    };
    let stdout = text(&out.stdout);
    let summary = stdout
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .unwrap_or_else(|| panic!("no summary from run.py: {stdout}{}", text(&out.stderr)));
    let summary: serde_json::Value = serde_json::from_str(summary).unwrap();
    let passed = summary["passed"].as_u64().unwrap();
    assert!(
        passed >= JQ_SUITE_GOAL,
        "jq's suite through get: {passed}/{} (goal {JQ_SUITE_GOAL}); failures {}",
        summary["total"],
        summary["failures"]
    );
    // No crash: a program that builds a value 10,000 levels deep runs on the large stack.
    assert!(
        summary["failures"].get("crash").is_none(),
        "{}",
        summary["failures"]
    );
}

#[test]
fn every_json_value_on_a_line_is_an_input() {
    let input = b"{\"a\":1}\n[1,2] \"x\"\n3\n\n{\"type\":\"t\",\"a\":[true]}\nnull\n";
    let out = get(&["-c", "[$line, .]"], input);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "[1,{\"a\":1}]\n[2,[1,2]]\n[2,\"x\"]\n[3,3]\n[5,{\"type\":\"t\",\"a\":[true]}]\n[6,null]\n"
    );
    assert_eq!(text(&out.stderr), "");
    // With an event filter, only the events that pass are inputs.
    let out = get(&["--type", "t", ".a"], input);
    assert_eq!(text(&out.stdout), "[true]\n");
}

#[test]
fn a_line_that_is_not_json_is_reported_and_the_rest_goes_on() {
    let out = get(&["-c", "."], b"{\"a\":1}\nnot json\n{\"b\":2}\n");
    assert_eq!(text(&out.stdout), "{\"a\":1}\n{\"b\":2}\n");
    assert!(
        text(&out.stderr).contains("<stdin>:2: not JSON"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn options_as_jq() {
    let input = b"{\"b\":[1,\"x\\ty\"],\"a\":null}\n";
    let cases: &[(&[&str], &str)] = &[
        (&["."], "{\"b\":[1,\"x\\ty\"],\"a\":null}\n"),
        (&["-c", "-S", "."], "{\"a\":null,\"b\":[1,\"x\\ty\"]}\n"),
        (&["--indent", "1", ".b"], "[\n 1,\n \"x\\ty\"\n]\n"),
        (&["--tab", "{a}"], "{\n\t\"a\": null\n}\n"),
        (&["-r", ".b[1], .a"], "x\ty\nnull\n"),
        (&["-j", ".b[]"], "1x\ty"),
        (
            &[
                "--arg",
                "k",
                "b",
                "--argjson",
                "n",
                "{\"m\":0}",
                ".[$k][0], $n.m",
            ],
            "1\n0\n",
        ),
        (&["-n", "[1,2] | add"], "3\n"),
        (
            &["-n", "--args", "$ARGS.positional", "p", "q"],
            "[\"p\",\"q\"]\n",
        ),
        (
            &["-n", "--jsonargs", "$ARGS.positional", "1", "{}"],
            "[1,{}]\n",
        ),
        (
            &["-n", "$ENV.CS_TEST_VAR, env.CS_TEST_VAR"],
            "\"v\"\n\"v\"\n",
        ),
    ];
    for (args, want) in cases {
        let out = get_with_env(args, input, &[("CS_TEST_VAR", "v")]);
        assert_eq!(text(&out.stdout), *want, "{args:?}: {}", text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

#[test]
fn rawfile_and_slurpfile_read_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("raw.txt");
    let values = dir.path().join("values.json");
    std::fs::write(&raw, "line\n").unwrap();
    std::fs::write(&values, "1 [2]\n{\"x\":3}").unwrap();
    let out = get(
        &[
            "-n",
            "--rawfile",
            "r",
            raw.to_str().unwrap(),
            "--slurpfile",
            "s",
            values.to_str().unwrap(),
            "[$r, $s]",
        ],
        b"",
    );
    assert_eq!(text(&out.stdout), "[\"line\\n\",[1,[2],{\"x\":3}]]\n");
    let out = get(&["-n", "--rawfile", "r", "/nonexistent/file", "$r"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--rawfile r: /nonexistent/file"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn exit_statuses_as_jq() {
    let input = b"{\"a\":1}\n{\"a\":\"s\"}\n{\"a\":2}\n";
    // A runtime error names the input's line, the next input goes on, the status is 5.
    let out = get(&[".a + 1"], input);
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(text(&out.stdout), "2\n3\n");
    assert!(
        text(&out.stderr)
            .contains(r#"<stdin>:2: jq error: string ("s") and number (1) cannot be added"#),
        "{}",
        text(&out.stderr)
    );
    // -e: 1 when the last value is false or null, 4 when there was none.
    assert_eq!(get(&["-e", ".a == 2"], input).status.code(), Some(0));
    assert_eq!(get(&["-e", ".a == 1"], input).status.code(), Some(1));
    assert_eq!(get(&["-e", "empty"], input).status.code(), Some(4));
    // halt_error: its status, its message on stderr, what came before written.
    let out = get(
        &["if .a == 2 then \"stop\\n\" | halt_error(3) else .a end"],
        input,
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(text(&out.stdout), "1\n\"s\"\n");
    assert!(text(&out.stderr).contains("stop"), "{}", text(&out.stderr));
    // A program that does not compile: 2, where and why, nothing read.
    let out = get(&["{a: .b | nope(1)}"], input);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    let err = text(&out.stderr);
    assert!(
        err.contains("invalid program at line 1, column 10: undefined function `nope/1`")
            && err.contains("  {a: .b | nope(1)}\n           ^"),
        "{err}"
    );
}

#[test]
fn run_and_line_say_where_each_value_came_from() {
    let claude = fixture("agents/mixed/qwen-then-claude.ndjson");
    let cursor = fixture("two-runs.ndjson");
    let out = Command::new(BIN)
        .args(["get", "-r", "select(.type == \"result\") | [$run.agent, $run.index, $line, ($run.file | split(\"/\") | last), $run.session_id[:4]] | @tsv"])
        .arg(&claude)
        .arg(&cursor)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = text(&out.stdout);
    let rows: Vec<&str> = rows.lines().collect();
    assert_eq!(rows.len(), 4, "{rows:?}");
    assert!(rows[0].starts_with("qwen\t0\t"), "{rows:?}");
    assert!(rows[1].starts_with("claude\t1\t"), "{rows:?}");
    assert!(
        rows[2].starts_with("cursor\t0\t") && rows[2].contains("two-runs.ndjson"),
        "{rows:?}"
    );
    assert!(rows[3].starts_with("cursor\t1\t"), "{rows:?}");
    // A user's --arg run wins; input_filename still reads the file.
    let out = Command::new(BIN)
        .args([
            "get",
            "-r",
            "--arg",
            "run",
            "mine",
            "select(.type == \"result\") | $run, (input_filename | split(\"/\") | last)",
        ])
        .arg(&cursor)
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "mine\ntwo-runs.ndjson\nmine\ntwo-runs.ndjson\n"
    );
}

#[test]
fn slurp_gathers_each_run() {
    let out = Command::new(BIN)
        .args(["get", "-s", "-c", "[length, (map(.type) | unique)]"])
        .arg(fixture("two-runs.ndjson"))
        .output()
        .unwrap();
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines
            .iter()
            .all(|l| l.contains("\"result\"") && l.contains("\"system\"")),
        "{lines:?}"
    );
    // Outside any run, one array of everything.
    let out = get(&["-s", "-c", "."], b"1\n[2]\n{\"a\":3}\n");
    assert_eq!(text(&out.stdout), "[1,[2],{\"a\":3}]\n");
}

#[test]
fn normalized_programs_read_one_schema_for_every_agent() {
    let dir = fixture("agents");
    let mut files = Vec::new();
    for agent in ["cursor", "claude", "codex", "gemini", "qwen", "opencode"] {
        let mut names: Vec<PathBuf> = std::fs::read_dir(dir.join(agent))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ndjson" || e == "jsonl"))
            .collect();
        names.sort();
        files.push(names.remove(0));
    }
    let out = Command::new(BIN)
        .args([
            "get",
            "--normalized",
            "-r",
            "select(.event == \"run_start\") | [$run.agent, .agent] | @tsv",
        ])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "cursor\tcursor\nclaude\tclaude\ncodex\tcodex\ngemini\tgemini\nqwen\tqwen\nopencode\topencode\n",
        "{}",
        text(&out.stderr)
    );
    let out = Command::new(BIN)
        .args([
            "get",
            "--normalized",
            "-s",
            "-c",
            "[.[0].event, .[-1].event, .[-1].outcome]",
        ])
        .arg(fixture("failed.ndjson"))
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "[\"run_start\",\"run_end\",\"failure\"]\n",
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_hostile_line_nested_too_deep_is_refused_not_a_crash() {
    let mut line = Vec::new();
    line.extend(std::iter::repeat_n(b'[', 200_000));
    line.extend(std::iter::repeat_n(b']', 200_000));
    line.push(b'\n');
    line.extend_from_slice(b"{\"ok\":1}\n");
    let out = get(&["-c", ".ok"], &line);
    assert_eq!(text(&out.stdout), "1\n");
    assert!(
        text(&out.stderr).contains("<stdin>:1: "),
        "{}",
        text(&out.stderr)
    );
    // An event line as deep: the engine's reader refuses it before it could overflow.
    let mut line = b"{\"type\":\"t\",\"v\":".to_vec();
    line.extend(std::iter::repeat_n(b'[', 200_000));
    line.extend(std::iter::repeat_n(b']', 200_000));
    line.extend_from_slice(b"}\n{\"type\":\"t\",\"ok\":1}\n");
    let out = get(&["-c", ".ok | values"], &line);
    assert_eq!(text(&out.stdout), "1\n");
    assert!(
        text(&out.stderr).contains("nested deeper than 100000 levels"),
        "{}",
        text(&out.stderr)
    );
    // Deep but within the limit: read by the engine and written back whole, one level
    // deeper (jq stops at 10,000 levels). `[.]` is linear in the depth, and is not a path
    // program, so the raw-text walk does not take it.
    let deep = |levels| {
        let mut text = "[".repeat(levels);
        text.push_str(&"]".repeat(levels));
        text
    };
    let out = get(&["-c", "[.]"], format!("{}\n", deep(20_000)).as_bytes());
    assert_eq!(
        text(&out.stdout),
        format!("{}\n", deep(20_001)),
        "{}",
        text(&out.stderr)
    );
}

/// The shortcuts must give the engine's bytes: each program is run as shipped and with
/// `CURSOR_STREAM_REFERENCE=1` (the engine alone), over every fixture, and against jq.
#[test]
fn the_shortcuts_give_what_the_engine_and_jq_give() {
    let mut files = Vec::new();
    let fixtures = fixture("");
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "ndjson") {
            files.push(p);
        }
    }
    files.sort();
    let programs = [
        r#"select(.type=="tool_call") | .call_id"#,
        r#"select(.type == "tool_call" and .subtype == "completed") | .tool_call"#,
        r#"select(.type == "assistant" or (.type | IN("user", "result")))"#,
        r#"select(.subtype != "delta") | .type, .session_id"#,
        ".type, .message.content[0]?",
        ".message.content[].text",
    ];
    let jq = Command::new("jq").arg("--version").output().is_ok();
    for program in programs {
        for file in &files {
            let run = |reference: bool| {
                let mut cmd = Command::new(BIN);
                cmd.args(["get", "-c", program]).arg(file);
                if reference {
                    cmd.env("CURSOR_STREAM_REFERENCE", "1");
                } else {
                    cmd.env_remove("CURSOR_STREAM_REFERENCE");
                }
                cmd.output().unwrap()
            };
            let (fast, engine) = (run(false), run(true));
            let what = format!("{program} over {}", file.display());
            assert_eq!(fast.status.code(), engine.status.code(), "{what}");
            let (fast_err, engine_err) = (text(&fast.stderr), text(&engine.stderr));
            if engine_err.contains("not JSON") {
                // A line jaq's reader refuses (a lone UTF-16 surrogate): the peek's test
                // never reads a line it rejects, and the walk reads raw text. What the
                // shortcuts report, the engine reports too.
                assert!(
                    fast_err.lines().all(|l| engine_err.contains(l)),
                    "{what}: {fast_err}"
                );
                continue;
            }
            assert_eq!(text(&fast.stdout), text(&engine.stdout), "{what}");
            assert_eq!(fast_err, engine_err, "{what}");
            // jq reads files whose every line is JSON; it stops at the first that is not.
            if jq && engine.stderr.is_empty() {
                let want = Command::new("jq")
                    .args(["-c", program])
                    .arg(file)
                    .output()
                    .unwrap();
                if want.status.success() {
                    assert_eq!(text(&fast.stdout), text(&want.stdout), "{what}, against jq");
                }
            }
        }
    }
    if !jq {
        prerequisite::missing("jq is not installed: the comparison with jq was skipped");
    }
}

/// The `select` read off the peek decides a line only where the peek saw it as the engine
/// reads it: the engine reads the last of a repeated `type` or `subtype` and every value of
/// a line, the peek the first. (The outputs are jq 1.6's and 1.8's.)
#[test]
fn the_prefilter_decides_as_the_engine_on_repeated_keys_and_several_values() {
    let input = concat!(
        r#"{"type":"a","x":1,"type":"b"}"#,
        "\n",
        r#"{"type":"a","subtype":"s","subtype":"u"}"#,
        "\n",
        r#"{"type":"b"} {"type":"a","x":2}"#,
        "\n",
        r#"{"type":"c","m":{"type":"a"},"x":3}"#,
        "\n",
    );
    let cases = [
        (
            r#"select(.type=="b")"#,
            "{\"type\":\"b\",\"x\":1}\n{\"type\":\"b\"}\n",
        ),
        (
            r#"select(.type=="a")"#,
            "{\"type\":\"a\",\"subtype\":\"u\"}\n{\"type\":\"a\",\"x\":2}\n",
        ),
        (r#"select(.type=="a") | .x"#, "null\n2\n"),
        (r#"select(.type!="b") | .x"#, "null\n2\n3\n"),
        (r#"select(.subtype=="s")"#, ""),
        (r#"select(.type=="a" and .subtype=="u") | .type"#, "\"a\"\n"),
    ];
    for (program, want) in cases {
        let fast = get(&["-c", program], input.as_bytes());
        let engine = get_with_env(
            &["-c", program],
            input.as_bytes(),
            &[("CURSOR_STREAM_REFERENCE", "1")],
        );
        assert_eq!(
            text(&fast.stdout),
            want,
            "{program}: {}",
            text(&fast.stderr)
        );
        assert_eq!(text(&engine.stdout), want, "{program}, reference");
        assert_eq!(fast.status.code(), Some(0), "{program}");
    }
}

/// The raw-text walk (a program of paths) writes the engine's bytes whatever the escapes in
/// the line's strings: `\/` as `/`, a raw DEL as `\u007f`, `\u` escapes written out.
#[test]
fn the_raw_walk_writes_the_engine_bytes() {
    let input = concat!(
        r#"{"s":"a\/b","t":"\u007f","u":"\u001B\u00e9\n","k":{"\/":1}}"#,
        "\n",
        "{\"t\":\"\x7f\",\"\x7f\":[\"x\\/\"],\"n\":[1.0,1E2]}\n",
    );
    for args in [
        &["-c", ".s, .t, .u, .k"][..],
        &["-c", "."],
        &["-c", ".[]"],
        &["-r", ".s, .t, .u"],
    ] {
        let fast = get(args, input.as_bytes());
        let engine = get_with_env(args, input.as_bytes(), &[("CURSOR_STREAM_REFERENCE", "1")]);
        assert_eq!(
            fast.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&fast.stderr)
        );
        assert_eq!(
            text(&fast.stdout),
            text(&engine.stdout),
            "{args:?}: {}",
            text(&engine.stderr)
        );
    }
    let out = get(&["-c", ".s, .t"], input.as_bytes());
    assert_eq!(
        text(&out.stdout),
        "\"a/b\"\n\"\\u007f\"\nnull\n\"\\u007f\"\n"
    );
}

/// `get -n -c PROGRAM`: its output, and its warnings.
fn run_null(args: &[&str]) -> (String, String) {
    let mut all = vec!["-n", "-c"];
    all.extend_from_slice(args);
    let out = get(&all, b"");
    (text(&out.stdout), text(&out.stderr))
}

/// Each program's output as jq 1.6 and 1.8 give it.
fn assert_as_jq(cases: &[(&str, &str)]) {
    for (program, want) in cases {
        let (out, err) = run_null(&[program]);
        assert_eq!(out, format!("{want}\n"), "{program}: {err}");
    }
}

/// Each program fails with jq's message.
fn assert_fails_as_jq(cases: &[(&str, &str)]) {
    for (program, message) in cases {
        let (out, err) = run_null(&[program]);
        assert_eq!(out, "", "{program}");
        assert!(
            err.contains(&format!("jq error: {message}\n")),
            "{program}: {err}"
        );
    }
}

/// An assignment or update through a missing key makes the objects and arrays, as jq's
/// `setpath`; a slice of `null` is `null`.
#[test]
fn assignments_through_null_make_the_objects_and_arrays() {
    assert_as_jq(&[
        ("{} | .a.b = 1", r#"{"a":{"b":1}}"#),
        ("null | .a = 1", r#"{"a":1}"#),
        (r#"{"x":1} | .y.z = 2"#, r#"{"x":1,"y":{"z":2}}"#),
        ("{} | .a[0] = 1", r#"{"a":[1]}"#),
        ("{} | .a.b += 1", r#"{"a":{"b":1}}"#),
        ("{} | .a.b //= 3", r#"{"a":{"b":3}}"#),
        ("{} | .a.b |= 4", r#"{"a":{"b":4}}"#),
        (r#"null | getpath(["a","b"]) |= 1"#, r#"{"a":{"b":1}}"#),
        (
            "null | .a.b.c[2].d = 1",
            r#"{"a":{"b":{"c":[null,null,{"d":1}]}}}"#,
        ),
        ("[1] | .[3] = 1", "[1,null,null,1]"),
        ("null | .[1:2]", "null"),
        (r#"{"t":null} | .t[:3]"#, "null"),
        (r#"null | .[1:2] = ["x"]"#, r#"["x"]"#),
        (r#"{"a":1,"b":2,"c":3} | .a |= empty"#, r#"{"b":2,"c":3}"#),
        ("reduce range(3) as $i (null; .[$i] = $i)", "[0,1,2]"),
    ]);
    assert_fails_as_jq(&[
        ("[1,2,3] | .[-5] = 1", "Out of bounds negative array index"),
        ("{} | .[0] = 1", "Cannot index object with number (0)"),
    ]);
}

/// What `get` writes is JSON, as jq's: a division by zero is an error, NaN is `null`, an
/// infinity the largest double, `pick` makes arrays, a string's invalid UTF-8 is U+FFFD.
#[test]
fn the_output_is_json_as_jq_writes_it() {
    assert_as_jq(&[
        (
            "[nan, infinite, -infinite]",
            "[null,1.7976931348623157e+308,-1.7976931348623157e+308]",
        ),
        (
            "[nan, infinite] | tojson",
            r#""[null,1.7976931348623157e+308]""#,
        ),
        (
            "[1e1000 % 3, (nan|isnan), (infinite|isinfinite)]",
            "[1,true,true]",
        ),
        ("[1,2] | pick(.[1])", "[null,2]"),
        (
            r#"{"a":[1,2]} | pick(.a[1], .b)"#,
            r#"{"a":[null,2],"b":null}"#,
        ),
    ]);
    assert_fails_as_jq(&[
        (
            "[1][0] / 0",
            "number (1) and number (0) cannot be divided because the divisor is zero",
        ),
        (
            "1 % 0",
            "number (1) and number (0) cannot be divided (remainder) because the divisor is zero",
        ),
        ("1 as $k | {($k): 2}", "Cannot use number (1) as object key"),
    ]);
    let out = get(&["-c", ".a / .b"], b"{\"a\":1,\"b\":0}\n");
    assert_eq!(text(&out.stdout), "");
    assert_eq!(out.status.code(), Some(5));
    let out = get(
        &["-c", ".s, (.s | explode), keys"],
        b"{\"s\":\"bad \xff\xfe!\",\"k\xe9\":1}\n",
    );
    assert_eq!(
        text(&out.stdout),
        "\"bad \u{fffd}\u{fffd}!\"\n[98,97,100,32,65533,65533,33]\n[\"k\u{fffd}\",\"s\"]\n"
    );
    assert!(std::str::from_utf8(&out.stdout).is_ok());
}

/// Numbers are written as jq writes them: a whole float without `.0`, `-0` kept; `%` on
/// integers.
#[test]
fn numbers_are_written_as_jq_writes_them() {
    assert_as_jq(&[
        (
            r#"[10/5, ([1,2,3]|add/length), (100|sqrt), ({"a":2}|.a /= 2), (5.5 % 2)]"#,
            r#"[2,2,10,{"a":1},1]"#,
        ),
        (
            "[1e15*1.0, 1e17*1.0, 0.00001*1, 1/3, 123456789012345678*1.0, -0.5*0]",
            "[1000000000000000,1e+17,1e-05,0.3333333333333333,123456789012345680,-0]",
        ),
        ("[-5.5 % 2, 5 % -2, (nan % 1 | isnan)]", "[-1,1,true]"),
        (r#""\(4/2) \(1/4)""#, r#""2 0.25""#),
    ]);
    // Numbers read are written as they were, `-0` too (jq 1.6 and 1.8 alike).
    let out = get(&["-c", "[., -., . + 0]"], b"-0\n");
    assert_eq!(text(&out.stdout), "[-0,0,0]\n");
    let out = get(&["-c", "."], b"[-0,1.0,1E2]\n");
    assert_eq!(text(&out.stdout), "[-0,1.0,1E2]\n");
    // On a line of several values too (read by another reader, which lost it).
    let out = get(&["-c", "[.x]"], b"{\"x\":-0} {\"x\":-0}\n");
    assert_eq!(text(&out.stdout), "[-0]\n[-0]\n");
    let out = get_with_env(
        &["-c", "."],
        b"[-0,1.0,1E2]\n",
        &[("CURSOR_STREAM_REFERENCE", "1")],
    );
    assert_eq!(text(&out.stdout), "[-0,1.0,1E2]\n");
}

/// Builtins and flags as jq has them (jq 1.8 where 1.6 differs).
#[test]
fn builtins_and_flags_as_jq() {
    assert_as_jq(&[
        (r#""YQ" | @base64d"#, r#""a""#),
        (
            r#""YWJj" | @base64d, ("/w==" | @base64d | explode)"#,
            "\"abc\"\n[65533]",
        ),
        ("1425599507.9 | todate", r#""2015-03-05T23:51:47Z""#),
        ("(-1.5) | todate", r#""1969-12-31T23:59:59Z""#),
        (
            "[-1, 55296, 1114112, 65.9] | implode | explode",
            "[65533,65533,65533,65]",
        ),
        (
            r#"[" 1", "0x10", "nan", "+1", ".5", "5."] | map(try tonumber catch "E")"#,
            r#"["E","E",null,1,0.5,5]"#,
        ),
        ("input_filename", "null"),
    ]);
    assert_fails_as_jq(&[
        (
            r#""1 2" | fromjson"#,
            "Unexpected extra JSON values (while parsing '1 2')",
        ),
        (
            r#""0x10" | tonumber"#,
            r#"string ("0x10") cannot be parsed as a number"#,
        ),
        (
            r#"{"a":1} | getpath([0])"#,
            "Cannot index object with number (0)",
        ),
        (
            r#""Y" | @base64d"#,
            r#"string ("Y") trailing base64 byte found"#,
        ),
    ]);
    // The first of a variable given twice, as jq's (1.6 and 1.8).
    let (out, _) = run_null(&["--arg", "x", "1", "--arg", "x", "2", "[$x, $ARGS.named.x]"]);
    assert_eq!(out, "[\"1\",\"1\"]\n");
}

/// `jq ARGS` on `stdin`, when jq is installed.
fn jq_bytes(args: &[&str], stdin: &[u8]) -> Option<Vec<u8>> {
    use std::io::Write;
    let mut child = Command::new("jq")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    Some(child.wait_with_output().unwrap().stdout)
}

#[test]
fn from_file_ascii_and_seq_write_as_jq() {
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("p.jq");
    std::fs::write(&program, "# each line's type\n.type, .a # and a\n").unwrap();
    let program = program.to_str().unwrap();
    let input = "{\"type\":\"x\",\"a\":\"é😀\"}\n{\"type\":\"y\"}\n".as_bytes();
    let cases: [&[&str]; 7] = [
        &["-c", "-f", program],
        &["-c", "-a", "."],
        &["-r", "-a", ".a"],
        &["-j", "-a", ".a"],
        &["-r", "--ascii-output", ".type"],
        &["-c", "--seq", "."],
        &["-c", "--seq", "-a", "-n", "\"é\", [1]"],
    ];
    let expected: [&[u8]; 7] = [
        "\"x\"\n\"é😀\"\n\"y\"\nnull\n".as_bytes(),
        b"{\"type\":\"x\",\"a\":\"\\u00e9\\ud83d\\ude00\"}\n{\"type\":\"y\"}\n",
        b"\"\\u00e9\\ud83d\\ude00\"\nnull\n",
        b"\"\\u00e9\\ud83d\\ude00\"null",
        b"\"x\"\n\"y\"\n",
        "\x1e{\"type\":\"x\",\"a\":\"é😀\"}\n\x1e{\"type\":\"y\"}\n".as_bytes(),
        b"\x1e\"\\u00e9\"\n\x1e[1]\n",
    ];
    let have_jq = Command::new("jq").arg("--version").output().is_ok();
    for (args, want) in cases.iter().zip(expected) {
        let out = get(args, input);
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), text(want), "{args:?}");
        // jq writes the same bytes. Not compared: --seq on input (jq then reads
        // RS-separated input), and -r or -j with -a, where jq 1.6 (Debian's, CI's) aborts
        // in malloc; 1.7 and 1.8 write the string as JSON, as expected here.
        let ascii = args.contains(&"-a") || args.contains(&"--ascii-output");
        let raw_ascii = ascii && (args.contains(&"-r") || args.contains(&"-j"));
        let seq_input = args.contains(&"--seq") && !args.contains(&"-n");
        if have_jq && !raw_ascii && !seq_input {
            let jq = jq_bytes(args, input).unwrap();
            assert_eq!(text(&out.stdout), text(&jq), "{args:?} against jq");
        }
    }
    if !have_jq {
        prerequisite::missing("jq is not installed");
    }
}

#[test]
fn raw_output0_ends_each_value_with_a_nul_and_refuses_a_nul_inside() {
    let out = get(&["-n", "--raw-output0", r#""a", 1, "b""#], b"");
    assert!(out.status.success());
    assert_eq!(out.stdout, b"a\x001\x00b\x00");
    let out = get(&["-n", "--raw-output0", r#""a\u0000b""#], b"");
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("Cannot dump a string containing NUL with --raw-output0 option"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn slurp_all_is_jq_s_slurp_over_every_file() {
    let files = [
        fixture("two-runs.ndjson"),
        fixture("../../examples/session.ndjson"),
    ];
    let program = "[length, (map(.type) | unique)]";
    let mut cmd = Command::new(BIN);
    cmd.args(["get", "-c", "--slurp-all", program]).args(&files);
    let ours = cmd.output().unwrap();
    assert!(ours.status.success(), "{}", text(&ours.stderr));
    // Per run with -s: one array per run, so more than one value here.
    let mut per_run = Command::new(BIN);
    per_run.args(["get", "-c", "-s", "length"]).args(&files);
    assert!(text(&per_run.output().unwrap().stdout).lines().count() > 1);
    match Command::new("jq")
        .args(["-c", "-s", program])
        .args(&files)
        .output()
    {
        Ok(jq) => assert_eq!(text(&ours.stdout), text(&jq.stdout)),
        Err(_) => prerequisite::missing("jq is not installed"),
    }
}

#[test]
fn input_and_inputs_read_the_next_inputs_as_jq() {
    let files = [
        fixture("two-runs.ndjson"),
        fixture("../../examples/session.ndjson"),
    ];
    let cases: [&[&str]; 4] = [
        &["-n", "reduce inputs as $e (0; . + 1)"],
        &[
            "-n",
            "[inputs | .type] | group_by(.) | map({(.[0]): length}) | add",
        ],
        &["[., input] | map(.type)"],
        &[
            "-n",
            "first(inputs | select(.type == \"result\")) | .subtype",
        ],
    ];
    let have_jq = Command::new("jq").arg("--version").output().is_ok();
    for args in cases {
        let mut cmd = Command::new(BIN);
        cmd.arg("get").arg("-c").args(args).args(&files);
        let ours = cmd.output().unwrap();
        assert!(ours.status.success(), "{args:?}: {}", text(&ours.stderr));
        assert!(!ours.stdout.is_empty(), "{args:?}");
        if have_jq {
            let jq = Command::new("jq")
                .arg("-c")
                .args(args)
                .args(&files)
                .output()
                .unwrap();
            assert_eq!(text(&ours.stdout), text(&jq.stdout), "{args:?}");
        }
    }
    if !have_jq {
        prerequisite::missing("jq is not installed");
    }
    // Nothing left to read: jq's error, status 5, what came before written.
    let out = get(&["-n", "input, input"], b"{\"type\":\"a\"}\n");
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(text(&out.stdout), "{\"type\":\"a\"}\n");
    assert!(text(&out.stderr).contains("<stdin>:1: jq error: No more inputs"));
    // With an event filter, the inputs are the matching events.
    let out = get(
        &["--type", "result", "-n", "[inputs | .subtype]"],
        &std::fs::read(fixture("two-runs.ndjson")).unwrap(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "[\"success\",\"success\"]\n");
}

#[test]
fn raw_input_reads_each_line_as_a_string_as_jq() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("lines.txt");
    // Text, an event, an empty line, invalid UTF-8, a last line without its newline.
    std::fs::write(&file, b"hello\n{\"type\":\"x\"}\n\nbad \xff byte\nlast").unwrap();
    let cases: [(&[&str], &[&str]); 3] = [
        (&["-R", "-c", "."], &["-R", "-c", "."]),
        (&["-R", "-c", "--slurp-all", "."], &["-R", "-c", "-s", "."]),
        (
            &["-R", "-n", "-c", "[inputs | length]"],
            &["-R", "-n", "-c", "[inputs | length]"],
        ),
    ];
    let want = [
        "\"hello\"\n\"{\\\"type\\\":\\\"x\\\"}\"\n\"\"\n\"bad \u{fffd} byte\"\n\"last\"\n",
        "\"hello\\n{\\\"type\\\":\\\"x\\\"}\\n\\nbad \u{fffd} byte\\nlast\"\n",
        "[5,12,0,10,4]\n",
    ];
    let have_jq = Command::new("jq").arg("--version").output().is_ok();
    for ((ours, theirs), want) in cases.iter().zip(want) {
        let out = Command::new(BIN)
            .arg("get")
            .args(*ours)
            .arg(&file)
            .output()
            .unwrap();
        assert!(out.status.success(), "{ours:?}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), want, "{ours:?}");
        if have_jq {
            let jq = Command::new("jq")
                .args(*theirs)
                .arg(&file)
                .output()
                .unwrap();
            assert_eq!(text(&out.stdout), text(&jq.stdout), "{ours:?} against jq");
        }
    }
    if !have_jq {
        prerequisite::missing("jq is not installed");
    }
}

/// jq syntax jaq's parser does not read: destructuring alternatives (`?//`), `{$name:
/// pattern}`, `reduce`/`foreach` over an expression, `.5`, `$__loc__`; each against jq 1.8's
/// output, and against jq where it is installed and has it.
#[test]
fn jq_syntax_jaq_does_not_read_runs_as_jq() {
    let cases = [
        (
            r#".[] | . as [$a, $b] ?// {a: $a} ?// $c | [$a, $b, $c]"#,
            "[1,2,null]\n[3,null,null]\n[null,null,\"x\"]\n",
        ),
        // The body's error sends to the next alternative; the last one's is the program's.
        (
            r#".[] | try (. as [$a] ?// $a | if ($a | type) != "number" then error("n") else $a end) catch "caught: \(.)""#,
            "1\n\"caught: n\"\n\"caught: n\"\n",
        ),
        (
            r#".[0] as {$a, $b: [$c]} ?// $d | [$a, $b, $c, $d]"#,
            "[null,null,null,[1,2]]\n",
        ),
        (
            r#"{"a": 1, "b": [2]} as {$a, $b: [$c]} | [$a, $b, $c]"#,
            "[1,[2],2]\n",
        ),
        // jq 1.7's (1.6 refuses them): compared with 1.8's output only.
        ("[reduce .[0][] / .[0][] as $i (0; . + $i)]", "[4.5]\n"),
        ("[.[0][] | select(. > .5)]", "[1,2]\n"),
        (
            "{$__loc__}, $__loc__",
            "{\"__loc__\":{\"file\":\"<top-level>\",\"line\":1}}\n{\"file\":\"<top-level>\",\"line\":1}\n",
        ),
    ];
    let input = br#"[[1,2],{"a":3},"x"]"#;
    let have_jq = Command::new("jq").arg("--version").output().is_ok();
    for (program, want) in cases {
        let out = get(&["-c", program], input);
        assert_eq!(text(&out.stdout), want, "{program}: {}", text(&out.stderr));
        let only_1_7 = program.starts_with("[reduce") || program.starts_with("{$__loc__}");
        if have_jq && !only_1_7 {
            let jq = jq_bytes(&["-c", program], input).unwrap();
            assert_eq!(text(&out.stdout), text(&jq), "{program} against jq");
        }
    }
    if !have_jq {
        prerequisite::missing("jq is not installed");
    }
    // jq's compile-time refusal, and an error placed in the program as written.
    let (out, err) = run_null(&["{(0): 1}"]);
    assert_eq!(out, "");
    assert!(
        err.contains("column 3: Cannot use number (0) as object key"),
        "{err}"
    );
    let (_, err) = run_null(&[". as [$a] ?// $a | $a | nosuch"]);
    assert_eq!(
        err.matches("undefined function `nosuch/0`").count(),
        1,
        "{err}"
    );
    assert!(err.contains("line 1, column 25"), "{err}");
}

/// Numbers as jq 1.8 keeps them (`have_decnum`): an integer a double does not hold exactly
/// is written back as read, and computed with as a double.
#[test]
fn big_numbers_are_kept_as_read_and_computed_as_doubles_as_jq_1_8() {
    let input =
        b"[13911860366432393, 123456789012345678901234567890, -0.12345678901234567890123456789]\n";
    let cases = [
        (
            ".",
            "[13911860366432393,123456789012345678901234567890,-0.12345678901234567890123456789]",
        ),
        (".[0] - 10", "13911860366432382"),
        (
            "[.[0] | tostring, tojson, -.]",
            "[\"13911860366432393\",\"13911860366432393\",-13911860366432393]",
        ),
        (".[0] == 13911860366432392", "true"),
        ("have_decnum", "true"),
    ];
    for (program, want) in cases {
        let out = get(&["-c", program], input);
        assert_eq!(
            text(&out.stdout),
            format!("{want}\n"),
            "{program}: {}",
            text(&out.stderr)
        );
    }
}

/// `--stream` (with `inputs`, `fromstream`, `truncate_stream`), input in RFC 7464
/// sequences (RS before each text, as `--seq` writes them), `-C` and `-M`: as jq.
#[test]
fn stream_seq_input_and_colour_as_jq() {
    let input = b"{\"type\":\"x\",\"a\":[1,{\"b\":2}],\"e\":{}}\n[]\n3\n";
    let cases: [(&[&str], &str); 4] = [
        (
            &["-c", "--stream", "."],
            "[[\"type\"],\"x\"]\n[[\"a\",0],1]\n[[\"a\",1,\"b\"],2]\n[[\"a\",1,\"b\"]]\n\
             [[\"a\",1]]\n[[\"e\"],{}]\n[[\"e\"]]\n[[],[]]\n[[],3]\n",
        ),
        (
            &[
                "-c",
                "-n",
                "--stream",
                "[inputs | select(length == 2)] | length",
            ],
            "6\n",
        ),
        (
            &["-c", "-n", "--stream", "fromstream(inputs)"],
            "{\"type\":\"x\",\"a\":[1,{\"b\":2}],\"e\":{}}\n[]\n3\n",
        ),
        (
            &["-c", "--stream", "-n", "[1 | truncate_stream(inputs)]"],
            "[[[0],1],[[1,\"b\"],2],[[1,\"b\"]],[[1]]]\n",
        ),
    ];
    let have_jq = Command::new("jq").arg("--version").output().is_ok();
    for (args, want) in cases {
        let out = get(args, input);
        assert_eq!(text(&out.stdout), want, "{args:?}: {}", text(&out.stderr));
        if have_jq {
            assert_eq!(
                text(&out.stdout),
                text(&jq_bytes(args, input).unwrap()),
                "{args:?} against jq"
            );
        }
    }
    // A JSON text sequence: each text after an RS, read as jq --seq reads it.
    let seq = b"\x1e{\"type\":\"x\"}\n\x1e[1,2]\n";
    let out = get(&["-c", "--seq", "."], seq);
    assert_eq!(text(&out.stdout), text(seq), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
    if have_jq {
        assert_eq!(
            text(&out.stdout),
            text(&jq_bytes(&["-c", "--seq", "."], seq).unwrap())
        );
    }
    // -C colours what jq colours, the text under the colours the same; -M none.
    let strip = |b: &[u8]| {
        let s = text(b);
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(at) = rest.find('\x1b') {
            out.push_str(&rest[..at]);
            rest = rest[at..].split_once('m').map_or("", |(_, r)| r);
        }
        out + rest
    };
    let coloured = get(&["-C", "."], input);
    assert!(
        text(&coloured.stdout).contains("\x1b[0;32m\"x\"\x1b[0m"),
        "{}",
        text(&coloured.stdout)
    );
    assert_eq!(strip(&coloured.stdout), text(&get(&["."], input).stdout));
    if have_jq {
        let jq = jq_bytes(&["-C", "-c", "."], input).unwrap();
        assert!(text(&jq).contains('\x1b'));
        assert_eq!(strip(&coloured.stdout), strip(&jq));
    }
    let plain = get(&["-M", "--color", "always", "."], input);
    assert!(!text(&plain.stdout).contains('\x1b'));
    if !have_jq {
        prerequisite::missing("jq is not installed");
    }
}

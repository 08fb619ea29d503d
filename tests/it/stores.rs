//! The agents' own session logs, read as streams are. Each recorded run of the real CLIs
//! (`scripts/record/`) keeps its store beside its stream
//! (`tests/fixtures/recorded/<agent>/<version>/<run>.store/`, described in
//! `tests/fixtures/recorded/STORES.md`) and the tokens the model server reported
//! (`<run>.usage.json`). Every view must read the store as the stream of the same run:
//! the same answer, the same tool calls and statuses, the same exit status, and exactly
//! the tokens the server reported — but where the store cannot say what the stream says,
//! or says more, as the table [`KNOWN`] gives with the reason. Then the stores are laid out
//! in a fake home as a user's are, for `sessions`, `--from`, `--since`, `--until`,
//! `--project` and session ids, and nothing may be written beside them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::home::{files_under, in_home};

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded")
}

/// One recorded run's store.
struct Store {
    agent: String,
    run: String,
    /// The folder with the run's stream and sidecars.
    dir: PathBuf,
    /// The store folder (a HOME's worth of the agent's files).
    home: PathBuf,
    /// The session log in it (OpenCode: its database).
    log: PathBuf,
}

fn stores() -> Vec<Store> {
    let mut out = Vec::new();
    for agent in std::fs::read_dir(root()).unwrap() {
        let agent = agent.unwrap().path();
        if !agent.is_dir() {
            continue;
        }
        for version in std::fs::read_dir(&agent).unwrap() {
            let dir = version.unwrap().path();
            for entry in std::fs::read_dir(&dir).unwrap() {
                let home = entry.unwrap().path();
                let Some(run) = home
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_suffix(".store"))
                else {
                    continue;
                };
                let logs: Vec<PathBuf> = files_under(&home)
                    .into_iter()
                    .filter(|p| {
                        let name = p.file_name().unwrap().to_str().unwrap();
                        name == "opencode.db"
                            || (name.ends_with(".jsonl") && name != "usage_record.jsonl")
                    })
                    .collect();
                assert_eq!(logs.len(), 1, "one session log in {}", home.display());
                out.push(Store {
                    agent: agent.file_name().unwrap().to_str().unwrap().to_string(),
                    run: run.to_string(),
                    dir: dir.clone(),
                    home,
                    log: logs[0].clone(),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.agent, &a.run).cmp(&(&b.agent, &b.run)));
    assert!(
        out.len() >= 60,
        "the recorded stores are missing: {}",
        out.len()
    );
    out
}

struct Out {
    status: i32,
    stdout: String,
    stderr: String,
}

fn cs(args: &[&str]) -> Out {
    cs_env(args, &[])
}

fn cs_env(args: &[&str], env: &[(&str, &Path)]) -> Out {
    let mut cmd = Command::new(BIN);
    in_home(&mut cmd, Path::new("/nonexistent"))
        .args(args)
        .env("CURSOR_STREAM_JOBS", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    Out {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// What a store legitimately reads otherwise than its run's stream: (agent, run, what,
/// why). `what`: `status N` (the store's exit status), `tools S,S` (the statuses of the
/// store's calls), `tokens lost` (the store keeps none of the run's usage).
const KNOWN: &[(&str, &str, &str, &str)] = &[
    (
        "codex",
        "denied",
        "tools rejected",
        "`codex exec --json` writes no item for a refused command; the rollout keeps the call and its refusal",
    ),
    (
        "gemini",
        "midtool",
        "status 0",
        "Gemini CLI writes a message's tool calls once they finish: killed while one runs, its log holds the answer's words and nothing that tells a turn was under way",
    ),
    (
        "gemini",
        "midtool",
        "tools ",
        "the same: the call is not in the log",
    ),
    (
        "qwen",
        "midtool",
        "tools pending",
        "the stream has the killed command's failure, which Qwen Code did not write to its log before it died",
    ),
    (
        "opencode",
        "midtool",
        "tools pending",
        "`opencode run` prints a call once it finishes; its database keeps the part `running`",
    ),
    (
        "opencode",
        "midtool",
        "tokens lost",
        "OpenCode writes a response's usage when its step finishes: killed mid-tool, the row keeps zeros",
    ),
];

fn known(store: &Store, what: &str) -> Option<&'static str> {
    KNOWN
        .iter()
        .find(|(a, r, w, _)| *a == store.agent && *r == store.run && w.starts_with(what))
        .map(|(_, _, w, _)| *w)
}

/// Each store gives its run's exit status, final answer and tool calls (their statuses and
/// what they do) as its stream.
#[test]
fn every_store_reads_as_the_stream_of_its_run() {
    let mut checked = 0;
    for store in stores() {
        if store.run.starts_with("resume") {
            continue;
        }
        let stream = store.dir.join(format!("{}.stdout", store.run));
        let log = store.log.to_str().unwrap();
        let name = format!("{} {}", store.agent, store.run);
        let (from_log, from_stream) = (
            cs(&["result", log]),
            cs(&["result", stream.to_str().unwrap()]),
        );
        match known(&store, "status") {
            Some(w) => assert_eq!(from_log.status.to_string(), w["status ".len()..], "{name}"),
            None => assert_eq!(from_log.status, from_stream.status, "{name}: exit status"),
        }
        if from_stream.status == 0 && from_log.status == 0 {
            // Gemini keeps a message's text without its last newline.
            assert_eq!(
                from_log.stdout.trim_end(),
                from_stream.stdout.trim_end(),
                "{name}: the final answer"
            );
        }
        // Each call's status and what it does: the agent's own tool name may differ
        // between its store and its stream (Codex: `exec_command`, `command_execution`),
        // what the call does may not.
        let calls = |file: &str| -> Vec<(String, String)> {
            json_lines(&cs(&["tools", "--json", file]).stdout)
                .iter()
                .map(|t| {
                    let s = t["status"].as_str().unwrap();
                    // Gemini's stream names a refusal by its error's type.
                    let status = if s == "policy_violation" {
                        "rejected"
                    } else {
                        s
                    };
                    let kind = t["kind"]
                        .as_str()
                        .unwrap_or_else(|| panic!("{name}: {} without its kind", t["tool"]));
                    (status.to_string(), kind.to_string())
                })
                .collect()
        };
        let log_calls = calls(log);
        match known(&store, "tools") {
            Some(w) => {
                let expected: Vec<String> = w["tools ".len()..]
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                let statuses: Vec<String> = log_calls.into_iter().map(|(s, _)| s).collect();
                assert_eq!(statuses, expected, "{name}: tool calls");
            }
            None => assert_eq!(
                log_calls,
                calls(stream.to_str().unwrap()),
                "{name}: tool calls, their statuses and kinds"
            ),
        }
        checked += 1;
    }
    assert!(checked >= 50, "{checked} stores checked");
}

/// The tokens a store gives are the server's, each response once: every billed response
/// the store keeps (the side requests where the agent keeps them: Qwen Code only, in its
/// telemetry; Gemini's router and OpenCode's title are stored nowhere), whatever the
/// duplicates (Claude's line per content block, Gemini's message written twice, Codex's
/// record beside its count).
#[test]
fn every_store_counts_the_tokens_the_server_reported() {
    let mut checked = 0;
    for store in stores() {
        let name = format!("{} {}", store.agent, store.run);
        let usage: Value = serde_json::from_str(
            &std::fs::read_to_string(store.dir.join(format!("{}.usage.json", store.run))).unwrap(),
        )
        .unwrap();
        // A resumed session's store holds both invocations.
        let mut responses: Vec<Value> = usage["responses"].as_array().unwrap().clone();
        if store.run == "resume.2" {
            let first: Value = serde_json::from_str(
                &std::fs::read_to_string(store.dir.join("resume.1.usage.json")).unwrap(),
            )
            .unwrap();
            responses.extend(first["responses"].as_array().unwrap().iter().cloned());
        }
        let mut expected = [0u64; 4];
        for r in &responses {
            let side = r["side"].as_bool().unwrap_or(false);
            if r["status"] != 200 || r["final"] != true || (side && store.agent != "qwen") {
                continue;
            }
            let n = &r["normalized"];
            let get = |k: &str| n[k].as_u64().unwrap_or(0);
            expected[0] += get("input") - get("cached") - get("cache_write");
            expected[1] += get("cached");
            expected[2] += get("cache_write");
            expected[3] += get("output");
        }
        if known(&store, "tokens").is_some() {
            expected = [0; 4];
        }
        let mut got = [0u64; 4];
        for run in json_lines(&cs(&["stats", "--json", store.log.to_str().unwrap()]).stdout) {
            let u = &run["usage"];
            for (i, k) in [
                "input_tokens",
                "cache_read_tokens",
                "cache_write_tokens",
                "output_tokens",
            ]
            .iter()
            .enumerate()
            {
                got[i] += u[k].as_u64().unwrap_or(0);
            }
        }
        assert_eq!(
            got, expected,
            "{name}: input, cache read, cache write, output"
        );
        checked += 1;
    }
    assert!(checked >= 60);
}

/// A resumed session is one log with both prompts: two runs of one session, each with its
/// answer, for every agent.
#[test]
fn a_resumed_session_is_one_log_with_a_run_per_prompt() {
    for store in stores().into_iter().filter(|s| s.run == "resume.2") {
        let log = store.log.to_str().unwrap();
        let runs = json_lines(&cs(&["stats", "--json", log]).stdout);
        assert_eq!(runs.len(), 2, "{}: {runs:?}", store.agent);
        assert_eq!(
            runs[0]["session_id"], runs[1]["session_id"],
            "{}",
            store.agent
        );
        assert!(
            runs.iter().all(|r| r["status"] == "success"),
            "{}",
            store.agent
        );
        let mut answers = String::new();
        for part in ["resume.1", "resume.2"] {
            let stream = store.dir.join(format!("{part}.stdout"));
            answers.push_str(cs(&["result", stream.to_str().unwrap()]).stdout.trim_end());
            answers.push('\n');
        }
        assert_eq!(cs(&["result", log]).stdout, answers, "{}", store.agent);
        let sessions = json_lines(&cs(&["sessions", "--json", log]).stdout);
        assert_eq!(sessions.len(), 1, "{}", store.agent);
        assert_eq!(sessions[0]["prompts"], 2, "{}", store.agent);
        assert!(
            sessions[0]["first_prompt"]
                .as_str()
                .unwrap()
                .contains("first turn"),
            "{}: {}",
            store.agent,
            sessions[0]
        );
    }
}

/// Every view reads every store, with no complaint about its lines (the CLIs' record
/// types are known, a failed or killed run is reported as such only).
#[test]
fn every_view_reads_every_store_without_a_bad_line() {
    for store in stores() {
        let log = store.log.to_str().unwrap();
        for view in [
            &["text"][..],
            &["result"],
            &["json"],
            &["tools"],
            &["progress"],
            &["stats"],
            &["transcript"],
            &["transcript", "--html"],
            &["events", "--count"],
            &["events", "--normalized"],
            &["get", ".type"],
            &["sessions"],
        ] {
            let mut args = view.to_vec();
            args.push(log);
            let out = cs(&args);
            assert!(
                out.status <= 3,
                "{} {} {view:?}: {}",
                store.agent,
                store.run,
                out.stderr
            );
            for line in out.stderr.lines() {
                assert!(
                    !line.contains("warning") && !line.contains("not JSON"),
                    "{} {} {view:?}: {line}",
                    store.agent,
                    store.run
                );
            }
        }
    }
}

/// `check` on a store: no problem but the run's own failure.
#[test]
fn check_finds_nothing_wrong_in_a_store_of_a_successful_run() {
    for store in stores().into_iter().filter(|s| s.run == "tool") {
        let out = cs(&["check", store.log.to_str().unwrap()]);
        assert_eq!(
            out.status, 0,
            "{}: {}{}",
            store.agent, out.stdout, out.stderr
        );
    }
}

/// A fake home with the stores laid out as the agents lay them out.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `sessions` and the rest, with this home as `HOME`.
    fn cs(&self, args: &[&str]) -> Out {
        cs_env(args, &[("HOME", self.path())])
    }
}

/// Copies `run`'s store of `agent` into `home`.
fn lay_out(home: &Path, agent: &str, run: &str) {
    let store = stores()
        .into_iter()
        .find(|s| s.agent == agent && s.run == run)
        .unwrap_or_else(|| panic!("no store {agent} {run}"));
    for file in files_under(&store.home) {
        let rel = file.strip_prefix(&store.home).unwrap();
        let to = home.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&file, &to).unwrap();
    }
}

fn fake_home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    for (agent, runs) in [
        ("claude", &["tool", "fail", "resume.2"][..]),
        ("codex", &["tool", "killed", "think"]),
        ("gemini", &["plain"]),
        ("qwen", &["tool", "denied"]),
        ("opencode", &["resume.2"]),
    ] {
        for run in runs {
            lay_out(dir.path(), agent, run);
        }
    }
    // A week-old Codex rollout, compressed as Codex compresses them.
    let sessions = dir.path().join(".codex/sessions");
    let think = files_under(&sessions)
        .into_iter()
        .find(|p| std::fs::read_to_string(p).unwrap().contains("SCEN_THINK"))
        .unwrap();
    let zst = PathBuf::from(format!("{}.zst", think.display()));
    let bytes = std::fs::read(&think).unwrap();
    std::fs::write(&zst, zstd::encode_all(&bytes[..], 3).unwrap()).unwrap();
    std::fs::remove_file(&think).unwrap();
    // Dates to choose by: everything last changed now, but the Claude failure long ago.
    let old = SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600); // 2026-01-01
    for f in files_under(&dir.path().join(".claude")) {
        if std::fs::read_to_string(&f).unwrap().contains("SCEN_FAIL") {
            std::fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }
    Home { dir }
}

#[test]
fn sessions_lists_every_agents_logs_in_a_home_newest_first() {
    let home = fake_home();
    let out = home.cs(&["sessions", "--json"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let sessions = json_lines(&out.stdout);
    let mut by_agent: BTreeMap<String, usize> = BTreeMap::new();
    for s in &sessions {
        *by_agent
            .entry(s["agent"].as_str().unwrap().to_string())
            .or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = [
        ("claude", 3),
        ("codex", 3),
        ("gemini", 1),
        ("qwen", 2),
        ("opencode", 1),
    ]
    .into_iter()
    .map(|(a, n)| (a.to_string(), n))
    .collect();
    assert_eq!(by_agent, expected, "{}", out.stdout);
    let times: Vec<u64> = sessions
        .iter()
        .map(|s| s["last_activity_ms"].as_u64().unwrap())
        .collect();
    assert!(
        times.windows(2).all(|w| w[0] >= w[1]),
        "newest first: {times:?}"
    );
    // The compressed rollout is read through, its run a success.
    let think = sessions
        .iter()
        .find(|s| s["file"].as_str().unwrap().ends_with(".jsonl.zst"))
        .expect("the compressed rollout");
    assert_eq!(think["status"], "success");
    assert_eq!(think["agent"], "codex");
    // Each session's facts.
    let claude_fail = sessions
        .iter()
        .find(|s| s["agent"] == "claude" && s["status"] == "error")
        .expect("the failed Claude session");
    assert_eq!(claude_fail["prompts"], 1);
    assert!(
        claude_fail["first_prompt"]
            .as_str()
            .unwrap()
            .starts_with("Fail with")
    );
    let opencode = sessions.iter().find(|s| s["agent"] == "opencode").unwrap();
    assert_eq!(opencode["prompts"], 2);
    assert_eq!(opencode["title"], "Mock side answer", "OpenCode's title");
    // The table: a header and a row per session.
    let table = home.cs(&["sessions"]);
    assert_eq!(
        table.stdout.lines().count(),
        sessions.len() + 1,
        "{}",
        table.stdout
    );
    assert!(table.stdout.starts_with("AGENT"));
}

#[test]
fn from_since_until_and_project_choose_the_sessions() {
    let home = fake_home();
    let agents = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["stats", "--json"];
        all.extend_from_slice(args);
        let out = home.cs(&all);
        let agents: std::collections::BTreeSet<String> = json_lines(&out.stdout)
            .iter()
            .map(|r| r["agent"].as_str().unwrap().to_string())
            .collect();
        agents.into_iter().collect::<Vec<_>>()
    };
    assert_eq!(agents(&["--from", "codex"]), ["codex"]);
    assert_eq!(agents(&["--from", "qwen,gemini"]).len(), 2);
    let claude_runs = |args: &[&str]| -> usize {
        let mut all = vec!["stats", "--json", "--from", "claude"];
        all.extend_from_slice(args);
        json_lines(&home.cs(&all).stdout).len()
    };
    // tool (1 run), fail (1), resume.2 (2 runs); the failure was last changed in January.
    assert_eq!(claude_runs(&[]), 4);
    assert_eq!(claude_runs(&["--since", "2026-06-01"]), 3);
    assert_eq!(claude_runs(&["--until", "2025-12-31"]), 0);
    assert_eq!(
        claude_runs(&["--project", "/tmp/cs-e2e/pinned/claude/tool"]),
        1
    );
    assert_eq!(agents(&["--project", "/tmp/cs-e2e/pinned/qwen"]), ["qwen"]);
    assert_eq!(
        agents(&["--project", "/tmp/cs-e2e/pinned/gemini"]),
        ["gemini"]
    );
    assert_eq!(
        agents(&["--project", "/tmp/cs-e2e/pinned/opencode"]),
        ["opencode"]
    );
    // A window alone reads every agent's logs.
    assert_eq!(agents(&["--since", "2026-06-01"]).len(), 5);
    // A bad time is a usage error.
    let bad = home.cs(&["stats", "--since", "last tuesday"]);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--since"), "{}", bad.stderr);
}

#[test]
fn a_session_id_or_its_unique_start_goes_where_a_file_goes() {
    let home = fake_home();
    let sessions = json_lines(&home.cs(&["sessions", "--json"]).stdout);
    for s in &sessions {
        let id = s["session_id"].as_str().unwrap();
        let prefix = &id[..12.min(id.len())];
        let out = home.cs(&["sessions", "--json", prefix]);
        let found = json_lines(&out.stdout);
        assert_eq!(found.len(), 1, "{prefix}: {}{}", out.stdout, out.stderr);
        assert_eq!(found[0]["session_id"], id);
    }
    // Claude's and Codex's session ids are all `0…`/`4…`… an ambiguous start names them.
    let starts: Vec<String> = sessions
        .iter()
        .map(|s| s["session_id"].as_str().unwrap()[..4].to_string())
        .collect();
    let shared = starts
        .iter()
        .find(|p| starts.iter().filter(|q| q == p).count() > 1)
        .expect("two sessions whose ids start alike");
    let out = home.cs(&["result", shared]);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(out.stderr.contains("give more of it"), "{}", out.stderr);
    let none = home.cs(&["result", "zzzz9999"]);
    assert_eq!(none.status, 2);
    assert!(none.stderr.contains("no session"), "{}", none.stderr);
}

/// What a file tree holds: each file's bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (Vec<u8>, SystemTime)> {
    files_under(dir)
        .into_iter()
        .map(|p| {
            let meta = std::fs::metadata(&p).unwrap();
            let bytes = std::fs::read(&p).unwrap();
            (p, (bytes, meta.modified().unwrap()))
        })
        .collect()
}

/// No view writes anything in a store: no file changes, none is added (an SQLite reader
/// would add `-shm`), whatever is read.
#[test]
fn no_view_writes_to_a_store() {
    let home = fake_home();
    let before = snapshot(home.path());
    for view in [
        &["sessions"][..],
        &["text"],
        &["result"],
        &["json"],
        &["tools", "--json"],
        &["progress"],
        &["stats"],
        &["transcript", "--html"],
        &["events"],
        &["events", "--normalized"],
        &["get", "-c", "."],
        &["check"],
    ] {
        let mut args = view.to_vec();
        args.extend(["--from", "all"]);
        let out = home.cs(&args);
        assert!(out.status <= 3, "{view:?}: {}", out.stderr);
        assert_eq!(snapshot(home.path()), before, "{view:?} changed the stores");
    }
    let id = json_lines(
        &home
            .cs(&["sessions", "--json", "--from", "opencode"])
            .stdout,
    )[0]["session_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(home.cs(&["result", &id[..10]]).status, 0);
    assert_eq!(
        snapshot(home.path()),
        before,
        "a session looked up changed the stores"
    );
}

/// The shortcuts (the type peek, the fast reader, Claude's tool results told from their
/// bytes) change no output on the logs, nor does reading several at once: every view
/// over a generated home of every agent's logs (with their traps) and over the recorded
/// stores gives the same bytes with `CURSOR_STREAM_REFERENCE=1` and with one reader.
#[test]
fn every_view_reads_the_logs_alike_with_and_without_the_shortcuts() {
    let home = fake_home();
    let generated = tempfile::tempdir().unwrap();
    crate::generate::generate_home(
        generated.path(),
        24 << 20,
        5,
        &["claude", "codex", "gemini", "qwen", "cursor", "opencode"],
        30,
    )
    .unwrap();
    for dir in [home.path(), generated.path()] {
        for view in [
            &["sessions", "--json"][..],
            &["text"],
            &["result"],
            &["tools", "--json"],
            &["stats", "--json"],
            &["events", "--normalized"],
            &["check", "--json"],
        ] {
            let mut args = view.to_vec();
            args.extend(["--from", "all"]);
            let run = |env: &[(&str, &str)]| {
                let mut cmd = Command::new(BIN);
                in_home(&mut cmd, dir)
                    .args(&args)
                    .env_remove("CURSOR_STREAM_REFERENCE");
                for (k, v) in env {
                    cmd.env(k, v);
                }
                cmd.output().unwrap()
            };
            let fast = run(&[]);
            assert!(!fast.stdout.is_empty(), "{view:?} wrote nothing");
            for env in [
                &[("CURSOR_STREAM_REFERENCE", "1")][..],
                &[("CURSOR_STREAM_JOBS", "1")],
            ] {
                let other = run(env);
                assert!(
                    fast.stdout == other.stdout,
                    "{view:?} {env:?}: stdout differs in {}",
                    dir.display()
                );
                assert_eq!(
                    String::from_utf8_lossy(&fast.stderr),
                    String::from_utf8_lossy(&other.stderr),
                    "{view:?} {env:?}"
                );
                assert_eq!(fast.status.code(), other.status.code(), "{view:?} {env:?}");
            }
        }
    }
}

/// A generated home of every agent's logs, with the traps of each format planted (a
/// response written over several lines, a resumed session copied into a new log, a
/// sub-agent's copy of its parent's message, Codex's re-sent counts and a fork's replay,
/// Gemini's messages written twice and a rewind, Qwen's side requests, failed runs, a
/// log cut while written), reads as its generator counted it: the sessions, the runs and
/// how they ended, and every token.
#[test]
fn a_generated_home_reads_as_its_generator_counted_it() {
    let dir = tempfile::tempdir().unwrap();
    let expected = crate::generate::generate_home(
        dir.path(),
        48 << 20,
        11,
        &["claude", "codex", "gemini", "qwen", "cursor", "opencode"],
        30,
    )
    .unwrap();
    let env = [("HOME", dir.path())];
    let runs = json_lines(&cs_env(&["stats", "--json", "--from", "all"], &env).stdout);
    let sessions = json_lines(&cs_env(&["sessions", "--json"], &env).stdout);
    for (agent, want) in expected["agents"].as_object().unwrap() {
        let mine: Vec<&Value> = runs.iter().filter(|r| r["agent"] == *agent).collect();
        let count = |status: &str| mine.iter().filter(|r| r["status"] == status).count();
        assert_eq!(
            mine.len() as u64,
            want["runs"].as_u64().unwrap(),
            "{agent}: runs"
        );
        assert_eq!(
            count("error") as u64,
            want["failed_runs"].as_u64().unwrap(),
            "{agent}: failed"
        );
        assert_eq!(
            count("no_result") as u64,
            want["unfinished_runs"].as_u64().unwrap(),
            "{agent}: unfinished"
        );
        let listed = sessions.iter().filter(|s| s["agent"] == *agent).count();
        assert_eq!(
            listed as u64,
            want["sessions"].as_u64().unwrap(),
            "{agent}: sessions"
        );
        for (mine_key, want_key) in [
            ("input_tokens", "input"),
            ("output_tokens", "output"),
            ("cache_read_tokens", "cache_read"),
            ("cache_write_tokens", "cache_write"),
        ] {
            let got: u64 = mine
                .iter()
                .map(|r| r["usage"][mine_key].as_u64().unwrap_or(0))
                .sum();
            assert_eq!(
                got,
                want["tokens"][want_key].as_u64().unwrap(),
                "{agent}: {want_key}"
            );
        }
    }
}

/// Gemini CLI before 0.39 kept a chat as one JSON document (`session-*.json`, the
/// messages in an array): read as the log that replaced it. Made here from a recorded
/// log: its metadata, and each message as last written.
#[test]
fn a_gemini_chat_document_of_before_0_39_reads_as_its_log() {
    let store = stores()
        .into_iter()
        .find(|s| s.agent == "gemini" && s.run == "tool")
        .unwrap();
    let mut meta = serde_json::Map::new();
    let mut messages: Vec<Value> = Vec::new();
    for line in std::fs::read_to_string(&store.log).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("projectHash").is_some() {
            meta = v.as_object().unwrap().clone();
        } else if let Some(id) = v.get("id") {
            match messages.iter_mut().find(|m| m["id"] == *id) {
                Some(m) => *m = v,
                None => messages.push(v),
            }
        }
    }
    meta.insert("messages".into(), Value::Array(messages));
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join(".gemini/tmp/proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    // The project's root, as the log's home maps it: the runs' working directory.
    let projects = store.log.ancestors().nth(4).unwrap().join("projects.json");
    std::fs::copy(projects, home.path().join(".gemini/projects.json")).unwrap();
    let doc = chats.join("session-2026-01-02T10-00-abcd1234.json");
    std::fs::write(
        &doc,
        serde_json::to_string_pretty(&Value::Object(meta)).unwrap(),
    )
    .unwrap();
    let env = [("HOME", home.path())];
    let log = store.log.to_str().unwrap();
    for view in [&["result"][..], &["tools", "--json"], &["stats", "--json"]] {
        let mut args = view.to_vec();
        let from_doc = cs_env(&[&args[..], &["--from", "gemini"]].concat(), &env);
        args.push(log);
        let from_log = cs(&args);
        // The same, but for the file's name and its lines (the log wrote a message twice).
        let strip = |s: &str| {
            let s = s.replace(doc.to_str().unwrap(), "F").replace(log, "F");
            let at = s
                .find("\"events\":")
                .map(|i| (i, s[i..].find(',').unwrap()));
            match at {
                Some((i, n)) => format!("{}{}", &s[..i], &s[i + n..]),
                None => s,
            }
        };
        assert_eq!(strip(&from_doc.stdout), strip(&from_log.stdout), "{view:?}");
    }
}

/// A Claude session resumed twice: the second log copies the first, the third the second
/// (each under its own session id, the lines' uuids kept). Each prompt is one run, of the
/// session it was typed in, and each answer's tokens count once.
#[test]
fn a_session_resumed_twice_reads_each_prompt_once() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-w");
    std::fs::create_dir_all(&project).unwrap();
    let prompt = |session: &str, uuid: &str, words: &str, minute: u32| {
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"type":"user","message":{{"role":"user","content":"{words}"}},"uuid":"{uuid}","timestamp":"2026-11-20T10:{minute:02}:00.000Z","cwd":"/w","sessionId":"{session}","version":"2.1.3"}}"#
        )
    };
    let answer = |session: &str, uuid: &str, msg: &str, minute: u32| {
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"message":{{"id":"{msg}","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"ok"}}],"stop_reason":"end_turn","usage":{{"input_tokens":100,"output_tokens":10,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}},"requestId":"r-{msg}","type":"assistant","uuid":"{uuid}","timestamp":"2026-11-20T10:{minute:02}:30.000Z","cwd":"/w","sessionId":"{session}","version":"2.1.3"}}"#
        )
    };
    // Each log: the lines before it under its own session id, then its own prompt.
    let turns = [
        ("p1", "u1", "a1", "m1"),
        ("p2", "u2", "a2", "m2"),
        ("p3", "u3", "a3", "m3"),
    ];
    for (k, session) in ["s-one", "s-two", "s-three"].iter().enumerate() {
        let mut lines = Vec::new();
        for (i, (words, pu, au, msg)) in turns[..=k].iter().enumerate() {
            lines.push(prompt(session, pu, words, i as u32 * 2));
            lines.push(answer(session, au, msg, i as u32 * 2));
        }
        std::fs::write(
            project.join(format!("{session}.jsonl")),
            lines.join("\n") + "\n",
        )
        .unwrap();
    }
    let out = cs_env(
        &["stats", "--json", "--from", "claude"],
        &[("HOME", home.path())],
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    let mut runs: Vec<(String, u64)> = json_lines(&out.stdout)
        .iter()
        .map(|r| {
            (
                r["session_id"].as_str().unwrap().to_string(),
                r["usage"]["input_tokens"].as_u64().unwrap(),
            )
        })
        .collect();
    runs.sort();
    assert_eq!(
        runs,
        [
            ("s-one".into(), 100),
            ("s-three".into(), 100),
            ("s-two".into(), 100)
        ],
        "{}",
        out.stdout
    );
    let out = cs_env(
        &["usage", "model", "--json", "--from", "claude"],
        &[("HOME", home.path())],
    );
    let rows = json_lines(&out.stdout);
    assert_eq!(rows.len(), 1, "{}", out.stdout);
    assert_eq!(rows[0]["input_tokens"], 300);
    assert_eq!(rows[0]["runs"], 3);
}

/// Cursor's transcripts hold no id on any line: the chat's id is the file's name
/// (`agent-transcripts/<id>/<id>.jsonl`, or `<id>.jsonl` before), so every view gives it as
/// the session's, and a copy of the file elsewhere says nothing of it. (The lines are
/// written to the shapes `../shared/spec/stores.md` §2.6b quotes: no real Cursor CLI runs
/// offline here.)
#[test]
fn a_cursor_transcript_takes_its_session_id_from_its_file_name() {
    let dir = tempfile::tempdir().unwrap();
    let lines = concat!(
        r#"{"role":"user","message":{"content":[{"type":"text","text":"<timestamp>Tuesday, Jul 28, 2026, 12:06 PM (UTC+2)</timestamp>\n<user_query>\nlist the workspace\n</user_query>"}]}}"#,
        "\n",
        r#"{"role":"assistant","message":{"content":[{"type":"text","text":"Listing it."},{"type":"tool_use","name":"Shell","input":{"command":"ls"}}]}}"#,
        "\n",
        r#"{"type":"turn_ended","status":"success"}"#,
        "\n",
    );
    let nested = "5f0e4a1c-8d2b-4c3e-9f10-2a3b4c5d6e7f";
    let flat = "a1b2c3d4-0000-4000-8000-000000000001";
    let transcripts = dir
        .path()
        .join(".cursor/projects/home-dev-app/agent-transcripts");
    std::fs::create_dir_all(transcripts.join(nested)).unwrap();
    let nested_file = transcripts.join(format!("{nested}/{nested}.jsonl"));
    std::fs::write(&nested_file, lines).unwrap();
    std::fs::write(transcripts.join(format!("{flat}.jsonl")), lines).unwrap();
    let elsewhere = dir.path().join("copy.jsonl");
    std::fs::write(&elsewhere, lines).unwrap();

    let env = [("HOME", dir.path())];
    let listed = json_lines(&cs_env(&["sessions", "--json", "--from", "cursor"], &env).stdout);
    let mut ids: Vec<&str> = listed
        .iter()
        .map(|s| s["session_id"].as_str().unwrap_or("null"))
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, [nested, flat]);
    let stats = |args: &[&str]| {
        let out = cs_env(args, &env);
        assert_eq!(out.status, 0, "{args:?}: {}", out.stderr);
        json_lines(&out.stdout)
    };
    let by_path = stats(&["stats", "--json", nested_file.to_str().unwrap()]);
    assert_eq!(by_path[0]["session_id"], nested);
    assert_eq!(by_path[0]["tools"]["total"], 1, "{}", by_path[0]);
    let by_prefix = stats(&["stats", "--json", &nested[..8]]);
    assert_eq!(by_prefix[0]["session_id"], nested);
    let copy = stats(&["stats", "--json", elsewhere.to_str().unwrap()]);
    assert_eq!(copy[0]["session_id"], Value::Null);
}

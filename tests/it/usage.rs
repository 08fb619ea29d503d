//! `usage`: tokens and cost per period, session, model and run. The totals are checked
//! against what is known to be in the logs: the tokens the model servers reported in the
//! recordings of the real CLIs, and what the home generator counted by each agent's rule
//! (a response split over lines once, a resumed copy once, a fork's replay not, …);
//! every report sums to the same totals; days are cut in the time zone asked for; costs
//! follow the price table; a count that is no count is reported and left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::home::{files_under, in_home};

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn cs(args: &[&str], home: &Path) -> (i32, String, String) {
    let out = in_home(&mut Command::new(BIN), home)
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn rows(text: &str) -> Vec<Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

const KEYS: [&str; 4] = [
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
];

fn sum(rows: &[Value], agent: &str) -> [u64; 4] {
    let mut s = [0; 4];
    for r in rows.iter().filter(|r| r["agent"] == agent) {
        for (i, k) in KEYS.iter().enumerate() {
            s[i] += r[k].as_u64().unwrap();
        }
    }
    s
}

struct Home {
    dir: tempfile::TempDir,
    expected: Value,
}

fn generated(size: u64, seed: u64) -> Home {
    let dir = tempfile::tempdir().unwrap();
    let expected = crate::generate::generate_home(
        dir.path(),
        size,
        seed,
        &["claude", "codex", "gemini", "qwen", "cursor", "opencode"],
        30,
    )
    .unwrap();
    Home { dir, expected }
}

/// Every report over a generated home: the generator's totals, per agent and per day,
/// exactly, and the same totals whatever the report.
#[test]
fn every_report_sums_to_the_tokens_each_agent_billed() {
    let home = generated(40 << 20, 21);
    let mut totals: BTreeMap<&str, BTreeMap<String, [u64; 4]>> = BTreeMap::new();
    for report in ["daily", "weekly", "monthly", "session", "model", "run"] {
        let (status, out, err) = cs(&["usage", report, "--json"], home.dir.path());
        assert_eq!(status, 0, "{report}: {err}");
        let rows = rows(&out);
        assert!(!rows.is_empty(), "{report}");
        for agent in ["claude", "codex", "gemini", "qwen", "opencode"] {
            totals
                .entry(report)
                .or_default()
                .insert(agent.to_string(), sum(&rows, agent));
        }
        if report == "daily" {
            // Per day (UTC), each agent's tokens as counted.
            for (agent, want) in home.expected["agents"].as_object().unwrap() {
                for (day, t) in want["days"].as_object().unwrap() {
                    let got: Vec<&Value> = rows
                        .iter()
                        .filter(|r| r["agent"] == *agent && r["date"] == *day)
                        .collect();
                    let input: u64 = got
                        .iter()
                        .map(|r| r["input_tokens"].as_u64().unwrap())
                        .sum();
                    let output: u64 = got
                        .iter()
                        .map(|r| r["output_tokens"].as_u64().unwrap())
                        .sum();
                    let t = &t["tokens"];
                    assert_eq!(
                        (input, output),
                        (t["input"].as_u64().unwrap(), t["output"].as_u64().unwrap()),
                        "{agent} on {day}"
                    );
                }
            }
        }
    }
    for (agent, want) in home.expected["agents"].as_object().unwrap() {
        if agent == "cursor" {
            continue;
        }
        let t = &want["tokens"];
        let expected = [
            t["input"].as_u64().unwrap(),
            t["output"].as_u64().unwrap(),
            t["cache_read"].as_u64().unwrap(),
            t["cache_write"].as_u64().unwrap(),
        ];
        for (report, by_agent) in &totals {
            assert_eq!(
                by_agent[agent.as_str()],
                expected,
                "{agent}, {report} report"
            );
        }
    }
}

/// The recorded stores of the real CLIs: each report's totals are the tokens the model
/// server reported (the side requests where the agent keeps them: Qwen's telemetry).
#[test]
fn the_recorded_stores_total_the_tokens_the_servers_reported() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded");
    let home = tempfile::tempdir().unwrap();
    for agent in ["claude", "codex", "gemini", "qwen"] {
        let (status, out, err) = cs(&["usage", "model", "--json"], home.path());
        assert_eq!(status, 0, "{err}");
        assert!(out.is_empty(), "an empty home has no usage: {out}");
        let dir = std::fs::read_dir(root.join(agent))
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        for scenario in ["tool", "think", "parallel"] {
            let usage: Value = serde_json::from_str(
                &std::fs::read_to_string(dir.join(format!("{scenario}.usage.json"))).unwrap(),
            )
            .unwrap();
            let mut want = [0u64; 4];
            for r in usage["responses"].as_array().unwrap() {
                let side = r["side"].as_bool().unwrap_or(false);
                if r["status"] != 200 || r["final"] != true || (side && agent != "qwen") {
                    continue;
                }
                let n = &r["normalized"];
                let g = |k: &str| n[k].as_u64().unwrap_or(0);
                want[0] += g("input") - g("cached") - g("cache_write");
                want[1] += g("output");
                want[2] += g("cached");
                want[3] += g("cache_write");
            }
            let store = dir.join(format!("{scenario}.store"));
            let log = files_under(&store)
                .into_iter()
                .find(|p| {
                    let n = p.file_name().unwrap().to_str().unwrap();
                    n.ends_with(".jsonl") && n != "usage_record.jsonl"
                })
                .unwrap();
            let (status, out, err) = cs(
                &["usage", "model", "--json", log.to_str().unwrap()],
                home.path(),
            );
            assert_eq!(status, 0, "{err}");
            assert_eq!(sum(&rows(&out), agent), want, "{agent} {scenario}");
        }
    }
}

/// A log of two model calls, at 23:30 and 00:30 UTC, priced models: cut into days by the
/// time zone, priced by the table, the agent's own cost where it reports one.
fn two_calls(dir: &Path) -> PathBuf {
    let log = dir.join("s.jsonl");
    let line = |uuid: &str, ts: &str, msg: &str, model: &str, input: u64, extra: &str| {
        format!(
            r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.3","message":{{"id":"{msg}","type":"message","role":"assistant","model":"{model}","content":[{{"type":"text","text":"ok"}}],"usage":{{"input_tokens":{input},"output_tokens":1000,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}},"requestId":"r-{msg}","type":"assistant","uuid":"{uuid}","timestamp":"{ts}"{extra}}}"#
        )
    };
    let prompt = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s1","version":"2.1.3","type":"user","message":{"role":"user","content":"go"},"uuid":"u0","timestamp":"2026-11-20T23:00:00.000Z"}"#;
    let text = [
        prompt.to_string(),
        line(
            "a1",
            "2026-11-20T23:30:00.000Z",
            "m1",
            "claude-sonnet-4-5",
            1_000_000,
            "",
        ),
        line(
            "a2",
            "2026-11-21T00:30:00.000Z",
            "m2",
            "claude-sonnet-4-5",
            2_000_000,
            r#","costUSD":0.5"#,
        ),
    ]
    .join("\n");
    std::fs::write(&log, text + "\n").unwrap();
    log
}

#[test]
fn days_are_cut_in_the_time_zone_asked_for_and_costs_follow_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let log = two_calls(dir.path());
    let log = log.to_str().unwrap();
    let days = |tz: &str| -> Vec<(String, u64)> {
        let (_, out, _) = cs(&["usage", "--json", "--timezone", tz, log], dir.path());
        rows(&out)
            .iter()
            .map(|r| {
                (
                    r["date"].as_str().unwrap().to_string(),
                    r["input_tokens"].as_u64().unwrap(),
                )
            })
            .collect()
    };
    assert_eq!(
        days("UTC"),
        [
            ("2026-11-20".to_string(), 1_000_000),
            ("2026-11-21".to_string(), 2_000_000)
        ]
    );
    // Two hours ahead, both calls fall on the 21st.
    assert_eq!(
        days("Europe/Athens"),
        [("2026-11-21".to_string(), 3_000_000)]
    );
    // Claude Sonnet 4.5: $3 per million input tokens, $15 per million output (LiteLLM).
    let cost = |mode: &str| -> f64 {
        let (_, out, _) = cs(
            &["usage", "model", "--json", "--cost", mode, log],
            dir.path(),
        );
        rows(&out)[0]["cost_usd"].as_f64().unwrap_or(-1.0)
    };
    let calculated = 3_000_000.0 * 3e-6 + 2000.0 * 15e-6;
    assert!(
        (cost("calculate") - calculated).abs() < 1e-9,
        "{}",
        cost("calculate")
    );
    // auto: the line's own costUSD where it has one.
    let auto = 1_000_000.0 * 3e-6 + 1000.0 * 15e-6 + 0.5;
    assert!((cost("auto") - auto).abs() < 1e-9, "{}", cost("auto"));
    // reported: only what the agent said; a call it gave no cost for has none.
    let (_, out, _) = cs(
        &["usage", "model", "--json", "--cost", "reported", log],
        dir.path(),
    );
    assert_eq!(
        rows(&out)[0]["cost_usd"],
        Value::Null,
        "one call has no reported cost"
    );
    // --prices: another list, in LiteLLM's format.
    let prices = dir.path().join("prices.json");
    std::fs::write(
        &prices,
        r#"{"claude-sonnet-4-5":{"input_cost_per_token":1e-6,"output_cost_per_token":2e-6}}"#,
    )
    .unwrap();
    let (_, out, _) = cs(
        &[
            "usage",
            "model",
            "--json",
            "--cost",
            "calculate",
            "--prices",
            prices.to_str().unwrap(),
            log,
        ],
        dir.path(),
    );
    let c = rows(&out)[0]["cost_usd"].as_f64().unwrap();
    assert!(
        (c - (3_000_000.0 * 1e-6 + 2000.0 * 2e-6)).abs() < 1e-9,
        "{c}"
    );
}

#[test]
fn a_model_with_no_price_has_no_cost_and_is_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let log = two_calls(dir.path());
    let text = std::fs::read_to_string(&log)
        .unwrap()
        .replace("claude-sonnet-4-5", "mystery-model-9");
    std::fs::write(&log, text).unwrap();
    let (status, out, err) = cs(
        &[
            "usage",
            "--json",
            "--cost",
            "calculate",
            log.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(status, 0);
    for r in rows(&out) {
        assert_eq!(r["cost_usd"], Value::Null, "{r}");
    }
    assert_eq!(err.matches("mystery-model-9").count(), 1, "{err}");
    assert!(err.contains("--prices"), "{err}");
}

#[test]
fn a_count_that_is_no_count_is_reported_and_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let log = two_calls(dir.path());
    let text = std::fs::read_to_string(&log).unwrap().replacen(
        "\"input_tokens\":2000000",
        "\"input_tokens\":-5",
        1,
    );
    std::fs::write(&log, text).unwrap();
    let (status, out, err) = cs(
        &["usage", "model", "--json", log.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(status, 0, "{err}");
    assert_eq!(
        rows(&out)[0]["input_tokens"],
        1_000_000,
        "the bad record is left out"
    );
    assert!(err.contains("s.jsonl:3"), "named by file and line: {err}");
    assert!(err.contains("1 records"), "counted as skipped: {err}");
}

/// Saved streams of all six agents: each run's usage, at its time.
#[test]
fn saved_streams_of_every_agent_have_their_runs_usage() {
    let agents = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/agents");
    let mut files = Vec::new();
    for agent in ["cursor", "claude", "codex", "gemini", "qwen", "opencode"] {
        for e in std::fs::read_dir(agents.join(agent)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|e| e == "ndjson") {
                files.push(p);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let mut args = vec!["stats", "--json"];
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    let (_, stats, _) = cs(&args, dir.path());
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for run in rows(&stats) {
        if let Some(u) = run["usage"].as_object() {
            *want
                .entry(run["agent"].as_str().unwrap().to_string())
                .or_default() +=
                u["input_tokens"].as_u64().unwrap() + u["output_tokens"].as_u64().unwrap();
        }
    }
    let mut args = vec!["usage", "model", "--json"];
    args.extend(names.iter().map(String::as_str));
    let (status, out, err) = cs(&args, dir.path());
    assert_eq!(status, 0, "{err}");
    let mut got: BTreeMap<String, u64> = BTreeMap::new();
    for r in rows(&out) {
        *got.entry(r["agent"].as_str().unwrap().to_string())
            .or_default() +=
            r["input_tokens"].as_u64().unwrap() + r["output_tokens"].as_u64().unwrap();
    }
    assert_eq!(got, want);
    assert!(got.len() >= 5, "agents with usage: {got:?}");
}

#[test]
fn the_json_rows_have_the_documented_keys_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let log = two_calls(dir.path());
    let log = log.to_str().unwrap();
    let numbers = [
        "agent",
        "model",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "total_tokens",
        "cost_usd",
        "runs",
        "sessions",
    ];
    for (report, key) in [
        ("daily", &["date"][..]),
        ("weekly", &["date"]),
        ("monthly", &["date"]),
        ("session", &["session_id", "file"]),
        ("run", &["file", "session_id", "index"]),
        ("model", &[]),
    ] {
        let (_, out, _) = cs(&["usage", report, "--json", log], dir.path());
        let line = out.lines().next().unwrap();
        let v: serde_json::Map<String, Value> = serde_json::from_str(line).unwrap();
        let mut want: Vec<&str> = key.to_vec();
        want.extend(numbers);
        let positions: Vec<usize> = want
            .iter()
            .map(|k| line.find(&format!("\"{k}\":")).unwrap())
            .collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "{report}: {line}"
        );
        assert_eq!(v.len(), want.len(), "{report}: {line}");
        let total = v["input_tokens"].as_u64().unwrap()
            + v["output_tokens"].as_u64().unwrap()
            + v["cache_read_tokens"].as_u64().unwrap()
            + v["cache_write_tokens"].as_u64().unwrap();
        assert_eq!(v["total_tokens"], total);
    }
    let (_, weekly, _) = cs(&["usage", "weekly", "--json", log], dir.path());
    // 2026-11-20 is a Friday: its week starts on Monday the 16th.
    assert_eq!(rows(&weekly)[0]["date"], "2026-11-16");
    let (_, monthly, _) = cs(&["usage", "monthly", "--json", log], dir.path());
    assert_eq!(rows(&monthly)[0]["date"], "2026-11");
}

#[test]
fn since_until_and_agent_choose_the_records() {
    let home = generated(12 << 20, 3);
    let (_, all, _) = cs(&["usage", "--json"], home.dir.path());
    let all = rows(&all);
    let (_, some, _) = cs(
        &[
            "usage",
            "--json",
            "--since",
            "2026-11-20",
            "--until",
            "2026-11-22",
        ],
        home.dir.path(),
    );
    let some = rows(&some);
    assert!(!some.is_empty());
    assert!(some.iter().all(|r| {
        let d = r["date"].as_str().unwrap();
        ("2026-11-20"..="2026-11-22").contains(&d)
    }));
    let in_window: Vec<&Value> = all
        .iter()
        .filter(|r| ("2026-11-20"..="2026-11-22").contains(&r["date"].as_str().unwrap()))
        .collect();
    assert_eq!(some.len(), in_window.len());
    let (_, codex, _) = cs(&["usage", "--json", "--agent", "codex"], home.dir.path());
    let codex = rows(&codex);
    assert!(!codex.is_empty() && codex.iter().all(|r| r["agent"] == "codex"));
    assert_eq!(sum(&codex, "codex"), sum(&all, "codex"));
}

#[test]
fn the_table_has_a_total_row_and_bars_on_a_terminal() {
    let home = generated(8 << 20, 4);
    let (status, out, _) = cs(&["usage"], home.dir.path());
    assert_eq!(status, 0);
    assert!(out.starts_with("DATE"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("TOTAL")), "{out}");
    let (_, breakdown, _) = cs(&["usage", "monthly", "--breakdown"], home.dir.path());
    assert!(
        breakdown.lines().next().unwrap().contains("MODEL"),
        "{breakdown}"
    );
}

/// The page opens offline in Chromium: its chart (a segment per agent and model and
/// period) and its table are there, nothing is requested, a hostile model name is text.
#[test]
fn the_html_page_reads_in_a_browser_and_loads_nothing() {
    let Some(browser) = crate::browser::browser() else {
        return;
    };
    let home = generated(8 << 20, 5);
    let dir = tempfile::tempdir().unwrap();
    let log = two_calls(dir.path());
    let hostile = std::fs::read_to_string(&log).unwrap().replace(
        "claude-sonnet-4-5",
        r#"<img src=x onerror=alert(1)>"#.replace('"', "").as_str(),
    );
    std::fs::write(&log, hostile).unwrap();
    let (status, page, err) = cs(
        &["usage", "--html", "--from", "all", log.to_str().unwrap()],
        home.dir.path(),
    );
    assert_eq!(status, 0, "{err}");
    let path = dir.path().join("usage.html");
    std::fs::write(&path, &page).unwrap();
    let netlog = dir.path().join("netlog.json");
    let dom = browser.dom(&path, Some(&netlog));
    assert!(dom.contains("<svg"), "no chart");
    assert!(
        dom.matches("class=\"seg\"").count() > 10,
        "too few segments"
    );
    assert!(dom.contains("<table"), "no table");
    assert!(!dom.contains("<img"), "a model's name became markup");
    assert!(
        dom.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "the name is not shown as text"
    );
    let log = std::fs::read_to_string(&netlog).unwrap_or_default();
    assert!(!log.is_empty(), "chromium wrote no network log");
    // Chromium's own calls home aside (they happen with no page), nothing is requested;
    // the page names no address at all.
    for url in log.split("\"url\":\"").skip(1) {
        let url = &url[..url.find('"').unwrap_or(0)];
        let own = ["google.com", "gstatic.com", "googleapis.com"]
            .iter()
            .any(|h| url.contains(h));
        assert!(
            own || !url.starts_with("http"),
            "the page made a request: {url}"
        );
    }
    for attr in ["src=\"", "href=\"", "url("] {
        assert!(!page.contains(attr), "the page names an address: {attr}");
    }
}

/// A copy of a real Codex rollout (0.58, with `rate_limits`) under `home`, its times moved so
/// that its last line was written `ago_ms` before now.
fn codex_rollout_moved(home: &Path, ago_ms: i64) {
    let file = crate::home::codex_fixture("0.58-token-info-null");
    let text = std::fs::read_to_string(&file).unwrap();
    let times: Vec<jiff::Timestamp> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["timestamp"].as_str().and_then(|t| t.parse().ok()))
        .collect();
    let last = times.iter().max().unwrap().as_millisecond();
    let shift = jiff::Timestamp::now().as_millisecond() - ago_ms - last;
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if let Some(t) = v["timestamp"]
            .as_str()
            .and_then(|t| t.parse::<jiff::Timestamp>().ok())
        {
            let moved = jiff::Timestamp::from_millisecond(t.as_millisecond() + shift).unwrap();
            v["timestamp"] = Value::from(moved.to_string());
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let to = home
        .join(".codex/sessions/2026/01/01")
        .join(file.file_name().unwrap());
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::write(to, out).unwrap();
}

/// `usage blocks`: five-hour blocks from the hour of their first call, the limits each agent
/// recorded within them (Codex's percent and reset, from a real rollout; Claude's status,
/// from a real stream), an active block with its pace, and the documented keys.
#[test]
fn blocks_carry_the_limits_the_agents_recorded() {
    let home = tempfile::tempdir().unwrap();
    codex_rollout_moved(home.path(), 10 * 60_000);
    let (code, out, err) = cs(
        &["usage", "blocks", "--from", "codex", "--json"],
        home.path(),
    );
    assert_eq!(code, 0, "{err}");
    let blocks = rows(&out);
    assert_eq!(blocks.len(), 1, "{out}");
    let b = &blocks[0];
    let keys = [
        "agent",
        "block_start",
        "block_end",
        "last_call",
        "active",
        "models",
        "input_tokens",
        "output_tokens",
        "cache_read_tokens",
        "cache_write_tokens",
        "reasoning_tokens",
        "total_tokens",
        "cost_usd",
        "calls",
        "tokens_per_hour",
        "cost_per_hour",
        "projected_total_tokens",
        "projected_cost_usd",
        "runs",
        "limits",
    ];
    let line = out.lines().next().unwrap();
    let at: Vec<usize> = keys
        .iter()
        .map(|k| line.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{line}");
    assert_eq!(b["active"], true, "{b}");
    assert_eq!(b["calls"], 20);
    assert_eq!(b["total_tokens"], 413_776);
    let ms = |k: &str| {
        b[k].as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .unwrap()
            .as_millisecond()
    };
    assert_eq!(ms("block_start") % 3_600_000, 0);
    assert_eq!(ms("block_end") - ms("block_start"), 5 * 3_600_000);
    // Active: its total at the end is more than now, at its pace.
    assert!(
        b["projected_total_tokens"].as_u64().unwrap() > 413_776,
        "{b}"
    );
    // The last state of each window the rollout recorded (its resets moved with nothing:
    // they are the server's).
    let limits = b["limits"].as_array().unwrap();
    assert_eq!(limits.len(), 2, "{b}");
    assert_eq!(limits[0]["window"], "five_hour");
    assert_eq!(limits[0]["used_percent"], 58.0);
    assert_eq!(limits[0]["resets_at"], "2025-11-17T23:38:45Z");
    assert_eq!(limits[0]["source"], "codex rate_limits");
    assert_eq!(limits[1]["window"], "seven_day");
    assert_eq!(limits[1]["used_percent"], 42.0);

    // A Claude stream's `rate_limit_event`: a status, no percent.
    let stream = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/agents/claude/partial-messages.ndjson");
    let (code, out, err) = cs(
        &["usage", "blocks", "--json", stream.to_str().unwrap()],
        home.path(),
    );
    assert_eq!(code, 0, "{err}");
    let limit = &rows(&out)[0]["limits"][0];
    assert_eq!(limit["status"], "allowed");
    assert_eq!(limit["used_percent"], Value::Null);
    assert_eq!(limit["resets_at"], "2026-08-20T13:00:00Z");
    assert_eq!(limit["source"], "claude rate_limit_event");

    // The table: the limits beside the block; a block with none says so.
    let (_, table, _) = cs(&["usage", "blocks", "--from", "codex"], home.path());
    assert!(
        table.contains("5h 58% (resets 2025-11-17 23:38) · 7d 42%"),
        "{table}"
    );
    let without = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history/codex/0.36-resume-replay/home");
    let (_, table, _) = cs(&["usage", "blocks", "--from", "codex"], &without);
    assert!(table.contains("none recorded"), "{table}");
    let (code, _, err) = cs(&["usage", "blocks", "--html"], home.path());
    assert_eq!(code, 2, "{err}");
}

/// The table's per-hour tokens are `--json`'s `tokens_per_hour`, rounded alike (ended
/// blocks: the figures do not move with the clock between the two runs).
#[test]
fn blocks_table_and_json_agree_on_the_rate() {
    let home = tempfile::tempdir().unwrap();
    for (version, day) in [
        ("0.58-token-info-null", 1),
        ("0.117-archived-task-events", 2),
    ] {
        let file = crate::home::codex_fixture(version);
        std::fs::copy(
            &file,
            crate::home::codex_session_path(home.path(), &file, day),
        )
        .unwrap();
    }
    let (code, json, err) = cs(
        &["usage", "blocks", "--from", "codex", "--json"],
        home.path(),
    );
    assert_eq!(code, 0, "{err}");
    let (_, table, _) = cs(&["usage", "blocks", "--from", "codex"], home.path());
    let rates: Vec<String> = rows(&json)
        .iter()
        // A block of one call has no rate (null, `-`).
        .filter_map(|b| b["tokens_per_hour"].as_u64())
        .map(|r| {
            let digits = r.to_string();
            // The table's thousands: 16,993,143.
            let mut out = String::new();
            for (i, c) in digits.chars().enumerate() {
                if i > 0 && (digits.len() - i) % 3 == 0 {
                    out.push(',');
                }
                out.push(c);
            }
            out
        })
        .collect();
    assert!(!rates.is_empty());
    for rate in &rates {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().any(|cell| cell == rate)),
            "{rate} in\n{table}"
        );
    }
}

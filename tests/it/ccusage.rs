//! `usage` against ccusage 20.0.24, the most used tool for the same question, per day and per
//! session, over the recorded stores of the five CLIs and over a generated home.
//!
//! The two agree wherever they read the same records by the same rule. Where ccusage reads
//! fewer records or counts them otherwise, the test does not loosen the comparison: it gives
//! our reader only the records ccusage reads (a copy of the home without them) and puts our
//! figures in ccusage's terms, so that every remaining difference fails. Each such rule below
//! is one line of the guide's "usage and ccusage" table, where it says which count is the
//! server's:
//!
//! - Codex: ccusage reads no `.jsonl.zst` log and no `token_usage_record` (only `token_count`
//!   events, which a turn cut short never writes).
//! - Qwen Code: ccusage reads the chat's `usageMetadata` only, not the telemetry records that
//!   also hold the side requests, and its input includes the cached tokens.
//! - Gemini CLI and OpenCode: ccusage's output leaves out the reasoning (thoughts) tokens.
//! - Claude Code: ccusage's session report lists the calls a resumed session shares with the
//!   log that resumed it under whichever of the two paths sorts first, and counts a sub-agent's replay of its parent's message again (so that
//!   its session and daily totals differ); its cache writes are the 5-minute + 1-hour
//!   breakdown, which a server that sends none leaves at zero.
//!
//! ccusage is installed from npm into the target directory (its binary comes in the optional
//! package `@ccusage/ccusage-linux-x64`); without npm's registry the test skips (fails under
//! `CI=true`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::home::{files_under, in_home};

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");
const VERSION: &str = "20.0.24";
const AGENTS: [&str; 5] = ["claude", "codex", "gemini", "qwen", "opencode"];

/// ccusage's binary, installed once into the target directory.
fn ccusage() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ccusage-{VERSION}"));
    let bin = |dir: &Path| dir.join("node_modules/@ccusage/ccusage-linux-x64/bin/ccusage");
    if !bin(&dir).exists() {
        if !cfg!(all(target_os = "linux", target_arch = "x86_64")) {
            crate::prerequisite::missing("ccusage's npm package has a binary for x86-64 Linux");
            return None;
        }
        // Installed beside and renamed into place: tests running at once never see half.
        let part = tempfile::tempdir_in(dir.parent().unwrap()).unwrap();
        let ok = Command::new("npm")
            .args([
                "install",
                "--no-save",
                "--no-audit",
                "--no-fund",
                "--prefix",
            ])
            .arg(part.path())
            .arg(format!("ccusage@{VERSION}"))
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok || !bin(part.path()).exists() {
            crate::prerequisite::missing(&format!(
                "ccusage {VERSION} could not be installed from npm"
            ));
            return None;
        }
        let part = part.keep();
        if std::fs::rename(&part, &dir).is_err() && !bin(&dir).exists() {
            panic!("could not move {} to {}", part.display(), dir.display());
        }
        let _ = std::fs::remove_dir_all(&part);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // npm does not always keep the mode of an optional package's binary.
        let _ = std::fs::set_permissions(bin(&dir), std::fs::Permissions::from_mode(0o755));
    }
    Some(bin(&dir))
}

/// Input, output, cache read, cache write.
type Tokens = [u64; 4];

/// ccusage's `daily` or `session` rows of one agent, keyed by date or session id, and its
/// totals.
fn theirs(
    bin: &Path,
    agent: &str,
    report: &str,
    home: &Path,
) -> (BTreeMap<String, Tokens>, Tokens) {
    let mut cmd = Command::new(bin);
    cmd.args([agent, report, "--json", "--offline", "--timezone", "UTC"]);
    in_home(&mut cmd, home);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "ccusage {agent} {report}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let tokens = |r: &Value| {
        [
            "inputTokens",
            "outputTokens",
            "cacheReadTokens",
            "cacheCreationTokens",
        ]
        .map(|k| r[k].as_u64().unwrap_or(0))
    };
    let list = if report == "daily" {
        "daily"
    } else {
        "sessions"
    };
    let mut rows = BTreeMap::new();
    for r in doc[list].as_array().unwrap() {
        let key = if report == "daily" {
            r["date"].as_str().unwrap().to_string()
        } else {
            // Codex's is the log's path under sessions/; its last 36 characters are the id.
            let id = r["sessionId"].as_str().unwrap();
            id[id.len().saturating_sub(36)..].to_string()
        };
        let t = tokens(r);
        let row: &mut Tokens = rows.entry(key).or_default();
        for i in 0..4 {
            row[i] += t[i];
        }
    }
    (rows, tokens(&doc["totals"]))
}

/// Our rows of one agent, keyed as ccusage keys them, in ccusage's terms.
fn ours(agent: &str, report: &str, home: &Path) -> BTreeMap<String, Tokens> {
    let mut cmd = Command::new(BIN);
    cmd.args(["usage", report, "--from", agent, "--json"]);
    in_home(&mut cmd, home);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "usage {report} --from {agent}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut rows = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let r: Value = serde_json::from_str(line).unwrap();
        let n = |k: &str| r[k].as_u64().unwrap();
        let (input, output, read, write, reasoning) = (
            n("input_tokens"),
            n("output_tokens"),
            n("cache_read_tokens"),
            n("cache_write_tokens"),
            n("reasoning_tokens"),
        );
        let t = match agent {
            "qwen" => [input + read, output, read, write],
            "gemini" | "opencode" => [input, output - reasoning, read, write],
            _ => [input, output, read, write],
        };
        let key = r[if report == "daily" {
            "date"
        } else {
            "session_id"
        }]
        .as_str()
        .unwrap()
        .to_string();
        let row: &mut Tokens = rows.entry(key).or_default();
        for i in 0..4 {
            row[i] += t[i];
        }
    }
    rows
}

/// A copy of `home` holding only the records ccusage reads of `agent`.
fn as_ccusage_reads(home: &Path, agent: &str) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    for file in files_under(home) {
        let to = copy.path().join(file.strip_prefix(home).unwrap());
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        let name = file.to_string_lossy();
        let unread: Option<&str> = match agent {
            "codex" if name.ends_with(".jsonl.zst") => continue,
            "codex" if name.ends_with(".jsonl") => Some(r#""type":"token_usage_record""#),
            "qwen" if name.ends_with(".jsonl") => Some(r#""subtype":"ui_telemetry""#),
            _ => None,
        };
        match unread {
            Some(needle) => {
                let text = std::fs::read_to_string(&file).unwrap();
                let kept: String = text
                    .split_inclusive('\n')
                    .filter(|l| !l.contains(needle))
                    .collect();
                std::fs::write(&to, kept).unwrap();
            }
            None => {
                std::fs::copy(&file, &to).unwrap();
            }
        }
    }
    copy
}

fn add(a: &mut Tokens, b: &Tokens) {
    for i in 0..4 {
        a[i] += b[i];
    }
}

/// What the comparisons found that only Claude's rules explain.
#[derive(Default)]
struct Found {
    zero_cache_writes: u64,
    replays_counted_again: bool,
    resumed_chains: usize,
}

/// Sets our cache writes to zero in the rows where ccusage's are zero; returns how many.
fn zero_writes_where_theirs_are(
    theirs: &BTreeMap<String, Tokens>,
    ours: &mut BTreeMap<String, Tokens>,
) -> u64 {
    let mut zeroed = 0;
    for (key, t) in ours.iter_mut() {
        if theirs.get(key).is_some_and(|d| d[3] == 0) {
            zeroed += std::mem::take(&mut t[3]);
        }
    }
    zeroed
}

/// Compares one agent's daily and session reports over `home`; panics on a difference no
/// rule explains.
fn compare(bin: &Path, agent: &str, home: &Path, found: &mut Found) {
    let reads = as_ccusage_reads(home, agent);
    let home = reads.path();
    let (their_days, their_total) = theirs(bin, agent, "daily", home);
    let our_days = ours(agent, "daily", home);
    let (their_sessions, their_session_total) = theirs(bin, agent, "session", home);
    let our_sessions = ours(agent, "session", home);
    let mut our_days = our_days;
    let mut our_sessions = our_sessions;
    if agent == "claude" {
        // A server that sends no 5-minute/1-hour breakdown: Claude Code writes it as zeros
        // and ccusage takes the zeros for the cache writes.
        found.zero_cache_writes += zero_writes_where_theirs_are(&their_days, &mut our_days);
        zero_writes_where_theirs_are(&their_sessions, &mut our_sessions);
    }
    assert_eq!(
        their_days.keys().collect::<Vec<_>>(),
        our_days.keys().collect::<Vec<_>>(),
        "{agent}: the days with usage, ccusage against ours, in {}",
        home.display()
    );
    for (day, t) in &our_days {
        assert_eq!(
            their_days[day],
            *t,
            "{agent} on {day}: ccusage against ours, in {}",
            home.display()
        );
    }
    let mut our_total = Tokens::default();
    our_days.values().for_each(|t| add(&mut our_total, t));
    assert_eq!(their_total, our_total, "{agent}: ccusage's daily total");

    if agent == "claude" {
        claude_sessions(
            home,
            &their_sessions,
            &our_sessions,
            their_session_total,
            their_total,
            found,
        );
        return;
    }
    assert_eq!(
        their_sessions,
        our_sessions,
        "{agent}: sessions, ccusage against ours, in {}",
        home.display()
    );
    assert_eq!(
        their_session_total, their_total,
        "{agent}: ccusage's totals"
    );
}

/// Claude's sessions: a resumed session and the copy that resumed it compare as one (ccusage
/// puts the calls they share under whichever log's path sorts first, the first it reads);
/// where a sub-agent replays its parent's message, ccusage counts
/// it again, by exactly what its session total exceeds its daily total; elsewhere equal.
fn claude_sessions(
    home: &Path,
    theirs: &BTreeMap<String, Tokens>,
    ours: &BTreeMap<String, Tokens>,
    their_session_total: Tokens,
    their_daily_total: Tokens,
    found: &mut Found,
) {
    // Each session's calls (its main log's and its sub-agents'), and the sessions where a
    // sub-agent's line replays a message of the main line's (same message id).
    let mut calls: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut messages: BTreeMap<(String, bool), BTreeSet<String>> = BTreeMap::new();
    for file in files_under(home) {
        if file.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let Ok(r) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let (Some(session), Some(id)) = (r["sessionId"].as_str(), r["message"]["id"].as_str())
            else {
                continue;
            };
            if r["message"]["usage"].is_object() {
                let call = format!("{id}:{}", r["requestId"].as_str().unwrap_or(""));
                calls.entry(session.to_string()).or_default().insert(call);
                let side = r["isSidechain"] == true;
                messages
                    .entry((session.to_string(), side))
                    .or_default()
                    .insert(id.to_string());
            }
        }
    }
    let replays = |session: &str| {
        let of = |side| messages.get(&(session.to_string(), side));
        of(true)
            .zip(of(false))
            .is_some_and(|(side, main)| !side.is_disjoint(main))
    };
    // Sessions that share a call are one chain of resumes.
    let ids: Vec<&String> = ours.keys().chain(theirs.keys()).collect();
    let mut chain: BTreeMap<&str, usize> = BTreeMap::new();
    let mut chains: Vec<BTreeSet<&str>> = Vec::new();
    for id in ids {
        if chain.contains_key(id.as_str()) {
            continue;
        }
        let mine = calls.get(id.as_str()).cloned().unwrap_or_default();
        let joined: Vec<usize> = chains
            .iter()
            .enumerate()
            .filter(|(_, c)| {
                c.iter()
                    .any(|other| calls.get(*other).is_some_and(|o| !o.is_disjoint(&mine)))
            })
            .map(|(i, _)| i)
            .collect();
        let mut set: BTreeSet<&str> = BTreeSet::from([id.as_str()]);
        for i in joined.iter().rev() {
            set.extend(chains.remove(*i));
        }
        chains.push(set);
        chain.clear();
        for (i, c) in chains.iter().enumerate() {
            for s in c {
                chain.insert(s, i);
            }
        }
    }
    let mut replayed = Tokens::default();
    for c in &chains {
        let (mut a, mut b) = (Tokens::default(), Tokens::default());
        for s in c {
            theirs.get(*s).inspect(|t| add(&mut a, t));
            ours.get(*s).inspect(|t| add(&mut b, t));
        }
        found.resumed_chains += usize::from(c.len() > 1);
        if a == b {
            continue;
        }
        assert!(
            c.iter().any(|s| replays(s)) && (0..4).all(|i| a[i] >= b[i]),
            "claude: sessions {c:?}: ccusage {a:?}, ours {b:?}, in {}",
            home.display()
        );
        found.replays_counted_again = true;
        for i in 0..4 {
            replayed[i] += a[i] - b[i];
        }
    }
    let mut gap = Tokens::default();
    for i in 0..4 {
        gap[i] = their_session_total[i] - their_daily_total[i];
    }
    assert_eq!(
        replayed, gap,
        "claude: what ccusage's sessions count again is what its session total exceeds its daily total"
    );
    let mut our_total = Tokens::default();
    ours.values().for_each(|t| add(&mut our_total, t));
    assert_eq!(
        our_total, their_daily_total,
        "claude: our session total is the daily total"
    );
}

/// The recorded stores of the five CLIs: the same figures, rule by rule; Claude's cache
/// writes, which the mock server sent without a breakdown, ccusage leaves at zero.
#[test]
fn the_recorded_stores_read_as_ccusage_reads_them() {
    let Some(bin) = ccusage() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded");
    let mut stores = 0;
    for agent in AGENTS {
        let mut found = Found::default();
        for version in std::fs::read_dir(root.join(agent)).unwrap() {
            for entry in std::fs::read_dir(version.unwrap().path()).unwrap() {
                let store = entry.unwrap().path();
                if store.extension().is_some_and(|e| e == "store") {
                    compare(&bin, agent, &store, &mut found);
                    stores += 1;
                }
            }
        }
        if agent == "claude" {
            assert!(found.zero_cache_writes > 0, "the mock's cache writes");
        }
    }
    assert!(stores >= 40, "{stores} stores");
}

/// A generated home of every agent (hundreds of sessions, with resumed copies, sub-agents,
/// replays, forks, compressed and archived logs): per day and per session, rule by rule.
#[test]
fn a_generated_home_reads_as_ccusage_reads_it() {
    let Some(bin) = ccusage() else { return };
    let home = tempfile::tempdir().unwrap();
    // Seed 3 plants every trap the rules above are about at this size.
    let expected = crate::generate::generate_home(home.path(), 48 << 20, 3, &AGENTS, 30).unwrap();
    for (agent, trap) in [
        ("claude", "claude_resumed_files"),
        ("claude", "claude_sidechain_replays"),
        ("codex", "codex_compressed_files"),
        ("codex", "codex_forked_files"),
        ("codex", "codex_archived_files"),
    ] {
        let planted = expected["agents"][agent]["traps"][trap]
            .as_u64()
            .unwrap_or(0);
        assert!(planted > 0, "the generated home has no {trap}");
    }
    let mut found = Found::default();
    for agent in AGENTS {
        compare(&bin, agent, home.path(), &mut found);
    }
    assert_eq!(
        found.zero_cache_writes, 0,
        "the generator writes the breakdown"
    );
    assert!(
        found.resumed_chains > 0,
        "a resumed Claude session in the home"
    );
    assert!(
        found.replays_counted_again,
        "a sub-agent's replay in the home"
    );
}

/// A Claude usage line's four counts as ccusage reads them: input, output, cache read,
/// cache creation.
fn claude_tokens(usage: &Value) -> Tokens {
    [
        "input_tokens",
        "output_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
    ]
    .map(|k| usage[k].as_u64().unwrap_or(0))
}

/// The calls ccusage's blocks count a second time: a sub-agent's line replaying a message
/// of its session's main line (the same `message.id`), each (id, request) once, with its
/// time (epoch ms) and tokens.
fn replayed_calls(home: &Path) -> Vec<(i64, Tokens)> {
    let mut main: BTreeSet<(String, String)> = BTreeSet::new();
    let mut side: BTreeMap<(String, String, String), (i64, Tokens)> = BTreeMap::new();
    for file in files_under(home) {
        if file.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let Ok(r) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let (Some(session), Some(id)) = (r["sessionId"].as_str(), r["message"]["id"].as_str())
            else {
                continue;
            };
            if !r["message"]["usage"].is_object() {
                continue;
            }
            if r["isSidechain"] == true {
                let at: jiff::Timestamp = r["timestamp"].as_str().unwrap().parse().unwrap();
                let request = r["requestId"].as_str().unwrap_or("").to_string();
                side.entry((session.into(), id.into(), request))
                    .or_insert((at.as_millisecond(), claude_tokens(&r["message"]["usage"])));
            } else {
                main.insert((session.into(), id.into()));
            }
        }
    }
    side.into_iter()
        .filter(|((session, id, _), _)| main.contains(&(session.clone(), id.clone())))
        .map(|(_, call)| call)
        .collect()
}

/// `usage blocks` against ccusage's `blocks` on a generated Claude home (sub-agents that
/// replay their parent's messages, resumed copies): the same blocks — start, end, last call —
/// and in each the same calls and tokens, but for the replays ccusage's blocks count again
/// (its daily report does not: the daily comparison above holds them equal).
#[test]
fn blocks_are_ccusage_s_blocks() {
    let Some(bin) = ccusage() else { return };
    let home = tempfile::tempdir().unwrap();
    crate::generate::generate_home(home.path(), 24 << 20, 3, &["claude"], 30).unwrap();
    let mut cmd = Command::new(&bin);
    cmd.args([
        "claude",
        "blocks",
        "--json",
        "--offline",
        "--timezone",
        "UTC",
    ]);
    in_home(&mut cmd, home.path());
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let theirs: Vec<&Value> = doc["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["isGap"] != true)
        .collect();
    let mut cmd = Command::new(BIN);
    cmd.args(["usage", "blocks", "--from", "claude", "--json"]);
    in_home(&mut cmd, home.path());
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(ours.len() > 10, "{} blocks", ours.len());
    assert_eq!(theirs.len(), ours.len(), "the number of blocks");
    let replays = replayed_calls(home.path());
    let ms = |v: &Value| {
        v.as_str()
            .unwrap()
            .parse::<jiff::Timestamp>()
            .unwrap()
            .as_millisecond()
    };
    let mut explained = 0;
    for (t, o) in theirs.iter().zip(&ours) {
        assert_eq!(ms(&t["startTime"]), ms(&o["block_start"]), "{o}");
        assert_eq!(ms(&t["endTime"]), ms(&o["block_end"]), "{o}");
        // Ours is written to the second.
        assert_eq!(
            ms(&t["actualEndTime"]) / 1000,
            ms(&o["last_call"]) / 1000,
            "{o}"
        );
        let (start, end) = (ms(&o["block_start"]), ms(&o["block_end"]));
        let again: Vec<&(i64, Tokens)> = replays
            .iter()
            .filter(|(at, _)| (start..end).contains(at))
            .collect();
        let mut want = [
            "input_tokens",
            "output_tokens",
            "cache_read_tokens",
            "cache_write_tokens",
        ]
        .map(|k| o[k].as_u64().unwrap());
        for (_, tokens) in &again {
            add(&mut want, tokens);
        }
        let c = &t["tokenCounts"];
        let got = [
            "inputTokens",
            "outputTokens",
            "cacheReadInputTokens",
            "cacheCreationInputTokens",
        ]
        .map(|k| c[k].as_u64().unwrap());
        assert_eq!(got, want, "tokens of the block {o}");
        assert_eq!(
            t["entries"].as_u64().unwrap(),
            o["calls"].as_u64().unwrap() + again.len() as u64,
            "calls of the block {o}"
        );
        explained += again.len();
    }
    assert!(
        explained > 0,
        "the home has sub-agent replays in some block"
    );
}

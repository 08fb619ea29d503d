//! A fake HOME of the agents' logs, for the tests that read stores (`stores`, `usage`,
//! `ccusage`): what a command must not take from the developer's environment, and the
//! files a home holds.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variables that move an agent's store away from `$HOME` (ours, and ccusage's
/// `OPENCODE_DATA_DIR`): a command reading a fake home runs without them.
const STORE_VARS: [&str; 8] = [
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "QWEN_RUNTIME_DIR",
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "CURSOR_CONFIG_DIR",
    "OPENCODE_DATA_DIR",
];

/// `cmd` reads `home` as `$HOME` and nothing else, its days cut in UTC.
pub(crate) fn in_home<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    cmd.env("HOME", home).env("TZ", "UTC");
    for var in STORE_VARS {
        cmd.env_remove(var);
    }
    cmd
}

/// Every file under `dir`, sorted.
pub(crate) fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The rollout of `tests/fixtures/history/codex/<version>/home` (its one `.jsonl`).
pub(crate) fn codex_fixture(version: &str) -> PathBuf {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/history/codex")
        .join(version)
        .join("home");
    files_under(&from)
        .into_iter()
        .find(|f| f.extension().is_some_and(|e| e == "jsonl"))
        .unwrap()
}

/// Where `rollout` goes in `home`'s Codex sessions, on day `day` of January 2026 (its
/// folders made).
pub(crate) fn codex_session_path(home: &Path, rollout: &Path, day: u32) -> PathBuf {
    let to = home
        .join(format!(".codex/sessions/2026/01/{day:02}"))
        .join(rollout.file_name().unwrap());
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    to
}

//! The agents' own session logs ("stores"): where each agent keeps them, finding them for
//! `--from` and for a session id given where a file is expected, and opening what is not
//! plain NDJSON (Codex's zstd-compressed rollouts, OpenCode's SQLite database).
//!
//! | agent | where (the variable that moves it) | files |
//! |---|---|---|
//! | Claude Code | `~/.claude` (`CLAUDE_CONFIG_DIR`, a comma-separated list) | `projects/<cwd-slug>/<session>.jsonl` |
//! | Codex | `~/.codex` (`CODEX_HOME`) | `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl[.zst]`, `archived_sessions/…` |
//! | Gemini CLI | `~/.gemini` (`GEMINI_CLI_HOME` replaces `~`) | `tmp/<project>/chats/session-<time>-<id8>.jsonl` |
//! | Qwen Code | `~/.qwen` (`QWEN_RUNTIME_DIR`) | `projects/<cwd-slug>/chats/<session>.jsonl` |
//! | OpenCode | `~/.local/share/opencode` (`XDG_DATA_HOME`) | `opencode.db` (SQLite; sessions in it) |
//! | Cursor | `~/.cursor` (`CURSOR_CONFIG_DIR`) | `projects/<cwd-slug>/agent-transcripts/<id>/<id>.jsonl` |
//!
//! Nothing here writes: files are opened read-only, a database is read from a private
//! copy (see [`open`]), and no lock is taken.

pub(crate) mod find;
pub(crate) mod open;
pub(crate) mod when;

pub(crate) use find::{Window, find, lookup};

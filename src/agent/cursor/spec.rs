//! What the tool knows of the Cursor Agent CLI besides how its lines read: its names, its
//! two dialects, where its transcripts live, the versions whose transcripts changed shape,
//! and the names its menu gives models.

use super::Cursor;
use super::store::CursorStore;
use super::transcript::Transcript;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnswerScope, AnyDialect, Spec, StreamOrLog, Version};

/// Cursor's stream, or its agent transcript.
pub(crate) type Reader = StreamOrLog<Cursor, Transcript>;

pub(crate) struct CursorSpec;

pub(crate) static SPEC: CursorSpec = CursorSpec;

impl Spec for CursorSpec {
    fn name(&self) -> &'static str {
        "cursor"
    }

    fn programs(&self) -> &'static [&'static str] {
        &["agent", "cursor-agent", "cursor"]
    }

    fn dialect(&self, log: bool) -> AnyDialect {
        AnyDialect::Cursor(match log {
            false => StreamOrLog::Stream(Cursor::default()),
            true => StreamOrLog::Log(Box::default()),
        })
    }

    fn stream_read_as(&self) -> Agent {
        Agent::Cursor
    }

    fn store(&self) -> &'static dyn Store {
        &CursorStore
    }

    fn versions(&self) -> &'static [Version] {
        VERSIONS
    }

    /// Cursor's stream names models as its menu does.
    fn model_alias(&self, name: &str) -> Option<&'static str> {
        MODELS.iter().find(|(n, _)| *n == name).map(|(_, m)| *m)
    }

    fn separates_messages(&self) -> bool {
        false
    }

    fn answer_scope(&self) -> Option<AnswerScope> {
        Some(AnswerScope::Whole)
    }
}

/// The models Cursor's menu names, lowercase, as the price table knows them. `Auto` and
/// Cursor's own models have no public price.
const MODELS: &[(&str, &str)] = &[
    ("claude 4 sonnet", "claude-sonnet-4-20250514"),
    ("claude-4-sonnet", "claude-sonnet-4-20250514"),
    ("claude 4 sonnet thinking", "claude-sonnet-4-20250514"),
    ("claude 4.5 sonnet", "claude-sonnet-4-5"),
    ("claude-4.5-sonnet", "claude-sonnet-4-5"),
    ("sonnet 4.5", "claude-sonnet-4-5"),
    ("sonnet-4.5", "claude-sonnet-4-5"),
    ("claude 4.5 sonnet thinking", "claude-sonnet-4-5"),
    ("claude 4 opus", "claude-opus-4-20250514"),
    ("claude 4.1 opus", "claude-opus-4-1"),
    ("opus 4.1", "claude-opus-4-1"),
    ("claude 4.5 opus", "claude-opus-4-5"),
    ("opus 4.5", "claude-opus-4-5"),
    ("claude 4.5 haiku", "claude-haiku-4-5"),
    ("haiku 4.5", "claude-haiku-4-5"),
    ("claude 3.5 sonnet", "claude-3-5-sonnet-20241022"),
    ("claude 3.7 sonnet", "claude-3-7-sonnet-20250219"),
    ("gpt 5", "gpt-5"),
    ("gpt-5 high", "gpt-5"),
    ("gpt-5 codex", "gpt-5-codex"),
    ("gpt 4.1", "gpt-4.1"),
    ("o3", "o3"),
    ("gemini 2.5 pro", "gemini-2.5-pro"),
    ("gemini 2.5 flash", "gemini-2.5-flash"),
    ("grok 4", "xai/grok-4"),
];

/// The versions of Cursor's transcripts that changed shape, by date (the files say no
/// version), as the real transcripts in `tests/fixtures/history/cursor/` show them (their
/// `VERSIONS.md` has the evidence).
const VERSIONS: &[Version] = &[
    Version {
        since: "2026-02",
        shape: "`agent-transcripts/<id>.txt`: `user:`/`assistant:` blocks, the prompt in `<user_query>`, `[Tool call]`, `[Tool result]`, `[Thinking]`",
        fixtures: &["2026.02-txt"],
    },
    Version {
        since: "2026-02",
        shape: "`<id>.jsonl` beside the `.txt`: `{role, message:{content}}` lines, text only",
        fixtures: &["2026.02-flat-jsonl-txt"],
    },
    Version {
        since: "2026-04",
        shape: "`<id>/<id>.jsonl`: `tool_use` blocks without ids; no `turn_ended`, no time",
        fixtures: &["2026.04-nested-jsonl"],
    },
    Version {
        since: "2026-08",
        shape: "`<timestamp>` in the prompt; `turn_ended` closes each turn; sub-agents in `<id>/subagents/`",
        fixtures: &["2026.08-nested-subagents"],
    },
    Version {
        since: "2026-09",
        shape: "`chats/<md5(cwd)>/<agent id>/store.db` (SQLite, protobuf) beside the transcripts",
        fixtures: &[],
    },
];

//! What the tool knows of Gemini CLI besides how its lines read: its names, its two
//! dialects, where its chats live, and the versions whose chat shape changed.

use super::Gemini;
use super::chat::Chat;
use super::store::GeminiStore;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnyDialect, Spec, StreamOrLog, Version, alias_in};

/// Gemini CLI's stream, or its chat log.
pub(crate) type Reader = StreamOrLog<Gemini, Chat>;

pub(crate) struct GeminiSpec;

pub(crate) static SPEC: GeminiSpec = GeminiSpec;

impl Spec for GeminiSpec {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn programs(&self) -> &'static [&'static str] {
        &["gemini"]
    }

    fn dialect(&self, log: bool) -> AnyDialect {
        AnyDialect::Gemini(match log {
            false => StreamOrLog::Stream(Gemini::default()),
            true => StreamOrLog::Log(Box::default()),
        })
    }

    fn stream_read_as(&self) -> Agent {
        Agent::Gemini
    }

    fn store(&self) -> &'static dyn Store {
        &GeminiStore
    }

    fn model_alias(&self, name: &str) -> Option<String> {
        alias_in(MODELS, name)
    }

    fn versions(&self) -> &'static [Version] {
        VERSIONS
    }

    fn separates_messages(&self) -> bool {
        false
    }
}

/// The versions of Gemini CLI whose chat changed shape, as the real chats in
/// `tests/fixtures/history/gemini/` show them (their `VERSIONS.md` has the evidence).
const VERSIONS: &[Version] = &[
    Version {
        since: "0.6",
        shape: "a chat is one JSON document in a sha256 project folder; the user's content a string; no tool calls recorded",
        fixtures: &["0.6-json-sha256"],
    },
    Version {
        since: "0.29",
        shape: "a short project folder (`projects.json`, `.project_root`); content as parts; `toolCalls` with ids",
        fixtures: &["0.3x-json-slug"],
    },
    Version {
        since: "0.29",
        shape: "sub-agents' chats as documents in `chats/<parent id>/`, `kind: subagent`",
        fixtures: &["0.3x-json-subagent"],
    },
    Version {
        since: "0.39",
        shape: "the `.jsonl` replay log: metadata, messages, `$set`; a message written again under its id (the last wins); `error`/`info` records",
        fixtures: &["0.39-jsonl"],
    },
    Version {
        since: "0.39",
        shape: "a prompt answered by an `error` message only",
        fixtures: &["0.39-jsonl-api-error"],
    },
    Version {
        since: "0.40",
        shape: "several messages written again as their tools finish",
        fixtures: &["0.4x-jsonl-reappend"],
    },
    Version {
        since: "0.40",
        shape: "A2A server sessions: the id `a2a-server` in every file, the history as a `$set` of the messages",
        fixtures: &["0.4x-jsonl-a2a-server"],
    },
    Version {
        since: "0.39",
        shape: "`$rewindTo` records; sub-agents' chats as `.jsonl`",
        fixtures: &[],
    },
];

/// Gemini CLI's own names for models (packages/core/src/config/models.ts).
const MODELS: &[(&str, &str)] = &[
    // SECONDARY_GEMINI_3_5_FLASH_MODEL: the name it sends for Gemini 3.5 Flash to a backend
    // that does not know that name.
    ("gemini-3-flash", "gemini-3.5-flash"),
];

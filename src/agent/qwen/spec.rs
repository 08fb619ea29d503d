//! What the tool knows of Qwen Code besides how its lines read: its names, its two
//! dialects (its stream is Claude's format, read by Claude's dialect), where its chats
//! live, and the versions whose chat shape changed.

use super::QwenLog;
use super::store::QwenStore;
use crate::agent::claude::Claude;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnswerScope, AnyDialect, Spec, StreamOrLog, Version, alias_in};

/// Qwen Code's stream (Claude's format), or its chat log.
pub(crate) type Reader = StreamOrLog<Claude, QwenLog>;

pub(crate) struct QwenSpec;

pub(crate) static SPEC: QwenSpec = QwenSpec;

impl Spec for QwenSpec {
    fn name(&self) -> &'static str {
        "qwen"
    }

    fn programs(&self) -> &'static [&'static str] {
        &["qwen"]
    }

    fn dialect(&self, log: bool) -> AnyDialect {
        AnyDialect::Qwen(match log {
            false => StreamOrLog::Stream(Claude::new(Agent::Qwen)),
            true => StreamOrLog::Log(Box::default()),
        })
    }

    fn stream_read_as(&self) -> Agent {
        Agent::Claude
    }

    fn store(&self) -> &'static dyn Store {
        &QwenStore
    }

    fn model_alias(&self, name: &str) -> Option<String> {
        alias_in(MODELS, name)
    }

    fn versions(&self) -> &'static [Version] {
        VERSIONS
    }

    fn answer_scope(&self) -> Option<AnswerScope> {
        Some(AnswerScope::LastSegment)
    }
}

/// The versions of Qwen Code whose chat changed shape, as the real chats in
/// `tests/fixtures/history/qwen/` show them (their `VERSIONS.md` has the evidence).
const VERSIONS: &[Version] = &[
    Version {
        since: "0.2",
        shape: "Gemini's layout: a chat is one JSON document in `tmp/<sha256>/chats/`, answers of type `qwen`; a sub-agent's run a document of its own under the parent's session id",
        fixtures: &["0.2-json-tmp"],
    },
    Version {
        since: "0.4",
        shape: "`projects/<cwd>/chats/<session>.jsonl`: records (`uuid`, `parentUuid`, `sessionId`, `type` user/assistant/system) with Gemini's `message` parts and `usageMetadata`; no `provenance`",
        fixtures: &["0.4-jsonl-windows"],
    },
    Version {
        since: "0.5",
        shape: "`prompt_id` `<session>########<n>`",
        fixtures: &["0.5-jsonl"],
    },
    Version {
        since: "0.12",
        shape: "`tool_result` records (`functionResponse`, `toolCallResult`); `gitBranch`",
        fixtures: &["0.12-jsonl-tools"],
    },
    Version {
        since: "0.13",
        shape: "`contextWindowSize`; `system` `slash_command` and `at_command`",
        fixtures: &["0.14-jsonl-windows"],
    },
    Version {
        since: "0.17",
        shape: "`attribution_snapshot`; `api_error` telemetry and no answer when every call fails; `.runtime.json` beside the chat",
        fixtures: &["0.17-jsonl-api-error"],
    },
    Version {
        since: "0.24",
        shape: "`provenance` on records (`real_user`, `assistant_output`, …)",
        fixtures: &[],
    },
];

/// Qwen Code's own names for models (packages/core/src/models/constants.ts,
/// `QWEN_OAUTH_MODELS`). `coder-model` has been qwen3-coder-plus (2025), Qwen 3.5 Plus,
/// Qwen 3.6 Plus (0.14) and Qwen 3.7 Max (today's description): priced as the newest.
const MODELS: &[(&str, &str)] = &[
    ("coder-model", "dashscope/qwen3.7-max"),
    // "The latest Qwen Vision model … (version: qwen3-vl-plus-2025-09-23)".
    ("vision-model", "dashscope/qwen3-vl-plus"),
];

//! What the tool knows of Codex besides how its lines read: its names, its two dialects,
//! where its rollouts live, and the versions whose rollout shape changed.

use super::Codex;
use super::rollout::Rollout;
use super::store::CodexStore;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnyDialect, Spec, StreamOrLog, Version, alias_in};

/// Codex's `exec --json` stream, or its rollout.
pub(crate) type Reader = StreamOrLog<Codex, Rollout>;

pub(crate) struct CodexSpec;

pub(crate) static SPEC: CodexSpec = CodexSpec;

impl Spec for CodexSpec {
    fn name(&self) -> &'static str {
        "codex"
    }

    fn programs(&self) -> &'static [&'static str] {
        &["codex"]
    }

    fn dialect(&self, log: bool) -> AnyDialect {
        AnyDialect::Codex(match log {
            false => StreamOrLog::Stream(Codex::default()),
            true => StreamOrLog::Log(Box::default()),
        })
    }

    fn stream_read_as(&self) -> Agent {
        Agent::Codex
    }

    fn store(&self) -> &'static dyn Store {
        &CodexStore
    }

    fn model_alias(&self, name: &str) -> Option<String> {
        alias_in(MODELS, name)
    }

    fn versions(&self) -> &'static [Version] {
        VERSIONS
    }
}

/// The versions of Codex whose rollout changed shape, as the real rollouts in
/// `tests/fixtures/history/codex/` show them (their `VERSIONS.md` has the evidence).
const VERSIONS: &[Version] = &[
    Version {
        since: "0.2x",
        shape: "a header `{id,timestamp,instructions[,git]}`, then bare response items and `{\"record_type\":\"state\"}` lines; no envelope, no model, no tokens",
        fixtures: &["0.2x-bare-items", "0.24-fork-bare-items"],
    },
    Version {
        since: "0.3x",
        shape: "every line `{timestamp,type,payload}`: `session_meta`, `response_item`, `event_msg` (user_message, agent_message, token_count, turn_aborted), `turn_context`; a run ends with its answer and the next prompt (no task_complete)",
        fixtures: &["0.36-resume-replay"],
    },
    Version {
        since: "0.36",
        shape: "a resumed session is a new file that replays the parent's `session_meta` and history",
        fixtures: &["0.36-resume-replay"],
    },
    Version {
        since: "0.40",
        shape: "`rate_limits` on token counts; a turn aborted",
        fixtures: &["0.40-vscode-aborted"],
    },
    Version {
        since: "0.58",
        shape: "`session_meta.source`; the first token count with `info: null`; each count written twice",
        fixtures: &["0.58-token-info-null"],
    },
    Version {
        since: "0.117",
        shape: "`task_started`/`task_complete` around every turn; `compacted`; `archived_sessions/`; `shell_command`",
        fixtures: &["0.117-archived-task-events"],
    },
    Version {
        since: "0.118",
        shape: "sub-agent rollouts (`source.subagent`), without a replay of the parent",
        fixtures: &["0.118-subagent-no-replay"],
    },
    Version {
        since: "0.119",
        shape: "forked sub-agent rollouts replay the parent's `session_meta` and turn (their cumulative counts start at the parent's)",
        fixtures: &["0.119-subagent-fork-replay"],
    },
    Version {
        since: "0.121",
        shape: "`exec_command_end`, `mcp_tool_call_end` and `error` events kept; `turn_aborted{reason}`",
        fixtures: &["0.121-ollama-shell"],
    },
    Version {
        since: "0.135",
        shape: "`task_complete{duration_ms}`; `agent_message.phase`",
        fixtures: &["0.135-exec-redacted"],
    },
    Version {
        since: "0.145",
        shape: "`exec_command`/`write_stdin` calls; `custom_tool_call` (apply_patch, code mode); `world_state`; a resume appends to the same file",
        fixtures: &["0.145-exec-command-compacted", "0.146-code-mode-exec"],
    },
    Version {
        since: "0.148",
        shape: "no `user_message` event (the prompt is the response item); `\"ordinal\":N` on every line",
        fixtures: &["0.152-ordinal"],
    },
    Version {
        since: "0.137",
        shape: "idle rollouts compressed to `.jsonl.zst`",
        fixtures: &[],
    },
    Version {
        since: "0.169",
        shape: "`token_usage_record` lines beside the token counts",
        fixtures: &[],
    },
];

/// Codex's own names for models (codex-rs/core/models.json).
const MODELS: &[(&str, &str)] = &[
    // gpt-5-codex-mini (ChatGPT sign-in only): no price of its own in any list; priced as
    // gpt-5.1-codex-mini, which replaced it at its tier.
    ("gpt-5-codex-mini", "gpt-5.1-codex-mini"),
];

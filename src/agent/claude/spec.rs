//! What the tool knows of Claude Code besides how its lines read: its names, its two
//! dialects, where its logs live, and the versions whose log shape changed.

use super::Claude;
use super::log::ClaudeLog;
use super::store::ClaudeStore;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnswerScope, AnyDialect, Spec, StreamOrLog, Version, alias_in};

/// Claude Code's stream, or its session log.
pub(crate) type Reader = StreamOrLog<Claude, ClaudeLog>;

pub(crate) struct ClaudeSpec;

pub(crate) static SPEC: ClaudeSpec = ClaudeSpec;

impl Spec for ClaudeSpec {
    fn name(&self) -> &'static str {
        "claude"
    }

    fn programs(&self) -> &'static [&'static str] {
        &["claude"]
    }

    fn dialect(&self, log: bool) -> AnyDialect {
        AnyDialect::Claude(match log {
            false => StreamOrLog::Stream(Claude::new(Agent::Claude)),
            true => StreamOrLog::Log(Box::default()),
        })
    }

    fn stream_read_as(&self) -> Agent {
        Agent::Claude
    }

    fn store(&self) -> &'static dyn Store {
        &ClaudeStore
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

/// The versions of Claude Code whose session log changed shape, as the real logs in
/// `tests/fixtures/history/claude/` show them ("since": the first version seen with it;
/// their `VERSIONS.md` has the evidence).
const VERSIONS: &[Version] = &[
    Version {
        since: "1.0.24",
        shape: "the envelope (parentUuid, isSidechain, cwd, sessionId, version, uuid, timestamp); `summary` records stacked at the top, their `leafUuid` often naming another session's line",
        fixtures: &["1.0.24-summaries-top"],
    },
    Version {
        since: "1.0.43",
        shape: "`system` lines without a subtype: hook output and notices; bash mode as `<bash-input>`/`<bash-stdout>` user lines",
        fixtures: &["1.0.51-hook-system-lines"],
    },
    Version {
        since: "1.0.80",
        shape: "`isApiErrorMessage` on `<synthetic>` answers; `usage.cache_creation` (5-minute and 1-hour writes)",
        fixtures: &["1.0.90-api-error-synthetic"],
    },
    Version {
        since: "1.0.89",
        shape: "a compaction starts a new file: `summary` lines, then an `isCompactSummary` prompt under the old session's id; a model fallback notice",
        fixtures: &[
            "1.0.89-compact-continuation",
            "1.0.89-model-fallback-system",
        ],
    },
    Version {
        since: "1.0.90",
        shape: "a resumed session is a new file that starts with a copy of the old one's lines (same `uuid`s; the first keeps the old session id)",
        fixtures: &["1.0.90-resume-copy"],
    },
    Version {
        since: "1.0.98",
        shape: "sub-agents written inline (`isSidechain` lines in the session's own file)",
        fixtures: &["1.0.108-inline-sidechain", "1.0.98-summary-pair"],
    },
    Version {
        since: "2.0.0",
        shape: "a file of `summary` lines for other sessions only",
        fixtures: &["2.0.0-summaries-for-other-sessions"],
    },
    Version {
        since: "2.0.28",
        shape: "sub-agents in `agent-<id>.jsonl` beside the session (every line a sidechain, the parent's session id); \"Warmup\" agents at each start",
        fixtures: &["2.0.28-warmup-agent-files", "2.0.60-agent-files-no-parent"],
    },
    Version {
        since: "2.0.37",
        shape: "`queue-operation` records (enqueue, dequeue, remove)",
        fixtures: &[
            "2.0.74-queue-operation",
            "2.1.39-queue-enqueue-remove",
            "2.1.42-headless-queue-dequeue",
        ],
    },
    Version {
        since: "2.0.55",
        shape: "`file-history-snapshot` records (no uuid, no session id); `slug`",
        fixtures: &["2.0.76-synthetic-no-response"],
    },
    Version {
        since: "2.0.64",
        shape: "`system` `stop_hook_summary`",
        fixtures: &["2.0.64-stop-hook-summary"],
    },
    Version {
        since: "2.0.76",
        shape: "compaction in the same file: `system` `compact_boundary`, then the `isCompactSummary` prompt",
        fixtures: &[
            "2.1.39-compact-boundary",
            "2.0.76-summary-top",
            "2.1.39-hooks-local-command",
        ],
    },
    Version {
        since: "2.1.2",
        shape: "sub-agents in `<session>/subagents/agent-<id>.jsonl`, named by the parent's `toolUseResult.agentId`",
        fixtures: &["2.1.17-subagents-dir"],
    },
    Version {
        since: "2.1.5",
        shape: "`system` `api_error` for retried calls (the `<synthetic>` answer stays for the final failure)",
        fixtures: &["2.1.17-system-api-error", "2.1.17-api-error-synthetic"],
    },
    Version {
        since: "2.1.7",
        shape: "`progress` lines (hooks, bash, a sub-agent's messages mirrored, MCP); `microcompact_boundary`; a first prompt under another session id after \"clear context\"",
        fixtures: &[
            "2.1.41-agent-progress",
            "2.1.12-clear-mixed-sessionid",
            "2.1.12-mcp-progress-summaries",
            "2.1.39-microcompact-boundary",
        ],
    },
    Version {
        since: "2.1.12",
        shape: "a resumed copy with every line under the new session id",
        fixtures: &["2.1.12-resume-copy", "2.1.12-summary-pair"],
    },
    Version {
        since: "2.1.29",
        shape: "`pr-link` records; no `summary` after 2.1.22",
        fixtures: &["2.1.42-pr-link"],
    },
    Version {
        since: "2.1.72",
        shape: "`last-prompt` records; `promptId` on prompts",
        fixtures: &["2.1.72-2.1.74-last-prompt"],
    },
    Version {
        since: "2.1.114",
        shape: "`attachment` lines instead of `progress`; `permission-mode`; sub-agents' `.meta.json`",
        fixtures: &["2.1.114-subagents-meta-worktree"],
    },
    Version {
        since: "2.1.211",
        shape: "headless SDK runs: `promptSource`, `entrypoint`, the prompt in an `enqueue`",
        fixtures: &[
            "2.1.216-sdk-headless-attachments",
            "2.1.218-sdk-headless-task-reminder",
        ],
    },
];

/// Anthropic's aliases of Claude 4 that Claude Code's `--model` takes (its CHANGELOG:
/// `--model claude-opus-4-0`).
const MODELS: &[(&str, &str)] = &[
    ("claude-opus-4-0", "claude-opus-4-20250514"),
    ("claude-sonnet-4-0", "claude-sonnet-4-20250514"),
];

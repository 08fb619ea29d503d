//! What the tool knows of the Cursor Agent CLI besides how its lines read: its names, its
//! two dialects, where its transcripts live, the versions whose transcripts changed shape,
//! and the names its menu gives models.

use super::Cursor;
use super::store::CursorStore;
use super::transcript::Transcript;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnswerScope, AnyDialect, Spec, StreamOrLog, Version, alias_in};

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

    /// Cursor's stream names models as its menu does ([`menu_model`]).
    fn model_alias(&self, name: &str) -> Option<String> {
        menu_model(name)
    }

    fn separates_messages(&self) -> bool {
        false
    }

    fn answer_scope(&self) -> Option<AnswerScope> {
        Some(AnswerScope::Whole)
    }
}

/// The model Cursor's own name for it is: Cursor's stream names models as its menu does,
/// with the mode it runs them in after the name (`Claude 4 Sonnet Thinking`,
/// `Grok 4.7 256K Extra High`, `GPT-5.1 Codex Max High`): by [`MENU`], else Anthropic's
/// name for `Claude 4.5 Sonnet` or `Opus 4.1`, else the menu's words joined by dashes
/// (`gpt-5.1-codex-max`, `grok-4.7`). `Auto` and Cursor's own models (`Composer 2.5`) have
/// no public price.
fn menu_model(name: &str) -> Option<String> {
    /// The modes after a name: thinking, reasoning effort, context size.
    const MODES: [&str; 9] = [
        " thinking",
        " (thinking)",
        " extra high",
        " xhigh",
        " high",
        " medium",
        " low",
        " 256k",
        " 1m",
    ];
    if let Some(model) = alias_in(MENU, name) {
        return Some(model);
    }
    if !name.contains(' ') {
        return None;
    }
    let mut base = name;
    while let Some(shorter) = MODES.iter().find_map(|m| base.strip_suffix(m)) {
        base = shorter.trim_end();
    }
    alias_in(MENU, base)
        .or_else(|| claude_by_family(base))
        .or_else(|| Some(base.replace(' ', "-")))
}

/// `Claude 4.5 Sonnet`, `Opus 4.1`: Anthropic's name for it.
fn claude_by_family(base: &str) -> Option<String> {
    let words: Vec<&str> = base.split(' ').filter(|w| *w != "claude").collect();
    let version = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    let [a, b] = words[..] else {
        return None;
    };
    let (family, v) = if version(a) { (b, a) } else { (a, b) };
    if !["sonnet", "opus", "haiku"].contains(&family) || !version(v) {
        return None;
    }
    let v = v.replace('.', "-");
    // Claude 3.x put the version first (`claude-3-7-sonnet`), Claude 4 on after it.
    Some(if v.starts_with(['1', '2', '3']) {
        format!("claude-{v}-{family}")
    } else {
        format!("claude-{family}-{v}")
    })
}

/// The models Cursor's menu names, lowercase, as the price table knows them.
const MENU: &[(&str, &str)] = &[
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
    // Gemini 3's models were previews by name in Google's API.
    ("gemini 3 pro", "gemini-3-pro-preview"),
    ("gemini 3 flash", "gemini-3-flash-preview"),
    ("gemini 3.1 pro", "gemini-3.1-pro-preview"),
    ("grok 4", "xai/grok-4"),
    ("grok code", "xai/grok-code-fast-1"),
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

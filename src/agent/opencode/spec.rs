//! What the tool knows of OpenCode besides how its lines read: its names, its two
//! dialects, where its sessions live, and the versions whose storage changed.

use super::OpenCode;
use super::log::OpenCodeLog;
use super::store::OpenCodeStore;
use crate::agent::event::Agent;
use crate::agent::store::Store;
use crate::agent::{AnyDialect, Spec, StreamOrLog, Version, alias_in};

/// OpenCode's `run --format json` stream, or its sessions as lines.
pub(crate) type Reader = StreamOrLog<OpenCode, OpenCodeLog>;

pub(crate) struct OpenCodeSpec;

pub(crate) static SPEC: OpenCodeSpec = OpenCodeSpec;

impl Spec for OpenCodeSpec {
    fn name(&self) -> &'static str {
        "opencode"
    }

    fn programs(&self) -> &'static [&'static str] {
        &["opencode"]
    }

    fn dialect(&self, log: bool) -> AnyDialect {
        AnyDialect::OpenCode(match log {
            false => StreamOrLog::Stream(OpenCode::default()),
            true => StreamOrLog::Log(Box::default()),
        })
    }

    fn stream_read_as(&self) -> Agent {
        Agent::OpenCode
    }

    fn store(&self) -> &'static dyn Store {
        &OpenCodeStore
    }

    fn model_alias(&self, name: &str) -> Option<String> {
        alias_in(MODELS, name)
    }

    fn versions(&self) -> &'static [Version] {
        VERSIONS
    }
}

/// The versions of OpenCode whose storage changed shape, as the real files in
/// `tests/fixtures/history/opencode/` show them (their `VERSIONS.md` has the evidence).
const VERSIONS: &[Version] = &[
    Version {
        since: "0.5",
        shape: "JSON files per project: `project/<p>/storage/session/{info,message,part}/…`",
        fixtures: &["0.5-project-storage"],
    },
    Version {
        since: "0.14",
        shape: "one `storage/`: `session/<project>/<ses>.json`, `message/<ses>/<msg>.json`, `part/<msg>/<prt>.json`",
        fixtures: &["0.14-json-storage"],
    },
    Version {
        since: "1.1",
        shape: "sessions gain `slug`, `summary`; answers `parentID`, `finish`; step parts `reason`",
        fixtures: &["1.1-json-storage"],
    },
    Version {
        since: "1.2",
        shape: "SQLite `opencode.db` (WAL): `session`, `message`, `part` rows, the ids as columns",
        fixtures: &[],
    },
    Version {
        since: "1.17",
        shape: "session token and cost columns; `session_message`, `event` tables; `tokens.total`",
        fixtures: &["1.17-sqlite"],
    },
];

/// OpenCode Zen's ids for vendors' models (OpenCode's docs, zen: "Grok Code Fast 1",
/// "Kimi K2", "Gemini 3 Pro").
const MODELS: &[(&str, &str)] = &[
    ("grok-code", "xai/grok-code-fast-1"),
    ("kimi-k2", "moonshot/kimi-k2-0905-preview"),
    ("gemini-3-pro", "gemini-3-pro-preview"),
];

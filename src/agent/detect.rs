//! Telling which agent wrote a stream, from one event at a time.
//!
//! Each agent has type names of its own, and for the names they share (`system`,
//! `assistant`, `user`, `result`, `error`, `tool_use`) a top-level key tells: Claude's and
//! Qwen's lines carry `uuid` or `parent_tool_use_id`, Cursor's `timestamp_ms` or
//! `model_call_id`, Gemini's a string `timestamp`, OpenCode's `sessionID`. The rules and
//! their sources are in `../shared/spec/agents/*.md` ("telling streams apart").
//!
//! A line that tells nothing (a bare `user` line, an unknown type) gives `None`; the
//! dispatcher then holds the lines until one tells, and reads the stream as Cursor's when
//! none does.

use super::Format;
use super::event::Agent;
use crate::input::json::{BorrowedStr, top_level_members, top_level_value};
use crate::input::peek::{Head, NameId, Peeked};

/// Whether the event is an agent's terminal event: `result` (Cursor, Claude, Qwen,
/// Gemini) or the end of a Codex turn.
pub(crate) fn ends_run(head: &Head) -> bool {
    matches!(
        head.name,
        NameId::RESULT | NameId::TURN_COMPLETED | NameId::TURN_FAILED
    )
}

/// Whether the event starts a run: `system` `init` (Cursor, Claude, Qwen; Claude's
/// `session_start` too), Gemini's `init`, Codex's `thread.started` (`session.created` in
/// its experimental format). The one test of a run start: the dispatcher's switch to
/// another agent, the run boundaries below and the split of a file in parts all use it.
pub(crate) fn starts_run(head: &Head, line: &[u8]) -> bool {
    match head.name {
        NameId::SYSTEM => matches!(
            head.subtype(line).as_deref(),
            Some("init" | "session_start")
        ),
        NameId::INIT | NameId::THREAD_STARTED | NameId::SESSION_CREATED => true,
        _ => false,
    }
}

/// Run boundaries, line by line: an event that starts a run (see [`starts_run`]) after a
/// terminal event, with only blank lines and lines that are not events between them.
///
/// There, when the last run is closed, the dispatcher starts the new run's dialect
/// afresh, as at the start of an input: nothing of the last run carries over. So a
/// reading that starts at such a line (one big file read in parts at once, see
/// `crate::parallel::split`) gives what the reading from the start gives.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Boundaries {
    after_terminal: bool,
}

impl Boundaries {
    /// The next line (with its peek): the format whose run starts here, when the line is
    /// a run boundary.
    pub(crate) fn next(&mut self, peeked: &Peeked, line: &[u8]) -> Option<Format> {
        let Peeked::Event(head) = peeked else {
            return None;
        };
        if !std::mem::replace(&mut self.after_terminal, ends_run(head)) {
            return None;
        }
        let line = line.get(head.start..)?;
        if !starts_run(head, line) {
            return None;
        }
        sniff(head, line)
    }

    /// The last event was a terminal event.
    pub(crate) fn after_terminal(self) -> bool {
        self.after_terminal
    }
}

/// The format an event line belongs to, if the line alone tells: a session log's
/// records first (their names, or the keys of their envelope), then the streams'.
pub(crate) fn sniff(head: &Head, line: &[u8]) -> Option<Format> {
    if let Some(agent) = log_agent(head, line) {
        return Some(Format::log(agent));
    }
    stream_agent(head, line).map(Format::stream)
}

/// The agent whose session log holds the line, if it is a log record.
fn log_agent(head: &Head, line: &[u8]) -> Option<Agent> {
    match head.name {
        NameId::SUMMARY
        | NameId::FILE_HISTORY_SNAPSHOT
        | NameId::QUEUE_OPERATION
        | NameId::ATTACHMENT
        | NameId::PROGRESS
        | NameId::AI_TITLE
        | NameId::CUSTOM_TITLE
        | NameId::LAST_PROMPT => Some(Agent::Claude),
        NameId::SESSION => Some(Agent::OpenCode),
        NameId::SESSION_META
        | NameId::RESPONSE_ITEM
        | NameId::EVENT_MSG
        | NameId::TURN_CONTEXT
        | NameId::COMPACTED
        | NameId::WORLD_STATE
        | NameId::TOKEN_USAGE_RECORD => Some(Agent::Codex),
        NameId::MESSAGE | NameId::REASONING if bare_codex_item(head, line) => Some(Agent::Codex),
        NameId::GEMINI | NameId::INFO | NameId::WARNING => Some(Agent::Gemini),
        NameId::TURN_ENDED => Some(Agent::Cursor),
        // Gemini's stream writes errors too, but as `severity` and `message`.
        NameId::ERROR => keys(line).gemini_message().then_some(Agent::Gemini),
        NameId::USER | NameId::ASSISTANT | NameId::SYSTEM | NameId::TOOL_RESULT => {
            let k = keys(line);
            if k.gemini_message() {
                Some(Agent::Gemini)
            } else if k.session_id_log
                && (k.qwen_log || k.message_parts || head.name == NameId::TOOL_RESULT)
            {
                Some(Agent::Qwen)
            } else if k.session_id_log {
                Some(Agent::Claude)
            } else if k.session_id_camel && k.message {
                Some(Agent::OpenCode)
            } else {
                None
            }
        }
        _ => None,
    }
}

fn stream_agent(head: &Head, line: &[u8]) -> Option<Agent> {
    match head.name {
        NameId::THINKING
        | NameId::TOOL_CALL
        | NameId::CONNECTION
        | NameId::RETRY
        | NameId::INTERACTION_QUERY => Some(Agent::Cursor),
        NameId::STREAM_EVENT
        | NameId::RATE_LIMIT_EVENT
        | NameId::CONTROL_REQUEST
        | NameId::CONTROL_RESPONSE => Some(claude_or_qwen(&keys(line))),
        NameId::THREAD_STARTED
        | NameId::SESSION_CREATED
        | NameId::TURN_STARTED
        | NameId::TURN_COMPLETED
        | NameId::TURN_FAILED
        | NameId::ITEM_STARTED
        | NameId::ITEM_UPDATED
        | NameId::ITEM_COMPLETED => Some(Agent::Codex),
        NameId::INIT | NameId::MESSAGE | NameId::TOOL_RESULT => Some(Agent::Gemini),
        NameId::TEXT
        | NameId::STEP_START
        | NameId::STEP_FINISH
        | NameId::REASONING
        | NameId::DONE => Some(Agent::OpenCode),
        NameId::TOOL_USE => {
            let k = keys(line);
            if k.session_id_camel || k.part {
                Some(Agent::OpenCode)
            } else {
                Some(Agent::Gemini)
            }
        }
        NameId::ERROR => {
            let k = keys(line);
            Some(if k.session_id_camel {
                Agent::OpenCode
            } else if k.severity || k.timestamp_text {
                Agent::Gemini
            } else {
                Agent::Codex
            })
        }
        NameId::SYSTEM => system(head, line, &keys(line)),
        NameId::ASSISTANT | NameId::USER | NameId::RESULT => {
            let k = keys(line);
            if k.claude {
                Some(claude_or_qwen(&k))
            } else if k.cursor {
                Some(Agent::Cursor)
            } else if head.name == NameId::RESULT && (k.status || k.stats) {
                Some(Agent::Gemini)
            } else if head.name == NameId::RESULT && k.duration_api_ms {
                Some(Agent::Cursor)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A line's own session id, under any agent's key (`session_id`, OpenCode's `sessionID`,
/// Codex's `thread_id`).
pub(crate) fn session_id_of(line: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    use serde::de::DeserializeSeed;
    ["session_id", "sessionID", "thread_id"]
        .into_iter()
        .find_map(|key| top_level_value(line, key))
        .and_then(|token| {
            let mut de = serde_json::Deserializer::from_slice(token);
            BorrowedStr.deserialize(&mut de).ok()
        })
}

/// The format a JSON object without `type` belongs to: Codex before 0.44 (a config
/// summary, `{"prompt":…}`, then `{"id":…,"msg":{…}}` events), or Gemini CLI's chat log
/// (its first record, `$set`, `$rewindTo`).
pub(crate) fn sniff_untyped(line: &[u8]) -> Option<Format> {
    if bare_codex_record(line) {
        return Some(Format::log(Agent::Codex));
    }
    let k = keys(line);
    if k.codex_config || (k.id && k.msg) {
        Some(Format::stream(Agent::Codex))
    } else if k.gemini_chat {
        Some(Format::log(Agent::Gemini))
    } else if k.role && k.message {
        Some(Format::log(Agent::Cursor))
    } else {
        None
    }
}

/// A response item of a Codex rollout of before 0.3x, written bare: no envelope and no
/// time (the streams' `message` and `reasoning` lines carry a `timestamp`), a `message`'s
/// `content` a list, a `reasoning`'s `summary`.
fn bare_codex_item(head: &Head, line: &[u8]) -> bool {
    top_level_value(line, "timestamp").is_none()
        && match head.name {
            NameId::MESSAGE => {
                top_level_value(line, "content").is_some_and(|c| c.starts_with(b"["))
            }
            _ => top_level_value(line, "summary").is_some(),
        }
}

/// The untyped records of a Codex rollout of before 0.3x: its header
/// (`{"id","timestamp","instructions"[,"git"]}`) and the state kept after each turn
/// (`{"record_type":"state"}`).
fn bare_codex_record(line: &[u8]) -> bool {
    let has = |key| top_level_value(line, key).is_some();
    has("record_type") || (has("id") && has("timestamp") && has("instructions"))
}

fn system(head: &Head, line: &[u8], k: &Keys) -> Option<Agent> {
    let init = head.subtype(line).as_deref() == Some("init");
    if k.qwen {
        Some(Agent::Qwen)
    } else if k.claude || (init && k.tools) {
        Some(Agent::Claude)
    } else if k.api_key_source || k.cursor {
        Some(Agent::Cursor)
    } else {
        None
    }
}

fn claude_or_qwen(k: &Keys) -> Agent {
    if k.qwen { Agent::Qwen } else { Agent::Claude }
}

/// The top-level keys that tell agents apart.
#[derive(Default)]
struct Keys {
    /// `uuid`, `parent_tool_use_id`, `claude_code_version`, `num_turns`, `total_cost_usd`.
    claude: bool,
    /// `qwen_code_version`, `permission_mode`.
    qwen: bool,
    /// `timestamp_ms`, `model_call_id`.
    cursor: bool,
    api_key_source: bool,
    tools: bool,
    duration_api_ms: bool,
    session_id_camel: bool,
    /// `sessionId`: the envelope of Claude Code's (and Qwen Code's) session logs.
    session_id_log: bool,
    part: bool,
    severity: bool,
    /// `timestamp` holding a string (Gemini's ISO time; OpenCode's is a number).
    timestamp_text: bool,
    status: bool,
    stats: bool,
    codex_config: bool,
    id: bool,
    msg: bool,
    message: bool,
    content: bool,
    /// `projectHash`, `$set`, `$rewindTo`: Gemini CLI's chat log's own records.
    gemini_chat: bool,
    /// `provenance`, `usageMetadata`, `toolCallResult`, `systemPayload`: Qwen Code's log.
    qwen_log: bool,
    /// A `message` made of `parts` (Gemini's `Content`): Qwen Code's log, before 0.24
    /// wrote `provenance` on its first records (Claude's `message` has `content`).
    message_parts: bool,
    role: bool,
}

impl Keys {
    /// A message of Gemini CLI's chat log (`{"id","timestamp","type","content"}`): none
    /// of the streams' `user` or `error` lines has an `id` and a `content` of its own
    /// (Claude's and Cursor's are in `message`, Gemini's stream error has `message`).
    fn gemini_message(&self) -> bool {
        self.id && self.content && self.timestamp_text && !self.message && !self.session_id_log
    }
}

fn keys(line: &[u8]) -> Keys {
    let mut k = Keys::default();
    top_level_members(line, |key, value| {
        match key {
            b"uuid"
            | b"parent_tool_use_id"
            | b"claude_code_version"
            | b"num_turns"
            | b"total_cost_usd" => k.claude = true,
            b"qwen_code_version" | b"permission_mode" => {
                k.qwen = true;
                k.claude = true;
            }
            b"timestamp_ms" | b"model_call_id" => k.cursor = true,
            b"apiKeySource" => k.api_key_source = true,
            b"tools" => k.tools = true,
            b"duration_api_ms" => k.duration_api_ms = true,
            b"sessionID" => k.session_id_camel = true,
            b"sessionId" => k.session_id_log = true,
            b"part" => k.part = true,
            b"severity" => k.severity = true,
            b"timestamp" => k.timestamp_text = value.first() == Some(&b'"'),
            b"status" => k.status = true,
            b"stats" => k.stats = true,
            b"sandbox" | b"approval" | b"workdir" | b"provider" => k.codex_config = true,
            b"id" => k.id = true,
            b"msg" => k.msg = true,
            b"message" => {
                k.message = true;
                k.message_parts = top_level_value(value, "parts").is_some();
            }
            b"role" => k.role = true,
            b"content" => k.content = true,
            b"projectHash" | b"$set" | b"$rewindTo" => k.gemini_chat = true,
            b"provenance" | b"usageMetadata" | b"toolCallResult" | b"systemPayload" => {
                k.qwen_log = true
            }
            _ => {}
        }
        true
    });
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::peek::{Peeked, TypeSet, peek};

    fn format_of(line: &str) -> Option<Format> {
        match peek(line.as_bytes(), TypeSet::NONE) {
            Peeked::Event(head) => sniff(&head, &line.as_bytes()[head.start..]),
            _ => sniff_untyped(line.as_bytes()),
        }
    }

    /// The agent of a stream's line (a log's gives `None`).
    fn agent_of(line: &str) -> Option<Agent> {
        format_of(line).filter(|f| !f.log).map(|f| f.agent)
    }

    #[test]
    fn first_lines_of_every_agent() {
        for (line, agent) in [
            (
                r#"{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"s","model":"Auto","permissionMode":"default"}"#,
                Some(Agent::Cursor),
            ),
            (
                r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"s","tools":["Bash"],"mcp_servers":[],"model":"m","permissionMode":"default","apiKeySource":"none","claude_code_version":"2.0.76","uuid":"u"}"#,
                Some(Agent::Claude),
            ),
            (
                r#"{"type":"system","subtype":"hook_started","hook_id":"h","hook_name":"SessionStart:startup","hook_event":"SessionStart","uuid":"u","session_id":"s"}"#,
                Some(Agent::Claude),
            ),
            (
                r#"{"type":"system","subtype":"init","uuid":"u","session_id":"u","cwd":"/w","tools":[],"mcp_servers":[],"model":"q","permission_mode":"yolo","qwen_code_version":"0.15.6"}"#,
                Some(Agent::Qwen),
            ),
            (
                r#"{"type":"thread.started","thread_id":"t"}"#,
                Some(Agent::Codex),
            ),
            (
                r#"{"type":"init","timestamp":"2026-04-11T22:35:47.989Z","session_id":"s","model":"m"}"#,
                Some(Agent::Gemini),
            ),
            (
                r#"MCP issues detected. Run /mcp list for status.{"type":"init","timestamp":"t","session_id":"s","model":"m"}"#,
                Some(Agent::Gemini),
            ),
            (
                r#"{"type":"step_start","timestamp":1778041170989,"sessionID":"ses_1","part":{}}"#,
                Some(Agent::OpenCode),
            ),
            (
                r#"{"type":"error","timestamp":1778041147596,"sessionID":"ses_2","error":{"name":"UnknownError"}}"#,
                Some(Agent::OpenCode),
            ),
            (
                r#"{"type":"error","timestamp":"t","severity":"warning","message":"Loop detected"}"#,
                Some(Agent::Gemini),
            ),
            (
                r#"{"type":"error","message":"Reconnecting... 1/5"}"#,
                Some(Agent::Codex),
            ),
            (
                r#"{"sandbox":"danger-full-access","approval":"Never","provider":"openai","workdir":"/w","model":"codex-mini-latest"}"#,
                Some(Agent::Codex),
            ),
            (
                r#"{"id":"1","msg":{"type":"task_started"}}"#,
                Some(Agent::Codex),
            ),
        ] {
            assert_eq!(agent_of(line), agent, "{line}");
        }
    }

    #[test]
    fn qwen_s_log_is_told_from_claude_s_with_or_without_provenance() {
        let qwen_0_12 = r#"{"uuid":"u","parentUuid":null,"sessionId":"s","timestamp":"t","type":"user","cwd":"/w","version":"0.12.6","message":{"role":"user","parts":[{"text":"hi"}]}}"#;
        let qwen_0_24 = r#"{"uuid":"u","sessionId":"s","timestamp":"t","type":"user","cwd":"/w","provenance":"real_user","message":{"role":"user","parts":[{"text":"hi"}]}}"#;
        let claude = r#"{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.1","type":"user","message":{"role":"user","content":"hi "parts":[]"},"uuid":"u","timestamp":"t"}"#;
        assert_eq!(format_of(qwen_0_12), Some(Format::log(Agent::Qwen)));
        assert_eq!(format_of(qwen_0_24), Some(Format::log(Agent::Qwen)));
        assert_eq!(format_of(claude), Some(Format::log(Agent::Claude)));
    }

    /// Codex's rollouts before 0.3x: a header and state records without `type`, then the
    /// response items bare (a `message`, a `reasoning`: names Gemini's and OpenCode's
    /// streams use too, with a time).
    #[test]
    fn a_codex_rollout_of_before_0_3x_is_codex_s_log() {
        for line in [
            r#"{"id":"355594bc-df89-40aa-81de-d6d675f11e8b","timestamp":"2025-08-22T16:56:24.134Z","instructions":null,"git":{"branch":"main"}}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"hi"}]}"#,
            r#"{"type":"reasoning","id":"rs_1","summary":[],"content":null,"encrypted_content":"x"}"#,
        ] {
            assert_eq!(format_of(line), Some(Format::log(Agent::Codex)), "{line}");
        }
        let gemini = r#"{"type":"message","timestamp":"t","role":"assistant","content":"hi"}"#;
        assert_eq!(format_of(gemini), Some(Format::stream(Agent::Gemini)));
        let opencode = r#"{"type":"reasoning","timestamp":1,"sessionID":"ses","part":{}}"#;
        assert_eq!(format_of(opencode), Some(Format::stream(Agent::OpenCode)));
    }

    /// A Gemini chat's `user` and `error` messages are its log's, not a stream's: read as
    /// the stream's, the prompt answered by an error alone was no failure.
    #[test]
    fn gemini_s_chat_messages_are_its_log_s() {
        let user = r#"{"id":"8901a054","timestamp":"2026-04-25T12:48:44.969Z","type":"user","content":[{"text":"fix it"}]}"#;
        let error = r#"{"id":"22994a57","timestamp":"2026-04-25T12:48:49.811Z","type":"error","content":"[API Error: You have exhausted your capacity on this model.]"}"#;
        for line in [user, error] {
            assert_eq!(format_of(line), Some(Format::log(Agent::Gemini)), "{line}");
        }
        let stream_error =
            r#"{"type":"error","timestamp":"t","severity":"error","message":"quota"}"#;
        assert_eq!(format_of(stream_error), Some(Format::stream(Agent::Gemini)));
    }

    #[test]
    fn shared_names_are_told_by_their_keys() {
        let cursor_delta = r#"{"type":"assistant","message":{"role":"assistant","content":[]},"session_id":"s","timestamp_ms":1}"#;
        assert_eq!(agent_of(cursor_delta), Some(Agent::Cursor));
        let claude = r#"{"type":"assistant","message":{"id":"msg_1","content":[]},"parent_tool_use_id":null,"session_id":"s","uuid":"u"}"#;
        assert_eq!(agent_of(claude), Some(Agent::Claude));
        let claude_result = r#"{"duration_api_ms":1,"is_error":false,"num_turns":1,"subtype":"success","result":"x","type":"result","uuid":"u"}"#;
        assert_eq!(agent_of(claude_result), Some(Agent::Claude));
        let gemini_result = r#"{"type":"result","timestamp":"t","status":"success","stats":{}}"#;
        assert_eq!(agent_of(gemini_result), Some(Agent::Gemini));
        let gemini_tool = r#"{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"x","parameters":{}}"#;
        assert_eq!(agent_of(gemini_tool), Some(Agent::Gemini));
        let opencode_tool =
            r#"{"type":"tool_use","timestamp":1,"sessionID":"ses","part":{"type":"tool"}}"#;
        assert_eq!(agent_of(opencode_tool), Some(Agent::OpenCode));
        // Nested keys do not count, and a bare line tells nothing.
        let nested = r#"{"type":"user","message":{"uuid":"x","content":[]},"session_id":"s"}"#;
        assert_eq!(agent_of(nested), None);
        assert_eq!(
            agent_of(r#"{"type":"system","subtype":"init","session_id":"s1"}"#),
            None
        );
    }
}

//! Claude Code's (and Qwen Code's) lines, read into borrowed structs.
//!
//! ```text
//! {"type":"system","subtype":"init","cwd":"…","session_id":"…","tools":[…],"model":"…",…,"claude_code_version":"2.1.x","uuid":"…"}
//! {"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"…"}},"session_id":"…","parent_tool_use_id":null,"uuid":"…"}
//! {"type":"assistant","message":{"id":"msg_…","content":[{"type":"text","text":"…"}|{"type":"tool_use","id":"toolu_…","name":"Bash","input":{…}}|{"type":"thinking","thinking":"…"}],…},"parent_tool_use_id":null,"session_id":"…",…}
//! {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_…","content":"…"|[…],"is_error":true}]},"tool_use_result":{…},…}
//! {"type":"result","subtype":"success","is_error":false,"result":"<last message>","usage":{…},"total_cost_usd":…,…}
//! ```
//!
//! Key order varies between releases (`type` is not the first key of 2.1.219+ `result`
//! lines; `tool_result` blocks come in both orders): everything is read by key.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use crate::agent::event::Effect;
use crate::agent::wire::{ErrorMessage, element, without_elements};
use crate::input::json::{
    AppendStr, AppendText, EachElement, KeyIn, MaybeStr, OptStr, append_escaped, is_string_text,
    plain_value, string_body,
};
use crate::input::lenient::{Flag, Num, Object, TokenCount};
use crate::input::peek::fast_paths;

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Init<'a> {
    #[serde(borrow)]
    pub session_id: MaybeStr<'a>,
    #[serde(borrow)]
    pub model: MaybeStr<'a>,
    #[serde(borrow)]
    pub cwd: MaybeStr<'a>,
    pub qwen_code_version: Option<IgnoredAny>,
    pub permission_mode: Option<IgnoredAny>,
}

pub(super) fn read_init(line: &[u8]) -> Result<Init<'_>, serde_json::Error> {
    crate::input::json::from_line(line)
}

/// The fields of the other `system` events this dialect reads.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct System<'a> {
    #[serde(borrow)]
    pub tool_use_id: MaybeStr<'a>,
    pub attempt: Num,
    pub max_retries: Num,
    #[serde(borrow)]
    pub error: MaybeStr<'a>,
    #[serde(borrow)]
    data: Option<Fallback<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct Fallback<'a> {
    #[serde(borrow)]
    from_model: MaybeStr<'a>,
    #[serde(borrow)]
    to_model: MaybeStr<'a>,
}

impl System<'_> {
    pub(super) fn fallback(&self) -> Option<(&str, &str)> {
        let data = self.data.as_ref()?;
        Some((data.from_model.as_deref()?, data.to_model.as_deref()?))
    }
}

/// A `system` line that cannot be read is no worse than one that says nothing.
pub(super) fn read_system(line: &[u8]) -> System<'_> {
    crate::input::json::from_line(line).unwrap_or_default()
}

/// A `rate_limit_event`'s `rate_limit_info`: `{"status":"allowed","resetsAt":1785704400,
/// "rateLimitType":"five_hour",…}` (2.1.x; epoch seconds).
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct RateLimit<'a> {
    #[serde(borrow)]
    pub status: MaybeStr<'a>,
    #[serde(rename = "resetsAt")]
    pub resets_at: crate::input::lenient::Num,
    #[serde(rename = "rateLimitType", borrow)]
    pub kind: MaybeStr<'a>,
}

impl RateLimit<'_> {
    /// The window it is about: `five_hour` or `seven_day` (a per-model weekly window,
    /// `seven_day_opus`, is none of them).
    pub(super) fn window(&self) -> Option<crate::agent::event::LimitWindow> {
        use crate::agent::event::LimitWindow;
        match self.kind.0.as_deref()? {
            "five_hour" => Some(LimitWindow::FiveHour),
            "seven_day" => Some(LimitWindow::SevenDay),
            _ => None,
        }
    }
}

/// The `rate_limit_info` of a `rate_limit_event`.
pub(super) fn rate_limit(line: &[u8]) -> Option<RateLimit<'_>> {
    #[derive(Deserialize)]
    struct Event<'a> {
        #[serde(borrow)]
        rate_limit_info: RateLimit<'a>,
    }
    Some(
        crate::input::json::from_line::<Event>(line)
            .ok()?
            .rate_limit_info,
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum StreamKind {
    MessageStart,
    BlockStart,
    BlockDelta,
    #[default]
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum BlockKind {
    Text,
    Thinking,
    ToolUse,
    ToolResult,
    #[default]
    Other,
}

impl BlockKind {
    fn of(name: Option<usize>) -> BlockKind {
        match name {
            Some(0) => BlockKind::Text,
            Some(1) | Some(2) => BlockKind::Thinking,
            Some(3) => BlockKind::ToolUse,
            Some(4) => BlockKind::ToolResult,
            _ => BlockKind::Other,
        }
    }
}

const BLOCK_KINDS: &[&str] = &[
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "tool_result",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum DeltaKind {
    Text,
    Thinking,
    #[default]
    Other,
}

/// A `stream_event` line; the delta's text is appended to the caller's buffer.
#[derive(Debug, Default)]
pub(super) struct StreamEvent<'a> {
    pub kind: StreamKind,
    /// `parent_tool_use_id` is null or absent: the event is the main agent's.
    pub top_level: bool,
    pub message_id: Option<Cow<'a, str>>,
    pub block: BlockKind,
    pub delta: DeltaKind,
}

pub(super) fn read_stream_event<'a>(
    line: &'a [u8],
    text: &mut Vec<u8>,
) -> Result<StreamEvent<'a>, serde_json::Error> {
    let start = text.len();
    if let Some(ev) = fast_paths().then(|| fast_delta(line, text)).flatten() {
        return Ok(ev);
    }
    text.truncate(start);
    crate::input::json::with_de!(line, undo { text.truncate(start); }, |de| {
        let ev = de.deserialize_map(StreamSeed { text: &mut *text })?;
        de.end()?;
        Ok(ev)
    })
}

/// The layout of every text and thinking delta Claude Code writes, up to the text:
const DELTA_PREFIX: &[u8] =
    br#"{"type":"stream_event","event":{"type":"content_block_delta","index":"#;

/// Reads a text or thinking delta laid out exactly as Claude Code writes it, without a
/// parser; gives up (`None`) on any other line:
///
/// ```text
/// {"type":"stream_event","event":{"type":"content_block_delta","index":<digits>,
///  "delta":{"type":"text_delta","text":"<text>"}},"<key>":"<plain>"|null,…}
/// ```
///
/// Every key and value after the event must be a plain string (no escape) or `null`, and
/// is checked as a JSON string would be; the text is decoded as serde_json decodes it. So
/// it agrees with the parser on every line it takes.
fn fast_delta(line: &[u8], text: &mut Vec<u8>) -> Option<StreamEvent<'static>> {
    let rest = line.strip_prefix(DELTA_PREFIX)?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    // JSON has no leading zeros: such a number is serde_json's to refuse.
    if digits == 0 || (digits > 1 && rest[0] == b'0') {
        return None;
    }
    let rest = rest[digits..].strip_prefix(br#","delta":{"type":""#)?;
    let (delta, rest) = if let Some(r) = rest.strip_prefix(br#"text_delta","text":""#) {
        (DeltaKind::Text, r)
    } else {
        let r = rest.strip_prefix(br#"thinking_delta","thinking":""#)?;
        (DeltaKind::Thinking, r)
    };
    let (body, escaped, after_body) = string_body(rest)?;
    // The string token, quotes included.
    let token_start = line.len() - after_body.len() - body.len() - 2;
    let token = &line[token_start..line.len() - after_body.len()];
    let mut rest = after_body.strip_prefix(b"}}")?;
    let mut top_level = true;
    loop {
        if rest == b"}" {
            break;
        }
        let (key, after) = plain_value(rest.strip_prefix(b",\"")?)?;
        let after = after.strip_prefix(b":")?;
        let (is_null, after) = match after.strip_prefix(b"null") {
            Some(after) => (true, after),
            None => (false, plain_value(after.strip_prefix(b"\"")?)?.1),
        };
        match key {
            b"parent_tool_use_id" => top_level = is_null,
            b"event" => return None,
            _ => {}
        }
        rest = after;
    }
    if !escaped {
        if !is_string_text(body) {
            return None;
        }
        text.extend_from_slice(body);
    } else if append_escaped(body, text).is_none() {
        // `\u` escapes: serde_json decodes the token.
        let mut de = serde_json::Deserializer::from_slice(token);
        AppendStr { text }.deserialize(&mut de).ok()?;
    }
    Some(StreamEvent {
        kind: StreamKind::BlockDelta,
        top_level,
        message_id: None,
        block: BlockKind::Other,
        delta,
    })
}

struct StreamSeed<'t> {
    text: &'t mut Vec<u8>,
}

impl<'de> Visitor<'de> for StreamSeed<'_> {
    type Value = StreamEvent<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a stream_event object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut ev = StreamEvent {
            top_level: true,
            ..StreamEvent::default()
        };
        while let Some(key) = map.next_key_seed(KeyIn(&["event", "parent_tool_use_id"]))? {
            match key {
                Some(0) => {
                    map.next_value_seed(EventSeed {
                        text: &mut *self.text,
                        ev: &mut ev,
                    })?;
                }
                Some(1) => ev.top_level = map.next_value_seed(OptStr)?.is_none(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(ev)
    }
}

/// The `event` object: the Anthropic Messages streaming event.
struct EventSeed<'t, 'e, 'de> {
    text: &'t mut Vec<u8>,
    ev: &'e mut StreamEvent<'de>,
}

impl<'de> DeserializeSeed<'de> for EventSeed<'_, '_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EventSeed<'_, '_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a streaming event object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        #[derive(Deserialize)]
        struct Head<'a> {
            #[serde(rename = "type", borrow, default)]
            kind: MaybeStr<'a>,
        }
        #[derive(Deserialize)]
        struct Message<'a> {
            #[serde(borrow, default)]
            id: MaybeStr<'a>,
        }
        const KEYS: &[&str] = &["type", "delta", "content_block", "message"];
        while let Some(key) = map.next_key_seed(KeyIn(KEYS))? {
            match key {
                Some(0) => {
                    self.ev.kind = match map.next_value_seed(KeyIn(&[
                        "message_start",
                        "content_block_start",
                        "content_block_delta",
                    ]))? {
                        Some(0) => StreamKind::MessageStart,
                        Some(1) => StreamKind::BlockStart,
                        Some(2) => StreamKind::BlockDelta,
                        _ => StreamKind::Other,
                    }
                }
                Some(1) => {
                    self.ev.delta = map.next_value_seed(DeltaSeed {
                        text: &mut *self.text,
                    })?
                }
                Some(2) => {
                    let head: Option<Head> = map.next_value()?;
                    self.ev.block = head.map_or(BlockKind::Other, |h| {
                        BlockKind::of(
                            h.kind
                                .as_deref()
                                .and_then(|k| BLOCK_KINDS.iter().position(|n| *n == k)),
                        )
                    });
                }
                Some(3) => {
                    let message: Option<Message> = map.next_value()?;
                    self.ev.message_id = message.and_then(|m| m.id.0);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// `delta`: `text_delta` and `thinking_delta` text is appended; other deltas (tool input,
/// signatures) are skipped.
struct DeltaSeed<'t> {
    text: &'t mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for DeltaSeed<'_> {
    type Value = DeltaKind;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<DeltaKind, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for DeltaSeed<'_> {
    type Value = DeltaKind;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a delta object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<DeltaKind, M::Error> {
        let mut kind = DeltaKind::Other;
        let start = self.text.len();
        while let Some(key) = map.next_key_seed(KeyIn(&["type", "text", "thinking"]))? {
            match key {
                Some(0) => {
                    kind = match map.next_value_seed(KeyIn(&["text_delta", "thinking_delta"]))? {
                        Some(0) => DeltaKind::Text,
                        Some(1) => DeltaKind::Thinking,
                        _ => DeltaKind::Other,
                    }
                }
                Some(_) => map.next_value_seed(AppendText {
                    text: &mut *self.text,
                })?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if kind == DeltaKind::Other {
            self.text.truncate(start);
        }
        Ok(kind)
    }

    fn visit_unit<E: de::Error>(self) -> Result<DeltaKind, E> {
        Ok(DeltaKind::Other)
    }
}

/// An `assistant` or `user` line: what is around its content blocks. The session log's
/// records (`~/.claude/projects`) are the same messages in another envelope: camelCase
/// keys, and the fields after `log` below.
#[derive(Deserialize)]
pub(super) struct Message<'a> {
    #[serde(borrow, default)]
    message: Option<MessageBody<'a>>,
    #[serde(borrow, default)]
    pub parent_tool_use_id: MaybeStr<'a>,
    #[serde(borrow, default, alias = "sessionId")]
    pub session_id: MaybeStr<'a>,
    /// 2.1.x lines carry an RFC 3339 time.
    #[serde(borrow, default)]
    pub timestamp: MaybeStr<'a>,
    /// `user` lines (2.0.76+): the tool's structured output.
    #[serde(borrow, default, alias = "toolUseResult")]
    pub tool_use_result: Option<&'a RawValue>,
    /// `user` lines: `[{id, non_execution_kind}]` for calls that never ran.
    #[serde(borrow, default)]
    pub tool_result_meta: Option<&'a RawValue>,
    #[serde(skip)]
    pub message_id: Option<Cow<'a, str>>,
    #[serde(skip)]
    pub content: Option<&'a RawValue>,
    // The session log's own fields.
    #[serde(borrow, default, rename = "requestId")]
    pub request_id: MaybeStr<'a>,
    /// The line's own id, which a `summary` may name as its `leafUuid`.
    #[serde(borrow, default)]
    pub uuid: MaybeStr<'a>,
    #[serde(borrow, default)]
    pub cwd: MaybeStr<'a>,
    /// A sub-agent's message (inline in logs before 2.1, or in `subagents/` files).
    #[serde(default, rename = "isSidechain")]
    pub is_sidechain: Flag,
    /// Not the user's words: a caveat, a command's expansion, a hook's context.
    #[serde(default, rename = "isMeta")]
    pub is_meta: Flag,
    /// The summary `/compact` leaves as the first user message of what follows.
    #[serde(default, rename = "isCompactSummary")]
    pub is_compact_summary: Flag,
    /// The CLI's own assistant message for a failed model call (`API Error: …`).
    #[serde(default, rename = "isApiErrorMessage")]
    pub is_api_error: Flag,
    /// A stream's echo of a message the user sent (`--replay-user-messages`).
    #[serde(default, rename = "isReplay")]
    pub is_replay: Flag,
    /// A session log's sub-agent's messages: whose they are.
    #[serde(borrow, default, rename = "agentId")]
    pub agent_id: MaybeStr<'a>,
    /// A session log's tool result that a permission rule or the user refused.
    /// What the line's response cost, in old logs (`costUSD`).
    #[serde(default, rename = "costUSD")]
    pub cost_usd: Num,
    #[serde(borrow, default, rename = "toolDenialKind")]
    tool_denial_kind: MaybeStr<'a>,
    #[serde(default, rename = "permissionDecision")]
    permission_decision: Object<Decision<'a>>,
    #[serde(skip)]
    pub model: Option<Cow<'a, str>>,
    #[serde(skip)]
    pub usage: Option<MessageUsage>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Decision<'a> {
    #[serde(borrow)]
    decision: MaybeStr<'a>,
}

impl Message<'_> {
    /// A session log's tool results that were refused (`toolDenialKind`, or a
    /// `permissionDecision` of `reject`).
    pub(super) fn denied(&self) -> bool {
        self.tool_denial_kind.0.is_some()
            || self
                .permission_decision
                .0
                .as_ref()
                .is_some_and(|d| d.decision.as_deref() == Some("reject"))
    }
}

#[derive(Deserialize)]
struct MessageBody<'a> {
    #[serde(borrow, default)]
    id: MaybeStr<'a>,
    #[serde(borrow, default)]
    content: Option<&'a RawValue>,
    #[serde(borrow, default)]
    model: MaybeStr<'a>,
    #[serde(default)]
    usage: Object<MessageUsage>,
}

/// An assistant message's `usage` in a session log: the counts of the response it is
/// part of (each content block's line repeats them).
#[derive(Deserialize, Default, Clone)]
#[serde(default)]
pub(super) struct MessageUsage {
    input_tokens: TokenCount,
    output_tokens: TokenCount,
    cache_read_input_tokens: TokenCount,
    cache_creation_input_tokens: TokenCount,
    cache_creation: Object<CacheCreation>,
    output_tokens_details: Object<ThinkingTokens>,
}

/// The cache writes by how long they are kept (priced apart).
#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct CacheCreation {
    ephemeral_5m_input_tokens: TokenCount,
    ephemeral_1h_input_tokens: TokenCount,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(default)]
struct ThinkingTokens {
    thinking_tokens: TokenCount,
}

impl MessageUsage {
    /// A count in it is no count.
    pub(super) fn is_bad(&self) -> bool {
        TokenCount::any_bad(&[
            self.input_tokens,
            self.output_tokens,
            self.cache_read_input_tokens,
            self.cache_creation_input_tokens,
        ])
    }

    pub(super) fn total(&self) -> u64 {
        self.input_tokens.get()
            + self.output_tokens.get()
            + self.cache_read_input_tokens.get()
            + self.cache_creation_input_tokens.get()
    }

    /// The normalized usage: `input_tokens` counts neither cache; the cache writes are
    /// `cache_creation_input_tokens` (the split by duration, where it adds up to more
    /// than nothing, says which were kept for an hour: Claude Code 2.1 writes `{0, 0}`
    /// beside the real total).
    pub(super) fn usage(&self) -> crate::agent::event::Usage {
        let split = self
            .cache_creation
            .0
            .filter(|c| c.ephemeral_5m_input_tokens.get() + c.ephemeral_1h_input_tokens.get() > 0);
        let written = self
            .cache_creation_input_tokens
            .as_u64()
            .unwrap_or_else(|| {
                split.map_or(0, |c| {
                    c.ephemeral_5m_input_tokens.get() + c.ephemeral_1h_input_tokens.get()
                })
            });
        crate::agent::event::Usage {
            input: self.input_tokens.get(),
            output: self.output_tokens.get(),
            cache_read: self.cache_read_input_tokens.get(),
            cache_write: written,
            reasoning: self
                .output_tokens_details
                .0
                .and_then(|d| d.thinking_tokens.as_u64()),
            cost_usd: None,
            cache_write_1h: split.map(|c| c.ephemeral_1h_input_tokens.get()),
        }
    }
}

pub(super) fn read_message(line: &[u8]) -> Result<Message<'_>, serde_json::Error> {
    let mut msg: Message = crate::input::json::from_line(line)?;
    if let Some(body) = msg.message.take() {
        msg.message_id = body.id.0;
        msg.content = body.content;
        msg.model = body.model.0;
        msg.usage = body.usage.0;
    }
    Ok(msg)
}

/// One content block: `text`, `thinking`, `tool_use` or `tool_result`.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct Block<'a> {
    #[serde(rename = "type", deserialize_with = "block_kind")]
    pub kind: BlockKind,
    #[serde(borrow, deserialize_with = "lenient_str")]
    pub text: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "lenient_str")]
    pub thinking: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "lenient_str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, deserialize_with = "lenient_str")]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub input: Option<&'a RawValue>,
    #[serde(borrow, deserialize_with = "lenient_str")]
    pub tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub content: Option<&'a RawValue>,
    pub is_error: Flag,
}

fn block_kind<'de, D: Deserializer<'de>>(d: D) -> Result<BlockKind, D::Error> {
    Ok(BlockKind::of(KeyIn(BLOCK_KINDS).deserialize(d)?))
}

fn lenient_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    OptStr.deserialize(d)
}

/// Calls `f` for each block of a message's `content` (a string content has none).
pub(super) fn each_block<'a>(
    content: Option<&'a RawValue>,
    f: impl FnMut(Block<'a>),
) -> Result<(), serde_json::Error> {
    let Some(content) = content else {
        return Ok(());
    };
    // The fast reader (see `input::json::with_de`) reads them all first: if it gives up,
    // `f` has seen none, and serde_json reads them as it goes.
    if fast_paths() {
        let mut blocks = Vec::new();
        let mut de = crate::input::fast_de::FastDe::new(content.get());
        let fast = EachElement::new(|block| blocks.push(block))
            .deserialize(&mut de)
            .and_then(|()| de.end());
        if fast.is_ok() {
            blocks.into_iter().for_each(f);
            return Ok(());
        }
    }
    let mut de = serde_json::Deserializer::from_str(content.get());
    EachElement::new(f).deserialize(&mut de)
}

/// A session log's `system` `api_error` record, as the stream's `api_retry` notice says
/// it: `Retrying (attempt 1 of 2): 500 Internal server error`.
pub(super) fn read_log_retry(line: &[u8]) -> String {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Retry<'a> {
        #[serde(rename = "retryAttempt")]
        attempt: Num,
        #[serde(rename = "maxRetries")]
        max: Num,
        #[serde(borrow)]
        error: Object<LogError<'a>>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct LogError<'a> {
        #[serde(borrow)]
        formatted: MaybeStr<'a>,
        #[serde(borrow)]
        message: MaybeStr<'a>,
    }
    let r: Retry = crate::input::json::from_line(line).unwrap_or_default();
    let mut text = String::from("Retrying");
    if let Some(n) = r.attempt.as_u64() {
        text.push_str(&format!(" (attempt {n}"));
        if let Some(max) = r.max.as_u64() {
            text.push_str(&format!(" of {max}"));
        }
        text.push(')');
    }
    if let Some(e) = r.error.0.and_then(|e| e.formatted.0.or(e.message.0)) {
        text.push_str(&format!(": {e}"));
    }
    text
}

/// The sub-agent a tool's structured result names (`toolUseResult.agentId`: a `Task` or
/// `Agent` call's), whose log is `subagents/agent-<id>.jsonl`.
pub(super) fn agent_of_result(result: Option<&RawValue>) -> Option<String> {
    #[derive(Deserialize)]
    struct R<'a> {
        #[serde(rename = "agentId", borrow, default)]
        agent_id: MaybeStr<'a>,
    }
    let result = result?;
    if !result.get().starts_with('{') {
        return None;
    }
    let r: R = crate::input::json::from_str(result.get()).ok()?;
    r.agent_id.0.map(Cow::into_owned)
}

/// A session log's title record: `summary` (`summary`, titling the session that holds
/// the line its `leafUuid` names), `ai-title` (`aiTitle`), `custom-title` (`customTitle`,
/// the user's own).
pub(super) struct Title {
    pub text: String,
    /// A `summary`'s `leafUuid`.
    pub leaf: Option<String>,
}

pub(super) fn read_title(line: &[u8]) -> Option<Title> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Record<'a> {
        #[serde(borrow)]
        summary: MaybeStr<'a>,
        #[serde(borrow, rename = "leafUuid")]
        leaf_uuid: MaybeStr<'a>,
        #[serde(borrow, rename = "aiTitle")]
        ai_title: MaybeStr<'a>,
        #[serde(borrow, rename = "customTitle")]
        custom_title: MaybeStr<'a>,
        #[serde(borrow)]
        title: MaybeStr<'a>,
    }
    let t: Record = crate::input::json::from_line(line).ok()?;
    let leaf = t.leaf_uuid.0.map(Cow::into_owned);
    let text = [t.custom_title, t.ai_title, t.title, t.summary]
        .into_iter()
        .find_map(|s| s.0)?;
    Some(Title {
        text: text.into_owned(),
        leaf,
    })
}

/// A block's type that says it holds a tool's result, as Claude Code writes it.
const TOOL_RESULT: &[u8] = b"\"type\":\"tool_result\"";

/// Whether a session log's `user` line holds tool results of the main agent, told from
/// its bytes in the layout Claude Code writes (no spaces; `isSidechain` among the first
/// keys); `false` for any other line, or another layout (read by a parse). These bytes
/// can only be a block's type: a string holds its quotes escaped.
pub(super) fn main_tool_results(line: &[u8]) -> bool {
    if !fast_paths() {
        return false;
    }
    let head = &line[..line.len().min(512)];
    memchr::memmem::find(head, b"\"isSidechain\":false").is_some()
        && memchr::memmem::find(line, TOOL_RESULT).is_some()
}

/// The words of a `user` message's content when they are the user's: a string, or text
/// blocks (an image beside them counts as words); `None` when it holds tool results or
/// no text.
pub(super) fn user_words(content: &RawValue) -> Option<String> {
    if let Ok(text) = crate::input::json::from_str::<Cow<'_, str>>(content.get()) {
        return Some(text.into_owned());
    }
    // Tool results, told without a parse (a result's content may be megabytes): these
    // bytes can only be a block's type, a string holds its quotes escaped.
    if fast_paths() && memchr::memmem::find(content.get().as_bytes(), TOOL_RESULT).is_some() {
        return None;
    }
    let mut words: Option<String> = None;
    let mut results = false;
    each_block(Some(content), |block| match block.kind {
        BlockKind::ToolResult => results = true,
        BlockKind::Text => {
            let words = words.get_or_insert_with(String::new);
            if !words.is_empty() {
                words.push('\n');
            }
            words.push_str(block.text.as_deref().unwrap_or(""));
        }
        _ => {}
    })
    .ok()?;
    words.filter(|_| !results)
}

/// What the user typed, from a prompt as Claude Code (and Qwen Code) writes it: a slash
/// command as typed (`/review 12`, from its `<command-name>` and `<command-args>`; its
/// `<command-message>` is Claude Code's), a command of its bash mode (`!ls`, from
/// `<bash-input>`), the output of one without its tags; never what its IDE integration
/// adds (`<ide_opened_file>`, `<ide_selection>`) nor its `<system-reminder>`s. `None` when
/// no words are left.
pub(crate) fn users_words(text: &str) -> Option<String> {
    if let Some(name) = element(text, "command-name").map(str::trim) {
        let slash = if name.starts_with('/') { "" } else { "/" };
        let args = element(text, "command-args").map_or("", str::trim);
        let words = format!("{slash}{name} {args}");
        return Some(words.trim_end().to_string());
    }
    if let Some(command) = element(text, "bash-input") {
        return Some(format!("!{}", command.trim()));
    }
    if let Some(stdout) = element(text, "bash-stdout") {
        let stderr = element(text, "bash-stderr").unwrap_or("");
        let output = format!("{}\n{}", stdout.trim_end(), stderr.trim_end());
        return Some(output.trim().to_string()).filter(|o| !o.is_empty());
    }
    without_elements(
        text,
        &["ide_opened_file", "ide_selection", "system-reminder"],
    )
}

/// Whether `tool_result_meta` says the call `id` never ran (a permission rule).
pub(super) fn never_ran(meta: Option<&RawValue>, id: &str) -> bool {
    #[derive(Deserialize)]
    struct Meta<'a> {
        #[serde(borrow, default)]
        id: MaybeStr<'a>,
        #[serde(borrow, default)]
        non_execution_kind: MaybeStr<'a>,
    }
    let Some(meta) = meta else { return false };
    let Ok(list) = crate::input::json::from_str::<Vec<Meta>>(meta.get()) else {
        return false;
    };
    list.iter()
        .any(|m| m.id.as_deref() == Some(id) && m.non_execution_kind.0.is_some())
}

/// The text of a `tool_result` content: the string, or the first text block.
pub(super) fn first_text(content: &RawValue) -> Option<String> {
    if let Ok(s) = crate::input::json::from_str::<Cow<str>>(content.get()) {
        return Some(s.into_owned());
    }
    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(content.get());
    let _ = EachElement::new(|b: Block| {
        if found.is_none() && b.kind == BlockKind::Text {
            found = b.text.map(Cow::into_owned);
        }
    })
    .deserialize(&mut de);
    found
}

/// What `tool_use_result` says of a successful call: lines read or written, lines changed.
pub(super) fn structured_effect(structured: &RawValue) -> Effect {
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct Structured<'a> {
        #[serde(borrow)]
        file: Option<File<'a>>,
        #[serde(rename = "type", borrow)]
        kind: MaybeStr<'a>,
        #[serde(borrow)]
        content: MaybeStr<'a>,
        #[serde(borrow)]
        structured_patch: Option<Vec<Hunk<'a>>>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct File<'a> {
        num_lines: Num,
        #[serde(borrow)]
        _content: MaybeStr<'a>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Hunk<'a> {
        #[serde(borrow)]
        lines: Vec<MaybeStr<'a>>,
    }
    let Ok(s) = crate::input::json::from_str::<Structured>(structured.get()) else {
        return Effect::default();
    };
    let mut effect = Effect::default();
    if let Some(file) = &s.file {
        effect.lines = file.num_lines.as_u64();
    }
    if s.kind.as_deref() == Some("create") {
        effect.lines = s.content.as_deref().map(|c| c.lines().count() as u64);
    }
    if let Some(hunks) = &s.structured_patch {
        let lines = hunks.iter().flat_map(|h| &h.lines);
        let (mut added, mut removed) = (0, 0);
        for line in lines.filter_map(|l| l.as_deref()) {
            if line.starts_with('+') {
                added += 1;
            } else if line.starts_with('-') {
                removed += 1;
            }
        }
        if s.kind.as_deref() != Some("create") {
            effect.added = Some(added);
            effect.removed = Some(removed);
        }
    }
    effect
}

/// The `result` event.
#[derive(Deserialize)]
pub(super) struct ResultLine<'a> {
    #[serde(borrow, default)]
    pub subtype: MaybeStr<'a>,
    #[serde(default)]
    pub is_error: Flag,
    #[serde(borrow, default)]
    pub result: MaybeStr<'a>,
    #[serde(borrow, default)]
    pub session_id: MaybeStr<'a>,
    #[serde(default)]
    pub duration_ms: Num,
    #[serde(default)]
    pub total_cost_usd: Num,
    #[serde(default)]
    pub usage: Object<ResultUsage>,
    /// Every model the run called, by name: the main model's calls (what `usage` counts)
    /// and the side calls (Haiku's, a sub-agent's on another model), each with its cost.
    #[serde(default, rename = "modelUsage")]
    pub model_usage: Object<std::collections::BTreeMap<String, ModelUsage>>,
    /// Error subtypes' messages (2.1.x); Qwen's `error.message`.
    #[serde(borrow, default)]
    errors: Option<Vec<MaybeStr<'a>>>,
    #[serde(borrow, default)]
    error: Object<ErrorMessage<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ResultUsage {
    pub input_tokens: Num,
    pub output_tokens: Num,
    pub cache_read_input_tokens: Num,
    pub cache_creation_input_tokens: Num,
    pub output_tokens_details: Option<OutputDetails>,
}

/// One model's calls in a run (`modelUsage`), in camelCase.
#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct ModelUsage {
    #[serde(rename = "inputTokens")]
    pub input_tokens: Num,
    #[serde(rename = "outputTokens")]
    pub output_tokens: Num,
    #[serde(rename = "cacheReadInputTokens")]
    pub cache_read_input_tokens: Num,
    #[serde(rename = "cacheCreationInputTokens")]
    pub cache_creation_input_tokens: Num,
    #[serde(rename = "costUSD")]
    pub cost_usd: Num,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct OutputDetails {
    pub thinking_tokens: Num,
}

impl ResultLine<'_> {
    /// The first error message the result gives.
    pub(super) fn first_error(&self) -> Option<&str> {
        self.errors
            .iter()
            .flatten()
            .find_map(|e| e.as_deref())
            .or_else(|| self.error.0.as_ref()?.message.as_deref())
    }
}

pub(super) fn read_result(line: &[u8]) -> Result<ResultLine<'_>, serde_json::Error> {
    crate::input::json::from_line(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prompt_is_what_the_user_typed() {
        let command = "<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>PR 12</command-args>";
        assert_eq!(users_words(command).as_deref(), Some("/review PR 12"));
        let bare = "<command-name>model</command-name>\n            <command-message>model</command-message>\n            <command-args></command-args>";
        assert_eq!(users_words(bare).as_deref(), Some("/model"));
        let bash = "<bash-input>uv run ty check</bash-input>";
        assert_eq!(users_words(bash).as_deref(), Some("!uv run ty check"));
        let output = "<bash-stdout>ok\n</bash-stdout><bash-stderr></bash-stderr>";
        assert_eq!(users_words(output).as_deref(), Some("ok"));
        let ide = "<ide_opened_file>The user opened the file /a/mise.toml in the IDE.</ide_opened_file>\ncreate me a CODEOWNERS";
        assert_eq!(users_words(ide).as_deref(), Some("create me a CODEOWNERS"));
        assert_eq!(
            users_words("  plain words \n").as_deref(),
            Some("plain words")
        );
    }

    #[test]
    fn stream_events_in_any_key_order() {
        let mut text = Vec::new();
        let ev = read_stream_event(
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"a\nb"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}"#,
            &mut text,
        )
        .unwrap();
        assert_eq!(
            (ev.kind, ev.delta, ev.top_level),
            (StreamKind::BlockDelta, DeltaKind::Text, true)
        );
        assert_eq!(text, b"a\nb");
        text.clear();
        let ev = read_stream_event(
            br#"{"parent_tool_use_id":"toolu_1","event":{"delta":{"text":"sub","type":"text_delta"},"type":"content_block_delta"},"type":"stream_event"}"#,
            &mut text,
        )
        .unwrap();
        assert!(!ev.top_level);
        assert_eq!(text, b"sub");
        text.clear();
        let ev = read_stream_event(
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}}"#,
            &mut text,
        )
        .unwrap();
        assert_eq!(ev.delta, DeltaKind::Other);
        assert!(text.is_empty());
        let ev = read_stream_event(
            br#"{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","content":[]}}}"#,
            &mut text,
        )
        .unwrap();
        assert_eq!(ev.kind, StreamKind::MessageStart);
        assert_eq!(ev.message_id.as_deref(), Some("msg_1"));
    }

    #[test]
    fn the_delta_fast_path_agrees_with_the_parser() {
        let lines = [
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"plain"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"esc \"q\" \n \u00e9 \ud83c\udf89 \\"}},"session_id":"s","parent_tool_use_id":null,"uuid":"u","api_message_id":"m"}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hmm"}},"session_id":"s","parent_tool_use_id":"toolu_1","uuid":"u"}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":""}}}"#,
            r#"{"type":"stream_event","event":{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"ünïcødé — 日本"}},"uuid":"u","parent_tool_use_id":null}"#,
        ];
        for line in lines {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            let f = fast_delta(line.as_bytes(), &mut fast).expect(line);
            let mut de = serde_json::Deserializer::from_slice(line.as_bytes());
            let s = de.deserialize_map(StreamSeed { text: &mut slow }).unwrap();
            assert_eq!(
                (f.kind, f.delta, f.top_level, &fast),
                (s.kind, s.delta, s.top_level, &slow),
                "{line}"
            );
        }
        for line in [
            &br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}},"ttft_ms":12}"#[..],
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}},"uuid":"\u0075"}"#,
            b"{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"raw\ttab\"}}}",
            b"{\"type\":\"stream_event\",\"event\":{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"bad \xff\"}}}",
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}},"event":{}}"#,
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"cut"#,
            br#"{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","x":1}}}"#,
        ] {
            assert!(fast_delta(line, &mut Vec::new()).is_none(), "{}", String::from_utf8_lossy(line));
        }
    }

    #[test]
    fn blocks_of_both_key_orders() {
        let msg = read_message(
            br#"{"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"ok"},{"type":"tool_result","content":[{"type":"text","text":"bad"}],"is_error":true,"tool_use_id":"t2"}]},"parent_tool_use_id":null}"#,
        )
        .unwrap();
        let mut seen = Vec::new();
        each_block(msg.content, |b| {
            seen.push((
                b.kind,
                b.tool_use_id.unwrap().into_owned(),
                b.is_error.0,
                first_text(b.content.unwrap()),
            ))
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                (BlockKind::ToolResult, "t1".into(), None, Some("ok".into())),
                (
                    BlockKind::ToolResult,
                    "t2".into(),
                    Some(true),
                    Some("bad".into())
                ),
            ]
        );
    }

    #[test]
    fn result_in_the_2_1_26x_key_order() {
        let r = read_result(br#"{"duration_api_ms":1,"is_error":true,"subtype":"error_max_turns","errors":["Reached maximum number of turns (15)"],"type":"result","duration_ms":542}"#).unwrap();
        assert_eq!(r.subtype.as_deref(), Some("error_max_turns"));
        assert_eq!(r.is_error.0, Some(true));
        assert_eq!(
            r.first_error(),
            Some("Reached maximum number of turns (15)")
        );
        assert_eq!(r.result.0, None);
    }
}

//! The cheap first look at a line: is it an event, and of which `type` (and `subtype`)?
//!
//! Every agent this tool reads writes one JSON object per line with a top-level `type`,
//! normally as its first key. So the peek knows no agent: it matches `{"type":"<name>"`
//! (and a `,"subtype":"<name>"` right after it) against one table of every agent's type
//! names, with no JSON parse. When the line has another shape — other key order,
//! whitespace, escapes, no closing `}` — it scans the top-level keys, and failing that
//! parses the two fields for real. The peek runs on the reading thread (see `reader`);
//! what a line *means* is decided later by the run's dialect (see `agent`).

use std::borrow::Cow;
use std::fmt;
use std::sync::{LazyLock, OnceLock};

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::json::{plain_bytes, skip_value, skip_ws, string_at};

/// A `type` name from the table of names this tool knows, as a small index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct NameId(u8);

macro_rules! wire_names {
    ($($id:ident = $name:literal,)*) => {
        /// Every agent's `type` names, the frequent ones first (the fast peek tries them in
        /// this order).
        const NAMES: &[&str] = &[$($name),*];
        /// What a line of each name is counted as when it cannot be read.
        const UNREADABLE: &[&str] = &[$(concat!("unreadable ", $name, " events")),*];

        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[repr(u8)]
        enum Index { $($id),* }

        #[allow(dead_code)]
        impl NameId {
            $(pub(crate) const $id: NameId = NameId(Index::$id as u8);)*
        }
    };
}

wire_names! {
    // Cursor; `assistant`, `user`, `system`, `result` also Claude and Qwen.
    ASSISTANT = "assistant",
    STREAM_EVENT = "stream_event",
    TOOL_CALL = "tool_call",
    MESSAGE = "message",
    ITEM_COMPLETED = "item.completed",
    THINKING = "thinking",
    USER = "user",
    RESULT = "result",
    SYSTEM = "system",
    CONNECTION = "connection",
    RETRY = "retry",
    INTERACTION_QUERY = "interaction_query",
    // Claude Code and Qwen Code.
    RATE_LIMIT_EVENT = "rate_limit_event",
    CONTROL_REQUEST = "control_request",
    CONTROL_RESPONSE = "control_response",
    // Codex; `error` also Gemini and OpenCode.
    ITEM_STARTED = "item.started",
    ITEM_UPDATED = "item.updated",
    TURN_STARTED = "turn.started",
    TURN_COMPLETED = "turn.completed",
    TURN_FAILED = "turn.failed",
    THREAD_STARTED = "thread.started",
    SESSION_CREATED = "session.created",
    ERROR = "error",
    // Gemini CLI; `tool_use` also OpenCode.
    INIT = "init",
    TOOL_USE = "tool_use",
    TOOL_RESULT = "tool_result",
    // OpenCode.
    TEXT = "text",
    STEP_START = "step_start",
    STEP_FINISH = "step_finish",
    REASONING = "reasoning",
    DONE = "done",
    // The agents' session logs (their `type` is rarely the first key, so their order
    // matters less). Claude Code's, besides `user`, `assistant`, `system`:
    SUMMARY = "summary",
    FILE_HISTORY_SNAPSHOT = "file-history-snapshot",
    QUEUE_OPERATION = "queue-operation",
    ATTACHMENT = "attachment",
    PROGRESS = "progress",
    AI_TITLE = "ai-title",
    CUSTOM_TITLE = "custom-title",
    LAST_PROMPT = "last-prompt",
    // Codex's rollouts.
    EVENT_MSG = "event_msg",
    RESPONSE_ITEM = "response_item",
    TURN_CONTEXT = "turn_context",
    SESSION_META = "session_meta",
    COMPACTED = "compacted",
    WORLD_STATE = "world_state",
    TOKEN_USAGE_RECORD = "token_usage_record",
    // Gemini CLI's chats, besides `user`, `error`.
    GEMINI = "gemini",
    INFO = "info",
    WARNING = "warning",
    // Cursor's agent transcripts.
    TURN_ENDED = "turn_ended",
    // OpenCode's database, as its lines are made (`agent::opencode::db`).
    SESSION = "session",
}

impl NameId {
    /// Any name not in the table.
    pub(crate) const OTHER: NameId = NameId(NAMES.len() as u8);

    /// The id of a type name; `OTHER` for a name not in the table.
    pub(crate) fn of_name(name: &str) -> NameId {
        NameId::of(name.as_bytes()).map_or(NameId::OTHER, |(id, _)| id)
    }

    fn of(name: &[u8]) -> Option<(NameId, &'static str)> {
        NAMES
            .iter()
            .position(|n| n.as_bytes() == name)
            .map(|i| (NameId(i as u8), NAMES[i]))
    }

    const fn bit(self) -> u64 {
        1 << self.0
    }

    /// The name as on the wire, and what an unreadable line of it counts as; `None` for
    /// [`OTHER`](Self::OTHER).
    pub(crate) fn names(self) -> Option<(&'static str, &'static str)> {
        let i = usize::from(self.0);
        Some((NAMES.get(i)?, UNREADABLE.get(i)?))
    }

    pub(crate) const fn index(self) -> u8 {
        self.0
    }

    pub(crate) const fn from_index(index: u8) -> NameId {
        NameId(index)
    }
}

/// A set of type names: what a view or a dialect wants to see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct TypeSet(u64);

impl TypeSet {
    pub(crate) const NONE: TypeSet = TypeSet(0);
    pub(crate) const ALL: TypeSet = TypeSet(u64::MAX);

    pub(crate) const fn contains(self, name: NameId) -> bool {
        self.0 & name.bit() != 0
    }

    pub(crate) fn insert(&mut self, name: NameId) {
        self.0 |= name.bit();
    }
}

/// A line as the peek saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Peeked {
    /// Only whitespace.
    Blank,
    Event(Head),
    Bad(BadLine),
}

/// What [`peek`] learned about an event line. It owns its names (the known ones are
/// static, so nothing is allocated) and can be handed from the reading thread to the views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub name: NameId,
    pub type_name: Cow<'static, str>,
    /// Seen by the peek or not: [`Head::subtype`] is the one way to read it, so that no
    /// reader depends on where in the line the peek happened to find it.
    subtype: Subtype,
    /// Where the JSON object starts in the line: 0, unless text was glued in front of it
    /// (Gemini CLI before 0.42 printed a notice without a newline before its first event).
    pub start: usize,
}

impl Head {
    /// The subtype, reading the line for it when the peek could not see it.
    pub(crate) fn subtype<'h>(&'h self, line: &[u8]) -> Option<Cow<'h, str>> {
        match &self.subtype {
            Subtype::Known(s) => s.as_deref().map(Cow::Borrowed),
            Subtype::NotPeeked => match parse_head(line).ok()?.subtype {
                Subtype::Known(s) => s.map(|s| Cow::Owned(s.into_owned())),
                Subtype::NotPeeked => None,
            },
        }
    }
}

/// The `subtype`, if the peek could see it without a parse.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Subtype {
    Known(Option<Cow<'static, str>>),
    /// Not right after `type`: it may be elsewhere in the line.
    NotPeeked,
}

/// Why a line is not an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum BadLine {
    /// Not JSON at all (error text, a banner) or broken JSON (a truncated line).
    NotJson(String),
    /// Valid JSON, but not an object (`[]`, `42`, `"x"`, `null`).
    NotObject,
    /// An object without a `type` (Codex's format before 0.44 has no `type`: its dialect
    /// reads these).
    NoType,
    /// An object whose `type` or `subtype` is not a plain string, or is given twice.
    BadType(String),
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BadLine::NotJson(e) => write!(f, "not JSON ({e})"),
            BadLine::NotObject => f.write_str("JSON but not an object"),
            BadLine::NoType => f.write_str("JSON object without a \"type\""),
            BadLine::BadType(e) => write!(f, "unusable \"type\"/\"subtype\" ({e})"),
        }
    }
}

const TYPE_PREFIX: &[u8] = b"{\"type\":\"";
const SUBTYPE_KEY: &[u8] = b",\"subtype\":\"";

/// Every agent's common `subtype` names (any other is kept as an owned string).
const SUBTYPE_NAMES: &[&str] = &[
    "delta",
    "completed",
    "started",
    "success",
    "init",
    "reconnecting",
    "reconnected",
    "starting",
    "resuming",
    "request",
    "response",
    "hook_started",
    "hook_response",
    "status",
    "thinking_tokens",
    "api_retry",
    "error_max_turns",
    "error_during_execution",
    "compact_boundary",
    "permission_denied",
    "task_started",
    "task_progress",
    "task_updated",
    "task_notification",
];

/// Peeks a line: blank, an event with its type, or why it is not an event.
///
/// What an event line is, on the fast path and on the reference path alike (see
/// [`fast_paths`]): a JSON object with one string `type` at its top level. The peek finds
/// the `type` from the line's head; the rest of the line is checked whole ([`verify`])
/// where it matters: for the types in `checked` (those that start, end or decide a run,
/// or every type for `check`), and for any line a dialect fails to read (see
/// `dispatch`). A line found broken there is not an event but a bad line; a broken line
/// nobody reads whole is taken by its head on both paths — the reference path, whose
/// parse fails on it, then looks at the head as the fast path does.
pub(crate) fn peek(line: &[u8], checked: TypeSet) -> Peeked {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Peeked::Blank;
    }
    let head = match peek_event(line) {
        Ok(head) => head,
        Err(BadLine::NotJson(e)) => match glued_event(line) {
            Some(head) => head,
            None => return Peeked::Bad(BadLine::NotJson(e)),
        },
        Err(bad) => return Peeked::Bad(bad),
    };
    if checked.contains(head.name)
        && let Err(bad) = verify(&line[head.start..])
    {
        return Peeked::Bad(bad);
    }
    Peeked::Event(head)
}

/// Reads the event type of a line, cheaply when the line has the usual shape.
pub(crate) fn peek_event(line: &[u8]) -> Result<Head, BadLine> {
    head_of(line, fast_paths())
}

/// The head by the layout first (`fast`), or by the plain parse first: the same head
/// either way (the reference test compares them), and the same verdict on every line.
fn head_of(line: &[u8], fast: bool) -> Result<Head, BadLine> {
    if fast {
        return head_by_layout(line).map_or_else(|| parse_head(line), Ok);
    }
    // For a line the parse finds broken, the head as the fast path finds it: the rest is
    // checked where it is read, on both paths.
    parse_head(line).or_else(|bad| head_by_layout(line).ok_or(bad))
}

/// The head found without a parse: the usual layout, or any key order.
fn head_by_layout(line: &[u8]) -> Option<Head> {
    fast_peek(line).or_else(|| scan_head(line))
}

/// Checks a line whole as an event: JSON, an object, one string `type`, at most one
/// string `subtype`. Gives why it is not one.
pub(crate) fn verify(line: &[u8]) -> Result<(), BadLine> {
    parse_head(line).map(drop)
}

/// Text glued in front of an event on the same line: the event, with where it starts.
/// Only for lines that are not JSON, so it costs nothing on good lines.
fn glued_event(line: &[u8]) -> Option<Head> {
    let start = memchr::memmem::find(line, b"{\"type\":")?;
    if start == 0 || line[..start].contains(&b'{') {
        return None;
    }
    let mut head = peek_event(&line[start..]).ok()?;
    head.start = start;
    Some(head)
}

/// Whether the shortcuts that rely on the usual layout are taken. They are always taken,
/// except when the environment variable `CURSOR_STREAM_REFERENCE=1` asks for the plain
/// parser everywhere: the tests run every view both ways and compare the output.
pub(crate) fn fast_paths() -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| std::env::var_os("CURSOR_STREAM_REFERENCE").is_none_or(|v| v != "1"))
}

/// Finds the top-level `type` and `subtype` in any key order by skipping over the other
/// members' values (strings are jumped over with `memchr`), without validating them. It
/// stops at the first key after `type` that is not `subtype`; before a nested value it
/// first looks for the `type` at the end of the line ([`tail_type`]).
///
/// Gives up (`None`, and the caller parses the line in full) on anything it does not
/// understand: escapes in a key or in the two values, a repeated key before it stops, a
/// value that is not a string, a line that does not end the object.
fn scan_head(line: &[u8]) -> Option<Head> {
    let mut at = skip_ws(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    let mut type_name = None;
    let mut subtype = None;
    loop {
        at = skip_ws(line, at);
        match line.get(at)? {
            b'}' if type_name.is_none() && subtype.is_none() => return None,
            b'}' => break,
            b'"' => {}
            _ => return None,
        }
        let (key, escaped, end) = string_at(line, at)?;
        at = skip_ws(line, end);
        if line.get(at) != Some(&b':') || escaped {
            return None;
        }
        at = skip_ws(line, at + 1);
        if type_name.is_some() && key != b"subtype" && key != b"type" {
            // The type is known and no subtype follows it: the rest of the line (in a
            // session log, a message and a tool's whole result after the type) is left
            // unread, as the usual layout's peek leaves it. The subtype is then looked
            // for when asked (`Head::subtype`).
            if line.trim_ascii_end().last() != Some(&b'}') {
                return None;
            }
            return head(type_name?, subtype, true);
        }
        if type_name.is_none()
            && matches!(line.get(at), Some(b'{' | b'['))
            && let Some((name, sub)) = tail_type(line, at)
        {
            // A subtype after the type is known; one before it may be in what was not
            // read.
            let sure = sub.is_some() || subtype.is_some();
            return head(name, sub.or(subtype), !sure);
        }
        let slot = match key {
            b"type" => Some(&mut type_name),
            b"subtype" => Some(&mut subtype),
            _ => None,
        };
        match slot {
            Some(slot) => {
                let (value, escaped, end) = string_at(line, at)?;
                if escaped || slot.is_some() {
                    return None;
                }
                *slot = Some(value);
                at = end;
            }
            None => at = skip_value(line, at)?,
        }
        at = skip_ws(line, at);
        match line.get(at)? {
            b',' => at += 1,
            b'}' => break,
            _ => return None,
        }
    }
    if skip_ws(line, at + 1) != line.len() {
        return None;
    }
    head(type_name?, subtype, false)
}

/// The head of a type and a subtype as found in the line; `unsure`: the subtype may be in
/// a part of the line not read.
fn head(type_name: &[u8], subtype: Option<&[u8]>, unsure: bool) -> Option<Head> {
    let (name, type_name) = type_name_of(type_name)?;
    let subtype = match subtype {
        Some(s) => Subtype::Known(Some(known(s, SUBTYPE_NAMES)?)),
        None if unsure => Subtype::NotPeeked,
        None => Subtype::Known(None),
    };
    Some(Head {
        name,
        type_name,
        subtype,
        start: 0,
    })
}

/// How far from the end of a line [`tail_type`] looks for the `type`.
const TAIL: usize = 1024;

/// The top-level `type` among the last members of the line, after `from`, and a
/// `subtype` after it, without reading what comes before them: Claude Code's session log
/// writes a message's `type` after the message, and `attachment`'s after the attachment.
///
/// `,"type":"` can only be a key: in a string its quotes would be escaped. It is the
/// top-level one when the members after it run to the object's closing brace at the end
/// of the line; a nested one's members end at its own brace, before the line's last. An
/// escape in a key or in the two values, anything else unexpected: `None`, and the scan
/// goes on from the front. A `type` repeated before it is not seen, as the usual layout's
/// peek sees none after its own: a line whose type is checked is parsed whole (see
/// [`peek`]).
fn tail_type(line: &[u8], from: usize) -> Option<(&[u8], Option<&[u8]>)> {
    let end = line.trim_ascii_end().len();
    if line.get(end.checked_sub(1)?) != Some(&b'}') {
        return None;
    }
    let window = end.saturating_sub(TAIL).max(from);
    static TYPE_KEY: LazyLock<memchr::memmem::FinderRev<'static>> =
        LazyLock::new(|| memchr::memmem::FinderRev::new(b",\"type\":\""));
    let key = window + TYPE_KEY.rfind(&line[window..end])?;
    let (type_name, escaped, mut at) = string_at(line, key + 8)?;
    if escaped {
        return None;
    }
    let mut subtype = None;
    loop {
        at = skip_ws(line, at);
        match line.get(at)? {
            b'}' if at + 1 == end => return Some((type_name, subtype)),
            b',' => at = skip_ws(line, at + 1),
            _ => return None,
        }
        let (key, escaped, after) = string_at(line, at)?;
        at = skip_ws(line, after);
        if escaped || key == b"type" || line.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(line, at + 1);
        if key == b"subtype" {
            let (value, escaped, after) = string_at(line, at)?;
            if escaped || subtype.is_some() {
                return None;
            }
            subtype = Some(value);
            at = after;
        } else {
            at = skip_value(line, at)?;
        }
    }
}

/// Matches `{"type":"<plain>"` and an optional `,"subtype":"<plain>"` right after it.
///
/// Gives up (returns `None`) on anything unusual, since the fallback is always correct:
/// an escape in a value, a line that does not end in `}`.
fn fast_peek(line: &[u8]) -> Option<Head> {
    let rest = line.strip_prefix(TYPE_PREFIX)?;
    if line.last() != Some(&b'}') {
        return None;
    }
    let (name, type_name, rest) = match prefix_name(rest, NAMES) {
        Some((i, rest)) => (NameId(i as u8), Cow::Borrowed(NAMES[i]), rest),
        None => {
            let (value, rest) = plain_bytes(rest)?;
            let (name, type_name) = type_name_of(value)?;
            (name, type_name, rest)
        }
    };
    let subtype = match rest.first()? {
        b'}' => Subtype::Known(None),
        b',' => match rest.strip_prefix(SUBTYPE_KEY) {
            Some(after) => {
                let (sub, after) = match prefix_name(after, SUBTYPE_NAMES) {
                    Some((i, after)) => (Cow::Borrowed(SUBTYPE_NAMES[i]), after),
                    None => {
                        let (sub, after) = plain_bytes(after)?;
                        (known(sub, SUBTYPE_NAMES)?, after)
                    }
                };
                if !matches!(after.first(), Some(b',' | b'}')) {
                    return None;
                }
                Subtype::Known(Some(sub))
            }
            None => Subtype::NotPeeked,
        },
        _ => return None,
    };
    Some(Head {
        name,
        type_name,
        subtype,
        start: 0,
    })
}

/// One of `names` followed by its closing quote at the start of `s`: its index, and what
/// follows the quote. Comparing the few known names costs less than finding the quote.
fn prefix_name<'a>(s: &'a [u8], names: &[&'static str]) -> Option<(usize, &'a [u8])> {
    names
        .iter()
        .position(|name| {
            let n = name.as_bytes();
            s.get(n.len()) == Some(&b'"') && s[..n.len()] == *n
        })
        .map(|i| (i, &s[names[i].len() + 1..]))
}

/// A type name's id and text: static for the known names (found by comparison, which costs
/// less than checking UTF-8 on such short strings), else a copy checked as UTF-8.
fn type_name_of(bytes: &[u8]) -> Option<(NameId, Cow<'static, str>)> {
    match NameId::of(bytes) {
        Some((id, name)) => Some((id, Cow::Borrowed(name))),
        None => Some((
            NameId::OTHER,
            Cow::Owned(std::str::from_utf8(bytes).ok()?.to_owned()),
        )),
    }
}

/// The name: one of `names` (static), else a copy checked as UTF-8.
fn known(bytes: &[u8], names: &[&'static str]) -> Option<Cow<'static, str>> {
    match names.iter().find(|n| n.as_bytes() == bytes) {
        Some(name) => Some(Cow::Borrowed(name)),
        None => Some(Cow::Owned(std::str::from_utf8(bytes).ok()?.to_owned())),
    }
}

/// A name read by serde, made static when it is one of `names`.
fn owned_name(name: Cow<'_, str>, names: &[&'static str]) -> Cow<'static, str> {
    match names.iter().find(|n| **n == name) {
        Some(name) => Cow::Borrowed(name),
        None => Cow::Owned(name.into_owned()),
    }
}

#[derive(Deserialize)]
struct HeadFields<'a> {
    #[serde(rename = "type", borrow, default)]
    type_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
}

/// The correct, slower way to read `type` and `subtype`: a real parse of the line that
/// skips every other field.
pub(crate) fn parse_head(line: &[u8]) -> Result<Head, BadLine> {
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        // serde's derived structs also accept arrays, so tell non-objects apart first.
        return Err(match crate::input::json::from_line::<IgnoredAny>(line) {
            Ok(_) => BadLine::NotObject,
            Err(e) => BadLine::NotJson(e.to_string()),
        });
    }
    let fields: HeadFields = match crate::input::json::from_line(line) {
        Ok(fields) => fields,
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            return Err(BadLine::BadType(e.to_string()));
        }
        Err(e) => return Err(BadLine::NotJson(e.to_string())),
    };
    let type_name = fields.type_name.ok_or(BadLine::NoType)?;
    let name = NameId::of(type_name.as_bytes()).map_or(NameId::OTHER, |(id, _)| id);
    Ok(Head {
        name,
        type_name: owned_name(type_name, NAMES),
        subtype: Subtype::Known(fields.subtype.map(|s| owned_name(s, SUBTYPE_NAMES))),
        start: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(line: &str) -> Head {
        match peek(line.as_bytes(), TypeSet::NONE) {
            Peeked::Event(head) => head,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn name_and_sub(line: &str) -> (NameId, Option<String>) {
        let h = head(line);
        let sub = h.subtype(line.as_bytes()).map(|s| s.into_owned());
        (h.name, sub)
    }

    #[test]
    fn fast_peek_reads_the_usual_shape() {
        let h = fast_peek(br#"{"type":"tool_call","subtype":"started","call_id":"x"}"#).unwrap();
        assert_eq!(h.name, NameId::TOOL_CALL);
        assert_eq!(h.subtype, Subtype::Known(Some("started".into())));
        let h = fast_peek(br#"{"type":"assistant","message":{}}"#).unwrap();
        assert_eq!(h.name, NameId::ASSISTANT);
        assert_eq!(h.subtype, Subtype::NotPeeked);
        let h = fast_peek(br#"{"type":"item.completed","item":{"id":"item_0"}}"#).unwrap();
        assert_eq!(h.name, NameId::ITEM_COMPLETED);
    }

    #[test]
    fn every_agents_names_are_in_the_table() {
        for (line, name) in [
            (
                r#"{"type":"stream_event","event":{}}"#,
                NameId::STREAM_EVENT,
            ),
            (
                r#"{"type":"thread.started","thread_id":"t"}"#,
                NameId::THREAD_STARTED,
            ),
            (r#"{"type":"init","timestamp":"x"}"#, NameId::INIT),
            (r#"{"type":"step_finish","part":{}}"#, NameId::STEP_FINISH),
            (r#"{"type":"done"}"#, NameId::DONE),
            (r#"{"type":"brand_new"}"#, NameId::OTHER),
        ] {
            assert_eq!(head(line).name, name, "{line}");
        }
        assert_eq!(head(r#"{"type":"brand_new"}"#).type_name, "brand_new");
    }

    #[test]
    fn peek_agrees_whatever_the_key_order_spacing_or_escapes() {
        for line in [
            r#"{"type":"result","subtype":"success"}"#,
            r#"{"subtype":"success","type":"result"}"#,
            r#"{ "type" : "result", "subtype" : "success" }"#,
            r#"{"\u0074ype":"result","subtype":"success"}"#,
            r#"{"type":"res\u0075lt","subtype":"success"}"#,
            r#"{"type":"result","is_error":false,"subtype":"success"}"#,
            "{\"type\":\"result\",\"subtype\":\"success\"}  ",
        ] {
            assert_eq!(
                name_and_sub(line),
                (NameId::RESULT, Some("success".to_string())),
                "{line}"
            );
        }
    }

    #[test]
    fn scan_head_finds_the_top_level_type_in_any_order() {
        let line = br#"{"call_id":"c","tool_call":{"type":"nested","x":[{"subtype":"no"},"\"}"]},"subtype":"completed","type":"tool_call"}"#;
        let h = scan_head(line).unwrap();
        assert_eq!(h.name, NameId::TOOL_CALL);
        assert_eq!(h.subtype(line).as_deref(), Some("completed"));
        let h = scan_head(br#" { "n" : 1.5e3 , "t" : true, "type" : "user" } "#).unwrap();
        assert_eq!((h.name, h.subtype), (NameId::USER, Subtype::Known(None)));
        for line in [
            &br#"{"type":"a","type":"b"}"#[..],
            br#"{"\u0074ype":"a"}"#,
            br#"{"type":"a"b"}"#,
            br#"{"type":42}"#,
            br#"{"type":"a","x":{"#,
            br#"{"type":"a"} trailing"#,
            br#"{"x":1}"#,
        ] {
            assert!(
                scan_head(line).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn the_type_after_a_message_is_found_at_the_end_of_the_line() {
        // Claude Code's session log: the message, holding nested types, then the type.
        let line = br#"{"parentUuid":"p","isSidechain":false,"message":{"content":[{"type":"text","text":"a,\"type\":\"x\""},{"type":"tool_use","input":{"k":1,"type":"inner"}}],"usage":{}},"requestId":"r","type":"assistant","uuid":"u","timestamp":"t"}"#;
        let h = scan_head(line).unwrap();
        assert_eq!(h.name, NameId::ASSISTANT);
        assert_eq!(h.subtype, Subtype::NotPeeked);
        assert_eq!(h.subtype(line), None);
        let (name, sub) = tail_type(line, 40).unwrap();
        assert_eq!((name, sub), (&b"assistant"[..], None));
        // A subtype after it is seen; one before it is read when asked.
        let line = br#"{"m":{"type":"x"},"type":"system","subtype":"init","n":[1]}"#;
        let h = scan_head(line).unwrap();
        assert_eq!(h.subtype, Subtype::Known(Some("init".into())));
        let line = br#"{"subtype":"init","m":{"type":"x"},"type":"system"}"#;
        assert_eq!(
            scan_head(line).unwrap().subtype,
            Subtype::Known(Some("init".into()))
        );
        let line = br#"{"m":{"type":"x"},"subtype":"init","type":"system"}"#;
        assert_eq!(
            scan_head(line).unwrap().subtype(line).as_deref(),
            Some("init")
        );
        // A nested type last is not the top-level one: its members end before the line.
        for line in [
            &br#"{"m":{"a":1,"type":"inner"}}"#[..],
            br#"{"m":[{"a":1,"type":"inner"}]}"#,
            br#"{"m":{"a":1,"type":"inner","b":{"c":2}}}"#,
        ] {
            assert_eq!(
                tail_type(line, 5),
                None,
                "{}",
                String::from_utf8_lossy(line)
            );
            assert!(scan_head(line).is_none());
        }
        // Nothing unexpected after it: an escape, a line cut short.
        for line in [
            &br#"{"m":{},"type":"a\u0062"}"#[..],
            br#"{"m":{},"type":"a","\u0074":1}"#,
            br#"{"m":{},"type":"a","u":"#,
        ] {
            assert_eq!(
                tail_type(line, 5),
                None,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn bad_lines_are_classified() {
        assert!(matches!(
            peek(
                b"RetriableError: [invalid_argument] unknown option",
                TypeSet::NONE
            ),
            Peeked::Bad(BadLine::NotJson(_))
        ));
        assert!(matches!(
            peek(
                br#"{"type":"assistant","message":{"role":"assis"#,
                TypeSet::NONE
            ),
            Peeked::Bad(BadLine::NotJson(_))
        ));
        for line in ["[]", "42", "\"x\"", "null", "true"] {
            assert_eq!(
                peek(line.as_bytes(), TypeSet::NONE),
                Peeked::Bad(BadLine::NotObject),
                "{line}"
            );
        }
        assert_eq!(
            peek(br#"{"kind":"x"}"#, TypeSet::NONE),
            Peeked::Bad(BadLine::NoType)
        );
        assert!(matches!(
            peek(br#"{"type":42}"#, TypeSet::NONE),
            Peeked::Bad(BadLine::BadType(_))
        ));
        assert!(matches!(
            peek(br#"{ "type":"a", "type":"b"}"#, TypeSet::NONE),
            Peeked::Bad(BadLine::BadType(_))
        ));
        assert_eq!(peek(b"  \t", TypeSet::NONE), Peeked::Blank);
    }

    #[test]
    fn text_glued_before_an_event_is_found() {
        let line = br#"MCP issues detected. Run /mcp list for status.{"type":"init","timestamp":"t","session_id":"s","model":"m"}"#;
        let h = head(std::str::from_utf8(line).unwrap());
        assert_eq!(h.name, NameId::INIT);
        assert_eq!(&line[h.start..h.start + 9], br#"{"type":""#);
        // Only text, not a JSON value, may come before the event.
        assert!(matches!(
            peek(br#"{"a":1} {"type":"init"}"#, TypeSet::NONE),
            Peeked::Bad(BadLine::NotJson(_))
        ));
    }

    /// Broken lines are told the same on both paths: by their head, unless checked whole.
    #[test]
    fn both_paths_take_a_broken_line_alike() {
        let lines: [&[u8]; 8] = [
            br#"{"type":"result"}}"#,
            br#"{"type":"result","result":"ok","type":"result"}"#,
            br#"{"type":"result","subtype":"success","x":[}"#,
            br#"{"type":"system","session_id":"s","subtype":7}"#,
            br#"{"session_id":"s","type":"assistant"}{"type":"result"}"#,
            br#"{"type":"thinking","subtype":"delta","text":7}"#,
            br#"{"type":42}"#,
            br#"{"type":"result","result":"cut"#,
        ];
        for line in lines {
            let (fast, plain) = (head_of(line, true), head_of(line, false));
            let text = String::from_utf8_lossy(line);
            match (&fast, &plain) {
                (Ok(a), Ok(b)) => {
                    assert_eq!((a.name, &a.type_name), (b.name, &b.type_name), "{text}");
                    assert_eq!(a.subtype(line), b.subtype(line), "{text}");
                }
                (Err(a), Err(b)) => assert_eq!(a, b, "{text}"),
                _ => panic!("{text}: {fast:?} against {plain:?}"),
            }
        }
        // Checked whole, the broken ones are not events.
        let all = TypeSet::ALL;
        assert!(matches!(
            peek(lines[0], all),
            Peeked::Bad(BadLine::NotJson(_))
        ));
        assert!(matches!(
            peek(lines[1], all),
            Peeked::Bad(BadLine::BadType(_))
        ));
        assert!(matches!(
            peek(lines[3], all),
            Peeked::Bad(BadLine::BadType(_))
        ));
        assert!(matches!(
            peek(lines[4], all),
            Peeked::Bad(BadLine::NotJson(_))
        ));
        assert!(matches!(peek(lines[5], all), Peeked::Event(_)));
        // Unchecked, a usable head makes an event.
        assert!(matches!(peek(lines[0], TypeSet::NONE), Peeked::Event(_)));
    }
}

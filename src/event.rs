//! The consumed wire format, and the cheap ways of reading it.
//!
//! # The format
//!
//! `agent -p --output-format stream-json [--stream-partial-output]` writes NDJSON: one JSON
//! object per line. Every object has a `type`; most have a `subtype` and a `session_id`.
//! The full reference, with the places where real output differs from Cursor's docs, is
//! `../shared/spec/stream-json.md`; what this module relies on is:
//!
//! ```text
//! {"type":"system","subtype":"init","session_id":"…","model":"…","cwd":"…",…}   first line of a run
//! {"type":"user","message":{"role":"user","content":[{"type":"text","text":"…"}]},…}
//! {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"…"}]},
//!  "session_id":"…"[,"model_call_id":"…"][,"timestamp_ms":1790994267358]}
//! {"type":"thinking","subtype":"delta"|"completed"[,"text":"…"],…}
//! {"type":"tool_call","subtype":"started"|"completed","call_id":"…","tool_call":{…},…}
//! {"type":"result","subtype":"success","is_error":false,"result":"<whole answer>",
//!  "duration_ms":…,"duration_api_ms":…,"session_id":"…"[,"request_id":"…"][,"usage":{…}]}
//! {"type":"connection"|"retry"|"interaction_query",…}                      transport noise
//! ```
//!
//! Lines that are not JSON (error text, banners) also appear on stdout, a killed producer
//! leaves a truncated last line, lines can be tens of MiB, and key order is not promised
//! (although real output always starts with `{"type":"…"` and, where there is one,
//! `"subtype":"…"` right after it).
//!
//! # Reading it cheaply
//!
//! [`peek`] reads `type` (and `subtype` when it follows) by matching the usual prefix, with
//! no JSON parse. When the line does not have that shape — other key order, whitespace,
//! escapes in the key or value, or no closing `}` (a truncated line) — it falls back to a
//! real parse of just the two fields. The other fields are parsed by each view, only for
//! the event types it asks for, into borrowed structs (never a `serde_json::Value`).

use std::borrow::Cow;
use std::fmt;
use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::lenient::Num;

/// The event types this tool tells apart. Anything else is [`EventKind::Other`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    System,
    User,
    Assistant,
    Thinking,
    ToolCall,
    Result,
    Connection,
    Retry,
    InteractionQuery,
    Other,
}

impl EventKind {
    pub fn from_name(name: &str) -> EventKind {
        match name {
            "system" => EventKind::System,
            "user" => EventKind::User,
            "assistant" => EventKind::Assistant,
            "thinking" => EventKind::Thinking,
            "tool_call" => EventKind::ToolCall,
            "result" => EventKind::Result,
            "connection" => EventKind::Connection,
            "retry" => EventKind::Retry,
            "interaction_query" => EventKind::InteractionQuery,
            _ => EventKind::Other,
        }
    }

    /// A bit for [`KindSet`].
    const fn bit(self) -> u16 {
        1 << self as u16
    }

    /// Events that belong to a run. They open a session when none is open (a `result`
    /// too: a second one is a run of its own); transport events (`connection`, `retry`, …)
    /// and unknown types do not, so stray noise after a `result` is not mistaken for a new
    /// run without a result.
    pub fn opens_session(self) -> bool {
        matches!(
            self,
            EventKind::User
                | EventKind::Assistant
                | EventKind::Thinking
                | EventKind::ToolCall
                | EventKind::Result
        )
    }
}

/// A set of event kinds: what a view asks the dispatcher for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KindSet(u16);

impl KindSet {
    pub const NONE: KindSet = KindSet(0);
    pub const ALL: KindSet = KindSet(u16::MAX);

    pub const fn of(kinds: &[EventKind]) -> KindSet {
        let mut bits = 0;
        let mut i = 0;
        while i < kinds.len() {
            bits |= kinds[i].bit();
            i += 1;
        }
        KindSet(bits)
    }

    pub const fn contains(self, kind: EventKind) -> bool {
        self.0 & kind.bit() != 0
    }

    pub const fn union(self, other: KindSet) -> KindSet {
        KindSet(self.0 | other.0)
    }
}

/// What [`peek`] learned about a line. It owns its names (the usual ones are static, so
/// nothing is allocated) and can be handed from the reading thread to the views.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub kind: EventKind,
    pub type_name: Cow<'static, str>,
    pub subtype: Subtype,
}

/// The `subtype`, if the peek could see it without a parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subtype {
    Known(Option<Cow<'static, str>>),
    /// Not right after `type`: it may be elsewhere in the line. [`parse_head`] knows.
    NotPeeked,
}

/// Why a line is not an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadLine {
    /// Not JSON at all (error text, a banner) or broken JSON (a truncated line).
    NotJson(String),
    /// Valid JSON, but not an object (`[]`, `42`, `"x"`, `null`).
    NotObject,
    /// An object without a `type`.
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

/// Reads the event type of a line, cheaply when the line has the usual shape.
pub fn peek(line: &[u8]) -> Result<Head, BadLine> {
    if let Some(head) = fast_paths()
        .then(|| fast_peek(line).or_else(|| scan_head(line)))
        .flatten()
    {
        return Ok(head);
    }
    parse_head(line)
}

/// Whether the shortcuts that rely on the CLI's usual layout are taken. They are always
/// taken, except when the environment variable `CURSOR_STREAM_REFERENCE=1` asks for the
/// plain parser everywhere: the tests run every view both ways and compare the output.
pub fn fast_paths() -> bool {
    static FAST: OnceLock<bool> = OnceLock::new();
    *FAST.get_or_init(|| std::env::var_os("CURSOR_STREAM_REFERENCE").is_none_or(|v| v != "1"))
}

/// Finds the top-level `type` and `subtype` in any key order by skipping over the other
/// members' values (strings are jumped over with `memchr`), without validating them.
///
/// Gives up (`None`, and the caller parses the line in full) on anything it does not
/// understand: escapes in a key or in the two values, a repeated key, a value that is not
/// a string, a line that does not end the object.
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
    let type_name = known(type_name?, TYPE_NAMES)?;
    let subtype = match subtype {
        Some(s) => Some(known(s, SUBTYPE_NAMES)?),
        None => None,
    };
    Some(Head {
        kind: EventKind::from_name(&type_name),
        type_name,
        subtype: Subtype::Known(subtype),
    })
}

fn skip_ws(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The string starting with the quote at `at`: its body, whether it has escapes, and the
/// index after its closing quote.
fn string_at(line: &[u8], at: usize) -> Option<(&[u8], bool, usize)> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let (body, escaped, _) = string_body(&line[at + 1..])?;
    Some((body, escaped, at + 1 + body.len() + 1))
}

/// The index after the value starting at `at` (not validated, only delimited).
fn skip_value(line: &[u8], at: usize) -> Option<usize> {
    match line.get(at)? {
        b'"' => Some(string_at(line, at)?.2),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match line.get(i)? {
                    b'"' => {
                        i = string_at(line, i)?.2;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let len = line[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .unwrap_or(line.len() - at);
            (len > 0).then_some(at + len)
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
    let (type_name, rest) = name_value(rest, TYPE_NAMES)?;
    let subtype = match rest.first()? {
        b'}' => Subtype::Known(None),
        b',' => match rest.strip_prefix(SUBTYPE_KEY) {
            Some(after) => {
                let (sub, after) = name_value(after, SUBTYPE_NAMES)?;
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
        kind: EventKind::from_name(&type_name),
        type_name,
        subtype,
    })
}

const TYPE_NAMES: &[&str] = &[
    "assistant",
    "tool_call",
    "thinking",
    "result",
    "system",
    "user",
    "connection",
    "retry",
    "interaction_query",
];

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
];

/// A string value whose opening quote is consumed, and what follows its closing quote.
/// The usual names are recognised by comparison (cheaper, on such short strings, than
/// finding the quote and checking UTF-8); others must hold no escape.
fn name_value<'a>(s: &'a [u8], names: &[&'static str]) -> Option<(Cow<'static, str>, &'a [u8])> {
    for name in names {
        if let Some(rest) = s
            .strip_prefix(name.as_bytes())
            .and_then(|rest| rest.strip_prefix(b"\""))
        {
            return Some((Cow::Borrowed(name), rest));
        }
    }
    let (value, rest) = plain_bytes(s)?;
    Some((
        Cow::Owned(std::str::from_utf8(value).ok()?.to_owned()),
        rest,
    ))
}

/// The name: one of `names` (static, found by comparison, which costs less than checking
/// UTF-8 on such short strings), else a copy checked as UTF-8.
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

/// The bytes up to the next `"`, if there is no escape before it; and what follows.
fn plain_bytes(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = memchr::memchr2(b'"', b'\\', s)?;
    if s[end] != b'"' {
        return None;
    }
    Some((&s[..end], &s[end + 1..]))
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
pub fn parse_head(line: &[u8]) -> Result<Head, BadLine> {
    if line.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        // serde's derived structs also accept arrays, so tell non-objects apart first.
        return Err(match serde_json::from_slice::<IgnoredAny>(line) {
            Ok(_) => BadLine::NotObject,
            Err(e) => BadLine::NotJson(e.to_string()),
        });
    }
    let fields: HeadFields = match serde_json::from_slice(line) {
        Ok(fields) => fields,
        Err(e) if e.classify() == serde_json::error::Category::Data => {
            return Err(BadLine::BadType(e.to_string()));
        }
        Err(e) => return Err(BadLine::NotJson(e.to_string())),
    };
    let type_name = owned_name(fields.type_name.ok_or(BadLine::NoType)?, TYPE_NAMES);
    Ok(Head {
        kind: EventKind::from_name(&type_name),
        type_name,
        subtype: Subtype::Known(fields.subtype.map(|s| owned_name(s, SUBTYPE_NAMES))),
    })
}

/// Which form an `assistant` event has (see `view::text` for what the forms mean).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct AssistantMeta {
    /// `model_call_id` is present: the event is a segment flush (see `view::text`).
    pub has_model_call_id: bool,
    /// `timestamp_ms` is present.
    pub has_timestamp: bool,
}

/// Reads an `assistant` event: appends the text of its content parts to `text` and says
/// which form it has. Nothing is allocated per event.
///
/// Only parts whose `type` is `"text"` (or that have no `type`) count, as in the docs'
/// `message.content[].text`. On error `text` may hold part of the text; callers truncate it.
pub fn read_assistant(line: &[u8], text: &mut Vec<u8>) -> Result<AssistantMeta, serde_json::Error> {
    let start = text.len();
    if let Some(meta) = fast_paths().then(|| fast_assistant(line, text)).flatten() {
        return Ok(meta);
    }
    text.truncate(start);
    parse_assistant(line, text)
}

/// The layout every real `assistant` line has, byte for byte up to the text:
const ASSISTANT_PREFIX: &[u8] =
    br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":""#;

/// The same event with its keys sorted, as tools that re-serialize JSON through a sorted
/// map write it.
const SORTED_ASSISTANT_PREFIX: &[u8] = br#"{"message":{"content":[{"text":""#;

/// Reads an `assistant` line laid out exactly as the CLI writes it, or with its keys
/// sorted, without a parser; gives up (`None`) on any other line:
///
/// ```text
/// {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"<text>"}]},
///  "session_id":"<id>"[,"model_call_id":"<id>"][,"timestamp_ms":<digits>]}
/// {"message":{"content":[{"text":"<text>","type":"text"}],"role":"assistant"},
///  ["model_call_id":"<id>",]"session_id":"<id>"[,"timestamp_ms":<digits>],"type":"assistant"}
/// ```
///
/// What it accepts is exactly these shapes, every string checked as a JSON string would be
/// (no raw control characters, valid UTF-8, escapes decoded as serde_json does), so it
/// agrees with [`parse_assistant`] on every line it takes.
fn fast_assistant(line: &[u8], text: &mut Vec<u8>) -> Option<AssistantMeta> {
    let (prefix, sorted) = if line.starts_with(ASSISTANT_PREFIX) {
        (ASSISTANT_PREFIX.len(), false)
    } else if line.starts_with(SORTED_ASSISTANT_PREFIX) {
        (SORTED_ASSISTANT_PREFIX.len(), true)
    } else {
        return None;
    };
    let (body, escaped, rest) = string_body(&line[prefix..])?;
    let mut meta = AssistantMeta::default();
    let rest = if sorted {
        let mut rest = rest.strip_prefix(br#","type":"text"}],"role":"assistant"},""#)?;
        if let Some(after) = rest.strip_prefix(br#"model_call_id":""#) {
            rest = plain_value(after)?.1.strip_prefix(br#",""#)?;
            meta.has_model_call_id = true;
        }
        let rest = rest.strip_prefix(br#"session_id":""#)?;
        let rest = timestamp(plain_value(rest)?.1, &mut meta)?;
        rest.strip_prefix(br#","type":"assistant"}"#)?
    } else {
        let rest = rest.strip_prefix(br#"}]},"session_id":""#)?;
        let mut rest = plain_value(rest)?.1;
        if let Some(after) = rest.strip_prefix(br#","model_call_id":""#) {
            rest = plain_value(after)?.1;
            meta.has_model_call_id = true;
        }
        timestamp(rest, &mut meta)?.strip_prefix(b"}")?
    };
    if !rest.is_empty() {
        return None;
    }
    if !escaped {
        if !is_string_text(body) {
            return None;
        }
        text.extend_from_slice(body);
    } else if append_escaped(body, text).is_none() {
        // `\u` escapes (or an invalid string): serde_json decodes the token with its quotes.
        let token = &line[prefix - 1..prefix + body.len() + 1];
        let mut de = serde_json::Deserializer::from_slice(token);
        AppendStr { text }.deserialize(&mut de).ok()?;
    }
    Some(meta)
}

/// An optional `,"timestamp_ms":<digits>`.
fn timestamp<'a>(rest: &'a [u8], meta: &mut AssistantMeta) -> Option<&'a [u8]> {
    let Some(after) = rest.strip_prefix(br#","timestamp_ms":"#) else {
        return Some(rest);
    };
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    meta.has_timestamp = true;
    Some(&after[digits..])
}

/// Appends a string body with the one-letter escapes decoded. `None` (and nothing
/// appended) for a `\u` escape or anything a JSON string may not hold.
fn append_escaped(body: &[u8], text: &mut Vec<u8>) -> Option<()> {
    let start = text.len();
    let mut rest = body;
    loop {
        let at = memchr::memchr(b'\\', rest).unwrap_or(rest.len());
        let plain = &rest[..at];
        let decoded = match rest.get(at + 1) {
            _ if !is_string_text(plain) => None,
            None => {
                text.extend_from_slice(plain);
                return Some(());
            }
            Some(b'n') => Some(b'\n'),
            Some(b't') => Some(b'\t'),
            Some(b'r') => Some(b'\r'),
            Some(b'"') => Some(b'"'),
            Some(b'\\') => Some(b'\\'),
            Some(b'/') => Some(b'/'),
            Some(b'b') => Some(0x08),
            Some(b'f') => Some(0x0c),
            Some(_) => None,
        };
        let Some(c) = decoded else {
            text.truncate(start);
            return None;
        };
        text.extend_from_slice(plain);
        text.push(c);
        rest = &rest[at + 2..];
    }
}

/// Whether unescaped bytes may stand in a JSON string: UTF-8 without control characters.
/// Printable ASCII, the usual case, is told in one pass.
fn is_string_text(bytes: &[u8]) -> bool {
    bytes.iter().all(|&b| b.wrapping_sub(0x20) < 0x60)
        || (!bytes.iter().any(|&b| b < 0x20) && std::str::from_utf8(bytes).is_ok())
}

/// The body of a JSON string whose opening quote is consumed, whether it holds escapes,
/// and what follows the closing quote.
pub(crate) fn string_body(s: &[u8]) -> Option<(&[u8], bool, &[u8])> {
    let mut i = 0;
    let mut escaped = false;
    loop {
        // `get`: an escape may be the last byte of a cut line.
        i += memchr::memchr2(b'"', b'\\', s.get(i..)?)?;
        if s[i] == b'\\' {
            escaped = true;
            i += 2;
        } else {
            return Some((&s[..i], escaped, &s[i + 1..]));
        }
    }
}

/// A string value with no escapes or control characters, in UTF-8.
fn plain_value(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let (value, rest) = plain_bytes(s)?;
    is_string_text(value).then_some((value, rest))
}

/// The full parse of an `assistant` event, whatever its key order and spacing.
fn parse_assistant(line: &[u8], text: &mut Vec<u8>) -> Result<AssistantMeta, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let meta = AssistantSeed { text }.deserialize(&mut de)?;
    de.end()?;
    Ok(meta)
}

struct AssistantSeed<'b> {
    text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for AssistantSeed<'_> {
    type Value = AssistantMeta;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<AssistantMeta, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for AssistantSeed<'_> {
    type Value = AssistantMeta;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an assistant event object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<AssistantMeta, A::Error> {
        const KEYS: &[&str] = &["message", "model_call_id", "timestamp_ms"];
        let mut meta = AssistantMeta::default();
        while let Some(key) = map.next_key_seed(KeyIn(KEYS))? {
            match key {
                Some(0) => map.next_value_seed(MessageSeed {
                    text: &mut *self.text,
                })?,
                Some(1) => {
                    map.next_value::<IgnoredAny>()?;
                    meta.has_model_call_id = true;
                }
                Some(2) => {
                    map.next_value::<IgnoredAny>()?;
                    meta.has_timestamp = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(meta)
    }
}

/// `message`: `{"role":…, "content":[…]}`; only `content` is read.
struct MessageSeed<'b> {
    text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for MessageSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MessageSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a message object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key_seed(KeyIn(&["content"]))? {
            if key.is_some() {
                map.next_value_seed(ContentSeed {
                    text: &mut *self.text,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// `content`: an array of parts. A plain string is accepted too, as chat APIs allow it.
struct ContentSeed<'b> {
    text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for ContentSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ContentSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of content parts")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(PartSeed {
                text: &mut *self.text,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.text.extend_from_slice(v.as_bytes());
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// One part: `{"type":"text","text":"…"}`. Keys may come in any order, so the text is
/// appended first and taken back if the part turns out not to be text.
struct PartSeed<'b> {
    text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for PartSeed<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PartSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content part object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let start = self.text.len();
        let mut is_text = true;
        while let Some(key) = map.next_key_seed(KeyIn(&["text", "type"]))? {
            match key {
                Some(0) => map.next_value_seed(AppendStr {
                    text: &mut *self.text,
                })?,
                Some(1) => is_text = map.next_value_seed(KeyIn(&["text"]))?.is_some(),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        if !is_text {
            self.text.truncate(start);
        }
        Ok(())
    }
}

/// Appends a JSON string to a buffer. serde_json hands over borrowed bytes when the string
/// has no escapes and its own reused scratch buffer when it has: no allocation either way.
pub struct AppendStr<'b> {
    pub text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for AppendStr<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for AppendStr<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.text.extend_from_slice(v.as_bytes());
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// What a `thinking` event marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThinkingPhase {
    Delta,
    Completed,
    /// A subtype this tool does not know, or none.
    Other,
}

/// A `thinking` event: appends its `text` (top level, not under `message`) to `text`.
pub fn read_thinking(line: &[u8], text: &mut Vec<u8>) -> Result<ThinkingPhase, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(line);
    let subtype = ThinkingSeed { text }.deserialize(&mut de)?;
    de.end()?;
    Ok(subtype)
}

struct ThinkingSeed<'b> {
    text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for ThinkingSeed<'_> {
    type Value = ThinkingPhase;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ThinkingSeed<'_> {
    type Value = ThinkingPhase;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a thinking event object")
    }

    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut phase = ThinkingPhase::Other;
        while let Some(key) = map.next_key_seed(KeyIn(&["text", "subtype"]))? {
            match key {
                Some(0) => map.next_value_seed(AppendStr {
                    text: &mut *self.text,
                })?,
                Some(1) => {
                    phase = match map.next_value_seed(KeyIn(&["delta", "completed"]))? {
                        Some(0) => ThinkingPhase::Delta,
                        Some(1) => ThinkingPhase::Completed,
                        _ => ThinkingPhase::Other,
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(phase)
    }
}

/// Reads a string and says which of `names` it is, without allocating (serde's `Cow<str>`
/// would always allocate, and `&str` fails on escapes). Used for keys and enum-like values.
pub(crate) struct KeyIn<'n>(pub &'n [&'n str]);

impl<'de> DeserializeSeed<'de> for KeyIn<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyIn<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|name| *name == v))
    }
}

/// The `result` event: the end of a run.
#[derive(Debug, Deserialize, Default)]
pub struct ResultEvent<'a> {
    #[serde(borrow, default)]
    pub subtype: Option<Cow<'a, str>>,
    #[serde(default)]
    pub is_error: Option<bool>,
    #[serde(borrow, default)]
    pub result: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    /// Kept as raw text and read on demand, so that a number serde_json cannot hold
    /// (`1e999`) costs the footer a figure, not the whole result.
    #[serde(borrow, default)]
    duration_ms: Option<&'a RawValue>,
    #[serde(borrow, default)]
    usage: Option<&'a RawValue>,
}

/// Token counts of a run (CLI builds from 2026.06 on). There is no cost field.
#[derive(Debug, Deserialize, Default, Clone, Copy, PartialEq)]
#[serde(default, rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: Num,
    pub output_tokens: Num,
    pub cache_read_tokens: Num,
    pub cache_write_tokens: Num,
}

impl ResultEvent<'_> {
    /// Only `subtype:"success"` with `is_error` false (or absent) is a finished run.
    pub fn succeeded(&self) -> bool {
        self.subtype.as_deref() == Some("success") && self.is_error != Some(true)
    }

    pub fn text(&self) -> &str {
        self.result.as_deref().unwrap_or("")
    }

    pub fn duration_ms(&self) -> Option<u64> {
        let ms: f64 = self.duration_ms?.get().parse().ok()?;
        Num(Some(ms)).as_u64()
    }

    /// Token counts, when the CLI gave them (2026.06 on) in a readable shape.
    pub fn usage(&self) -> Option<Usage> {
        serde_json::from_str(self.usage?.get()).ok()
    }
}

pub fn read_result(line: &[u8]) -> Result<ResultEvent<'_>, serde_json::Error> {
    serde_json::from_slice(line)
}

/// The `system` event's fields that describe a run.
#[derive(Debug, Deserialize, Default)]
pub struct SystemEvent<'a> {
    #[serde(borrow, default)]
    pub subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
}

pub fn read_system(line: &[u8]) -> Result<SystemEvent<'_>, serde_json::Error> {
    serde_json::from_slice(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_and_sub(line: &str) -> (EventKind, Option<String>) {
        let head = peek(line.as_bytes()).unwrap();
        let sub = match head.subtype {
            Subtype::Known(s) => s.map(|s| s.into_owned()),
            Subtype::NotPeeked => parse_head(line.as_bytes())
                .unwrap()
                .subtype
                .known()
                .map(|s| s.to_string()),
        };
        (head.kind, sub)
    }

    impl Subtype {
        fn known(&self) -> Option<&str> {
            match self {
                Subtype::Known(s) => s.as_deref(),
                Subtype::NotPeeked => None,
            }
        }
    }

    #[test]
    fn fast_peek_reads_the_usual_shape() {
        let head = fast_peek(br#"{"type":"tool_call","subtype":"started","call_id":"x"}"#).unwrap();
        assert_eq!(head.kind, EventKind::ToolCall);
        assert_eq!(head.subtype, Subtype::Known(Some("started".into())));
        let head = fast_peek(br#"{"type":"assistant","message":{}}"#).unwrap();
        assert_eq!(head.kind, EventKind::Assistant);
        assert_eq!(head.subtype, Subtype::NotPeeked);
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
                kind_and_sub(line),
                (EventKind::Result, Some("success".to_string())),
                "{line}"
            );
        }
    }

    #[test]
    fn a_line_cut_after_a_backslash_is_not_a_panic() {
        for line in [
            &br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a\"#[..],
            br#"{"a":"\"#,
            br#"{"type":"x","b":"\"#,
        ] {
            let _ = peek(line);
            let _ = read_assistant(line, &mut Vec::new());
            assert!(string_body(&line[line.len() - 1..]).is_none());
        }
    }

    #[test]
    fn scan_head_finds_the_top_level_type_in_any_order() {
        let line = br#"{"call_id":"c","tool_call":{"type":"nested","x":[{"subtype":"no"},"\"}"]},"subtype":"completed","type":"tool_call"}"#;
        let head = scan_head(line).unwrap();
        assert_eq!(head.kind, EventKind::ToolCall);
        assert_eq!(head.subtype, Subtype::Known(Some("completed".into())));
        let head = scan_head(br#" { "n" : 1.5e3 , "t" : true, "type" : "user" } "#).unwrap();
        assert_eq!(
            (head.kind, head.subtype),
            (EventKind::User, Subtype::Known(None))
        );
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
    fn truncated_line_falls_back_and_is_reported() {
        let err = peek(br#"{"type":"assistant","message":{"role":"assis"#).unwrap_err();
        assert!(matches!(err, BadLine::NotJson(_)), "{err:?}");
    }

    #[test]
    fn bad_lines_are_classified() {
        assert!(matches!(
            peek(b"RetriableError: [invalid_argument] unknown option"),
            Err(BadLine::NotJson(_))
        ));
        for line in ["[]", "42", "\"x\"", "null", "true"] {
            assert_eq!(peek(line.as_bytes()), Err(BadLine::NotObject), "{line}");
        }
        assert_eq!(peek(br#"{"kind":"x"}"#), Err(BadLine::NoType));
        assert!(matches!(peek(br#"{"type":42}"#), Err(BadLine::BadType(_))));
        assert!(matches!(
            peek(br#"{ "type":"a", "type":"b"}"#),
            Err(BadLine::BadType(_))
        ));
    }

    #[test]
    fn unknown_types_are_other_with_their_name() {
        let head = peek(br#"{"type":"brand_new","x":1}"#).unwrap();
        assert_eq!(head.kind, EventKind::Other);
        assert_eq!(head.type_name, "brand_new");
    }

    #[test]
    fn assistant_text_and_form() {
        let mut text = Vec::new();
        let meta = read_assistant(
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a\nb"},{"text":"c","type":"text"},{"type":"image","text":"no"}]},"model_call_id":"m","timestamp_ms":1}"#,
            &mut text,
        )
        .unwrap();
        assert_eq!(text, b"a\nbc");
        assert!(meta.has_model_call_id && meta.has_timestamp);

        text.clear();
        let meta = read_assistant(
            br#"{"message":{"content":[{"type":"text","text":"x"}]},"type":"assistant"}"#,
            &mut text,
        )
        .unwrap();
        assert_eq!(text, b"x");
        assert_eq!(meta, AssistantMeta::default());
    }

    #[test]
    fn fast_assistant_agrees_with_the_parser() {
        let lines = [
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"plain"}]},"session_id":"s"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"esc \"q\" \n \u00e9 \ud83c\udf89"}]},"session_id":"s","timestamp_ms":17}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"I'll"}]},"session_id":"s","model_call_id":"m-0","timestamp_ms":1790994267362}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":""}]},"session_id":"s","timestamp_ms":1}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"ünïcødé — 日本"}]},"session_id":"s"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a\\b\/c\td\r\n\b\f\"é\"\n"}]},"session_id":"s"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"\\"}]},"session_id":"s"}"#,
            r#"{"message":{"content":[{"text":"sorted \n","type":"text"}],"role":"assistant"},"session_id":"s","timestamp_ms":3,"type":"assistant"}"#,
            r#"{"message":{"content":[{"text":"x","type":"text"}],"role":"assistant"},"model_call_id":"m","session_id":"s","timestamp_ms":3,"type":"assistant"}"#,
            r#"{"message":{"content":[{"text":"y","type":"text"}],"role":"assistant"},"session_id":"s","type":"assistant"}"#,
        ];
        for line in lines {
            let (mut fast, mut slow) = (Vec::new(), Vec::new());
            let fast_meta = fast_assistant(line.as_bytes(), &mut fast).expect(line);
            let slow_meta = parse_assistant(line.as_bytes(), &mut slow).unwrap();
            assert_eq!((fast_meta, &fast), (slow_meta, &slow), "{line}");
        }
    }

    #[test]
    fn fast_assistant_leaves_other_shapes_to_the_parser() {
        let lines: &[&[u8]] = &[
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"session_id":"s"}"#,
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","extra":1}"#,
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s","timestamp_ms":1.5}"#,
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a"}]},"session_id":"s"} "#,
            b"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"tab\there\"}]},\"session_id\":\"s\"}",
            b"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\"}]},\"session_id\":\"s\"}",
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"bad \x"}]},"session_id":"s"}"#,
            br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"cut"#,
            br#"{"message":{"content":[{"text":"x","type":"text"}],"role":"assistant"},"session_id":"s","type":"assistant","extra":1}"#,
            br#"{"message":{"content":[{"text":"x","type":"text"}],"role":"assistant"},"session_id":"s","timestamp_ms":3}"#,
        ];
        for line in lines {
            assert!(
                fast_assistant(line, &mut Vec::new()).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn assistant_with_wrong_shapes_is_an_error_not_a_panic() {
        let mut text = Vec::new();
        for line in [
            r#"{"type":"assistant","message":{"content":42}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":7}]}}"#,
            r#"{"type":"assistant","message":"hi"}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]}"#,
        ] {
            assert!(
                read_assistant(line.as_bytes(), &mut text).is_err(),
                "{line}"
            );
        }
    }

    #[test]
    fn result_success_rule() {
        let ok =
            read_result(br#"{"type":"result","subtype":"success","is_error":false,"result":"r"}"#)
                .unwrap();
        assert!(ok.succeeded());
        assert_eq!(ok.text(), "r");
        let err = read_result(br#"{"type":"result","subtype":"success","is_error":true}"#).unwrap();
        assert!(!err.succeeded());
        let other = read_result(br#"{"type":"result","subtype":"error_max_turns"}"#).unwrap();
        assert!(!other.succeeded());
    }
}

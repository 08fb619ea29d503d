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

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};

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

    /// Events that belong to a run's content. They open a session when none is open;
    /// transport events (`connection`, `retry`, …) and unknown types do not, so stray noise
    /// after a `result` is not mistaken for a new run without a result.
    pub fn opens_session(self) -> bool {
        matches!(
            self,
            EventKind::User | EventKind::Assistant | EventKind::Thinking | EventKind::ToolCall
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

/// What [`peek`] learned about a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head<'a> {
    pub kind: EventKind,
    pub type_name: Cow<'a, str>,
    pub subtype: Subtype<'a>,
}

/// The `subtype`, if the peek could see it without a parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subtype<'a> {
    Known(Option<Cow<'a, str>>),
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
pub fn peek(line: &[u8]) -> Result<Head<'_>, BadLine> {
    match fast_peek(line) {
        Some(head) => Ok(head),
        None => parse_head(line),
    }
}

/// Matches `{"type":"<plain>"` and an optional `,"subtype":"<plain>"` right after it.
///
/// Gives up (returns `None`) on anything unusual, since the fallback is always correct:
/// an escape in a value, a line that does not end in `}`.
fn fast_peek(line: &[u8]) -> Option<Head<'_>> {
    let rest = line.strip_prefix(TYPE_PREFIX)?;
    if line.last() != Some(&b'}') {
        return None;
    }
    let (type_name, rest) = plain_string(rest)?;
    let subtype = match rest.first()? {
        b'}' => Subtype::Known(None),
        b',' => match rest.strip_prefix(SUBTYPE_KEY) {
            Some(after) => {
                let (sub, after) = plain_string(after)?;
                if !matches!(after.first(), Some(b',' | b'}')) {
                    return None;
                }
                Subtype::Known(Some(Cow::Borrowed(sub)))
            }
            None => Subtype::NotPeeked,
        },
        _ => return None,
    };
    Some(Head {
        kind: EventKind::from_name(type_name),
        type_name: Cow::Borrowed(type_name),
        subtype,
    })
}

/// The bytes up to the next `"`, if they hold no escape and are UTF-8; and what follows.
fn plain_string(s: &[u8]) -> Option<(&str, &[u8])> {
    let end = memchr::memchr2(b'"', b'\\', s)?;
    if s[end] != b'"' {
        return None;
    }
    let value = std::str::from_utf8(&s[..end]).ok()?;
    Some((value, &s[end + 1..]))
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
pub fn parse_head(line: &[u8]) -> Result<Head<'_>, BadLine> {
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
    let type_name = fields.type_name.ok_or(BadLine::NoType)?;
    Ok(Head {
        kind: EventKind::from_name(&type_name),
        type_name,
        subtype: Subtype::Known(fields.subtype),
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
struct KeyIn<'n>(&'n [&'n str]);

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
    #[serde(default)]
    pub duration_ms: Num,
    #[serde(default)]
    pub usage: Option<Usage>,
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

    impl Subtype<'_> {
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

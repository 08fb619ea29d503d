//! Cursor's wire format, and the cheap ways of reading its events.
//!
//! `agent -p --output-format stream-json [--stream-partial-output]` writes NDJSON: one JSON
//! object per line. Every object has a `type`; most have a `subtype` and a `session_id`.
//! The full reference, with the places where real output differs from Cursor's docs, is
//! `../shared/spec/stream-json.md`; what this dialect relies on is:
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
//! Real output always starts with `{"type":"…"` and, where there is one, `"subtype":"…"`
//! right after it; `assistant` lines have one exact layout, which [`read_assistant`] reads
//! without a parser (falling back to one for any other shape). The other events are read
//! into borrowed structs, never a `serde_json::Value`.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::input::json::{
    AppendStr, KeyIn, append_escaped, is_string_text, plain_value, string_body,
};
use crate::input::lenient::Num;
use crate::input::peek::fast_paths;

/// Which form an `assistant` event has (see `answer` for what the forms mean).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct AssistantMeta {
    /// `model_call_id` is present: the event is a segment flush (see `answer`).
    pub has_model_call_id: bool,
    /// `timestamp_ms` is present.
    pub has_timestamp: bool,
}

/// Reads an `assistant` event: appends the text of its content parts to `text` and says
/// which form it has. Nothing is allocated per event.
///
/// Only parts whose `type` is `"text"` (or that have no `type`) count, as in the docs'
/// `message.content[].text`. On error `text` may hold part of the text; callers truncate it.
pub(crate) fn read_assistant(
    line: &[u8],
    text: &mut Vec<u8>,
) -> Result<AssistantMeta, serde_json::Error> {
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
    // JSON has no leading zeros: such a number is serde_json's to refuse.
    if digits == 0 || (digits > 1 && after[0] == b'0') {
        return None;
    }
    meta.has_timestamp = true;
    Some(&after[digits..])
}

/// The full parse of an `assistant` event, whatever its key order and spacing.
fn parse_assistant(line: &[u8], text: &mut Vec<u8>) -> Result<AssistantMeta, serde_json::Error> {
    let start = text.len();
    crate::input::json::with_de!(line, undo { text.truncate(start); }, |de| {
        let meta = AssistantSeed { text: &mut *text }.deserialize(&mut de)?;
        de.end()?;
        Ok(meta)
    })
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

/// What a `thinking` event marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ThinkingPhase {
    Delta,
    Completed,
    /// A subtype this tool does not know, or none.
    Other,
}

/// A `thinking` event: appends its `text` (top level, not under `message`) to `text`.
pub(crate) fn read_thinking(
    line: &[u8],
    text: &mut Vec<u8>,
) -> Result<ThinkingPhase, serde_json::Error> {
    let start = text.len();
    crate::input::json::with_de!(line, undo { text.truncate(start); }, |de| {
        let subtype = ThinkingSeed { text: &mut *text }.deserialize(&mut de)?;
        de.end()?;
        Ok(subtype)
    })
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

/// The `result` event: the end of a run.
#[derive(Debug, Deserialize, Default)]
pub(crate) struct ResultEvent<'a> {
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
pub(crate) struct Usage {
    pub input_tokens: Num,
    pub output_tokens: Num,
    pub cache_read_tokens: Num,
    pub cache_write_tokens: Num,
}

impl ResultEvent<'_> {
    /// Only `subtype:"success"` with `is_error` false (or absent) is a finished run.
    pub(crate) fn succeeded(&self) -> bool {
        self.subtype.as_deref() == Some("success") && self.is_error != Some(true)
    }

    pub(crate) fn text(&self) -> &str {
        self.result.as_deref().unwrap_or("")
    }

    pub(crate) fn duration_ms(&self) -> Option<u64> {
        let ms: f64 = self.duration_ms?.get().parse().ok()?;
        Num(Some(ms)).as_u64()
    }

    /// Token counts, when the CLI gave them (2026.06 on) in a readable shape.
    pub(crate) fn usage(&self) -> Option<Usage> {
        crate::input::json::from_str(self.usage?.get()).ok()
    }
}

pub(crate) fn read_result(line: &[u8]) -> Result<ResultEvent<'_>, serde_json::Error> {
    crate::input::json::from_line(line)
}

/// The `system` event's fields that describe a run.
#[derive(Debug, Deserialize, Default)]
pub(crate) struct SystemEvent<'a> {
    #[serde(borrow, default)]
    pub session_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub model: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub cwd: Option<Cow<'a, str>>,
}

pub(crate) fn read_system(line: &[u8]) -> Result<SystemEvent<'_>, serde_json::Error> {
    crate::input::json::from_line(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_cut_after_a_backslash_is_not_a_panic() {
        for line in [
            &br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"a\"#[..],
            br#"{"a":"\"#,
            br#"{"type":"x","b":"\"#,
        ] {
            let _ = crate::input::peek::peek(line, crate::input::peek::TypeSet::ALL);
            let _ = read_assistant(line, &mut Vec::new());
            assert!(string_body(&line[line.len() - 1..]).is_none());
        }
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

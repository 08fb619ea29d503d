//! A tool call's arguments or result, as the agent wrote them in JSON, made readable:
//! short values as `key: value` fields, long or multi-line strings (file contents,
//! command output, diffs) as blocks of text with real newlines — whatever the agent's
//! shape, without building a JSON tree.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::escape::{self, Cut};
use crate::input::json::BorrowedStr;

/// How much of each value is kept.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keep {
    pub block_lines: usize,
    pub block_bytes: usize,
}

/// Fields past this many are counted, not kept.
const MAX_FIELDS: usize = 40;
/// Blocks past this many are counted, not kept.
const MAX_BLOCKS: usize = 12;
/// Deeper values are kept as compact JSON.
const MAX_DEPTH: usize = 8;
/// A string longer than this (or with a newline) is a block, not a field.
const FIELD_CHARS: usize = 100;

/// A readable rendering of one JSON value.
#[derive(Debug, Default)]
pub(crate) struct Parts {
    /// `(path, value)`: `exitCode: 0`, `path: src/main.rs`.
    pub fields: Vec<(String, String)>,
    pub blocks: Vec<Block>,
    /// Fields and blocks past the limits, counted.
    pub more: usize,
    /// What was cut of the blocks, in all.
    pub cut: Option<Cut>,
}

#[derive(Debug)]
pub(crate) struct Block {
    /// The key path (`stdout`, `content[0].text`); empty for a value that is one string.
    pub label: String,
    pub text: String,
    pub cut: Option<Cut>,
}

impl Parts {
    /// Bytes kept, for the budget.
    pub(crate) fn kept(&self) -> usize {
        self.fields
            .iter()
            .map(|(k, v)| k.len() + v.len() + 4)
            .sum::<usize>()
            + self
                .blocks
                .iter()
                .map(|b| b.label.len() + b.text.len() + 16)
                .sum::<usize>()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.blocks.is_empty() && self.more == 0
    }
}

/// Reads `raw` (valid JSON: it comes from a parsed line) into parts.
pub(crate) fn read(raw: &RawValue, keep: Keep) -> Parts {
    let mut parts = Parts::default();
    let mut de = serde_json::Deserializer::from_str(raw.get());
    let walked = Walker {
        parts: &mut parts,
        path: String::new(),
        depth: 0,
        keep,
    }
    .deserialize(&mut de);
    if walked.is_err() {
        // Not expected (the value was parsed before); show it as it is rather than lose it.
        parts = Parts::default();
        push_block(&mut parts, String::new(), raw.get(), keep);
    }
    parts
}

/// A string that is the whole value (a result the agent gives as text), as parts.
pub(crate) fn text(s: &str, keep: Keep) -> Parts {
    let mut parts = Parts::default();
    push_block(&mut parts, String::new(), s, keep);
    parts
}

fn push_block(parts: &mut Parts, label: String, s: &str, keep: Keep) {
    if parts.blocks.len() == MAX_BLOCKS {
        parts.more += 1;
        return;
    }
    let (kept, cut) = escape::cut(s, keep.block_lines, keep.block_bytes);
    if let Some(c) = cut {
        let total = parts.cut.get_or_insert(Cut { lines: 0, bytes: 0 });
        total.lines += c.lines;
        total.bytes += c.bytes;
    }
    parts.blocks.push(Block {
        label,
        text: escape::visible(kept).into_owned(),
        cut,
    });
}

fn push_field(parts: &mut Parts, path: &str, value: impl fmt::Display) {
    if parts.fields.len() == MAX_FIELDS {
        parts.more += 1;
        return;
    }
    let label = if path.is_empty() { "value" } else { path };
    parts.fields.push((
        escape::one_line(label),
        escape::one_line(&value.to_string()),
    ));
}

struct Walker<'p> {
    parts: &'p mut Parts,
    path: String,
    depth: usize,
    keep: Keep,
}

impl Walker<'_> {
    /// The walker of a member (`index`: of an array element).
    fn child(&mut self, key: fmt::Arguments<'_>, index: bool) -> Walker<'_> {
        let mut path = self.path.clone();
        if !path.is_empty() && !index {
            path.push('.');
        }
        fmt::write(&mut path, key).ok();
        Walker {
            parts: self.parts,
            path,
            depth: self.depth + 1,
            keep: self.keep,
        }
    }

    fn string(self, s: &str) {
        // A value that is one string (a result given as text) is shown as text, however
        // short.
        if self.depth == 0 || s.contains('\n') || s.chars().nth(FIELD_CHARS).is_some() {
            push_block(self.parts, self.path, s, self.keep);
        } else if s.is_empty() {
            push_field(self.parts, &self.path, "\"\"");
        } else {
            push_field(self.parts, &self.path, s);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walker<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            let raw: &RawValue = Deserialize::deserialize(d)?;
            push_field(self.parts, &self.path, raw.get());
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

use serde::Deserialize;

impl<'de> Visitor<'de> for Walker<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.string(v);
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        push_field(self.parts, &self.path, v);
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        push_field(self.parts, &self.path, v);
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        push_field(self.parts, &self.path, v);
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        push_field(self.parts, &self.path, v);
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        push_field(self.parts, &self.path, "null");
        Ok(())
    }

    fn visit_map<M: MapAccess<'de>>(mut self, mut map: M) -> Result<(), M::Error> {
        let mut empty = true;
        while let Some(key) = map.next_key_seed(BorrowedStr)? {
            empty = false;
            map.next_value_seed(self.child(format_args!("{key}"), false))?;
        }
        if empty {
            push_field(self.parts, &self.path, "{}");
        }
        Ok(())
    }

    fn visit_seq<S: SeqAccess<'de>>(mut self, mut seq: S) -> Result<(), S::Error> {
        let mut i = 0usize;
        while seq
            .next_element_seed(self.child(format_args!("[{i}]"), true))?
            .is_some()
        {
            i += 1;
        }
        if i == 0 {
            push_field(self.parts, &self.path, "[]");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEEP: Keep = Keep {
        block_lines: 2,
        block_bytes: 1000,
    };

    fn parts(json: &str) -> Parts {
        read(&RawValue::from_string(json.to_string()).unwrap(), KEEP)
    }

    #[test]
    fn short_values_are_fields_and_output_is_a_block() {
        let p =
            parts(r#"{"exitCode":0,"stdout":"a\nb\nc\n","stderr":"","cmd":{"argv":["ls","-l"]}}"#);
        let fields: Vec<_> = p.fields.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        assert_eq!(
            fields,
            [
                "exitCode: 0",
                "stderr: \"\"",
                "cmd.argv[0]: ls",
                "cmd.argv[1]: -l"
            ]
        );
        assert_eq!(p.blocks.len(), 1);
        assert_eq!(p.blocks[0].label, "stdout");
        assert_eq!(p.blocks[0].text, "a\nb\n");
        assert_eq!(p.cut, Some(Cut { lines: 1, bytes: 2 }));
    }

    #[test]
    fn a_string_value_is_one_unlabelled_block_and_escapes_are_visible() {
        let p = parts(r#""line one\n\u001b[2Jline two""#);
        assert_eq!(p.blocks[0].label, "");
        assert_eq!(p.blocks[0].text, "line one\n␛[2Jline two");
    }

    #[test]
    fn deep_values_stay_compact_json() {
        let p = parts(r#"{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":1}}}}}}}}}}"#);
        assert_eq!(p.fields.len(), 1);
        assert!(p.fields[0].1.contains(r#"{"j":1}"#), "{:?}", p.fields);
    }
}

//! A serde `Deserializer` for one line of JSON that skips what nobody reads faster than
//! serde_json (its strings 32 bytes at a time) — and gives up, to serde_json, on anything it
//! is not sure of.
//!
//! Why: in the heavy views most of a line is values no one reads, or reads raw: a tool's
//! arguments and output (Cursor `tool_call`, Codex `aggregated_output`, Claude
//! `tool_result`), kept as `&RawValue` or ignored. serde_json validates them one string at
//! a time, stopping at every escape, and a tool's output is full of `\n` and `\"`: its
//! `skip_to_escape` and `ignore_str` would take most of a heavy view's time.
//! Here a string is scanned 32 bytes at a time for its three kinds of special bytes (quote,
//! backslash, control), with the same checks as serde_json — no control byte, only the
//! escapes JSON has, four hex digits after `\u` — and the rest of the grammar is checked
//! as strictly.
//!
//! The rule that keeps it honest: **a result here is serde_json's result, or there is no
//! result.** The reader only runs over a line already proven UTF-8 (as serde's `&str`
//! reader does); it makes the same visitor calls in the same order as serde_json; what it
//! does not do itself — numbers, escaped strings it must decode, enums, bytes — it hands to
//! serde_json on that value's own text; anything else (bad JSON, a type error, a nesting
//! deeper than [`MAX_DEPTH`], a key read as a number) is an error, and [`with_de`] then
//! reads the line again with serde_json, whose result (and error message, with its line
//! and column) is the one kept. The unit tests compare the two on generated near-JSON and
//! on every line of the fixtures and captures, for every kind of read (a whole `Value`,
//! skipped, raw); `tests/it/reference.rs` compares every view's output with the plain
//! serde_json reading (`CURSOR_STREAM_REFERENCE=1`).
//!
//! [`with_de`]: super::json::with_de

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Visitor};

type Error = serde_json::Error;
type Result<T> = std::result::Result<T, Error>;

/// How deep values may nest before this reader gives up: well under serde_json's limit
/// (127 levels), so nothing it accepts is too deep for serde_json.
const MAX_DEPTH: u32 = 100;

/// The newtype name by which serde_json's `RawValue` asks a deserializer for the raw text
/// of a value (`serde_json::raw::TOKEN`, unchanged since 2018; a test checks it). Were it
/// to change, a raw value would only take the slow path.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// The error that sends the line back to serde_json; its message is never shown.
#[cold]
fn give_up() -> Error {
    de::Error::custom("left to serde_json")
}

/// A line being read, at `at`.
pub(crate) struct FastDe<'de> {
    src: &'de str,
    at: usize,
    depth: u32,
}

impl<'de> FastDe<'de> {
    pub(crate) fn new(src: &'de str) -> Self {
        FastDe {
            src,
            at: 0,
            depth: 0,
        }
    }

    /// Only whitespace is left (serde_json's `Deserializer::end`).
    pub(crate) fn end(&mut self) -> Result<()> {
        match self.peek_ws() {
            None => Ok(()),
            Some(_) => Err(give_up()),
        }
    }

    fn bytes(&self) -> &'de [u8] {
        self.src.as_bytes()
    }

    /// Skips JSON whitespace (as serde_json: space, `\n`, `\t`, `\r`) and peeks.
    fn peek_ws(&mut self) -> Option<u8> {
        self.at = ws(self.bytes(), self.at);
        self.bytes().get(self.at).copied()
    }

    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(give_up());
        }
        Ok(())
    }

    /// The text of the value that starts here (after whitespace), checked; `at` after it.
    fn value_text(&mut self) -> Result<&'de str> {
        self.peek_ws().ok_or_else(give_up)?;
        let start = self.at;
        self.at = skip_value(self.bytes(), start, self.depth).ok_or_else(give_up)?;
        Ok(&self.src[start..self.at])
    }

    /// Hands the value that starts here to serde_json, on its own text.
    fn delegate<V>(
        &mut self,
        visitor: V,
        read: impl FnOnce(
            &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
            V,
        ) -> Result<V::Value>,
    ) -> Result<V::Value>
    where
        V: Visitor<'de>,
    {
        let text = self.value_text()?;
        let mut de = serde_json::Deserializer::from_str(text);
        let value = read(&mut de, visitor)?;
        de.end()?;
        Ok(value)
    }

    /// The string that starts here (after whitespace): its body when it has no escape,
    /// else `None` (the caller hands it to serde_json to decode); `at` after it.
    fn string(&mut self) -> Result<Option<&'de str>> {
        if self.peek_ws() != Some(b'"') {
            return Err(give_up());
        }
        let start = self.at;
        let (end, escaped) = scan_string(self.bytes(), start + 1).ok_or_else(give_up)?;
        if escaped {
            return Ok(None);
        }
        self.at = end;
        Ok(Some(&self.src[start + 1..end - 1]))
    }

    fn visit_string<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        match self.string()? {
            Some(body) => visitor.visit_borrowed_str(body),
            None => self.delegate(visitor, |de, v| de::Deserializer::deserialize_str(de, v)),
        }
    }

    /// Skips a literal (`null`, `true`, `false`) after checking it.
    fn literal(&mut self, literal: &[u8]) -> Result<()> {
        self.at = word(self.bytes(), self.at, literal).ok_or_else(give_up)?;
        Ok(())
    }

    /// The end of an array or object: its closing byte, one level up.
    fn leave(&mut self, close: u8) -> Result<()> {
        self.depth -= 1;
        if self.peek_ws() != Some(close) {
            return Err(give_up());
        }
        self.at += 1;
        Ok(())
    }

    fn visit_seq<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        self.at += 1;
        let value = visitor.visit_seq(Elements {
            de: self,
            first: true,
        })?;
        self.leave(b']')?;
        Ok(value)
    }

    fn visit_map<V: Visitor<'de>>(&mut self, visitor: V) -> Result<V::Value> {
        self.enter()?;
        self.at += 1;
        let value = visitor.visit_map(Members {
            de: self,
            first: true,
        })?;
        self.leave(b'}')?;
        Ok(value)
    }
}

/// Deserializer methods that hand the value to serde_json's method of the same name.
macro_rules! delegated {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
            self.delegate(visitor, |de, v| de::Deserializer::$method(de, v))
        }
    )*};
}

/// Deserializer methods this reader leaves to serde_json (see [`give_up`]).
macro_rules! refused {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, _: V) -> Result<V::Value> {
            Err(give_up())
        }
    )*};
}

impl<'de> de::Deserializer<'de> for &mut FastDe<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek_ws().ok_or_else(give_up)? {
            b'n' => {
                self.literal(b"null")?;
                visitor.visit_unit()
            }
            b't' => {
                self.literal(b"true")?;
                visitor.visit_bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                visitor.visit_bool(false)
            }
            b'"' => self.visit_string(visitor),
            b'[' => self.visit_seq(visitor),
            b'{' => self.visit_map(visitor),
            _ => self.delegate(visitor, |de, v| de::Deserializer::deserialize_any(de, v)),
        }
    }

    delegated! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_bytes
        deserialize_byte_buf deserialize_unit
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_string(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_string(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.visit_string(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.peek_ws() == Some(b'n') {
            self.literal(b"null")?;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        if name == RAW_VALUE_TOKEN {
            let raw = self.value_text()?;
            return visitor.visit_map(RawValueText(Some(raw)));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek_ws() {
            Some(b'[') => self.visit_seq(visitor),
            _ => Err(give_up()),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        match self.peek_ws() {
            Some(b'{') => self.visit_map(visitor),
            _ => Err(give_up()),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        match self.peek_ws() {
            Some(b'[') => self.visit_seq(visitor),
            Some(b'{') => self.visit_map(visitor),
            _ => Err(give_up()),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        self.delegate(visitor, |de, v| {
            de::Deserializer::deserialize_enum(de, name, variants, v)
        })
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.value_text()?;
        visitor.visit_unit()
    }
}

impl FastDe<'_> {
    /// Before an array's element or an object's member: `true` at the `close` byte,
    /// else steps over the comma that must separate it from the one before.
    fn next_item(&mut self, close: u8, first: &mut bool) -> Result<bool> {
        match self.peek_ws().ok_or_else(give_up)? {
            c if c == close => return Ok(true),
            b',' if !*first => self.at += 1,
            _ if *first => {}
            _ => return Err(give_up()),
        }
        *first = false;
        Ok(false)
    }
}

/// The elements of an array (serde_json's `SeqAccess`).
struct Elements<'a, 'de> {
    de: &'a mut FastDe<'de>,
    first: bool,
}

impl<'de> de::SeqAccess<'de> for Elements<'_, 'de> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>> {
        if self.de.next_item(b']', &mut self.first)? {
            return Ok(None);
        }
        // After a comma a value must follow, not `]`: the value's reader checks.
        seed.deserialize(&mut *self.de).map(Some)
    }
}

/// The members of an object (serde_json's `MapAccess`).
struct Members<'a, 'de> {
    de: &'a mut FastDe<'de>,
    first: bool,
}

impl<'de> de::MapAccess<'de> for Members<'_, 'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.de.next_item(b'}', &mut self.first)? {
            return Ok(None);
        }
        seed.deserialize(Key { de: &mut *self.de }).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        if self.de.peek_ws() != Some(b':') {
            return Err(give_up());
        }
        self.de.at += 1;
        seed.deserialize(&mut *self.de)
    }
}

/// A key: read as a string, whatever is asked (serde_json reads keys as numbers or bools
/// when asked; this reader gives up then).
struct Key<'a, 'de> {
    de: &'a mut FastDe<'de>,
}

impl<'de> de::Deserializer<'de> for Key<'_, 'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.visit_string(visitor)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.de.visit_string(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: V,
    ) -> Result<V::Value> {
        Err(give_up())
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        _: V,
    ) -> Result<V::Value> {
        Err(give_up())
    }

    serde::forward_to_deserialize_any! {
        char str string identifier unit unit_struct seq tuple tuple_struct map struct
    }

    // Numbers, booleans and bytes from a key: serde_json parses the key's text; not done
    // here.
    refused! {
        deserialize_bool deserialize_option deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_bytes deserialize_byte_buf
    }
}

/// What serde_json's `RawValue` reads from a deserializer: one entry, the token as key and
/// the raw text as a borrowed string.
struct RawValueText<'de>(Option<&'de str>);

impl<'de> de::MapAccess<'de> for RawValueText<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        let raw = self.0.take().ok_or_else(give_up)?;
        seed.deserialize(BorrowedStrDeserializer::new(raw))
    }
}

/// The index after the value that starts at `at` (no whitespace before it), checked as
/// strictly as serde_json does; `None` for anything else, or nesting beyond [`MAX_DEPTH`]
/// counting the `depth` already entered.
fn skip_value(b: &[u8], mut at: usize, depth: u32) -> Option<usize> {
    // Open containers as a stack of bits, 1 for an object: `MAX_DEPTH` < 128.
    let mut open: u128 = 0;
    let mut levels = 0u32;
    loop {
        // A value starts at `at`.
        match *b.get(at)? {
            b'"' => at = scan_string(b, at + 1)?.0,
            b'{' | b'[' => {
                let object = b[at] == b'{';
                levels += 1;
                if depth + levels > MAX_DEPTH {
                    return None;
                }
                open = open << 1 | u128::from(object);
                at = ws(b, at + 1);
                let close = if object { b'}' } else { b']' };
                if b.get(at) == Some(&close) {
                    at += 1;
                    levels -= 1;
                    open >>= 1;
                } else {
                    if object {
                        at = member_key(b, at)?;
                    }
                    continue;
                }
            }
            b'n' => at = word(b, at, b"null")?,
            b't' => at = word(b, at, b"true")?,
            b'f' => at = word(b, at, b"false")?,
            _ => at = scan_number(b, at)?,
        }
        // After a value: the end of this one, or the next member or element.
        loop {
            if levels == 0 {
                return Some(at);
            }
            at = ws(b, at);
            let object = open & 1 == 1;
            match *b.get(at)? {
                b',' => {
                    at = ws(b, at + 1);
                    if object {
                        at = member_key(b, at)?;
                    }
                    break;
                }
                b'}' if object => {}
                b']' if !object => {}
                _ => return None,
            }
            at += 1;
            levels -= 1;
            open >>= 1;
        }
    }
}

pub(crate) fn ws(b: &[u8], mut at: usize) -> usize {
    while matches!(b.get(at), Some(b' ' | b'\n' | b'\t' | b'\r')) {
        at += 1;
    }
    at
}

/// `"key"` and `:` at `at`, and the whitespace after: the index of the member's value.
fn member_key(b: &[u8], at: usize) -> Option<usize> {
    if b.get(at) != Some(&b'"') {
        return None;
    }
    let at = ws(b, scan_string(b, at + 1)?.0);
    if b.get(at) != Some(&b':') {
        return None;
    }
    Some(ws(b, at + 1))
}

fn word(b: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    b[at..].starts_with(word).then_some(at + word.len())
}

/// A number in JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
pub(crate) fn scan_number(b: &[u8], mut at: usize) -> Option<usize> {
    let digits = |at: usize| at + b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
    if b.get(at) == Some(&b'-') {
        at += 1;
    }
    match *b.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at = digits(at),
        _ => return None,
    }
    if b.get(at) == Some(&b'.') {
        let end = digits(at + 1);
        if end == at + 1 {
            return None;
        }
        at = end;
    }
    if matches!(b.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(b.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let end = digits(at);
        if end == at {
            return None;
        }
        at = end;
    }
    Some(at)
}

/// How many bytes [`scan_string`] looks at in one step.
const CHUNK: usize = 32;

/// Which bytes of a chunk end a run of plain string text: `"`, `\` or a control byte, as
/// a bit mask (bit `i` for byte `i`).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
fn specials(chunk: &[u8; CHUNK]) -> u32 {
    use safe_arch::{
        bitor_m128i, cmp_eq_mask_i8_m128i as eq, load_unaligned_m128i, min_u8_m128i,
        move_mask_i8_m128i, set_splat_i8_m128i as splat,
    };
    let half = |bytes: &[u8; 16]| {
        let v = load_unaligned_m128i(bytes);
        // `min(v, 0x1f) == v`: v ≤ 0x1f, unsigned.
        let control = eq(min_u8_m128i(v, splat(0x1f)), v);
        let quote_or_backslash = bitor_m128i(eq(v, splat(b'"' as i8)), eq(v, splat(b'\\' as i8)));
        move_mask_i8_m128i(bitor_m128i(control, quote_or_backslash)) as u32 & 0xffff
    };
    let (low, high) = chunk.split_at(16);
    match (low.first_chunk::<16>(), high.first_chunk::<16>()) {
        (Some(low), Some(high)) => half(low) | half(high) << 16,
        _ => specials_portable(chunk), // never: 32 bytes are two halves of 16
    }
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
use specials_portable as specials;

/// The same without SSE2, written without branches so that the compiler can vectorize it
/// (less well than the SSE2 one).
fn specials_portable(chunk: &[u8; CHUNK]) -> u32 {
    let mut mask = 0u32;
    for (i, &c) in chunk.iter().enumerate() {
        mask |= u32::from((c == b'"') | (c == b'\\') | (c < 0x20)) << i;
    }
    mask
}

/// The string whose body starts at `at` (after its opening quote): the index after its
/// closing quote, and whether it has escapes. `None` if it is not a valid JSON string:
/// a control byte, an escape JSON does not have, `\u` without four hex digits, no closing
/// quote. (UTF-8 is the caller's: the line is a `&str`.)
pub(crate) fn scan_string(b: &[u8], mut at: usize) -> Option<(usize, bool)> {
    let mut escaped = false;
    loop {
        let next = match b.get(at..).and_then(<[u8]>::first_chunk::<CHUNK>) {
            Some(chunk) => match specials(chunk) {
                0 => {
                    at += CHUNK;
                    continue;
                }
                mask => at + mask.trailing_zeros() as usize,
            },
            None => {
                at + b
                    .get(at..)?
                    .iter()
                    .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?
            }
        };
        match b[next] {
            b'"' => return Some((next + 1, escaped)),
            b'\\' => {
                escaped = true;
                at = next + escape_len(b, next)?;
            }
            _ => return None,
        }
    }
}

/// The length of the escape whose backslash is at `at`.
fn escape_len(b: &[u8], at: usize) -> Option<usize> {
    match *b.get(at + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(2),
        b'u' => b
            .get(at + 2..at + 6)?
            .iter()
            .all(u8::is_ascii_hexdigit)
            .then_some(6),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::value::RawValue;

    /// What the fast reader makes of `text` as `T`, or `None` where it gives up.
    fn fast<'a, T: Deserialize<'a>>(text: &'a str) -> Option<T> {
        let mut de = FastDe::new(text);
        let value = T::deserialize(&mut de).ok()?;
        de.end().ok()?;
        Some(value)
    }

    /// The fast reader's value is serde_json's, for a `Value` (every visitor call), a
    /// skipped value and a raw value; and it never accepts what serde_json refuses.
    fn agrees(text: &str) {
        let serde = serde_json::from_str::<serde_json::Value>(text).ok();
        if let Some(v) = fast::<serde_json::Value>(text) {
            assert_eq!(Some(v), serde, "{text:?}");
        }
        let serde_raw = serde_json::from_str::<&RawValue>(text)
            .ok()
            .map(RawValue::get);
        if let Some(raw) = fast::<&RawValue>(text) {
            assert_eq!(Some(raw.get()), serde_raw, "{text:?}");
        }
        let serde_any = serde_json::from_str::<de::IgnoredAny>(text).is_ok();
        if fast::<de::IgnoredAny>(text).is_some() {
            assert!(serde_any, "{text:?}");
        }
    }

    #[test]
    fn valid_json_is_read_as_serde_json_reads_it() {
        for text in [
            r#"{"type":"tool_call","args":{"a":[1,-2.5e3,true,false,null,"x\"y\\z\u00e9"]}}"#,
            r#" { "a" : [ ] , "b" : { } , "c" : "" } "#,
            r#"{"s":"line\nbreak \ud83c\udf89 tab\t","n":0,"m":-0.0,"big":123456789012345678901}"#,
            r#"[{"a":{"b":{"c":[[[]]]}}}]"#,
            r#""plain""#,
            "12",
            r#"{"a":1,"a":2}"#,
        ] {
            assert!(fast::<serde_json::Value>(text).is_some(), "{text:?}");
            assert!(fast::<&RawValue>(text).is_some(), "{text:?}");
            agrees(text);
        }
    }

    #[test]
    fn bad_json_is_never_accepted() {
        for text in [
            "",
            " ",
            "{",
            "}",
            "[1,]",
            "[,1]",
            r#"{"a":1,}"#,
            r#"{,"a":1}"#,
            r#"{"a" 1}"#,
            r#"{a:1}"#,
            "01",
            "1.",
            ".5",
            "-",
            "1e",
            "1e+",
            "+1",
            "nul",
            "tru",
            "nulll",
            r#""\x""#,
            r#""\u12g4""#,
            r#""\u123""#,
            "\"a\u{1}b\"",
            "\"tab\there\"",
            r#""open"#,
            r#"{"a":1}x"#,
            "[1 2]",
            r#"{"a":1 "b":2}"#,
            "[}",
            "{]",
            r#""\"#,
            "\"a\\",
            "[1]]",
        ] {
            assert!(fast::<de::IgnoredAny>(text).is_none(), "{text:?}");
            assert!(fast::<&RawValue>(text).is_none(), "{text:?}");
            agrees(text);
        }
    }

    /// Strings long enough to cross chunks, with every special byte at every place.
    #[test]
    fn strings_at_every_place_of_a_chunk() {
        let base = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        for at in 0..=base.len() {
            for odd in [
                "\\n", "\\\"", "\\\\", "\\u00e9", "\\u12", "\\q", "\"", "\u{1f}", "\n", "é", "\\",
            ] {
                let text = format!("[\"{}{}{}\",1]", &base[..at], odd, &base[at..]);
                agrees(&text);
            }
        }
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_left_to_serde() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(fast::<serde_json::Value>(&deep(MAX_DEPTH as usize)).is_some());
        assert!(fast::<serde_json::Value>(&deep(MAX_DEPTH as usize + 1)).is_none());
        assert!(fast::<de::IgnoredAny>(&deep(MAX_DEPTH as usize + 1)).is_none());
        let nested = format!(r#"{{"a":{}}}"#, deep(MAX_DEPTH as usize));
        assert!(fast::<&RawValue>(&nested).is_none());
        agrees(&deep(200));
    }

    #[test]
    fn raw_values_borrow_the_line() {
        #[derive(Deserialize)]
        struct Line<'a> {
            #[serde(borrow)]
            args: &'a RawValue,
            rest: Box<RawValue>,
        }
        let text = r#"{"args": {"x":"a\nb"} ,"rest":[1, 2]}"#;
        let line: Line = fast(text).expect("read on the fast path");
        assert_eq!(line.args.get(), r#"{"x":"a\nb"}"#);
        assert_eq!(line.rest.get(), "[1, 2]");
    }

    /// Every line of the fixtures and of the real captures (when `../shared/captures` is
    /// there), whole and cut short at a few places.
    #[test]
    fn real_lines_are_read_as_serde_json_reads_them() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = vec![root.join("tests/fixtures"), root.join("../shared/captures")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "ndjson" || e == "jsonl")
                {
                    files.push(path);
                }
            }
        }
        assert!(!files.is_empty());
        let (mut lines, mut fast_lines) = (0, 0);
        for path in files {
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for line in text.lines() {
                agrees(line);
                lines += 1;
                fast_lines += usize::from(fast::<serde_json::Value>(line).is_some());
                for cut in [line.len() / 3, line.len() / 2, line.len().saturating_sub(2)] {
                    if let Some(part) = line.get(..cut) {
                        agrees(part);
                    }
                }
            }
        }
        // The fast reader does read real lines (it does not just give up on everything): most
        // of them, with or without the captures (a clean clone has only the fixtures).
        assert!(fast_lines * 10 > lines * 7, "{fast_lines} of {lines}");
    }

    /// Random byte soup made of JSON's pieces: whatever is generated, the fast reader agrees
    /// with serde_json or gives up.
    #[test]
    fn generated_near_json_agrees_with_serde() {
        const PIECES: &[&str] = &[
            "{", "}", "[", "]", ",", ":", "\"", "\"k\"", "\"v\\n\"", "\\", "\\u00e9", "1", "-",
            "0", ".5", "e3", "true", "null", "fa", " ", "\n", "\u{1}", "é", "\"a\":", "[1,2]",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200_000 {
            let n = 1 + next() % 12;
            let text: String = (0..n)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            agrees(&text);
        }
    }
}

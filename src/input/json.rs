//! JSON helpers that know no agent: byte-level scanning for the fast paths and the peek,
//! and small serde seeds that read a value without allocating.
//!
//! The byte scanners delimit values without validating them; a caller that relies on them
//! either validates what it keeps (as serde would) or falls back to a real parse.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::MapAccessDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

pub(crate) fn skip_ws(line: &[u8], mut at: usize) -> usize {
    while line.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The string starting with the quote at `at`: its body, whether it has escapes, and the
/// index after its closing quote.
pub(crate) fn string_at(line: &[u8], at: usize) -> Option<(&[u8], bool, usize)> {
    if line.get(at) != Some(&b'"') {
        return None;
    }
    let (body, escaped, _) = string_body(&line[at + 1..])?;
    Some((body, escaped, at + 1 + body.len() + 1))
}

/// The index after the value starting at `at` (not validated, only delimited).
pub(crate) fn skip_value(line: &[u8], at: usize) -> Option<usize> {
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

/// Calls `f(key, value)` for each member of the top-level object, in order, with the raw
/// bytes of the key (escapes not decoded) and of the value; stops early when `f` returns
/// `false`. Gives `None` when the line is not delimited as one object (the caller then
/// knows nothing more than before).
pub(crate) fn top_level_members<'a>(
    line: &'a [u8],
    mut f: impl FnMut(&'a [u8], &'a [u8]) -> bool,
) -> Option<()> {
    let mut at = skip_ws(line, 0);
    if line.get(at) != Some(&b'{') {
        return None;
    }
    at = skip_ws(line, at + 1);
    if line.get(at) == Some(&b'}') {
        return Some(());
    }
    loop {
        let (key, _, end) = string_at(line, at)?;
        at = skip_ws(line, end);
        if line.get(at) != Some(&b':') {
            return None;
        }
        at = skip_ws(line, at + 1);
        let value_end = skip_value(line, at)?;
        if !f(key, &line[at..value_end]) {
            return Some(());
        }
        at = skip_ws(line, value_end);
        match line.get(at)? {
            b',' => at = skip_ws(line, at + 1),
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

/// Whether the top-level object has one of `keys` (compared on raw bytes).
pub(crate) fn has_top_level_key(line: &[u8], keys: &[&str]) -> bool {
    let mut found = false;
    top_level_members(line, |key, _| {
        found = keys.iter().any(|k| k.as_bytes() == key);
        !found
    });
    found
}

/// The raw value of a top-level key, if the line is delimited as an object and has it.
pub(crate) fn top_level_value<'a>(line: &'a [u8], wanted: &str) -> Option<&'a [u8]> {
    let mut found = None;
    top_level_members(line, |key, value| {
        if key == wanted.as_bytes() {
            found = Some(value);
        }
        found.is_none()
    })?;
    found
}

/// The bytes up to the next `"`, if there is no escape before it; and what follows.
pub(crate) fn plain_bytes(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let end = memchr::memchr2(b'"', b'\\', s)?;
    if s[end] != b'"' {
        return None;
    }
    Some((&s[..end], &s[end + 1..]))
}

/// The body of a JSON string whose opening quote is consumed, whether it holds escapes,
/// and what follows the closing quote.
///
/// Looks for quotes only, and tells an escaped one by the backslashes before it (an odd
/// run): model text is full of `\n`, and stopping at every backslash made this the most of
/// what reading a long log cost. Each backslash is counted once, after the quote that
/// follows it, so the scan stays linear.
pub(crate) fn string_body(s: &[u8]) -> Option<(&[u8], bool, &[u8])> {
    let mut from = 0;
    loop {
        let quote = from + memchr::memchr(b'"', s.get(from..)?)?;
        let run = s[from..quote]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if run % 2 == 0 {
            let body = &s[..quote];
            let escaped = memchr::memchr(b'\\', body).is_some();
            return Some((body, escaped, &s[quote + 1..]));
        }
        from = quote + 1;
    }
}

/// A string value with no escapes or control characters, in UTF-8.
pub(crate) fn plain_value(s: &[u8]) -> Option<(&[u8], &[u8])> {
    let (value, rest) = plain_bytes(s)?;
    is_string_text(value).then_some((value, rest))
}

/// Whether unescaped bytes may stand in a JSON string: UTF-8 without control characters.
/// Printable ASCII, the usual case, is told in one pass.
pub(crate) fn is_string_text(bytes: &[u8]) -> bool {
    is_printable_ascii(bytes)
        || (!bytes.iter().any(|&b| b < 0x20) && std::str::from_utf8(bytes).is_ok())
}

/// Whether every byte is printable ASCII (or DEL). Without an early exit inside each
/// 32 bytes the compiler checks them side by side, not a byte at a time.
fn is_printable_ascii(bytes: &[u8]) -> bool {
    bytes.chunks(32).all(|chunk| {
        chunk
            .iter()
            .fold(true, |ok, &b| ok & (b.wrapping_sub(0x20) < 0x60))
    })
}

/// Appends a string body with the one-letter escapes decoded. `None` (and nothing
/// appended) for a `\u` escape or anything a JSON string may not hold.
pub(crate) fn append_escaped(body: &[u8], text: &mut Vec<u8>) -> Option<()> {
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

/// Appends a JSON string to a buffer. serde_json hands over borrowed bytes when the string
/// has no escapes and its own reused scratch buffer when it has: no allocation either way.
/// Any other value fails (the callers then read the line another way, or report it).
pub(crate) struct AppendStr<'b> {
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
}

/// Like [`AppendStr`], but any value that is not a string appends nothing instead of
/// failing the event (agents change field types between releases).
pub(crate) struct AppendText<'b> {
    pub text: &'b mut Vec<u8>,
}

impl<'de> DeserializeSeed<'de> for AppendText<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        StrOrNone(AppendStr { text: self.text })
            .deserialize(d)
            .map(|_| ())
    }
}

/// A string seed made lenient: a string is read by the visitor `V`; any other value is
/// skipped and gives `None` ([`OptStr`] and [`AppendText`] are this).
struct StrOrNone<V>(V);

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for StrOrNone<V> {
    type Value = Option<V::Value>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for StrOrNone<V> {
    type Value = Option<V::Value>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        self.0.visit_borrowed_str(v).map(Some)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        self.0.visit_str(v).map(Some)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
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

/// A string, borrowed from the line when it has no escapes.
pub(crate) struct BorrowedStr;

impl<'de> DeserializeSeed<'de> for BorrowedStr {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Cow<'de, str>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for BorrowedStr {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
}

/// A string (borrowed when possible), or `None` for any other value.
pub(crate) struct OptStr;

impl<'de> DeserializeSeed<'de> for OptStr {
    type Value = Option<Cow<'de, str>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        StrOrNone(BorrowedStr).deserialize(d)
    }
}

/// A lenient string field for derived structs: a string, or `None` for any other value.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct MaybeStr<'a>(pub Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        OptStr.deserialize(d).map(MaybeStr)
    }
}

impl MaybeStr<'_> {
    pub(crate) fn as_deref(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

/// Deserializes `T` from an object, and skips anything else as `None`, in one pass.
pub(crate) struct ObjectOnly<T>(pub PhantomData<T>);

impl<T> ObjectOnly<T> {
    pub(crate) fn new() -> Self {
        ObjectOnly(PhantomData)
    }
}

impl<'de, T: Deserialize<'de>> DeserializeSeed<'de> for ObjectOnly<T> {
    type Value = Option<T>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectOnly<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Option<T>, M::Error> {
        T::deserialize(MapAccessDeserializer::new(map)).map(Some)
    }

    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Option<T>, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<T>, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<T>, E> {
        Ok(None)
    }
}

/// Calls a function for each element of an array, deserialized as `T`, without
/// collecting them; any other value is skipped.
pub(crate) struct EachElement<T, F>(pub F, pub PhantomData<T>);

impl<T, F> EachElement<T, F> {
    pub(crate) fn new(f: F) -> Self {
        EachElement(f, PhantomData)
    }
}

impl<'de, T: Deserialize<'de>, F: FnMut(T)> DeserializeSeed<'de> for EachElement<T, F> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Deserialize<'de>, F: FnMut(T)> Visitor<'de> for EachElement<T, F> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<S: SeqAccess<'de>>(mut self, mut seq: S) -> Result<(), S::Error> {
        while let Some(element) = seq.next_element::<T>()? {
            (self.0)(element);
        }
        Ok(())
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// Milliseconds since the epoch from an RFC 3339 timestamp (`2026-04-11T22:35:47.989Z`),
/// as Claude and Gemini write them.
pub(crate) fn rfc3339_ms(s: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339_weak(s.trim_end_matches('Z')).ok()?;
    let ms = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
    u64::try_from(ms).ok()
}

/// Runs `$body` with `$de` a deserializer over `$line`, and gives its result.
///
/// A line that is valid UTF-8 is read first by [`FastDe`](super::fast_de::FastDe), which
/// skips unread values faster than serde_json; if it gives up (bad JSON, a
/// type error, anything unusual), `$body` runs again over serde_json's `&str` reader, whose
/// result and error message are the ones kept. A body that changes anything outside its
/// result (appends text) names how to undo that before the second run: `undo { … }`.
///
/// Why `&str`: over bytes, serde_json validates the UTF-8 of every string it decodes and of
/// every `&RawValue` it keeps, one `from_utf8` each (raw arguments and results are most of
/// a `tools --json` line); one SIMD pass over the whole line (`simdutf8`) proves it all at
/// once. A line that is not valid UTF-8 takes serde_json's byte reader: serde reports a bad
/// string where it decodes it and skips the bytes of strings it ignores — both readers
/// parse valid UTF-8 alike, so the output is the same either way (`tests/it/reference.rs`).
macro_rules! with_de {
    ($line:expr, |$de:ident| $body:expr) => {
        $crate::input::json::with_de!($line, undo {}, |$de| $body)
    };
    ($line:expr, undo $undo:block, |$de:ident| $body:expr) => {{
        let line: &[u8] = $line;
        match simdutf8::basic::from_utf8(line) {
            Ok(text) => $crate::input::json::with_de!(str text, undo $undo, |$de| $body),
            Err(_) => {
                let mut $de = serde_json::Deserializer::from_slice(line);
                $body
            }
        }
    }};
    // Text already known to be UTF-8 (a `&RawValue`'s).
    (str $text:expr, undo $undo:block, |$de:ident| $body:expr) => {{
        let text: &str = $text;
        // `CURSOR_STREAM_REFERENCE=1` reads every line with serde_json over bytes: the
        // reference test compares both readings' outputs.
        if $crate::input::peek::fast_paths() {
            // A closure, so that the body's `?` ends this attempt, not the caller.
            #[allow(clippy::redundant_closure_call)]
            let fast = (|| -> serde_json::Result<_> {
                let mut $de = $crate::input::fast_de::FastDe::new(text);
                $body
            })();
            match fast {
                Ok(value) => Ok(value),
                Err(_) => {
                    $undo
                    let mut $de = serde_json::Deserializer::from_str(text);
                    $body
                }
            }
        } else {
            let mut $de = serde_json::Deserializer::from_slice(text.as_bytes());
            $body
        }
    }};
}
pub(crate) use with_de;

/// One value of type `T` from a whole line (or any JSON text), through [`with_de`].
pub(crate) fn from_line<'a, T: Deserialize<'a>>(line: &'a [u8]) -> serde_json::Result<T> {
    with_de!(line, |de| {
        let value = T::deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    })
}

/// One value of type `T` from JSON text already proven UTF-8 (a `&RawValue`'s), through
/// [`with_de`].
pub(crate) fn from_str<'a, T: Deserialize<'a>>(text: &'a str) -> serde_json::Result<T> {
    with_de!(str text, undo {}, |de| {
        let value = T::deserialize(&mut de)?;
        de.end()?;
        Ok(value)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever the byte's place in its 32-byte chunk, the check agrees with serde_json on
    /// whether the bytes may stand in a string.
    #[test]
    fn string_text_is_what_serde_accepts_at_every_place() {
        let base = b"2feb6e95-f103-4000-8f52-e1ff0e4ae394 and some more text~\x7f";
        for at in 0..base.len() {
            for (odd, ok) in [
                (&b"\x00"[..], false),
                (b"\x1f", false),
                (b"\n", false),
                (b"\xc3\xa9", true),
                (b"\xf0\x9f\x8e\x89", true),
                (b"\xff", false),
                (b"\x80", false),
                (b"\xc3", false),
            ] {
                let mut bytes = base[..at].to_vec();
                bytes.extend_from_slice(odd);
                bytes.extend_from_slice(&base[at..]);
                let mut quoted = vec![b'"'];
                quoted.extend_from_slice(&bytes);
                quoted.push(b'"');
                let serde = serde_json::from_slice::<&str>(&quoted).is_ok();
                assert_eq!(serde, ok, "{bytes:?}");
                assert_eq!(is_string_text(&bytes), ok, "{bytes:?}");
            }
        }
        assert!(is_string_text(base));
        assert!(is_string_text(b""));
    }

    #[test]
    fn top_level_members_skip_nested_values() {
        let line = br#"{"a":{"uuid":1},"b":"x\"y","c":[1,{"d":2}],"uuid":"u"}"#;
        let mut keys = Vec::new();
        top_level_members(line, |k, _| {
            keys.push(String::from_utf8_lossy(k).into_owned());
            true
        })
        .unwrap();
        assert_eq!(keys, ["a", "b", "c", "uuid"]);
        assert!(has_top_level_key(line, &["uuid"]));
        assert!(!has_top_level_key(br#"{"a":{"uuid":1}}"#, &["uuid"]));
        assert_eq!(top_level_value(line, "b"), Some(&br#""x\"y""#[..]));
        assert!(top_level_members(b"{\"a\":", |_, _| true).is_none());
    }

    #[test]
    fn timestamps() {
        assert_eq!(
            rfc3339_ms("2026-04-11T22:35:47.989Z"),
            Some(1_775_946_947_989)
        );
        assert_eq!(rfc3339_ms("yesterday"), None);
    }
}

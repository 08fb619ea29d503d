//! A line of JSON made into the engine's value faster than jaq's own reader makes it — and
//! given up, to that reader, on anything this one is not sure of.
//!
//! Why: on a program no shortcut takes, most of `get`'s time is making each line's value.
//! jaq's reader (`jaq_json::read`, on hifijson) looks at a string one byte at a time and
//! grows every string, array and object as it goes (a string is then three allocations:
//! its bytes, a share count, its box). Here a string is scanned 32 bytes at a time
//! (`input::fast_de::scan_string`) and copied once, at its size (two allocations); an
//! array's or an object's members wait on a stack shared by the whole line, and each is
//! made once, at its size.
//!
//! The rule that keeps it honest, as `input::fast_de`'s: **a value made here is the value
//! jaq's reader makes of the same line, or there is none.** What is read here is one value
//! of strict JSON (RFC 8259) with whitespace around it and nothing else: a line that is
//! not (several values, jaq's own extensions — comments, `NaN`, `Infinity`, `+1`, `007`,
//! byte strings, keys that are not strings —, broken JSON, a lone UTF-16 surrogate, more
//! than [`MAX_DEPTH`] levels) gives `None`, and the caller reads it with jaq's reader,
//! which says what it makes of it and what is wrong. On what is read here the two agree:
//! each string's bytes as they are (the caller makes a line valid UTF-8 first) with the
//! escapes decoded, each number made by the same `Num` constructor from the same text (but
//! `-0`, kept as jq keeps it), members in their order, a repeated key where it first was
//! with its last value (`IndexMap::insert`, as jaq). The unit tests compare the two on
//! generated near-JSON and on every line of the fixtures.

use jaq_json::{Map, Num, Rc, Val};

use crate::input::fast_de::{scan_number, scan_string, ws};

/// How deep values may nest before this reader gives up (a deeper line goes to jaq's
/// reader, which recurses on the engine's large stack).
const MAX_DEPTH: u32 = 128;

/// The one JSON value on `line`, as jaq's reader makes it; `None` when this reader gives up.
pub(crate) fn value(line: &[u8]) -> Option<Val> {
    let mut r = Reader::new(line);
    let value = r.value()?;
    (ws(line, r.at) == line.len()).then_some(value)
}

/// Every JSON value on `line`, one after the other with or without whitespace between them
/// (`{"a":1} {"b":2}`, `1-2`, `truefalse`), as jaq's reader reads a line of several;
/// `None` when this reader gives up on any of them. For such lines, rare, to read `-0`
/// as [`value`] reads it (jaq's reader makes it 0).
pub(crate) fn values(line: &[u8]) -> Option<Vec<Val>> {
    let mut r = Reader::new(line);
    let mut values = Vec::new();
    while r.at < line.len() {
        values.push(r.value()?);
        r.at = ws(line, r.at);
    }
    Some(values)
}

/// A line being read, at `at`; the members of the arrays and objects still open.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    depth: u32,
    members: Vec<Val>,
    pairs: Vec<(Val, Val)>,
    /// A string's text with its escapes decoded.
    text: Vec<u8>,
}

impl<'a> Reader<'a> {
    /// A reader at the first value of `line`.
    fn new(line: &'a [u8]) -> Self {
        Reader {
            b: line,
            at: ws(line, 0),
            depth: 0,
            members: Vec::new(),
            pairs: Vec::new(),
            text: Vec::new(),
        }
    }

    fn value(&mut self) -> Option<Val> {
        let b = self.b;
        match *b.get(self.at)? {
            b'"' => self.string(),
            b'{' => self.object(),
            b'[' => self.array(),
            b't' => self.word(b"true", Val::Bool(true)),
            b'f' => self.word(b"false", Val::Bool(false)),
            b'n' => self.word(b"null", Val::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn word(&mut self, word: &[u8], value: Val) -> Option<Val> {
        self.b[self.at..].starts_with(word).then(|| {
            self.at += word.len();
            value
        })
    }

    /// The number at `at`, made as jq 1.8 keeps a number it reads: an integer a double holds
    /// exactly (|n| ≤ 2⁵³) as jaq's integer, anything else kept as its text — written back as
    /// read, computed with as a double (jaq's `Num::Dec`), so `13911860366432393 - 10` is
    /// jq's `13911860366432382`, not the big integer's `…383` — and `-0` too, which jaq makes
    /// 0 but jq keeps (`[-0]` is written `[-0]`, as the raw-text walk writes it).
    fn number(&mut self) -> Option<Val> {
        let start = self.at;
        let end = scan_number(self.b, start)?;
        self.at = end;
        let text = std::str::from_utf8(&self.b[start..end]).ok()?;
        let exact = || {
            text.parse::<i64>()
                .ok()
                .filter(|i| i.unsigned_abs() <= 1 << 53)
        };
        let num = match text.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) || text == "-0" {
            false => exact().and_then(|i| isize::try_from(i).ok()).map(Num::Int),
            true => None,
        };
        Some(Val::Num(
            num.unwrap_or_else(|| Num::Dec(Rc::new(text.to_owned()))),
        ))
    }

    /// The string whose opening quote is at `at`.
    fn string(&mut self) -> Option<Val> {
        let start = self.at + 1;
        let (end, escaped) = scan_string(self.b, start)?;
        self.at = end;
        let body = &self.b[start..end - 1];
        if !escaped {
            // At its size: the bytes are then shared without another allocation.
            return Some(Val::utf8_str(body.to_vec()));
        }
        self.text.clear();
        decode(body, &mut self.text)?;
        Some(Val::utf8_str(self.text.as_slice().to_vec()))
    }

    /// After a member: `,` (and more) or the closing bracket. Whether the array or object
    /// goes on.
    fn next(&mut self, close: u8) -> Option<bool> {
        self.at = ws(self.b, self.at);
        match *self.b.get(self.at)? {
            b',' => {
                self.at = ws(self.b, self.at + 1);
                Some(true)
            }
            c if c == close => {
                self.at += 1;
                Some(false)
            }
            _ => None,
        }
    }

    /// `[` at `at`: opens, or gives up past [`MAX_DEPTH`]; then whether it is empty.
    fn open(&mut self, close: u8) -> Option<bool> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.at = ws(self.b, self.at + 1);
        let empty = self.b.get(self.at) == Some(&close);
        if empty {
            self.at += 1;
        }
        Some(empty)
    }

    fn array(&mut self) -> Option<Val> {
        let from = self.members.len();
        if !self.open(b']')? {
            loop {
                let member = self.value()?;
                self.members.push(member);
                if !self.next(b']')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        let members: Vec<Val> = self.members.drain(from..).collect();
        Some(Val::Arr(Rc::new(members)))
    }

    fn object(&mut self) -> Option<Val> {
        let from = self.pairs.len();
        if !self.open(b'}')? {
            loop {
                if self.b.get(self.at) != Some(&b'"') {
                    return None;
                }
                let key = self.string()?;
                self.at = ws(self.b, self.at);
                if self.b.get(self.at) != Some(&b':') {
                    return None;
                }
                self.at = ws(self.b, self.at + 1);
                let member = self.value()?;
                self.pairs.push((key, member));
                if !self.next(b'}')? {
                    break;
                }
            }
        }
        self.depth -= 1;
        let mut map = Map::with_capacity_and_hasher(self.pairs.len() - from, Default::default());
        for (key, member) in self.pairs.drain(from..) {
            // A repeated key stays where it first was, with its last value (as jaq).
            map.insert(key, member);
        }
        Some(Val::obj(map))
    }
}

/// A string's body, with escapes `scan_string` found well formed, decoded into `out`;
/// `None` for a UTF-16 surrogate that is not a high one followed by a low one (jaq's
/// reader refuses it).
fn decode(body: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let mut at = 0;
    while let Some(i) = memchr::memchr(b'\\', &body[at..]) {
        out.extend_from_slice(&body[at..at + i]);
        at += i;
        let c = match *body.get(at + 1)? {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let high = hex4(body.get(at + 2..at + 6)?)?;
                at += 6;
                let code = match high {
                    0xd800..=0xdbff => {
                        if body.get(at..at + 2) != Some(b"\\u") {
                            return None;
                        }
                        let low = hex4(body.get(at + 2..at + 6)?)?;
                        if !(0xdc00..=0xdfff).contains(&low) {
                            return None;
                        }
                        at += 6;
                        0x10000 + (high - 0xd800) * 0x400 + (low - 0xdc00)
                    }
                    code => code,
                };
                let c = char::from_u32(code)?;
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                continue;
            }
            _ => return None,
        };
        out.push(c);
        at += 2;
    }
    out.extend_from_slice(&body[at..]);
    Some(())
}

/// Four hex digits.
fn hex4(digits: &[u8]) -> Option<u32> {
    digits.iter().try_fold(0, |n, &c| {
        let d = char::from(c).to_digit(16)?;
        Some(n * 16 + d)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// jaq's reader on the line, when it makes exactly one value.
    fn jaq(line: &[u8]) -> Option<Val> {
        let mut values = jaq_json::read::parse_many(line);
        let first = values.next()?.ok()?;
        values.next().is_none().then_some(first)
    }

    /// Two values are the same down to their representation: the same variants, the same
    /// bytes, the same numbers, the same members in the same order (`==` on `Val` calls
    /// `1.0` and `1` equal, and objects equal whatever their order).
    fn same(a: &Val, b: &Val) -> bool {
        match (a, b) {
            (Val::Null, Val::Null) => true,
            (Val::Bool(x), Val::Bool(y)) => x == y,
            (Val::Num(x), Val::Num(y)) => match (x, y) {
                (Num::Int(x), Num::Int(y)) => x == y,
                (Num::BigInt(x), Num::BigInt(y)) => x == y,
                (Num::Dec(x), Num::Dec(y)) => x == y,
                (Num::Float(x), Num::Float(y)) => x.to_bits() == y.to_bits(),
                _ => false,
            },
            (Val::TStr(x), Val::TStr(y)) | (Val::BStr(x), Val::BStr(y)) => x == y,
            (Val::Arr(x), Val::Arr(y)) => {
                x.len() == y.len() && x.iter().zip(y.iter()).all(|(a, b)| same(a, b))
            }
            (Val::Obj(x), Val::Obj(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
            }
            _ => false,
        }
    }

    /// `-0` as jaq makes it (0), and an integer past 2⁵³ (jaq's exact integer), where this
    /// reader keeps their text.
    fn as_jaq(v: Val) -> Val {
        let integer = |d: &str| !d.bytes().any(|c| matches!(c, b'.' | b'e' | b'E'));
        match v {
            Val::Num(Num::Dec(d)) if *d == "-0" => Val::Num(Num::Int(0)),
            Val::Num(Num::Dec(d)) if integer(&d) => Val::Num(Num::from_str_radix(&d, 10).unwrap()),
            Val::Arr(a) => a.iter().cloned().map(as_jaq).collect(),
            Val::Obj(o) => Val::obj(
                o.iter()
                    .map(|(k, v)| (k.clone(), as_jaq(v.clone())))
                    .collect(),
            ),
            v => v,
        }
    }

    /// This reader agrees with jaq's on `line`: the same value, or it gives up. Returns
    /// whether it read the line.
    fn agrees(line: &[u8]) -> bool {
        let ours = value(line).map(as_jaq);
        if let Some(ours) = &ours {
            let theirs = jaq(line);
            assert!(
                theirs.as_ref().is_some_and(|t| same(ours, t)),
                "{:?}: ours {ours:?}, jaq's {theirs:?}",
                String::from_utf8_lossy(line)
            );
        }
        ours.is_some()
    }

    #[test]
    fn json_is_read_as_jaq_reads_it() {
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}"#,
            r#" { "a" : [ 1 , -2 , 3.5 , 1e3 , -0 , 0.0 , 1E-2 , 12345678901234567890123 ] } "#,
            r#"{"a":1,"b":2,"a":3}"#,
            r#"[true,false,null,"",[],{},[[]],{"":{}}]"#,
            r#""esc \" \\ \/ \b \f \n \r \t \u00e9 \u20AC \ud83d\ude00 end""#,
            "\"raw \u{e9}\u{1f600} bytes\"",
            "-9223372036854775808",
            "9223372036854775808",
            "\t[1]\r\n",
            r#"{"k":"\u0000"}"#,
        ] {
            assert!(agrees(line.as_bytes()), "gave up on {line}");
        }
        // Bytes that are not UTF-8 are kept as they are, as jaq keeps them.
        assert!(agrees(b"[\"\xff\xfe\"]"));
    }

    #[test]
    fn anything_else_is_left_to_jaq() {
        for line in [
            "",
            " ",
            "1 2",
            "{} {}",
            "[1,]",
            "[1 2]",
            "{\"a\"}",
            "{\"a\":}",
            "{1:2}",
            "{a:1}",
            "007",
            "+1",
            "1.",
            ".5",
            "1e",
            "-",
            "NaN",
            "Infinity",
            "-Infinity",
            "nul",
            "tru",
            "[1] # comment",
            "# comment\n1",
            "b\"bytes\"",
            "\"\\ud800\"",
            "\"\\udc00\"",
            "\"\\ud800\\u0041\"",
            "\"\\x41\"",
            "\"\\u12\"",
            "\"a\nb\"",
            "\"unterminated",
            "[",
            "{",
            "[1",
            "{\"a\":1",
            "]",
            "}",
        ] {
            assert!(!agrees(line.as_bytes()), "read {line:?}");
        }
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(!agrees(deep.as_bytes()));
        let deep_enough = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(agrees(deep_enough.as_bytes()));
    }

    /// A line of several values is read as jaq's reader reads it (but `-0`), or left to it.
    #[test]
    fn several_values_are_read_as_jaq_reads_them() {
        for line in [
            "1 2",
            "{}{}",
            "1{}",
            r#""a""b""#,
            "truefalse",
            "1-2",
            "[]1",
            r#"{"type":"b"} {"type":"a","x":-0}"#,
            " -0\t-0 ",
            "",
        ] {
            let ours: Vec<Val> = values(line.as_bytes()).expect(line);
            let theirs: Vec<Val> = jaq_json::read::parse_many(line.as_bytes())
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(ours.len(), theirs.len(), "{line}");
            for (o, t) in ours.into_iter().zip(&theirs) {
                assert!(same(&as_jaq(o), t), "{line}");
            }
        }
        let read = values(b"-0 [-0]").unwrap();
        assert!(matches!(&read[0], Val::Num(Num::Dec(d)) if **d == "-0"));
        for line in ["1 2 [", "1 NaN", "{} \"\\ud800\"", "1 +1"] {
            assert!(values(line.as_bytes()).is_none(), "{line}");
        }
    }

    #[test]
    fn real_lines_are_read_as_jaq_reads_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut read = 0;
        let mut stack = vec![dir];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path
                    .extension()
                    .is_some_and(|e| e == "ndjson" || e == "jsonl")
                {
                    for line in std::fs::read(&path).unwrap().split(|&c| c == b'\n') {
                        read += usize::from(agrees(line));
                    }
                }
            }
        }
        assert!(read > 800, "{read} lines read");
    }

    /// Near-JSON from a seed: pieces of JSON and of what is not, stuck together.
    fn near_json(seed: u64) -> Vec<u8> {
        const PIECES: [&str; 40] = [
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\"a\"",
            "\"b\"",
            "\"\\n\"",
            "\"\\u00e9\"",
            "\"\\ud83d\\ude00\"",
            "\"\\ud83d\"",
            "\"\\q\"",
            "\"x",
            "1",
            "-1",
            "0",
            "01",
            "1.5",
            "1e9",
            "-0.0e-0",
            "99999999999999999999",
            "true",
            "false",
            "null",
            "nan",
            "+",
            "#",
            "\n",
            "\t",
            "\"",
            "\\",
            "\u{e9}",
            "\u{1}",
            "{\"k\":1}",
            "[1,2]",
            "{\"k\":[]}",
            "\"k\":",
            "b\"x\"",
        ];
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut out = Vec::new();
        for _ in 0..(seed % 24 + 1) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.extend_from_slice(PIECES[(x % PIECES.len() as u64) as usize].as_bytes());
        }
        out
    }

    #[test]
    fn generated_near_json_agrees_with_jaq() {
        let mut read = 0;
        for seed in 0..200_000 {
            read += usize::from(agrees(&near_json(seed)));
        }
        // Some of it is JSON, and is read here.
        assert!(read > 1000, "{read} read");
    }
}

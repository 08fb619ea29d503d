//! A program that starts by selecting events on their `type` and `subtype` —
//! `select(.type == "tool_call") | …` — has that test read off the peek: a line it rejects
//! is never parsed. On the lines that pass, the whole program runs on the engine (or, when
//! what follows the `select` is only paths, those walk the raw text), so the test decides
//! nothing the engine would not: on an event line (a JSON object whose `type` is a string,
//! as the peek read it) `.type == "s"` is what the peek says — when the peek saw the line
//! as the engine reads it ([`exact`]). The peek reads the first `type` of the line's first
//! value; the engine reads every value of a line, and the last of a repeated key: a line
//! where the two may differ is left to the engine. A line it rejects is not checked
//! otherwise: a broken one is not reported, as the engine would.
//!
//! Recognised (anything else runs on the engine alone): `select(COND)` alone or followed by
//! `|`, where COND is made of `.type` or `.subtype` compared with `==` or `!=` to a string
//! literal (either side), `and`, `or`, parentheses, `.type | IN("a", "b")` as a whole
//! condition, and `IN(.type; "a", "b")`.

/// A test on an event's `type` and `subtype`.
use std::sync::LazyLock;

use memchr::arch::all::packedpair::HeuristicFrequencyRank;
use memchr::memmem::{Finder, FinderBuilder};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cond {
    /// The field equals one of the strings (`==`, `IN`).
    In(Field, Vec<String>),
    /// The field is not the string (`!=`).
    Not(Field, String),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Type,
    Subtype,
}

impl Cond {
    /// Whether an event whose `type` is `type_name` passes; `subtype` is asked only when
    /// the test needs it (`None`: absent, or not a string — `null` or a number, which equal
    /// no string literal).
    pub(crate) fn passes<'s>(
        &self,
        type_name: &str,
        subtype: &mut impl FnMut() -> Option<std::borrow::Cow<'s, str>>,
    ) -> bool {
        // The type is compared where it lies: this runs on every line.
        match self {
            Cond::In(Field::Type, strings) => strings.iter().any(|s| s == type_name),
            Cond::Not(Field::Type, s) => s != type_name,
            Cond::In(Field::Subtype, strings) => {
                subtype().is_some_and(|v| strings.iter().any(|s| *s == *v))
            }
            Cond::Not(Field::Subtype, s) => subtype().is_none_or(|v| *s != *v),
            Cond::And(a, b) => a.passes(type_name, subtype) && b.passes(type_name, subtype),
            Cond::Or(a, b) => a.passes(type_name, subtype) || b.passes(type_name, subtype),
        }
    }
}

impl Cond {
    /// Whether the test reads the `subtype`.
    pub(crate) fn reads_subtype(&self) -> bool {
        match self {
            Cond::In(field, _) | Cond::Not(field, _) => *field == Field::Subtype,
            Cond::And(a, b) | Cond::Or(a, b) => a.reads_subtype() || b.reads_subtype(),
        }
    }
}

/// Whether the `type` (and, with `subtype`, the `subtype`) the peek read off `line` is
/// what the engine reads: the key is at the top level of the object once (the engine takes
/// the last of a repeated key, the peek the first), none spelled with an escape, and with
/// `whole` the object is the line's one value (the engine reads every value on a line, the
/// peek the first one's head).
///
/// Cheap on the usual line, nested `{"type":…}` blocks and all: a few memchr passes ([`look`]) tell
/// that no key could be there twice, that none is spelled with an escape, and that no brace
/// is followed by a second value. Only a line where it cannot tell is scanned
/// ([`top_level_keys`]), as far as needed.
pub(crate) fn exact(line: &[u8], subtype: bool, whole: bool) -> bool {
    let Some(seen) = look(line, subtype, whole) else {
        return false;
    };
    // A key after `{` is the first of its object, any other follows a `,`: two top-level
    // keys of a name need one after a `,` when the object's first key is that name, two
    // otherwise. A nested block `{"type":…}` counts for nothing.
    let body = line
        .trim_ascii_start()
        .strip_prefix(b"{")
        .unwrap_or_default();
    let reach = |(after_comma, last): (u32, usize), key: &[u8]| {
        let first = body.trim_ascii_start().starts_with(key);
        if after_comma >= if first { 1 } else { 2 } {
            last + 1
        } else {
            0
        }
    };
    let reach = reach(seen.types, b"\"type\"").max(reach(seen.subtypes, b"\"subtype\""));
    let second_value = seen.brace_then_value;
    if reach == 0 && !second_value {
        return true;
    }
    match top_level_keys(line, if second_value { line.len() } else { reach }) {
        Some(keys) => keys.types <= 1 && keys.subtypes <= 1 && (!second_value || keys.one_value),
        None => false,
    }
}

/// What [`look`] sees of a line.
#[derive(Debug, Default)]
struct Seen {
    /// How many `"type"` follow a `,` (but for whitespace), and where the last one is.
    types: (u32, usize),
    /// The same of `"subtype"`, when asked.
    subtypes: (u32, usize),
    /// A `}` followed (but for whitespace) by what starts a value, when asked.
    brace_then_value: bool,
}

/// What tells whether the peek saw `line` as the engine reads it, in passes of `memchr`
/// and `memmem` (which skip the text between hits many bytes a step; the hits are rare or
/// cheap to look at): the keys `"type"` (and `"subtype"`) after a comma, and with `whole` a
/// brace followed by a value. `None` on an escaped lower-case letter (`\u0074ype` is
/// `type`, a key it may spell; agents escape no letters, and such a line goes to the
/// engine).
fn look(line: &[u8], subtype: bool, whole: bool) -> Option<Seen> {
    static ESCAPE: LazyLock<Finder<'static>> = LazyLock::new(|| finder(b"\\u00"));
    static TYPE: LazyLock<Finder<'static>> = LazyLock::new(|| finder(b"\"type\""));
    static SUBTYPE: LazyLock<Finder<'static>> = LazyLock::new(|| finder(b"\"subtype\""));
    if ESCAPE
        .find_iter(line)
        .any(|at| matches!(line.get(at + 4), Some(b'6' | b'7')))
    {
        return None;
    }
    Some(Seen {
        types: after_comma(line, &TYPE),
        subtypes: if subtype {
            after_comma(line, &SUBTYPE)
        } else {
            (0, 0)
        },
        // Outside strings a brace is followed by `,`, `}`, `]` or the end, but for the
        // first value's closing brace when a second value follows it; a brace in a string
        // may be, which only costs a scan.
        brace_then_value: whole
            && memchr::memchr_iter(b'}', line).any(|at| {
                let next = line[at + 1..].iter().find(|b| !b.is_ascii_whitespace());
                matches!(
                    next,
                    Some(b'{' | b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n')
                )
            }),
    })
}

/// A searcher for `needle` in JSON text: memmem looks first for its two rarest bytes, and
/// its table of frequencies, made for prose, counts `"` and `\\` rare, which in JSON are
/// everywhere (`"type"` was searched for by its quote and `y`, stopping at every string).
fn finder(needle: &[u8]) -> Finder<'static> {
    struct InJson;
    impl HeuristicFrequencyRank for InJson {
        fn rank(&self, byte: u8) -> u8 {
            match byte {
                b'"' | b'\\' | b',' | b':' | b'{' | b'}' | b'[' | b']' | b' ' | b'0'..=b'9' => 255,
                b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 200,
                _ => 100,
            }
        }
    }
    FinderBuilder::new()
        .build_forward_with_ranker(InJson, needle)
        .into_owned()
}

/// How many times `key` follows a comma (but for whitespace) in `line`, and where it last
/// does (a key after `{` is the first of its object, and cannot repeat an earlier one).
fn after_comma(line: &[u8], key: &Finder<'_>) -> (u32, usize) {
    key.find_iter(line)
        .filter(|&at| line[..at].trim_ascii_end().last() == Some(&b','))
        .fold((0, 0), |(n, _), at| (n + 1, at))
}

/// The top-level keys `type` and `subtype` of the object that starts `line`.
#[derive(Debug, PartialEq, Eq)]
struct Keys {
    types: u32,
    subtypes: u32,
    /// Nothing but whitespace after the object (known only when the scan reached its end).
    one_value: bool,
}

/// Counts the top-level keys `type` and `subtype` of the object that starts `line` among
/// the strings that start before `to`, in one pass that jumps from quote to brace
/// (memchr), over every string. `None` when the line does not start an object, when its
/// braces do not match, or when a top-level key has an escape (which may spell either).
fn top_level_keys(line: &[u8], to: usize) -> Option<Keys> {
    let mut keys = Keys {
        types: 0,
        subtypes: 0,
        one_value: true,
    };
    let mut at = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if line[at] != b'{' {
        return None;
    }
    let mut depth = 0u32;
    while at < to {
        let Some(found) = memchr::memchr3(b'"', b'{', b'}', &line[at..to]) else {
            break;
        };
        let i = at + found;
        match line[i] {
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    keys.one_value = line[i + 1..].iter().all(u8::is_ascii_whitespace);
                    return Some(keys);
                }
            }
            _ => {
                let end = string_end(line, i)?;
                // In an object at brace depth 1 (the top level, or an array in it), a string
                // followed by `:` is a top-level key.
                let colon = line[end..].iter().find(|b| !b.is_ascii_whitespace());
                if depth == 1 && colon == Some(&b':') {
                    let key = &line[i + 1..end - 1];
                    if key.contains(&b'\\') {
                        return None;
                    }
                    keys.types += u32::from(key == b"type");
                    keys.subtypes += u32::from(key == b"subtype");
                }
                at = end;
                continue;
            }
        }
        at = i + 1;
    }
    Some(keys)
}

/// The index after the string whose opening quote is at `start`.
fn string_end(line: &[u8], start: usize) -> Option<usize> {
    let mut from = start + 1;
    loop {
        let quote = from + memchr::memchr(b'"', line.get(from..)?)?;
        // A quote after an odd run of backslashes is escaped.
        let run = line[from..quote]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if run % 2 == 0 {
            return Some(quote + 1);
        }
        from = quote + 1;
    }
}

/// The test a program starts with, if it starts with one this module reads, and the
/// program after it (`.` when nothing follows the `select`).
pub(crate) fn of_program(code: &str) -> Option<(Cond, &str)> {
    let mut p = Parser { s: code, i: 0 };
    p.word("select")?;
    p.punct("(")?;
    let cond = p.whole_cond()?;
    p.punct(")")?;
    p.ws();
    // The rest must be nothing or a pipe: `select(…) , x` or `select(…) as $x` mean more.
    let rest = &p.s[p.i..];
    if rest.is_empty() {
        Some((cond, "."))
    } else if rest.starts_with('|') && !rest.starts_with("|=") {
        Some((cond, &rest[1..]))
    } else {
        None
    }
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        loop {
            let rest = &self.s[self.i..];
            let trimmed = rest.trim_start();
            self.i += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                // A comment runs to the end of the line.
                self.i += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn punct(&mut self, p: &str) -> Option<()> {
        self.ws();
        self.s[self.i..].starts_with(p).then(|| self.i += p.len())
    }

    /// A keyword or name, not followed by more of a name.
    fn word(&mut self, w: &str) -> Option<()> {
        self.ws();
        let rest = &self.s[self.i..];
        let after = rest.strip_prefix(w)?;
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            return None;
        }
        self.i += w.len();
        Some(())
    }

    /// A condition that may be a whole `FIELD | IN(…)`.
    fn whole_cond(&mut self) -> Option<Cond> {
        let at = self.i;
        if let Some(field) = self.field()
            && self.punct("|").is_some()
            && self.s[self.i..].trim_start().starts_with("IN")
        {
            self.word("IN")?;
            self.punct("(")?;
            let strings = self.strings()?;
            self.punct(")")?;
            return Some(Cond::In(field, strings));
        }
        self.i = at;
        self.or()
    }

    fn or(&mut self) -> Option<Cond> {
        let mut left = self.and()?;
        while self.word("or").is_some() {
            left = Cond::Or(Box::new(left), Box::new(self.and()?));
        }
        Some(left)
    }

    fn and(&mut self) -> Option<Cond> {
        let mut left = self.atom()?;
        while self.word("and").is_some() {
            left = Cond::And(Box::new(left), Box::new(self.atom()?));
        }
        Some(left)
    }

    fn atom(&mut self) -> Option<Cond> {
        if self.punct("(").is_some() {
            let cond = self.whole_cond()?;
            self.punct(")")?;
            return Some(cond);
        }
        if self.word("IN").is_some() {
            self.punct("(")?;
            let field = self.field()?;
            self.punct(";")?;
            let strings = self.strings()?;
            self.punct(")")?;
            return Some(Cond::In(field, strings));
        }
        let at = self.i;
        let (field, s) = match self.field() {
            Some(field) => {
                let eq = self.eq()?;
                (field, (eq, self.string()?))
            }
            None => {
                self.i = at;
                let s = self.string()?;
                let eq = self.eq()?;
                (self.field()?, (eq, s))
            }
        };
        Some(match s {
            (true, s) => Cond::In(field, vec![s]),
            (false, s) => Cond::Not(field, s),
        })
    }

    /// `==` (true) or `!=` (false).
    fn eq(&mut self) -> Option<bool> {
        if self.punct("==").is_some() {
            Some(true)
        } else {
            self.punct("!=").map(|()| false)
        }
    }

    /// `.type`, `."type"`, `.["type"]`, and the same of `subtype`.
    fn field(&mut self) -> Option<Field> {
        self.punct(".")?;
        let name = if self.s[self.i..].starts_with('"') {
            self.string()?
        } else if self.punct("[").is_some() {
            let s = self.string()?;
            self.punct("]")?;
            s
        } else {
            let rest = &self.s[self.i..];
            let n = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            self.i += n;
            rest[..n].to_owned()
        };
        // `.type.x`, `.type[0]`, `.type?` are other programs.
        if self.s[self.i..].starts_with(['.', '[', '?']) {
            return None;
        }
        match name.as_str() {
            "type" => Some(Field::Type),
            "subtype" => Some(Field::Subtype),
            _ => None,
        }
    }

    /// A string literal without interpolation, decoded.
    fn string(&mut self) -> Option<String> {
        self.ws();
        let rest = &self.s[self.i..];
        if !rest.starts_with('"') {
            return None;
        }
        let mut escaped = false;
        let end = rest[1..].char_indices().find_map(|(i, c)| {
            if escaped {
                escaped = false;
                None
            } else if c == '\\' {
                escaped = true;
                None
            } else {
                (c == '"').then_some(i + 2)
            }
        })?;
        let literal = &rest[..end];
        if literal.contains("\\(") {
            return None;
        }
        let s = serde_json::from_str::<String>(literal).ok()?;
        self.i += end;
        Some(s)
    }

    /// `"a", "b", …`
    fn strings(&mut self) -> Option<Vec<String>> {
        let mut out = vec![self.string()?];
        while self.punct(",").is_some() {
            out.push(self.string()?);
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(code: &str, t: &str, st: Option<&str>) -> Option<bool> {
        let (cond, _) = of_program(code)?;
        Some(cond.passes(t, &mut || st.map(|s| std::borrow::Cow::Owned(s.to_owned()))))
    }

    #[test]
    fn the_forms_of_the_issue_are_read() {
        let p = r#"select(.type=="tool_call") | .call_id"#;
        assert_eq!(test(p, "tool_call", None), Some(true));
        assert_eq!(test(p, "assistant", None), Some(false));
        let p = r#"select(.type == "tool_call" and .subtype == "started")"#;
        assert_eq!(test(p, "tool_call", Some("started")), Some(true));
        assert_eq!(test(p, "tool_call", Some("completed")), Some(false));
        assert_eq!(test(p, "tool_call", None), Some(false));
        let p = r#"select("result" == .type or (.type | IN("a", "b"))) | ."x""#;
        assert_eq!(test(p, "b", None), Some(true));
        assert_eq!(test(p, "result", None), Some(true));
        assert_eq!(test(p, "c", None), Some(false));
        let p = r#"select(IN(.["subtype"]; "x", "y\u0021")) |.a"#;
        assert_eq!(test(p, "t", Some("y!")), Some(true));
        assert_eq!(test(p, "t", None), Some(false));
        let p = r#"select(.subtype != "delta")"#;
        assert_eq!(test(p, "t", None), Some(true));
        assert_eq!(test(p, "t", Some("delta")), Some(false));
    }

    #[test]
    fn anything_else_is_left_to_the_engine() {
        for p in [
            r#"select(.type=="a"), .b"#,
            r#"select(.type=="a") as $x | $x"#,
            r#"select(.type.x=="a")"#,
            r#"select(.type=="a\(1)")"#,
            r#"select(.type | IN("a") and .subtype == "b")"#,
            r#"select(.kind=="a")"#,
            r#"select(.type==1)"#,
            r#"selector(.type=="a")"#,
            r#"select(.type=="a") |= 1"#,
            r#"map(select(.type=="a"))"#,
        ] {
            assert_eq!(of_program(p), None, "{p}");
        }
    }

    #[test]
    fn the_rest_of_the_program_is_told() {
        assert_eq!(of_program(r#"select(.type=="a")"#).map(|c| c.1), Some("."));
        assert_eq!(
            of_program(r#"select(.type=="a") | .b | .c"#).map(|c| c.1),
            Some(" .b | .c")
        );
    }

    #[test]
    fn the_peek_decides_only_a_line_it_saw_as_the_engine_reads_it() {
        let exact = |line: &str, subtype, whole| exact(line.as_bytes(), subtype, whole);
        for line in [
            r#"{"type":"a","x":1}"#,
            r#"{"type":"a","m":{"content":[{"type":"text","text":"}{ \"type\":"}]},"s":1}"#,
            r#"{"x":{"type":"n"},"type":"a"}  "#,
            r#"{"type":"a","subtype":"s","t":"type"}"#,
            r#"{ "type" : "a" , "m" : { "type" : "b" } } "#,
            r#"{"a":1,"type":"x","m":{"b":1,"type":"n"},"t":"} {"}"#,
        ] {
            assert!(exact(line, true, true), "{line}");
        }
        // A key repeated: the engine reads the last.
        for line in [
            r#"{"type":"a","x":1,"type":"b"}"#,
            r#"{"type":"a","m":{"type":"n"},"type":"b"}"#,
            r#"{"type":"a","\u0074ype":"b"}"#,
            r#"{"a":1,"type":"x", "type":"y"}"#,
        ] {
            assert!(!exact(line, false, false), "{line}");
        }
        let sub = r#"{"type":"a","subtype":"s","x":{"subtype":"n"},"subtype":"u"}"#;
        assert!(!exact(sub, true, false));
        assert!(
            exact(sub, false, false),
            "the test does not read the subtype"
        );
        // Several values: the engine reads each.
        for line in [
            r#"{"type":"b"} {"type":"a","x":2}"#,
            r#"{"type":"b"}{"x":1}"#,
            r#"{"type":"b"} 1 {"x":1}"#,
            r#"{"type":"b","s":"} {"} {"x":1}"#,
        ] {
            assert!(!exact(line, false, true), "{line}");
            assert!(exact(line, false, false), "{line}");
        }
    }

    /// Wherever the keys and braces fall in the line.
    #[test]
    fn the_look_sees_across_its_steps() {
        for pad in 0..70 {
            let p = "x".repeat(pad);
            let line = |rest: &str| format!(r#"{{"type":"a","p":"{p}"{rest}"#);
            assert!(
                exact(line(r#","m":{"type":"n"}}"#).as_bytes(), true, true),
                "{pad}"
            );
            assert!(
                !exact(line(r#","type":"b"}"#).as_bytes(), false, false),
                "{pad}"
            );
            assert!(
                !exact(line(r#","\u0074ype":"b"}"#).as_bytes(), false, false),
                "{pad}"
            );
            assert!(
                !exact(line(r#"} {"x":1}"#).as_bytes(), false, true),
                "{pad}"
            );
        }
    }

    #[test]
    fn and_binds_tighter_than_or() {
        let p = r#"select(.type=="a" or .type=="b" and .subtype=="x")"#;
        assert_eq!(test(p, "a", None), Some(true));
        assert_eq!(test(p, "b", None), Some(false));
        assert_eq!(test(p, "b", Some("x")), Some(true));
    }
}

//! jq-style paths for `get`, and walking them through one event without building a tree.
//!
//! The language is a subset of jq's paths: `.` (the whole event), `.key`, `."any key"`,
//! `.["any key"]`, `.[N]` (negative counts from the end), `.[]` (every element or value),
//! `?` after a step (drop errors instead of reporting them), and several paths separated
//! by `,`. Steps chain: `.message.content[0].text`, `.tool_call[]?.args`.
//!
//! Values are walked as borrowed raw JSON text: each step scans only the value it is given,
//! and what is printed is the original text of the value, made compact.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::input::json::KeyIn;
use serde_json::value::RawValue;

#[derive(Debug, Clone, PartialEq)]
enum Op {
    Key(String),
    Index(i64),
    Iterate,
}

#[derive(Debug, Clone, PartialEq)]
struct Step {
    op: Op,
    optional: bool,
}

/// One path: a chain of steps from the event.
#[derive(Debug, Clone, PartialEq)]
pub struct Path(Vec<Step>);

/// The paths of a `get` expression, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Paths(pub Vec<Path>);

/// A path that does not parse, with the column (1-based) where it goes wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct PathError {
    pub source: String,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pad = " ".repeat(self.column.saturating_sub(1) + 2);
        write!(
            f,
            "invalid path at column {}: {}\n  {}\n{pad}^",
            self.column, self.message, self.source
        )
    }
}

impl std::error::Error for PathError {}

impl std::str::FromStr for Paths {
    type Err = PathError;

    fn from_str(s: &str) -> Result<Paths, PathError> {
        Parser { src: s, pos: 0 }.paths()
    }
}

struct Parser<'s> {
    src: &'s str,
    pos: usize,
}

impl Parser<'_> {
    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, PathError> {
        Err(PathError {
            source: self.src.to_string(),
            column: self.src[..at.min(self.src.len())].chars().count() + 1,
            message: message.into(),
        })
    }

    fn peek(&self) -> Option<u8> {
        self.src.as_bytes().get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn paths(mut self) -> Result<Paths, PathError> {
        let mut paths = Vec::new();
        loop {
            self.skip_ws();
            paths.push(self.path()?);
            self.skip_ws();
            match self.peek() {
                None => return Ok(Paths(paths)),
                Some(b',') => self.pos += 1,
                Some(_) => return self.error(self.pos, "expected `,` or the end of the path"),
            }
        }
    }

    fn path(&mut self) -> Result<Path, PathError> {
        if self.peek() != Some(b'.') {
            return self.error(self.pos, "a path starts with `.`");
        }
        self.pos += 1;
        let mut steps = Vec::new();
        // Right after the leading `.`: a key, a string, a bracket, or nothing (`.`).
        match self.peek() {
            Some(b) if is_ident_start(b) => steps.push(self.key()),
            Some(b'"') => steps.push(self.string_key()?),
            Some(b'[') => steps.push(self.bracket()?),
            _ => {}
        }
        loop {
            match self.peek() {
                Some(b'.') => {
                    let dot = self.pos;
                    self.pos += 1;
                    match self.peek() {
                        Some(b) if is_ident_start(b) => steps.push(self.key()),
                        Some(b'"') => steps.push(self.string_key()?),
                        Some(b'[') => steps.push(self.bracket()?),
                        _ => {
                            return self
                                .error(dot + 1, "expected a key, a quoted key or `[` after `.`");
                        }
                    }
                }
                Some(b'[') => steps.push(self.bracket()?),
                Some(b'?') => {
                    self.pos += 1;
                    if let Some(last) = steps.last_mut() {
                        last.optional = true;
                    }
                }
                _ => return Ok(Path(steps)),
            }
        }
    }

    fn key(&mut self) -> Step {
        let start = self.pos;
        while self.peek().is_some_and(is_ident_char) {
            self.pos += 1;
        }
        step(Op::Key(self.src[start..self.pos].to_string()))
    }

    fn string_key(&mut self) -> Result<Step, PathError> {
        Ok(step(Op::Key(self.string()?)))
    }

    /// A JSON string literal at `pos`.
    fn string(&mut self) -> Result<String, PathError> {
        let start = self.pos;
        let bytes = self.src.as_bytes();
        let mut i = start + 1;
        while i < bytes.len() && bytes[i] != b'"' {
            i += if bytes[i] == b'\\' { 2 } else { 1 };
        }
        if i >= bytes.len() {
            return self.error(start, "this string is not closed");
        }
        self.pos = i + 1;
        match serde_json::from_str(&self.src[start..=i]) {
            Ok(s) => Ok(s),
            Err(e) => self.error(start, format!("invalid string ({e})")),
        }
    }

    /// `[]`, `[N]`, `["key"]`.
    fn bracket(&mut self) -> Result<Step, PathError> {
        self.pos += 1;
        self.skip_ws();
        let op = match self.peek() {
            Some(b']') => Op::Iterate,
            Some(b'"') => Op::Key(self.string()?),
            Some(b'-' | b'0'..=b'9') => {
                let start = self.pos;
                self.pos += 1;
                while self.peek().is_some_and(|b| b.is_ascii_digit()) {
                    self.pos += 1;
                }
                match self.src[start..self.pos].parse() {
                    Ok(n) => Op::Index(n),
                    Err(_) => return self.error(start, "expected a whole number"),
                }
            }
            _ => return self.error(self.pos, "expected `]`, a number or a quoted key"),
        };
        self.skip_ws();
        if self.peek() != Some(b']') {
            return self.error(self.pos, "expected `]`");
        }
        self.pos += 1;
        Ok(step(op))
    }
}

fn step(op: Op) -> Step {
    Step {
        op,
        optional: false,
    }
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A value a path led to: raw JSON text, or `null` for a missing key or index.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Raw(&'a RawValue),
    Null,
}

impl<'a> Value<'a> {
    pub fn text(&self) -> &'a str {
        match self {
            Value::Raw(raw) => raw.get(),
            Value::Null => "null",
        }
    }

    /// Whether the value is `null` or `false` (for `-e`, as jq).
    pub fn is_falsy(&self) -> bool {
        matches!(self.text().trim(), "null" | "false")
    }
}

/// A step that cannot apply to the value it met, in jq's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Path {
    /// Appends the values this path leads to from `root`, depth first as jq does. At the
    /// first error that `?` does not cover, stops: `out` then holds the values found
    /// before it, which jq prints too.
    pub fn eval<'a>(&self, root: &'a RawValue, out: &mut Vec<Value<'a>>) -> Result<(), EvalError> {
        walk_steps(&self.0, Value::Raw(root), out)
    }
}

fn walk_steps<'a>(
    steps: &[Step],
    value: Value<'a>,
    out: &mut Vec<Value<'a>>,
) -> Result<(), EvalError> {
    let Some((step, rest)) = steps.split_first() else {
        out.push(value);
        return Ok(());
    };
    if rest.is_empty() {
        // The last step writes straight into `out`; nothing to walk further.
        let mark = out.len();
        return match apply(&step.op, value, out) {
            Err(_) if step.optional => {
                out.truncate(mark);
                Ok(())
            }
            other => other,
        };
    }
    let mut next = Vec::new();
    match apply(&step.op, value, &mut next) {
        Ok(()) => {}
        Err(_) if step.optional => return Ok(()),
        Err(e) => return Err(e),
    }
    for value in next {
        walk_steps(rest, value, out)?;
    }
    Ok(())
}

fn type_name(text: &str) -> &'static str {
    match text.trim_start().as_bytes().first() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "boolean",
        Some(b'n') | None => "null",
        _ => "number",
    }
}

fn apply<'a>(op: &Op, value: Value<'a>, out: &mut Vec<Value<'a>>) -> Result<(), EvalError> {
    let text = value.text();
    let kind = type_name(text);
    let bad = |what: String| Err(EvalError(what));
    match (op, kind) {
        (Op::Key(_) | Op::Index(_), "null") => out.push(Value::Null),
        (Op::Key(key), "object") => {
            let found = walk(text, FindKey(key)).map_err(|e| EvalError(e.to_string()))?;
            out.push(found.map_or(Value::Null, Value::Raw));
        }
        (Op::Key(key), _) => return bad(format!("Cannot index {kind} with \"{key}\"")),
        (Op::Index(i), "array") => {
            let items: Vec<&RawValue> =
                serde_json::from_str(text).map_err(|e| EvalError(e.to_string()))?;
            let at = if *i < 0 { items.len() as i64 + i } else { *i };
            let item = usize::try_from(at).ok().and_then(|at| items.get(at));
            out.push(item.map_or(Value::Null, |v| Value::Raw(v)));
        }
        (Op::Index(_), _) => return bad(format!("Cannot index {kind} with number")),
        (Op::Iterate, "array") => {
            let items: Vec<&RawValue> =
                serde_json::from_str(text).map_err(|e| EvalError(e.to_string()))?;
            out.extend(items.into_iter().map(Value::Raw));
        }
        (Op::Iterate, "object") => {
            walk(text, AllValues(out)).map_err(|e| EvalError(e.to_string()))?;
        }
        (Op::Iterate, _) => return bad(format!("Cannot iterate over {kind}")),
    }
    Ok(())
}

fn walk<'a, V: Visitor<'a>>(text: &'a str, visitor: V) -> Result<V::Value, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(visitor)
}

/// The value of `key` in an object (the last one, if the key is repeated, as jq).
struct FindKey<'k>(&'k str);

impl<'a> Visitor<'a> for FindKey<'_> {
    type Value = Option<&'a RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<M: MapAccess<'a>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut found = None;
        while let Some(hit) = map.next_key_seed(KeyIn(&[self.0]))? {
            if hit.is_some() {
                found = Some(map.next_value::<&RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// Every value of an object, in order.
struct AllValues<'o, 'a>(&'o mut Vec<Value<'a>>);

impl<'a> Visitor<'a> for AllValues<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<M: MapAccess<'a>>(self, mut map: M) -> Result<(), M::Error> {
        while map.next_key::<IgnoredAny>()?.is_some() {
            self.0.push(Value::Raw(map.next_value()?));
        }
        Ok(())
    }
}

/// Appends `json` as jq's compact output writes it: no whitespace between tokens, and
/// strings with `\u` escapes written out again (`"\u0074ype"` is `"type"`, a control
/// character stays escaped). Other text is kept as the CLI wrote it.
pub fn write_compact(json: &str, out: &mut Vec<u8>) {
    let bytes = json.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            let end = string_end(bytes, i);
            let token = &json[i..end];
            if token.contains("\\u") {
                match serde_json::from_str::<String>(token) {
                    Ok(s) => serde_json::to_writer(&mut *out, &s).expect("writing to a Vec"),
                    Err(_) => out.extend_from_slice(token.as_bytes()),
                }
            } else {
                out.extend_from_slice(token.as_bytes());
            }
            i = end;
        } else {
            if !b.is_ascii_whitespace() {
                out.push(b);
            }
            i += 1;
        }
    }
}

/// The index just past the string token that starts with the quote at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    match crate::input::json::string_body(&bytes[start + 1..]) {
        Some((body, _, _)) => start + 1 + body.len() + 1,
        None => bytes.len(),
    }
}

/// Appends a JSON value as jq's `-r` prints it: strings unescaped, the rest compact.
pub fn write_raw(value: &Value<'_>, out: &mut Vec<u8>) {
    let text = value.text();
    if type_name(text) == "string" {
        let mut de = serde_json::Deserializer::from_str(text);
        let seed = crate::input::json::AppendStr { text: &mut *out };
        if seed.deserialize(&mut de).is_ok() {
            return;
        }
    }
    write_compact(text, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, json: &str) -> Result<Vec<String>, EvalError> {
        let paths: Paths = path.parse().unwrap();
        let root: &RawValue = serde_json::from_str(json).unwrap();
        let mut out = Vec::new();
        for p in &paths.0 {
            p.eval(root, &mut out)?;
        }
        Ok(out
            .iter()
            .map(|v| {
                let mut s = Vec::new();
                write_compact(v.text(), &mut s);
                String::from_utf8(s).unwrap()
            })
            .collect())
    }

    const EV: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"a b":{"c":1},"n":null}"#;

    #[test]
    fn paths_walk_keys_indexes_and_iterations() {
        assert_eq!(get(".type", EV).unwrap(), [r#""assistant""#]);
        assert_eq!(
            get(".message.content[].text", EV).unwrap(),
            [r#""a""#, r#""b""#]
        );
        assert_eq!(get(".message.content[-1].text", EV).unwrap(), [r#""b""#]);
        assert_eq!(get(r#"."a b".c"#, EV).unwrap(), ["1"]);
        assert_eq!(get(r#".["a b"]["c"]"#, EV).unwrap(), ["1"]);
        assert_eq!(
            get(".missing, .n.deeper, .message.content[5]", EV).unwrap(),
            ["null", "null", "null"]
        );
        assert_eq!(get(".", r#"{ "a" : [1, 2] }"#).unwrap(), [r#"{"a":[1,2]}"#]);
        assert_eq!(
            get(".a[]", r#"{"a":{"x":1,"y":"s p"}}"#).unwrap(),
            ["1", r#""s p""#]
        );
    }

    #[test]
    fn errors_are_reported_unless_optional() {
        assert_eq!(
            get(".type.x", EV).unwrap_err(),
            EvalError("Cannot index string with \"x\"".into())
        );
        assert_eq!(
            get(".n[]", EV).unwrap_err(),
            EvalError("Cannot iterate over null".into())
        );
        assert_eq!(get(".type.x?", EV).unwrap(), Vec::<String>::new());
        assert_eq!(get(".message.content[]?.text", EV).unwrap().len(), 2);
        assert_eq!(get(".type[]?", EV).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn values_before_an_error_are_kept_as_jq_prints_them() {
        let paths: Paths = ".a[].b".parse().unwrap();
        let root: &RawValue = serde_json::from_str(r#"{"a":[{"b":1},"s",{"b":2}]}"#).unwrap();
        let mut out = Vec::new();
        let err = paths.0[0].eval(root, &mut out).unwrap_err();
        assert_eq!(err, EvalError("Cannot index string with \"b\"".into()));
        assert_eq!(out.iter().map(|v| v.text()).collect::<Vec<_>>(), ["1"]);
        let paths: Paths = ".a[].b?".parse().unwrap();
        out.clear();
        paths.0[0].eval(root, &mut out).unwrap();
        assert_eq!(out.iter().map(|v| v.text()).collect::<Vec<_>>(), ["1", "2"]);
    }

    #[test]
    fn invalid_paths_point_at_the_column() {
        let err = "message".parse::<Paths>().unwrap_err();
        assert_eq!(err.column, 1);
        let err = ".message..text".parse::<Paths>().unwrap_err();
        assert_eq!(err.column, 10);
        assert!(
            err.to_string()
                .ends_with("\n  .message..text\n           ^"),
            "{err}"
        );
        let err = ".a[1".parse::<Paths>().unwrap_err();
        assert_eq!((err.column, err.message.as_str()), (5, "expected `]`"));
        let err = r#".["unclosed]"#.parse::<Paths>().unwrap_err();
        assert_eq!(err.column, 3);
        let err = ".a .b".parse::<Paths>().unwrap_err();
        assert_eq!(err.column, 4);
    }

    #[test]
    fn raw_output_unescapes_strings() {
        let mut out = Vec::new();
        let v: &RawValue = serde_json::from_str(r#""line\nbreak \u00e9""#).unwrap();
        write_raw(&Value::Raw(v), &mut out);
        assert_eq!(out, "line\nbreak é".as_bytes());
    }

    #[test]
    fn compact_keeps_spaces_inside_strings() {
        let mut out = Vec::new();
        write_compact(r#"{ "a b" : "c \" d" , "e":[ 1 ] }"#, &mut out);
        assert_eq!(out, br#"{"a b":"c \" d","e":[1]}"#);
    }

    #[test]
    fn compact_writes_unicode_escapes_as_jq() {
        let mut out = Vec::new();
        write_compact(r#"{"\u0074ype":"caf\u00e9 \u001b[0m \n"}"#, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"café \u001b[0m \n"}"#
        );
    }
}

//! jq-style paths for `get`, and walking them through one event without building a tree.
//!
//! The language is a subset of jq's paths: `.` (the whole event), `.key`, `."any key"`,
//! `.["any key"]`, `.[N]` (negative counts from the end), `.[]` (every element or value),
//! `?` after a step (drop errors instead of reporting them), and several paths separated
//! by `,`. Steps chain: `.message.content[0].text`, `.tool_call[]?.args`.
//!
//! Values are walked as borrowed raw JSON text: each step scans only the value it is given,
//! and what is printed is the original text of the value, made compact.
//!
//! A key repeated in an object counts once, with its last value where it first stood, as in
//! jq (which reads the event into an object first): in `.key`, in `.[]`, and in every value
//! written. An object that repeats no key is written from its text as it is; only one that
//! does is rebuilt.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

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
pub(crate) struct Path(Vec<Step>);

/// The paths of a `get` expression, in order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Paths(pub Vec<Path>);

/// A path that does not parse, with the column (1-based) where it goes wrong.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PathError {
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
pub(crate) enum Value<'a> {
    Raw(&'a RawValue),
    Null,
}

impl<'a> Value<'a> {
    pub(crate) fn text(&self) -> &'a str {
        match self {
            Value::Raw(raw) => raw.get(),
            Value::Null => "null",
        }
    }

    /// Whether the value is `null` or `false` (for `-e`, as jq).
    pub(crate) fn is_falsy(&self) -> bool {
        matches!(self.text().trim(), "null" | "false")
    }
}

/// A step that cannot apply to the value it met, in jq's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EvalError(pub String);

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Path {
    /// Appends the values this path leads to from `root`, depth first as jq does. At the
    /// first error that `?` does not cover, stops: `out` then holds the values found
    /// before it, which jq prints too.
    pub(crate) fn eval<'a>(
        &self,
        root: &'a RawValue,
        out: &mut Vec<Value<'a>>,
    ) -> Result<(), EvalError> {
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

/// Every value of an object, in order; a repeated key's last value where the key first
/// stood, as jq.
struct AllValues<'o, 'a>(&'o mut Vec<Value<'a>>);

impl<'a> Visitor<'a> for AllValues<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<M: MapAccess<'a>>(self, mut map: M) -> Result<(), M::Error> {
        let start = self.0.len();
        // The keys, on the stack while they are few and without escapes (nearly always),
        // each with its first bytes, so that telling them apart allocates nothing and
        // seldom compares whole keys; past that, in `many`.
        let mut few = [(0, ""); FEW];
        let mut n = 0;
        let mut many: Vec<Cow<'a, str>> = Vec::new();
        while let Some(KeyText(key)) = map.next_key()? {
            match key {
                Cow::Borrowed(key) if many.is_empty() && n < FEW => {
                    few[n] = (head(key.as_bytes()), key);
                    n += 1;
                }
                key => {
                    if many.is_empty() {
                        many.extend(few[..n].iter().map(|&(_, k)| Cow::Borrowed(k)));
                    }
                    many.push(key);
                }
            }
            self.0.push(Value::Raw(map.next_value()?));
        }
        let plan = if many.is_empty() {
            let few = &few[..n];
            if !(1..n).any(|j| few[..j].contains(&few[j])) {
                return Ok(());
            }
            last_of_each(&few.iter().map(|&(_, k)| k).collect::<Vec<_>>())
        } else {
            last_of_each(&many)
        };
        if let Some(plan) = plan {
            let values = self.0.split_off(start);
            self.0
                .extend(plan.iter().filter_map(|j| j.map(|j| values[j])));
        }
        Ok(())
    }
}

/// How many keys of an object are told apart on the stack, each against every other.
const FEW: usize = 16;

/// The first bytes of a key, which tell most keys apart without comparing them whole.
fn head(key: &[u8]) -> u64 {
    match key.first_chunk::<8>() {
        Some(first) => u64::from_le_bytes(*first),
        None => key.iter().fold(0, |head, &b| head << 8 | u64::from(b)),
    }
}

/// A key as a string, borrowed from the text when it has no escapes.
struct KeyText<'a>(Cow<'a, str>);

impl<'a> Deserialize<'a> for KeyText<'a> {
    fn deserialize<D: Deserializer<'a>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'a> Visitor<'a> for V {
            type Value = KeyText<'a>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E: de::Error>(self, v: &'a str) -> Result<KeyText<'a>, E> {
                Ok(KeyText(Cow::Borrowed(v)))
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyText<'a>, E> {
                Ok(KeyText(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// For the members of an object, by their keys in order: `None` when no key repeats (the
/// usual case, told without allocating for a small object). Otherwise, for each member,
/// the member whose value stands in its place: for the first of a key, the last of that
/// key; for a later one, none (it is dropped). This is jq's object: a key set again keeps
/// its place and takes the new value.
fn last_of_each<K: Ord>(keys: &[K]) -> Option<Vec<Option<usize>>> {
    let n = keys.len();
    if n < 2 || (n <= 8 && !(1..n).any(|j| keys[..j].contains(&keys[j]))) {
        return None;
    }
    let mut order: Vec<usize> = (0..n).collect();
    // Stable: equal keys stay in the order they came.
    order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
    if !order.windows(2).any(|w| keys[w[0]] == keys[w[1]]) {
        return None;
    }
    let mut plan = vec![None; n];
    for same in order.chunk_by(|&a, &b| keys[a] == keys[b]) {
        plan[same[0]] = same.last().copied();
    }
    Some(plan)
}

/// Writes values as jq's compact output does, keeping its buffers from one value to the
/// next so that writing allocates nothing once they have grown.
#[derive(Debug, Default)]
pub(crate) struct Compact {
    /// The containers open where the scan is: for an object, where its keys start in
    /// `keys`; `None` for an array.
    open: Vec<Option<usize>>,
    /// The keys of the open objects.
    keys: Vec<Key>,
}

/// A key of an object being written: where it is in the text (quotes included), and its
/// [`head`].
#[derive(Debug, Clone, Copy)]
struct Key {
    start: usize,
    end: usize,
    head: u64,
}

impl Key {
    fn new(bytes: &[u8], start: usize, end: usize) -> Key {
        Key {
            start,
            end,
            head: head(bytes.get(start + 1..end).unwrap_or_default()),
        }
    }
}

impl Compact {
    /// Appends `json` as jq's compact output writes it: no whitespace between tokens,
    /// strings with `\u` escapes written out again (`"\u0074ype"` is `"type"`, a control
    /// character stays escaped), and a repeated key once, with its last value where it first
    /// stood. Other text is kept as the CLI wrote it.
    pub(crate) fn write(&mut self, json: &str, out: &mut Vec<u8>) {
        // A raw DEL (U+007F) is written escaped, as the engine writes it: rare, so looked for
        // once in the whole value.
        let del = memchr::memchr(0x7f, json.as_bytes()).is_some();
        let mark = out.len();
        if !self.write_as_is(json, del, out) {
            out.truncate(mark);
            write_rebuilt(json, out);
        }
    }

    /// Appends a JSON value as jq's `-r` prints it: strings unescaped, the rest compact.
    pub(crate) fn write_raw(&mut self, value: &Value<'_>, out: &mut Vec<u8>) {
        let text = value.text();
        if type_name(text) == "string" {
            let mut de = serde_json::Deserializer::from_str(text);
            let seed = crate::input::json::AppendStr { text: &mut *out };
            if seed.deserialize(&mut de).is_ok() {
                return;
            }
        }
        self.write(text, out);
    }

    /// Writes `json` compact token by token, noting each object's keys as it goes; false,
    /// with part of it written, as soon as an object may repeat a key. `del`: the text holds
    /// a raw DEL somewhere.
    fn write_as_is(&mut self, json: &str, del: bool, out: &mut Vec<u8>) -> bool {
        self.open.clear();
        self.keys.clear();
        let bytes = json.as_bytes();
        let mut at_key = false;
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    let (end, escaped) = string_end(bytes, i);
                    if at_key {
                        // A key with an escape may spell another one differently (`"\u006b"`
                        // is `"k"`): rare enough to leave to the rebuilding, which compares
                        // the keys decoded.
                        if escaped {
                            return false;
                        }
                        self.keys.push(Key::new(bytes, i, end));
                        at_key = false;
                    }
                    write_token(&json[i..end], escaped || del, out);
                    i = end;
                    continue;
                }
                b'{' => {
                    self.open.push(Some(self.keys.len()));
                    at_key = true;
                }
                b'[' => self.open.push(None),
                b',' => at_key = matches!(self.open.last(), Some(Some(_))),
                b'}' | b']' => {
                    at_key = false;
                    if let Some(Some(first)) = self.open.pop() {
                        let keys = self.keys.get_mut(first..).unwrap_or_default();
                        if may_repeat(bytes, keys) {
                            return false;
                        }
                        self.keys.truncate(first);
                    }
                }
                b if b.is_ascii_whitespace() => {
                    i += 1;
                    continue;
                }
                _ => {}
            }
            out.push(bytes[i]);
            i += 1;
        }
        true
    }
}

/// Whether an object whose keys (none escaped) are `keys` holds one twice.
fn may_repeat(bytes: &[u8], keys: &mut [Key]) -> bool {
    let n = keys.len();
    if n < 2 {
        return false;
    }
    let text = |k: &Key| &bytes[k.start..k.end];
    let same = |a: &Key, b: &Key| a.head == b.head && text(a) == text(b);
    if n <= FEW {
        return (1..n).any(|j| keys[..j].iter().any(|k| same(k, &keys[j])));
    }
    // Sorted, repeats are neighbours: a large object costs n log n, not n².
    keys.sort_unstable_by(|a, b| a.head.cmp(&b.head).then_with(|| text(a).cmp(text(b))));
    keys.windows(2).any(|w| same(&w[0], &w[1]))
}

/// Appends one token made compact: a string that the engine writes otherwise written out
/// again as it does, anything else as it is. `maybe`: false for a token known to hold no
/// escape and no DEL, not to search it.
#[inline]
fn write_token(token: &str, maybe: bool, out: &mut Vec<u8>) {
    if maybe
        && token.starts_with('"')
        && not_as_written(token.as_bytes())
        && let Ok(s) = serde_json::from_str::<String>(token)
    {
        write_string(s.as_bytes(), out);
    } else {
        out.extend_from_slice(token.as_bytes());
    }
}

/// Whether the engine writes the string `token` otherwise than it is written: it holds a
/// `\u` escape (the engine writes `\u00e9` as `é`, `\u001B` as `\u001b`), a `\/` (the
/// engine writes `/`) or a raw DEL (the engine writes `\u007f`). The escapes it writes
/// itself (`\"`, `\\`, `\n`, `\t`, …) are as it writes them.
fn not_as_written(token: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = memchr::memchr2(b'\\', 0x7f, &token[at..]) {
        let i = at + i;
        if token[i] == 0x7f || matches!(token.get(i + 1), Some(b'u' | b'/')) {
            return true;
        }
        at = i + 2;
        if at >= token.len() {
            return false;
        }
    }
    false
}

/// Appends a string as the engine writes it (jq's escapes): `"`, `\\`, `\b`, `\f`, `\n`,
/// `\r`, `\t`, the other control characters and DEL as `\u00xx`, the rest as it is.
fn write_string(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let mut from = 0;
    for (i, &b) in s.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0c => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f | 0x7f => b"",
            _ => continue,
        };
        out.extend_from_slice(&s[from..i]);
        if escape.is_empty() {
            out.extend_from_slice(format!("\\u{b:04x}").as_bytes());
        } else {
            out.extend_from_slice(escape);
        }
        from = i + 1;
    }
    out.extend_from_slice(&s[from..]);
    out.push(b'"');
}

/// A value of the text being rebuilt: its token (the opening bracket of a container), the
/// key it stands under in an object, and where the nodes after its own start.
struct Node {
    token: (usize, usize),
    key: Option<(usize, usize)>,
    container: Option<u8>,
    next: usize,
}

/// Appends `json` compact with each repeated key once, its last value where it first stood.
/// The text is read once into a flat list of its values, then written from the list; both
/// without recursion, so no depth of nesting can overflow the stack.
fn write_rebuilt(json: &str, out: &mut Vec<u8>) {
    let nodes = nodes_of(json);
    if nodes.is_empty() {
        return;
    }
    write_nodes(json, &nodes, out);
}

/// The values of `json` in text order, each container before its members.
fn nodes_of(json: &str) -> Vec<Node> {
    let bytes = json.as_bytes();
    let mut nodes: Vec<Node> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut key = None;
    let mut at_key = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' if at_key => {
                let (end, _) = string_end(bytes, i);
                key = Some((i, end));
                at_key = false;
                i = end;
                continue;
            }
            b'{' | b'[' => {
                open.push(nodes.len());
                nodes.push(Node {
                    token: (i, i + 1),
                    key: key.take(),
                    container: Some(if b == b'{' { b'}' } else { b']' }),
                    next: 0,
                });
                at_key = b == b'{';
            }
            b'}' | b']' => {
                if let Some(node) = open.pop() {
                    nodes[node].next = nodes.len();
                }
                at_key = false;
            }
            b',' => {
                at_key = open
                    .last()
                    .is_some_and(|&o| nodes[o].container == Some(b'}'))
            }
            b':' => {}
            b if b.is_ascii_whitespace() => {}
            _ => {
                let end = if b == b'"' {
                    string_end(bytes, i).0
                } else {
                    i + bytes[i..]
                        .iter()
                        .position(|&c| {
                            matches!(c, b',' | b':' | b'}' | b']') || c.is_ascii_whitespace()
                        })
                        .unwrap_or(bytes.len() - i)
                };
                nodes.push(Node {
                    token: (i, end),
                    key: key.take(),
                    container: None,
                    next: nodes.len() + 1,
                });
                i = end;
                continue;
            }
        }
        i += 1;
    }
    // Text cut short (never so after a JSON parser read it): what is open ends with it.
    for node in open {
        nodes[node].next = nodes.len();
    }
    nodes
}

/// Appends the value `nodes[0]` of `json` compact, each object's members as [`members`]
/// lists them.
fn write_nodes(json: &str, nodes: &[Node], out: &mut Vec<u8>) {
    let token = |(start, end): (usize, usize)| &json[start..end];
    // The containers being written, outermost first.
    let mut stack: Vec<Frame> = Vec::new();
    let mut value = Some(0);
    loop {
        if let Some(node) = value.take() {
            let n = &nodes[node];
            write_token(token(n.token), n.container.is_none(), out);
            if let Some(close) = n.container {
                stack.push(Frame {
                    members: members(nodes, node, json),
                    written: 0,
                    close,
                });
            }
        }
        let Some(frame) = stack.last_mut() else {
            break;
        };
        match frame.members.get(frame.written) {
            Some(&(key, node)) => {
                if frame.written > 0 {
                    out.push(b',');
                }
                frame.written += 1;
                if let Some(key) = key {
                    write_token(token(key), true, out);
                    out.push(b':');
                }
                value = Some(node);
            }
            None => {
                out.push(frame.close);
                stack.pop();
            }
        }
    }
}

/// A member of a container, to be written: its key's token (in an object) and the node of
/// its value.
type Member = (Option<(usize, usize)>, usize);

/// A container being written: its members, how many are written, its closing bracket.
struct Frame {
    members: Vec<Member>,
    written: usize,
    close: u8,
}

/// The members of the container `nodes[at]` as they are to be written: the key (in an
/// object) and the node of the value. In an object, a repeated key is written once, where it
/// first stood, with the last of its values.
fn members(nodes: &[Node], at: usize, json: &str) -> Vec<Member> {
    let mut children = Vec::new();
    let mut child = at + 1;
    while child < nodes[at].next && child < nodes.len() {
        children.push(child);
        // Always forward, whatever the text was.
        child = nodes[child].next.max(child + 1);
    }
    if nodes[at].container != Some(b'}') {
        return children.into_iter().map(|c| (None, c)).collect();
    }
    let keys: Vec<Cow<'_, str>> = children
        .iter()
        .map(|&c| match nodes[c].key {
            Some((start, end)) => {
                let token = &json[start..end];
                match token.contains('\\') {
                    true => serde_json::from_str::<String>(token)
                        .map_or(Cow::Borrowed(token), Cow::Owned),
                    false => Cow::Borrowed(token.get(1..token.len() - 1).unwrap_or(token)),
                }
            }
            None => Cow::Borrowed(""),
        })
        .collect();
    match last_of_each(&keys) {
        None => children.iter().map(|&c| (nodes[c].key, c)).collect(),
        Some(plan) => children
            .iter()
            .zip(plan)
            .filter_map(|(&c, value)| value.map(|v| (nodes[c].key, children[v])))
            .collect(),
    }
}

/// The index just past the string token that starts with the quote at `start`, and whether
/// the string has escapes.
#[inline]
fn string_end(bytes: &[u8], start: usize) -> (usize, bool) {
    match crate::input::json::string_body(&bytes[start + 1..]) {
        Some((body, escaped, _)) => (start + 1 + body.len() + 1, escaped),
        None => (bytes.len(), true),
    }
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
                Compact::default().write(v.text(), &mut s);
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
        Compact::default().write_raw(&Value::Raw(v), &mut out);
        assert_eq!(out, "line\nbreak é".as_bytes());
    }

    #[test]
    fn compact_keeps_spaces_inside_strings() {
        let mut out = Vec::new();
        Compact::default().write(r#"{ "a b" : "c \" d" , "e":[ 1 ] }"#, &mut out);
        assert_eq!(out, br#"{"a b":"c \" d","e":[1]}"#);
    }

    #[test]
    fn compact_writes_unicode_escapes_as_jq() {
        let mut out = Vec::new();
        Compact::default().write(r#"{"\u0074ype":"caf\u00e9 \u001b[0m \n"}"#, &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"type":"café \u001b[0m \n"}"#
        );
    }

    /// What the engine writes of the same text: `\/` as `/`, a raw DEL as `\u007f`, an
    /// upper-case `\u001B` in lower case; the escapes it writes itself as they are.
    #[test]
    fn compact_writes_strings_as_the_engine_does() {
        for (json, engine) in [
            (r#"{"s":"a\/b"}"#, r#"{"s":"a/b"}"#),
            (
                "{\"t\":\"\u{7f}\",\"\u{7f}\":1}",
                r#"{"t":"\u007f","\u007f":1}"#,
            ),
            (r#"["\u007F\u001B\u00e9"]"#, r#"["\u007f\u001bé"]"#),
            (
                r#"["\\u0041 \\/ \" \n \t \b \f \r \u0000"]"#,
                r#"["\\u0041 \\/ \" \n \t \b \f \r \u0000"]"#,
            ),
            (r#"{"a":1,"a":"x\/\u007f"}"#, r#"{"a":"x/\u007f"}"#),
        ] {
            assert_eq!(compact(json), engine, "{json}");
        }
    }

    fn compact(json: &str) -> String {
        let mut out = Vec::new();
        Compact::default().write(json, &mut out);
        String::from_utf8(out).unwrap()
    }

    /// As `jq -c` writes them.
    #[test]
    fn a_repeated_key_is_written_once_with_its_last_value_where_it_first_stood() {
        let cases = [
            (r#"{"a":1,"b":2,"a":3}"#, r#"{"a":3,"b":2}"#),
            (r#"{"k":1,"\u006b":2,"K":3}"#, r#"{"k":2,"K":3}"#),
            (r#"{"\u006b":1,"k":2}"#, r#"{"k":2}"#),
            (r#"{"t\u00e9":"x","té":"y"}"#, r#"{"té":"y"}"#),
            (
                r#"[{"a":{"b":1,"b":{"c":2,"c":3}}}, 1, "x"]"#,
                r#"[{"a":{"b":{"c":3}}},1,"x"]"#,
            ),
            (
                r#"{ "a" : [ 1 , 2 ] , "a" : { "b" : null } }"#,
                r#"{"a":{"b":null}}"#,
            ),
            (r#"{"a":{},"a":[]}"#, r#"{"a":[]}"#),
        ];
        for (json, jq) in cases {
            assert_eq!(compact(json), jq, "{json}");
        }
        // More keys than are told apart one by one.
        let keys: Vec<String> = (0..20).map(|i| format!(r#""k{i}":{i}"#)).collect();
        let json = format!(r#"{{{},"k5":"last"}}"#, keys.join(","));
        let expected = format!("{{{}}}", keys.join(",")).replace(r#""k5":5"#, r#""k5":"last""#);
        assert_eq!(compact(&json), expected);
        assert_eq!(get(".[]", &json).unwrap()[5], r#""last""#);
        assert_eq!(get(".[]", &json).unwrap().len(), 20);
        assert_eq!(
            get(".[]", r#"{"a":1,"b":2,"\u0061":3}"#).unwrap(),
            ["3", "2"]
        );
    }

    /// The rebuilding writes what the writing as is does, wherever no key repeats.
    #[test]
    fn rebuilding_without_repeats_writes_the_same_bytes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut lines = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let Ok(text) = std::fs::read_to_string(entry.unwrap().path()) else {
                continue;
            };
            for line in text.lines() {
                if serde_json::from_str::<&RawValue>(line).is_err() {
                    continue;
                }
                let (mut as_is, mut rebuilt) = (Vec::new(), Vec::new());
                if Compact::default().write_as_is(line, false, &mut as_is) {
                    write_rebuilt(line, &mut rebuilt);
                    assert_eq!(as_is, rebuilt, "{line}");
                    lines += 1;
                }
            }
        }
        assert!(lines > 50, "{lines}");
    }

    /// No depth of nesting overflows the stack, nor any text makes it panic.
    #[test]
    fn rebuilding_is_not_recursive_and_takes_any_text() {
        let depth = 200_000;
        let json = format!(
            r#"{}{{"k":1,"k":2}}{}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        let expected = format!(r#"{}{{"k":2}}{}"#, "[".repeat(depth), "]".repeat(depth));
        assert_eq!(compact(&json), expected);
        for cut in [
            r#"{"k":1,"k""#,
            r#"{"k":1,"k":"#,
            r#"{"k":[1,"k":2}"#,
            r#"]}"k":1,"k":2"#,
            r#"{"k\"#,
            r#"{"k":1,"\u006b"#,
            "",
            "{,,:}",
        ] {
            compact(cut);
        }
    }
}

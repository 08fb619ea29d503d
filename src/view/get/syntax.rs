//! jq syntax that jaq's parser does not read, rewritten into jq that it does, token by
//! token, before the program is compiled.
//!
//! jaq's lexer gives the token tree (strings, blocks); this module walks it and writes the
//! program back, its text kept between tokens, with these changes:
//!
//! - destructuring alternatives, `E as P1 ?// P2 | BODY`: jq tries each pattern in turn and
//!   goes on to the next when the pattern *or the body* raises an error, the last one's error
//!   being the program's; every variable of every pattern is bound, null where its pattern
//!   has none. Written `E as $alt | null as $v … | try ($alt as P1 | BODY) catch ($alt as P2
//!   | BODY)`, which is that, one `try` per alternative but the last.
//! - `{$name: P}` in a pattern (bind `$name` to `.name` and destructure it by `P`):
//!   `{$name, name: P}`.
//! - `reduce A / B as $x (…)` and `foreach`: jq's source expression runs to the `as`;
//!   jaq's is one term. The expression is put in parentheses.
//! - `.5`: a number in jq, `0.5`.
//! - `$__loc__`: the object `{file: "<top-level>", line: N}` jq gives, N the line it is on.
//!
//! and one check jq makes while compiling: an object key that is a constant of another type
//! than string (`{(0): 1}`) is refused, with jq's words.
//!
//! A program with none of these is left as it is (its text, so its error positions, unchanged).

use jaq_core::load::lex::{StrPart, Tok, Token};
use jaq_core::load::{Lexer, span};

/// What surrounds a run of tokens: the kind of block they are in.
#[derive(Clone, Copy, PartialEq)]
enum Around {
    /// The program itself, or parentheses.
    Plain,
    /// `[…]`.
    Array,
    /// `{…}`.
    Object,
}

/// A constant object key jq refuses: where it is (a byte range of the program), and why.
pub(crate) type Refusal = (std::ops::Range<usize>, String);

/// The program rewritten as jaq reads it, or `None` when it needs no change (or does not
/// lex: jaq's parser then says why).
pub(crate) fn rewrite(code: &str) -> Result<Option<Rewritten>, Refusal> {
    let Ok(tokens) = Lexer::new(code).lex() else {
        return Ok(None);
    };
    let mut writer = Writer {
        code,
        out: String::with_capacity(code.len() + 64),
        places: Vec::new(),
        fresh: 0,
    };
    writer.copy(0..tokens.first().map_or(0, |t| span(code, t.0).start));
    writer.run(&tokens, Around::Plain, false)?;
    writer.copy(tokens.last().map_or(0, |t| end(code, t))..code.len());
    Ok((writer.out != code).then_some(Rewritten {
        text: writer.out,
        places: writer.places,
    }))
}

/// A program rewritten, and where each part of it copied from the program as written.
#[derive(Debug)]
pub(crate) struct Rewritten {
    /// The program as jaq reads it.
    pub(crate) text: String,
    /// Each run of copied text: its start in `text`, its place in the program as written.
    places: Vec<(usize, std::ops::Range<usize>)>,
}

impl Rewritten {
    /// Where the byte range `at` of the rewritten text was in the program as written: in
    /// copied text, the same characters; in added text, the copied text before it.
    pub(crate) fn original(&self, at: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let place = |pos: usize| {
            let i = self.places.partition_point(|(start, _)| *start <= pos);
            self.places
                .get(i.wrapping_sub(1))
                .map_or(0, |(start, from)| {
                    (from.start + (pos - start)).min(from.end)
                })
        };
        let start = place(at.start);
        start..place(at.end).max(start)
    }
}

fn end(code: &str, t: &Token<&str>) -> usize {
    span(code, t.0).end
}

fn is_sym(t: &Token<&str>, s: &str) -> bool {
    matches!(t.1, Tok::Sym) && t.0 == s
}

fn is_word(t: &Token<&str>, w: &str) -> bool {
    matches!(t.1, Tok::Word) && t.0 == w
}

/// Writes tokens back as text, with the rewrites.
struct Writer<'a> {
    code: &'a str,
    out: String,
    /// See [`Rewritten::places`].
    places: Vec<(usize, std::ops::Range<usize>)>,
    /// The number of the next variable this module makes.
    fresh: usize,
}

impl<'a> Writer<'a> {
    /// Writes the program's text at `at` as it is.
    fn copy(&mut self, at: std::ops::Range<usize>) {
        if !at.is_empty() {
            self.places.push((self.out.len(), at.clone()));
            self.out.push_str(&self.code[at]);
        }
    }

    /// Writes `ts` (one level of the tree), each followed by the text before the next one.
    fn run(&mut self, ts: &[Token<&'a str>], around: Around, pattern: bool) -> Result<(), Refusal> {
        let mut i = 0;
        while i < ts.len() {
            let next = match &ts[i] {
                t if is_word(t, "reduce") || is_word(t, "foreach") => self.fold(ts, i)?,
                t if is_word(t, "as") => self.bind(ts, i)?,
                _ => {
                    self.check_key(ts, i, around)?;
                    self.one(ts, i, around, pattern)?;
                    i + 1
                }
            };
            self.gap(ts, next - 1);
            i = next;
        }
        Ok(())
    }

    /// Writes `ts[from..to]` with the text between them, not after the last.
    fn range(
        &mut self,
        ts: &[Token<&'a str>],
        from: usize,
        to: usize,
        pattern: bool,
    ) -> Result<(), Refusal> {
        self.run(&ts[from..to], Around::Plain, pattern)
    }

    /// The text between `ts[i]` and `ts[i + 1]` (comments, spaces).
    fn gap(&mut self, ts: &[Token<&'a str>], i: usize) {
        if let Some(next) = ts.get(i + 1) {
            let from = end(self.code, &ts[i]);
            let to = span(self.code, next.0).start;
            self.copy(from..to);
        }
    }

    /// Writes the single token `ts[i]`.
    fn one(
        &mut self,
        ts: &[Token<&'a str>],
        i: usize,
        around: Around,
        pattern: bool,
    ) -> Result<(), Refusal> {
        let t = &ts[i];
        match &t.1 {
            Tok::Block(inner) => self.block(t, inner, pattern),
            Tok::Str(parts) => self.string(t, parts),
            Tok::Var if t.0 == "$__loc__" && !pattern => {
                let line = self.code[..span(self.code, t.0).start]
                    .matches('\n')
                    .count()
                    + 1;
                let loc = format!("{{\"file\": \"<top-level>\", \"line\": {line}}}");
                let entry = around == Around::Object
                    && (i == 0 || is_sym(&ts[i - 1], ","))
                    && ts
                        .get(i + 1)
                        .is_some_and(|n| is_sym(n, ",") || is_sym(n, "}"));
                if entry {
                    self.out.push_str(&format!("\"__loc__\": {loc}"));
                } else {
                    self.out.push_str(&format!("({loc})"));
                }
                Ok(())
            }
            Tok::Var
                if pattern
                    && around == Around::Object
                    && ts.get(i + 1).is_some_and(|n| is_sym(n, ":")) =>
            {
                self.copy(span(self.code, t.0));
                self.out.push_str(&format!(", {}", &t.0[1..]));
                Ok(())
            }
            Tok::Sym if t.0 == "." && self.number_follows(ts, i) => {
                self.out.push('0');
                self.copy(span(self.code, t.0));
                Ok(())
            }
            _ => {
                self.copy(span(self.code, t.0));
                Ok(())
            }
        }
    }

    /// Whether `ts[i]` (a `.`) is the start of a number written without its 0 (`.5`).
    fn number_follows(&self, ts: &[Token<&'a str>], i: usize) -> bool {
        ts.get(i + 1).is_some_and(|n| {
            matches!(n.1, Tok::Num) && span(self.code, n.0).start == end(self.code, &ts[i])
        })
    }

    fn block(
        &mut self,
        t: &Token<&'a str>,
        inner: &[Token<&'a str>],
        pattern: bool,
    ) -> Result<(), Refusal> {
        let open = &t.0[..1];
        let (around, pattern) = match open {
            "[" => (Around::Array, pattern),
            "{" => (Around::Object, pattern),
            // A key expression in a pattern, `{(…): $x}`, is not a pattern.
            _ => (Around::Plain, false),
        };
        let start = span(self.code, t.0).start;
        let first = inner
            .first()
            .map_or(end(self.code, t), |f| span(self.code, f.0).start);
        self.copy(start..first);
        self.run(inner, around, pattern)
    }

    /// A string, its interpolations (`\(…)`) written as programs.
    fn string(
        &mut self,
        t: &Token<&'a str>,
        parts: &[StrPart<&'a str, Token<&'a str>>],
    ) -> Result<(), Refusal> {
        let mut at = span(self.code, t.0).start;
        for part in parts {
            if let StrPart::Term(term) = part {
                let place = span(self.code, term.0);
                self.copy(at..place.start);
                if let Tok::Block(inner) = &term.1 {
                    self.block(term, inner, false)?;
                }
                at = place.end;
            }
        }
        self.copy(at..end(self.code, t));
        Ok(())
    }

    /// `reduce`/`foreach` at `ts[i]`: its source in parentheses when it is more than one
    /// token, its patterns written as patterns. Returns the index after the patterns.
    fn fold(&mut self, ts: &[Token<&'a str>], i: usize) -> Result<usize, Refusal> {
        self.copy(span(self.code, ts[i].0));
        let Some(at) = matching_as(ts, i) else {
            return Ok(i + 1);
        };
        self.gap(ts, i);
        // One term (`.[]`, `$x.a[0]?`) is read by jaq; an operator between terms is not.
        let wrap = ts[i + 1..at].iter().any(|t| match t.1 {
            Tok::Sym => !(t.0.starts_with('.') || t.0 == "?"),
            Tok::Word => t.0 == "and" || t.0 == "or",
            _ => false,
        });
        if wrap {
            self.out.push('(');
        }
        self.range(ts, i + 1, at, false)?;
        if wrap {
            self.out.push(')');
        }
        self.gap(ts, at - 1);
        self.copy(span(self.code, ts[at].0));
        // The patterns run to the block of the fold's arguments.
        let args = (at + 1..ts.len())
            .find(|&k| matches!(ts[k].1, Tok::Block(_)) && ts[k].0.starts_with('('));
        let Some(args) = args.filter(|&k| k > at + 1) else {
            return Ok(at + 1);
        };
        self.gap(ts, at);
        self.range(ts, at + 1, args, true)?;
        Ok(args)
    }

    /// `as` at `ts[i]` followed by patterns and `|`. Returns the index after what it wrote.
    fn bind(&mut self, ts: &[Token<&'a str>], i: usize) -> Result<usize, Refusal> {
        self.copy(span(self.code, ts[i].0));
        // Patterns are variables, `[…]` and `{…}`, joined by `?//`; then comes the `|`.
        let pattern = |t: &Token<&str>| match t.1 {
            Tok::Var => true,
            Tok::Block(_) => !t.0.starts_with('('),
            _ => is_sym(t, "?") || is_sym(t, "//"),
        };
        let bar = (i + 1..ts.len()).find(|&k| !pattern(&ts[k]));
        let Some(bar) = bar.filter(|&k| k > i + 1 && is_sym(&ts[k], "|")) else {
            return Ok(i + 1);
        };
        let alternatives = split_alternatives(ts, i + 1, bar);
        self.gap(ts, i);
        if alternatives.len() < 2 {
            self.range(ts, i + 1, bar, true)?;
            return Ok(bar);
        }
        let body = (bar + 1, body_end(ts, bar + 1));
        let alt = format!("$__cs_alt{}", self.fresh);
        self.fresh += 1;
        self.out.push_str(&format!("{alt} | "));
        let mut names: Vec<&str> = Vec::new();
        for t in &ts[i + 1..bar] {
            variables(t, &mut names);
        }
        for name in &names {
            self.out.push_str(&format!("null as {name} | "));
        }
        let last = alternatives.len() - 1;
        for (k, (from, to)) in alternatives.iter().enumerate() {
            let open = if k < last { "try (" } else { "(" };
            self.out.push_str(&format!("{open}{alt} as "));
            self.range(ts, *from, *to, true)?;
            self.out.push_str(" | ");
            self.range(ts, body.0, body.1, false)?;
            self.out.push_str(if k < last { ") catch " } else { ")" });
        }
        Ok(body.1)
    }

    /// jq refuses an object key that is a constant other than a string: `{(0): 1}`.
    fn check_key(&self, ts: &[Token<&'a str>], i: usize, around: Around) -> Result<(), Refusal> {
        let Tok::Block(inner) = &ts[i].1 else {
            return Ok(());
        };
        let entry = around == Around::Object && (i == 0 || is_sym(&ts[i - 1], ","));
        let keyed = ts.get(i + 1).is_some_and(|n| is_sym(n, ":"));
        if !(entry && keyed && ts[i].0.starts_with('(') && inner.len() == 2) {
            return Ok(());
        }
        let kind = match &inner[0] {
            t if matches!(t.1, Tok::Num) => "number",
            t if is_word(t, "true") || is_word(t, "false") => "boolean",
            t if is_word(t, "null") => "null",
            _ => return Ok(()),
        };
        let key = inner[0].0;
        Err((
            span(self.code, key),
            format!("Cannot use {kind} ({key}) as object key"),
        ))
    }
}

/// The `as` of the `reduce`/`foreach` at `ts[i]`: the first one at this level not taken
/// by a `reduce`/`foreach` inside its source.
fn matching_as(ts: &[Token<&str>], i: usize) -> Option<usize> {
    let mut open = 0usize;
    for (k, t) in ts.iter().enumerate().skip(i + 1) {
        if is_word(t, "reduce") || is_word(t, "foreach") {
            open += 1;
        } else if is_word(t, "as") {
            if open == 0 {
                return Some(k);
            }
            open -= 1;
        }
    }
    None
}

/// The patterns between `from` and `to`, split at `?//` (lexed as `?` then `//`).
fn split_alternatives(ts: &[Token<&str>], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = from;
    let mut k = from;
    while k + 1 < to {
        if is_sym(&ts[k], "?") && is_sym(&ts[k + 1], "//") {
            out.push((start, k));
            start = k + 2;
            k += 2;
        } else {
            k += 1;
        }
    }
    out.push((start, to));
    out
}

/// Where the body of `E as P | BODY` that starts at `from` ends: at the first `;`, `then`,
/// `elif`, `else`, `end`, `catch` or closing bracket of this level that belongs to no
/// `def`, `if` or `try` inside the body.
fn body_end(ts: &[Token<&str>], from: usize) -> usize {
    let (mut ifs, mut defs, mut tries) = (0usize, 0usize, 0usize);
    for (k, t) in ts.iter().enumerate().skip(from) {
        match t.1 {
            Tok::Word => match t.0 {
                "if" => ifs += 1,
                "def" => defs += 1,
                "try" => tries += 1,
                "end" if ifs > 0 => ifs -= 1,
                "catch" if tries > 0 => tries -= 1,
                "then" | "elif" | "else" if ifs > 0 => {}
                "then" | "elif" | "else" | "end" | "catch" => return k,
                _ => {}
            },
            Tok::Sym => match t.0 {
                ";" if defs > 0 => defs -= 1,
                ";" | ")" | "]" | "}" => return k,
                _ => {}
            },
            _ => {}
        }
    }
    ts.len()
}

/// The variables a pattern binds, in order, each once (not those in a key expression).
fn variables<'a>(t: &Token<&'a str>, names: &mut Vec<&'a str>) {
    match &t.1 {
        Tok::Var if !names.contains(&t.0) => names.push(t.0),
        Tok::Block(inner) if !t.0.starts_with('(') => {
            for t in inner {
                variables(t, names);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    fn written(code: &str) -> String {
        rewrite(code)
            .unwrap()
            .map_or_else(|| code.to_owned(), |r| r.text)
    }

    #[test]
    fn a_program_without_jq_only_syntax_is_left_as_it_is() {
        for code in [
            ".a | .b",
            "reduce .[] as $x (0; . + $x)",
            ". as [$a, {b: $c}] | $a",
            "# c\n.x",
        ] {
            assert!(rewrite(code).unwrap().is_none(), "{code}");
        }
    }

    #[test]
    fn alternatives_become_nested_tries_with_every_variable_bound() {
        assert_eq!(
            written(". as [$a] ?// $b | [$a, $b]"),
            ". as $__cs_alt0 | null as $a | null as $b | \
             try ($__cs_alt0 as [$a] | [$a, $b]) catch ($__cs_alt0 as $b | [$a, $b])"
        );
        // The body ends where its level ends, and at `;` unless a `def` in it takes it.
        assert_eq!(
            written("[. as [$a] ?// $a | def f: $a; f], 1"),
            "[. as $__cs_alt0 | null as $a | try ($__cs_alt0 as [$a] | def f: $a; f) \
             catch ($__cs_alt0 as $a | def f: $a; f)], 1"
        );
        assert_eq!(
            written("if . as [$a] ?// $a | $a then 1 else 2 end"),
            "if . as $__cs_alt0 | null as $a | try ($__cs_alt0 as [$a] | $a) catch \
             ($__cs_alt0 as $a | $a) then 1 else 2 end"
        );
    }

    #[test]
    fn the_other_forms_are_written_as_jaq_reads_them() {
        assert_eq!(
            written(". as {$a, $b: [$c]} | $b"),
            ". as {$a, $b, b: [$c]} | $b"
        );
        assert_eq!(
            written("reduce .[] / .[] as $i (0; . + $i)"),
            "reduce (.[] / .[]) as $i (0; . + $i)"
        );
        assert_eq!(written("select(. > .5)"), "select(. > 0.5)");
        assert_eq!(written("\"\\(.5)\""), "\"\\(0.5)\"");
        assert_eq!(
            written("{a,\n $__loc__}"),
            "{a,\n \"__loc__\": {\"file\": \"<top-level>\", \"line\": 2}}"
        );
        assert_eq!(
            written("$__loc__.line"),
            "({\"file\": \"<top-level>\", \"line\": 1}).line"
        );
    }

    #[test]
    fn a_constant_key_of_another_type_than_string_is_refused_as_jq_refuses_it() {
        let (at, why) = rewrite("{non_const: ., (0): 1}").unwrap_err();
        assert_eq!(
            (at, why.as_str()),
            (16..17, "Cannot use number (0) as object key")
        );
        assert!(rewrite(". as {(true): $foo} | $foo").is_err());
        assert!(rewrite("{(\"a\"): 1, (.b): 2}").unwrap().is_none());
    }
}

//! A program that starts by selecting events on their `type` and `subtype` —
//! `select(.type == "tool_call") | …` — has that test read off the peek: a line it rejects
//! is never parsed. On the lines that pass, the whole program runs on the engine (or, when
//! what follows the `select` is only paths, those walk the raw text), so the test decides
//! nothing the engine would not: on an event line (a JSON object whose `type` is a string,
//! as the peek read it) `.type == "s"` is what the peek says. A line it rejects is not
//! checked either: a broken one is not reported, as the engine would.
//!
//! Recognised (anything else runs on the engine alone): `select(COND)` alone or followed by
//! `|`, where COND is made of `.type` or `.subtype` compared with `==` or `!=` to a string
//! literal (either side), `and`, `or`, parentheses, `.type | IN("a", "b")` as a whole
//! condition, and `IN(.type; "a", "b")`.

/// A test on an event's `type` and `subtype`.
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
    fn and_binds_tighter_than_or() {
        let p = r#"select(.type=="a" or .type=="b" and .subtype=="x")"#;
        assert_eq!(test(p, "a", None), Some(true));
        assert_eq!(test(p, "b", None), Some(false));
        assert_eq!(test(p, "b", Some("x")), Some(true));
    }
}

//! Untrusted text made safe for the page it lands in: control characters made visible,
//! HTML and Markdown escaping, code fences that no content can close, and cutting long
//! text to a budget.

use std::borrow::Cow;
use std::fmt::Write as _;

/// The text with every character that could act on a terminal or reorder what is shown
/// replaced by a visible stand-in: C0 controls but newline and tab become their Unicode
/// control pictures (`␛` for ESC), DEL `␡`, C1 controls and bidirectional overrides
/// `<U+202E>`. A `\r` before `\n` is dropped (CRLF output reads as lines).
pub(crate) fn visible(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_picture) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if !needs_picture(c) {
            out.push(c);
        } else if c == '\r' && chars.peek() == Some(&'\n') {
            // CRLF: the newline that follows is kept.
        } else if (c as u32) < 0x20 {
            out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?'));
        } else if c == '\x7f' {
            out.push('␡');
        } else {
            let _ = write!(out, "<U+{:04X}>", c as u32);
        }
    }
    Cow::Owned(out)
}

fn needs_picture(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}')
}

/// `s` on one line: newlines and tabs as spaces, and every other control visible.
pub(crate) fn one_line(s: &str) -> String {
    visible(s)
        .chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .collect()
}

/// Escapes text for HTML element content and quoted attribute values.
pub(crate) fn html(out: &mut String, s: &str) {
    let mut last = 0;
    for (i, b) in s.bytes().enumerate() {
        let rep = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            b'\'' => "&#39;",
            _ => continue,
        };
        out.push_str(&s[last..i]);
        out.push_str(rep);
        last = i + 1;
    }
    out.push_str(&s[last..]);
}

/// Escapes text for Markdown inline content: on one line, every character Markdown or
/// HTML could read as syntax escaped with a backslash.
pub(crate) fn markdown_inline(out: &mut String, s: &str) {
    for c in one_line(s).chars() {
        // `-`, `+` and `:` need no escape in the middle of a line (lists start a line);
        // `$` does: GitHub reads `$…$` as math.
        if matches!(
            c,
            '\\' | '`'
                | '*'
                | '_'
                | '{'
                | '}'
                | '['
                | ']'
                | '('
                | ')'
                | '<'
                | '>'
                | '#'
                | '!'
                | '|'
                | '~'
                | '&'
                | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
}

/// A code fence for `content` that no line of it can close: one backtick longer than the
/// longest run of backticks in it, and at least three.
pub(crate) fn fence(content: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for b in content.bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// What was left out of a cut text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Cut {
    pub lines: usize,
    pub bytes: usize,
}

/// The first `max_lines` lines of `s`, at most `max_bytes` of them (never inside a
/// character), and what was left out.
pub(crate) fn cut(s: &str, max_lines: usize, max_bytes: usize) -> (&str, Option<Cut>) {
    let mut end = s.len();
    if let Some((i, _)) = s.match_indices('\n').nth(max_lines.saturating_sub(1)) {
        // A last line with nothing after its newline is not cut.
        if i + 1 < s.len() {
            end = i + 1;
        }
    }
    if max_lines == 0 {
        end = 0;
    }
    if end > max_bytes {
        end = max_bytes;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
    }
    if end == s.len() {
        return (s, None);
    }
    let rest = &s[end..];
    // A cut inside a line leaves its end: that line counts as cut too.
    let cut = Cut {
        lines: rest.lines().count().max(1),
        bytes: rest.len(),
    };
    (&s[..end], Some(cut))
}

/// `1.2 KiB`, `3.4 MiB`.
pub(crate) fn size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes} B")
    } else if b < KIB * KIB {
        format!("{:.1} KiB", b / KIB)
    } else {
        format!("{:.1} MiB", b / (KIB * KIB))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_become_visible() {
        assert_eq!(visible("a\x1b[31mred\x07"), "a␛[31mred␇");
        assert_eq!(visible("line\r\nnext\rx"), "line\nnext␍x");
        assert_eq!(visible("ab\u{202e}cd\u{9b}"), "ab<U+202E>cd<U+009B>");
        assert!(matches!(visible("plain\ttext\n"), Cow::Borrowed(_)));
    }

    #[test]
    fn html_escapes_every_markup_character() {
        let mut s = String::new();
        html(&mut s, r#"<img src=x onerror="a('b')">&"#);
        assert_eq!(
            s,
            "&lt;img src=x onerror=&quot;a(&#39;b&#39;)&quot;&gt;&amp;"
        );
    }

    #[test]
    fn markdown_inline_leaves_no_syntax() {
        let mut s = String::new();
        markdown_inline(&mut s, "*a* <b>\n[x](javascript:y)");
        assert_eq!(s, r"\*a\* \<b\> \[x\]\(javascript:y\)");
    }

    #[test]
    fn fences_outgrow_the_content() {
        assert_eq!(fence("plain"), "```");
        assert_eq!(fence("```\nx\n````"), "`````");
    }

    #[test]
    fn cuts_by_lines_and_bytes_on_char_boundaries() {
        assert_eq!(
            cut("a\nb\nc\n", 2, 100),
            ("a\nb\n", Some(Cut { lines: 1, bytes: 2 }))
        );
        assert_eq!(cut("a\nb\n", 2, 100), ("a\nb\n", None));
        assert_eq!(cut("a\nb", 2, 100), ("a\nb", None));
        let (kept, rest) = cut("ééé", 10, 3);
        assert_eq!(kept, "é");
        assert_eq!(rest, Some(Cut { lines: 1, bytes: 4 }));
        assert_eq!(cut("abc", 0, 10), ("", Some(Cut { lines: 1, bytes: 3 })));
    }
}

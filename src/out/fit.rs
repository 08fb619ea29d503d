//! Fitting text to a terminal's width: how wide text is on screen, and shortening it
//! without losing the part a reader needs — a path keeps its file name, a command its
//! start — never splitting a character.
//!
//! Widths are display columns (`unicode-width`) of grapheme clusters
//! (`unicode-segmentation`): a CJK character or an emoji (`❤️`, a ZWJ family, a flag) takes
//! two, a combining mark none — and every function here measures the same way, so a cut is
//! never wider than asked and never splits what a terminal draws as one character. Only the human views on a terminal are fitted; piped output is
//! written whole, so `less -S`, grep and scripts see every value.

use std::borrow::Cow;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// The mark of an elision.
const ELLIPSIS: char = '…';

/// The terminal's width in columns, read once: `COLUMNS` when it holds a number (a user who
/// sets it means it), else the size of whichever of stdout and stderr is a terminal, else
/// 80.
pub(crate) fn terminal_columns() -> usize {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
    {
        return n;
    }
    terminal_size::terminal_size_of(std::io::stdout())
        .or_else(|| terminal_size::terminal_size_of(std::io::stderr()))
        .map_or(80, |(w, _)| usize::from(w.0).max(1))
}

/// Columns `s` takes on a terminal.
pub(crate) fn width(s: &str) -> usize {
    if printable_ascii(s) {
        return s.len();
    }
    s.graphemes(true).map(UnicodeWidthStr::width).sum()
}

/// Whether each byte of `s` is a character one column wide (the common case, measured
/// without segmenting).
fn printable_ascii(s: &str) -> bool {
    s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// The longest start of `s` at most `max` columns wide.
fn head(s: &str, max: usize) -> &str {
    if printable_ascii(s) {
        return &s[..max.min(s.len())];
    }
    let mut used = 0;
    for (i, g) in s.grapheme_indices(true) {
        used += g.width();
        if used > max {
            return &s[..i];
        }
    }
    s
}

/// The longest end of `s` at most `max` columns wide.
fn tail(s: &str, max: usize) -> &str {
    if printable_ascii(s) {
        return &s[s.len() - max.min(s.len())..];
    }
    let mut used = 0;
    for (i, g) in s.grapheme_indices(true).rev() {
        used += g.width();
        if used > max {
            return &s[i + g.len()..];
        }
    }
    s
}

/// `s` cut at the end to `max` columns, `…` last when anything was cut.
pub(crate) fn cut_end(s: &str, max: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let mut out = head(s, max - 1).to_string();
    out.push(ELLIPSIS);
    Cow::Owned(out)
}

/// `s` in at most `max` columns, its middle replaced by `…`: `head_percent` of the room goes
/// to the start, the rest (and whatever a wide character left over) to the end.
fn elide(s: &str, max: usize, head_percent: usize) -> Cow<'_, str> {
    if width(s) <= max {
        return Cow::Borrowed(s);
    }
    if max == 0 {
        return Cow::Borrowed("");
    }
    let room = max - 1;
    let start = head(s, room * head_percent / 100);
    let end = tail(&s[start.len()..], room.saturating_sub(width(start)));
    Cow::Owned(format!("{start}{ELLIPSIS}{end}"))
}

/// A command in at most `max` columns: its start kept (what runs, with which options), its
/// middle elided, a little of its end kept.
pub(crate) fn elide_command(s: &str, max: usize) -> Cow<'_, str> {
    elide(s, max, 66)
}

/// Any other value in at most `max` columns: as much of its start as of its end.
pub(crate) fn elide_middle(s: &str, max: usize) -> Cow<'_, str> {
    elide(s, max, 50)
}

fn is_separator(c: char) -> bool {
    c == '/' || c == '\\'
}

/// Where a path's root ends: `/`, `\\`, `D:\`, `D:`, `\\server\share\`; 0 for a relative
/// path.
fn root_len(path: &str) -> usize {
    let b = path.as_bytes();
    if b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':' {
        return if b.get(2).is_some_and(|&c| c == b'/' || c == b'\\') {
            3
        } else {
            2
        };
    }
    if let Some(unc) = path.strip_prefix("\\\\") {
        // UNC: `\\server\share\` is the root.
        let mut seps = unc.match_indices(is_separator);
        return match (seps.next(), seps.next()) {
            (Some(_), Some((i, _))) => 2 + i + 1,
            _ => path.len(),
        };
    }
    path.len() - path.trim_start_matches(is_separator).len()
}

/// A path in at most `max` columns, keeping what tells the file: its root and as many of
/// its last components as fit, the file name always (`D:\…\roof\Calculator.vue`). A file
/// name wider than the room keeps its end (the extension).
pub(crate) fn elide_path(path: &str, max: usize) -> Cow<'_, str> {
    if width(path) <= max {
        return Cow::Borrowed(path);
    }
    let root = &path[..root_len(path)];
    let rest = &path[root.len()..];
    // The separator the path itself uses goes after the ellipsis.
    let sep = rest.chars().find(|&c| is_separator(c)).unwrap_or('/');
    let name_at = rest.rfind(is_separator).map_or(0, |i| i + 1);
    if name_at == 0 {
        return elide(path, max, 50);
    }
    // From the file name leftwards, whole components while they fit after `root…\`.
    let room = |prefix: &str| max.saturating_sub(width(prefix) + 1 + sep.len_utf8());
    for prefix in [root, ""] {
        let room = room(prefix);
        let mut start = name_at;
        if width(&rest[start..]) > room {
            continue;
        }
        while let Some(i) = rest[..start.saturating_sub(1)].rfind(is_separator) {
            if width(&rest[i + 1..]) > room {
                break;
            }
            start = i + 1;
        }
        let short = format!("{prefix}{ELLIPSIS}{sep}{}", &rest[start..]);
        // The marks alone may be wider than a tiny room (`/…/` in 1 column).
        if width(&short) <= max {
            return Cow::Owned(short);
        }
    }
    elide(&rest[name_at..], max, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_count_columns_not_bytes() {
        assert_eq!(width("abc"), 3);
        assert_eq!(width("é"), 1);
        assert_eq!(width("日本"), 4);
        assert_eq!(width("e\u{301}"), 1, "a combining accent takes no column");
    }

    #[test]
    fn nothing_is_cut_when_it_fits_exactly() {
        assert_eq!(cut_end("abcdef", 6), "abcdef");
        assert_eq!(elide_command("abcdef", 6), "abcdef");
        assert_eq!(elide_path("/a/b/c.rs", 9), "/a/b/c.rs");
        assert_eq!(elide_middle("日本語", 6), "日本語");
    }

    #[test]
    fn cut_at_the_end_one_column_short() {
        assert_eq!(cut_end("abcdef", 5), "abcd…");
        assert_eq!(cut_end("abcdef", 1), "…");
        assert_eq!(cut_end("abcdef", 0), "");
        // A wide character that does not fit whole is left out, not split.
        assert_eq!(cut_end("ab日本", 4), "ab…");
        assert_eq!(width(&cut_end("ab日本", 4)), 3);
    }

    #[test]
    fn commands_keep_their_start_and_never_split_a_character() {
        let cmd = "cargo test --workspace --all-features -- --nocapture";
        let short = elide_command(cmd, 30);
        assert_eq!(width(&short), 30);
        assert!(short.starts_with("cargo test --works"), "{short}");
        assert!(short.ends_with("apture"), "{short}");
        // Multi-byte characters on either side of the cut stay whole.
        let s = "échoé ééééé ééééé ééééé";
        for max in 1..width(s) {
            let e = elide_command(s, max);
            assert!(width(&e) <= max, "{e} in {max}");
            assert!(e.contains('…'));
        }
        // Wide characters count two columns each.
        let wide = "echo 日本語のテキストです";
        for max in 1..width(wide) {
            assert!(width(&elide_command(wide, max)) <= max, "{max}");
        }
        assert_eq!(elide_command("日本語", 4), "…語");
    }

    #[test]
    fn emoji_sequences_are_measured_and_cut_whole() {
        let heart = "\u{2764}\u{fe0f}";
        let family = "\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}";
        let flag = "\u{1f1eb}\u{1f1f7}";
        for s in [
            format!("echo {}", heart.repeat(30)),
            format!("{family}{family} x {flag}{flag}{flag} é\u{301}日本"),
            format!("/home/{heart}/{family}/{flag}.txt"),
        ] {
            for max in 0..=width(&s) + 1 {
                for cut in [
                    cut_end(&s, max),
                    elide_command(&s, max),
                    elide_middle(&s, max),
                    elide_path(&s, max),
                ] {
                    assert!(width(&cut) <= max, "{cut:?} in {max}");
                    // No cluster is split: what is kept is made of the input's clusters.
                    for g in cut.graphemes(true).filter(|g| *g != "…") {
                        assert!(s.contains(g), "{g:?} split from {s:?}");
                    }
                }
            }
        }
        assert_eq!(width(heart), 2);
        assert_eq!(width(family), 2);
    }

    #[test]
    fn paths_keep_the_file_name_and_the_root() {
        let p = r"D:\Downloads\Skill-Evaluation-Lab\.worktrees\run-0024\components\roof\RoofQuickLinearCalculator.vue";
        assert_eq!(
            elide_path(p, 52),
            r"D:\…\components\roof\RoofQuickLinearCalculator.vue"
        );
        assert_eq!(
            elide_path(p, 40),
            r"D:\…\roof\RoofQuickLinearCalculator.vue"
        );
        assert_eq!(elide_path(p, 34), r"D:\…\RoofQuickLinearCalculator.vue");
        assert_eq!(elide_path(p, 32), r"…\RoofQuickLinearCalculator.vue");
        assert_eq!(elide_path(p, 12), "…culator.vue");
        assert_eq!(
            elide_path("/home/dev/shop/src/cart/checkout.rs", 24),
            "/…/src/cart/checkout.rs"
        );
        assert_eq!(
            elide_path(r"\\server\share\team\docs\plan.md", 25),
            r"\\server\share\…\plan.md"
        );
        // Relative paths and mixed separators.
        assert_eq!(
            elide_path("src/view/deeply/nested/words.rs", 20),
            "…/nested/words.rs"
        );
        assert_eq!(elide_path(r"D:/a\bbbbbbbb\c.txt", 12), r"D:/…\c.txt");
        // Whatever the width, never wider than asked.
        for max in 0..4 {
            assert!(width(&elide_path("/home/dev/shop/", max)) <= max, "{max}");
        }
        for max in 0..p.len() {
            assert!(width(&elide_path(p, max)) <= max, "{max}");
        }
        let wide = "/家/ドキュメント/プロジェクト/設計書.md";
        for max in 0..width(wide) {
            assert!(width(&elide_path(wide, max)) <= max, "{max}");
        }
    }
}

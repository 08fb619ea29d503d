//! What several dialects read alike: a terminal event that cannot be read, an error
//! object read for its `message`, the user's words inside what an agent wrapped them in.

use serde::Deserialize;

use super::Sink;
use super::event::{Agent, Outcome, RunEnd};
use crate::input::json::MaybeStr;

/// A terminal event that could not be read ends the run all the same (one is opened for
/// it if none is), as unreadable.
pub(crate) fn end_unreadable<S: Sink>(agent: Agent, sink: &mut S) -> anyhow::Result<()> {
    sink.ensure_run(agent)?;
    sink.end_run(RunEnd {
        outcome: Outcome::Unreadable,
        ..RunEnd::unfinished()
    })
}

/// An error object read for its message, `{"message":"…"}` (Claude's and Qwen's
/// `result.error`, Codex's `turn.failed` and failed items).
#[derive(Deserialize, Default)]
pub(crate) struct ErrorMessage<'a> {
    #[serde(borrow, default)]
    pub message: MaybeStr<'a>,
}

/// The text of the first `<name>…</name>` element in `text` (the tags agents wrap a
/// prompt's parts in), when it has one.
pub(crate) fn element<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let (start, end) = element_at(text, name)?;
    let open = text[start..].find('>')? + start + 1;
    // `<a </a>` has no content: its `>` is the end tag's.
    text.get(open..end - name.len() - 3)
}

/// Where the first `<name …>…</name>` element of `text` starts and ends.
fn element_at(text: &str, name: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    loop {
        let start = from + text[from..].find('<')?;
        let rest = &text[start + 1..];
        let named = rest.starts_with(name)
            && rest[name.len()..].starts_with(|c: char| c == '>' || c.is_ascii_whitespace());
        if named {
            let close = format!("</{name}>");
            let end = start + text[start..].find(&close)? + close.len();
            return Some((start, end));
        }
        from = start + 1;
    }
}

/// `text` without its `<name>…</name>` elements of any of `names` (what an agent or its
/// IDE adds to the user's words: the file open in the editor, a reminder), trimmed;
/// `None` when nothing is left.
pub(crate) fn without_elements(text: &str, names: &[&str]) -> Option<String> {
    let mut words = text.to_string();
    for name in names {
        while let Some((start, end)) = element_at(&words, name) {
            words.replace_range(start..end, "");
        }
    }
    words_of(&words)
}

/// `text` trimmed, `None` when nothing is left: a prompt of no words is no prompt.
pub(crate) fn words_of(text: &str) -> Option<String> {
    let words = text.trim();
    (!words.is_empty()).then(|| words.to_string())
}

/// The words of a prompt before the files its `@` mentions were added after them
/// (Gemini CLI's, and Qwen Code's, `--- Content from referenced files ---`).
pub(crate) fn before_referenced_files(text: &str) -> &str {
    const REFERENCED: &str = "--- Content from referenced files ---";
    match text.find(REFERENCED) {
        Some(at) => text[..at].trim_end(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_found_and_taken_out_by_name() {
        let text = "<command-message>x is running…</command-message>\n<command-name>/x</command-name>\n<command-args>a b</command-args>";
        assert_eq!(element(text, "command-name"), Some("/x"));
        assert_eq!(element(text, "command-args"), Some("a b"));
        assert_eq!(element(text, "command"), None, "a name is not a prefix");
        assert_eq!(element("<a>open", "a"), None, "an element never closed");
        assert_eq!(element("<a </a>", "a"), None, "a start tag never ended");
        let ide = "<ide_opened_file>The user opened f.rs</ide_opened_file>\nfix it <ide_selection x=\"1\">l. 3</ide_selection>";
        assert_eq!(
            without_elements(ide, &["ide_opened_file", "ide_selection"]).as_deref(),
            Some("fix it")
        );
        assert_eq!(without_elements("<a>only</a>", &["a"]), None);
        assert_eq!(without_elements("a < b", &["a"]).as_deref(), Some("a < b"));
    }

    #[test]
    fn referenced_files_are_cut_from_the_words() {
        let text =
            "@src/ what is this\n--- Content from referenced files ---\nContent from @src/a.rs:\n…";
        assert_eq!(before_referenced_files(text), "@src/ what is this");
        assert_eq!(before_referenced_files("plain"), "plain");
    }
}

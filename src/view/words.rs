//! Words for people, shared by the human views: durations and counts, and how a tool call
//! is told ("Ran `cargo test` (exit 0, 3.2 s)"), keyed on what the tool does
//! ([`ToolKind`]) whatever the agent calls it.

use anstyle::{AnsiColor, Style};

use crate::agent::event::{Effect, StatusClass, ToolKind, ToolStatus, Usage};
use crate::out::one_line;

/// How long the main argument of a call may be on one line.
const TARGET_CHARS: usize = 100;

/// `850 ms`, `3.2 s`, `2 min 5 s`.
pub fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// `1 line`, `3 lines`.
pub fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `12840` → `12,840`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A status as the human views show it: `ok` for a success, else the agent's word.
pub fn status_word<'s>(status: &'s ToolStatus<'_>) -> &'s str {
    match status.class {
        StatusClass::Ok => "ok",
        _ => &status.word,
    }
}

/// The colour of a status, by what it means.
pub fn status_style(class: StatusClass) -> Style {
    let color = match class {
        StatusClass::Ok => AnsiColor::Green,
        StatusClass::Rejected => AnsiColor::Yellow,
        StatusClass::Pending | StatusClass::Unknown => AnsiColor::Cyan,
        StatusClass::Failed => AnsiColor::Red,
    };
    Style::new().fg_color(Some(color.into()))
}

/// Sorts tool-call statuses for display: `ok` first, `pending` last, the rest by name.
pub fn status_order<'s>(counts: impl IntoIterator<Item = (&'s String, &'s u64)>) -> Vec<String> {
    let mut list: Vec<_> = counts.into_iter().collect();
    list.sort_by_key(|(s, _)| (s.as_str() != "ok", s.as_str() == "pending", s.as_str()));
    list.into_iter().map(|(s, n)| format!("{n} {s}")).collect()
}

/// A call's main argument on one line, paths under `cwd` (the run's directory) relative
/// to it.
pub fn target(target: Option<&str>, cwd: Option<&str>) -> String {
    let Some(target) = target else {
        return String::new();
    };
    let relative = cwd
        .map(|cwd| cwd.trim_end_matches('/'))
        .filter(|cwd| !cwd.is_empty())
        .and_then(|cwd| target.strip_prefix(cwd))
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty());
    one_line(relative.unwrap_or(target), TARGET_CHARS)
}

/// How the call went, in a few words (`exit 0`, `120 lines`, `+12 −3`, the error).
pub fn brief(kind: ToolKind, class: StatusClass, effect: &Effect) -> String {
    // The first line of an error says what it is (`Exit code 101`); the rest is output.
    let error = || {
        effect
            .error
            .as_deref()
            .and_then(|e| e.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(|e| one_line(e, TARGET_CHARS))
            .unwrap_or_default()
    };
    if class != StatusClass::Ok {
        return match (error(), effect.exit_code) {
            (e, Some(code)) if e.is_empty() => format!("exit {code}"),
            (e, _) => e,
        };
    }
    let s = match kind {
        ToolKind::Shell => effect.exit_code.map(|c| match &effect.signal {
            Some(sig) => format!("exit {c}, signal {sig}"),
            None => format!("exit {c}"),
        }),
        ToolKind::Read if effect.empty => Some("empty".to_string()),
        ToolKind::Read | ToolKind::Write => effect.lines.map(|n| count(n, "line", "lines")),
        ToolKind::Edit => match (effect.added, effect.removed) {
            (None, None) => None,
            (a, r) => Some(format!("+{} −{}", a.unwrap_or(0), r.unwrap_or(0))),
        },
        ToolKind::Grep => match (effect.matches, effect.files) {
            (Some(n), _) => Some(count(n, "match", "matches")),
            (None, Some(n)) => Some(count(n, "file", "files")),
            (None, None) => None,
        },
        ToolKind::Glob | ToolKind::List => effect.files.map(|n| count(n, "file", "files")),
        ToolKind::Todo => effect.todos.map(|n| count(n, "todo", "todos")),
        _ => None,
    };
    s.unwrap_or_else(error)
}

/// "Read src/main.rs (120 lines)", "Ran `cargo test` (exit 0, 3.2 s)", "Rejected: rm -rf build".
pub fn describe(
    kind: ToolKind,
    tool: &str,
    target: &str,
    status: &ToolStatus<'_>,
    effect: &Effect,
    duration_ms: Option<u64>,
) -> String {
    let brief = brief(kind, status.class, effect);
    match status.class {
        StatusClass::Ok => {
            let mut details: Vec<String> = Vec::new();
            if !brief.is_empty() {
                details.push(brief);
            }
            if matches!(
                kind,
                ToolKind::Shell
                    | ToolKind::Task
                    | ToolKind::Mcp
                    | ToolKind::Fetch
                    | ToolKind::WebSearch
            ) {
                details.extend(duration_ms.map(duration));
            }
            let phrase = verb_phrase(kind, tool, target);
            if details.is_empty() {
                phrase
            } else {
                format!("{phrase} ({})", details.join(", "))
            }
        }
        StatusClass::Rejected => match brief.as_str() {
            "" => format!("Rejected: {}", or_tool(target, tool)),
            reason => format!("Rejected: {} — {reason}", or_tool(target, tool)),
        },
        _ => {
            let what = tool_and_target(tool, target);
            match brief.as_str() {
                "" => format!("Failed ({}): {what}", status.word),
                message => format!("Failed ({}): {what} — {message}", status.word),
            }
        }
    }
}

/// What the call does, in the past tense, with its main argument.
fn verb_phrase(kind: ToolKind, tool: &str, target: &str) -> String {
    match kind {
        _ if target.is_empty() && kind != ToolKind::Todo => {
            format!("Used {}", one_line(tool, 40))
        }
        ToolKind::Read => format!("Read {target}"),
        ToolKind::Shell => format!("Ran `{target}`"),
        ToolKind::Edit => format!("Edited {target}"),
        ToolKind::Write => format!("Wrote {target}"),
        ToolKind::Delete => format!("Deleted {target}"),
        ToolKind::Grep => format!("Searched {target}"),
        ToolKind::Glob => format!("Listed files matching {target}"),
        ToolKind::List => format!("Listed {target}"),
        ToolKind::Todo => "Updated the todo list".to_string(),
        ToolKind::Mcp => format!("Called {target}"),
        ToolKind::Task => format!("Ran a subagent: {target}"),
        ToolKind::Fetch => format!("Fetched {target}"),
        ToolKind::WebSearch => format!("Searched the web for '{target}'"),
        ToolKind::CodeSearch => format!("Searched the codebase for '{target}'"),
        ToolKind::Other => format!("Used {} on {target}", one_line(tool, 40)),
    }
}

fn or_tool(target: &str, tool: &str) -> String {
    if target.is_empty() {
        one_line(tool, 40)
    } else {
        target.to_string()
    }
}

/// `shell sleep 100`, for calls that did not do what their verb says.
pub fn tool_and_target(tool: &str, target: &str) -> String {
    let tool = one_line(tool, 40);
    if target.is_empty() {
        tool
    } else {
        format!("{tool} {target}")
    }
}

/// A run's tokens for people: `12,840 in, 356 out, 9,984 cache read`.
pub fn tokens(usage: &Usage) -> String {
    let mut tokens = vec![
        format!("{} in", thousands(usage.input)),
        format!("{} out", thousands(usage.output)),
    ];
    for (n, what) in [
        (usage.cache_read, "cache read"),
        (usage.cache_write, "cache write"),
    ] {
        if n > 0 {
            tokens.push(format!("{} {what}", thousands(n)));
        }
    }
    tokens.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(41), "41 ms");
        assert_eq!(duration(3210), "3.2 s");
        assert_eq!(duration(125_000), "2 min 5 s");
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(12840), "12,840");
        assert_eq!(thousands(1234567), "1,234,567");
    }

    #[test]
    fn paths_under_the_run_directory_are_relative() {
        let path = Some("/home/dev/shop/src/cart.rs");
        assert_eq!(target(path, Some("/home/dev/shop")), "src/cart.rs");
        assert_eq!(target(path, Some("/home/dev/shop/")), "src/cart.rs");
        assert_eq!(
            target(path, Some("/home/dev/sh")),
            "/home/dev/shop/src/cart.rs"
        );
        assert_eq!(target(path, None), "/home/dev/shop/src/cart.rs");
    }

    #[test]
    fn sentences_for_common_tools() {
        let ok = ToolStatus::success();
        let exit0 = Effect {
            exit_code: Some(0),
            ..Effect::default()
        };
        assert_eq!(
            describe(
                ToolKind::Shell,
                "shell",
                "cargo test",
                &ok,
                &exit0,
                Some(3210)
            ),
            "Ran `cargo test` (exit 0, 3.2 s)"
        );
        let rejected = ToolStatus::new("rejected", StatusClass::Rejected);
        assert_eq!(
            describe(
                ToolKind::Shell,
                "shell",
                "rm -rf build",
                &rejected,
                &Effect::default(),
                None
            ),
            "Rejected: rm -rf build"
        );
        let err = Effect {
            error: Some("File not found".into()),
            ..Effect::default()
        };
        let error = ToolStatus::new("error", StatusClass::Failed);
        assert_eq!(
            describe(ToolKind::Read, "read", "src/x.rs", &error, &err, None),
            "Failed (error): read src/x.rs — File not found"
        );
        let lines = Effect {
            lines: Some(120),
            ..Effect::default()
        };
        assert_eq!(
            describe(ToolKind::Read, "read", "src/x.rs", &ok, &lines, Some(5)),
            "Read src/x.rs (120 lines)"
        );
        assert_eq!(
            describe(
                ToolKind::Other,
                "brandNew",
                "",
                &ok,
                &Effect::default(),
                None
            ),
            "Used brandNew"
        );
    }
}

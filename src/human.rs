//! Words for people: durations, counts, and text made safe for one line of a terminal.

use std::fmt::Write as _;

use crate::tool_call::{ArgsSummary, OutcomeSummary};

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

/// Sorts tool-call statuses for display: `ok` first, `pending` last, the rest by name.
pub fn status_order<'s>(counts: impl IntoIterator<Item = (&'s String, &'s u64)>) -> Vec<String> {
    let mut list: Vec<_> = counts.into_iter().collect();
    list.sort_by_key(|(s, _)| (s.as_str() != "ok", s.as_str() == "pending", s.as_str()));
    list.into_iter().map(|(s, n)| format!("{n} {s}")).collect()
}

/// One line of text: control characters (newlines, terminal escapes) shown escaped, and
/// cut with `…` after `max` characters.
pub fn one_line(s: &str, max: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max + 8));
    for (i, c) in s.chars().enumerate() {
        if i == max {
            out.push('…');
            break;
        }
        if c.is_control() {
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

const TARGET_CHARS: usize = 100;

impl ArgsSummary {
    /// The call's main argument: the path, command, pattern, MCP tool, … as one line.
    /// Paths under `cwd` (the run's directory) are shown relative to it.
    pub fn target_in(&self, tool: &str, cwd: Option<&str>) -> String {
        let target = self.target(tool);
        let relative = cwd
            .map(|cwd| cwd.trim_end_matches('/'))
            .filter(|cwd| !cwd.is_empty())
            .and_then(|cwd| target.strip_prefix(cwd))
            .and_then(|rest| rest.strip_prefix('/'))
            .filter(|rest| !rest.is_empty());
        match relative {
            Some(rest) => rest.to_string(),
            None => target,
        }
    }

    /// The call's main argument, as [`target_in`](Self::target_in) without a directory.
    pub fn target(&self, tool: &str) -> String {
        let text = |t: &crate::tool_call::Text| t.0.clone().filter(|s| !s.is_empty());
        let s = match tool {
            "grep" => text(&self.pattern).map(|p| match text(&self.path) {
                Some(path) => format!("'{p}' in {path}"),
                None => format!("'{p}'"),
            }),
            "glob" => text(&self.glob_pattern).map(|p| match text(&self.target_directory) {
                Some(dir) => format!("{p} in {dir}"),
                None => p,
            }),
            "mcp" => match (text(&self.provider_identifier), text(&self.tool_name)) {
                (Some(p), Some(t)) => Some(format!("{p}/{t}")),
                (_, t) => t.or_else(|| text(&self.name)),
            },
            "updateTodos" => self.todos.0.map(|n| count(n, "todo", "todos")),
            _ => None,
        };
        let s = s.or_else(|| {
            [
                &self.command,
                &self.path,
                &self.pattern,
                &self.glob_pattern,
                &self.url,
                &self.query,
                &self.search_term,
                &self.tool_name,
                &self.name,
                &self.description,
                &self.target_directory,
            ]
            .into_iter()
            .find_map(text)
        });
        s.map(|s| one_line(&s, TARGET_CHARS)).unwrap_or_default()
    }
}

impl OutcomeSummary {
    /// How the call went, in a few words (`exit 0`, `120 lines`, `+12 −3`, the error).
    pub fn brief(&self, tool: &str, status: &str) -> String {
        if status != "success" {
            return self
                .error_text()
                .map(|e| one_line(e, TARGET_CHARS))
                .unwrap_or_default();
        }
        let s = match tool {
            "shell" => self.exit_code.as_i64().map(|c| {
                match self.signal.0.as_deref().filter(|s| !s.is_empty()) {
                    Some(sig) => format!("exit {c}, signal {sig}"),
                    None => format!("exit {c}"),
                }
            }),
            "read" if self.is_empty.0 == Some(true) => Some("empty".to_string()),
            "read" => self.total_lines.as_u64().map(|n| count(n, "line", "lines")),
            "edit" => match (self.lines_added.as_u64(), self.lines_removed.as_u64()) {
                (None, None) => None,
                (a, r) => Some(format!("+{} −{}", a.unwrap_or(0), r.unwrap_or(0))),
            },
            "write" => self
                .lines_created
                .as_u64()
                .map(|n| count(n, "line", "lines")),
            "grep" => match (
                self.workspace_results.matched_lines,
                self.workspace_results.files,
            ) {
                (Some(n), _) => Some(count(n, "match", "matches")),
                (None, Some(n)) => Some(count(n, "file", "files")),
                (None, None) => None,
            },
            "glob" => self
                .total_files
                .as_u64()
                .or(self.files.0)
                .map(|n| count(n, "file", "files")),
            "updateTodos" => self.total_count.as_u64().map(|n| count(n, "todo", "todos")),
            "mcp" if self.is_error.0 == Some(true) => Some("the tool reported an error".into()),
            _ => None,
        };
        s.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool_call::Text;

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
    fn one_line_escapes_and_cuts() {
        assert_eq!(
            one_line("cat <<EOF\nx\x1b[2J", 100),
            "cat <<EOF\\nx\\u{1b}[2J"
        );
        assert_eq!(one_line("abcdef", 3), "abc…");
    }

    #[test]
    fn targets_per_tool() {
        let args = |f: fn(&mut ArgsSummary)| {
            let mut a = ArgsSummary::default();
            f(&mut a);
            a
        };
        let grep = args(|a| {
            a.pattern = Text(Some("TODO".into()));
            a.path = Text(Some("src".into()));
        });
        assert_eq!(grep.target("grep"), "'TODO' in src");
        let shell = args(|a| a.command = Text(Some("cargo test".into())));
        assert_eq!(shell.target("shell"), "cargo test");
        assert_eq!(shell.target("someNewTool"), "cargo test");
        assert_eq!(ArgsSummary::default().target("read"), "");
    }

    #[test]
    fn paths_under_the_run_directory_are_relative() {
        let a = ArgsSummary {
            path: Text(Some("/home/dev/shop/src/cart.rs".into())),
            ..ArgsSummary::default()
        };
        assert_eq!(a.target_in("read", Some("/home/dev/shop")), "src/cart.rs");
        assert_eq!(a.target_in("read", Some("/home/dev/shop/")), "src/cart.rs");
        assert_eq!(
            a.target_in("read", Some("/home/dev/sh")),
            "/home/dev/shop/src/cart.rs"
        );
        assert_eq!(a.target_in("read", None), "/home/dev/shop/src/cart.rs");
    }
}

//! Words for people, shared by the human views: durations and counts, and how a tool call
//! is told ("Ran `cargo test` (exit 0, 3.2 s)"), keyed on what the tool does
//! ([`ToolKind`]) whatever the agent calls it.

use std::borrow::Cow;

use anstyle::{AnsiColor, Style};

use crate::agent::event::{Effect, StatusClass, ToolKind, ToolStatus, Usage};
use crate::out::{escape_line, fit};

/// `850 ms`, `3.2 s`, `2 min 5 s`.
pub(crate) fn duration(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", ms as f64 / 1000.0)
    } else {
        format!("{} min {} s", ms / 60_000, (ms % 60_000) / 1000)
    }
}

/// `1 line`, `3 lines`.
pub(crate) fn count(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `12840` → `12,840`.
pub(crate) fn thousands(n: u64) -> String {
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
pub(crate) fn status_word<'s>(status: &'s ToolStatus<'_>) -> &'s str {
    match status.class {
        StatusClass::Ok => "ok",
        _ => &status.word,
    }
}

/// The colour of a status, by what it means.
pub(crate) fn status_style(class: StatusClass) -> Style {
    let color = match class {
        StatusClass::Ok => AnsiColor::Green,
        StatusClass::Rejected => AnsiColor::Yellow,
        StatusClass::Pending | StatusClass::Unknown => AnsiColor::Cyan,
        StatusClass::Failed => AnsiColor::Red,
    };
    Style::new().fg_color(Some(color.into()))
}

/// Sorts tool-call statuses for display: `ok` first, `pending` last, the rest by name.
pub(crate) fn status_order<'s>(
    counts: impl IntoIterator<Item = (&'s String, &'s u64)>,
) -> Vec<String> {
    let mut list: Vec<_> = counts.into_iter().collect();
    list.sort_by_key(|(s, _)| (s.as_str() != "ok", s.as_str() == "pending", s.as_str()));
    list.into_iter().map(|(s, n)| format!("{n} {s}")).collect()
}

/// A call's main argument on one line and whole: paths under `cwd` (the run's directory)
/// relative to it wherever they stand in it, and for a shell call the command a shell
/// wrapper runs (`/bin/zsh -lc 'ls -la'` → `ls -la`). Shortening it to a width is
/// [`fit_sentence`]'s.
pub(crate) fn target(target: Option<&str>, kind: ToolKind, cwd: Option<&str>) -> String {
    let Some(target) = target else {
        return String::new();
    };
    let target = match kind {
        ToolKind::Shell => inner_command(target),
        _ => Cow::Borrowed(target),
    };
    let target = match cwd {
        Some(cwd) => match relative(&target, cwd) {
            Cow::Owned(s) => Cow::Owned(s),
            Cow::Borrowed(_) => target,
        },
        None => target,
    };
    escape_line(&target)
}

/// How an argument of this kind of tool is shortened: a path keeps its file name, anything
/// else its start.
pub(crate) fn shorten(kind: ToolKind, arg: &str, max: usize) -> Cow<'_, str> {
    match kind {
        // A path keeps its file name, spaces in it or not (`C:\Users\Jane Doe\…`).
        ToolKind::Read | ToolKind::Write | ToolKind::Edit | ToolKind::Delete | ToolKind::List => {
            fit::elide_path(arg, max)
        }
        ToolKind::Grep | ToolKind::Glob => fit::elide_middle(arg, max),
        _ => fit::elide_command(arg, max),
    }
}

/// The narrowest the argument is made before the rest of a line is cut instead.
const MIN_ARG: usize = 12;

/// A line that tells `arg` (`render` writes it around the argument it is given), in at
/// most `max` columns: the argument is shortened first, down to [`MIN_ARG`] columns, then
/// the line is cut at its end. `None` for `max` writes it whole.
pub(crate) fn fit_sentence(
    max: Option<usize>,
    kind: ToolKind,
    arg: &str,
    render: impl Fn(&str) -> String,
) -> String {
    let whole = render(arg);
    let Some(max) = max else { return whole };
    let over = fit::width(&whole).saturating_sub(max);
    if over == 0 {
        return whole;
    }
    let arg_width = fit::width(arg);
    // Only if the argument appears in the line once can it be shortened in place.
    let line = if !arg.is_empty() && whole.matches(arg).count() == 1 {
        let room = arg_width.saturating_sub(over).max(MIN_ARG.min(arg_width));
        render(&shorten(kind, arg, room))
    } else {
        whole
    };
    fit::cut_end(&line, max).into_owned()
}

/// The command a shell wrapper runs: `bash -lc 'cargo test'`, `/bin/zsh -lc "…"`,
/// `pwsh -NoProfile -Command '…'`, `cmd.exe /c …` give what is inside; anything else is
/// returned as it is. Quoting is undone only when one quoted word makes the whole rest.
pub(crate) fn inner_command(cmd: &str) -> Cow<'_, str> {
    let words = |s: &str| -> Option<(usize, usize)> {
        // Start and end of the first word of `s`.
        let start = s.len() - s.trim_start().len();
        let end = s[start..]
            .find(char::is_whitespace)
            .map_or(s.len(), |i| start + i);
        (end > start).then_some((start, end))
    };
    let Some((_, end)) = words(cmd) else {
        return Cow::Borrowed(cmd);
    };
    let program = cmd[..end].rsplit(['/', '\\']).next().unwrap_or("");
    let program = program.to_ascii_lowercase();
    let program = program.strip_suffix(".exe").unwrap_or(&program);
    let sh = matches!(program, "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish");
    let ps = matches!(program, "pwsh" | "powershell");
    let cmd_exe = program == "cmd";
    if !(sh || ps || cmd_exe) {
        return Cow::Borrowed(cmd);
    }
    // Options up to the one that takes the command.
    let mut at = end;
    loop {
        let Some((s, e)) = words(&cmd[at..]) else {
            return Cow::Borrowed(cmd);
        };
        let word = &cmd[at + s..at + e];
        at += e;
        let takes_command = if sh {
            word.starts_with('-') && !word.starts_with("--") && word.contains('c')
        } else if ps {
            word.eq_ignore_ascii_case("-command") || word.eq_ignore_ascii_case("-c")
        } else {
            word.eq_ignore_ascii_case("/c") || word.eq_ignore_ascii_case("/k")
        };
        if takes_command {
            break;
        }
        let option = if cmd_exe {
            word.starts_with('/')
        } else {
            word.starts_with('-')
        };
        if !option {
            return Cow::Borrowed(cmd);
        }
    }
    let rest = cmd[at..].trim();
    if rest.is_empty() {
        return Cow::Borrowed(cmd);
    }
    match unquote(rest, sh, ps) {
        Some(inner) => inner,
        // Quoted words and more after them (`sh -c 'a' ; rm x`): the whole command says
        // what runs; a part of it would not.
        None if rest.starts_with(['\'', '"']) => Cow::Borrowed(cmd),
        None => Cow::Borrowed(rest),
    }
}

/// One quoted word making all of `s`, unquoted: `'…'` (a shell's `'\''`, PowerShell's
/// `''`), or `"…"` (a shell's backslash escapes). `None` when `s` is not that.
fn unquote(s: &str, sh: bool, ps: bool) -> Option<Cow<'_, str>> {
    if s.len() >= 2
        && let Some(body) = s.strip_prefix('\'').and_then(|s| s.strip_suffix('\''))
    {
        if sh && body.contains("'\\''") {
            return Some(Cow::Owned(body.replace("'\\''", "'")));
        }
        if ps && body.contains("''") {
            return Some(Cow::Owned(body.replace("''", "'")));
        }
        return (!body.contains('\'')).then_some(Cow::Borrowed(body));
    }
    let body = s
        .strip_prefix('"')?
        .strip_suffix('"')
        .filter(|_| s.len() >= 2)?;
    if !sh {
        return (!body.contains('"')).then_some(Cow::Borrowed(body));
    }
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(e @ ('"' | '\\' | '$' | '`')) => out.push(e),
                Some(e) => {
                    out.push('\\');
                    out.push(e);
                }
                None => out.push('\\'),
            },
            '"' => return None,
            c => out.push(c),
        }
    }
    Some(Cow::Owned(out))
}

/// `text` with every path under `dir` written relative to it (`dir` alone becomes `.`).
/// A path counts where it starts a word of `text` (after a space, a quote, `=`, …), so a
/// command's arguments are relativized too. `dir` written the Windows way (`D:\…`,
/// `\\server\share`) matches either separator and any letter case, as Windows does.
pub(crate) fn relative<'t>(text: &'t str, dir: &str) -> Cow<'t, str> {
    replace_dir(text, dir, "")
}

/// `text` with paths under the home directory written `~/…`; for the terminal.
pub(crate) fn tilde(text: &str) -> Cow<'_, str> {
    let home = std::env::var("HOME")
        .ok()
        .or_else(|| std::env::var("USERPROFILE").ok());
    match home.as_deref() {
        Some(home) if home.len() > 1 => replace_dir(text, home, "~"),
        _ => Cow::Borrowed(text),
    }
}

fn replace_dir<'t>(text: &'t str, dir: &str, with: &str) -> Cow<'t, str> {
    let windows = dir.contains('\\') || dir.as_bytes().get(1) == Some(&b':');
    let is_sep = |c: char| c == '/' || (windows && c == '\\');
    let dir = dir.trim_end_matches(is_sep);
    if dir.is_empty() || dir.ends_with(':') {
        // `/` or `D:\` is everything: nothing would read better relative to it.
        return Cow::Borrowed(text);
    }
    let starts_word = |i: usize| {
        text[..i]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "'\"=(`,;<>|&".contains(c))
    };
    let ends_word = |c: char| c.is_whitespace() || "'\")`,;<>|&".contains(c);
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < text.len() {
        if starts_word(i)
            && let Some(len) = dir_at(&text[i..], dir, windows)
        {
            let after = &text[i + len..];
            let next = after.chars().next();
            let sep_len = next.filter(|&c| is_sep(c)).map_or(0, char::len_utf8);
            let rest = &after[sep_len..];
            let whole_dir = rest.chars().next().is_none_or(ends_word);
            if next.is_none_or(|c| is_sep(c) || ends_word(c)) {
                out.push_str(&text[copied..i]);
                if whole_dir {
                    out.push_str(if with.is_empty() { "." } else { with });
                    copied = i + len + sep_len;
                } else if with.is_empty() {
                    copied = i + len + sep_len;
                } else {
                    out.push_str(with);
                    copied = i + len;
                }
                i = copied;
                continue;
            }
        }
        i += text[i..].chars().next().map_or(1, char::len_utf8);
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The length in `s` of `dir` at its start, if it is there: byte for byte, or for a
/// Windows directory with `/` and `\` alike and ASCII letters in any case.
fn dir_at(s: &str, dir: &str, windows: bool) -> Option<usize> {
    if !windows {
        return s.starts_with(dir).then_some(dir.len());
    }
    let mut len = 0;
    let mut chars = s.chars();
    for d in dir.chars() {
        let c = chars.next()?;
        let same =
            c.eq_ignore_ascii_case(&d) || (matches!(c, '/' | '\\') && matches!(d, '/' | '\\'));
        if !same {
            return None;
        }
        len += c.len_utf8();
    }
    Some(len)
}

/// How the call went, in a few words (`exit 0`, `120 lines`, `+12 −3`, the error).
pub(crate) fn brief(kind: ToolKind, class: StatusClass, effect: &Effect) -> String {
    // The first line of an error says what it is (`Exit code 101`); the rest is output.
    let error = || {
        effect
            .error
            .as_deref()
            .and_then(|e| e.lines().map(str::trim).find(|l| !l.is_empty()))
            .map(escape_line)
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
pub(crate) fn describe(
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
            format!("Used {}", escape_line(tool))
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
        ToolKind::Other => format!("Used {} on {target}", escape_line(tool)),
    }
}

fn or_tool(target: &str, tool: &str) -> String {
    if target.is_empty() {
        escape_line(tool)
    } else {
        target.to_string()
    }
}

/// `shell sleep 100`, for calls that did not do what their verb says.
pub(crate) fn tool_and_target(tool: &str, target: &str) -> String {
    let tool = escape_line(tool);
    if target.is_empty() {
        tool
    } else {
        format!("{tool} {target}")
    }
}

/// A session id as people are shown it: its first 8 characters, as short commit ids are
/// (`--json` has the whole id), on one line.
pub(crate) fn short_session(id: &str) -> String {
    escape_line(&id.chars().take(8).collect::<String>())
}

/// A run's tokens for people: `12,840 in, 356 out, 9,984 cache read`.
pub(crate) fn tokens(usage: &Usage) -> String {
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
        let t = |cwd| target(path, ToolKind::Read, cwd);
        assert_eq!(t(Some("/home/dev/shop")), "src/cart.rs");
        assert_eq!(t(Some("/home/dev/shop/")), "src/cart.rs");
        assert_eq!(t(Some("/home/dev/sh")), "/home/dev/shop/src/cart.rs");
        assert_eq!(t(Some("/home/dev/shop/src/cart.rs")), ".");
        assert_eq!(t(Some("/")), "/home/dev/shop/src/cart.rs");
        assert_eq!(t(None), "/home/dev/shop/src/cart.rs");
        // POSIX paths are compared as written: another case is another directory.
        assert_eq!(t(Some("/home/Dev/shop")), "/home/dev/shop/src/cart.rs");
    }

    #[test]
    fn windows_paths_relative_to_a_windows_run_directory() {
        let cwd = r"D:\Downloads\Lab\run-0024";
        let rel = |p: &str| relative(p, cwd).into_owned();
        assert_eq!(
            rel(r"D:\Downloads\Lab\run-0024\components\roof\Calc.vue"),
            r"components\roof\Calc.vue"
        );
        assert_eq!(
            rel(r"d:\downloads\lab\RUN-0024\a.txt"),
            "a.txt",
            "letter case"
        );
        assert_eq!(
            rel("D:/Downloads/Lab/run-0024/src/main.ts"),
            "src/main.ts",
            "forward slashes"
        );
        assert_eq!(
            rel(r"D:\Downloads/Lab\run-0024/src\x.ts"),
            r"src\x.ts",
            "mixed"
        );
        assert_eq!(rel(r"D:\Downloads\Lab\run-0024"), ".");
        assert_eq!(
            relative("src/a.ts", r"D:\Downloads\Lab\run-0024\"),
            "src/a.ts"
        );
        // Outside the run directory: as written.
        assert_eq!(
            rel(r"D:\Downloads\Lab\run-0025\a.txt"),
            r"D:\Downloads\Lab\run-0025\a.txt"
        );
        assert_eq!(
            rel(r"C:\Users\craig\.cursor\skills\SKILL.md"),
            r"C:\Users\craig\.cursor\skills\SKILL.md"
        );
        assert_eq!(
            rel(r"E:\Downloads\Lab\run-0024\a.txt"),
            r"E:\Downloads\Lab\run-0024\a.txt"
        );
        // UNC shares.
        let unc = r"\\fileserver\team\proj";
        assert_eq!(
            relative(r"\\fileserver\team\proj\docs\plan.md", unc),
            r"docs\plan.md"
        );
        assert_eq!(relative(r"\\FILESERVER\Team\proj\x", unc), "x");
        assert_eq!(
            relative(r"\\fileserver\team\project\x", unc),
            r"\\fileserver\team\project\x"
        );
        // The drive alone is no run directory worth relativizing to.
        assert_eq!(relative(r"D:\a.txt", r"D:\"), r"D:\a.txt");
    }

    #[test]
    fn paths_inside_commands_and_patterns_are_relative_too() {
        let cwd = "/w/shop";
        assert_eq!(
            relative("cat /w/shop/src/a.rs /etc/hosts", cwd),
            "cat src/a.rs /etc/hosts"
        );
        assert_eq!(relative("cd '/w/shop/web' && ls", cwd), "cd 'web' && ls");
        assert_eq!(relative("ls /w/shop", cwd), "ls .");
        assert_eq!(relative("ls /w/shop/ -la", cwd), "ls . -la");
        assert_eq!(
            relative("ls /x/w/shop/a", cwd),
            "ls /x/w/shop/a",
            "not at a word's start"
        );
        assert_eq!(
            relative(r#"Get-Content "D:\Lab\run\a.vue""#, r"D:\Lab\run"),
            r#"Get-Content "a.vue""#
        );
        assert_eq!(
            target(Some("'TODO' in /w/shop/src"), ToolKind::Grep, Some(cwd)),
            "'TODO' in src"
        );
    }

    #[test]
    fn shell_wrappers_give_the_command_they_run() {
        let inner = |c| inner_command(c).into_owned();
        assert_eq!(inner("/bin/zsh -lc 'ls -la'"), "ls -la");
        assert_eq!(
            inner(r#"/bin/zsh -lc "sed -n '1,20p' notes.txt""#),
            "sed -n '1,20p' notes.txt"
        );
        assert_eq!(
            inner(r#"bash -c "echo \"hi\" \$HOME""#),
            r#"echo "hi" $HOME"#
        );
        assert_eq!(inner(r"bash -lc 'echo '\''quoted'\'''"), "echo 'quoted'");
        assert_eq!(
            inner("bash -lc ls -1"),
            "ls -1",
            "Codex's legacy argv, joined"
        );
        assert_eq!(inner("pwsh -NoProfile -Command 'echo it''s'"), "echo it's");
        assert_eq!(
            inner(
                r"C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe -Command Get-ChildItem"
            ),
            "Get-ChildItem"
        );
        assert_eq!(inner("cmd.exe /d /s /c dir"), "dir");
        // Not a wrapper, or not one we can read whole: as written.
        assert_eq!(inner("cargo test -c"), "cargo test -c");
        assert_eq!(inner("bash script.sh"), "bash script.sh");
        assert_eq!(inner("bash -lc"), "bash -lc");
        assert_eq!(inner("bash -lc 'a' 'b'"), "bash -lc 'a' 'b'");
        assert_eq!(inner("sh -c 'a' ; rm x"), "sh -c 'a' ; rm x");
        assert_eq!(inner(""), "");
        assert_eq!(
            target(
                Some("/bin/zsh -lc 'cat /w/a.txt'"),
                ToolKind::Shell,
                Some("/w")
            ),
            "cat a.txt"
        );
        assert_eq!(
            target(Some("/bin/zsh -lc 'ls'"), ToolKind::Read, None),
            "/bin/zsh -lc 'ls'",
            "only a shell call's argument is a command"
        );
    }

    #[test]
    fn sentences_fit_by_shortening_the_argument_first() {
        let path = r"D:\Downloads\Lab\.worktrees\runs\run-0024\components\roof\RoofQuickLinearCalculator.vue";
        let render = |t: &str| format!("Read {t} (430 lines)");
        assert_eq!(
            fit_sentence(None, ToolKind::Read, path, render),
            render(path)
        );
        let fitted = fit_sentence(Some(60), ToolKind::Read, path, render);
        assert_eq!(
            fitted,
            r"Read D:\…\roof\RoofQuickLinearCalculator.vue (430 lines)"
        );
        assert!(fit::width(&fitted) <= 60);
        // Too narrow even for the shortest argument: the line is cut at its end.
        let narrow = fit_sentence(Some(30), ToolKind::Read, path, render);
        assert_eq!(fit::width(&narrow), 30);
        assert!(narrow.starts_with("Read …"), "{narrow}");
        let cmd = "npm run build -- --mode production --base=/app/ && npm test";
        let ran = fit_sentence(Some(40), ToolKind::Shell, cmd, |t| {
            format!("Ran `{t}` (exit 0)")
        });
        assert_eq!(fit::width(&ran), 40);
        assert!(ran.starts_with("Ran `npm run build -…"), "{ran}");
        assert!(ran.ends_with("` (exit 0)"), "{ran}");
        // Exactly at the limit: untouched.
        let exact = render("a.rs");
        assert_eq!(
            fit_sentence(Some(fit::width(&exact)), ToolKind::Read, "a.rs", render),
            exact
        );
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

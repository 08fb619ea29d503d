//! The transcript as GitHub-flavoured Markdown: for a CI step summary, a PR comment, any
//! CommonMark viewer.
//!
//! ```text
//! ## ✅ cursor · gpt-5 — success
//!
//! 8.1 s · 3 tool calls: 2 ok, 1 failed · tokens: 12,840 in, 356 out · session `3f9c…`
//!
//! **💬 Prompt**                              ← what the user asked, where the input says
//!
//! > Why does the parser reject empty lines?  (a long one folded in <details>)
//!
//! I'll look at the parser first.            ← the answer, as the model wrote it
//!
//! <details><summary>✅ <b>read</b> <code>src/main.rs</code> — 120 lines</summary>
//!
//! **Arguments** …  **Output** …             ← folded, in code blocks
//!
//! </details>
//! ```
//!
//! Model, user and tool text lands in three places, each escaped for it: the prompt, the
//! answer and the reasoning (`answer::markdown`), HTML inside `<summary>` (HTML-escaped),
//! and code blocks (a fence longer than any backtick run inside).

use std::fmt::Write as _;

use super::escape::{self, Cut};
use super::readable::Parts;
use super::{Call, Detail, Document, Item, Phase, Render, Row, Run, answer};
use crate::agent::event::{NoticeKind, Outcome, StatusClass};
use crate::out::fit;
use crate::view::words;

pub(crate) struct Markdown;

/// A status mark, by what the status means.
pub(crate) fn mark(class: StatusClass) -> &'static str {
    match class {
        StatusClass::Ok => "✅",
        StatusClass::Failed => "❌",
        StatusClass::Rejected => "🚫",
        StatusClass::Pending => "⏳",
        StatusClass::Unknown => "❔",
    }
}

pub(crate) fn run_mark(status: &str) -> &'static str {
    match status {
        "success" => "✅",
        "failed" => "❌",
        _ => "⏳",
    }
}

/// `text` as an inline code span that nothing in it can end.
fn code_span(out: &mut String, text: &str) {
    let text = escape::one_line(text);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let ticks = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    let _ = write!(out, "{ticks}{pad}{text}{pad}{ticks}");
}

fn text(out: &mut String, s: &str) {
    escape::markdown_inline(out, s);
}

/// What a cut left out, in words: `34 more lines (2.1 KiB) cut`.
pub(crate) fn cut_words(cut: Cut) -> String {
    format!(
        "{} more ({}) cut",
        words::count(cut.lines as u64, "line", "lines"),
        escape::size(cut.bytes)
    )
}

/// The call's one line, as HTML for `<summary>`: mark, tool and what it does, main
/// argument, outcome, duration.
fn summary_html(out: &mut String, run: &Run, call: &Call) {
    out.push_str(mark(call.status.class));
    out.push(' ');
    if call.parent.is_some() {
        out.push_str("↳ ");
    }
    out.push_str("<b>");
    escape::html(out, &call.tool);
    out.push_str("</b>");
    if let Some(kind) = call.kind_shown() {
        let _ = write!(out, " ({kind})");
    }
    let target = short_target(run, call);
    if !target.is_empty() {
        out.push_str(" <code>");
        escape::html(out, &target);
        out.push_str("</code>");
    }
    for (i, part) in line_tail(call).into_iter().enumerate() {
        out.push_str(if i == 0 { " — " } else { " · " });
        escape::html(out, &part);
    }
}

/// How wide a call's main argument may be on its line (whole in its arguments).
const TARGET_COLUMNS: usize = 120;

/// The call's main argument for its line: relative to the run's directory, the command a
/// shell wrapper runs, shortened (a path keeps its file name).
pub(crate) fn short_target(run: &Run, call: &Call) -> String {
    let target = words::target(call.target.as_deref(), call.kind, run.info.cwd.as_deref());
    words::shorten(call.kind, &target, TARGET_COLUMNS).into_owned()
}

/// After the call's target: its status when not a success, its outcome, its duration.
pub(crate) fn line_tail(call: &Call) -> Vec<String> {
    let mut parts = Vec::new();
    if call.status.class != StatusClass::Ok {
        parts.push(call.status.word.to_string());
    }
    // The error's first line, say; all of it is in the details.
    let brief = words::brief(call.kind, call.status.class, &call.effect);
    if !brief.is_empty() {
        parts.push(fit::cut_end(&brief, TARGET_COLUMNS).into_owned());
    }
    if let Some(ms) = call.duration_ms() {
        parts.push(words::duration(ms));
    }
    parts
}

fn code_block(out: &mut String, body: &str, cut: Option<Cut>) {
    let fence = escape::fence(body);
    let _ = write!(out, "{fence}text\n{body}");
    if !body.ends_with('\n') {
        out.push('\n');
    }
    let _ = writeln!(out, "{fence}");
    if let Some(cut) = cut {
        let _ = writeln!(out, "\n_… {}; `--full` keeps everything._", cut_words(cut));
    }
    out.push('\n');
}

fn parts(out: &mut String, title: &str, parts: &Parts) {
    let _ = writeln!(out, "**{title}**\n");
    if !parts.fields.is_empty() {
        let body: String = parts
            .fields
            .iter()
            .map(|(k, v)| format!("{k}: {v}\n"))
            .collect();
        code_block(out, &body, None);
    }
    for block in &parts.blocks {
        if !block.label.is_empty() {
            out.push('`');
            out.push_str(&block.label.replace('`', "'"));
            out.push_str("`\n\n");
        }
        if block.text.is_empty() {
            out.push_str("_(empty)_\n\n");
        } else {
            code_block(out, &block.text, block.cut);
        }
    }
    if parts.more > 0 {
        let _ = writeln!(out, "_… and {} more values._\n", parts.more);
    }
}

fn call(out: &mut String, run: &Run, call: &Call, detail: Detail) {
    let details = detail == Detail::Full && (call.args.is_some() || call.output.is_some());
    if !details {
        // One Markdown line: the same summary, as inline HTML GitHub keeps.
        summary_html(out, run, call);
        out.push_str("<br>\n");
        return;
    }
    out.push_str("<details><summary>");
    summary_html(out, run, call);
    out.push_str("</summary>\n\n");
    if let Some(args) = &call.args {
        parts(out, "Arguments", args);
    }
    if let Some(output) = &call.output {
        let title = if call.status.class == StatusClass::Ok {
            "Output"
        } else {
            "Error"
        };
        parts(out, title, output);
    }
    out.push_str("</details>\n");
}

/// The model's own Markdown (an answer segment, a reasoning phase), made safe, on lines of
/// its own, with a note of what was cut.
fn model_text(out: &mut String, phase: &Phase) {
    out.push_str(&answer::markdown(&phase.text));
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if phase.cut > 0 {
        let _ = writeln!(
            out,
            "\n_… {} more cut; `--full` keeps everything._",
            escape::size(phase.cut)
        );
    }
}

/// Breaks a run of call lines before a block that is not one.
fn end_calls(out: &mut String, in_calls: &mut bool) {
    if *in_calls {
        out.push('\n');
        *in_calls = false;
    }
}

/// The run's title (its mark, number, agent, model and status) and its figures.
fn heading(out: &mut String, run: &Run) {
    let status = run.status_word();
    let _ = write!(out, "## {} Run {} · ", run_mark(status), run.number);
    text(out, run.info.agent.name());
    if let Some(model) = &run.info.model {
        out.push_str(" · ");
        text(out, model);
    }
    let _ = writeln!(out, " — {status}\n");

    let mut figures = run.figures();
    if let Some(id) = &run.info.session_id {
        let mut s = String::from("session ");
        code_span(&mut s, id);
        figures.push(s);
    }
    if let Some(cwd) = &run.info.cwd {
        let mut s = String::new();
        code_span(&mut s, cwd);
        figures.push(s);
    }
    if !figures.is_empty() {
        let _ = writeln!(out, "{}\n", figures.join(" · "));
    }
}

/// What the user asked, in their words, quoted; a long prompt folded under its first
/// line (GitHub renders Markdown in `<details>` after a blank line).
fn prompt(out: &mut String, run: &Run) {
    let Some(prompt) = &run.prompt else { return };
    let long = prompt.long();
    if long {
        out.push_str("<details><summary>💬 <b>Prompt</b> · ");
        escape::html(out, &escape::one_line(&prompt.title()));
        let _ = write!(out, " · {}", escape::size(prompt.text.len() + prompt.cut));
        out.push_str("</summary>\n\n");
    } else {
        out.push_str("**💬 Prompt**\n\n");
    }
    let mut words = String::new();
    model_text(&mut words, prompt);
    for line in words.lines() {
        out.push_str(if line.is_empty() { ">" } else { "> " });
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    if long {
        out.push_str("</details>\n\n");
    }
}

/// A quote saying how the run failed, or that it has not ended; nothing for a success.
fn end_note(out: &mut String, run: &Run) {
    match run.end.as_ref().map(|e| &e.outcome) {
        Some(Outcome::Succeeded) => {}
        Some(outcome @ (Outcome::Failed { .. } | Outcome::Unreadable)) => {
            out.push_str("> ❌ **");
            text(out, &upper_first(&outcome.to_string()));
            out.push_str("**\n\n");
        }
        Some(Outcome::NoEnd) | None => {
            out.push_str("> ⏳ **Unfinished:** the stream has no terminal event (yet): this is what had arrived.\n\n");
        }
    }
}

/// What happened, in order: the answer's segments, reasoning folded, one line per call
/// (with `detail`), notices. Consecutive call lines make one block.
fn items(out: &mut String, run: &Run, detail: Detail) {
    let mut in_calls = false;
    for item in &run.items {
        match item {
            Item::Answer(phase) => {
                end_calls(out, &mut in_calls);
                if !phase.text.is_empty() || phase.cut > 0 {
                    model_text(out, phase);
                    out.push('\n');
                }
            }
            Item::Thinking(phase) => {
                end_calls(out, &mut in_calls);
                thinking(out, phase, detail);
            }
            Item::Call(i) if detail >= Detail::Calls => {
                in_calls = true;
                call(out, run, &run.calls[*i], detail);
                if detail == Detail::Full && out.ends_with("</details>\n") {
                    out.push('\n');
                    in_calls = false;
                }
            }
            Item::Call(_) => {}
            Item::Notice(kind, what) => {
                end_calls(out, &mut in_calls);
                notice(out, *kind, what);
            }
        }
    }
    end_calls(out, &mut in_calls);
}

/// A reasoning phase, folded; its text only with [`Detail::Full`].
fn thinking(out: &mut String, phase: &Phase, detail: Detail) {
    let size = escape::size(phase.text.len() + phase.cut);
    let _ = write!(out, "<details><summary>💭 Thinking · {size}</summary>\n\n");
    if detail == Detail::Full {
        model_text(out, phase);
    } else {
        out.push_str("_Left out to stay within the size limit._\n");
    }
    out.push_str("\n</details>\n\n");
}

/// A notice, quoted with its sign.
fn notice(out: &mut String, kind: NoticeKind, what: &str) {
    let sign = match kind {
        NoticeKind::Retry | NoticeKind::Recovered => "↻",
        NoticeKind::Warning => "⚠️",
        NoticeKind::Error => "❌",
    };
    let _ = write!(out, "> {sign} ");
    text(out, what);
    out.push_str("\n\n");
}

/// What the section left out of the run to stay within the size limit: calls not
/// listed, events and calls' details dropped.
fn left_out(out: &mut String, run: &Run, detail: Detail) {
    for note in run.left_out(detail) {
        let _ = writeln!(
            out,
            "_{note} to stay within the size limit; `--full` keeps everything._\n"
        );
    }
    let dropped = if detail == Detail::Full {
        run.details_dropped
    } else {
        run.calls
            .iter()
            .filter(|c| c.args.is_some() || c.output.is_some())
            .count()
    };
    if dropped > 0 && detail >= Detail::Calls {
        let _ = writeln!(
            out,
            "_Arguments and output of {} left out to stay within the size limit; `--full` keeps them._\n",
            words::count(dropped as u64, "call", "calls")
        );
    }
}

impl Render for Markdown {
    fn section(&self, run: &Run, detail: Detail, out: &mut String) {
        heading(out, run);
        prompt(out, run);
        end_note(out, run);
        items(out, run, detail);
        left_out(out, run, detail);
    }

    fn document(&self, doc: &Document<'_>) -> (String, String) {
        let mut out = String::new();
        if doc.runs == 0 {
            out.push_str("_No agent run in the input._\n");
            return (out, String::new());
        }
        if doc.runs > 1 {
            let _ = writeln!(out, "## {} runs\n", words::thousands(doc.runs as u64));
            table(&mut out, doc.rows, doc.sources.len() > 1);
            if doc.rows_unlisted > 0 {
                let _ = writeln!(
                    out,
                    "\n_… and {} more runs (`cursor-stream stats` lists them all)._",
                    words::thousands(doc.rows_unlisted as u64)
                );
            }
            out.push('\n');
        }
        let head = std::mem::take(&mut out);
        if doc.runs_unshown > 0 {
            let _ = writeln!(
                out,
                "_{} shown in the table only, to stay within the size limit._\n",
                words::count(doc.runs_unshown as u64, "run is", "runs are")
            );
        }
        if doc.cut {
            out.push_str(
                "_This transcript was cut to stay under 1 MiB (GitHub's limit for a step summary); \
                 `cursor-stream transcript --full` keeps everything._\n",
            );
        }
        (head, out)
    }
}

fn upper_first(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn table(out: &mut String, rows: &[Row], with_source: bool) {
    out.push_str(
        "| # | agent | model | status | duration | tool calls | tokens in / out | cost | session |",
    );
    if with_source {
        out.push_str(" input |");
    }
    out.push_str("\n|---:|---|---|---|---:|---:|---:|---:|---|");
    if with_source {
        out.push_str("---|");
    }
    out.push('\n');
    for row in rows {
        let _ = write!(out, "| {} | ", row.number);
        text(out, row.agent);
        out.push_str(" | ");
        text(out, row.model.as_deref().unwrap_or(""));
        let _ = write!(out, " | {} {}", run_mark(row.status), row.status);
        if let Some(reason) = &row.reason {
            out.push_str(": ");
            text(out, &escape::one_line(&words_cut(reason, 80)));
        }
        let cells = row.cells();
        for cell in [&cells.duration, &cells.calls, &cells.tokens, &cells.cost] {
            out.push_str(" | ");
            text(out, cell);
        }
        out.push_str(" | ");
        if !cells.session.is_empty() {
            code_span(out, &cells.session);
        }
        out.push_str(" |");
        if with_source {
            out.push(' ');
            text(out, &row.source);
            out.push_str(" |");
        }
        out.push('\n');
    }
}

/// `s` cut after `max` characters, with `…`.
pub(crate) fn words_cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

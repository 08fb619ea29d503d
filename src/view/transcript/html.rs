//! The transcript as one self-contained HTML page: inline CSS and one inline script, a
//! Content-Security-Policy that lets nothing else run or load (no network, whatever an
//! escaping bug let through), light and dark, printable, usable with a keyboard.
//!
//! Per run: a header with the run's figures, the prompt (folded when long), a timeline
//! (see `timeline`), then what happened in order — the answer rendered from Markdown
//! (`answer::html`, as the prompt is), each tool call a `<details>` with its arguments and
//! output, reasoning folded, notices. User, model and tool text only ever lands in element
//! content and quoted attribute values, escaped; styles carry only numbers this module
//! computes.

use std::fmt::Write as _;

use super::escape::{self, Cut};
use super::markdown::{cut_words, line_tail, short_target};
use super::readable::Parts;
use super::timeline::{self, Timeline};
use super::{Call, Detail, Document, Item, Phase, Render, Row, Run, answer};
use crate::agent::event::{NoticeKind, Outcome, StatusClass};
use crate::view::words;

pub(crate) struct Html;

const CSS: &str = include_str!("page/page.css");
pub(crate) const SCRIPT: &str = include_str!("page/page.js");
/// `sha256-` of [`SCRIPT`], base64: the only script the page's policy lets run. A test
/// checks it against the script.
pub(crate) const SCRIPT_HASH: &str = "sha256-6nWe/t6jm5b4Z8CG/H+6aljjNCDr8kIX7rNgIvAScxs=";

fn esc(out: &mut String, s: &str) {
    escape::html(out, s);
}

/// The class of a status, for styles and the filter.
fn class_word(class: StatusClass) -> &'static str {
    match class {
        StatusClass::Ok => "ok",
        StatusClass::Failed => "failed",
        StatusClass::Rejected => "rejected",
        StatusClass::Pending => "pending",
        StatusClass::Unknown => "unknown",
    }
}

fn call_anchor(run: &Run, i: usize) -> String {
    format!("r{}-c{}", run.number, i + 1)
}

/// The call's one line, without markup: for titles and labels.
fn call_title(run: &Run, call: &Call) -> String {
    let mut s = call.tool.clone();
    if let Some(kind) = call.kind_shown() {
        s.push_str(&format!(" ({kind})"));
    }
    let target = short_target(run, call);
    if !target.is_empty() {
        s.push(' ');
        s.push_str(&target);
    }
    s.push_str(" — ");
    s.push_str(words::status_word(&call.status));
    for part in line_tail(call)
        .into_iter()
        .skip_while(|p| *p == *call.status.word)
    {
        s.push_str(" · ");
        s.push_str(&part);
    }
    s
}

fn timeline_html(out: &mut String, run: &Run, tl: &Timeline) {
    if tl.bars.is_empty() && tl.marks.is_empty() {
        return;
    }
    let span = match tl.millis {
        Some(ms) => words::duration(ms),
        None => "stream order".to_string(),
    };
    let _ = write!(
        out,
        "<figure class=\"timeline\" aria-label=\"Timeline of run {}: {} over {}\">\n<div class=\"axis\" aria-hidden=\"true\"><span>{}</span><span>{}</span></div>\n",
        run.number,
        words::count(run.calls.len() as u64, "tool call", "tool calls"),
        span,
        if tl.millis.is_some() { "0 s" } else { "start" },
        if tl.millis.is_some() {
            span.as_str()
        } else {
            "end"
        },
    );
    out.push_str("<div class=\"track phases\" aria-hidden=\"true\">");
    for mark in &tl.marks {
        let what = if mark.thinking { "thinking" } else { "answer" };
        let _ = write!(
            out,
            "<span class=\"mark {what}\" style=\"left:{:.3}%;width:{:.3}%\" title=\"{what}\"></span>",
            mark.left * 100.0,
            mark.width * 100.0
        );
    }
    out.push_str("</div>\n");
    for lane in 0..tl.lanes {
        out.push_str("<div class=\"track\">");
        for bar in tl.bars.iter().filter(|b| b.lane == lane) {
            let call = &run.calls[bar.call];
            let title = call_title(run, call);
            let _ = write!(
                out,
                "<a class=\"bar {}\" href=\"#{}\" style=\"left:{:.3}%;width:{:.3}%\" data-tool=\"",
                class_word(call.status.class),
                call_anchor(run, bar.call),
                bar.left * 100.0,
                bar.width * 100.0
            );
            esc(out, &call.tool);
            let _ = write!(
                out,
                "\" data-class=\"{}\" title=\"",
                class_word(call.status.class)
            );
            esc(out, &title);
            out.push_str("\" aria-label=\"");
            esc(out, &title);
            out.push_str("\">");
            esc(out, &call.tool);
            out.push_str("</a>");
        }
        out.push_str("</div>\n");
    }
    out.push_str("<figcaption><span><span class=\"key\" style=\"background:var(--thinking)\"></span>thinking</span><span><span class=\"key\" style=\"background:var(--answer)\"></span>answer</span><span><span class=\"key\" style=\"background:var(--ok)\"></span>ok</span><span><span class=\"key\" style=\"background:var(--failed)\"></span>failed</span><span><span class=\"key\" style=\"background:var(--rejected)\"></span>rejected</span><span><span class=\"key\" style=\"background:var(--pending)\"></span>pending</span>");
    if tl.millis.is_none() {
        out.push_str(
            "<span>The agent gives no times: calls are placed in the order of the stream.</span>",
        );
    }
    out.push_str("</figcaption>\n</figure>\n");
}

fn cut_note(out: &mut String, cut: Option<Cut>) {
    if let Some(cut) = cut {
        out.push_str("<p class=\"cut\">… ");
        esc(out, &cut_words(cut));
        out.push_str("; <code>--full</code> keeps everything.</p>\n");
    }
}

fn parts_html(out: &mut String, title: &str, parts: &Parts) {
    let _ = writeln!(out, "<h4>{title}</h4>");
    if !parts.fields.is_empty() {
        out.push_str("<table class=\"fields\">");
        for (k, v) in &parts.fields {
            out.push_str("<tr><th scope=\"row\">");
            esc(out, k);
            out.push_str("</th><td>");
            esc(out, v);
            out.push_str("</td></tr>");
        }
        out.push_str("</table>\n");
    }
    for block in &parts.blocks {
        if !block.label.is_empty() {
            out.push_str("<h5>");
            esc(out, &block.label);
            out.push_str("</h5>");
        }
        if block.text.is_empty() {
            out.push_str("<p class=\"muted\">(empty)</p>\n");
            continue;
        }
        out.push_str("<pre>");
        esc(out, &block.text);
        out.push_str("</pre>\n");
        cut_note(out, block.cut);
    }
    if parts.more > 0 {
        let _ = writeln!(
            out,
            "<p class=\"cut\">… and {} more values.</p>",
            parts.more
        );
    }
}

/// A call: its line (the `<summary>`), folding its id, status, arguments and output.
fn call_html(out: &mut String, run: &Run, i: usize, detail: Detail) {
    let call = &run.calls[i];
    let class = class_word(call.status.class);
    let _ = write!(
        out,
        "<li class=\"call{}{}\" data-class=\"{class}\" data-tool=\"",
        if call.status.class == StatusClass::Ok {
            ""
        } else {
            " not-ok"
        },
        if call.parent.is_some() { " sub" } else { "" },
    );
    esc(out, &call.tool);
    let _ = write!(
        out,
        "\" data-kind=\"{}\"><details id=\"{}\"><summary>",
        call.kind_word(),
        call_anchor(run, i)
    );
    call_summary(out, run, call);
    out.push_str("</summary>\n<div class=\"body\">");
    out.push_str("<p class=\"meta\">");
    if let Some(id) = &call.id {
        out.push_str("call <code>");
        esc(out, id);
        out.push_str("</code> · ");
    }
    if let Some(parent) = &call.parent {
        out.push_str("in the sub-agent of <code>");
        esc(out, parent);
        out.push_str("</code> · ");
    }
    out.push_str("status <b>");
    esc(out, &call.status.word);
    out.push_str("</b></p>\n");
    match detail {
        Detail::Full => {
            if let Some(args) = &call.args {
                parts_html(out, "Arguments", args);
            }
            if let Some(output) = &call.output {
                let title = if call.status.class == StatusClass::Ok {
                    "Output"
                } else {
                    "Error"
                };
                parts_html(out, title, output);
            }
            if call.args.is_none() && call.output.is_none() && run.details_dropped > 0 {
                out.push_str("<p class=\"cut\">Arguments and output left out to keep the page light; <code>--full</code> keeps them.</p>");
            }
        }
        _ => out.push_str(
            "<p class=\"cut\">Arguments and output left out to keep the page light; <code>--full</code> keeps them.</p>",
        ),
    }
    out.push_str("</div></details></li>\n");
}

/// A call's line: its status, its tool and what it does, its main argument, its outcome
/// and duration.
fn call_summary(out: &mut String, run: &Run, call: &Call) {
    let _ = write!(
        out,
        "<span class=\"badge {}\">",
        class_word(call.status.class)
    );
    esc(out, words::status_word(&call.status));
    out.push_str("</span> <b class=\"tool\">");
    esc(out, &call.tool);
    out.push_str("</b>");
    if let Some(kind) = call.kind_shown() {
        let _ = write!(out, " <span class=\"kind\">{kind}</span>");
    }
    let target = short_target(run, call);
    if !target.is_empty() {
        out.push_str(" <code>");
        esc(out, &target);
        out.push_str("</code>");
    }
    let brief = words::brief(call.kind, call.status.class, &call.effect);
    let brief = crate::out::fit::cut_end(&brief, 120);
    if !brief.is_empty() {
        out.push_str(" <span class=\"brief\">— ");
        esc(out, &brief);
        out.push_str("</span>");
    }
    if let Some(ms) = call.duration_ms() {
        let _ = write!(out, " <span class=\"dur\">· {}</span>", words::duration(ms));
    }
}

fn phase_cut(out: &mut String, cut: usize) {
    if cut > 0 {
        let _ = writeln!(
            out,
            "<p class=\"cut\">… {} more cut; <code>--full</code> keeps everything.</p>",
            escape::size(cut)
        );
    }
}

/// The run's title (its status badge, number, agent and model) and its figures.
fn heading(out: &mut String, run: &Run) {
    let status = run.status_word();
    let _ = write!(
        out,
        "<h2 id=\"run-{}-title\"><span class=\"badge {status}\">{status}</span> Run {} · ",
        run.number, run.number
    );
    esc(out, run.info.agent.name());
    if let Some(model) = &run.info.model {
        out.push_str(" · ");
        esc(out, &escape::one_line(model));
    }
    out.push_str("</h2>\n");
    let figures = run.figures();
    if !figures.is_empty() {
        out.push_str("<p class=\"figures\">");
        esc(out, &figures.join(" · "));
        out.push_str("</p>\n");
    }
}

/// Where the run was: its session, its directory and the input it was read from.
fn meta(out: &mut String, run: &Run) {
    out.push_str("<p class=\"meta\">");
    let mut meta: Vec<String> = Vec::new();
    if let Some(id) = &run.info.session_id {
        let mut s = String::from("session <code>");
        esc(&mut s, &escape::one_line(id));
        s.push_str("</code>");
        meta.push(s);
    }
    if let Some(cwd) = &run.info.cwd {
        let mut s = String::from("in <code>");
        esc(&mut s, &escape::one_line(cwd));
        s.push_str("</code>");
        meta.push(s);
    }
    let mut s = String::from("from <code>");
    esc(&mut s, &escape::one_line(&run.source));
    s.push_str("</code>");
    meta.push(s);
    out.push_str(&meta.join(" · "));
    out.push_str("</p>\n");
}

/// What the user asked, in their words, rendered as the answer is; a long prompt folded
/// under its first line.
fn prompt(out: &mut String, run: &Run) {
    let Some(prompt) = &run.prompt else { return };
    if prompt.long() {
        out.push_str("<details class=\"prompt\"><summary><b>Prompt</b> · ");
        esc(out, &escape::one_line(&prompt.title()));
        let _ = write!(
            out,
            " <span class=\"muted\">· {}</span></summary><blockquote class=\"md\">",
            escape::size(prompt.text.len() + prompt.cut)
        );
        answer::html(&prompt.text, out);
        phase_cut(out, prompt.cut);
        out.push_str("</blockquote></details>\n");
    } else {
        out.push_str("<blockquote class=\"prompt\"><p class=\"who\"><b>Prompt</b></p>");
        answer::html(&prompt.text, out);
        out.push_str("</blockquote>\n");
    }
}

/// A note saying how the run failed, or that it has not ended; nothing for a success.
fn end_note(out: &mut String, run: &Run) {
    match run.end.as_ref().map(|e| &e.outcome) {
        Some(Outcome::Succeeded) => {}
        Some(outcome @ (Outcome::Failed { .. } | Outcome::Unreadable)) => {
            out.push_str("<p class=\"failure\" role=\"note\"><strong>");
            esc(out, &escape::one_line(&outcome.to_string()));
            out.push_str("</strong></p>\n");
        }
        Some(Outcome::NoEnd) | None => out.push_str(
            "<p class=\"unfinished-note\" role=\"note\"><strong>Unfinished:</strong> the stream has no terminal event (yet); this is what had arrived.</p>\n",
        ),
    }
}

/// What happened, in order, as a list: the answer's segments, reasoning folded, each
/// call (with `detail`), notices.
fn items(out: &mut String, run: &Run, detail: Detail) {
    out.push_str("<ol class=\"events\">\n");
    for item in &run.items {
        match item {
            Item::Answer(phase) => {
                out.push_str("<li class=\"answer\">");
                answer::html(&phase.text, out);
                phase_cut(out, phase.cut);
                out.push_str("</li>\n");
            }
            Item::Thinking(phase) => thinking(out, phase, detail),
            Item::Call(i) if detail >= Detail::Calls => call_html(out, run, *i, detail),
            Item::Call(_) => {}
            Item::Notice(kind, what) => notice(out, *kind, what),
        }
    }
    out.push_str("</ol>\n");
}

/// A reasoning phase, folded; its text only with [`Detail::Full`].
fn thinking(out: &mut String, phase: &Phase, detail: Detail) {
    let _ = write!(
        out,
        "<li class=\"thinking\"><details><summary>Thinking · {}</summary><div class=\"md\">",
        escape::size(phase.text.len() + phase.cut)
    );
    if detail == Detail::Full {
        answer::html(&phase.text, out);
        phase_cut(out, phase.cut);
    } else {
        out.push_str("<p class=\"cut\">Left out to keep the page light.</p>");
    }
    out.push_str("</div></details></li>\n");
}

/// A notice, with its kind as its class.
fn notice(out: &mut String, kind: NoticeKind, what: &str) {
    let kind = match kind {
        NoticeKind::Retry => "retry",
        NoticeKind::Recovered => "recovered",
        NoticeKind::Warning => "warning",
        NoticeKind::Error => "error",
    };
    let _ = write!(out, "<li class=\"notice {kind}\">{kind}: ");
    esc(out, what);
    out.push_str("</li>\n");
}

impl Render for Html {
    fn section(&self, run: &Run, detail: Detail, out: &mut String) {
        let _ = writeln!(
            out,
            "<section class=\"run\" id=\"run-{}\" aria-labelledby=\"run-{}-title\">",
            run.number, run.number
        );
        heading(out, run);
        meta(out, run);
        prompt(out, run);
        end_note(out, run);
        if detail >= Detail::Calls {
            timeline_html(out, run, &timeline::layout(run));
        }
        items(out, run, detail);
        for note in run.left_out(detail) {
            let _ = writeln!(
                out,
                "<p class=\"cut\">{note} to keep the page light; <code>--full</code> keeps everything.</p>"
            );
        }
        out.push_str("</section>\n");
    }

    fn document(&self, doc: &Document<'_>) -> (String, String) {
        let mut out = String::with_capacity(CSS.len() + 4096);
        let title = match doc.sources {
            [one] => format!("Transcript of {one}"),
            _ => "Agent transcript".to_string(),
        };
        out.push_str("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
        let _ = writeln!(
            out,
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src '{SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'\">"
        );
        out.push_str("<meta name=\"referrer\" content=\"no-referrer\">\n<meta name=\"generator\" content=\"cursor-stream\">\n<title>");
        esc(&mut out, &escape::one_line(&title));
        out.push_str("</title>\n<style>\n");
        out.push_str(CSS);
        out.push_str("</style>\n</head>\n<body>\n<header>\n<h1>");
        esc(&mut out, &escape::one_line(&title));
        out.push_str("</h1>\n<p class=\"muted\">");
        let _ = write!(out, "{}", words::count(doc.runs as u64, "run", "runs"));
        if doc.sources.len() > 1 {
            let _ = write!(out, " from {} inputs", doc.sources.len());
        }
        out.push_str(" · written by cursor-stream</p>\n");
        out.push_str("<form id=\"filters\" role=\"search\" aria-label=\"Filter the tool calls\" hidden>\n<label>Tool <select id=\"f-tool\"><option value=\"\">all</option></select></label>\n<label>Status <select id=\"f-status\"><option value=\"\">all</option><option value=\"ok\">ok</option><option value=\"not-ok\">not ok</option><option value=\"failed\">failed</option><option value=\"rejected\">rejected</option><option value=\"pending\">pending</option><option value=\"unknown\">unknown</option></select></label>\n<output id=\"f-count\" aria-live=\"polite\"></output>\n</form>\n</header>\n<main>\n");
        if doc.runs == 0 {
            out.push_str("<p>No agent run in the input.</p>\n");
        }
        if doc.runs > 1 {
            table(&mut out, doc.rows, doc.sources.len() > 1);
            if doc.rows_unlisted > 0 {
                let _ = writeln!(
                    out,
                    "<p class=\"cut\">… and {} more runs (<code>cursor-stream stats</code> lists them all).</p>",
                    words::thousands(doc.rows_unlisted as u64)
                );
            }
        }
        let head = std::mem::take(&mut out);
        let mut notes = Vec::new();
        if doc.runs_unshown > 0 {
            notes.push(format!(
                "{} in the table only, to keep the page light.",
                words::count(doc.runs_unshown as u64, "run is", "runs are")
            ));
        }
        if doc.cut {
            notes.push(
                "Long outputs were cut to keep the page light; <code>cursor-stream transcript --html --full</code> keeps everything."
                    .to_string(),
            );
        }
        if !notes.is_empty() {
            let _ = writeln!(
                out,
                "<footer class=\"notes\"><p>{}</p></footer>",
                notes.join("</p><p>")
            );
        }
        out.push_str("</main>\n<script>");
        out.push_str(SCRIPT);
        out.push_str("</script>\n</body>\n</html>\n");
        (head, out)
    }
}

fn table(out: &mut String, rows: &[Row], with_source: bool) {
    out.push_str("<table class=\"runs\">\n<caption class=\"muted\">Runs</caption>\n<thead><tr><th scope=\"col\">#</th><th scope=\"col\">agent</th><th scope=\"col\">model</th><th scope=\"col\">status</th><th scope=\"col\">duration</th><th scope=\"col\">tool calls</th><th scope=\"col\">tokens in / out</th><th scope=\"col\">cost</th><th scope=\"col\">session</th>");
    if with_source {
        out.push_str("<th scope=\"col\">input</th>");
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in rows {
        if row.shown {
            let _ = write!(
                out,
                "<tr><td class=\"num\"><a href=\"#run-{0}\">{0}</a></td><td>",
                row.number
            );
        } else {
            let _ = write!(out, "<tr><td class=\"num\">{}</td><td>", row.number);
        }
        esc(out, row.agent);
        out.push_str("</td><td>");
        esc(out, &escape::one_line(row.model.as_deref().unwrap_or("")));
        let _ = write!(
            out,
            "</td><td class=\"wrap\"><span class=\"badge {0}\">{0}</span>",
            row.status
        );
        if let Some(reason) = &row.reason {
            out.push(' ');
            esc(out, &escape::one_line(reason));
        }
        let cells = row.cells();
        for cell in [&cells.duration, &cells.calls, &cells.tokens, &cells.cost] {
            out.push_str("</td><td class=\"num\">");
            esc(out, cell);
        }
        out.push_str("</td><td><code>");
        esc(out, &cells.session);
        out.push_str("</code></td>");
        if with_source {
            out.push_str("<td class=\"wrap\">");
            esc(out, &escape::one_line(&row.source));
            out.push_str("</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;
    use sha2::Digest as _;

    #[test]
    fn the_policy_lets_the_page_script_run() {
        let digest = sha2::Sha256::digest(SCRIPT.as_bytes());
        let hash = format!(
            "sha256-{}",
            base64::engine::general_purpose::STANDARD.encode(digest)
        );
        assert_eq!(
            SCRIPT_HASH, hash,
            "update SCRIPT_HASH after changing page.js"
        );
    }
}

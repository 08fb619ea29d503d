//! `usage --html`: one self-contained page — a stacked bar chart per period (a colour per
//! agent and model, drawn as SVG by this module: no script at all) and the report's table
//! under it. A Content-Security-Policy lets nothing load or run: the page opens offline,
//! anywhere, and no request leaves it. Model names and files only ever land in element
//! content and quoted attribute values, escaped.

use std::fmt::Write as _;

use super::table::cost_cell;
use super::{Report, Rows, UsageOptions};
use crate::view::transcript::escape;
use crate::view::words;

fn esc(out: &mut String, s: &str) {
    escape::html(out, &escape::one_line(s));
}

const CSS: &str = "
:root{color-scheme:light dark;--fg:#1f2328;--bg:#fff;--muted:#656d76;--line:#d0d7de}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#8d96a0;--line:#30363d}}
body{font:14px/1.45 system-ui,sans-serif;color:var(--fg);background:var(--bg);margin:2em auto;max-width:1200px;padding:0 1em}
h1{font-size:1.4em}p.src{color:var(--muted)}
table{border-collapse:collapse;width:100%;margin-top:1.5em}
th,td{padding:.25em .6em;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
tr.total td{font-weight:600}
svg{width:100%;height:auto;display:block}
svg text{fill:var(--fg);font-size:11px}
.legend{display:flex;flex-wrap:wrap;gap:.4em 1.2em;margin:.5em 0;font-size:.9em}
.legend span::before{content:'';display:inline-block;width:.8em;height:.8em;margin-right:.35em;background:var(--c);vertical-align:-.05em}
";

/// A colour per series, on any background.
const PALETTE: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

pub(crate) fn page(opts: &UsageOptions, rows: &Rows) -> String {
    let mut out = String::with_capacity(16 << 10);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'\">",
    );
    out.push_str("<meta name=\"viewport\" content=\"width=device-width\">");
    out.push_str("<title>Agent usage</title><style>");
    out.push_str(CSS);
    out.push_str("</style></head><body>\n<h1>Agent usage</h1>\n<p class=\"src\">");
    let what = match opts.report {
        Report::Daily => "per day",
        Report::Weekly => "per week (from Monday)",
        Report::Monthly => "per month",
        Report::Session => "per session",
        Report::Model => "per model",
        Report::Run => "per run",
        Report::Blocks => "per five-hour block",
    };
    let _ = write!(
        out,
        "Tokens and cost {what}, in {}; {} ",
        opts.tz.iana_name().unwrap_or("the local time zone"),
        if rows.priced {
            "costs at"
        } else {
            "no price known in"
        }
    );
    esc(&mut out, &opts.prices.source);
    out.push('.');
    if rows.priced && !rows.chart_cost() {
        out.push_str(" The chart shows tokens: some models have no price (their cost is blank).");
    }
    out.push_str("</p>\n");
    if matches!(
        opts.report,
        Report::Daily | Report::Weekly | Report::Monthly
    ) {
        chart(&mut out, rows);
    }
    table(&mut out, opts, rows);
    out.push_str("</body></html>\n");
    out
}

/// The stacked bars: a bar per period, a segment per agent and model (its cost, or its
/// tokens where some model has no price: a segment of no cost would not be drawn), with a
/// legend.
fn chart(out: &mut String, rows: &Rows) {
    let cost = rows.chart_cost();
    let (series, periods) = bars(rows, cost);
    legend(out, &series);
    let max = periods
        .iter()
        .map(|(_, parts)| parts.iter().map(|p| p.1).sum::<f64>())
        .fold(0.0, f64::max);
    let amount = |v: f64| {
        if cost {
            format!("${v:.2}")
        } else {
            words::thousands(v as u64)
        }
    };
    let svg = Svg {
        slot: (SVG_W - SVG_LEFT) / periods.len().max(1) as f64,
        max,
        every: (periods.len() as f64 / 20.0).ceil().max(1.0) as usize,
    };
    let _ = write!(
        out,
        "<svg viewBox=\"0 0 {SVG_W} {SVG_H}\" role=\"img\" aria-label=\"usage per period\">\
         <text x=\"0\" y=\"12\">{}</text>",
        amount(max)
    );
    for (i, (label, parts)) in periods.iter().enumerate() {
        svg.bar(out, i, label, parts, &series, &amount);
    }
    out.push_str("</svg>\n");
}

/// The chart's size and margins, in the SVG's own units.
const SVG_W: f64 = 1000.0;
const SVG_H: f64 = 320.0;
const SVG_LEFT: f64 = 70.0;
const SVG_BOTTOM: f64 = 60.0;

/// A series' name (agent · model), and for each period its label and its segments (the
/// series' index and value), in the rows' order.
type Bars = (Vec<String>, Vec<(String, Vec<(usize, f64)>)>);

/// The rows as series and periods: each row a segment of its period's bar, its value its
/// cost or its tokens.
fn bars(rows: &Rows, cost: bool) -> Bars {
    let mut series: Vec<String> = Vec::new();
    let mut periods: Vec<(String, Vec<(usize, f64)>)> = Vec::new();
    for row in &rows.rows {
        let name = format!(
            "{} · {}",
            row.agent.name(),
            row.model.as_deref().unwrap_or("-")
        );
        let s = series.iter().position(|n| *n == name).unwrap_or_else(|| {
            series.push(name);
            series.len() - 1
        });
        let value = if cost {
            row.sums.cost.unwrap_or(0.0)
        } else {
            row.sums.total() as f64
        };
        let label = row.key.label();
        match periods.last_mut() {
            Some((l, parts)) if *l == label => parts.push((s, value)),
            _ => periods.push((label, vec![(s, value)])),
        }
    }
    (series, periods)
}

/// The series' names, each in its bars' colour.
fn legend(out: &mut String, series: &[String]) {
    out.push_str("<div class=\"legend\">");
    for (i, name) in series.iter().enumerate() {
        let _ = write!(out, "<span style=\"--c:{}\">", PALETTE[i % PALETTE.len()]);
        esc(out, name);
        out.push_str("</span>");
    }
    out.push_str("</div>\n");
}

/// Where the bars go: the width each period has, the largest bar's value, and how many
/// bars a label is written under one of (a label under every bar when they fit).
struct Svg {
    slot: f64,
    max: f64,
    every: usize,
}

impl Svg {
    /// The `i`-th period's bar: its segments stacked, each with its name and value, and
    /// its label.
    fn bar(
        &self,
        out: &mut String,
        i: usize,
        label: &str,
        parts: &[(usize, f64)],
        series: &[String],
        amount: &dyn Fn(f64) -> String,
    ) {
        let bar = (self.slot * 0.7).max(1.0);
        let x = SVG_LEFT + i as f64 * self.slot + (self.slot - bar) / 2.0;
        let mut y = SVG_H - SVG_BOTTOM;
        for &(s, v) in parts {
            if self.max <= 0.0 || v <= 0.0 {
                continue;
            }
            let height = v / self.max * (SVG_H - SVG_BOTTOM - 20.0);
            y -= height;
            let _ = write!(
                out,
                "<rect class=\"seg\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{bar:.1}\" height=\"{height:.1}\" fill=\"{}\"><title>",
                PALETTE[s % PALETTE.len()]
            );
            esc(out, &series[s]);
            let _ = write!(out, ": {}</title></rect>", amount(v));
        }
        if i.is_multiple_of(self.every) {
            let at = SVG_H - SVG_BOTTOM + 14.0;
            let _ = write!(
                out,
                "<text x=\"{x:.1}\" y=\"{at}\" transform=\"rotate(45 {x:.1} {at})\">"
            );
            esc(out, label);
            out.push_str("</text>");
        }
    }
}

fn table(out: &mut String, opts: &UsageOptions, rows: &Rows) {
    let first = match opts.report {
        Report::Daily => "Date",
        Report::Weekly => "Week",
        Report::Monthly => "Month",
        Report::Session => "Session",
        Report::Run => "Run",
        Report::Model => "",
        Report::Blocks => "Block",
    };
    out.push_str("<table><thead><tr>");
    for (h, number) in [
        (first, false),
        ("Agent", false),
        ("Model", false),
        ("Input", true),
        ("Output", true),
        ("Cache read", true),
        ("Cache write", true),
        ("Reasoning", true),
        ("Total", true),
        ("Cost", true),
        ("Runs", true),
        ("Sessions", true),
    ] {
        let _ = write!(
            out,
            "<th{}>{h}</th>",
            if number { " class=\"n\"" } else { "" }
        );
    }
    out.push_str("</tr></thead><tbody>\n");
    let mut row_html = |label: &str, agent: &str, model: &str, s: &super::Sums, class: &str| {
        let _ = write!(out, "<tr{class}><td>");
        esc(out, label);
        out.push_str("</td><td>");
        esc(out, agent);
        out.push_str("</td><td>");
        esc(out, model);
        out.push_str("</td>");
        for n in [
            s.input,
            s.output,
            s.cache_read,
            s.cache_write,
            s.reasoning,
            s.total(),
        ] {
            let _ = write!(out, "<td class=\"n\">{}</td>", words::thousands(n));
        }
        let _ = write!(out, "<td class=\"n\">");
        esc(out, &cost_cell(s));
        let _ = writeln!(
            out,
            "</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
            s.runs(),
            s.sessions()
        );
    };
    for row in &rows.rows {
        row_html(
            &row.key.label(),
            row.agent.name(),
            row.model.as_deref().unwrap_or("-"),
            &row.sums,
            "",
        );
    }
    row_html("Total", "", "", &rows.total, " class=\"total\"");
    out.push_str("</tbody></table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model with no price is drawn (B19): where one is, the segments are tokens, not a
    /// cost of nothing.
    #[test]
    fn a_model_with_no_price_is_drawn_beside_a_priced_one() {
        let rows = super::super::a_priced_day_and_an_unpriced_one();
        let mut out = String::new();
        chart(&mut out, &rows);
        assert_eq!(out.matches("class=\"seg\"").count(), 2, "{out}");
        assert!(out.contains("mystery-model-9: 2,000</title>"), "{out}");
        // All priced: the segments are costs.
        let mut priced = super::super::a_priced_day_and_an_unpriced_one();
        priced.rows.truncate(1);
        let mut out = String::new();
        chart(&mut out, &priced);
        assert!(out.contains("claude-sonnet-4-5: $1.00</title>"), "{out}");
    }
}

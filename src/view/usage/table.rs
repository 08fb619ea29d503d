//! `usage` as a table: a row per period (or session, run, model) and agent, its models
//! listed (`--breakdown`: a row per model under it), a total row; on a terminal the
//! columns that do not fit its width are left out (the least useful first) and, for the
//! daily, weekly and monthly reports, a bar per period follows, its length the period's
//! cost (its tokens where some model has no price).

use super::{Key, Report, Rows, Sums, UsageOptions, by_agent};
use crate::out::{Channel, escape_line, fit};
use crate::view::{Ctx, words};

/// A column: its header, whether it holds a number (aligned right), and how important
/// it is (the lowest goes first on a narrow terminal).
struct Column {
    header: &'static str,
    number: bool,
    keep: u8,
}

const COLUMNS: [Column; 11] = [
    Column {
        header: "",
        number: false,
        keep: 9,
    },
    Column {
        header: "AGENT",
        number: false,
        keep: 8,
    },
    Column {
        header: "MODELS",
        number: false,
        keep: 3,
    },
    Column {
        header: "INPUT",
        number: true,
        keep: 6,
    },
    Column {
        header: "OUTPUT",
        number: true,
        keep: 6,
    },
    Column {
        header: "CACHE READ",
        number: true,
        keep: 4,
    },
    Column {
        header: "CACHE WRITE",
        number: true,
        keep: 2,
    },
    Column {
        header: "TOTAL",
        number: true,
        keep: 7,
    },
    Column {
        header: "COST",
        number: true,
        keep: 9,
    },
    Column {
        header: "RUNS",
        number: true,
        keep: 1,
    },
    Column {
        header: "SESSIONS",
        number: true,
        keep: 0,
    },
];

fn first_header(report: Report) -> &'static str {
    match report {
        Report::Daily => "DATE",
        Report::Weekly => "WEEK",
        Report::Monthly => "MONTH",
        Report::Session => "SESSION",
        Report::Run => "RUN",
        Report::Model => "",
        Report::Blocks => "BLOCK",
    }
}

pub(crate) fn cost_cell(s: &Sums) -> String {
    match s.cost {
        Some(c) if s.unpriced => format!("≥ ${c:.2}"),
        Some(c) => format!("${c:.2}"),
        None => "-".to_string(),
    }
}

fn cells(label: String, agent: &str, models: String, s: &Sums) -> [String; 11] {
    [
        label,
        agent.to_string(),
        models,
        words::thousands(s.input),
        words::thousands(s.output),
        words::thousands(s.cache_read),
        words::thousands(s.cache_write),
        words::thousands(s.total()),
        cost_cell(s),
        s.runs().to_string(),
        s.sessions().to_string(),
    ]
}

pub(crate) fn write(opts: &UsageOptions, rows: &Rows, ctx: &mut Ctx) -> anyhow::Result<()> {
    if rows.rows.is_empty() {
        ctx.out.write_out(b"no usage\n")?;
        return Ok(());
    }
    let terminal = ctx.out.width(Channel::Out);
    let mut table: Vec<[String; 11]> = Vec::new();
    let mut header = COLUMNS.map(|c| c.header.to_string());
    header[0] = first_header(opts.report).to_string();
    let label = |key: &Key| -> String {
        let l = key.label();
        match terminal {
            Some(_) => escape_line(&words::tilde(&l)),
            None => escape_line(&l),
        }
    };
    if opts.breakdown || opts.report == Report::Model {
        let mut last: Option<(Key, &'static str)> = None;
        for row in &rows.rows {
            let this = (row.key.clone(), row.agent.name());
            let first = last.as_ref() != Some(&this);
            last = Some(this);
            let model = escape_line(row.model.as_deref().unwrap_or("-"));
            let (key, agent) = if first || terminal.is_none() {
                (label(&row.key), row.agent.name())
            } else {
                (String::new(), "")
            };
            table.push(cells(key, agent, model, &row.sums));
        }
    } else {
        for (key, agent, models, sums) in by_agent(&rows.rows) {
            let models: Vec<&str> = models.iter().map(|m| &**m).collect();
            let models = if models.is_empty() {
                "-".to_string()
            } else {
                escape_line(&models.join(", "))
            };
            table.push(cells(label(&key), agent.name(), models, &sums));
        }
    }
    let mut total = cells("TOTAL".into(), "", String::new(), &rows.total);
    if opts.report == Report::Model {
        total[1] = "TOTAL".into();
    }
    table.push(total);
    if opts.breakdown || opts.report == Report::Model {
        header[2] = "MODEL".into();
    }
    let mut shown = columns_that_fit(&header, &table, terminal);
    if opts.report == Report::Model {
        shown.retain(|&i| i != 0);
    }
    let mut text = line(&header, &shown, &widths(&header, &table, &shown, terminal));
    let w = widths(&header, &table, &shown, terminal);
    for row in &table {
        text.push_str(&line(row, &shown, &w));
    }
    if let Some(width) = terminal
        && matches!(
            opts.report,
            Report::Daily | Report::Weekly | Report::Monthly
        )
    {
        text.push('\n');
        text.push_str(&bars(rows, width));
    }
    ctx.out.write_out(text.as_bytes())?;
    Ok(())
}

/// The widest value of each column (the models' column cut on a terminal).
fn widths(
    header: &[String; 11],
    table: &[[String; 11]],
    shown: &[usize],
    terminal: Option<usize>,
) -> [usize; 11] {
    let mut w = [0usize; 11];
    for row in std::iter::once(header).chain(table) {
        for (i, cell) in row.iter().enumerate() {
            w[i] = w[i].max(fit::width(cell));
        }
    }
    if let Some(width) = terminal {
        // The models share what the other shown columns leave.
        let others: usize = shown.iter().filter(|&&i| i != 2).map(|&i| w[i] + 2).sum();
        if shown.contains(&2) {
            w[2] = w[2].min(width.saturating_sub(others + 2).max(8));
        }
    }
    w
}

/// The columns that fit the terminal's width: all when piped.
fn columns_that_fit(
    header: &[String; 11],
    table: &[[String; 11]],
    terminal: Option<usize>,
) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..11).collect();
    let Some(width) = terminal else {
        return shown;
    };
    let w = widths(header, table, &(0..11).collect::<Vec<_>>(), None);
    let need = |shown: &[usize]| -> usize {
        shown
            .iter()
            .map(|&i| if i == 2 { 12 } else { w[i] } + 2)
            .sum()
    };
    while need(&shown) > width && shown.len() > 3 {
        let drop = shown
            .iter()
            .enumerate()
            .min_by_key(|(_, i)| COLUMNS[**i].keep)
            .map(|(at, _)| at)
            .unwrap_or(0);
        shown.remove(drop);
    }
    shown
}

fn line(cells: &[String; 11], shown: &[usize], widths: &[usize; 11]) -> String {
    let mut out = String::new();
    for (n, &i) in shown.iter().enumerate() {
        let value = fit::cut_end(&cells[i], widths[i]);
        let pad = " ".repeat(widths[i].saturating_sub(fit::width(&value)));
        if n > 0 {
            out.push_str("  ");
        }
        if COLUMNS[i].number {
            out.push_str(&pad);
            out.push_str(&value);
        } else {
            out.push_str(&value);
            out.push_str(&pad);
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// A bar per period, fitted to `width`: the period's cost, or its tokens where some model
/// has no price (a period of unpriced models would have no bar).
fn bars(rows: &Rows, width: usize) -> String {
    let cost = rows.chart_cost();
    let mut periods: Vec<(String, f64, String)> = Vec::new();
    for (key, _, _, sums) in by_agent(&rows.rows) {
        let label = key.label();
        let (value, shown) = if cost {
            let c = sums.cost.unwrap_or(0.0);
            (c, format!("${c:.2}"))
        } else {
            let t = sums.total() as f64;
            (t, words::thousands(sums.total()))
        };
        match periods.last_mut() {
            Some((l, v, s)) if *l == label => {
                *v += value;
                *s = if cost {
                    format!("${v:.2}")
                } else {
                    words::thousands(*v as u64)
                };
            }
            _ => periods.push((label, value, shown)),
        }
    }
    let max = periods.iter().map(|p| p.1).fold(0.0, f64::max);
    let label_w = periods.iter().map(|p| fit::width(&p.0)).max().unwrap_or(0);
    let value_w = periods.iter().map(|p| fit::width(&p.2)).max().unwrap_or(0);
    let room = width.saturating_sub(label_w + value_w + 4).max(1);
    let mut out = String::new();
    for (label, value, shown) in periods {
        let n = if max > 0.0 {
            ((value / max) * room as f64).round() as usize
        } else {
            0
        };
        out.push_str(&format!(
            "{label:<label_w$}  {}{}  {shown:>value_w$}\n",
            "█".repeat(n),
            " ".repeat(room - n.min(room)),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day of a model with no price has its bar (B19), the bars then of tokens.
    #[test]
    fn a_day_of_a_model_with_no_price_has_its_bar() {
        let rows = super::super::a_priced_day_and_an_unpriced_one();
        let text = bars(&rows, 60);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2, "{text}");
        let bar = |l: &str| l.matches('█').count();
        assert!(bar(lines[1]) > bar(lines[0]) && bar(lines[0]) > 0, "{text}");
        assert!(lines[1].ends_with("2,000"), "{text}");
    }
}

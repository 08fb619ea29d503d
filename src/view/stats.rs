//! `stats`: one row per run, and a totals row, for every agent.
//!
//! Piped, each row is written when its run ends with every value whole, so memory holds
//! one run's counters whatever the size of the log. On a terminal the rows are kept (a few
//! short strings a run) and laid out at the end for the terminal's width: a table where one
//! fits, else a few lines a run. Columns: agent, session id (first 8 characters), model, status
//! (`success`, `error`, `no result`), duration, answer length in bytes, thinking phases,
//! tokens in and out, tool calls by status and by tool, working directory. `--json` writes
//! one object per run instead (schema in the README).

use std::collections::BTreeMap;

use comfy_table::{CellAlignment, ContentArrangement, Table, presets};
use serde::Serialize;

use crate::agent::event::{Event, RunEnd, Usage, Wants};
use crate::exit::ExitStatus;
use crate::out::{Channel, fit, one_line};
use crate::runs::Runs;
use crate::view::json::UsageFields;
use crate::view::{Ctx, View, words};

#[derive(Debug, Clone, Default)]
pub struct StatsOptions {
    pub json: bool,
}

/// One run's numbers; also used for the totals.
#[derive(Debug, Default, Clone, Serialize)]
pub struct RunStats {
    pub agent: &'static str,
    /// The input the run was read from, as named on the command line (`<stdin>`).
    pub file: String,
    pub session_id: Option<String>,
    pub model: Option<String>,
    pub cwd: Option<String>,
    /// `success`, `error` or `no_result` (for the totals: the number of runs instead).
    pub status: String,
    pub duration_ms: Option<u64>,
    pub answer_bytes: u64,
    pub thinking_phases: u64,
    pub events: u64,
    pub tools: ToolStats,
    pub usage: Option<UsageFields>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct ToolStats {
    pub total: u64,
    pub by_status: BTreeMap<String, u64>,
    /// By the agent's own tool name.
    pub by_kind: BTreeMap<String, u64>,
}

pub struct StatsView {
    opts: StatsOptions,
    run: RunStats,
    usage: Option<Usage>,
    thinking_open: bool,
    totals: RunStats,
    total_usage: Option<Usage>,
    runs_by_status: BTreeMap<&'static str, u64>,
    header_written: bool,
    /// On a terminal, the rows so far: a table fitted to a width needs all of them.
    table: Vec<[String; 10]>,
}

impl StatsView {
    pub fn new(opts: StatsOptions) -> StatsView {
        StatsView {
            opts,
            run: RunStats::default(),
            usage: None,
            thinking_open: false,
            totals: RunStats::default(),
            total_usage: None,
            runs_by_status: BTreeMap::new(),
            header_written: false,
            table: Vec::new(),
        }
    }

    /// One row of the table; `tail` is the last column (the working directory). Piped, it
    /// is written at once with every value whole; on a terminal it is kept for the table
    /// laid out for the terminal's width at the end.
    fn write_row(
        &mut self,
        row: &RunStats,
        usage: Option<&Usage>,
        label: &str,
        tail: &str,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        let tokens = usage.map_or("-".to_string(), |u| {
            format!(
                "{}/{}",
                words::thousands(u.input),
                words::thousands(u.output)
            )
        });
        let tools = if row.tools.total == 0 {
            "-".to_string()
        } else {
            let statuses = words::status_order(&row.tools.by_status);
            let kinds: Vec<String> = row
                .tools
                .by_kind
                .iter()
                .map(|(k, n)| format!("{} {n}", one_line(k, usize::MAX)))
                .collect();
            format!(
                "{} ({}; {})",
                row.tools.total,
                statuses.join(", "),
                kinds.join(", ")
            )
        };
        let session = row.session_id.as_deref().unwrap_or(label);
        let terminal = ctx.out.width(Channel::Out).is_some();
        let cells = [
            if row.agent.is_empty() { "-" } else { row.agent }.to_string(),
            // The session's first 8 characters, as short commit ids are shown: `--json`
            // has the whole id.
            session.chars().take(8).collect::<String>(),
            one_line(row.model.as_deref().unwrap_or("-"), usize::MAX),
            row.status.clone(),
            row.duration_ms.map_or("-".to_string(), words::duration),
            format!("{} B", words::thousands(row.answer_bytes)),
            row.thinking_phases.to_string(),
            tokens,
            tools,
            one_line(
                &if terminal {
                    words::tilde(tail)
                } else {
                    tail.into()
                },
                usize::MAX,
            ),
        ];
        if terminal {
            self.table.push(cells);
            return Ok(());
        }
        if !self.header_written {
            self.header_written = true;
            ctx.out
                .write_out(row_line(&HEADER.map(String::from)).as_bytes())?;
        }
        ctx.out.write_out(row_line(&cells).as_bytes())?;
        Ok(())
    }

    /// On a terminal, the rows kept so far as one table in the terminal's width.
    fn write_table(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let Some(width) = ctx.out.width(Channel::Out) else {
            return Ok(());
        };
        let rows = std::mem::take(&mut self.table);
        if rows.is_empty() {
            return Ok(());
        }
        let text = table(&rows, width).unwrap_or_else(|| cards(&rows, width));
        ctx.out.write_out(text.as_bytes())?;
        Ok(())
    }

    fn add_to_totals(&mut self) {
        let (run, t) = (&self.run, &mut self.totals);
        t.duration_ms = match (t.duration_ms, run.duration_ms) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        t.answer_bytes += run.answer_bytes;
        t.thinking_phases += run.thinking_phases;
        t.events += run.events;
        t.tools.total += run.tools.total;
        for (k, n) in &run.tools.by_kind {
            *t.tools.by_kind.entry(k.clone()).or_default() += n;
        }
        for (k, n) in &run.tools.by_status {
            *t.tools.by_status.entry(k.clone()).or_default() += n;
        }
        if let Some(u) = &self.usage {
            self.total_usage.get_or_insert_with(Usage::default).add(u);
        }
    }
}

impl View for StatsView {
    fn wants(&self) -> Wants {
        Wants::TEXT | Wants::THINKING | Wants::TOOLS
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        ExitStatus::SUCCESS
    }

    /// With `--json`, one object per run and nothing at the end: inputs can be read apart.
    /// (The table's header and totals span inputs: one view reads them in turn.)
    fn fork(&self) -> Option<Self> {
        self.opts.json.then(|| StatsView::new(self.opts.clone()))
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.run = RunStats {
            agent: ctx.run.agent.name(),
            file: ctx.diag.source().to_string(),
            ..RunStats::default()
        };
        self.usage = None;
        self.thinking_open = false;
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev {
            Event::Text(text) => self.run.answer_bytes += text.len() as u64,
            Event::Thinking { done, .. } => {
                if !self.thinking_open {
                    self.run.thinking_phases += 1;
                }
                self.thinking_open = !done;
            }
            Event::ToolEnded(end) => {
                let tools = &mut self.run.tools;
                tools.total += 1;
                *tools.by_kind.entry(end.call.tool.to_string()).or_default() += 1;
                *tools
                    .by_status
                    .entry(words::status_word(end.status).to_string())
                    .or_default() += 1;
            }
            _ => {}
        }
        Ok(())
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let status = match end.outcome.word() {
            "no_result" => "no result",
            word => word,
        };
        *self.runs_by_status.entry(status).or_default() += 1;
        let run = &mut self.run;
        run.status = status.to_string();
        run.session_id = ctx.run.session_id.clone();
        run.model = ctx.run.model.clone();
        run.cwd = ctx.run.cwd.clone();
        run.events = ctx.run_events;
        run.duration_ms = end.duration_ms;
        self.usage = end.usage;
        run.usage = end.usage.as_ref().map(UsageFields::from);
        self.add_to_totals();
        let mut row = std::mem::take(&mut self.run);
        if self.opts.json {
            row.status = end.outcome.word().to_string();
            let mut line = serde_json::to_vec(&row)?;
            line.push(b'\n');
            ctx.out.write_out(&line)?;
        } else {
            let usage = self.usage;
            self.write_row(
                &row,
                usage.as_ref(),
                "-",
                row.cwd.as_deref().unwrap_or(""),
                ctx,
            )?;
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.json {
            return Ok(());
        }
        let runs: u64 = self.runs_by_status.values().sum();
        if runs == 0 {
            ctx.out.write_out(b"no runs\n")?;
            return Ok(());
        }
        let mut totals = std::mem::take(&mut self.totals);
        totals.status = words::count(runs, "run", "runs");
        let breakdown: Vec<String> = self
            .runs_by_status
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let tail = format!("runs: {}", breakdown.join(", "));
        let usage = self.total_usage;
        self.write_row(&totals, usage.as_ref(), "TOTAL", &tail, ctx)?;
        self.write_table(ctx)
    }
}

const HEADER: [&str; 10] = [
    "AGENT",
    "SESSION",
    "MODEL",
    "STATUS",
    "DURATION",
    "ANSWER",
    "THINK",
    "TOKENS IN/OUT",
    "TOOLS",
    "DIRECTORY",
];

/// The columns holding numbers, aligned right.
const NUMBERS: [usize; 4] = [4, 5, 6, 7];

/// A piped row: fixed columns that long values push right rather than being cut.
fn row_line(c: &[String; 10]) -> String {
    let mut line = format!(
        "{:<8}  {:<8}  {:<16}  {:<10}  {:>9}  {:>9}  {:>5}  {:>17}  {}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
    );
    // The directory has no header cell in a pipe: it trails, as it always has.
    if !c[9].is_empty() && c[9] != "DIRECTORY" {
        line.push_str("  ");
        line.push_str(&c[9]);
    }
    line.push('\n');
    line
}

/// The narrowest the model, tools and directory columns of a table may be.
const MIN_TEXT_COLUMN: u16 = 20;

/// The rows as a table at most `width` columns wide: the short columns whole on one line,
/// the model, the tools and the directory wrapped within theirs (comfy-table shares the
/// width out by content). `None` when the terminal is too narrow for that.
fn table(rows: &[[String; 10]], width: usize) -> Option<String> {
    use comfy_table::{ColumnConstraint, Width};
    let mut t = Table::new();
    t.load_style(presets::NOTHING)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_width(u16::try_from(width).unwrap_or(u16::MAX))
        .set_header(HEADER);
    for row in rows {
        t.add_row(row.iter().map(String::as_str));
    }
    for (i, column) in t.column_iter_mut().enumerate() {
        column.set_constraint(match i {
            2 | 8 | 9 => ColumnConstraint::LowerBoundary(Width::Fixed(MIN_TEXT_COLUMN)),
            _ => ColumnConstraint::ContentWidth,
        });
        if NUMBERS.contains(&i) {
            column.set_cell_alignment(CellAlignment::Right);
        }
        // NOTHING pads every cell with a space on each side: the first column needs none
        // on its left.
        if i == 0 {
            column.set_padding((0, 1));
        }
    }
    let mut out = String::new();
    for line in t.lines() {
        let line = line.trim_end();
        if fit::width(line) > width {
            return None;
        }
        out.push_str(line);
        out.push('\n');
    }
    Some(out)
}

/// The rows for a terminal too narrow for the table: a few lines a run, the short values
/// on the first, each line fitted to the width (the tools wrapped, the directory shortened
/// in its middle).
///
/// ```text
/// cursor · c6b62c6f · Claude 4 Sonnet · success · 5.2 s
///   answer 115 B · thinking 0 · tokens -
///   tools 2 (2 ok; read 1, write 1)
///   ~/project
/// ```
fn cards(rows: &[[String; 10]], width: usize) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(&fit::cut_end(text, width));
        out.push('\n');
    };
    for (n, c) in rows.iter().enumerate() {
        if n > 0 {
            line("");
        }
        let total = c[1] == "TOTAL";
        let first: Vec<&str> = if total {
            vec!["TOTAL", &c[3], &c[4]]
        } else {
            vec![&c[0], &c[1], &c[2], &c[3], &c[4]]
        };
        line(&first.join(" · "));
        line(&format!(
            "  answer {} · thinking {} · tokens {}",
            c[5], c[6], c[7]
        ));
        for l in wrap(&format!("tools {}", c[8]), width.saturating_sub(2).max(1)) {
            line(&format!("  {l}"));
        }
        if total {
            for l in wrap(&c[9], width.saturating_sub(2).max(1)) {
                line(&format!("  {l}"));
            }
        } else if !c[9].is_empty() {
            line(&format!(
                "  {}",
                fit::elide_path(&c[9], width.saturating_sub(2))
            ));
        }
    }
    out
}

/// `text` broken at spaces into lines of at most `width` columns (a word wider than that
/// has a line of its own, to be cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let last = lines.last_mut().expect("one line at least");
        if last.is_empty() {
            last.push_str(word);
        } else if fit::width(last) + 1 + fit::width(word) <= width {
            last.push(' ');
            last.push_str(word);
        } else {
            lines.push(word.to_string());
        }
    }
    lines
}

//! `stats`: one row per run, and a totals row, for every agent.
//!
//! Each row is written when its run ends, so memory holds one run's counters whatever the
//! size of the log, and a live stream shows each run as it ends. Piped, every value is
//! whole. On a terminal, each row is fitted to the terminal's width: a table whose model,
//! tools and directory columns share what the fixed ones leave, or, on a terminal too narrow
//! for that, a few lines a run. Columns: agent, session id (first 8 characters), model, status
//! (`success`, `error`, `no result`), duration, answer length in bytes, thinking phases,
//! tokens in and out, tool calls by status and by tool (the agent's own names; in the totals,
//! by kind), working directory. `--json` writes one object per run instead, with no totals
//! (schema in docs/GUIDE.md).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::agent::event::{Event, RunEnd, ToolKind, Usage, Wants};
use crate::exit::ExitStatus;
use crate::out::{Channel, escape_line, fit};
use crate::runs::Runs;
use crate::view::json::UsageFields;
use crate::view::{Ctx, View, words};

#[derive(Debug, Clone, Default)]
pub struct StatsOptions {
    pub json: bool,
}

/// One run's numbers; also used for the totals.
#[derive(Debug, Default, Clone, Serialize)]
pub(crate) struct RunStats {
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
pub(crate) struct ToolStats {
    pub total: u64,
    pub by_status: BTreeMap<String, u64>,
    /// By the agent's own tool name.
    pub by_kind: BTreeMap<String, u64>,
    /// By what the tool does (`tool_group`), for the totals: over several agents, their
    /// own names would split one kind of call into as many entries as there are agents.
    #[serde(skip)]
    pub by_group: BTreeMap<String, u64>,
}

/// The entry of a call in the totals' tool list: its kind's name (`shell`, `read`, …), or
/// for a tool of no known kind its own name. Lumping those into one `other` would count
/// unrelated tools together and tell the reader nothing; an unknown tool is most often
/// one agent's own, so its name is what the reader would look it up by.
fn tool_group(kind: ToolKind, tool: &str) -> &str {
    match kind {
        ToolKind::Other => tool,
        kind => kind.name(),
    }
}

/// Adds `n` to `key`'s count, allocating the key only the first time it is seen.
fn bump(map: &mut BTreeMap<String, u64>, key: &str, n: u64) {
    match map.get_mut(key) {
        Some(count) => *count += n,
        None => {
            map.insert(key.to_string(), n);
        }
    }
}

pub(crate) struct StatsView {
    opts: StatsOptions,
    run: RunStats,
    usage: Option<Usage>,
    thinking_open: bool,
    totals: RunStats,
    total_usage: Option<Usage>,
    runs_by_status: BTreeMap<&'static str, u64>,
    header_written: bool,
}

impl StatsView {
    pub(crate) fn new(opts: StatsOptions) -> StatsView {
        StatsView {
            opts,
            run: RunStats::default(),
            usage: None,
            thinking_open: false,
            totals: RunStats::default(),
            total_usage: None,
            runs_by_status: BTreeMap::new(),
            header_written: false,
        }
    }

    /// One row of the table, written at once; `tail` is the last column (the working
    /// directory). Piped, every value is whole; on a terminal the row fits its width.
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
                .map(|(k, n)| format!("{} {n}", escape_line(k)))
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
            words::short_session(session),
            escape_line(row.model.as_deref().unwrap_or("-")),
            row.status.clone(),
            row.duration_ms.map_or("-".to_string(), words::duration),
            format!("{} B", words::thousands(row.answer_bytes)),
            row.thinking_phases.to_string(),
            tokens,
            tools,
            escape_line(&if terminal {
                words::tilde(tail)
            } else {
                tail.into()
            }),
        ];
        let mut text = String::new();
        match ctx.out.width(Channel::Out) {
            Some(width) if width >= TABLE_WIDTH => {
                if !self.header_written {
                    text.push_str(&table_line(&HEADER.map(String::from), width));
                }
                text.push_str(&table_line(&cells, width));
            }
            Some(width) => {
                if self.header_written {
                    text.push('\n');
                }
                text.push_str(&card(&cells, width));
            }
            None => {
                if !self.header_written {
                    text.push_str(&header_line());
                }
                text.push_str(&row_line(&cells));
            }
        }
        self.header_written = true;
        ctx.out.write_out(text.as_bytes())?;
        Ok(())
    }

    fn add_to_totals(&mut self) {
        add_run(&mut self.totals, &self.run);
        if let Some(u) = &self.usage {
            self.total_usage.get_or_insert_with(Usage::default).add(u);
        }
    }
}

/// Adds `run`'s numbers to `t`, the totals.
fn add_run(t: &mut RunStats, run: &RunStats) {
    t.duration_ms = match (t.duration_ms, run.duration_ms) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    t.answer_bytes += run.answer_bytes;
    t.thinking_phases += run.thinking_phases;
    t.events += run.events;
    t.tools.total += run.tools.total;
    // The totals count tools by kind only (see [`ToolStats::by_group`]).
    for (k, n) in &run.tools.by_group {
        bump(&mut t.tools.by_group, k, *n);
    }
    for (k, n) in &run.tools.by_status {
        bump(&mut t.tools.by_status, k, *n);
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

    /// One row (or object) per run, written as the run ends: inputs can be read apart. The
    /// copies write no header (the view writes it before the first row of all, see
    /// [`View::before_forked_output`]) and their totals are summed up by [`View::merge`].
    /// (Forked only to a stdout that is not a terminal: the piped table's rows.)
    fn fork(&self) -> Option<Self> {
        let mut copy = StatsView::new(self.opts.clone());
        copy.header_written = true;
        Some(copy)
    }

    fn merge(&mut self, later: Self) {
        add_run(&mut self.totals, &later.totals);
        if let Some(u) = &later.total_usage {
            self.total_usage.get_or_insert_with(Usage::default).add(u);
        }
        for (status, n) in later.runs_by_status {
            *self.runs_by_status.entry(status).or_default() += n;
        }
    }

    fn before_forked_output(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !self.opts.json && !self.header_written {
            self.header_written = true;
            ctx.out.write_out(header_line().as_bytes())?;
        }
        Ok(())
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
                bump(&mut tools.by_kind, &end.call.tool, 1);
                bump(
                    &mut tools.by_group,
                    tool_group(end.call.kind, &end.call.tool),
                    1,
                );
                bump(&mut tools.by_status, words::status_word(end.status), 1);
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
        // The row's tool list: by kind, where the runs' rows have the agents' names.
        totals.tools.by_kind = std::mem::take(&mut totals.tools.by_group);
        let breakdown: Vec<String> = self
            .runs_by_status
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let tail = format!("runs: {}", breakdown.join(", "));
        let usage = self.total_usage;
        self.write_row(&totals, usage.as_ref(), "TOTAL", &tail, ctx)
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

/// A piped row: fixed columns that long values push right rather than being cut, the
/// directory trailing.
fn row_line(c: &[String; 10]) -> String {
    let mut line = format!(
        "{:<8}  {:<8}  {:<16}  {:<10}  {:>9}  {:>9}  {:>5}  {:>17}  {}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]
    );
    if !c[9].is_empty() {
        line.push_str("  ");
        line.push_str(&c[9]);
    }
    line.push('\n');
    line
}

/// The piped header: the directory has no header cell, as it always had none.
fn header_line() -> String {
    let mut header = HEADER.map(String::from);
    header[9].clear();
    row_line(&header)
}

/// The widths of the table's fixed columns (agent, session, status, duration, answer,
/// thinking, tokens), and the narrowest each of the model, tools and directory may be.
const FIXED: [(usize, usize); 7] = [(0, 8), (1, 8), (3, 10), (4, 9), (5, 11), (6, 5), (7, 19)];
const MIN_TEXT: usize = 12;
/// Gaps of two columns between the ten columns.
const GAPS: usize = 2 * 9;
/// The fixed columns and the gaps: what the model, tools and directory share the rest of.
const FIXED_WIDTH: usize = {
    let mut sum = GAPS;
    let mut i = 0;
    while i < FIXED.len() {
        sum += FIXED[i].1;
        i += 1;
    }
    sum
};
/// The narrowest terminal the table fits; below it, a few lines a run.
const TABLE_WIDTH: usize = FIXED_WIDTH + 3 * MIN_TEXT;
// The guide says "from 124 columns".
const _: () = assert!(TABLE_WIDTH == 124);

/// A row of the table in `width` columns (at least [`TABLE_WIDTH`]): each value fitted to
/// its column — the model and tools cut at the end, the directory in its middle (it keeps
/// its last components) — and numbers aligned right.
fn table_line(c: &[String; 10], width: usize) -> String {
    let room = width - FIXED_WIDTH;
    let model = room / 4;
    let tools = room * 2 / 5;
    let dir = room - model - tools;
    let mut widths = [0; 10];
    for (i, w) in FIXED {
        widths[i] = w;
    }
    widths[2] = model;
    widths[8] = tools;
    widths[9] = dir;
    let mut line = String::new();
    for (i, (value, w)) in c.iter().zip(widths).enumerate() {
        let value = match i {
            9 => fit::elide_path(value, w),
            _ => fit::cut_end(value, w),
        };
        let pad = " ".repeat(w - fit::width(&value));
        if i > 0 {
            line.push_str("  ");
        }
        if NUMBERS.contains(&i) {
            line.push_str(&pad);
            line.push_str(&value);
        } else {
            line.push_str(&value);
            if i < 9 {
                line.push_str(&pad);
            }
        }
    }
    line.truncate(line.trim_end().len());
    line.push('\n');
    line
}

/// A row for a terminal too narrow for the table: a few lines, the short values on the
/// first, each line fitted to the width (the tools wrapped, the directory shortened in its
/// middle).
///
/// ```text
/// cursor · c6b62c6f · Claude 4 Sonnet · success · 5.2 s
///   answer 115 B · thinking 0 · tokens -
///   tools 2 (2 ok; read 1, write 1)
///   ~/project
/// ```
fn card(c: &[String; 10], width: usize) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str(&fit::cut_end(text, width));
        out.push('\n');
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_group_tools_by_kind_and_unknown_tools_by_their_name() {
        assert_eq!(tool_group(ToolKind::Shell, "run_shell_command"), "shell");
        assert_eq!(
            tool_group(ToolKind::WebSearch, "google_web_search"),
            "web_search"
        );
        assert_eq!(tool_group(ToolKind::Mcp, "mcp__github__get_pr"), "mcp");
        assert_eq!(tool_group(ToolKind::Other, "brandNew"), "brandNew");
    }
}

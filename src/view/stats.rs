//! `stats`: one row per run, and a totals row, for every agent.
//!
//! Each row is written when its run ends, so memory holds one run's counters whatever the
//! size of the log. Columns: agent, session id (first 8 characters), model, status
//! (`success`, `error`, `no result`), duration, answer length in bytes, thinking phases,
//! tokens in and out, tool calls by status and by tool, working directory. `--json` writes
//! one object per run instead (schema in the README).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::agent::event::{Event, RunEnd, Usage, Wants};
use crate::exit::ExitStatus;
use crate::out::one_line;
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
        }
    }

    /// One row of the table; `tail` is the last column (the working directory).
    fn write_row(
        &mut self,
        row: &RunStats,
        usage: Option<&Usage>,
        label: &str,
        tail: &str,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        if !self.header_written {
            self.header_written = true;
            ctx.out.write_out(
                format!(
                    "{:<8}  {:<8}  {:<16}  {:<10}  {:>9}  {:>9}  {:>5}  {:>17}  {}\n",
                    "AGENT",
                    "SESSION",
                    "MODEL",
                    "STATUS",
                    "DURATION",
                    "ANSWER",
                    "THINK",
                    "TOKENS IN/OUT",
                    "TOOLS"
                )
                .as_bytes(),
            )?;
        }
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
                .map(|(k, n)| format!("{} {n}", one_line(k, 40)))
                .collect();
            format!(
                "{} ({}; {})",
                row.tools.total,
                statuses.join(", "),
                kinds.join(", ")
            )
        };
        let session = row.session_id.as_deref().unwrap_or(label);
        let line = format!(
            "{:<8}  {:<8}  {:<16}  {:<10}  {:>9}  {:>9}  {:>5}  {:>17}  {}{}\n",
            if row.agent.is_empty() { "-" } else { row.agent },
            one_line(session, 8).trim_end_matches('…'),
            one_line(row.model.as_deref().unwrap_or("-"), 15),
            row.status,
            row.duration_ms.map_or("-".to_string(), words::duration),
            format!("{} B", words::thousands(row.answer_bytes)),
            row.thinking_phases,
            tokens,
            tools,
            if tail.is_empty() {
                String::new()
            } else {
                format!("  {}", one_line(tail, 80))
            },
        );
        ctx.out.write_out(line.as_bytes())?;
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

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.run = RunStats {
            agent: ctx.run.agent.name(),
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
        self.write_row(&totals, usage.as_ref(), "TOTAL", &tail, ctx)
    }
}

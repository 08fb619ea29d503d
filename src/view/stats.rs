//! `stats`: one row per run (session), and a totals row.
//!
//! Each row is written when its run ends, so memory holds one run's counters whatever the
//! size of the log. Columns: session id (first 8 characters), model, status (`success`,
//! `error`, `no result`), duration, answer length in bytes, thinking phases, tokens in and
//! out, tool calls by status and by kind, working directory. `--json` writes one object
//! per run instead (schema in the README).

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::IgnoredAny;

use crate::answer::Answer;
use crate::calls::CallTracker;
use crate::event::{EventKind, KindSet, Subtype, ThinkingPhase, Usage};
use crate::human;
use crate::session::{ExitStatus, Outcome, Sessions};
use crate::tool_call::{self, Phase};
use crate::view::{Ctx, Event, SessionEnd, View};

#[derive(Debug, Clone, Default)]
pub struct StatsOptions {
    pub json: bool,
}

/// One run's numbers; also used for the totals.
#[derive(Debug, Default, Clone, Serialize)]
pub struct RunStats {
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
    pub usage: Option<TokenStats>,
}

#[derive(Debug, Default, Clone, Serialize)]
pub struct ToolStats {
    pub total: u64,
    pub by_status: BTreeMap<String, u64>,
    pub by_kind: BTreeMap<String, u64>,
}

#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct TokenStats {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

impl TokenStats {
    fn from_usage(u: &Usage) -> TokenStats {
        TokenStats {
            input_tokens: u.input_tokens.as_u64().unwrap_or(0),
            output_tokens: u.output_tokens.as_u64().unwrap_or(0),
            cache_read_tokens: u.cache_read_tokens.as_u64().unwrap_or(0),
            cache_write_tokens: u.cache_write_tokens.as_u64().unwrap_or(0),
        }
    }

    fn add(&mut self, o: &TokenStats) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_read_tokens += o.cache_read_tokens;
        self.cache_write_tokens += o.cache_write_tokens;
    }
}

pub struct StatsView {
    opts: StatsOptions,
    run: RunStats,
    answer: Answer,
    tracker: CallTracker<()>,
    thinking_open: bool,
    totals: RunStats,
    runs_by_status: BTreeMap<&'static str, u64>,
    header_written: bool,
}

impl StatsView {
    pub fn new(opts: StatsOptions) -> StatsView {
        StatsView {
            opts,
            run: RunStats::default(),
            answer: Answer::default(),
            tracker: CallTracker::default(),
            thinking_open: false,
            totals: RunStats::default(),
            runs_by_status: BTreeMap::new(),
            header_written: false,
        }
    }

    fn count_call(&mut self, kind: &str, status: &str) {
        let tools = &mut self.run.tools;
        tools.total += 1;
        *tools.by_kind.entry(kind.to_string()).or_default() += 1;
        let status = if status == "success" { "ok" } else { status };
        *tools.by_status.entry(status.to_string()).or_default() += 1;
    }

    fn tool_call(&mut self, ev: &Event<'_>) {
        let phase = match &ev.head.subtype {
            Subtype::Known(Some(s)) if s == "started" => Phase::Started,
            Subtype::Known(Some(s)) if s == "completed" => Phase::Completed,
            Subtype::Known(_) => Phase::Other,
            Subtype::NotPeeked => Phase::Completed,
        };
        if phase == Phase::Other {
            return;
        }
        // The outcome is after the payload: a completion is read whole, but a start only
        // needs its kind and id.
        let Ok(call) = tool_call::read_tool_call::<IgnoredAny, IgnoredAny>(ev.line) else {
            return;
        };
        let kind = call.call.as_ref().map_or("unknown", |c| c.tool.as_ref());
        match call.phase {
            Phase::Started => {
                self.tracker
                    .start(call.call_id.as_deref(), kind, None, None);
            }
            Phase::Completed => {
                let Some(done) = self.tracker.complete(call.call_id.as_deref()) else {
                    return;
                };
                let kind = done
                    .started
                    .as_ref()
                    .map_or(kind, |s| s.tool.as_str())
                    .to_string();
                let status = call
                    .call
                    .as_ref()
                    .and_then(|c| c.result.as_ref())
                    .map_or("unknown", |r| r.status.as_ref())
                    .to_string();
                self.count_call(&kind, &status);
            }
            Phase::Other => {}
        }
    }

    /// One row of the table; `tail` is the last column (the working directory).
    fn write_row(
        &mut self,
        row: &RunStats,
        label: &str,
        tail: &str,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        if !self.header_written {
            self.header_written = true;
            ctx.out.write_out(
                format!(
                    "{:<8}  {:<16}  {:<10}  {:>9}  {:>9}  {:>5}  {:>17}  {}\n",
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
        let tokens = row.usage.map_or("-".to_string(), |u| {
            format!(
                "{}/{}",
                human::thousands(u.input_tokens),
                human::thousands(u.output_tokens)
            )
        });
        let tools = if row.tools.total == 0 {
            "-".to_string()
        } else {
            let statuses = human::status_order(&row.tools.by_status);
            let kinds: Vec<String> = row
                .tools
                .by_kind
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
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
            "{:<8}  {:<16}  {:<10}  {:>9}  {:>9}  {:>5}  {:>17}  {}{}\n",
            human::one_line(session, 8).trim_end_matches('…'),
            human::one_line(row.model.as_deref().unwrap_or("-"), 15),
            row.status,
            row.duration_ms.map_or("-".to_string(), human::duration),
            format!("{} B", human::thousands(row.answer_bytes)),
            row.thinking_phases,
            tokens,
            tools,
            if tail.is_empty() {
                String::new()
            } else {
                format!("  {}", human::one_line(tail, 80))
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
        if let Some(u) = &run.usage {
            t.usage.get_or_insert_with(TokenStats::default).add(u);
        }
    }
}

impl View for StatsView {
    fn interest(&self) -> KindSet {
        KindSet::ALL
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Sessions) -> ExitStatus {
        ExitStatus::SUCCESS
    }

    fn session_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.run = RunStats {
            session_id: ctx.run.session_id.clone(),
            model: ctx.run.model.clone(),
            cwd: ctx.run.cwd.clone(),
            ..RunStats::default()
        };
        self.answer.reset();
        self.thinking_open = false;
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        self.run.events += 1;
        match ev.kind() {
            EventKind::Assistant => {
                // A line that cannot be read adds nothing; `check` reports it.
                let _ = self.answer.assistant(ev.line);
            }
            EventKind::ToolCall => {
                self.answer.tool_call();
                self.tool_call(ev);
            }
            EventKind::Thinking => {
                // The subtype may be anywhere in the line: read it when the peek did not.
                let subtype = match &ev.head.subtype {
                    Subtype::Known(s) => s.clone(),
                    Subtype::NotPeeked => {
                        crate::event::parse_head(ev.line)
                            .ok()
                            .and_then(|h| match h.subtype {
                                Subtype::Known(s) => s,
                                Subtype::NotPeeked => None,
                            })
                    }
                };
                let phase = match subtype.as_deref() {
                    Some("completed") => ThinkingPhase::Completed,
                    _ => ThinkingPhase::Delta,
                };
                if phase == ThinkingPhase::Completed {
                    self.thinking_open = false;
                } else if !self.thinking_open {
                    self.thinking_open = true;
                    self.run.thinking_phases += 1;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        for (_, started) in self.tracker.end_run() {
            self.count_call(&started.tool, "pending");
        }
        let status = match end.outcome {
            Outcome::Succeeded => "success",
            Outcome::Failed { .. } | Outcome::Unreadable => "error",
            Outcome::NoResult => "no result",
        };
        *self.runs_by_status.entry(status).or_default() += 1;
        self.run.status = status.to_string();
        if let Some(result) = &end.result {
            self.run.duration_ms = result.event.duration_ms();
            self.run.usage = result.event.usage().as_ref().map(TokenStats::from_usage);
        }
        self.run.answer_bytes = self.answer.len();
        self.add_to_totals();
        let row = std::mem::take(&mut self.run);
        if self.opts.json {
            let mut line = serde_json::to_vec(&JsonRow(&row))?;
            line.push(b'\n');
            ctx.out.write_out(&line)?;
        } else {
            self.write_row(&row, "-", row.cwd.as_deref().unwrap_or(""), ctx)?;
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
        totals.status = human::count(runs, "run", "runs");
        let breakdown: Vec<String> = self
            .runs_by_status
            .iter()
            .map(|(s, n)| format!("{n} {s}"))
            .collect();
        let tail = format!("runs: {}", breakdown.join(", "));
        self.write_row(&totals, "TOTAL", &tail, ctx)
    }
}

/// The `--json` object of a run: `status` spelled `no_result` rather than with a space.
struct JsonRow<'a>(&'a RunStats);

impl Serialize for JsonRow<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut row = self.0.clone();
        row.status = row.status.replace(' ', "_");
        row.serialize(s)
    }
}

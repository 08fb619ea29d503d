//! `export`: the runs read (every agent's logs, or the files and streams named), as the
//! ledger's three tables (`crate::ledger`): a row per model call, per run and per tool
//! call, written as Parquet under the ledger's folder.
//!
//! Incremental: the logs whose size and time are what this machine's last export saw are
//! not even read (`config` leaves them out), and of a log read again only the rows whose
//! content is new are written (a run that has ended since is written again, under its
//! key). Rows are held until the end (a few dozen bytes each), then written by table and
//! day, then the machine's state.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::event::{Event, Outcome, RunEnd, StatusClass, Wants};
use crate::exit::ExitStatus;
use crate::ledger::{self, Call, Rec, Recorder, Run, RunKey, Seen, Stamp, State, Tool};
use crate::runs::Runs;
use crate::view::usage::prices::Prices;
use crate::view::{Ctx, View};

#[derive(Debug, Clone)]
pub struct ExportOptions {
    pub(crate) ledger: PathBuf,
    pub(crate) machine: String,
    pub(crate) prices: Arc<Prices>,
    /// What this machine exported before.
    pub(crate) state: Arc<State>,
    /// The logs read, by name, with their size and time before they were read.
    pub(crate) reading: Arc<BTreeMap<String, Seen>>,
    /// Logs left unread: unchanged since the last export.
    pub(crate) unchanged: usize,
}

/// A tool call of the open run (its run's key is final at the run's end).
struct OpenTool {
    seq: u64,
    tool: String,
    kind: &'static str,
    status: String,
    failed: bool,
    duration_ms: Option<u64>,
    start_ms: Option<i64>,
}

pub(crate) struct ExportView {
    opts: ExportOptions,
    calls: Recorder,
    runs: Vec<Run>,
    tools: Vec<Tool>,
    open_tools: Vec<OpenTool>,
}

impl ExportView {
    pub(crate) fn new(opts: ExportOptions) -> ExportView {
        ExportView {
            opts,
            calls: Recorder::default(),
            runs: Vec::new(),
            tools: Vec::new(),
            open_tools: Vec::new(),
        }
    }
}

/// A run's outcome in the ledger's words (those of `stats`, a failure said `failed`).
fn status(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Succeeded => "success",
        Outcome::Failed { .. } | Outcome::Unreadable => "failed",
        Outcome::NoEnd => "no_result",
    }
}

impl View for ExportView {
    fn wants(&self) -> Wants {
        Wants::BILLED.union(Wants::TOOLS)
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        ExitStatus::SUCCESS
    }

    fn fork(&self) -> Option<Self> {
        Some(ExportView::new(self.opts.clone()))
    }

    fn merge(&mut self, later: Self) {
        self.calls.records.extend(later.calls.records);
        self.runs.extend(later.runs);
        self.tools.extend(later.tools);
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.calls.run_start(ctx.diag.source(), &ctx.run);
        self.open_tools.clear();
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev {
            Event::Billed(billed) => self.calls.billed(billed, &ctx.run),
            Event::ToolEnded(end) if self.calls.open_run().is_some() => {
                self.open_tools.push(OpenTool {
                    seq: end.seq,
                    tool: end.call.tool.to_string(),
                    kind: end.call.kind.name(),
                    status: end.status.word.to_string(),
                    failed: matches!(
                        end.status.class,
                        StatusClass::Failed | StatusClass::Rejected
                    ),
                    duration_ms: end.duration_ms(),
                    start_ms: end.call.at_ms.and_then(|t| i64::try_from(t).ok()),
                });
            }
            _ => {}
        }
        Ok(())
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let first = self.calls.records.len();
        let Some(key) = self.calls.run_end(end, &ctx.run) else {
            return Ok(());
        };
        // The run's own records: those it gave, or the one of its usage (a stream's).
        let first = first.min(
            self.calls
                .records
                .iter()
                .rposition(|r| !Arc::ptr_eq(&r.run, &key))
                .map_or(0, |i| i + 1),
        );
        let mut usage = crate::agent::event::Usage::default();
        for r in &self.calls.records[first..] {
            usage.add(&r.usage);
        }
        let agent = ctx.run.agent;
        let tools = std::mem::take(&mut self.open_tools);
        self.runs.push(Run {
            key: key.clone(),
            agent,
            end_ms: end.last_ms.and_then(|t| i64::try_from(t).ok()),
            status: status(&end.outcome),
            model: self.calls.model(ctx.run.model.as_deref()),
            tool_calls: tools.len() as u64,
            failed_tool_calls: tools.iter().filter(|t| t.failed).count() as u64,
            usage,
            cost: None,
        });
        self.tools.extend(tools.into_iter().map(|t| Tool {
            run: key.clone(),
            agent,
            seq: t.seq,
            tool: t.tool,
            kind: t.kind,
            status: t.status,
            duration_ms: t.duration_ms,
            start_ms: t.start_ms,
        }));
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let exported_at_ms = jiff::Timestamp::now().as_millisecond();
        let records = std::mem::take(&mut self.calls.records);
        let calls = self.priced(&records);
        let new = self.new_rows(&calls);
        let stamp = Stamp {
            machine: &self.opts.machine,
            exported_at_ms,
        };
        let mut writer = ledger::Writer::new(&self.opts.ledger, stamp);
        let fallback = ledger::utc_day(exported_at_ms);
        writer.write(
            "calls",
            new.calls.iter().map(|&i| calls[i]),
            |c| c.rec.at_ms.map_or(fallback.clone(), ledger::utc_day),
            ledger::call_columns,
        )?;
        let days = run_days(&records);
        let day = |run: &Arc<RunKey>| {
            run.started_ms
                .or_else(|| days.get(&(Arc::as_ptr(run) as usize)).copied())
                .map_or(fallback.clone(), ledger::utc_day)
        };
        writer.write(
            "runs",
            new.runs.iter().map(|&i| &self.runs[i]),
            |r| day(&r.key),
            ledger::run_columns,
        )?;
        writer.write(
            "tools",
            new.tools.iter().map(|&i| &self.tools[i]),
            |t| day(&t.run),
            ledger::tool_columns,
        )?;
        let files = writer.files;
        self.save_state(new.digests)?;
        let message = format!(
            "cursor-stream: exported {} model calls, {} runs, {} tool calls ({} new rows in {} files) from {} logs into {} ({} logs unchanged since the last export)\n",
            calls.len(),
            self.runs.len(),
            self.tools.len(),
            new.calls.len() + new.runs.len() + new.tools.len(),
            files,
            self.opts.reading.len(),
            self.opts.ledger.display(),
            self.opts.unchanged,
        );
        if !ctx.diag.is_quiet() {
            ctx.out.begin_err_block();
            ctx.out.write_err(message.as_bytes());
        }
        Ok(())
    }
}

/// The rows of an export not yet written by this machine (by index), and every row's
/// digest by log.
struct NewRows {
    calls: Vec<usize>,
    runs: Vec<usize>,
    tools: Vec<usize>,
    digests: HashMap<Arc<str>, Vec<u64>>,
}

/// For a run that says no start, the time of its first call: its day.
fn run_days(records: &[Rec]) -> HashMap<usize, i64> {
    let mut days = HashMap::new();
    for r in records {
        if let Some(at) = r.at_ms {
            days.entry(Arc::as_ptr(&r.run) as usize).or_insert(at);
        }
    }
    days
}

impl ExportView {
    /// Each record with its cost, as `usage` reckons it by default: the agent's own figure
    /// where it reports one, else its tokens priced.
    /// The runs get the sum of their calls' costs (none when none has one).
    fn priced<'r>(&mut self, records: &'r [Rec]) -> Vec<Call<'r>> {
        let mut runs: HashMap<usize, f64> = HashMap::new();
        let calls: Vec<Call<'r>> = records
            .iter()
            .map(|rec| {
                let (cost, cost_source) = crate::view::usage::call_cost(&self.opts.prices, rec);
                if let Some(c) = cost {
                    *runs.entry(Arc::as_ptr(&rec.run) as usize).or_default() += c;
                }
                Call {
                    rec,
                    cost,
                    cost_source,
                }
            })
            .collect();
        for run in &mut self.runs {
            run.cost = runs.get(&(Arc::as_ptr(&run.key) as usize)).copied();
        }
        calls
    }

    /// The rows whose digest the log they come from did not give before.
    fn new_rows(&self, calls: &[Call<'_>]) -> NewRows {
        let mut new = NewRows {
            calls: Vec::new(),
            runs: Vec::new(),
            tools: Vec::new(),
            digests: HashMap::new(),
        };
        let mut written: HashMap<Arc<str>, HashSet<u64>> = HashMap::new();
        let mut check = |file: &Arc<str>, digest: u64| {
            new.digests.entry(file.clone()).or_default().push(digest);
            !written
                .entry(file.clone())
                .or_insert_with(|| self.opts.state.written(file))
                .contains(&digest)
        };
        let calls_new: Vec<usize> = (0..calls.len())
            .filter(|&i| check(&calls[i].rec.run.file, calls[i].digest()))
            .collect();
        let runs_new: Vec<usize> = (0..self.runs.len())
            .filter(|&i| check(&self.runs[i].key.file, self.runs[i].digest()))
            .collect();
        let tools_new: Vec<usize> = (0..self.tools.len())
            .filter(|&i| check(&self.tools[i].run.file, self.tools[i].digest()))
            .collect();
        new.calls = calls_new;
        new.runs = runs_new;
        new.tools = tools_new;
        new
    }

    /// This machine's state after the export: each log read, with its size and time
    /// before it was read and the digests of its rows now.
    fn save_state(&self, mut digests: HashMap<Arc<str>, Vec<u64>>) -> anyhow::Result<()> {
        let mut state = State {
            version: 1,
            machine: self.opts.machine.clone(),
            files: self.opts.state.files.clone(),
        };
        let mut changed = false;
        for (name, seen) in self.opts.reading.iter() {
            let mut seen = seen.clone();
            seen.rows = digests.remove(name.as_str()).unwrap_or_default();
            seen.rows.sort_unstable();
            seen.rows.dedup();
            if state.files.get(name) != Some(&seen) {
                changed = true;
                state.files.insert(name.clone(), seen);
            }
        }
        if changed {
            state.save(&self.opts.ledger)?;
        }
        Ok(())
    }
}

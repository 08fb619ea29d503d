//! `usage`: tokens and cost per day, week, month, session, model or run, for every agent.
//!
//! Built on the runs every view reads (streams, and the agents' session logs): each model
//! call a log records is one record ([`Event::Billed`]: its tokens, model, time and id,
//! counted once by its agent's rule, see each dialect); a stream's run, whose usage comes
//! at its end, is one record at the run's time. Records are kept (a few dozen bytes each:
//! a history of a gigabyte holds some tens of thousands), counted once more across files
//! by their id (a log copied into another), and summed at the end into rows of period ×
//! agent × model, cut by each record's own time in the chosen time zone.
//!
//! `--json` writes the rows, one object a line (schema in the README); on a terminal the
//! table fits its width and a bar per period follows; `--html` writes one offline page.

pub(crate) mod blocks;
pub(crate) mod html;
pub(crate) mod prices;

pub(crate) use prices::builtin_source;
pub(crate) mod table;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use jiff::tz::TimeZone;

use crate::agent::event::{Agent, Event, RunEnd, Wants};
use crate::exit::ExitStatus;
use crate::ledger::{Rec, Recorder};
use crate::out::diag::Unreadable;
use crate::runs::Runs;
use crate::view::{Ctx, View};
use prices::{Price, Prices};

/// What a row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Report {
    #[default]
    Daily,
    Weekly,
    Monthly,
    Session,
    Model,
    Run,
    /// The five-hour billing windows (`blocks.rs`).
    Blocks,
}

/// Where a cost comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CostMode {
    /// The agent's own figure where it reports one (more than nothing), else calculated.
    #[default]
    Auto,
    /// Always from the tokens and the price table.
    Calculate,
    /// The agent's own figure only.
    Reported,
}

#[derive(Debug, Clone)]
pub struct UsageOptions {
    pub report: Report,
    pub json: bool,
    pub html: bool,
    pub breakdown: bool,
    pub tz: TimeZone,
    /// Records at or after, and before, these times (epoch ms).
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    pub agent: Option<Agent>,
    pub cost: CostMode,
    pub prices: Arc<Prices>,
    /// `--ledger`: the calls come from this ledger, not from logs.
    pub ledger: Option<std::path::PathBuf>,
    /// `--by`: a column more.
    pub by: Option<By>,
    /// `--project`, for a ledger's calls (logs are chosen by it before they are read).
    pub project: Option<std::path::PathBuf>,
}

/// `--by`: what the column more in each row is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    /// The machine whose export holds the call (this one, for logs read here).
    Machine,
    /// The run's working directory.
    Project,
}

#[derive(Clone)]
pub(crate) struct UsageView {
    opts: UsageOptions,
    calls: Recorder,
    /// Records left out: a count that is no count.
    skipped: u64,
}

impl UsageView {
    pub(crate) fn new(opts: UsageOptions) -> UsageView {
        UsageView {
            opts,
            calls: Recorder::default(),
            skipped: 0,
        }
    }
}

impl View for UsageView {
    fn wants(&self) -> Wants {
        if self.opts.report == Report::Blocks {
            Wants::BILLED | Wants::LIMITS
        } else {
            Wants::BILLED
        }
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        ExitStatus::SUCCESS
    }

    fn fork(&self) -> Option<Self> {
        Some(UsageView::new(self.opts.clone()))
    }

    fn merge(&mut self, later: Self) {
        self.calls.records.extend(later.calls.records);
        self.calls.limits.extend(later.calls.limits);
        self.skipped += later.skipped;
    }

    fn unreadable(
        &mut self,
        what: Unreadable,
        _err: &dyn std::fmt::Display,
        _ctx: &mut Ctx,
    ) -> anyhow::Result<bool> {
        if what.event == "usage" {
            self.skipped += 1;
        }
        Ok(false)
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.calls.run_start(ctx.diag.source(), &ctx.run);
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev {
            Event::Billed(billed) => self.calls.billed(billed, &ctx.run),
            Event::Limit(limit) => self.calls.limit(limit, &ctx.run),
            _ => {}
        }
        Ok(())
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.calls.run_end(end, &ctx.run);
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if let Some(dir) = &self.opts.ledger {
            let (records, unread) = crate::ledger::read_calls(dir)?;
            self.calls.records = records;
            for why in unread {
                ctx.out.begin_err_block();
                ctx.out
                    .write_err(format!("cursor-stream: warning: {why}\n").as_bytes());
            }
        }
        if self.opts.report == Report::Blocks {
            self.write_blocks(ctx)?;
        } else {
            self.write_rows(ctx)?;
        }
        if self.skipped > 0 {
            ctx.out.begin_err_block();
            ctx.out.write_err(
                format!(
                    "cursor-stream: note: {} records with a token count that is no count were left out (skipped)\n",
                    self.skipped
                )
                .as_bytes(),
            );
        }
        Ok(())
    }
}

impl UsageView {
    /// The report's rows: as JSON lines, one HTML page, or a table.
    fn write_rows(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let rows = self.rows(ctx);
        if self.opts.json {
            for row in &rows.rows {
                let by = self.opts.by.map(|b| match b {
                    By::Machine => "machine",
                    By::Project => "project",
                });
                let mut line = row.json(self.opts.report, by);
                line.push('\n');
                ctx.out.write_out(line.as_bytes())?;
            }
        } else if self.opts.html {
            let page = html::page(&self.opts, &rows);
            ctx.out.write_out(page.as_bytes())?;
        } else {
            table::write(&self.opts, &rows, ctx)?;
        }
        Ok(())
    }

    /// `usage blocks`: as JSON lines, or a table.
    fn write_blocks(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let now_ms = jiff::Timestamp::now().as_millisecond();
        let records = std::mem::take(&mut self.calls.records);
        let kept = self.kept(&records, ctx);
        let blocks = blocks::blocks(&kept, &self.calls.limits);
        drop(kept);
        self.calls.records = records;
        if self.opts.json {
            for b in &blocks {
                let mut line = blocks::json_row(b, now_ms);
                line.push('\n');
                ctx.out.write_out(line.as_bytes())?;
            }
            return Ok(());
        }
        blocks::write(&self.opts, &blocks, now_ms, ctx)
    }
}

/// A call's cost as `usage` reckons it by default, and where it comes from: the agent's
/// own figure where it reports one (more than nothing), else its tokens priced by
/// `prices`; none for a model with no price.
pub(crate) fn call_cost(prices: &Prices, r: &Rec) -> (Option<f64>, Option<&'static str>) {
    if let Some(c) = r.usage.cost_usd.filter(|c| *c > 0.0) {
        return (Some(c), Some("agent"));
    }
    match r.model.as_deref().and_then(|m| prices.find(m)) {
        Some(p) => (Some(p.cost(&r.usage)), Some("prices")),
        None => (None, None),
    }
}

/// The report: its rows, and the totals.
pub(crate) struct Rows {
    pub rows: Vec<Row>,
    pub total: Sums,
    /// Whether any cost is known.
    pub priced: bool,
}

impl Rows {
    /// Whether the bars show cost: every row's cost is known in full. Where some model has
    /// no price they show tokens, which every row has, so that no row is drawn as nothing.
    pub(crate) fn chart_cost(&self) -> bool {
        self.rows
            .iter()
            .all(|r| r.sums.cost.is_some() && !r.sums.unpriced)
    }
}

/// One row: a period (or session, run, nothing) × agent × model.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub key: Key,
    pub agent: Agent,
    pub model: Option<Arc<str>>,
    pub sums: Sums,
}

/// What a row is about, by report.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Key {
    /// `2026-11-20`, the Monday of a week, or `2026-11`.
    Period(String),
    Session {
        session: Option<Arc<str>>,
        file: Arc<str>,
    },
    Run {
        file: Arc<str>,
        index: u32,
        session: Option<Arc<str>>,
    },
    None,
    /// With `--by`: the key, and the machine or project.
    By(Box<Key>, Arc<str>),
}

impl Key {
    /// The row's first cell.
    pub(crate) fn label(&self) -> String {
        match self {
            Key::By(key, by) if **key == Key::None => by.to_string(),
            Key::By(key, by) => format!("{}  {by}", key.label()),
            Key::Period(p) => p.clone(),
            Key::Session { session, .. } => session.as_deref().unwrap_or("-").to_string(),
            Key::Run { file, index, .. } => format!("{file}#{}", index + 1),
            Key::None => String::new(),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Sums {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub reasoning: u64,
    /// `None` when no record of the row has a cost.
    pub cost: Option<f64>,
    /// Whether some record of the row has no cost (a model with no price).
    pub unpriced: bool,
    /// The runs, by where their key is (records keep it alive).
    runs: HashSet<usize>,
    sessions: HashSet<(Arc<str>, Option<Arc<str>>)>,
}

impl Sums {
    pub(crate) fn total(&self) -> u64 {
        [self.output, self.cache_read, self.cache_write]
            .into_iter()
            .fold(self.input, u64::saturating_add)
    }

    pub(crate) fn runs(&self) -> usize {
        self.runs.len()
    }

    pub(crate) fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// The cost when every record of the sum has one; `None` when some has no price.
    pub(crate) fn full_cost(&self) -> Option<f64> {
        self.cost.filter(|_| !self.unpriced)
    }

    /// The token columns and the cost, as every `--json` row of `usage` writes them.
    pub(crate) fn json_fields(&self) -> [(&'static str, serde_json::Value); 7] {
        use serde_json::json;
        [
            ("input_tokens", json!(self.input)),
            ("output_tokens", json!(self.output)),
            ("cache_read_tokens", json!(self.cache_read)),
            ("cache_write_tokens", json!(self.cache_write)),
            ("reasoning_tokens", json!(self.reasoning)),
            ("total_tokens", json!(self.total())),
            ("cost_usd", json!(self.full_cost())),
        ]
    }

    /// A record, with its cost (`None`: no price).
    pub(crate) fn add(&mut self, r: &Rec, cost: Option<f64>) {
        // Saturating: each count is at most 2^53, a sum of millions of them still is not.
        self.input = self.input.saturating_add(r.usage.input);
        self.output = self.output.saturating_add(r.usage.output);
        self.cache_read = self.cache_read.saturating_add(r.usage.cache_read);
        self.cache_write = self.cache_write.saturating_add(r.usage.cache_write);
        self.reasoning = self
            .reasoning
            .saturating_add(r.usage.reasoning.unwrap_or(0));
        match cost {
            Some(c) => *self.cost.get_or_insert(0.0) += c,
            None => self.unpriced = true,
        }
        self.runs.insert(Arc::as_ptr(&r.run) as usize);
        self.sessions
            .insert((r.run.file.clone(), r.run.session.clone()));
    }

    fn merge(&mut self, o: &Sums) {
        self.input = self.input.saturating_add(o.input);
        self.output = self.output.saturating_add(o.output);
        self.cache_read = self.cache_read.saturating_add(o.cache_read);
        self.cache_write = self.cache_write.saturating_add(o.cache_write);
        self.reasoning = self.reasoning.saturating_add(o.reasoning);
        if let Some(c) = o.cost {
            *self.cost.get_or_insert(0.0) += c;
        }
        self.unpriced |= o.unpriced;
        self.runs.extend(o.runs.iter().copied());
        self.sessions.extend(o.sessions.iter().cloned());
    }
}

impl UsageView {
    /// The records counted once, chosen by project, agent and time, each with its cost by
    /// `--cost` (`None`: its model has no price); a note for each model with no price.
    fn kept<'r>(&self, records: &'r [Rec], ctx: &mut Ctx) -> Vec<(&'r Rec, Option<f64>)> {
        let (kept, unpriced) = self.kept_quietly_with(records);
        for (model, agent) in unpriced.keys() {
            ctx.out.begin_err_block();
            ctx.out.write_err(
                format!(
                    "cursor-stream: note: no price for {agent}'s model `{model}`: its cost is left \
                     blank (add it with --prices FILE, a price list in LiteLLM's format)\n"
                )
                .as_bytes(),
            );
        }
        kept
    }

    /// [`Self::kept`], without a word about the models with no price.
    pub(crate) fn kept_quietly<'r>(&self, records: &'r [Rec]) -> Vec<(&'r Rec, Option<f64>)> {
        self.kept_quietly_with(records).0
    }

    /// The records read so far, taken.
    pub(crate) fn take_records(&mut self) -> Vec<Rec> {
        std::mem::take(&mut self.calls.records)
    }

    /// The rate limits' states read.
    pub(crate) fn limits(&self) -> &[crate::ledger::LimitRec] {
        &self.calls.limits
    }

    /// The records kept, each with its cost, and the models with no price.
    #[allow(clippy::type_complexity)]
    fn kept_quietly_with<'r>(
        &self,
        records: &'r [Rec],
    ) -> (
        Vec<(&'r Rec, Option<f64>)>,
        BTreeMap<(String, &'static str), ()>,
    ) {
        let mut seen = HashSet::new();
        let mut unpriced: BTreeMap<(String, &'static str), ()> = BTreeMap::new();
        // Each model looked up once: a name found by no exact match is compared with
        // every name in the table.
        let mut prices: HashMap<Option<Arc<str>>, Option<Price>> = HashMap::new();
        let project = self
            .opts
            .ledger
            .as_ref()
            .and(self.opts.project.as_ref())
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()));
        let mut kept = Vec::new();
        for r in records {
            if !seen.insert(&*r.key) {
                continue;
            }
            if let Some(p) = &project
                && !r
                    .run
                    .cwd
                    .as_deref()
                    .is_some_and(|c| std::path::Path::new(c).starts_with(p))
            {
                continue;
            }
            if self.opts.agent.is_some_and(|a| a != r.agent) {
                continue;
            }
            if let Some(at) = r.at_ms
                && (self.opts.since_ms.is_some_and(|s| at < s)
                    || self.opts.until_ms.is_some_and(|u| at >= u))
            {
                continue;
            }
            let price = prices.entry(r.model.clone()).or_insert_with(|| {
                r.model
                    .as_deref()
                    .and_then(|m| self.opts.prices.find(m))
                    .cloned()
            });
            kept.push((
                r,
                Self::cost(self.opts.cost, price.as_ref(), r, &mut unpriced),
            ));
        }
        (kept, unpriced)
    }

    /// The records, counted once, chosen, priced and summed into rows.
    fn rows(&mut self, ctx: &mut Ctx) -> Rows {
        let mut rows: BTreeMap<(Key, &'static str, Option<Arc<str>>), Row> = BTreeMap::new();
        let mut total = Sums::default();
        let mut priced = false;
        let records = std::mem::take(&mut self.calls.records);
        let host: Arc<str> = Arc::from(crate::ledger::host_name());
        for (r, cost) in self.kept(&records, ctx) {
            priced |= cost.is_some();
            let key = self.key(r, &host);
            let row = rows
                .entry((key.clone(), r.agent.name(), r.model.clone()))
                .or_insert_with(|| Row {
                    key,
                    agent: r.agent,
                    model: r.model.clone(),
                    sums: Sums::default(),
                });
            row.sums.add(r, cost);
            total.add(r, cost);
        }
        self.calls.records = records;
        Rows {
            rows: rows.into_values().collect(),
            total,
            priced,
        }
    }

    /// The record's cost by `mode`, with the price of its model (`None`: not in the table).
    fn cost(
        mode: CostMode,
        price: Option<&Price>,
        r: &Rec,
        unpriced: &mut BTreeMap<(String, &'static str), ()>,
    ) -> Option<f64> {
        let reported = r.usage.cost_usd.filter(|c| *c > 0.0);
        let mut calculate = || {
            if price.is_none() {
                let model = r.model.as_deref().unwrap_or("(unnamed)");
                unpriced
                    .entry((model.to_string(), r.agent.name()))
                    .or_insert(());
            }
            price.map(|p| p.cost(&r.usage))
        };
        match mode {
            CostMode::Reported => r.usage.cost_usd,
            CostMode::Calculate => calculate(),
            CostMode::Auto => reported.or_else(calculate),
        }
    }

    fn key(&self, r: &Rec, host: &Arc<str>) -> Key {
        let key = self.base_key(r);
        match self.opts.by {
            None => key,
            Some(By::Machine) => Key::By(Box::new(key), r.machine.clone().unwrap_or(host.clone())),
            Some(By::Project) => Key::By(
                Box::new(key),
                r.run.cwd.clone().unwrap_or_else(|| Arc::from("-")),
            ),
        }
    }

    fn base_key(&self, r: &Rec) -> Key {
        match self.opts.report {
            Report::Daily | Report::Weekly | Report::Monthly => {
                Key::Period(period(r.at_ms, self.opts.report, &self.opts.tz))
            }
            Report::Session => Key::Session {
                session: r.run.session.clone(),
                file: r.run.file.clone(),
            },
            Report::Run => Key::Run {
                file: r.run.file.clone(),
                index: r.run.index,
                session: r.run.session.clone(),
            },
            // (Blocks are cut by `blocks.rs`, not keyed.)
            Report::Model | Report::Blocks => Key::None,
        }
    }
}

/// The period a time falls in, in `tz`: its day, its week's Monday, its month.
fn period(at_ms: Option<i64>, report: Report, tz: &TimeZone) -> String {
    let Some(day) = at_ms
        .and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map(|t| t.to_zoned(tz.clone()).date())
    else {
        return "unknown".to_string();
    };
    match report {
        Report::Weekly => {
            let back = i64::from(day.weekday().to_monday_zero_offset());
            let monday = day.checked_sub(jiff::Span::new().days(back)).unwrap_or(day);
            monday.to_string()
        }
        Report::Monthly => format!("{:04}-{:02}", day.year(), day.month()),
        _ => day.to_string(),
    }
}

impl Row {
    /// The row as `--json` writes it: the key's fields, then the agent's, the model's and
    /// the numbers.
    pub(crate) fn json(&self, report: Report, by_name: Option<&'static str>) -> String {
        use serde_json::{Value, json};
        let (key, by) = match &self.key {
            Key::By(key, by) => (&**key, Some(by)),
            key => (key, None),
        };
        let mut fields: Vec<(&str, Value)> = match (key, report) {
            (Key::Period(p), _) => vec![("date", json!(p))],
            (Key::Session { session, file }, _) => vec![
                ("session_id", json!(session.as_deref())),
                ("file", json!(&**file)),
            ],
            (
                Key::Run {
                    file,
                    index,
                    session,
                },
                _,
            ) => vec![
                ("file", json!(&**file)),
                ("session_id", json!(session.as_deref())),
                ("index", json!(index)),
            ],
            (Key::None | Key::By(..), _) => Vec::new(),
        };
        if let (Some(by), Some(name)) = (by, by_name) {
            fields.push((name, json!(&**by)));
        }
        let s = &self.sums;
        fields.extend([
            ("agent", json!(self.agent.name())),
            ("model", json!(self.model.as_deref())),
        ]);
        fields.extend(s.json_fields());
        fields.extend([("runs", json!(s.runs())), ("sessions", json!(s.sessions()))]);
        json_object(&fields)
    }
}

/// A JSON object with its keys in the order given (serde_json's map would sort them).
pub(crate) fn json_object(fields: &[(&str, serde_json::Value)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&serde_json::to_string(k).unwrap_or_default());
        out.push(':');
        out.push_str(&v.to_string());
    }
    out.push('}');
    out
}

/// Rows gathered by key and agent (the table's rows without `--breakdown`): the models of
/// each, and their sums.
pub(crate) fn by_agent(rows: &[Row]) -> Vec<(Key, Agent, Vec<Arc<str>>, Sums)> {
    let mut out: Vec<(Key, Agent, Vec<Arc<str>>, Sums)> = Vec::new();
    for row in rows {
        match out.last_mut() {
            Some((k, a, models, sums)) if *k == row.key && *a == row.agent => {
                models.extend(row.model.clone());
                sums.merge(&row.sums);
            }
            _ => out.push((
                row.key.clone(),
                row.agent,
                row.model.clone().into_iter().collect(),
                row.sums.clone(),
            )),
        }
    }
    out
}

/// Two days of the report: the first of a priced model, the second of a model with no price
/// (the charts' tests).
#[cfg(test)]
pub(crate) fn a_priced_day_and_an_unpriced_one() -> Rows {
    let day = |date: &str, model: &str, tokens: u64, cost: Option<f64>| Row {
        key: Key::Period(date.to_string()),
        agent: Agent::Claude,
        model: Some(Arc::from(model)),
        sums: Sums {
            input: tokens,
            cost,
            unpriced: cost.is_none(),
            ..Sums::default()
        },
    };
    Rows {
        rows: vec![
            day("2026-11-20", "claude-sonnet-4-5", 1000, Some(1.0)),
            day("2026-11-21", "mystery-model-9", 2000, None),
        ],
        total: Sums {
            input: 3000,
            cost: Some(1.0),
            unpriced: true,
            ..Sums::default()
        },
        priced: true,
    }
}

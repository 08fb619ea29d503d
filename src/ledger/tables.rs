//! The ledger's three tables — `calls`, `runs`, `tools` — as rows and as Parquet columns:
//! the one place their columns are named. No prompt, answer or tool argument text is in
//! any of them: counts, names, kinds, statuses and working directories only.

use std::collections::HashMap;
use std::hash::Hasher as _;
use std::sync::Arc;

use super::parquet::{Column, ReadRow};
use super::record::{Rec, RunKey};
use crate::agent::event::{Agent, Usage};

/// A model call, as `export` writes it: the record `usage` counts, and its cost.
#[derive(Clone, Copy)]
pub(crate) struct Call<'r> {
    pub rec: &'r Rec,
    pub cost: Option<f64>,
    /// Where the cost comes from: `agent` (its own figure) or `prices` (the tokens priced).
    pub cost_source: Option<&'static str>,
}

/// A run: how it ended, its tool calls and what its model calls used.
#[derive(Debug)]
pub(crate) struct Run {
    pub key: Arc<RunKey>,
    pub agent: Agent,
    pub end_ms: Option<i64>,
    /// `success`, `failed` or `no_result`.
    pub status: &'static str,
    pub model: Option<Arc<str>>,
    pub tool_calls: u64,
    /// Calls that did not succeed: failed, or refused by a rule, the user or a hook.
    pub failed_tool_calls: u64,
    pub usage: Usage,
    pub cost: Option<f64>,
}

/// A tool call.
#[derive(Debug)]
pub(crate) struct Tool {
    pub run: Arc<RunKey>,
    pub agent: Agent,
    /// Its place in its run, from 0.
    pub seq: u64,
    /// The agent's name for it.
    pub tool: String,
    /// What it does, in one vocabulary (`shell`, `read`, `edit`, …).
    pub kind: &'static str,
    /// `success`, or the agent's word for how it ended otherwise.
    pub status: String,
    pub duration_ms: Option<u64>,
    pub start_ms: Option<i64>,
}

/// What each row of an export shares: the machine and the export's time.
pub(crate) struct Stamp<'s> {
    pub machine: &'s str,
    pub exported_at_ms: i64,
}

/// A moment as the ledger writes it: none past what every engine reads (a hostile log's
/// year 300000 would make DuckDB refuse the whole file), years -9999 to 9999.
fn moment(ms: Option<i64>) -> Option<i64> {
    ms.filter(|ms| jiff::Timestamp::from_millisecond(*ms).is_ok())
}

fn text(s: Option<&str>) -> Option<String> {
    s.map(str::to_string)
}

fn int(n: u64) -> Option<i64> {
    Some(i64::try_from(n).unwrap_or(i64::MAX))
}

/// The token columns of `usage --json`, and the hour-long cache's part of the writes
/// (priced apart) and the agent's own cost, so that any `--cost` choice reads back exact.
fn token_columns(usage: &[&Usage]) -> Vec<Column> {
    let col = |f: fn(&Usage) -> u64| usage.iter().map(|u| int(f(u))).collect();
    vec![
        Column::int("input_tokens", false, col(|u| u.input)),
        Column::int("output_tokens", false, col(|u| u.output)),
        Column::int("cache_read_tokens", false, col(|u| u.cache_read)),
        Column::int("cache_write_tokens", false, col(|u| u.cache_write)),
        Column::int("reasoning_tokens", false, col(|u| u.reasoning.unwrap_or(0))),
        Column::int(
            "total_tokens",
            false,
            col(|u| {
                [u.output, u.cache_read, u.cache_write]
                    .into_iter()
                    .fold(u.input, u64::saturating_add)
            }),
        ),
        Column::int(
            "cache_write_1h_tokens",
            true,
            usage
                .iter()
                .map(|u| u.cache_write_1h.and_then(int))
                .collect(),
        ),
        Column::real(
            "reported_cost_usd",
            true,
            usage.iter().map(|u| u.cost_usd).collect(),
        ),
    ]
}

fn stamp_columns(n: usize, stamp: &Stamp<'_>) -> Vec<Column> {
    // `exported_at` is this machine's clock: always a moment engines read.
    vec![
        Column::text("machine", false, vec![Some(stamp.machine.to_string()); n]),
        Column::time("exported_at", false, vec![Some(stamp.exported_at_ms); n]),
    ]
}

/// The `calls` table's columns for `calls`.
pub(crate) fn call_columns(calls: &[Call<'_>], stamp: &Stamp<'_>) -> Vec<Column> {
    let run = |f: fn(&RunKey) -> Option<String>| calls.iter().map(|c| f(&c.rec.run)).collect();
    let mut cols = vec![
        Column::text(
            "call_key",
            false,
            calls.iter().map(|c| Some(c.rec.key.to_string())).collect(),
        ),
        Column::text(
            "agent",
            false,
            calls
                .iter()
                .map(|c| text(Some(c.rec.agent.name())))
                .collect(),
        ),
        Column::text(
            "model",
            true,
            calls.iter().map(|c| text(c.rec.model.as_deref())).collect(),
        ),
        Column::text("session_id", true, run(|r| text(r.session.as_deref()))),
        Column::int(
            "run_index",
            false,
            run_index(calls.iter().map(|c| &*c.rec.run)),
        ),
        Column::text(
            "run_key",
            false,
            calls
                .iter()
                .map(|c| Some(c.rec.run.ledger_key(c.rec.agent)))
                .collect(),
        ),
        // Null when the input says no time at all (a stream read from stdin).
        Column::time(
            "time",
            true,
            calls.iter().map(|c| moment(c.rec.at_ms)).collect(),
        ),
        Column::text("cwd", true, run(|r| text(r.cwd.as_deref()))),
    ];
    let usage: Vec<&Usage> = calls.iter().map(|c| &c.rec.usage).collect();
    cols.extend(token_columns(&usage));
    cols.push(Column::real(
        "cost_usd",
        true,
        calls.iter().map(|c| c.cost).collect(),
    ));
    cols.push(Column::text(
        "cost_source",
        true,
        calls.iter().map(|c| text(c.cost_source)).collect(),
    ));
    cols.extend(stamp_columns(calls.len(), stamp));
    cols
}

fn run_index<'k>(runs: impl Iterator<Item = &'k RunKey>) -> Vec<Option<i64>> {
    runs.map(|r| Some(i64::from(r.index))).collect()
}

/// The `runs` table's columns for `runs`.
pub(crate) fn run_columns(runs: &[&Run], stamp: &Stamp<'_>) -> Vec<Column> {
    let mut cols = vec![
        Column::text(
            "run_key",
            false,
            runs.iter()
                .map(|r| Some(r.key.ledger_key(r.agent)))
                .collect(),
        ),
        Column::text(
            "agent",
            false,
            runs.iter().map(|r| text(Some(r.agent.name()))).collect(),
        ),
        Column::text(
            "session_id",
            true,
            runs.iter()
                .map(|r| text(r.key.session.as_deref()))
                .collect(),
        ),
        Column::int("run_index", false, run_index(runs.iter().map(|r| &*r.key))),
        Column::time(
            "start",
            true,
            runs.iter().map(|r| moment(r.key.started_ms)).collect(),
        ),
        Column::time("end", true, runs.iter().map(|r| moment(r.end_ms)).collect()),
        Column::text(
            "status",
            false,
            runs.iter().map(|r| text(Some(r.status))).collect(),
        ),
        Column::text(
            "model",
            true,
            runs.iter().map(|r| text(r.model.as_deref())).collect(),
        ),
        Column::int(
            "tool_calls",
            false,
            runs.iter().map(|r| int(r.tool_calls)).collect(),
        ),
        Column::int(
            "failed_tool_calls",
            false,
            runs.iter().map(|r| int(r.failed_tool_calls)).collect(),
        ),
    ];
    let usage: Vec<&Usage> = runs.iter().map(|r| &r.usage).collect();
    cols.extend(token_columns(&usage));
    cols.push(Column::real(
        "cost_usd",
        true,
        runs.iter().map(|r| r.cost).collect(),
    ));
    cols.push(Column::text(
        "cwd",
        true,
        runs.iter().map(|r| text(r.key.cwd.as_deref())).collect(),
    ));
    cols.extend(stamp_columns(runs.len(), stamp));
    cols
}

/// The `tools` table's columns for `tools`.
pub(crate) fn tool_columns(tools: &[&Tool], stamp: &Stamp<'_>) -> Vec<Column> {
    let mut cols = vec![
        Column::text(
            "run_key",
            false,
            tools
                .iter()
                .map(|t| Some(t.run.ledger_key(t.agent)))
                .collect(),
        ),
        Column::int("seq", false, tools.iter().map(|t| int(t.seq)).collect()),
        Column::text(
            "agent",
            false,
            tools.iter().map(|t| text(Some(t.agent.name()))).collect(),
        ),
        Column::text(
            "tool",
            false,
            tools.iter().map(|t| Some(t.tool.clone())).collect(),
        ),
        Column::text(
            "kind",
            false,
            tools.iter().map(|t| text(Some(t.kind))).collect(),
        ),
        Column::text(
            "status",
            false,
            tools.iter().map(|t| Some(t.status.clone())).collect(),
        ),
        Column::int(
            "duration_ms",
            true,
            tools.iter().map(|t| t.duration_ms.and_then(int)).collect(),
        ),
        Column::time(
            "start",
            true,
            tools.iter().map(|t| moment(t.start_ms)).collect(),
        ),
    ];
    cols.extend(stamp_columns(tools.len(), stamp));
    cols
}

/// A stable digest of a row's content (not its machine or export time): an export writes
/// a row again only when its content changed (a run that ended since).
#[derive(Default)]
pub(crate) struct Digest(twox_hash::XxHash64);

impl Digest {
    pub(crate) fn text(mut self, s: Option<&str>) -> Self {
        match s {
            Some(s) => {
                self.0.write_u8(1);
                self.0.write(s.as_bytes());
                self.0.write_u8(0xff);
            }
            None => self.0.write_u8(0),
        }
        self
    }

    pub(crate) fn int(mut self, n: Option<i64>) -> Self {
        match n {
            Some(n) => {
                self.0.write_u8(1);
                self.0.write(&n.to_le_bytes());
            }
            None => self.0.write_u8(0),
        }
        self
    }

    fn usage(self, u: &Usage) -> Self {
        let n = |v: u64| Some(i64::try_from(v).unwrap_or(i64::MAX));
        self.int(n(u.input))
            .int(n(u.output))
            .int(n(u.cache_read))
            .int(n(u.cache_write))
            .int(u.reasoning.and_then(n))
            .int(u.cache_write_1h.and_then(n))
            .int(u.cost_usd.map(|c| c.to_bits() as i64))
    }

    pub(crate) fn finish(self) -> u64 {
        self.0.finish()
    }
}

impl Call<'_> {
    pub(crate) fn digest(&self) -> u64 {
        let r = self.rec;
        Digest::default()
            .text(Some("call"))
            .text(Some(&r.key))
            .text(r.model.as_deref())
            .int(r.at_ms)
            .text(Some(&r.run.ledger_key(r.agent)))
            .text(r.run.cwd.as_deref())
            .usage(&r.usage)
            .finish()
    }
}

impl Run {
    pub(crate) fn digest(&self) -> u64 {
        let n = |v: u64| Some(i64::try_from(v).unwrap_or(i64::MAX));
        Digest::default()
            .text(Some("run"))
            .text(Some(&self.key.ledger_key(self.agent)))
            .int(self.end_ms)
            .text(Some(self.status))
            .text(self.model.as_deref())
            .int(n(self.tool_calls))
            .int(n(self.failed_tool_calls))
            .text(self.key.cwd.as_deref())
            .usage(&self.usage)
            .finish()
    }
}

impl Tool {
    pub(crate) fn digest(&self) -> u64 {
        Digest::default()
            .text(Some("tool"))
            .text(Some(&self.run.ledger_key(self.agent)))
            .int(i64::try_from(self.seq).ok())
            .text(Some(&self.tool))
            .text(Some(&self.status))
            .int(self.duration_ms.and_then(|d| i64::try_from(d).ok()))
            .int(self.start_ms)
            .finish()
    }
}

/// A `calls` row read back, as the record `usage` counts. Its run is one per `run_key`
/// (`runs` counts them), its "file" the agent and session, which a ledger knows instead.
pub(crate) fn call_from_row(
    row: &ReadRow<'_>,
    runs: &mut HashMap<String, Arc<RunKey>>,
) -> Option<Rec> {
    let agent = Agent::ALL
        .into_iter()
        .find(|a| Some(a.name()) == row.text("agent"))?;
    let count = |name: &str| {
        row.int(name)
            .and_then(|n| u64::try_from(n).ok())
            .unwrap_or(0)
    };
    let machine: Arc<str> = Arc::from(row.text("machine").unwrap_or(""));
    let usage = Usage {
        input: count("input_tokens"),
        output: count("output_tokens"),
        cache_read: count("cache_read_tokens"),
        cache_write: count("cache_write_tokens"),
        reasoning: row
            .int("reasoning_tokens")
            .and_then(|n| u64::try_from(n).ok())
            .filter(|n| *n > 0),
        cost_usd: row.real("reported_cost_usd"),
        cache_write_1h: row
            .int("cache_write_1h_tokens")
            .and_then(|n| u64::try_from(n).ok()),
    };
    let run_key = row.text("run_key").unwrap_or("");
    let run = match runs.get(run_key) {
        Some(run) => run.clone(),
        None => {
            let session = row.text("session_id");
            let run = Arc::new(RunKey {
                file: Arc::from(format!("{}:{}", agent.name(), session.unwrap_or("-"))),
                session: session.map(Arc::from),
                index: row
                    .int("run_index")
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(0),
                started_ms: None,
                cwd: row.text("cwd").map(Arc::from),
            });
            runs.insert(run_key.to_string(), run.clone());
            run
        }
    };
    Some(Rec {
        at_ms: row.int("time"),
        agent,
        model: row.text("model").map(Arc::from),
        usage,
        run,
        key: row.text("call_key")?.into(),
        machine: Some(machine),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moment_past_what_engines_read_is_written_null() {
        assert_eq!(moment(Some(1_795_000_000_000)), Some(1_795_000_000_000));
        assert_eq!(moment(Some(-1_000)), Some(-1_000));
        // The year 285 million; and i64::MAX, which DuckDB's microseconds would overflow.
        assert_eq!(moment(Some(9_000_000_000_000_000)), None);
        assert_eq!(moment(Some(i64::MAX)), None);
        assert_eq!(moment(None), None);
    }
}

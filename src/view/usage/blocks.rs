//! `usage blocks`: the five-hour billing windows, per agent, with the rate limits the agent
//! itself recorded in each.
//!
//! A block starts at the first call at or after the previous block's end, floored to the
//! whole UTC hour, and ends five hours later. That is the window of Anthropic's plans (the
//! five hours from a session's first message; ccusage's `blocks` places them the same way)
//! and the length of the primary window of Codex's (`rate_limits.primary.window_minutes`,
//! 300); the other agents' plans have no such window, and their blocks are the same cut of
//! their activity, for comparison. A call is placed by its own time (a saved stream's run by
//! its time stamps, else its file's time, as every `usage` report).
//!
//! The limits are never guessed from the history: each is the last state the agent wrote
//! within the block for that window (Codex's `rate_limits`: the percent used and the reset;
//! Claude's `rate_limit_event`: a status and the reset). A block with none says so.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::{Sums, UsageOptions, json_object, table::cost_cell};
use crate::agent::event::{Agent, LimitWindow};
use crate::ledger::{LimitRec, Rec};
use crate::out::{Channel, escape_line, fit};
use crate::view::{Ctx, words};

/// A block's length.
pub(crate) const BLOCK_MS: i64 = 5 * 3_600_000;
const HOUR_MS: i64 = 3_600_000;
/// The shortest activity a burn rate is drawn from: under it, a rate says nothing.
const MIN_ELAPSED_MS: i64 = 60_000;

/// One block of one agent.
#[derive(Debug, Clone)]
pub(crate) struct Block {
    pub agent: Agent,
    pub start_ms: i64,
    pub first_ms: i64,
    pub last_ms: i64,
    pub sums: Sums,
    pub calls: u64,
    pub models: BTreeSet<Arc<str>>,
    /// The last state of each window recorded within the block.
    pub limits: Vec<LimitRec>,
}

impl Block {
    pub(crate) fn end_ms(&self) -> i64 {
        self.start_ms + BLOCK_MS
    }

    /// Whether `now` is within the block.
    pub(crate) fn active(&self, now_ms: i64) -> bool {
        (self.start_ms..self.end_ms()).contains(&now_ms)
    }

    /// How long the block has been used: from its first call to its last, or to `now` while
    /// it is active. `None` when too short to draw a rate from.
    fn elapsed_ms(&self, now_ms: i64) -> Option<i64> {
        let until = if self.active(now_ms) {
            now_ms.max(self.last_ms)
        } else {
            self.last_ms
        };
        Some(until - self.first_ms).filter(|e| *e >= MIN_ELAPSED_MS)
    }

    /// Tokens and cost per hour.
    pub(crate) fn rates(&self, now_ms: i64) -> (Option<f64>, Option<f64>) {
        let Some(elapsed) = self.elapsed_ms(now_ms) else {
            return (None, None);
        };
        let hours = elapsed as f64 / HOUR_MS as f64;
        let cost = self.sums.full_cost();
        (
            Some(self.sums.total() as f64 / hours),
            cost.map(|c| c / hours),
        )
    }

    /// The totals at the block's end: at this pace for the time left of an active block;
    /// what it came to, for one that ended.
    pub(crate) fn projected(&self, now_ms: i64) -> (Option<f64>, Option<f64>) {
        let cost = self.sums.full_cost();
        let total = self.sums.total() as f64;
        if !self.active(now_ms) {
            return (Some(total), cost);
        }
        let (tokens_rate, cost_rate) = self.rates(now_ms);
        let left = (self.end_ms() - now_ms) as f64 / HOUR_MS as f64;
        (
            tokens_rate.map(|r| total + r * left),
            cost.zip(cost_rate).map(|(c, r)| c + r * left),
        )
    }
}

/// The blocks of the calls kept, each agent's apart, oldest first; each with the last state
/// of each window of `limits` recorded within it.
pub(crate) fn blocks(kept: &[(&Rec, Option<f64>)], limits: &[LimitRec]) -> Vec<Block> {
    let mut timed: Vec<(&Rec, Option<f64>, i64)> = kept
        .iter()
        .filter_map(|(r, cost)| Some((*r, *cost, r.at_ms?)))
        .collect();
    timed.sort_by_key(|(r, _, at)| (r.agent.name(), *at));
    let mut out: Vec<Block> = Vec::new();
    for (r, cost, at) in timed {
        let open = out
            .last_mut()
            .filter(|b| b.agent == r.agent && at < b.end_ms());
        let block = match open {
            Some(b) => b,
            None => {
                out.push(Block {
                    agent: r.agent,
                    start_ms: at - at.rem_euclid(HOUR_MS),
                    first_ms: at,
                    last_ms: at,
                    sums: Sums::default(),
                    calls: 0,
                    models: BTreeSet::new(),
                    limits: Vec::new(),
                });
                out.last_mut().expect("just pushed")
            }
        };
        block.last_ms = at;
        block.calls += 1;
        block.sums.add(r, cost);
        block.models.extend(r.model.clone());
    }
    for block in &mut out {
        block.limits = last_limits(block, limits);
    }
    // Oldest first, whatever the agent.
    out.sort_by_key(|b| (b.start_ms, b.agent.name()));
    out
}

/// The last state of each window the block's agent recorded within the block.
fn last_limits(block: &Block, limits: &[LimitRec]) -> Vec<LimitRec> {
    let mut last: Vec<LimitRec> = Vec::new();
    let within = |l: &&LimitRec| {
        l.agent == block.agent
            && l.at_ms
                .is_some_and(|at| (block.start_ms..block.end_ms()).contains(&at))
    };
    for l in limits.iter().filter(within) {
        match last.iter_mut().find(|k| k.window == l.window) {
            Some(k) if k.at_ms <= l.at_ms => *k = l.clone(),
            Some(_) => {}
            None => last.push(l.clone()),
        }
    }
    last.sort_by_key(|l| l.window);
    last
}

/// An epoch-ms time as RFC 3339 in UTC (`2026-11-28T08:00:00Z`).
fn rfc3339(ms: i64) -> Value {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| json!(t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()))
        .unwrap_or(Value::Null)
}

/// A block as `--json` writes it.
pub(crate) fn json_row(b: &Block, now_ms: i64) -> String {
    let (tokens_per_hour, cost_per_hour) = b.rates(now_ms);
    let (projected_tokens, projected_cost) = b.projected(now_ms);
    let s = &b.sums;
    let limits: Vec<String> = b
        .limits
        .iter()
        .map(|l| {
            json_object(&[
                ("window", json!(l.window.name())),
                ("used_percent", json!(l.used_percent)),
                ("resets_at", l.resets_ms.map_or(Value::Null, rfc3339)),
                ("source", json!(format!("{} {}", b.agent.name(), l.source))),
                ("status", json!(l.status.as_deref())),
                ("recorded_at", l.at_ms.map_or(Value::Null, rfc3339)),
            ])
        })
        .collect();
    let round = |x: Option<f64>| x.map(|v| (v * 1e6).round() / 1e6);
    let mut fields: Vec<(&str, Value)> = vec![
        ("agent", json!(b.agent.name())),
        ("block_start", rfc3339(b.start_ms)),
        ("block_end", rfc3339(b.end_ms())),
        ("last_call", rfc3339(b.last_ms)),
        ("active", json!(b.active(now_ms))),
        (
            "models",
            json!(b.models.iter().map(|m| &**m).collect::<Vec<_>>()),
        ),
    ];
    fields.extend(s.json_fields());
    fields.extend([
        ("calls", json!(b.calls)),
        (
            "tokens_per_hour",
            json!(tokens_per_hour.map(|t| t.round() as u64)),
        ),
        ("cost_per_hour", json!(round(cost_per_hour))),
        (
            "projected_total_tokens",
            json!(projected_tokens.map(|t| t.round() as u64)),
        ),
        ("projected_cost_usd", json!(round(projected_cost))),
        ("runs", json!(s.runs())),
    ]);
    let mut out = json_object(&fields);
    // The limits last, each an object of its own in the same key order.
    out.pop();
    out.push_str(&format!(",\"limits\":[{}]}}", limits.join(",")));
    out
}

/// A time in the report's time zone, `2026-11-28 08:00`.
fn local(ms: i64, opts: &UsageOptions) -> String {
    zoned(ms, &opts.tz, "%Y-%m-%d %H:%M")
}

/// An epoch-ms time in `tz`, by a `strftime` format.
pub(crate) fn zoned(ms: i64, tz: &jiff::tz::TimeZone, format: &str) -> String {
    jiff::Timestamp::from_millisecond(ms)
        .map(|t| t.to_zoned(tz.clone()).strftime(format).to_string())
        .unwrap_or_default()
}

/// The limits' cell: `5h 58% (resets 14:32) · 7d 42%`, Claude's status where it gives no
/// percent; "none recorded" where the agent wrote none.
fn limits_cell(b: &Block, opts: &UsageOptions) -> String {
    if b.limits.is_empty() {
        return "none recorded".to_string();
    }
    let parts: Vec<String> = b
        .limits
        .iter()
        .map(|l| {
            let window = match l.window {
                LimitWindow::FiveHour => "5h",
                LimitWindow::SevenDay => "7d",
            };
            let state = match (l.used_percent, l.status.as_deref()) {
                (Some(p), _) => format!("{p:.0}%"),
                (None, Some(s)) => s.to_string(),
                (None, None) => "?".to_string(),
            };
            match l.resets_ms {
                Some(r) => format!("{window} {state} (resets {})", local(r, opts)),
                None => format!("{window} {state}"),
            }
        })
        .collect();
    escape_line(&parts.join(" · "))
}

/// A block's cells in the table: the active one marked, its limits beside it.
fn row(b: &Block, now_ms: i64, opts: &UsageOptions) -> [String; 8] {
    let (rate, _) = b.rates(now_ms);
    let (projected, projected_cost) = b.projected(now_ms);
    let mark = if b.active(now_ms) { " ●" } else { "" };
    // Token figures rounded as in --json.
    let tokens = |t: f64| words::thousands(t.round() as u64);
    let at_end = match (b.active(now_ms), projected) {
        (true, Some(t)) => match projected_cost {
            Some(c) => format!("{} ${c:.2}", tokens(t)),
            None => tokens(t),
        },
        _ => "-".to_string(),
    };
    [
        format!("{}{mark}", local(b.start_ms, opts)),
        b.agent.name().to_string(),
        b.calls.to_string(),
        words::thousands(b.sums.total()),
        cost_cell(&b.sums),
        rate.map_or("-".to_string(), tokens),
        at_end,
        limits_cell(b, opts),
    ]
}

/// The blocks as a table: a row per block, the active one marked, its limits beside it.
pub(crate) fn write(
    opts: &UsageOptions,
    blocks: &[Block],
    now_ms: i64,
    ctx: &mut Ctx,
) -> anyhow::Result<()> {
    if blocks.is_empty() {
        ctx.out.write_out(b"no usage\n")?;
        return Ok(());
    }
    let header = [
        "BLOCK START",
        "AGENT",
        "CALLS",
        "TOKENS",
        "COST",
        "PER HOUR",
        "AT END",
        "LIMITS (from the agent)",
    ];
    let table: Vec<[String; 8]> = blocks.iter().map(|b| row(b, now_ms, opts)).collect();
    let mut widths = header.map(fit::width);
    for row in &table {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(fit::width(cell));
        }
    }
    let mut text = String::new();
    let line = |cells: &[&str], text: &mut String| {
        for (i, cell) in cells.iter().enumerate() {
            let pad = " ".repeat(widths[i].saturating_sub(fit::width(cell)));
            if i > 0 {
                text.push_str("  ");
            }
            if (2..=6).contains(&i) {
                text.push_str(&pad);
                text.push_str(cell);
            } else {
                text.push_str(cell);
                text.push_str(&pad);
            }
        }
        text.truncate(text.trim_end().len());
        text.push('\n');
    };
    line(&header, &mut text);
    for row in &table {
        line(
            &row.iter().map(String::as_str).collect::<Vec<_>>(),
            &mut text,
        );
    }
    if ctx.out.width(Channel::Out).is_some() && blocks.iter().any(|b| b.active(now_ms)) {
        text.push_str("● active: AT END is the block's total at this pace\n");
    }
    ctx.out.write_out(text.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::event::Usage;
    use crate::ledger::RunKey;

    fn rec(agent: Agent, at_ms: i64, tokens: u64, run: &Arc<RunKey>) -> Rec {
        Rec {
            at_ms: Some(at_ms),
            agent,
            model: Some(Arc::from("m")),
            usage: Usage {
                input: tokens,
                ..Usage::default()
            },
            run: run.clone(),
            key: format!("{at_ms}").into(),
            machine: None,
        }
    }

    fn run() -> Arc<RunKey> {
        Arc::new(RunKey {
            file: Arc::from("f"),
            session: None,
            index: 0,
            started_ms: None,
            cwd: None,
        })
    }

    const T0: i64 = 1_790_000_000_000 - 1_790_000_000_000 % HOUR_MS; // a whole hour

    #[test]
    fn a_block_starts_at_the_hour_of_its_first_call_and_lasts_five_hours() {
        let run = run();
        let min = 60_000;
        let recs = [
            rec(Agent::Claude, T0 + 20 * min, 10, &run),
            rec(Agent::Claude, T0 + 4 * HOUR_MS + 59 * min, 20, &run),
            // At the block's end exactly: the next block, from its own hour.
            rec(Agent::Claude, T0 + 5 * HOUR_MS + 30 * min, 40, &run),
            // Another agent's calls make blocks of their own.
            rec(Agent::Codex, T0 + 21 * min, 80, &run),
        ];
        let kept: Vec<(&Rec, Option<f64>)> = recs.iter().map(|r| (r, Some(1.0))).collect();
        let b = blocks(&kept, &[]);
        let got: Vec<(&str, i64, i64, u64, u64)> = b
            .iter()
            .map(|b| {
                (
                    b.agent.name(),
                    b.start_ms - T0,
                    b.end_ms() - T0,
                    b.calls,
                    b.sums.total(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("claude", 0, 5 * HOUR_MS, 2, 30),
                ("codex", 0, 5 * HOUR_MS, 1, 80),
                ("claude", 5 * HOUR_MS, 10 * HOUR_MS, 1, 40),
            ]
        );
        // The first block, an hour after its start: active; five hours after, ended.
        let now = T0 + HOUR_MS;
        assert!(b[0].active(now) && !b[0].active(T0 + 5 * HOUR_MS));
        let (rate, cost_rate) = b[0].rates(T0 + 6 * HOUR_MS);
        assert_eq!(rate.map(|r| r.round()), Some(6.0)); // 30 tokens in 4 h 39 min
        assert!(cost_rate.is_some());
        let (projected, _) = b[1].projected(T0 + 2 * HOUR_MS + 21 * min);
        // Codex: 80 tokens in the 2 hours since its first call, 2 h 39 min left: 186.
        assert_eq!(projected.map(f64::round), Some(186.0));
        // An ended block's total is what it came to.
        assert_eq!(b[2].projected(T0 + 11 * HOUR_MS).0, Some(40.0));
    }

    #[test]
    fn each_window_shows_its_last_state_within_the_block() {
        let run = run();
        let recs = [rec(Agent::Codex, T0 + 60_000, 10, &run)];
        let kept: Vec<(&Rec, Option<f64>)> = recs.iter().map(|r| (r, None)).collect();
        let limit = |at: i64, window, used: f64| LimitRec {
            at_ms: Some(at),
            agent: Agent::Codex,
            window,
            used_percent: Some(used),
            resets_ms: Some(T0 + 5 * HOUR_MS),
            status: None,
            source: "rate_limits",
        };
        let limits = [
            limit(T0 + 2 * HOUR_MS, LimitWindow::FiveHour, 40.0),
            limit(T0 + HOUR_MS, LimitWindow::FiveHour, 20.0),
            limit(T0 + HOUR_MS, LimitWindow::SevenDay, 3.0),
            // Before the block, and after it: not its.
            limit(T0 - 1, LimitWindow::FiveHour, 99.0),
            limit(T0 + 5 * HOUR_MS, LimitWindow::FiveHour, 1.0),
        ];
        let b = blocks(&kept, &limits);
        let got: Vec<(LimitWindow, Option<f64>)> = b[0]
            .limits
            .iter()
            .map(|l| (l.window, l.used_percent))
            .collect();
        assert_eq!(
            got,
            vec![
                (LimitWindow::FiveHour, Some(40.0)),
                (LimitWindow::SevenDay, Some(3.0))
            ]
        );
        let row: Value = serde_json::from_str(&json_row(&b[0], T0 + 3 * HOUR_MS)).unwrap();
        assert_eq!(row["limits"][0]["window"], "five_hour");
        assert_eq!(row["limits"][0]["source"], "codex rate_limits");
        assert_eq!(row["block_end"], rfc3339(T0 + 5 * HOUR_MS));
        assert_eq!(row["active"], true);
        assert_eq!(row["cost_usd"], Value::Null);
    }
}

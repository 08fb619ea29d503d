//! `statusline`: the one line Claude Code's `statusLine` command shows under its prompt.
//!
//! Claude Code runs the command after each message with its session as JSON on stdin
//! (`session_id`, `transcript_path`, `model`, `workspace`, `cost`, `context_window`, and on
//! Pro and Max plans `rate_limits`). The line is: the model · this session's cost and tokens
//! as `usage session` counts them from the logs (not the estimate Claude Code passes in) ·
//! today's cost, every agent's · the five-hour block: the percent of its limit and its
//! reset where the agent recorded them (the `rate_limits` Claude Code passes, else those
//! a log holds), else the time left in the block · the context used (Claude Code's
//! `context_window.used_percentage`, else the session's last call against its model's
//! window).
//!
//! The logs read are those written in the last 24 hours (today's, whatever the time zone,
//! and what the block needs), each call counted once as `usage` counts it: the view is
//! `usage`'s own, its records summed three ways here.

use std::path::PathBuf;

use serde::Deserialize;

use super::usage::table::cost_cell;
use super::usage::{Sums, UsageOptions, UsageView, blocks};
use crate::agent::event::{Agent, Event, LimitWindow, RunEnd, Wants};
use crate::exit::ExitStatus;
use crate::ledger::Rec;
use crate::out::escape_line;
use crate::runs::Runs;
use crate::view::{Ctx, View};

/// The fields `--format` names, and the line they make by default.
pub(crate) const DEFAULT_FORMAT: &str =
    "{model} · {session_cost} {session_tokens} · today {today_cost} · {block} · ctx {context}";

/// The fields `--format` may name.
pub(crate) const FIELDS: [&str; 6] = [
    "model",
    "session_cost",
    "session_tokens",
    "today_cost",
    "block",
    "context",
];

/// The first `{name}` in `format` that is no field, if one is (it would be printed as
/// written: a typo the user would not be told of).
pub(crate) fn unknown_field(format: &str) -> Option<&str> {
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = &after[..close];
        if !FIELDS.contains(&name) {
            return Some(name);
        }
        rest = &after[close + 1..];
    }
    None
}

/// What Claude Code hands the command, as far as the line uses it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StatusInput {
    pub session_id: Option<String>,
    pub transcript_path: Option<PathBuf>,
    #[serde(deserialize_with = "null_as_default")]
    pub model: Model,
    #[serde(deserialize_with = "null_as_default")]
    pub context_window: ContextWindow,
    #[serde(deserialize_with = "null_as_default")]
    pub rate_limits: RateLimits,
}

/// A `null` read as the field left out: Claude Code writes `null` where it has nothing
/// (no rate limits before the first answer), and the line must still be written.
fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Model {
    pub id: Option<String>,
    pub display_name: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ContextWindow {
    pub used_percentage: Option<f64>,
    pub context_window_size: Option<u64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct RateLimits {
    pub five_hour: Option<Window>,
    pub seven_day: Option<Window>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Window {
    pub used_percentage: Option<f64>,
    /// Epoch seconds.
    pub resets_at: Option<f64>,
}

impl StatusInput {
    /// Claude Code's JSON, or why it is not that.
    pub(crate) fn parse(text: &str) -> Result<StatusInput, String> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| format!("statusline: stdin is not Claude Code's JSON ({e})"))?;
        if !value.is_object() {
            return Err("statusline: stdin is not Claude Code's JSON (not an object)".into());
        }
        serde_json::from_value(value)
            .map_err(|e| format!("statusline: stdin is not Claude Code's JSON ({e})"))
    }
}

#[derive(Debug, Clone)]
pub struct StatuslineOptions {
    pub input: StatusInput,
    pub format: String,
    /// The usage machinery's options: prices, time zone (for "today").
    pub usage: UsageOptions,
    pub color: bool,
}

pub(crate) struct StatuslineView {
    opts: StatuslineOptions,
    usage: UsageView,
}

impl StatuslineView {
    pub(crate) fn new(opts: StatuslineOptions) -> StatuslineView {
        let usage = UsageView::new(opts.usage.clone());
        StatuslineView { opts, usage }
    }
}

/// The sums of the line, as `usage` sums its rows.
#[derive(Default)]
struct Figures {
    session: Sums,
    today: Sums,
    /// The session's last call: its prompt's tokens (the context it used).
    last_prompt: Option<(i64, u64)>,
}

impl View for StatuslineView {
    fn wants(&self) -> Wants {
        Wants::BILLED | Wants::LIMITS
    }

    fn reports_runs(&self) -> bool {
        false
    }

    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        ExitStatus::SUCCESS
    }

    fn fork(&self) -> Option<Self> {
        Some(StatuslineView::new(self.opts.clone()))
    }

    fn merge(&mut self, later: Self) {
        self.usage.merge(later.usage);
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.usage.run_start(ctx)
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.usage.event(ev, ctx)
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.usage.run_end(end, ctx)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let now_ms = jiff::Timestamp::now().as_millisecond();
        let records = self.usage.take_records();
        // (Notes about unpriced models would land in Claude Code's log: none here.)
        let kept = self.usage.kept_quietly(&records);
        let figures = self.figures(&kept, now_ms);
        let claude: Vec<(&Rec, Option<f64>)> = kept
            .iter()
            .filter(|(r, _)| r.agent == Agent::Claude)
            .copied()
            .collect();
        let blocks = blocks::blocks(&claude, self.usage.limits());
        let active = blocks.iter().find(|b| b.active(now_ms));
        let line = self.line(&figures, active, now_ms);
        ctx.out.write_out(format!("{line}\n").as_bytes())?;
        Ok(())
    }
}

impl StatuslineView {
    fn figures(&self, kept: &[(&Rec, Option<f64>)], now_ms: i64) -> Figures {
        let midnight = jiff::Timestamp::from_millisecond(now_ms)
            .ok()
            .and_then(|t| t.to_zoned(self.opts.usage.tz.clone()).start_of_day().ok())
            .map_or(i64::MIN, |z| z.timestamp().as_millisecond());
        let session = self.opts.input.session_id.as_deref();
        let mut f = Figures::default();
        for (r, cost) in kept {
            if r.at_ms.is_some_and(|at| at >= midnight) {
                f.today.add(r, *cost);
            }
            if session.is_some() && r.run.session.as_deref() == session {
                f.session.add(r, *cost);
                let prompt = r.usage.input + r.usage.cache_read + r.usage.cache_write;
                let at = r.at_ms.unwrap_or(i64::MIN);
                if f.last_prompt.is_none_or(|(last, _)| at >= last) {
                    f.last_prompt = Some((at, prompt));
                }
            }
        }
        f
    }

    /// The line, by `--format`.
    fn line(&self, f: &Figures, block: Option<&blocks::Block>, now_ms: i64) -> String {
        let input = &self.opts.input;
        let model = input
            .model
            .display_name
            .clone()
            .or_else(|| input.model.id.clone())
            .unwrap_or_else(|| "-".into());
        let fields: [(&str, String); 6] = [
            // Model text is untrusted: no control sequence of its own reaches the terminal.
            ("model", self.paint("1", &escape_line(&model))),
            // As `usage` writes a cost (`≥ $1.20` where a call has no price).
            ("session_cost", cost_cell(&f.session)),
            (
                "session_tokens",
                format!("{} tok", short_count(f.session.total())),
            ),
            ("today_cost", cost_cell(&f.today)),
            ("block", self.block_cell(block, now_ms)),
            ("context", self.context_cell(f)),
        ];
        let mut line = escape_line(&self.opts.format);
        for (name, value) in fields {
            line = line.replace(&format!("{{{name}}}"), &value);
        }
        line
    }

    /// The block: the limit's percent and reset where recorded, else the time left.
    fn block_cell(&self, block: Option<&blocks::Block>, now_ms: i64) -> String {
        let passed = &self.opts.input.rate_limits;
        let limit = passed
            .five_hour
            .as_ref()
            .and_then(|w| Some((w.used_percentage?, w.resets_at.map(|s| (s * 1000.0) as i64))))
            .or_else(|| {
                let l = block?
                    .limits
                    .iter()
                    .find(|l| l.window == LimitWindow::FiveHour)?;
                Some((l.used_percent?, l.resets_ms))
            });
        if let Some((percent, resets)) = limit {
            let reset = resets.map_or(String::new(), |r| {
                format!(" · resets {}", clock(r, &self.opts.usage.tz))
            });
            return format!("5h {}{reset}", self.percent(percent));
        }
        match block {
            Some(b) => format!("5h block {} left", span(b.end_ms() - now_ms)),
            None => "no block".to_string(),
        }
    }

    fn context_cell(&self, f: &Figures) -> String {
        let cw = &self.opts.input.context_window;
        if let Some(p) = cw.used_percentage {
            return self.percent(p);
        }
        let Some((_, prompt)) = f.last_prompt else {
            return "-".to_string();
        };
        let size = cw.context_window_size.unwrap_or_else(|| {
            let id = self.opts.input.model.id.as_deref().unwrap_or("");
            if id.contains("[1m]") {
                1_000_000
            } else {
                200_000
            }
        });
        self.percent(prompt as f64 * 100.0 / size.max(1) as f64)
    }

    /// A percent, green under half, yellow under 80, red beyond (with colour).
    fn percent(&self, p: f64) -> String {
        let code = if p < 50.0 {
            "32"
        } else if p < 80.0 {
            "33"
        } else {
            "31"
        };
        self.paint(code, &format!("{p:.0}%"))
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.opts.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// A time of day in `tz`, `14:32`.
fn clock(ms: i64, tz: &jiff::tz::TimeZone) -> String {
    blocks::zoned(ms, tz, "%H:%M")
}

/// A duration, `2h13m`, `45m`.
fn span(ms: i64) -> String {
    let minutes = (ms.max(0) + 59_999) / 60_000;
    match minutes / 60 {
        0 => format!("{minutes}m"),
        h => format!("{h}h{:02}m", minutes % 60),
    }
}

/// A token count for a glance: `950`, `12.3k`, `4.1M`.
fn short_count(n: u64) -> String {
    match n {
        0..1_000 => n.to_string(),
        1_000..1_000_000 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

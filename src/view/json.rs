//! `json`: one JSON object per run, as the agent's own `--output-format json` gives it.
//!
//! Cursor, Claude and Qwen: the `result` line, byte for byte — every field, in the
//! agent's order. Cursor documents it for a successful run only (a failed run prints
//! nothing on stdout, as the CLI does); Claude prints it for every run that has one.
//!
//! Codex, Gemini and OpenCode have no such line in their stream, so one object is made for
//! each run that reached its end, the same shape for the three:
//!
//! ```text
//! {"type":"result","agent":"codex","session_id":"…","status":"success","is_error":false,
//!  "result":"<final answer>","usage":{"input_tokens":…,"output_tokens":…,
//!  "cache_read_tokens":…,"cache_write_tokens":…,"reasoning_tokens":…,"cost_usd":…},
//!  "duration_ms":…,"error":null}
//! ```
//!
//! `status` is `success` or `error`; `result`, `usage`, `duration_ms` and the numbers in
//! `usage` that the agent does not give are `null`; `error` says why a run failed.

use serde::Serialize;

use crate::agent::event::{Agent, Outcome, RunEnd, Usage, Wants};
use crate::view::{Ctx, View};

#[derive(Debug, Default)]
pub(crate) struct JsonView;

impl View for JsonView {
    fn wants(&self) -> Wants {
        Wants::FINAL
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        // The agent's own result line where its stream has one (Cursor's, Claude's,
        // Qwen's); else one made alike for every agent, logs included, but for a run
        // that did not end.
        let line = match end.native_json {
            Some([]) => return Ok(()),
            Some(line) => line.to_vec(),
            None if end.outcome == Outcome::NoEnd => return Ok(()),
            None => serde_json::to_vec(&Synthesized::new(ctx.run.agent, end, ctx))?,
        };
        ctx.out.write_out(&line)?;
        ctx.out.write_out(b"\n")?;
        Ok(())
    }
}

/// The object made for a run of an agent whose stream has no result line.
#[derive(Serialize)]
struct Synthesized<'a> {
    #[serde(rename = "type")]
    record: &'static str,
    agent: &'static str,
    session_id: Option<&'a str>,
    status: &'static str,
    is_error: bool,
    result: Option<String>,
    usage: Option<UsageFields>,
    duration_ms: Option<u64>,
    error: Option<String>,
}

/// Token counts as `json` and `stats --json` write them.
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub(crate) struct UsageFields {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
    pub reasoning_tokens: Option<u64>,
    pub cost_usd: Option<f64>,
}

impl From<&Usage> for UsageFields {
    fn from(u: &Usage) -> UsageFields {
        UsageFields {
            input_tokens: u.input,
            output_tokens: u.output,
            cache_read_tokens: u.cache_read,
            cache_write_tokens: u.cache_write,
            reasoning_tokens: u.reasoning,
            cost_usd: u.cost_usd,
        }
    }
}

impl<'a> Synthesized<'a> {
    fn new(agent: Agent, end: &RunEnd<'_>, ctx: &'a Ctx) -> Synthesized<'a> {
        let succeeded = end.outcome == Outcome::Succeeded;
        Synthesized {
            record: "result",
            agent: agent.name(),
            session_id: ctx.run.session_id.as_deref(),
            status: end.outcome.word(),
            is_error: !succeeded,
            result: end
                .final_text
                .map(|t| String::from_utf8_lossy(t).into_owned()),
            usage: end.usage.as_ref().map(UsageFields::from),
            duration_ms: end.duration_ms,
            error: match &end.outcome {
                Outcome::Failed { reason } => Some(reason.clone()),
                Outcome::Unreadable => Some("the terminal event could not be read".into()),
                _ => None,
            },
        }
    }
}

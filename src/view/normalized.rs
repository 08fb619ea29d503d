//! `events --normalized`: the normalized events themselves, one JSON object per line, in
//! one schema for every agent (`docs/normalized.md`, `docs/normalized.schema.json`).
//!
//! [`Normalizer`] writes the objects; `get --normalized` runs its programs over the same
//! objects, so that what a program sees is exactly what `events --normalized` prints.
//!
//! Choices the schema rests on (the reasons are in `docs/normalized.md`):
//!
//! - every object has every key of its event, `null` where the agent does not say: a jq
//!   program tests values (`.model // "?"`), never whether a key exists;
//! - `event`, `agent` and `session_id` come first in every object, so that an object
//!   alone says which run it belongs to (runs of several files interleave in `get`);
//! - text is the agent's bytes read as UTF-8, any invalid byte replaced by U+FFFD, as the
//!   `json` view does: JSON strings cannot hold raw bytes;
//! - arguments and results are the agent's own JSON, verbatim (`tools --json` does so);
//! - [`Event::Segment`] is written (`segment`), only where it separates: after answer
//!   text of the run, once however many the dialect gives before the next text. Without
//!   it a program could not rebuild `text --separator`; the dialects' other boundaries
//!   (before any text, around each tool call) would be noise.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::agent::event::{
    AnswerCheck, Effect, Event, NoticeKind, Outcome, RunEnd, RunInfo, StatusClass, ToolCall,
    ToolEnd, Wants,
};
use crate::exit::ExitStatus;
use crate::out::held::HeldOutput;
use crate::runs::Runs;
use crate::view::json::UsageFields;
use crate::view::{Ctx, View};

/// What the dialects must decode for every field of the normalized objects: the answer
/// and the final answer, reasoning with its text, tool calls with their raw JSON and
/// their details (main argument, effect), notices.
pub(crate) const NORMALIZED_WANTS: Wants = Wants::TEXT
    .union(Wants::THINKING)
    .union(Wants::THINKING_TEXT)
    .union(Wants::TOOLS)
    .union(Wants::TOOL_RAW)
    .union(Wants::TOOL_DETAILS)
    .union(Wants::NOTICES)
    .union(Wants::FINAL);

/// Writes run starts, events and run ends as normalized JSON objects.
///
/// Each method appends one object, without a newline, to the caller's buffer and says
/// whether it wrote one. It must see every run start, event and run end of the input, in
/// order: it remembers whether answer text came since the last segment. Everything is
/// written except empty answer text (an [`Event::Text`] of no bytes, which says nothing)
/// and the segments that separate no text (see the module's notes).
/// On an error (which serde_json gives only for values JSON cannot hold, and these have
/// none) the buffer is left as it was.
#[derive(Debug, Default, Clone)]
pub(crate) struct Normalizer {
    /// Answer text came in this run since the last `segment` written.
    text_since_segment: bool,
}

impl Normalizer {
    /// A writer of normalized objects.
    pub(crate) fn new() -> Normalizer {
        Normalizer::default()
    }

    /// The `run_start` object of `run`.
    pub(crate) fn run_start(
        &mut self,
        run: &RunInfo,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<bool> {
        self.text_since_segment = false;
        let body = RunStartBody {
            model: run.model.as_deref(),
            cwd: run.cwd.as_deref(),
        };
        write(out, &Record::new("run_start", run, body))
    }

    /// The object of `ev`, an event of `run`; nothing for empty answer text.
    pub(crate) fn event(
        &mut self,
        run: &RunInfo,
        ev: &Event<'_>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<bool> {
        match ev {
            Event::Text([]) => Ok(false),
            Event::Text(text) => {
                self.text_since_segment = true;
                let body = TextBody { text: lossy(text) };
                write(out, &Record::new("text", run, body))
            }
            Event::Segment if !self.text_since_segment => Ok(false),
            Event::Segment => {
                self.text_since_segment = false;
                write(out, &Record::new("segment", run, Empty {}))
            }
            Event::Thinking { text, done } => {
                let body = ThinkingBody {
                    text: lossy(text),
                    done: *done,
                };
                write(out, &Record::new("thinking", run, body))
            }
            Event::ToolStarted { call, seq } => {
                let body = CallFacts::new(call, *seq);
                write(out, &Record::new("tool_start", run, body))
            }
            Event::ToolEnded(end) => {
                write(out, &Record::new("tool_end", run, ToolEndBody::new(end)))
            }
            // Not in the normalized schema: the run's usage is in its `run_end`.
            Event::Billed(_) | Event::Limit(_) => Ok(false),
            Event::Notice(notice) => {
                let body = NoticeBody {
                    kind: notice_kind(notice.kind),
                    text: &notice.text,
                };
                write(out, &Record::new("notice", run, body))
            }
        }
    }

    /// The `run_end` object of `run`.
    pub(crate) fn run_end(
        &mut self,
        run: &RunInfo,
        end: &RunEnd<'_>,
        out: &mut Vec<u8>,
    ) -> serde_json::Result<bool> {
        write(out, &Record::new("run_end", run, RunEndBody::new(end)))
    }
}

/// Serializes `record` after what `out` holds, or leaves `out` as it was.
fn write<T: Serialize>(out: &mut Vec<u8>, record: &T) -> serde_json::Result<bool> {
    let len = out.len();
    match serde_json::to_writer(&mut *out, record) {
        Ok(()) => Ok(true),
        Err(e) => {
            out.truncate(len);
            Err(e)
        }
    }
}

/// The agent's bytes as a JSON string can hold them.
fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}

/// The keys every object starts with, then its event's own.
#[derive(Serialize)]
struct Record<'a, B> {
    event: &'static str,
    agent: &'static str,
    session_id: Option<&'a str>,
    // Flattening only writes the body's keys into this object; nothing is parsed back.
    #[serde(flatten)]
    body: B,
}

impl<'a, B: Serialize> Record<'a, B> {
    fn new(event: &'static str, run: &'a RunInfo, body: B) -> Record<'a, B> {
        Record {
            event,
            agent: run.agent.name(),
            session_id: run.session_id.as_deref(),
            body,
        }
    }
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
struct RunStartBody<'a> {
    model: Option<&'a str>,
    cwd: Option<&'a str>,
}

#[derive(Serialize)]
struct TextBody<'a> {
    text: Cow<'a, str>,
}

#[derive(Serialize)]
struct ThinkingBody<'a> {
    text: Cow<'a, str>,
    done: bool,
}

#[derive(Serialize)]
struct NoticeBody<'a> {
    kind: &'static str,
    text: &'a str,
}

/// What a call's start says of it: the whole of `tool_start`, and the start of `tool_end`.
#[derive(Serialize)]
struct CallFacts<'a> {
    call_id: Option<&'a str>,
    tool: &'a str,
    kind: &'static str,
    seq: u64,
    target: Option<&'a str>,
    args: Option<&'a RawValue>,
    parent_call_id: Option<&'a str>,
    started_at_ms: Option<u64>,
}

impl<'a> CallFacts<'a> {
    fn new(call: &'a ToolCall<'a>, seq: u64) -> CallFacts<'a> {
        CallFacts {
            call_id: call.id.as_deref(),
            tool: &call.tool,
            kind: call.kind.coarse_name(),
            seq,
            target: call.target.as_deref(),
            args: call.args.as_deref(),
            parent_call_id: call.parent.as_deref(),
            started_at_ms: call.at_ms,
        }
    }
}

#[derive(Serialize)]
struct ToolEndBody<'a> {
    #[serde(flatten)]
    call: CallFacts<'a>,
    started: bool,
    status: &'a str,
    status_class: &'static str,
    result: Option<&'a RawValue>,
    completed_at_ms: Option<u64>,
    duration_ms: Option<u64>,
    effect: EffectBody<'a>,
}

impl<'a> ToolEndBody<'a> {
    fn new(end: &'a ToolEnd<'a>) -> ToolEndBody<'a> {
        ToolEndBody {
            call: CallFacts::new(end.call, end.seq),
            started: end.started,
            status: &end.status.word,
            status_class: status_class(end.status.class),
            result: end.result,
            completed_at_ms: end.ended_ms,
            duration_ms: end.duration_ms(),
            effect: EffectBody::from(end.effect),
        }
    }
}

/// [`Effect`], every key present.
#[derive(Serialize)]
struct EffectBody<'a> {
    exit_code: Option<i64>,
    signal: Option<&'a str>,
    lines: Option<u64>,
    empty: bool,
    added: Option<u64>,
    removed: Option<u64>,
    matches: Option<u64>,
    files: Option<u64>,
    todos: Option<u64>,
    error: Option<&'a str>,
}

impl<'a> From<&'a Effect> for EffectBody<'a> {
    fn from(e: &'a Effect) -> EffectBody<'a> {
        EffectBody {
            exit_code: e.exit_code,
            signal: e.signal.as_deref(),
            lines: e.lines,
            empty: e.empty,
            added: e.added,
            removed: e.removed,
            matches: e.matches,
            files: e.files,
            todos: e.todos,
            error: e.error.as_deref(),
        }
    }
}

#[derive(Serialize)]
struct RunEndBody<'a> {
    outcome: &'static str,
    error: Option<&'a str>,
    answer: Option<Cow<'a, str>>,
    answer_check: &'static str,
    usage: Option<UsageFields>,
    duration_ms: Option<u64>,
}

impl<'a> RunEndBody<'a> {
    fn new(end: &'a RunEnd<'a>) -> RunEndBody<'a> {
        let (outcome, error) = match &end.outcome {
            Outcome::Succeeded => ("success", None),
            Outcome::Failed { reason } => ("failure", Some(reason.as_str())),
            Outcome::Unreadable => (
                "unreadable",
                Some("the run's terminal event could not be read"),
            ),
            Outcome::NoEnd => ("no_end", None),
        };
        RunEndBody {
            outcome,
            error,
            answer: end.final_text.map(lossy),
            answer_check: match end.answer {
                AnswerCheck::Matches => "matches",
                AnswerCheck::Differs { .. } => "differs",
                AnswerCheck::NothingStreamed => "nothing_streamed",
                AnswerCheck::Unchecked => "unchecked",
            },
            usage: end.usage.as_ref().map(UsageFields::from),
            duration_ms: end.duration_ms,
        }
    }
}

/// The schema's name of a status class.
fn status_class(class: StatusClass) -> &'static str {
    match class {
        StatusClass::Ok => "ok",
        StatusClass::Rejected => "rejected",
        StatusClass::Failed => "failed",
        StatusClass::Pending => "pending",
        StatusClass::Unknown => "unknown",
    }
}

/// The schema's name of a notice kind.
fn notice_kind(kind: NoticeKind) -> &'static str {
    match kind {
        NoticeKind::Retry => "retry",
        NoticeKind::Recovered => "recovered",
        NoticeKind::Warning => "warning",
        NoticeKind::Error => "error",
    }
}

/// `events --normalized`'s options.
#[derive(Debug, Clone, Default)]
pub struct NormalizedOptions {
    /// Only the objects of runs whose session id starts with one of these.
    pub sessions: Vec<String>,
    /// Only the objects of the last run in the input.
    pub last_run: bool,
    /// Print the number of objects instead of the objects.
    pub count: bool,
}

/// `events --normalized`: every normalized object, one a line.
pub(crate) struct NormalizedView {
    opts: NormalizedOptions,
    normalizer: Normalizer,
    /// The object being written, and its newline.
    line: Vec<u8>,
    /// Objects written (or counted).
    written: u64,
    /// With `--last-run`: the current run's lines, written at the end.
    held: HeldOutput,
}

impl NormalizedView {
    pub(crate) fn new(opts: NormalizedOptions) -> NormalizedView {
        NormalizedView {
            opts,
            normalizer: Normalizer::new(),
            line: Vec::new(),
            written: 0,
            held: HeldOutput::default(),
        }
    }

    /// Whether the current run passes `--session` (by the id known so far: a run cut at
    /// its front learns it from a later event).
    fn session_passes(&self, ctx: &Ctx) -> bool {
        self.opts.sessions.is_empty()
            || ctx.run.session_id.as_deref().is_some_and(|id| {
                self.opts
                    .sessions
                    .iter()
                    .any(|want| id.starts_with(want.as_str()))
            })
    }

    /// Writes (or holds, or counts) the object in `self.line`, when `wrote`.
    fn emit(&mut self, wrote: bool, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !wrote {
            return Ok(());
        }
        self.written += 1;
        if self.opts.count {
            return Ok(());
        }
        self.line.push(b'\n');
        if self.opts.last_run {
            return self.held.push(&self.line);
        }
        Ok(ctx.out.write_out(&self.line)?)
    }
}

impl View for NormalizedView {
    fn wants(&self) -> Wants {
        NORMALIZED_WANTS
    }

    /// The run ends are in the output: stderr need not repeat them.
    fn reports_runs(&self) -> bool {
        false
    }

    /// As `events`: 0 when something was written, 1 when nothing was.
    fn exit_status(&self, _runs: &Runs) -> ExitStatus {
        if self.written > 0 {
            ExitStatus::SUCCESS
        } else {
            ExitStatus::NO_MATCH
        }
    }

    /// An input's objects owe nothing to the inputs before it. `--last-run` needs one
    /// view to see every run.
    fn fork(&self) -> Option<Self> {
        (!self.opts.last_run).then(|| NormalizedView::new(self.opts.clone()))
    }

    /// But with `--count`: the objects are about half the input's size.
    fn output_like_input(&self) -> bool {
        !self.opts.count
    }

    fn merge(&mut self, later: Self) {
        self.written += later.written;
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.last_run {
            self.held.clear()?;
            // The count is the last run's too.
            self.written = 0;
        }
        if !self.session_passes(ctx) {
            return Ok(());
        }
        self.line.clear();
        let wrote = self.normalizer.run_start(&ctx.run, &mut self.line)?;
        self.emit(wrote, ctx)
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !self.session_passes(ctx) {
            return Ok(());
        }
        self.line.clear();
        let wrote = self.normalizer.event(&ctx.run, ev, &mut self.line)?;
        self.emit(wrote, ctx)
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        if !self.session_passes(ctx) {
            return Ok(());
        }
        self.line.clear();
        let wrote = self.normalizer.run_end(&ctx.run, end, &mut self.line)?;
        self.emit(wrote, ctx)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.opts.count {
            ctx.out
                .write_out(format!("{}\n", self.written).as_bytes())?;
        } else if self.opts.last_run {
            self.held.write_to(&mut ctx.out)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::event::{Agent, Usage};

    fn written(f: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<bool>) -> Option<String> {
        let mut out = b"before;".to_vec();
        let wrote = f(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let object = text.strip_prefix("before;").unwrap().to_owned();
        assert_eq!(wrote, !object.is_empty());
        wrote.then_some(object)
    }

    #[test]
    fn one_object_is_appended_without_a_newline() {
        let mut run = RunInfo::new(Agent::Codex);
        run.session_id = Some("t-1".into());
        let mut n = Normalizer::new();
        let start = written(|out| n.run_start(&run, out)).unwrap();
        assert_eq!(
            start,
            r#"{"event":"run_start","agent":"codex","session_id":"t-1","model":null,"cwd":null}"#
        );
        let text = written(|out| n.event(&run, &Event::Text(b"caf\xe9!"), out)).unwrap();
        assert_eq!(
            text,
            "{\"event\":\"text\",\"agent\":\"codex\",\"session_id\":\"t-1\",\"text\":\"caf\u{fffd}!\"}"
        );
        assert_eq!(written(|out| n.event(&run, &Event::Text(b""), out)), None);
    }

    #[test]
    fn segments_are_written_only_between_text() {
        let run = RunInfo::new(Agent::Claude);
        let mut n = Normalizer::new();
        let mut events = |ev: &Event<'_>| written(|out| n.event(&run, ev, out)).is_some();
        assert!(!events(&Event::Segment), "no text yet");
        assert!(events(&Event::Text(b"a")));
        assert!(events(&Event::Segment));
        assert!(!events(&Event::Segment), "one segment between two texts");
        assert!(events(&Event::Text(b"b")));
        let mut n2 = Normalizer::new();
        assert!(written(|out| n2.event(&run, &Event::Text(b"c"), out)).is_some());
        assert!(written(|out| n2.run_start(&run, out)).is_some());
        assert!(
            written(|out| n2.event(&run, &Event::Segment, out)).is_none(),
            "a new run has no text yet"
        );
    }

    #[test]
    fn run_end_outcomes_and_usage() {
        let run = RunInfo::new(Agent::Gemini);
        let mut end = RunEnd::unfinished();
        end.outcome = Outcome::Failed {
            reason: "turn.failed: quota".into(),
        };
        end.usage = Some(Usage {
            input: 3,
            output: 4,
            ..Usage::default()
        });
        let text = written(|out| Normalizer::new().run_end(&run, &end, out)).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["outcome"], "failure");
        assert_eq!(v["error"], "turn.failed: quota");
        assert_eq!(v["answer"], serde_json::Value::Null);
        assert_eq!(v["usage"]["input_tokens"], 3);
        assert_eq!(v["usage"]["reasoning_tokens"], serde_json::Value::Null);
    }
}

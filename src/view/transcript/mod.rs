//! `transcript`: what a run did, to look at rather than read — GitHub-flavoured Markdown
//! (a CI step summary, a PR comment) or one self-contained HTML page — for every agent.
//!
//! The view keeps a model of each run from the normalized events ([`Run`]: the prompt its
//! start (or, for a stream that echoes it, a later line) gave, the answer's segments,
//! reasoning phases, tool calls with their arguments and output made readable, notices, in
//! stream order) and renders it when the run ends; the document is written
//! once the input is read, because a log of several runs starts with a table of them.
//!
//! # Size
//!
//! Everything in a transcript is cut to a budget unless `--full`: each output to a number
//! of lines and bytes when it is kept, and the whole document to [`Limits::total`] (under
//! the 1 MiB GitHub allows a step summary, for Markdown). When kept details would pass
//! the budget, later calls keep only their line; a run that does not fit even so is
//! listed in the table only. Every cut says what it left out. Memory is bounded by the
//! budget, not by the log; with `--full`, by the largest run and the table's rows (the
//! sections wait in a temporary file, see [`HeldOutput`]).
//!
//! # Untrusted text
//!
//! The prompt, answer, reasoning, tool names, arguments, output and errors all come from a
//! user, a model or a tool. Both renderers escape every byte of it for where it lands (see
//! [`escape`], and [`answer`] for the model's Markdown), and make control characters
//! visible.

mod answer;
pub(crate) mod escape;
mod html;
mod markdown;
mod readable;
mod timeline;

use std::collections::{BTreeMap, HashMap};

use crate::agent::event::{
    Effect, Event, NoticeKind, Outcome, RunEnd, RunInfo, StatusClass, ToolCall, ToolEnd, ToolKind,
    ToolStatus, Usage, Wants,
};
use crate::out::held::HeldOutput;
use crate::view::{Ctx, View, settle_answer, words};

use readable::{Keep, Parts};

#[derive(Debug, Clone, Default)]
pub struct TranscriptOptions {
    /// One self-contained HTML page instead of Markdown.
    pub html: bool,
    /// Keep everything: no output cut, no budget.
    pub full: bool,
}

/// How much a transcript keeps.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// The whole document, in bytes.
    pub total: usize,
    /// Of which the table of runs (a log of several runs).
    pub table: usize,
    /// Each argument and output value.
    pub keep: Keep,
    /// Each run's answer, in bytes.
    pub answer: usize,
    /// Each reasoning phase, in bytes.
    pub thinking: usize,
    /// Each run's prompt, in bytes.
    pub prompt: usize,
    /// What one call's line costs in the document, about (its markup included).
    pub line: usize,
}

impl Limits {
    fn new(opts: &TranscriptOptions) -> Limits {
        if opts.full {
            return Limits {
                total: usize::MAX,
                table: usize::MAX,
                keep: Keep {
                    block_lines: usize::MAX,
                    block_bytes: usize::MAX,
                },
                answer: usize::MAX,
                thinking: usize::MAX,
                prompt: usize::MAX,
                line: 0,
            };
        }
        if opts.html {
            // A page a browser opens at once, whatever the log: the outputs a reader
            // scrolls through, not megabytes of them. The page is kept to the end (its
            // table of runs comes first), so its budget bounds the peak memory too.
            Limits {
                total: 5 << 20,
                table: 1 << 20,
                keep: Keep {
                    block_lines: 200,
                    block_bytes: 16 << 10,
                },
                answer: 1 << 20,
                thinking: 64 << 10,
                prompt: 64 << 10,
                line: 1200,
            }
        } else {
            // GitHub refuses a step summary over 1 MiB; the last lines (notes) fit in the
            // slack.
            Limits {
                total: 1_000_000,
                table: 100_000,
                keep: Keep {
                    block_lines: 30,
                    block_bytes: 3 << 10,
                },
                answer: 200_000,
                thinking: 8 << 10,
                prompt: 8 << 10,
                line: 250,
            }
        }
    }
}

/// One run, as the transcript shows it.
pub(crate) struct Run {
    /// 1-based, in input order.
    pub number: usize,
    /// The input it was read from.
    pub source: String,
    pub info: RunInfo,
    /// What the user asked, where the input says (made visible and cut as answers are).
    pub prompt: Option<Phase>,
    pub items: Vec<Item>,
    pub calls: Vec<Call>,
    pub end: Option<End>,
    /// The moment of the latest event (one tick per event): the timeline's clock when the
    /// agent gives no times.
    pub clock: u64,
    /// Calls whose arguments and output were not kept, to stay within the budget.
    pub details_dropped: usize,
    /// Calls not listed at all (a run of more calls than the budget has lines for).
    pub calls_unlisted: usize,
    /// Answer segments, reasoning phases and notices left out for the same reason.
    pub items_dropped: usize,
    /// Calls by status word (`ok`, `failed`, …).
    pub counts: BTreeMap<String, u64>,
    /// Index in `calls` of the calls started and not yet ended, by their place in start
    /// order.
    open_calls: HashMap<u64, usize>,
    /// The answer item text goes to, until a segment ends.
    open_answer: Option<usize>,
    open_thinking: Option<usize>,
    /// Bytes of answer kept, for the per-run cap.
    answer_kept: usize,
}

/// What happened, in stream order.
pub(crate) enum Item {
    /// A segment of the answer (Markdown as the model wrote it).
    Answer(Phase),
    /// A reasoning phase.
    Thinking(Phase),
    /// A tool call, at the place it started (an index into [`Run::calls`]).
    Call(usize),
    Notice(NoticeKind, String),
}

/// A stretch of text: the answer's or the reasoning's.
pub(crate) struct Phase {
    pub text: String,
    /// Bytes not kept.
    pub cut: usize,
    pub start: u64,
    pub end: u64,
}

impl Phase {
    /// An empty phase starting at moment `now`.
    fn at(now: u64) -> Phase {
        Phase {
            text: String::new(),
            cut: 0,
            start: now,
            end: now,
        }
    }

    /// Whether the text is long enough to be folded under its first line (a prompt).
    pub(crate) fn long(&self) -> bool {
        const LINES: usize = 8;
        const BYTES: usize = 800;
        self.cut > 0 || self.text.len() > BYTES || self.text.lines().nth(LINES).is_some()
    }

    /// The first line with words, cut to a title's length: a folded text's summary.
    pub(crate) fn title(&self) -> String {
        let line = self.text.lines().find(|l| !l.trim().is_empty());
        crate::out::fit::cut_end(line.unwrap_or("").trim(), 100).into_owned()
    }
}

pub(crate) struct Call {
    pub id: Option<String>,
    pub tool: String,
    pub kind: ToolKind,
    /// The main argument, unshortened.
    pub target: Option<String>,
    /// The sub-agent call it belongs to.
    pub parent: Option<String>,
    pub args: Option<Parts>,
    pub output: Option<Parts>,
    pub status: ToolStatus<'static>,
    pub effect: Effect,
    pub at_ms: Option<u64>,
    pub ended_ms: Option<u64>,
    /// Moments of its start and end events.
    pub start: u64,
    pub end: u64,
}

impl Call {
    pub(crate) fn duration_ms(&self) -> Option<u64> {
        self.ended_ms?.checked_sub(self.at_ms?)
    }

    /// What the call does (`shell`, `search`, …), as every tool record says it.
    pub(crate) fn kind_word(&self) -> &'static str {
        self.kind.coarse_name()
    }

    /// The kind to show beside the tool's name: none when the name says it already
    /// (Cursor's `shell`), so that a line reads `Bash (shell)` but not `shell (shell)`.
    pub(crate) fn kind_shown(&self) -> Option<&'static str> {
        let kind = self.kind_word();
        (!self.tool.eq_ignore_ascii_case(kind)).then_some(kind)
    }
}

pub(crate) struct End {
    pub outcome: Outcome,
    pub usage: Option<Usage>,
    pub duration_ms: Option<u64>,
}

impl Run {
    fn new(number: usize, source: &str, info: &RunInfo) -> Run {
        Run {
            number,
            source: source.to_string(),
            info: info.clone(),
            prompt: None,
            items: Vec::new(),
            calls: Vec::new(),
            end: None,
            clock: 0,
            details_dropped: 0,
            calls_unlisted: 0,
            items_dropped: 0,
            counts: BTreeMap::new(),
            open_calls: HashMap::new(),
            open_answer: None,
            open_thinking: None,
            answer_kept: 0,
        }
    }

    /// Calls that did not succeed (failed, rejected, unknown, pending).
    pub(crate) fn not_ok(&self) -> u64 {
        self.counts
            .iter()
            .filter(|(s, _)| s.as_str() != "ok")
            .map(|(_, n)| n)
            .sum()
    }

    pub(crate) fn total_calls(&self) -> u64 {
        self.counts.values().sum()
    }

    pub(crate) fn status_word(&self) -> &'static str {
        match self.end.as_ref().map(|e| &e.outcome) {
            Some(Outcome::Succeeded) => "success",
            Some(Outcome::Failed { .. } | Outcome::Unreadable) => "failed",
            Some(Outcome::NoEnd) | None => "unfinished",
        }
    }

    /// What a section with `detail` leaves out of the run, in words, to which each
    /// renderer adds why and how to keep it.
    pub(crate) fn left_out(&self, detail: Detail) -> Vec<String> {
        let unlisted = self.unlisted(detail);
        let mut notes = Vec::new();
        if unlisted > 0 {
            notes.push(format!(
                "{} not listed",
                words::count(unlisted as u64, "tool call", "tool calls")
            ));
        }
        if self.items_dropped > 0 {
            notes.push(format!(
                "{} (answer segments, reasoning, notices) left out",
                words::count(self.items_dropped as u64, "more event", "more events")
            ));
        }
        notes
    }

    /// The calls a section with `detail` does not list: those past the run's budget, and
    /// below [`Detail::Calls`] every one.
    fn unlisted(&self, detail: Detail) -> usize {
        if detail >= Detail::Calls {
            return self.calls_unlisted;
        }
        let kept_calls = self
            .items
            .iter()
            .filter(|item| matches!(item, Item::Call(_)))
            .count();
        self.calls_unlisted + kept_calls
    }

    /// The run's figures on one line, for people: duration, calls, tokens, cost.
    pub(crate) fn figures(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if let Some(ms) = self.end.as_ref().and_then(|e| e.duration_ms) {
            parts.push(words::duration(ms));
        }
        let total = self.total_calls();
        if total > 0 {
            parts.push(format!(
                "{}: {}",
                words::count(total, "tool call", "tool calls"),
                words::status_order(&self.counts).join(", ")
            ));
        }
        if let Some(usage) = self.end.as_ref().and_then(|e| e.usage.as_ref()) {
            parts.push(format!("tokens: {}", words::tokens(usage)));
            if let Some(cost) = usage.cost_usd {
                parts.push(format!("${cost:.4}"));
            }
        }
        parts
    }
}

/// A row of the table of runs, kept for every run (the sections may not be).
pub(crate) struct Row {
    pub number: usize,
    pub source: String,
    pub agent: &'static str,
    pub model: Option<String>,
    pub status: &'static str,
    pub reason: Option<String>,
    pub duration_ms: Option<u64>,
    pub calls: u64,
    pub not_ok: u64,
    pub usage: Option<Usage>,
    pub session_id: Option<String>,
    /// Whether the run has a section in the document.
    pub shown: bool,
}

impl Row {
    fn of(run: &Run, shown: bool) -> Row {
        let end = run.end.as_ref();
        Row {
            number: run.number,
            source: run.source.clone(),
            agent: run.info.agent.name(),
            model: run.info.model.clone(),
            status: run.status_word(),
            reason: end.and_then(|e| match &e.outcome {
                Outcome::Failed { reason } => Some(reason.clone()),
                Outcome::Unreadable => Some("unreadable terminal event".to_string()),
                _ => None,
            }),
            duration_ms: end.and_then(|e| e.duration_ms),
            calls: run.total_calls(),
            not_ok: run.not_ok(),
            usage: end.and_then(|e| e.usage),
            session_id: run.info.session_id.clone(),
            shown,
        }
    }
}

/// A row's cells after its status, as plain text (each renderer escapes them).
pub(crate) struct Cells {
    pub duration: String,
    pub calls: String,
    pub tokens: String,
    pub cost: String,
    /// The session id's first 8 characters.
    pub session: String,
}

impl Row {
    pub(crate) fn cells(&self) -> Cells {
        let mut calls = String::new();
        if self.calls > 0 {
            calls = words::thousands(self.calls);
            if self.not_ok > 0 {
                calls.push_str(&format!(" ({} not ok)", self.not_ok));
            }
        }
        Cells {
            duration: self.duration_ms.map(words::duration).unwrap_or_default(),
            calls,
            tokens: self.usage.map_or_else(String::new, |u| {
                format!(
                    "{} / {}",
                    words::thousands(u.input),
                    words::thousands(u.output)
                )
            }),
            cost: self
                .usage
                .and_then(|u| u.cost_usd)
                .map_or_else(String::new, |c| format!("${c:.4}")),
            session: self
                .session_id
                .as_deref()
                .map_or_else(String::new, words::short_session),
        }
    }
}

/// A renderer: Markdown or HTML.
pub(crate) trait Render {
    /// Appends a run's section to `out`. `details`: with the calls' arguments and output
    /// (as kept); `calls`: with the calls listed at all.
    fn section(&self, run: &Run, detail: Detail, out: &mut String);
    /// The document around the sections: what comes before them (the page's head, the
    /// table of runs) and after them (the notes), so the sections are written as they are
    /// kept, never copied.
    fn document(&self, doc: &Document<'_>) -> (String, String);
}

/// How much of a run a section shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Detail {
    /// The header and the answer.
    Answer,
    /// And one line per call.
    Calls,
    /// And each call's arguments and output, as kept.
    Full,
}

/// What the document is made of.
pub(crate) struct Document<'a> {
    pub rows: &'a [Row],
    /// Rows past the table's budget.
    pub rows_unlisted: usize,
    pub runs: usize,
    /// Runs without a section (over the budget).
    pub runs_unshown: usize,
    /// Whether anything was cut (a note says how to keep everything).
    pub cut: bool,
    pub sources: &'a [String],
}

#[derive(Debug, Clone, Copy)]
enum Share {
    Lines,
    Answers,
    Details,
}

#[derive(Debug, Default)]
struct Kept {
    lines: usize,
    answers: usize,
    details: usize,
}

pub(crate) struct TranscriptView {
    opts: TranscriptOptions,
    limits: Limits,
    run: Option<Run>,
    runs: usize,
    rows: Vec<Row>,
    rows_bytes: usize,
    rows_unlisted: usize,
    sections: String,
    /// With `--full`: the sections written so far, held until the table of runs is
    /// written (past a few MiB in a temporary file, see [`HeldOutput`]); without, the budget
    /// bounds `sections`.
    held: HeldOutput,
    runs_unshown: usize,
    /// Bytes kept so far, by share of the budget.
    kept: Kept,
    cut: bool,
    sources: Vec<String>,
}

impl TranscriptView {
    pub(crate) fn new(opts: TranscriptOptions) -> TranscriptView {
        TranscriptView {
            limits: Limits::new(&opts),
            opts,
            run: None,
            runs: 0,
            rows: Vec::new(),
            rows_bytes: 0,
            rows_unlisted: 0,
            sections: String::new(),
            held: HeldOutput::default(),
            runs_unshown: 0,
            kept: Kept::default(),
            cut: false,
            sources: Vec::new(),
        }
    }

    fn renderer(&self) -> Box<dyn Render> {
        if self.opts.html {
            Box::new(html::Html)
        } else {
            Box::new(markdown::Markdown)
        }
    }

    /// Whether another `bytes` of `kind` fit its share of the budget: a quarter for the
    /// calls' lines, a quarter for the answers, half for arguments, output and reasoning —
    /// so that large outputs never push a call out of the listing.
    fn may_keep(&mut self, kind: Share, bytes: usize) -> bool {
        let (kept, share) = match kind {
            Share::Lines => (&mut self.kept.lines, self.limits.total / 4),
            Share::Answers => (&mut self.kept.answers, self.limits.total / 4),
            Share::Details => (&mut self.kept.details, self.limits.total / 2),
        };
        if kept.saturating_add(bytes) <= share {
            *kept += bytes;
            true
        } else {
            self.cut = true;
            false
        }
    }

    /// Whether anything more of `kind` may be kept: once a share is spent, what it would
    /// keep is not even read (a long log's later calls cost no parsing).
    fn room(&self, kind: Share) -> bool {
        match kind {
            Share::Lines => self.kept.lines < self.limits.total / 4,
            Share::Answers => self.kept.answers < self.limits.total / 4,
            Share::Details => self.kept.details < self.limits.total / 2,
        }
    }

    /// Adds `text` to the phase when `room` (bytes) and the budget allow; once a phase is
    /// cut it keeps nothing more, so what it shows has no holes.
    fn keep_text(&mut self, share: Share, phase: &mut Phase, text: &[u8], room: usize) {
        if phase.cut == 0 && text.len() <= room && self.may_keep(share, text.len()) {
            phase
                .text
                .push_str(&escape::visible(&String::from_utf8_lossy(text)));
        } else {
            phase.cut += text.len();
            self.cut = true;
        }
    }

    /// Keeps the run's prompt, once, when the input has said it (a session log at the
    /// run's start, a stream that echoes it on a later line by the run's end).
    fn keep_prompt(&mut self, run: &mut Run, info: &RunInfo) {
        let Some(prompt) = info.prompt.as_deref().filter(|p| !p.trim().is_empty()) else {
            return;
        };
        if run.prompt.is_some() {
            return;
        }
        // Its start when it is too long: what was asked begins there.
        let (kept, cut) = escape::cut(prompt.trim(), usize::MAX, self.limits.prompt);
        let mut phase = Phase::at(run.clock);
        self.keep_text(Share::Answers, &mut phase, kept.as_bytes(), usize::MAX);
        phase.cut += cut.map_or(0, |c| c.bytes);
        self.cut |= phase.cut > 0;
        run.prompt = Some(phase);
    }

    /// Adds an event to the run, at the next moment of its clock.
    fn event_in(&mut self, ev: &Event<'_>, run: &mut Run) {
        run.clock += 1;
        let now = run.clock;
        match ev {
            Event::Text(text) => self.answer_text(run, text, now),
            Event::Segment => run.open_answer = None,
            // The end of a phase that was never shown (or left out): nothing to show.
            Event::Thinking {
                text: [],
                done: true,
            } if run.open_thinking.is_none() => {}
            Event::Thinking { text, done } => self.thinking_text(run, text, *done, now),
            Event::ToolStarted { call, seq } => {
                run.open_answer = None;
                run.open_thinking = None;
                if let Some(i) = self.add_call(run, call, now) {
                    run.open_calls.insert(*seq, i);
                    run.items.push(Item::Call(i));
                }
            }
            Event::ToolEnded(end) => self.call_ended(run, end, now),
            Event::Notice(notice) => {
                let notice = Item::Notice(notice.kind, escape::one_line(&notice.text));
                self.push_item(run, notice);
            }
            Event::Billed(_) | Event::Limit(_) => {}
        }
    }

    /// Adds answer text to the open segment, or to a new one, within the run's cap.
    fn answer_text(&mut self, run: &mut Run, text: &[u8], now: u64) {
        run.open_thinking = None;
        let at = match run.open_answer {
            Some(at) => at,
            None => {
                let Some(at) = self.push_item(run, Item::Answer(Phase::at(now))) else {
                    return;
                };
                run.open_answer = Some(at);
                at
            }
        };
        let room = self.limits.answer.saturating_sub(run.answer_kept);
        if let Item::Answer(phase) = &mut run.items[at] {
            phase.end = now;
            let before = phase.text.len();
            self.keep_text(Share::Answers, phase, text, room);
            run.answer_kept += phase.text.len() - before;
        }
    }

    /// Adds reasoning to the open phase, or to a new one, within a phase's cap; `done`
    /// closes the phase.
    fn thinking_text(&mut self, run: &mut Run, text: &[u8], done: bool, now: u64) {
        let at = match run.open_thinking {
            Some(at) => at,
            None => match self.push_item(run, Item::Thinking(Phase::at(now))) {
                Some(at) => at,
                None => return,
            },
        };
        run.open_thinking = (!done).then_some(at);
        if let Item::Thinking(phase) = &mut run.items[at] {
            phase.end = now;
            let room = self.limits.thinking.saturating_sub(phase.text.len());
            self.keep_text(Share::Details, phase, text, room);
        }
    }

    /// Counts the call's status and completes it: the call kept at its start, else one
    /// added now (no start was seen, or it was not kept).
    fn call_ended(&mut self, run: &mut Run, end: &ToolEnd<'_>, now: u64) {
        run.open_answer = None;
        run.open_thinking = None;
        let word = words::status_word(end.status).to_string();
        *run.counts.entry(word).or_default() += 1;
        let i = match run.open_calls.remove(&end.seq) {
            Some(i) => Some(i),
            None => {
                let i = self.add_call(run, end.call, now);
                run.items.extend(i.map(Item::Call));
                i
            }
        };
        if let Some(i) = i {
            self.complete_call(run, i, end, now);
        }
    }

    /// Gives call `i` its end: the status, the effect, and the output (else the error) as
    /// the budget allows; arguments kept without their output are dropped too.
    fn complete_call(&mut self, run: &mut Run, i: usize, end: &ToolEnd<'_>, now: u64) {
        let output = end
            .result
            .filter(|_| self.room(Share::Details))
            .and_then(|r| {
                let parts = readable::read(r, self.limits.keep);
                self.may_keep(Share::Details, parts.kept()).then_some(parts)
            });
        let c = &mut run.calls[i];
        if output.is_none() && end.result.is_some() {
            run.details_dropped += usize::from(c.args.is_some());
            c.args = None;
        }
        c.output = output;
        c.status = ToolStatus::new(end.status.word.to_string(), end.status.class);
        c.effect = end.effect.clone();
        c.ended_ms = end.ended_ms;
        c.end = now;
        if let Some(error) = &c.effect.error
            && c.output.as_ref().is_none_or(Parts::is_empty)
            && c.status.class != StatusClass::Ok
        {
            let parts = readable::text(error, self.limits.keep);
            if self.may_keep(Share::Details, parts.kept()) {
                run.calls[i].output = Some(parts);
            }
        }
    }

    /// Adds an answer segment, a reasoning phase or a notice to the run, as long as the
    /// budget's lines allow (a run of millions of them must not grow memory); its index.
    fn push_item(&mut self, run: &mut Run, item: Item) -> Option<usize> {
        const ITEM: usize = 64;
        if !self.may_keep(Share::Lines, ITEM) {
            run.items_dropped += 1;
            return None;
        }
        run.items.push(item);
        Some(run.items.len() - 1)
    }

    /// Keeps a call (with its arguments when the budget allows); `None` when the run
    /// already lists as many calls as the budget has lines for.
    fn add_call(&mut self, run: &mut Run, call: &ToolCall<'_>, now: u64) -> Option<usize> {
        if !self.may_keep(Share::Lines, self.limits.line) {
            run.calls_unlisted += 1;
            return None;
        }
        let args = call.args.as_deref().and_then(|a| {
            if !self.room(Share::Details) {
                run.details_dropped += 1;
                return None;
            }
            let parts = readable::read(a, self.limits.keep);
            if self.may_keep(Share::Details, parts.kept()) {
                Some(parts)
            } else {
                run.details_dropped += 1;
                None
            }
        });
        run.calls.push(Call {
            id: call.id.as_deref().map(escape::one_line),
            tool: escape::one_line(&call.tool),
            kind: call.kind,
            target: call
                .target
                .as_deref()
                .map(|t| escape::visible(t).into_owned()),
            parent: call.parent.as_deref().map(escape::one_line),
            args,
            output: None,
            status: ToolStatus::pending(),
            effect: Effect::default(),
            at_ms: call.at_ms,
            ended_ms: None,
            start: now,
            end: now,
        });
        Some(run.calls.len() - 1)
    }

    /// Renders the run's section, with as much detail as fits what is left of the budget.
    fn close(&mut self, run: Run) -> anyhow::Result<()> {
        let render = self.renderer();
        let room = self
            .limits
            .total
            .saturating_sub(self.limits.table.min(self.limits.total / 4))
            .saturating_sub(self.sections.len());
        let mut shown = false;
        // Rendered where it is kept, and taken back when it does not fit: a section is
        // never held twice (a run's page can be megabytes).
        let start = self.sections.len();
        for detail in [Detail::Full, Detail::Calls, Detail::Answer] {
            render.section(&run, detail, &mut self.sections);
            if self.sections.len() - start <= room {
                self.cut |= detail != Detail::Full && !run.calls.is_empty();
                shown = true;
                break;
            }
            self.sections.truncate(start);
        }
        if !shown {
            self.runs_unshown += 1;
            self.cut = true;
        }
        self.cut |= run.details_dropped > 0 || run.calls_unlisted > 0 || run.items_dropped > 0;
        let row = Row::of(&run, shown);
        const ROW: usize = 300;
        if self.rows_bytes + ROW <= self.limits.table {
            self.rows_bytes += ROW;
            self.rows.push(row);
        } else {
            self.rows_unlisted += 1;
            self.cut = true;
        }
        // Everything is shown: the section goes where it waits for the end, so that the
        // document of a large log is not held in memory.
        if self.opts.full {
            self.held.push(self.sections.as_bytes())?;
            self.sections.clear();
        }
        Ok(())
    }
}

impl View for TranscriptView {
    fn wants(&self) -> Wants {
        Wants::TEXT
            | Wants::THINKING
            | Wants::THINKING_TEXT
            | Wants::TOOLS
            | Wants::TOOL_RAW
            | Wants::TOOL_DETAILS
            | Wants::NOTICES
            | Wants::PROMPT
    }

    fn run_start(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.runs += 1;
        let source = ctx.diag.source().to_string();
        if self.sources.last() != Some(&source) {
            self.sources.push(source.clone());
        }
        let mut run = Run::new(self.runs, &source, &ctx.run);
        self.keep_prompt(&mut run, &ctx.run);
        self.run = Some(run);
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, _ctx: &mut Ctx) -> anyhow::Result<()> {
        if let Some(mut run) = self.run.take() {
            self.event_in(ev, &mut run);
            self.run = Some(run);
        }
        Ok(())
    }

    fn run_end(&mut self, end: &RunEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        let Some(mut run) = self.run.take() else {
            return Ok(());
        };
        // What a run start did not say, later events may have (a session id, a model, the
        // prompt a stream echoes).
        run.info = ctx.run.clone();
        self.keep_prompt(&mut run, &ctx.run);
        if let Some(text) = settle_answer(end, ctx) {
            let mut phase = Phase::at(run.clock);
            let room = self.limits.answer.saturating_sub(run.answer_kept);
            self.keep_text(Share::Answers, &mut phase, text, room);
            run.items.push(Item::Answer(phase));
        }
        run.end = Some(End {
            outcome: end.outcome.clone(),
            usage: end.usage,
            duration_ms: end.duration_ms,
        });
        self.close(run)
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        let doc = Document {
            rows: &self.rows,
            rows_unlisted: self.rows_unlisted,
            runs: self.runs,
            runs_unshown: self.runs_unshown,
            cut: self.cut,
            sources: &self.sources,
        };
        let (head, tail) = self.renderer().document(&doc);
        ctx.out.write_out(head.as_bytes())?;
        self.held.write_to(&mut ctx.out)?;
        ctx.out.write_out(self.sections.as_bytes())?;
        ctx.out.write_out(tail.as_bytes())?;
        Ok(())
    }
}

//! Codex: `codex exec --json` (notes: `../shared/spec/agents/codex.md`).
//!
//! ```text
//! {"type":"thread.started","thread_id":"019a2d7a-…"}
//! {"type":"turn.started"}
//! {"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"bash -lc ls","status":"in_progress"}}
//! {"type":"item.completed","item":{"id":"item_1","type":"command_execution",…,"exit_code":0,"status":"completed"}}
//! {"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"…"}}
//! {"type":"turn.completed","usage":{"input_tokens":…,"cached_input_tokens":…,"output_tokens":…}}
//! {"type":"turn.failed","error":{"message":"…"}}
//! {"type":"error","message":"Reconnecting... 1/5 (…)"}
//! ```
//!
//! | normalized | from |
//! |---|---|
//! | run start | `thread.started` (session = `thread_id`); a `turn.started` after a finished turn |
//! | text | `agent_message` items, whole (exec has no deltas), each a segment of its own |
//! | thinking | `reasoning` items |
//! | tool calls | `item.started` → `item.completed` by item id, for `command_execution`, `file_change`, `mcp_tool_call`, `web_search`, `todo_list`, `collab_tool_call` (older releases only complete some of them); `declined` is a rejection |
//! | notices | top-level `error` (retries), `error` items (warnings) |
//! | run end | `turn.completed` / `turn.failed`; no terminal event (interrupted) is no result |
//! | final answer | the last `agent_message` of a completed turn |
//!
//! A `web_search` item has two `id` keys (`item_N`, then the provider's `ws_…`): the first
//! is the item's, as everywhere else. The legacy format (0.43 and before) has no `type` at
//! all; [`legacy`] reads it.

mod legacy;
pub(crate) mod rollout;
mod spec;
mod store;

pub(crate) use spec::{Reader, SPEC};

use std::borrow::Cow;
use std::collections::HashSet;
use std::fmt;

use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::event::{
    Agent, AnswerCheck, Effect, Event, Notice, NoticeKind, RunEnd, RunInfo, StatusClass, ToolCall,
    ToolEndRaw, ToolKind, ToolStatus, Usage, Wants,
};
use super::tools::kind_of;
use super::wire::{ErrorMessage, end_unreadable};
use super::{Class, Dialect, RawLine, Sink, mentions};
use crate::agent::event::Outcome;
use crate::input::json::{EachElement, KeyIn, MaybeStr, OptStr, plain_bytes};
use crate::input::lenient::{Count, Num, Object, TokenCount};
use crate::input::peek::{Head, NameId};
use crate::out::diag::{Unreadable, unreadable};

#[derive(Default)]
pub(crate) struct Codex {
    /// The thread of the last run (a turn started after a finished one is a run of the
    /// same thread).
    thread: Option<String>,
    /// Items started in this run: older releases complete some items without a start.
    started: HashSet<String>,
    /// The last `agent_message` (with [`Wants::FINAL`]).
    last_message: Vec<u8>,
    /// Legacy format: the error that will end the run, if it ends without `task_complete`.
    legacy_error: Option<String>,
    /// Legacy format: the last `token_count`.
    legacy_usage: Option<Usage>,
}

/// A top-level line.
#[derive(Deserialize)]
struct Line<'a> {
    #[serde(borrow, default)]
    item: Option<&'a RawValue>,
    #[serde(borrow, default)]
    thread_id: MaybeStr<'a>,
    #[serde(borrow, default)]
    session_id: MaybeStr<'a>,
    #[serde(default)]
    usage: Object<TurnUsage>,
    #[serde(borrow, default)]
    error: Object<ErrorMessage<'a>>,
    #[serde(borrow, default)]
    message: MaybeStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
pub(super) struct TurnUsage {
    pub(super) input_tokens: TokenCount,
    pub(super) cached_input_tokens: TokenCount,
    pub(super) cache_write_input_tokens: TokenCount,
    pub(super) output_tokens: TokenCount,
    pub(super) reasoning_output_tokens: TokenCount,
}

impl TurnUsage {
    /// A count in it is no count.
    pub(super) fn is_bad(&self) -> bool {
        TokenCount::any_bad(&[
            self.input_tokens,
            self.cached_input_tokens,
            self.cache_write_input_tokens,
            self.output_tokens,
            self.reasoning_output_tokens,
        ])
    }

    /// `input_tokens` counts the cached and cache-written ones; `output_tokens` the
    /// reasoning ones.
    pub(super) fn usage(&self) -> Usage {
        let cached = self.cached_input_tokens.as_u64().unwrap_or(0);
        let written = self.cache_write_input_tokens.as_u64().unwrap_or(0);
        Usage {
            input: self
                .input_tokens
                .as_u64()
                .unwrap_or(0)
                .saturating_sub(cached + written),
            output: self.output_tokens.as_u64().unwrap_or(0),
            cache_read: cached,
            cache_write: written,
            reasoning: self.reasoning_output_tokens.as_u64(),
            cost_usd: None,
            cache_write_1h: None,
        }
    }
}

/// An item, read by hand: the first `id` wins (a `web_search` item has two).
#[derive(Default)]
struct Item<'a> {
    id: Option<Cow<'a, str>>,
    kind: Option<Cow<'a, str>>,
    text: Option<Cow<'a, str>>,
    message: Option<Cow<'a, str>>,
    status: Option<Cow<'a, str>>,
    command: Option<Cow<'a, str>>,
    exit_code: Num,
    server: Option<Cow<'a, str>>,
    tool: Option<Cow<'a, str>>,
    query: Option<Cow<'a, str>>,
    changes: Option<&'a RawValue>,
    items: Count,
    result: Option<&'a RawValue>,
    error: Option<&'a RawValue>,
}

struct ItemVisitor;

impl<'de> Visitor<'de> for ItemVisitor {
    type Value = Item<'de>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an item object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Item<'de>, M::Error> {
        const KEYS: &[&str] = &[
            "id",
            "type",
            "item_type",
            "text",
            "message",
            "status",
            "command",
            "exit_code",
            "server",
            "tool",
            "query",
            "changes",
            "items",
            "result",
            "error",
        ];
        let mut item = Item::default();
        while let Some(key) = map.next_key_seed(KeyIn(KEYS))? {
            match key {
                Some(0) if item.id.is_none() => item.id = map.next_value_seed(OptStr)?,
                Some(1 | 2) => item.kind = map.next_value_seed(OptStr)?,
                Some(3) => item.text = map.next_value_seed(OptStr)?,
                Some(4) => item.message = map.next_value_seed(OptStr)?,
                Some(5) => item.status = map.next_value_seed(OptStr)?,
                Some(6) => item.command = map.next_value_seed(OptStr)?,
                Some(7) => item.exit_code = map.next_value()?,
                Some(8) => item.server = map.next_value_seed(OptStr)?,
                Some(9) => item.tool = map.next_value_seed(OptStr)?,
                Some(10) => item.query = map.next_value_seed(OptStr)?,
                Some(11) => item.changes = Some(map.next_value()?),
                Some(12) => item.items = map.next_value()?,
                Some(13) => item.result = Some(map.next_value()?),
                Some(14) => item.error = Some(map.next_value()?),
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(item)
    }
}

fn read_item(raw: &RawValue) -> Result<Item<'_>, serde_json::Error> {
    crate::input::json::with_de!(str raw.get(), undo {}, |de| {
        let item = de.deserialize_map(ItemVisitor)?;
        de.end()?;
        Ok(item)
    })
}

/// The item's `type` in a line laid out as Codex writes it,
/// `{"type":"item.completed","item":{"id":"item_2","type":"command_execution",…`, without
/// a parse; `None` for any other layout (the line is then read in full).
fn peek_item_type(line: &[u8]) -> Option<&str> {
    let rest = line.strip_prefix(br#"{"type":"item.completed","item":{"id":""#)?;
    let (_, rest) = plain_bytes(rest)?;
    let rest = rest.strip_prefix(br#","type":""#)?;
    let (kind, _) = plain_bytes(rest)?;
    std::str::from_utf8(kind).ok()
}

/// The item types that are tool calls (the others are text, reasoning and warnings).
const TOOL_ITEMS: &[&str] = &[
    "command_execution",
    "file_change",
    "mcp_tool_call",
    "web_search",
    "todo_list",
    "collab_tool_call",
];

impl Dialect for Codex {
    fn agent(&self) -> Agent {
        Agent::Codex
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::THREAD_STARTED
            | NameId::SESSION_CREATED
            | NameId::TURN_STARTED
            | NameId::TURN_COMPLETED
            | NameId::TURN_FAILED => Class::lifecycle(Wants::NONE),
            NameId::ITEM_STARTED | NameId::ITEM_UPDATED => Class::content(Wants::TOOLS),
            NameId::ITEM_COMPLETED => Class::content(
                Wants::TEXT | Wants::THINKING | Wants::TOOLS | Wants::NOTICES | Wants::FINAL,
            ),
            NameId::ERROR => Class::noise(Wants::NOTICES),
            _ => Class::UNKNOWN,
        }
    }

    fn reset(&mut self) {
        self.started.clear();
        self.last_message.clear();
        self.legacy_error = None;
        self.legacy_usage = None;
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        if head.name == NameId::ITEM_COMPLETED
            && !sink.wants().has(Wants::TOOLS)
            && peek_item_type(line.bytes).is_some_and(|kind| TOOL_ITEMS.contains(&kind))
        {
            // A tool's item (its command's output is most of a Codex log) is not read by a
            // view that lists no tools, as such a view does not read Cursor's `tool_call`
            // lines.
            return Ok(());
        }
        let ev: Line = match crate::input::json::from_line(line.bytes) {
            Ok(ev) => ev,
            Err(e) => {
                sink.unreadable(Unreadable::of(head.name), line.bytes, &e)?;
                if !matches!(head.name, NameId::TURN_COMPLETED | NameId::TURN_FAILED) {
                    return Ok(());
                }
                self.reset();
                return end_unreadable(Agent::Codex, sink);
            }
        };
        match head.name {
            NameId::THREAD_STARTED | NameId::SESSION_CREATED => {
                self.thread = ev.thread_id.0.or(ev.session_id.0).map(Cow::into_owned);
                self.start(sink)
            }
            NameId::TURN_STARTED if !sink.run_open() => self.start(sink),
            NameId::ITEM_STARTED | NameId::ITEM_COMPLETED => {
                let Some(raw) = ev.item else { return Ok(()) };
                match read_item(raw) {
                    Ok(item) => self.item(item, raw, head.name == NameId::ITEM_COMPLETED, sink),
                    Err(e) => sink.unreadable(unreadable!("item"), line.bytes, &e),
                }
            }
            NameId::TURN_COMPLETED | NameId::TURN_FAILED => {
                self.turn_end(ev, head.name == NameId::TURN_COMPLETED, sink)
            }
            NameId::ERROR if sink.wants().has(Wants::NOTICES) => {
                let text = ev.message.as_deref().unwrap_or("error");
                let kind = if text.starts_with("Reconnecting") {
                    NoticeKind::Retry
                } else {
                    NoticeKind::Error
                };
                sink.event(Event::Notice(&Notice {
                    kind,
                    text: Cow::Borrowed(text),
                }))
            }
            _ => Ok(()),
        }
    }

    /// A line without `type`: the legacy format's.
    fn untyped<S: Sink>(&mut self, line: &RawLine<'_>, sink: &mut S) -> anyhow::Result<bool> {
        legacy::read(self, line, sink)
    }

    /// The input ended: a legacy run that reported an error and never completed failed.
    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        let error = self.legacy_error.take();
        self.reset();
        if !sink.run_open() {
            return Ok(());
        }
        match error {
            Some(reason) => sink.end_run(RunEnd {
                outcome: Outcome::Failed { reason },
                ..RunEnd::unfinished()
            }),
            None => sink.end_run(RunEnd::unfinished()),
        }
    }

    /// What a run carries to the next, the thread (a turn started after a finished one is
    /// a run of the same thread), is forgotten too.
    fn start_afresh(&mut self) {
        self.thread = None;
    }

    fn hint(&self, stderr_line: &str) -> Option<&'static str> {
        let m = stderr_line.to_ascii_lowercase();
        if mentions(
            &m,
            &["not inside a trusted directory", "skip-git-repo-check"],
        ) {
            Some(
                "codex runs only in a trusted git repository: run it in one, or pass --skip-git-repo-check",
            )
        } else if mentions(&m, &["openai_api_key", "401 unauthorized", "codex login"]) {
            Some("codex is not logged in: run `codex login`, or set OPENAI_API_KEY")
        } else {
            None
        }
    }
}

impl Codex {
    /// A run of the current thread starts.
    fn start<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.reset();
        let mut info = RunInfo::new(Agent::Codex);
        info.session_id = self.thread.clone();
        sink.start_run(info)
    }

    /// `turn.completed` or `turn.failed`: the run ends.
    fn turn_end<S: Sink>(
        &mut self,
        ev: Line<'_>,
        completed: bool,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        sink.ensure_run(Agent::Codex)?;
        sink.terminal(true);
        let outcome = if completed {
            Outcome::Succeeded
        } else {
            let message = ev.error.0.as_ref().and_then(|e| e.message.as_deref());
            Outcome::Failed {
                reason: format!("turn.failed: {}", message.unwrap_or("no message")),
            }
        };
        // A failed turn has no final answer (Codex writes none).
        let final_text =
            (completed && sink.wants().has(Wants::FINAL) && !self.last_message.is_empty())
                .then_some(&self.last_message[..]);
        let result = sink.end_run(RunEnd {
            outcome,
            final_text,
            answer: AnswerCheck::Unchecked,
            usage: ev.usage.0.as_ref().map(TurnUsage::usage),
            duration_ms: None,
            native_json: None,
            last_ms: None,
        });
        self.reset();
        result
    }

    /// A whole message of the agent (an `agent_message` item, or the legacy event): a
    /// segment of its own, and the final answer so far.
    fn agent_message<S: Sink>(&mut self, text: &str, sink: &mut S) -> anyhow::Result<()> {
        let wants = sink.wants();
        if wants.has(Wants::FINAL) {
            self.last_message.clear();
            self.last_message.extend_from_slice(text.as_bytes());
        }
        if wants.has(Wants::TEXT) {
            sink.event(Event::Segment)?;
            sink.event(Event::Text(text.as_bytes()))?;
        }
        Ok(())
    }

    /// An item started or completed: a message, reasoning, a warning, or a tool call.
    fn item<S: Sink>(
        &mut self,
        item: Item<'_>,
        raw: &RawValue,
        completed: bool,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        let wants = sink.wants();
        let kind = item.kind.as_deref().unwrap_or("");
        match kind {
            "agent_message" | "assistant_message" if completed => {
                self.agent_message(item.text.as_deref().unwrap_or(""), sink)
            }
            "reasoning" if completed && wants.has(Wants::THINKING) => sink.event(Event::Thinking {
                text: item.text.as_deref().unwrap_or("").as_bytes(),
                done: true,
            }),
            "error" if completed && wants.has(Wants::NOTICES) => {
                sink.event(Event::Notice(&Notice {
                    kind: NoticeKind::Warning,
                    text: Cow::Borrowed(item.message.as_deref().unwrap_or("error")),
                }))
            }
            tool if TOOL_ITEMS.contains(&tool) && wants.has(Wants::TOOLS) => {
                let call = tool_call(&item, raw, wants);
                if !completed {
                    if let Some(id) = &item.id {
                        self.started.insert(id.to_string());
                    }
                    return sink.tool_started(call);
                }
                // Older releases complete some items (file changes, searches) without a
                // start: the completion is the whole call.
                let seen = item.id.as_deref().is_some_and(|id| self.started.remove(id));
                if !seen {
                    sink.tool_started(call.clone())?;
                }
                let (status, effect) = status_and_effect(&item, wants);
                sink.tool_ended(ToolEndRaw {
                    call,
                    status,
                    result: Some(raw)
                        .filter(|_| wants.has(Wants::TOOL_RAW))
                        .map(Cow::Borrowed),
                    effect,
                    ended_ms: None,
                })
            }
            _ => Ok(()),
        }
    }
}

fn tool_call<'a>(item: &Item<'a>, raw: &'a RawValue, wants: Wants) -> ToolCall<'a> {
    let tool = item.kind.clone().unwrap_or(Cow::Borrowed("unknown"));
    let kind = kind_of(&tool);
    let target = wants
        .has(Wants::TOOL_DETAILS)
        .then(|| target(item, kind))
        .flatten();
    ToolCall {
        id: item.id.clone(),
        tool,
        kind,
        args: Some(raw)
            .filter(|_| wants.has(Wants::TOOL_RAW))
            .map(Cow::Borrowed),
        target: target.map(Cow::Owned),
        parent: None,
        at_ms: None,
    }
}

/// The main argument of an item.
fn target(item: &Item<'_>, kind: ToolKind) -> Option<String> {
    match kind {
        ToolKind::Shell => item.command.as_deref().map(str::to_owned),
        ToolKind::Edit => {
            let paths = changed_paths(item.changes?);
            let first = paths.first()?.clone();
            Some(match paths.len() {
                1 => first,
                n => format!("{first} and {} more", n - 1),
            })
        }
        ToolKind::Mcp => match (item.server.as_deref(), item.tool.as_deref()) {
            (Some(s), Some(t)) => Some(format!("{s}/{t}")),
            (s, t) => t.or(s).map(str::to_owned),
        },
        ToolKind::WebSearch => item
            .query
            .as_deref()
            .filter(|q| !q.is_empty())
            .map(str::to_owned),
        ToolKind::Todo => item
            .items
            .0
            .map(|n| format!("{n} {}", if n == 1 { "todo" } else { "todos" })),
        ToolKind::Task => item.tool.as_deref().map(str::to_owned),
        _ => None,
    }
}

fn changed_paths(changes: &RawValue) -> Vec<String> {
    #[derive(Deserialize)]
    struct Change<'a> {
        #[serde(borrow, default)]
        path: MaybeStr<'a>,
    }
    let mut paths = Vec::new();
    let mut de = serde_json::Deserializer::from_str(changes.get());
    let _ = EachElement::new(|c: Change| paths.extend(c.path.0.map(Cow::into_owned)))
        .deserialize(&mut de);
    paths
}

fn status_and_effect<'a>(item: &Item<'a>, wants: Wants) -> (ToolStatus<'a>, Effect) {
    let status = match item.status.as_deref() {
        None | Some("completed") => ToolStatus::success(),
        Some("declined") => ToolStatus::new("declined", StatusClass::Rejected),
        Some("in_progress") => ToolStatus::unknown(),
        Some(_) => ToolStatus::new(item.status.clone().unwrap_or_default(), StatusClass::Failed),
    };
    if !wants.has(Wants::TOOL_DETAILS) {
        return (status, Effect::default());
    }
    let mut effect = Effect {
        exit_code: item.exit_code.as_i64(),
        ..Effect::default()
    };
    if let Some(changes) = item.changes {
        effect.files = Some(changed_paths(changes).len() as u64);
    }
    if status.class != StatusClass::Ok {
        effect.error = item
            .error
            .and_then(error_message)
            .or_else(|| item.result.and_then(result_text));
    }
    (status, effect)
}

/// `{"message":"…"}`.
fn error_message(error: &RawValue) -> Option<String> {
    crate::input::json::from_str::<ErrorMessage>(error.get())
        .ok()?
        .message
        .0
        .map(Cow::into_owned)
}

/// The first text of an MCP result's `content`.
fn result_text(result: &RawValue) -> Option<String> {
    #[derive(Deserialize)]
    struct R<'a> {
        #[serde(borrow, default)]
        content: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(borrow, default)]
        text: MaybeStr<'a>,
    }
    let content = crate::input::json::from_str::<R>(result.get())
        .ok()?
        .content?;
    let mut found = None;
    let mut de = serde_json::Deserializer::from_str(content.get());
    let _ = EachElement::new(|b: Block| {
        if found.is_none() {
            found = b.text.0.map(Cow::into_owned);
        }
    })
    .deserialize(&mut de);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_id_of_a_web_search_item_is_its_own() {
        let raw: &RawValue = serde_json::from_str(
            r#"{"id":"item_1","type":"web_search","id":"ws_08df","query":"","action":{"type":"other"}}"#,
        )
        .unwrap();
        let item = read_item(raw).unwrap();
        assert_eq!(item.id.as_deref(), Some("item_1"));
        assert_eq!(item.kind.as_deref(), Some("web_search"));
    }

    #[test]
    fn usage_is_split_into_what_was_cached() {
        let u: TurnUsage = serde_json::from_str(r#"{"input_tokens":41320,"cached_input_tokens":27386,"cache_write_input_tokens":13925,"output_tokens":295,"reasoning_output_tokens":74}"#).unwrap();
        let usage = u.usage();
        assert_eq!(
            (usage.input, usage.cache_read, usage.cache_write),
            (9, 27386, 13925)
        );
        assert_eq!((usage.output, usage.reasoning), (295, Some(74)));
    }
}

//! Selecting events by type, subtype, tool and session, for `events` and `get`.
//!
//! Types and subtypes are the agent's own names (`--type item.completed`). Tools and
//! sessions are asked of the run: the tool calls the dialect read on the line, the run's
//! session id.

use std::borrow::Cow;

use crate::agent::RawLine;
use crate::agent::detect::session_id_of;
use crate::agent::event::{Event, StatusClass, Wants};
use crate::input::peek::{Head, NameId, TypeSet};
use crate::view::Ctx;

/// Criteria that must all hold; each list lets through any of its values, an empty list
/// lets through everything.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub types: Vec<String>,
    pub subtypes: Vec<String>,
    /// Tool names (`shell`, `Bash`, `command_execution`, …): the lines that start or end
    /// a call of these tools.
    pub tools: Vec<String>,
    /// Session ids, or prefixes of them.
    pub sessions: Vec<String>,
    /// Keep what does not match instead.
    pub invert: bool,
}

/// What the dialect read on the current line, for the criteria that need it.
#[derive(Debug, Default)]
pub(crate) struct LineFacts {
    /// The stretch of lines (`Diag::stretch`) and the line's number: the same number in
    /// the next input, or in a sub-agent's log read in, is another line.
    at: (u64, u64),
    tools: Vec<String>,
}

impl LineFacts {
    /// Notes the tool calls an event of the current line is about.
    pub(crate) fn event(&mut self, ev: &Event<'_>, ctx: &Ctx) {
        let tool = match ev {
            Event::ToolStarted { call, .. } => &call.tool,
            // A call still pending when its run ends is not about the line that ends it.
            Event::ToolEnded(end) if end.status.class != StatusClass::Pending => &end.call.tool,
            _ => return,
        };
        let at = (ctx.diag.stretch(), ctx.diag.line());
        if self.at != at {
            self.at = at;
            self.tools.clear();
        }
        self.tools.push(tool.to_string());
    }

    fn tools_on(&self, line: u64, ctx: &Ctx) -> &[String] {
        if self.at == (ctx.diag.stretch(), line) {
            &self.tools
        } else {
            &[]
        }
    }
}

impl EventFilter {
    fn has_criteria(&self) -> bool {
        !(self.types.is_empty()
            && self.subtypes.is_empty()
            && self.tools.is_empty()
            && self.sessions.is_empty())
    }

    /// The event types that can pass, for the dispatcher.
    pub(crate) fn raw_types(&self) -> TypeSet {
        if self.invert || self.types.is_empty() {
            return TypeSet::ALL;
        }
        let mut named = TypeSet::NONE;
        for t in &self.types {
            named.insert(NameId::of_name(t));
        }
        named
    }

    /// What the dialect must read for the criteria.
    pub(crate) fn wants(&self) -> Wants {
        if self.tools.is_empty() {
            Wants::NONE
        } else {
            Wants::TOOLS
        }
    }

    /// Whether lines that are not events (blank, not JSON) pass: they meet no criterion.
    pub(crate) fn passes_non_events(&self) -> bool {
        !self.has_criteria() || self.invert
    }

    pub(crate) fn passes(
        &self,
        line: &RawLine<'_>,
        head: &Head,
        facts: &LineFacts,
        ctx: &Ctx,
    ) -> bool {
        self.meets_criteria(line, head, facts, ctx) != self.invert
    }

    fn meets_criteria(
        &self,
        line: &RawLine<'_>,
        head: &Head,
        facts: &LineFacts,
        ctx: &Ctx,
    ) -> bool {
        if !self.types.is_empty() && !self.types.iter().any(|t| *t == head.type_name) {
            return false;
        }
        if !self.subtypes.is_empty() {
            let Some(subtype) = head.subtype(line.bytes) else {
                return false;
            };
            if !self.subtypes.iter().any(|s| *s == subtype) {
                return false;
            }
        }
        if !self.tools.is_empty() {
            let tools = facts.tools_on(line.number, ctx);
            if !tools
                .iter()
                .any(|tool| self.tools.iter().any(|t| t.eq_ignore_ascii_case(tool)))
            {
                return false;
            }
        }
        if !self.sessions.is_empty() {
            // A line between two runs is not the last run's: its own id tells (Claude's
            // hooks before an `init` carry the session they start).
            let id = match &ctx.run.session_id {
                Some(id) if ctx.line_in_run() => Some(Cow::Borrowed(id.as_str())),
                _ => session_id_of(line.bytes),
            };
            let Some(id) = id else { return false };
            if !self.sessions.iter().any(|s| id.starts_with(s.as_str())) {
                return false;
            }
        }
        true
    }
}

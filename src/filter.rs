//! Selecting events by type, subtype, tool and session, for `events` and `get`.

use std::borrow::Cow;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::event::{EventKind, KindSet, Subtype, parse_head};
use crate::tool_call;
use crate::view::{Event, RunInfo};

/// Criteria that must all hold; each list lets through any of its values, an empty list
/// lets through everything.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub types: Vec<String>,
    pub subtypes: Vec<String>,
    /// Tool kinds (`shell`, `read`, …); only `tool_call` events have one.
    pub tools: Vec<String>,
    /// Session ids, or prefixes of them.
    pub sessions: Vec<String>,
    /// Keep what does not match instead.
    pub invert: bool,
}

impl EventFilter {
    fn has_criteria(&self) -> bool {
        !(self.types.is_empty()
            && self.subtypes.is_empty()
            && self.tools.is_empty()
            && self.sessions.is_empty())
    }

    /// The event types that can pass, for the dispatcher.
    pub fn interest(&self) -> KindSet {
        if self.invert || (self.types.is_empty() && self.tools.is_empty()) {
            return KindSet::ALL;
        }
        if self.types.is_empty() {
            return KindSet::of(&[EventKind::ToolCall]);
        }
        self.types
            .iter()
            .map(|t| KindSet::of(&[EventKind::from_name(t)]))
            .fold(KindSet::NONE, KindSet::union)
    }

    /// Whether lines that are not events (blank, not JSON) pass: they meet no criterion.
    pub fn passes_non_events(&self) -> bool {
        !self.has_criteria() || self.invert
    }

    pub fn passes(&self, ev: &Event<'_>, run: &RunInfo) -> bool {
        self.meets_criteria(ev, run) != self.invert
    }

    fn meets_criteria(&self, ev: &Event<'_>, run: &RunInfo) -> bool {
        if !self.types.is_empty() && !self.types.iter().any(|t| *t == ev.head.type_name) {
            return false;
        }
        if !self.subtypes.is_empty() {
            let subtype = match &ev.head.subtype {
                Subtype::Known(s) => s.clone(),
                Subtype::NotPeeked => match parse_head(ev.line) {
                    Ok(head) => match head.subtype {
                        Subtype::Known(Some(s)) => Some(Cow::Owned(s.into_owned())),
                        _ => None,
                    },
                    Err(_) => None,
                },
            };
            let Some(subtype) = subtype else { return false };
            if !self.subtypes.iter().any(|s| *s == subtype) {
                return false;
            }
        }
        if !self.tools.is_empty() {
            if ev.kind() != EventKind::ToolCall {
                return false;
            }
            let Some(tool) = tool_kind(ev.line) else {
                return false;
            };
            if !self.tools.iter().any(|t| t.eq_ignore_ascii_case(&tool)) {
                return false;
            }
        }
        if !self.sessions.is_empty() {
            let id = match &run.session_id {
                Some(id) => Some(Cow::Borrowed(id.as_str())),
                None => line_session_id(ev.line),
            };
            let Some(id) = id else { return false };
            if !self.sessions.iter().any(|s| id.starts_with(s.as_str())) {
                return false;
            }
        }
        true
    }
}

/// The tool kind of a `tool_call` event.
///
/// Real lines read `{"type":"tool_call","subtype":"…","call_id":"…","tool_call":{"<kind>ToolCall":…`,
/// so the kind is found without scanning the (often huge) payload. Any other shape —
/// other key order, metadata keys first, escapes in the kind — is parsed in full.
pub fn tool_kind(line: &[u8]) -> Option<Cow<'_, str>> {
    if let Some(kind) = crate::event::fast_paths()
        .then(|| peek_tool_kind(line))
        .flatten()
    {
        return Some(Cow::Borrowed(kind));
    }
    tool_call::read_tool_call::<IgnoredAny, IgnoredAny>(line)
        .ok()?
        .call
        .map(|c| c.tool)
}

fn peek_tool_kind(line: &[u8]) -> Option<&str> {
    let rest = line.strip_prefix(br#"{"type":"tool_call","subtype":""#)?;
    let rest = &rest[memchr::memchr2(b'"', b'\\', rest)?..];
    let rest = rest.strip_prefix(br#"","call_id":""#)?;
    let (_, _, rest) = crate::event::string_body(rest)?;
    let rest = rest.strip_prefix(br#","tool_call":{""#)?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    let key = rest[..end].strip_suffix(b"ToolCall")?;
    if rest[end] != b'"' || key.is_empty() {
        return None;
    }
    std::str::from_utf8(key).ok()
}

fn line_session_id(line: &[u8]) -> Option<Cow<'_, str>> {
    #[derive(Deserialize)]
    struct Id<'a> {
        #[serde(borrow, default)]
        session_id: Option<Cow<'a, str>>,
    }
    serde_json::from_slice::<Id>(line).ok()?.session_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::peek;

    fn passes(filter: &EventFilter, line: &str, run: &RunInfo) -> bool {
        let head = peek(line.as_bytes()).unwrap();
        let ev = Event {
            line: line.as_bytes(),
            raw: line.as_bytes(),
            head: &head,
        };
        filter.passes(&ev, run)
    }

    const SHELL_DONE: &str = r#"{"type":"tool_call","subtype":"completed","call_id":"a\"b\nc","tool_call":{"shellToolCall":{"args":{"command":"ls"}}},"session_id":"s1"}"#;

    #[test]
    fn tool_kind_is_peeked_in_the_usual_order_and_parsed_otherwise() {
        assert_eq!(peek_tool_kind(SHELL_DONE.as_bytes()), Some("shell"));
        let sorted = r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"hookAdditionalContexts":[],"readToolCall":{"args":{}}}}"#;
        assert_eq!(peek_tool_kind(sorted.as_bytes()), None);
        assert_eq!(tool_kind(sorted.as_bytes()).as_deref(), Some("read"));
        let reordered =
            r#"{"tool_call":{"grepToolCall":{}},"type":"tool_call","subtype":"started"}"#;
        assert_eq!(tool_kind(reordered.as_bytes()).as_deref(), Some("grep"));
    }

    #[test]
    fn criteria_combine_and_invert() {
        let run = RunInfo {
            session_id: Some("s1-abc".into()),
            ..RunInfo::default()
        };
        let f = EventFilter {
            types: vec!["tool_call".into()],
            subtypes: vec!["completed".into()],
            tools: vec!["SHELL".into()],
            sessions: vec!["s1".into()],
            invert: false,
        };
        assert!(passes(&f, SHELL_DONE, &run));
        let other_run = RunInfo {
            session_id: Some("s2".into()),
            ..RunInfo::default()
        };
        assert!(!passes(&f, SHELL_DONE, &other_run));
        let inverted = EventFilter {
            invert: true,
            ..f.clone()
        };
        assert!(!passes(&inverted, SHELL_DONE, &run));
        assert!(inverted.passes_non_events());
        assert!(!f.passes_non_events());
        assert_eq!(f.interest(), KindSet::of(&[EventKind::ToolCall]));
    }

    #[test]
    fn session_comes_from_the_line_without_an_init() {
        let f = EventFilter {
            sessions: vec!["s1".into()],
            ..EventFilter::default()
        };
        assert!(passes(&f, SHELL_DONE, &RunInfo::default()));
    }
}

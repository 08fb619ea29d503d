//! `tool_call` events: the format, and reading them for the views that list tool calls.
//!
//! # The format
//!
//! ```text
//! {"type":"tool_call","subtype":"started","call_id":"<id>",
//!  "tool_call":{"readToolCall":{"args":{"path":"file.txt"}},
//!               "hookAdditionalContexts":[],"toolCallId":"<id>","startedAtMs":"1784819289745"},
//!  "model_call_id":"…","session_id":"…","timestamp_ms":1784819289745}
//! {"type":"tool_call","subtype":"completed","call_id":"<id>",
//!  "tool_call":{"readToolCall":{"args":{…},"result":{"success":{"content":"…","totalLines":54}}},
//!               …,"completedAtMs":"1784819289801"},…}
//! ```
//!
//! Where real output breaks naive readers (spec §3):
//!
//! - The tool is the key of `tool_call` that ends in `ToolCall` (`readToolCall` → `read`),
//!   or `function` (`{"name":…,"arguments":"<json string>"}`, from the docs). Beside it
//!   sit metadata keys (`hookAdditionalContexts`, `toolCallId`, `startedAtMs`,
//!   `completedAtMs`): "the first key" is wrong.
//! - `startedAtMs`/`completedAtMs` are strings holding integers.
//! - `call_id` is opaque and may hold a newline: it is compared verbatim.
//! - The result is an object with one variant key (`success`, `rejected`, `error`,
//!   `failure`, `timeout`, `spawnError`, `permissionDenied`, …). Shell results carry a
//!   sibling `isBackground` that is not the variant: the variant is the key whose value is
//!   an object.
//! - Rejected and failed completions omit `args`; the `started` event has them.
//! - Error text is under `errorMessage` (read), `error` (grep, task, mcp) or `reason`
//!   (rejected).
//!
//! # Reading
//!
//! [`read_tool_call`] reads one event in one pass, generic over what is kept of the
//! arguments (`A`) and of the result's payload (`P`): the raw JSON text
//! ([`&RawValue`](serde_json::value::RawValue), borrowed from the line, not copied), a few
//! fields for the human views ([`OutcomeSummary`]), or nothing
//! ([`serde::de::IgnoredAny`]). Fields of an unexpected type are taken as absent rather
//! than failing the whole event.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use crate::input::json::{BorrowedStr, ObjectOnly, OptStr};
use crate::input::lenient::{Count, Flag, Num, Text};

/// `started`, `completed`, or another subtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    Started,
    Completed,
    Other,
}

#[derive(Debug)]
pub(crate) struct ToolCallEvent<'a, A, P> {
    pub phase: Phase,
    pub call_id: Option<Cow<'a, str>>,
    pub session_id: Option<Cow<'a, str>>,
    pub timestamp_ms: Option<u64>,
    /// `None` when `tool_call` is missing or holds no tool key.
    pub call: Option<Call<'a, A, P>>,
    pub started_at_ms: Option<u64>,
    pub completed_at_ms: Option<u64>,
}

#[derive(Debug)]
pub(crate) struct Call<'a, A, P> {
    /// The kind key without `ToolCall` (`read`, `shell`, `semSearch`, …), or for the
    /// `function` shape, the function's name.
    pub tool: Cow<'a, str>,
    pub args: Option<A>,
    pub result: Option<CallResult<'a, P>>,
}

#[derive(Debug)]
pub(crate) enum CallResult<'a, P> {
    /// `{"<variant>": {…}}`.
    Variant {
        /// The variant key: `success`, `rejected`, `error`, …
        status: Cow<'a, str>,
        payload: P,
    },
    /// A result that is not an object (a `function` call's JSON string, an array, a
    /// number): the call still ended. Kept as written when the payload keeps raw JSON.
    Unexpected(Option<Box<RawValue>>),
}

/// Reads a `tool_call` event. See the module doc for `A` and `P`.
pub(crate) fn read_tool_call<'a, A, P>(
    line: &'a [u8],
) -> Result<ToolCallEvent<'a, A, P>, serde_json::Error>
where
    A: Deserialize<'a>,
    P: Payload<'a>,
{
    crate::input::json::with_de!(line, |de| {
        let ev = de.deserialize_map(EventVisitor(PhantomData))?;
        de.end()?;
        Ok(ev)
    })
}

/// How the result's variant payload is kept.
pub(crate) trait Payload<'de>: Sized {
    /// The raw JSON is kept: a result of an unexpected shape is kept too.
    const RAW: bool = false;
    /// Reads the next map value; `None` when it is not an object (so not the variant).
    fn next<M: MapAccess<'de>>(map: &mut M) -> Result<Option<Self>, M::Error>;
}

impl<'de> Payload<'de> for &'de RawValue {
    const RAW: bool = true;
    fn next<M: MapAccess<'de>>(map: &mut M) -> Result<Option<Self>, M::Error> {
        let raw: &'de RawValue = map.next_value()?;
        Ok(raw.get().starts_with('{').then_some(raw))
    }
}

impl<'de> Payload<'de> for IgnoredAny {
    fn next<M: MapAccess<'de>>(map: &mut M) -> Result<Option<Self>, M::Error> {
        map.next_value_seed(ObjectOnly::<IgnoredAny>::new())
    }
}

impl<'de> Payload<'de> for OutcomeSummary {
    fn next<M: MapAccess<'de>>(map: &mut M) -> Result<Option<Self>, M::Error> {
        map.next_value_seed(ObjectOnly::<OutcomeSummary>::new())
    }
}

/// The parts of a result payload that say how a call went.
#[derive(Debug, Default, Clone, PartialEq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(crate) struct OutcomeSummary {
    pub exit_code: Num,
    pub signal: Text,
    pub total_lines: Num,
    pub lines_added: Num,
    pub lines_removed: Num,
    pub lines_created: Num,
    pub total_files: Num,
    pub files: Count,
    pub total_count: Num,
    pub workspace_results: GrepTotals,
    pub reason: Text,
    pub error_message: Text,
    pub error: Text,
    pub message: Text,
    pub is_error: Flag,
    pub is_empty: Flag,
}

impl OutcomeSummary {
    /// The error text, wherever this tool keeps it.
    pub(crate) fn error_text(&self) -> Option<&str> {
        [
            &self.error_message,
            &self.error,
            &self.reason,
            &self.message,
        ]
        .into_iter()
        .find_map(|t| t.0.as_deref().filter(|s| !s.is_empty()))
    }
}

/// grep's `workspaceResults{<root>:{content:{totalMatchedLines}}|{files:{totalFiles}}}`,
/// summed over the roots.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct GrepTotals {
    pub matched_lines: Option<u64>,
    pub files: Option<u64>,
}

impl<'de> Deserialize<'de> for GrepTotals {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GrepTotals, D::Error> {
        #[derive(Deserialize, Default)]
        #[serde(default, rename_all = "camelCase")]
        struct Root {
            content: Option<Content>,
            files: Option<Files>,
        }
        #[derive(Deserialize, Default)]
        #[serde(default, rename_all = "camelCase")]
        struct Content {
            total_matched_lines: Num,
        }
        #[derive(Deserialize, Default)]
        #[serde(default, rename_all = "camelCase")]
        struct Files {
            total_files: Num,
            files: Count,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GrepTotals;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("grep workspace results")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<GrepTotals, M::Error> {
                let mut t = GrepTotals::default();
                while map.next_key::<IgnoredAny>()?.is_some() {
                    let Some(root) = map.next_value_seed(ObjectOnly::<Root>::new())? else {
                        continue;
                    };
                    if let Some(n) = root.content.and_then(|c| c.total_matched_lines.as_u64()) {
                        *t.matched_lines.get_or_insert(0) += n;
                    }
                    if let Some(n) = root
                        .files
                        .and_then(|f| f.total_files.as_u64().or(f.files.0))
                    {
                        *t.files.get_or_insert(0) += n;
                    }
                }
                Ok(t)
            }
            fn visit_unit<E: de::Error>(self) -> Result<GrepTotals, E> {
                Ok(GrepTotals::default())
            }
        }
        d.deserialize_any(V)
    }
}

struct EventVisitor<A, P>(PhantomData<(A, P)>);

impl<'de, A: Deserialize<'de>, P: Payload<'de>> Visitor<'de> for EventVisitor<A, P> {
    type Value = ToolCallEvent<'de, A, P>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tool_call event object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut ev = ToolCallEvent {
            phase: Phase::Other,
            call_id: None,
            session_id: None,
            timestamp_ms: None,
            call: None,
            started_at_ms: None,
            completed_at_ms: None,
        };
        while let Some(key) = map.next_key_seed(BorrowedStr)? {
            match &*key {
                "subtype" => {
                    ev.phase = match map.next_value::<Text>()?.0.as_deref() {
                        Some("started") => Phase::Started,
                        Some("completed") => Phase::Completed,
                        _ => Phase::Other,
                    }
                }
                "call_id" => ev.call_id = map.next_value_seed(OptStr)?,
                "session_id" => ev.session_id = map.next_value_seed(OptStr)?,
                "timestamp_ms" => ev.timestamp_ms = map.next_value::<Num>()?.as_u64(),
                "tool_call" => {
                    let body = map.next_value_seed(ToolCallSeed::<A, P>(PhantomData))?;
                    ev.call = body.call;
                    ev.started_at_ms = body.started_at_ms;
                    ev.completed_at_ms = body.completed_at_ms;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(ev)
    }
}

struct ToolCallBody<'a, A, P> {
    call: Option<Call<'a, A, P>>,
    started_at_ms: Option<u64>,
    completed_at_ms: Option<u64>,
}

/// The `tool_call` object: the tool key, and the metadata beside it.
struct ToolCallSeed<A, P>(PhantomData<(A, P)>);

impl<'de, A: Deserialize<'de>, P: Payload<'de>> DeserializeSeed<'de> for ToolCallSeed<A, P> {
    type Value = ToolCallBody<'de, A, P>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, A: Deserialize<'de>, P: Payload<'de>> Visitor<'de> for ToolCallSeed<A, P> {
    type Value = ToolCallBody<'de, A, P>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tool_call object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut body = ToolCallBody {
            call: None,
            started_at_ms: None,
            completed_at_ms: None,
        };
        while let Some(key) = map.next_key_seed(BorrowedStr)? {
            match &*key {
                "startedAtMs" => body.started_at_ms = map.next_value::<Num>()?.as_u64(),
                "completedAtMs" => body.completed_at_ms = map.next_value::<Num>()?.as_u64(),
                "function" if body.call.is_none() => {
                    body.call = map.next_value_seed(FunctionSeed::<A, P>(PhantomData))?;
                }
                k if k.ends_with("ToolCall")
                    && k.len() > "ToolCall".len()
                    && body.call.is_none() =>
                {
                    let tool = match key {
                        Cow::Borrowed(k) => Cow::Borrowed(&k[..k.len() - "ToolCall".len()]),
                        Cow::Owned(mut k) => {
                            k.truncate(k.len() - "ToolCall".len());
                            Cow::Owned(k)
                        }
                    };
                    let (args, result) = map.next_value_seed(KindSeed::<A, P>(PhantomData))?;
                    body.call = Some(Call { tool, args, result });
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(body)
    }

    // `tool_call` of another type: no call.
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(ToolCallBody {
            call: None,
            started_at_ms: None,
            completed_at_ms: None,
        })
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.visit_str("")
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        self.visit_str("")
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        self.visit_str("")
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        self.visit_str("")
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        self.visit_str("")
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.visit_str("")
    }
}

/// `{"args":…,"result":{…}}` under the kind key.
struct KindSeed<A, P>(PhantomData<(A, P)>);

type KindParts<'a, A, P> = (Option<A>, Option<CallResult<'a, P>>);

impl<'de, A: Deserialize<'de>, P: Payload<'de>> DeserializeSeed<'de> for KindSeed<A, P> {
    type Value = KindParts<'de, A, P>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, A: Deserialize<'de>, P: Payload<'de>> Visitor<'de> for KindSeed<A, P> {
    type Value = KindParts<'de, A, P>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tool object with args and result")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut args = None;
        let mut result = None;
        while let Some(key) = map.next_key_seed(BorrowedStr)? {
            match &*key {
                "args" => args = Some(map.next_value()?),
                "result" => result = map.next_value_seed(ResultSeed::<P>(PhantomData))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok((args, result))
    }
}

/// `result`: the first key whose value is an object is the variant.
struct ResultSeed<P>(PhantomData<P>);

impl<'de, P: Payload<'de>> DeserializeSeed<'de> for ResultSeed<P> {
    type Value = Option<CallResult<'de, P>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<P> ResultSeed<P> {
    /// A result of another shape than an object, kept as written (re-encoded: a string's
    /// escapes may be written differently) when raw JSON is kept.
    fn unexpected<'de, T: serde::Serialize + ?Sized, E: de::Error>(
        value: &T,
    ) -> Result<Option<CallResult<'de, P>>, E>
    where
        P: Payload<'de>,
    {
        let raw = P::RAW
            .then(|| serde_json::value::to_raw_value(value))
            .transpose()
            .map_err(E::custom)?;
        Ok(Some(CallResult::Unexpected(raw)))
    }
}

impl<'de, P: Payload<'de>> Visitor<'de> for ResultSeed<P> {
    type Value = Option<CallResult<'de, P>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a result object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut result = None;
        while let Some(key) = map.next_key_seed(BorrowedStr)? {
            if result.is_some() {
                map.next_value::<IgnoredAny>()?;
            } else if let Some(payload) = P::next(&mut map)? {
                result = Some(CallResult::Variant {
                    status: key,
                    payload,
                });
            }
        }
        Ok(result)
    }

    // `null`: ended without saying how.
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Self::unexpected(v)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Self::unexpected(&v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Self::unexpected(&v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Self::unexpected(&v)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Self::unexpected(&v)
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<Self::Value, S::Error> {
        if !P::RAW {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(Some(CallResult::Unexpected(None)));
        }
        // Depth stays bounded: serde_json's recursion limit applies inside the sequence.
        let value: serde_json::Value =
            Deserialize::deserialize(de::value::SeqAccessDeserializer::new(seq))?;
        Self::unexpected(&value)
    }
}

/// The docs' `{"function":{"name":"…","arguments":"<json string>"}}` shape.
struct FunctionSeed<A, P>(PhantomData<(A, P)>);

impl<'de, A: Deserialize<'de>, P: Payload<'de>> DeserializeSeed<'de> for FunctionSeed<A, P> {
    type Value = Option<Call<'de, A, P>>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de, A: Deserialize<'de>, P: Payload<'de>> Visitor<'de> for FunctionSeed<A, P> {
    type Value = Option<Call<'de, A, P>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a function object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut name = None;
        let mut args = None;
        let mut result = None;
        while let Some(key) = map.next_key_seed(BorrowedStr)? {
            match &*key {
                "name" => name = map.next_value_seed(OptStr)?,
                "arguments" => args = Some(map.next_value()?),
                "result" => result = map.next_value_seed(ResultSeed::<P>(PhantomData))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Some(Call {
            tool: name.unwrap_or(Cow::Borrowed("function")),
            args,
            result,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Summary<'a> = ToolCallEvent<'a, &'a RawValue, OutcomeSummary>;
    type Raw<'a> = ToolCallEvent<'a, &'a RawValue, &'a RawValue>;

    const REJECTED: &str = r#"{"type":"tool_call","subtype":"completed","call_id":"call-1\nfc_1","tool_call":{"shellToolCall":{"result":{"rejected":{"command":"rm -rf build","reason":"","isReadonly":false}}},"hookAdditionalContexts":[],"toolCallId":"call-1\nfc_1","startedAtMs":"1784819289745","completedAtMs":"1784819290000"},"session_id":"s1","timestamp_ms":1784819290001}"#;

    #[test]
    fn metadata_keys_are_not_the_tool() {
        // Sorted keys (as serde_json's default map writes them) put metadata first.
        let line = r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"completedAtMs":"2","hookAdditionalContexts":[],"readToolCall":{"args":{"path":"a.rs"}},"startedAtMs":"1","toolCallId":"c"}}"#;
        let ev: Summary = read_tool_call(line.as_bytes()).unwrap();
        let call = ev.call.unwrap();
        assert_eq!(call.tool, "read");
        assert_eq!(call.args.unwrap().get(), r#"{"path":"a.rs"}"#);
        assert_eq!((ev.started_at_ms, ev.completed_at_ms), (Some(1), Some(2)));
    }

    #[test]
    fn call_id_keeps_its_newline_and_rejection_has_no_args() {
        let ev: Summary = read_tool_call(REJECTED.as_bytes()).unwrap();
        assert_eq!(ev.phase, Phase::Completed);
        assert_eq!(ev.call_id.as_deref(), Some("call-1\nfc_1"));
        let call = ev.call.unwrap();
        assert_eq!(call.tool, "shell");
        assert!(call.args.is_none());
        let Some(CallResult::Variant { status, payload }) = call.result else {
            panic!("a variant")
        };
        assert_eq!(status, "rejected");
        assert_eq!(payload.reason.0.as_deref(), Some(""));
        assert_eq!(ev.timestamp_ms, Some(1784819290001));
    }

    #[test]
    fn is_background_is_not_the_variant() {
        let line = r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"isBackground":false,"success":{"exitCode":0,"stdout":"a\n"}}}}}"#;
        let ev: Summary = read_tool_call(line.as_bytes()).unwrap();
        let Some(CallResult::Variant { status, payload }) = ev.call.unwrap().result else {
            panic!("a variant")
        };
        assert_eq!(status, "success");
        assert_eq!(payload.exit_code.as_i64(), Some(0));
    }

    #[test]
    fn raw_mode_borrows_args_and_payload_unchanged() {
        let line = r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"a"},"result":{"success":{"content":"x\ny","totalLines":2}}}}}"#;
        let ev: Raw = read_tool_call(line.as_bytes()).unwrap();
        let call = ev.call.unwrap();
        assert_eq!(call.args.unwrap().get(), r#"{"path":"a"}"#);
        let Some(CallResult::Variant { payload, .. }) = call.result else {
            panic!("a variant")
        };
        assert_eq!(payload.get(), r#"{"content":"x\ny","totalLines":2}"#);
    }

    #[test]
    fn grep_totals_are_summed_over_roots() {
        let line = r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"grepToolCall":{"args":{"pattern":"TODO"},"result":{"success":{"workspaceResults":{"/a":{"content":{"matches":[],"totalMatchedLines":3}},"/b":{"content":{"totalMatchedLines":4}}}}}}}}"#;
        let ev: Summary = read_tool_call(line.as_bytes()).unwrap();
        let Some(CallResult::Variant { payload, .. }) = ev.call.unwrap().result else {
            panic!("a variant")
        };
        let totals = payload.workspace_results;
        assert_eq!(totals.matched_lines, Some(7));
    }

    #[test]
    fn function_shape_and_its_string_arguments() {
        let line = r#"{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"function":{"name":"lookup","arguments":"{\"query\":\"rust\"}"}}}"#;
        let ev: Summary = read_tool_call(line.as_bytes()).unwrap();
        let call = ev.call.unwrap();
        assert_eq!(call.tool, "lookup");
        let args = crate::agent::tools::ArgsSummary::read(call.args.unwrap());
        assert_eq!(args.query.0.as_deref(), Some("rust"));
    }

    #[test]
    fn wrong_types_are_taken_as_absent() {
        for line in [
            r#"{"type":"tool_call","subtype":"started","call_id":42,"tool_call":"shell"}"#,
            r#"{"type":"tool_call","subtype":"started","tool_call":{"shellToolCall":{"args":{"command":["ls"]}},"startedAtMs":{}}}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"result":{"success":{"totalLines":"12","exitCode":"x"}}}}}"#,
        ] {
            let ev: Summary = read_tool_call(line.as_bytes()).unwrap();
            if let Some(call) = ev.call {
                if let Some(args) = call.args {
                    let args = crate::agent::tools::ArgsSummary::read(args);
                    assert_eq!(args.command.0, None);
                }
                if let Some(CallResult::Variant { payload, .. }) = call.result {
                    assert_eq!(payload.total_lines.as_u64(), Some(12));
                    assert_eq!(payload.exit_code.as_i64(), None);
                }
            }
        }
        let ev: Summary = read_tool_call(
            br#"{"type":"tool_call","subtype":"started","call_id":42,"tool_call":"shell"}"#,
        )
        .unwrap();
        assert!(ev.call_id.is_none() && ev.call.is_none());
    }

    #[test]
    fn a_result_that_is_not_an_object_is_unexpected_and_kept_raw() {
        let line = r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"function":{"name":"f","result":"{\"a\":1}"}}}"#;
        let ev: Raw = read_tool_call(line.as_bytes()).unwrap();
        let Some(CallResult::Unexpected(Some(raw))) = ev.call.unwrap().result else {
            panic!("unexpected, kept")
        };
        assert_eq!(raw.get(), r#""{\"a\":1}""#);
        let ev: Summary = read_tool_call(line.as_bytes()).unwrap();
        assert!(matches!(
            ev.call.unwrap().result,
            Some(CallResult::Unexpected(None))
        ));
        let null = r#"{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"result":null}}}"#;
        let ev: Raw = read_tool_call(null.as_bytes()).unwrap();
        assert!(ev.call.unwrap().result.is_none());
    }

    #[test]
    fn broken_json_is_an_error() {
        assert!(
            read_tool_call::<&RawValue, OutcomeSummary>(br#"{"type":"tool_call","tool_call":{"#)
                .is_err()
        );
    }
}

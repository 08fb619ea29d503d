//! OpenCode's sessions as its database keeps them, read from the lines
//! [`super::db`] makes of it. The parts are the stream's events (read by the stream's
//! dialect, [`OpenCode`]); what is added:
//!
//! | normalized | from |
//! |---|---|
//! | run start | a `user` message (a session is one run per prompt): its text parts are the prompt; the session's directory is the run's |
//! | model | the `assistant` message's `modelID` |
//! | run end | the next prompt, or the session's end: as the stream's (an `error` fails it; a last step finished with reason `stop` succeeds; else it did not finish) |

use std::borrow::Cow;

use serde::Deserialize;

use super::OpenCode;
use crate::agent::event::{Agent, RunInfo, Wants};
use crate::agent::{Class, Dialect, RawLine, Sink};
use crate::input::json::MaybeStr;
use crate::input::lenient::{Flag, Num, Object};
use crate::input::peek::{Head, NameId};
use crate::out::diag::Unreadable;

#[derive(Default)]
pub(crate) struct OpenCodeLog {
    inner: OpenCode,
    /// The session being read: its directory.
    directory: Option<String>,
}

#[derive(Deserialize)]
struct SessionLine<'a> {
    #[serde(borrow, default)]
    session: Object<Session<'a>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Session<'a> {
    #[serde(borrow)]
    id: MaybeStr<'a>,
    #[serde(borrow)]
    directory: MaybeStr<'a>,
    #[serde(borrow)]
    title: MaybeStr<'a>,
}

#[derive(Deserialize)]
struct MessageLine<'a> {
    #[serde(default)]
    timestamp: Num,
    #[serde(rename = "sessionID", borrow, default)]
    session: MaybeStr<'a>,
    #[serde(borrow, default)]
    message: Object<Message<'a>>,
    #[serde(borrow, default)]
    parts: Option<Vec<Part<'a>>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Message<'a> {
    #[serde(rename = "modelID", borrow)]
    model_id: MaybeStr<'a>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Part<'a> {
    #[serde(rename = "type", borrow)]
    kind: MaybeStr<'a>,
    #[serde(borrow)]
    text: MaybeStr<'a>,
    /// Added by OpenCode (a file's contents, a reminder): not the user's words.
    synthetic: Flag,
}

impl Dialect for OpenCodeLog {
    fn agent(&self) -> Agent {
        Agent::OpenCode
    }

    fn classify(&self, name: NameId) -> Class {
        match name {
            NameId::SESSION | NameId::USER | NameId::ASSISTANT => Class::message(Wants::ALL),
            other => match self.inner.classify(other) {
                // The parts the stream has no event for (`patch`, `file`, `snapshot`, …).
                class if !class.known => Class::noise(Wants::NONE),
                class => class,
            },
        }
    }

    fn decode<S: Sink>(
        &mut self,
        line: &RawLine<'_>,
        head: &Head,
        sink: &mut S,
    ) -> anyhow::Result<()> {
        match head.name {
            NameId::SESSION => {
                self.inner.finish(sink)?;
                let session: SessionLine = match crate::input::json::from_line(line.bytes) {
                    Ok(s) => s,
                    Err(e) => {
                        return sink.unreadable(Unreadable::of(head.name), line.bytes, &e);
                    }
                };
                let session = session.session.0.unwrap_or_default();
                if let Some(title) = session.title.as_deref() {
                    sink.title(session.id.as_deref(), title);
                }
                self.directory = session.directory.0.map(Cow::into_owned);
                Ok(())
            }
            NameId::USER | NameId::ASSISTANT => {
                let msg: MessageLine = match crate::input::json::from_line(line.bytes) {
                    Ok(m) => m,
                    Err(e) => {
                        return sink.unreadable(Unreadable::of(head.name), line.bytes, &e);
                    }
                };
                if head.name == NameId::ASSISTANT {
                    let model = msg.message.0.as_ref().and_then(|m| m.model_id.as_deref());
                    if let Some(model) = model {
                        sink.model_seen(model);
                    }
                    self.inner.model = model.map(str::to_owned);
                    return Ok(());
                }
                self.prompt(msg, sink)
            }
            _ => self.inner.decode(line, head, sink),
        }
    }

    fn reset(&mut self) {
        self.inner.reset();
    }

    fn finish<S: Sink>(&mut self, sink: &mut S) -> anyhow::Result<()> {
        self.inner.finish(sink)
    }

    fn start_afresh(&mut self) {
        self.directory = None;
    }
}

impl OpenCodeLog {
    /// A user's message: the open run ends as the stream's would, the prompt's starts.
    fn prompt<S: Sink>(&mut self, msg: MessageLine<'_>, sink: &mut S) -> anyhow::Result<()> {
        self.inner.finish(sink)?;
        let mut words = String::new();
        for part in msg.parts.iter().flatten() {
            if part.kind.as_deref() == Some("text") && part.synthetic.0 != Some(true) {
                if !words.is_empty() {
                    words.push('\n');
                }
                words.push_str(part.text.as_deref().unwrap_or(""));
            }
        }
        sink.start_run(RunInfo {
            session_id: msg.session.as_deref().map(str::to_owned),
            cwd: self.directory.clone(),
            prompt: Some(words),
            started_ms: msg.timestamp.as_u64(),
            ..RunInfo::new(Agent::OpenCode)
        })
    }
}

//! OpenCode's sessions as its database keeps them, read from the lines
//! [`super::db`] makes of it. The parts are the stream's events (read by the stream's
//! dialect, [`OpenCode`]); what is added:
//!
//! | normalized | from |
//! |---|---|
//! | run start | a `user` message (a session is one run per prompt): its text parts are the prompt; the session's directory is the run's |
//! | not a run | a `user` message whose text is all `synthetic`: the user's own shell command (`!ls`), with the answer that ran it (`parentID`) |
//! | model | the `assistant` message's `modelID` |
//! | run end | the next prompt, or the session's end: as the stream's (an `error` fails it, but `MessageAbortedError`, the user's stop: no result; a last step finished with reason `stop` succeeds, or before 1.1 with none when its message completed without an error and the step called no tool; else it did not finish) |

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
    /// The last `user` message was the user's own shell command: its id (empty when it
    /// has none).
    shell: Option<String>,
    /// The message being read answers it: its parts are not the model's.
    skipping: bool,
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
    #[serde(borrow)]
    id: MaybeStr<'a>,
    #[serde(rename = "parentID", borrow)]
    parent_id: MaybeStr<'a>,
    #[serde(rename = "modelID", borrow)]
    model_id: MaybeStr<'a>,
    time: Object<MessageTime>,
    #[serde(borrow)]
    error: Option<&'a serde_json::value::RawValue>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MessageTime {
    completed: Num,
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
                // The dialect opens the runs (a part of the user's shell command opens
                // none).
                class => Class {
                    opens: false,
                    ..class
                },
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
                self.shell = None;
                self.skipping = false;
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
                    return self.answer(msg.message.0.unwrap_or_default(), sink);
                }
                self.skipping = false;
                if is_shell_command(msg.parts.as_deref()) {
                    let id = msg.message.0.as_ref().and_then(|m| m.id.as_deref());
                    self.shell = Some(id.unwrap_or("").to_owned());
                    return Ok(());
                }
                self.shell = None;
                self.prompt(msg, sink)
            }
            _ if self.skipping => Ok(()),
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
        self.shell = None;
        self.skipping = false;
    }
}

/// Whether a user's message is a shell command the user ran (`!ls`): OpenCode writes it
/// as a text part of its own, `synthetic` ("The following tool was executed by the
/// user"), and nothing else of the user's.
fn is_shell_command(parts: Option<&[Part<'_>]>) -> bool {
    let mut texts = parts
        .unwrap_or_default()
        .iter()
        .filter(|p| p.kind.as_deref() == Some("text"))
        .peekable();
    texts.peek().is_some() && texts.all(|p| p.synthetic.0 == Some(true))
}

impl OpenCodeLog {
    /// An answer: its model, and whether its last step ends the run; none of it when it
    /// ran the user's shell command (its `parentID`, or the command just before).
    fn answer<S: Sink>(&mut self, message: Message<'_>, sink: &mut S) -> anyhow::Result<()> {
        self.skipping = self.shell.as_deref().is_some_and(|shell| {
            message
                .parent_id
                .as_deref()
                .is_none_or(|parent| parent == shell)
        });
        if self.skipping {
            return Ok(());
        }
        let model = message.model_id.as_deref();
        if let Some(model) = model {
            sink.model_seen(model);
        }
        self.inner.model = model.map(str::to_owned);
        let completed = message
            .time
            .0
            .is_some_and(|t| t.completed.as_u64().is_some());
        self.inner.message_done = completed && message.error.is_none();
        Ok(())
    }

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
            prompt: Some(words.trim().to_owned()),
            started_ms: msg.timestamp.as_u64(),
            ..RunInfo::new(Agent::OpenCode)
        })?;
        // The run lasts from its prompt.
        self.inner.first_ms = msg.timestamp.as_u64();
        Ok(())
    }
}

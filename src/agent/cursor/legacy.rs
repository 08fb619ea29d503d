//! Cursor's agent transcripts before JSONL: `agent-transcripts/<id>.txt`, written until
//! early 2026, read into the lines of the JSONL transcripts that replaced them (one a
//! message, [`super::transcript`]), so that one dialect reads both.
//!
//! ```text
//! user:
//! <user_query>
//! …
//! </user_query>
//!
//! assistant:
//! [Thinking] **Heading**
//!
//! Reasoning, a paragraph a line.
//! The answer's words.
//! [Tool call] Read
//!   path: /w/file.rs
//! [Tool call] ApplyPatch*** Begin Patch
//! …
//! *** End Patch
//!
//! [Tool result] Read
//!
//! assistant:
//! <think>
//! …
//! </think>
//! The answer's words.
//! ```
//!
//! | line | made into |
//! |---|---|
//! | `user:`, `assistant:` alone | a message's line (`{"role":…,"message":{"content":[…]}}`); a `user:` inside an open `<user_query>` is the user's words |
//! | `[Tool call] Name` | a `tool_use` block: its `  key: value` lines (a value goes on over the lines after it) the `input` object; a name with words after it (`ApplyPatch*** Begin Patch`) takes them and the lines after as its `input` string, as the JSONL keeps a patch |
//! | `[Tool result] Name` | nothing: it has no body |
//! | `<think>` … `</think>` | a `thinking` block |
//! | `[Thinking] …` | a `thinking` block: its reasoning is paragraphs of a line, each after a blank line or a `**Heading**`; the first line straight after one that is neither is the answer's |
//! | other lines | `text` blocks |
//!
//! Memory holds one message.

use std::io::{self, BufRead, Read};

use serde_json::{Map, Value};

/// A transcript's `.txt`, as the lines of a JSONL transcript.
pub(crate) struct TxtLines<R> {
    input: R,
    /// The message being gathered.
    message: Message,
    /// The line read and not yet gathered.
    line: Vec<u8>,
    /// Lines made, and how much of them is passed on.
    made: Vec<u8>,
    at: usize,
    ended: bool,
}

impl<R: BufRead> TxtLines<R> {
    pub(crate) fn new(input: R) -> TxtLines<R> {
        TxtLines {
            input,
            message: Message::default(),
            line: Vec::new(),
            made: Vec::new(),
            at: 0,
            ended: false,
        }
    }

    /// Reads on to the end of the next message, made into `made`; `false` at the end.
    fn next_message(&mut self) -> io::Result<bool> {
        self.made.clear();
        self.at = 0;
        while !self.ended {
            self.line.clear();
            if self.input.read_until(b'\n', &mut self.line)? == 0 {
                self.ended = true;
                self.message.write(&mut self.made)?;
                break;
            }
            let line = String::from_utf8_lossy(&self.line);
            let line = line.strip_suffix('\n').unwrap_or(&line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            if let Some(role) = role_of(line).filter(|_| !self.message.in_query()) {
                self.message.write(&mut self.made)?;
                self.message = Message::new(role);
                if !self.made.is_empty() {
                    return Ok(true);
                }
            } else {
                self.message.add(line);
            }
        }
        Ok(!self.made.is_empty())
    }
}

impl<R: BufRead> Read for TxtLines<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.made.len() {
            if !self.next_message()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.made.len() - self.at);
        buf[..n].copy_from_slice(&self.made[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// `user:` or `assistant:` alone on a line: a message starts.
fn role_of(line: &str) -> Option<&'static str> {
    match line.trim_end() {
        "user:" => Some("user"),
        "assistant:" => Some("assistant"),
        _ => None,
    }
}

/// Where an assistant's message is.
#[derive(Debug, Default, PartialEq)]
enum Part {
    #[default]
    Text,
    /// `<think>` … `</think>`.
    Think,
    /// `[Thinking]`'s reasoning; its last line was blank, or a heading.
    Thinking { paragraph_due: bool },
    /// A call's arguments.
    Call,
    /// After the calls' `[Tool result]` lines.
    Results,
}

/// A message being gathered.
#[derive(Default)]
struct Message {
    role: Option<&'static str>,
    /// The user's text, or the assistant's blocks.
    text: String,
    blocks: Vec<Value>,
    part: Part,
    call: Option<Call>,
}

struct Call {
    name: String,
    /// The words after the name, and the lines after them: the input as one string.
    whole: Option<String>,
    args: Vec<(String, String)>,
}

impl Message {
    fn new(role: &'static str) -> Message {
        Message {
            role: Some(role),
            ..Message::default()
        }
    }

    /// A user's message whose `<user_query>` is open: a line `assistant:` in it is the
    /// user's.
    fn in_query(&self) -> bool {
        self.role == Some("user")
            && self.text.rfind("<user_query>") > self.text.rfind("</user_query>")
    }

    fn add(&mut self, line: &str) {
        match self.role {
            Some("assistant") => self.assistant(line),
            Some(_) => push_line(&mut self.text, line),
            // Before the first message: nothing the format writes.
            None => {}
        }
    }

    fn assistant(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix("[Tool call] ") {
            self.end_part();
            let name_len = rest
                .find(|c: char| !(c.is_alphanumeric() || "_-.:".contains(c)))
                .unwrap_or(rest.len());
            let (name, after) = rest.split_at(name_len);
            self.call = Some(Call {
                name: name.to_string(),
                whole: (!after.trim().is_empty()).then(|| after.to_string()),
                args: Vec::new(),
            });
            self.part = Part::Call;
        } else if line.starts_with("[Tool result] ") {
            self.end_part();
            self.part = Part::Results;
        } else if let Some(rest) = line.strip_prefix("[Thinking]") {
            self.end_part();
            let rest = rest.trim_start();
            self.text.push_str(rest);
            // An empty `[Thinking]` has no reasoning: the next line is the answer's.
            self.part = Part::Thinking {
                paragraph_due: is_heading(rest),
            };
        } else if line.trim() == "<think>" {
            self.end_part();
            self.part = Part::Think;
        } else {
            self.line_of_part(line);
        }
    }

    fn line_of_part(&mut self, line: &str) {
        match &mut self.part {
            Part::Think if line.trim_end().ends_with("</think>") => {
                push_line(&mut self.text, line.trim_end().trim_end_matches("</think>"));
                self.end_part();
            }
            Part::Think | Part::Text => push_line(&mut self.text, line),
            Part::Thinking { paragraph_due } => {
                if *paragraph_due || line.trim().is_empty() || is_heading(line) {
                    *paragraph_due = line.trim().is_empty() || is_heading(line);
                    self.text.push('\n');
                    self.text.push_str(line);
                } else {
                    self.end_part();
                    push_line(&mut self.text, line);
                }
            }
            Part::Call => {
                if let Some(call) = &mut self.call {
                    call.add(line);
                }
            }
            Part::Results if line.trim().is_empty() => {}
            Part::Results => {
                self.part = Part::Text;
                push_line(&mut self.text, line);
            }
        }
    }

    /// The part being gathered, as a block.
    fn end_part(&mut self) {
        let text = std::mem::take(&mut self.text);
        let kind = match self.part {
            Part::Think | Part::Thinking { .. } => "thinking",
            _ => "text",
        };
        if !text.trim().is_empty() {
            self.blocks.push(block(kind, text.trim_end()));
        }
        if let Some(call) = self.call.take() {
            self.blocks.push(call.block());
        }
        self.part = Part::Text;
    }

    /// The message's line into `out` (nothing before the first message).
    fn write(&mut self, out: &mut Vec<u8>) -> io::Result<()> {
        let Some(role) = self.role else {
            return Ok(());
        };
        let content = if role == "assistant" {
            self.end_part();
            std::mem::take(&mut self.blocks)
        } else {
            vec![block("text", self.text.trim_end())]
        };
        let line = serde_json::json!({"role": role, "message": {"content": content}});
        serde_json::to_writer(&mut *out, &line)?;
        out.push(b'\n');
        self.role = None;
        Ok(())
    }
}

impl Call {
    fn add(&mut self, line: &str) {
        if let Some(whole) = &mut self.whole {
            whole.push('\n');
            whole.push_str(line);
            return;
        }
        let arg = line
            .strip_prefix("  ")
            .and_then(|l| {
                l.split_once(": ")
                    .or_else(|| l.strip_suffix(':').map(|k| (k, "")))
            })
            .filter(|(key, _)| !key.is_empty() && !key.contains(char::is_whitespace));
        match (arg, self.args.last_mut()) {
            (Some((key, value)), _) => self.args.push((key.to_string(), value.to_string())),
            (None, Some((_, value))) => {
                value.push('\n');
                value.push_str(line);
            }
            (None, None) if !line.trim().is_empty() => {
                self.whole = Some(line.to_string());
            }
            (None, None) => {}
        }
    }

    fn block(self) -> Value {
        let input = match self.whole {
            Some(whole) => Value::String(whole.trim_end().to_string()),
            None => Value::Object(
                self.args
                    .into_iter()
                    .map(|(key, value)| (key, arg_value(value.trim_end())))
                    .collect::<Map<_, _>>(),
            ),
        };
        serde_json::json!({"type": "tool_use", "name": self.name, "input": input})
    }
}

/// An argument as written: a JSON list or object when it is one (`paths: ["a"]`), else
/// its words.
fn arg_value(text: &str) -> Value {
    if text.starts_with(['[', '{'])
        && let Ok(value) = serde_json::from_str(text)
    {
        return value;
    }
    Value::String(text.to_string())
}

fn block(kind: &str, text: &str) -> Value {
    serde_json::json!({"type": kind, "text": text})
}

fn push_line(text: &mut String, line: &str) {
    if !text.is_empty() {
        text.push('\n');
    }
    text.push_str(line);
}

/// A reasoning summary's heading, `**Planning the fix**`, alone on its line.
fn is_heading(line: &str) -> bool {
    let line = line.trim();
    line.len() > 4 && line.starts_with("**") && line.ends_with("**")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(txt: &str) -> Vec<Value> {
        let mut out = String::new();
        TxtLines::new(txt.as_bytes())
            .read_to_string(&mut out)
            .unwrap();
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn messages_calls_and_reasoning() {
        let txt = "user:\n<user_query>\nfix it\nassistant:\nstill mine\n</user_query>\n\nassistant:\n[Thinking] **Planning**\n\nI will read.\n**Reading**\n\nThen patch.\nI'll read first.\n[Tool call] Read\n  path: /w/a.rs\n  limit: 5\n[Tool call] ApplyPatch*** Begin Patch\n*** Update File: a.rs\n\n*** End Patch\n\n[Tool result] Read\n\n[Tool result] ApplyPatch\n\nassistant:\n<think>\nDone?\n</think>\nDone.\n\n";
        let lines = lines_of(txt);
        assert_eq!(lines.len(), 3, "{lines:?}");
        let user = lines[0]["message"]["content"][0]["text"].as_str().unwrap();
        assert!(user.contains("assistant:\nstill mine"), "{user}");
        let blocks = lines[1]["message"]["content"].as_array().unwrap();
        let kinds: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["thinking", "text", "tool_use", "tool_use"]);
        assert_eq!(
            blocks[0]["text"],
            "**Planning**\n\nI will read.\n**Reading**\n\nThen patch."
        );
        assert_eq!(blocks[1]["text"], "I'll read first.");
        assert_eq!(blocks[2]["input"]["path"], "/w/a.rs");
        assert_eq!(blocks[3]["name"], "ApplyPatch");
        assert_eq!(
            blocks[3]["input"],
            "*** Begin Patch\n*** Update File: a.rs\n\n*** End Patch"
        );
        let last = lines[2]["message"]["content"].as_array().unwrap();
        assert_eq!(last[0]["type"], "thinking");
        assert_eq!(last[1]["text"], "Done.");
    }
}

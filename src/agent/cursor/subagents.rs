//! A Cursor transcript with its sub-agents' transcripts read in (2026.08 on:
//! `agent-transcripts/<id>/subagents/<child>.jsonl`, one per `Task` call). No line links
//! a sub-agent to its call but the words: the sub-agent's first prompt is the `Task`
//! call's `input.prompt`. After the main line that holds that call come the sub-agent's
//! lines, each with two keys put first, which the dialect reads ([`super::transcript`]):
//!
//! ```text
//! {"subagent":"<child>","task":<the call's place among the line's tool_use blocks>,"role":…}
//! ```
//!
//! A sub-agent no call names (its `Task` line cut, or its prompt rewritten) is read after
//! the main transcript, with `"task":null`. Memory holds a line, and each sub-agent's
//! first prompt.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::agent::store::{files_in, name_of, stem};

/// A sub-agent's transcript.
struct Sub {
    id: String,
    path: PathBuf,
    /// Its first prompt, which its `Task` call's `input.prompt` repeats.
    prompt: Option<String>,
    read: bool,
}

/// The sub-agents' transcripts of the transcript at `path` (`<id>/<id>.jsonl`).
pub(crate) fn subagents_of(path: &Path) -> Vec<PathBuf> {
    let (Some(id), Some(dir)) = (stem(path, ".jsonl"), path.parent()) else {
        return Vec::new();
    };
    if name_of(dir).as_deref() != Some(id.as_str()) {
        return Vec::new();
    }
    files_in(&dir.join("subagents"), |n| n.ends_with(".jsonl"))
}

/// The transcript at `path` (open as `file`) with its sub-agents' read in.
pub(crate) fn with_subagents(file: File, subs: Vec<PathBuf>) -> WithSubagents {
    let subs = subs
        .into_iter()
        .filter_map(|path| {
            let id = stem(&path, ".jsonl")?;
            let prompt = first_prompt(&path);
            Some(Sub {
                id,
                path,
                prompt,
                read: false,
            })
        })
        .collect();
    WithSubagents {
        main: BufReader::with_capacity(1 << 16, file),
        subs,
        queue: Vec::new(),
        sub: None,
        main_ended: false,
        at_line_start: true,
        line: Vec::new(),
        at: 0,
    }
}

/// The `<user_query>` of a transcript's first line.
fn first_prompt(path: &Path) -> Option<String> {
    let mut line = Vec::new();
    BufReader::new(File::open(path).ok()?)
        .read_until(b'\n', &mut line)
        .ok()?;
    let text = user_text(&line)?;
    Some(super::transcript::prompt_of(&text).0)
}

/// A transcript line's content blocks, each read as `B` (the two readers below want
/// different fields of them).
fn blocks<B: serde::de::DeserializeOwned>(line: &[u8]) -> Option<Vec<B>> {
    #[derive(Deserialize)]
    #[serde(bound = "B: serde::de::DeserializeOwned")]
    struct Line<B> {
        message: Message<B>,
    }
    #[derive(Deserialize)]
    #[serde(bound = "B: serde::de::DeserializeOwned")]
    struct Message<B> {
        content: Vec<B>,
    }
    let line: Line<B> = serde_json::from_slice(line).ok()?;
    Some(line.message.content)
}

/// A user line's text.
fn user_text(line: &[u8]) -> Option<String> {
    #[derive(Deserialize)]
    struct Block {
        #[serde(default)]
        text: Option<String>,
    }
    Some(
        blocks::<Block>(line)?
            .into_iter()
            .filter_map(|b| b.text)
            .collect(),
    )
}

/// The `Task` calls of a main line: each one's place among the line's `tool_use` blocks,
/// and its prompt.
fn task_calls(line: &[u8]) -> Vec<(usize, String)> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Block {
        #[serde(rename = "type")]
        kind: Option<String>,
        name: Option<String>,
        input: Option<Input>,
    }
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Input {
        prompt: Option<String>,
    }
    blocks::<Block>(line)
        .unwrap_or_default()
        .into_iter()
        .filter(|b| b.kind.as_deref() == Some("tool_use"))
        .enumerate()
        .filter(|(_, b)| b.name.as_deref() == Some("Task"))
        .filter_map(|(k, b)| Some((k, b.input?.prompt?.trim().to_string())))
        .collect()
}

pub(crate) struct WithSubagents {
    main: BufReader<File>,
    subs: Vec<Sub>,
    /// The sub-agents the last main line called, to be read next: their index in
    /// `subs`, and the call's place.
    queue: Vec<(usize, Option<usize>)>,
    /// The sub-agent being read: its id and place, and its lines.
    sub: Option<(String, Option<usize>, BufReader<File>)>,
    main_ended: bool,
    /// The main transcript's last line passed on ended with a newline.
    at_line_start: bool,
    /// A line made, and how much of it is passed on.
    line: Vec<u8>,
    at: usize,
}

impl WithSubagents {
    /// The next line into `self.line`; `false` at the end of everything.
    fn next_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        self.at = 0;
        loop {
            if self.sub_line()? {
                return Ok(true);
            }
            if !self.queue.is_empty() {
                let (index, task) = self.queue.remove(0);
                self.open_sub(index, task);
                continue;
            }
            if self.main_ended {
                return Ok(false);
            }
            if self.main.read_until(b'\n', &mut self.line)? == 0 {
                self.main_ended = true;
                // The sub-agents no call named.
                self.queue = (0..self.subs.len())
                    .filter(|&i| !self.subs[i].read)
                    .map(|i| (i, None))
                    .collect();
                // A transcript being written ends in a cut line: what follows must not
                // join it.
                if !self.queue.is_empty() && !self.at_line_start {
                    self.line.push(b'\n');
                    self.at_line_start = true;
                    return Ok(true);
                }
                continue;
            }
            if memchr::memmem::find(&self.line, b"\"Task\"").is_some() {
                self.name_subs();
            }
            // A cut last line stays cut (the reading knows a live file by it), unless a
            // sub-agent's lines follow.
            if !self.queue.is_empty() && !self.line.ends_with(b"\n") {
                self.line.push(b'\n');
            }
            self.at_line_start = self.line.ends_with(b"\n");
            return Ok(true);
        }
    }

    /// The sub-agents the main line's `Task` calls started, queued.
    fn name_subs(&mut self) {
        for (place, prompt) in task_calls(&self.line) {
            let found = self
                .subs
                .iter()
                .position(|s| !s.read && s.prompt.as_deref() == Some(prompt.as_str()));
            if let Some(index) = found {
                self.subs[index].read = true;
                self.queue.push((index, Some(place)));
            }
        }
    }

    fn open_sub(&mut self, index: usize, task: Option<usize>) {
        let sub = &mut self.subs[index];
        sub.read = true;
        self.sub = File::open(&sub.path)
            .ok()
            .map(|f| (sub.id.clone(), task, BufReader::with_capacity(1 << 16, f)));
    }

    /// The sub-agent's next line, its keys put first, into `self.line`; `false` at its
    /// end.
    fn sub_line(&mut self) -> io::Result<bool> {
        let Some((id, task, rdr)) = &mut self.sub else {
            return Ok(false);
        };
        let mut line = Vec::new();
        loop {
            line.clear();
            if rdr.read_until(b'\n', &mut line)? == 0 {
                self.sub = None;
                return Ok(false);
            }
            let trimmed = line.trim_ascii();
            let Some(rest) = trimmed.strip_prefix(b"{") else {
                // A blank line adds nothing; anything else is passed on, to be reported.
                if trimmed.is_empty() {
                    continue;
                }
                self.line.extend_from_slice(trimmed);
                self.line.push(b'\n');
                return Ok(true);
            };
            let task = task.map_or("null".to_string(), |t| t.to_string());
            let id = serde_json::to_string(id.as_str()).unwrap_or_default();
            self.line
                .extend_from_slice(format!("{{\"subagent\":{id},\"task\":{task}").as_bytes());
            if !rest.trim_ascii_start().starts_with(b"}") {
                self.line.push(b',');
            }
            self.line.extend_from_slice(rest);
            self.line.push(b'\n');
            return Ok(true);
        }
    }
}

impl Read for WithSubagents {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.line.len() {
            if !self.next_line()? {
                return Ok(0);
            }
        }
        let n = buf.len().min(self.line.len() - self.at);
        buf[..n].copy_from_slice(&self.line[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

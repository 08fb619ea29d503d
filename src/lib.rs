//! Read the NDJSON streams of AI coding agents — the Cursor Agent CLI, Claude Code, Codex,
//! Gemini CLI, Qwen Code and OpenCode — as one set of normalized events.
//!
//! This is the library of the `cursor-stream` command. A program that starts an agent (an
//! orchestrator, an editor plugin, a CI bot) gets from it what the command knows: which
//! agent wrote the stream, the answer text exactly once (each agent repeats it in its own
//! way), tool calls paired start to end with their status, and each run's end with an
//! honest [`Outcome`], its final answer and its token [`Usage`] — at the command's speed,
//! and without panicking on any input.
//!
//! # Reading a stream
//!
//! Implement [`Handler`] for what you want to know, and give it to a [`Reader`] with the
//! stream: a file, an agent's stdout, or lines you already have.
//!
//! ```
//! use cursor_stream::{Event, Handler, Reader, RunEnd, RunInfo};
//!
//! /// The answer of each run, and how the run ended.
//! #[derive(Default)]
//! struct Answers {
//!     text: Vec<u8>,
//!     runs: Vec<(String, String)>,
//! }
//!
//! impl Handler for Answers {
//!     type Error = std::io::Error;
//!
//!     fn event(&mut self, _run: &RunInfo, event: &Event<'_>) -> std::io::Result<()> {
//!         if let Event::Text(piece) = event {
//!             self.text.extend_from_slice(piece);
//!         }
//!         Ok(())
//!     }
//!
//!     fn run_end(&mut self, run: &RunInfo, end: &RunEnd<'_>) -> std::io::Result<()> {
//!         let text = String::from_utf8_lossy(&std::mem::take(&mut self.text)).into_owned();
//!         self.runs.push((format!("{} {}", run.agent, end.outcome.word()), text));
//!         Ok(())
//!     }
//! }
//!
//! // Cursor with `--stream-partial-output`: each segment comes as deltas, then again whole.
//! let stream = r#"
//! {"type":"system","subtype":"init","session_id":"s1","model":"Auto","cwd":"/src"}
//! {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hel"}]},"session_id":"s1","timestamp_ms":1}
//! {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"lo"}]},"session_id":"s1","timestamp_ms":2}
//! {"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hello"}]},"session_id":"s1"}
//! {"type":"result","subtype":"success","is_error":false,"result":"Hello","session_id":"s1"}
//! "#;
//! let mut answers = Answers::default();
//! cursor_stream::Reader::new().read_lines(stream.lines(), &mut answers)?;
//! assert_eq!(answers.runs, [("cursor success".to_string(), "Hello".to_string())]);
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! `examples/library.rs` follows an agent's stdout live and lists its tool calls.
//!
//! # The events
//!
//! For each run, a handler gets [`Handler::run_start`] with a [`RunInfo`] (agent, session,
//! model, directory), then [`Event`]s in stream order — [`Event::Text`] (new answer text,
//! each piece once), [`Event::Segment`], [`Event::Thinking`], [`Event::ToolStarted`] and
//! [`Event::ToolEnded`] (a [`ToolEnd`]: the call with its id, tool, arguments, status and
//! result), [`Event::Notice`] — and [`Handler::run_end`] with a [`RunEnd`] (outcome, final
//! answer, usage). What each agent's stream gives for each is tabled in `docs/GUIDE.md`.
//!
//! # Why this shape
//!
//! - **A handler called with borrowed events**, not an iterator of owned ones: events
//!   borrow from the line being read, so reading costs no copy of the (often huge) tool
//!   results and no allocation per event; a handler copies what it keeps. It is the shape
//!   of ripgrep's `Sink`, and the one the command's own views use: each view is driven
//!   through this same trait, so everything the command ships exercises it.
//! - **[`Handler::wants`]** says what to decode: a line that can only give what the handler
//!   did not ask for is never parsed. A handler of the answer alone reads gigabytes a
//!   second.
//! - **Errors are the handler's own** ([`Handler::Error`]): it stops the reading by
//!   returning one, and gets it back unchanged from [`Reader::read`].
//! - **Lenient**: lines that are not events are skipped, runs without an end are ended
//!   with [`Outcome::NoEnd`]; the command reports such lines, the library does not (yet).
//!
//! The command's views, dialects and options are not part of the API.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub(crate) mod agent;
mod app;
mod cli;
// These three are internal; only the hidden `testing` door re-exports some of their items
// (for the tests, benchmarks and fuzz target), which the lint would count as public.
#[allow(missing_docs)]
mod config;
mod dispatch;
mod exit;
mod handler;
#[allow(missing_docs)]
mod input;
mod ledger;
mod live;
mod out;
mod parallel;
mod read;
mod runs;
mod stores;
mod supervise;
#[doc(hidden)]
#[allow(missing_docs)]
pub mod testing;
#[allow(missing_docs)]
mod view;

pub use agent::event::{
    Agent, AnswerCheck, Effect, Event, Limit, LimitWindow, Notice, NoticeKind, Outcome, RunEnd,
    RunInfo, StatusClass, ToolCall, ToolEnd, ToolKind, ToolStatus, Usage, Wants,
};
pub use handler::Handler;
pub use read::Reader;

/// The `cursor-stream` command (its binary is this call).
#[doc(hidden)]
pub fn cli_main() -> std::process::ExitCode {
    app::main()
}

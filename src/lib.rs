//! cursor-stream: read the NDJSON streams of AI coding agents — the Cursor Agent CLI,
//! Claude Code, Codex, Gemini CLI, Qwen Code and OpenCode — and show what is needed.
//!
//! The shape, following the data:
//!
//! - `input` knows no agent: a reading thread splits lines and peeks each one's `type`;
//! - [`agent`] holds one dialect per agent, which turns the lines a view needs into a few
//!   normalized events ([`agent::event`]): answer text exactly once, thinking, tool calls
//!   started and ended, notices, run start and end with status and final answer;
//! - `dispatch` tells the agent from the first events, drives the dialect, pairs tool
//!   calls and tracks runs for the exit status, once for every agent;
//! - `view` holds the views, written once against the normalized events;
//! - `out` writes them: buffered stdout, stderr diagnostics, terminal cleaning.
//!
//! `supervise` is the `run` subcommand: it starts an agent and feeds its stdout through.

pub mod agent;
mod app;
pub mod cli;
mod config;
mod dispatch;
mod exit;
mod input;
mod out;
mod runs;
mod supervise;
#[doc(hidden)]
pub mod testing;
mod view;

pub use app::{error_status, run};
pub use config::{Action, Config};
pub use exit::ExitStatus;

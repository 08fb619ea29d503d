//! The door tests, benchmarks and the fuzz target use to reach the engine without a
//! process of their own. Not part of the library's API.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};

use crate::agent::event::Agent;
use crate::app::{WithView, with_view};
use crate::dispatch::Dispatcher;
use crate::exit::ExitStatus;
use crate::out::diag::Diag;
use crate::out::{Output, OutputMode};
use crate::view::{Ctx, View, ViewHandler};

pub use crate::config::ViewChoice;
pub use crate::input::line_buffer::LineReader;
pub use crate::view::check::CheckOptions;
pub use crate::view::events::EventsOptions;
pub use crate::view::filter::EventFilter;
pub use crate::view::get::{GetOptions, Layout};
pub use crate::view::progress::ProgressOptions;
pub use crate::view::stats::StatsOptions;
pub use crate::view::text::TextOptions;
pub use crate::view::tools::ToolsOptions;
pub use crate::view::transcript::TranscriptOptions;

/// Each agent's version table (see `agent::Spec::versions`): the version a shape is first
/// seen in, the shape, and the real file under `tests/fixtures/history/<agent>/` that
/// shows it (none where no public file was found).
pub fn versions(agent: Agent) -> Vec<(&'static str, &'static str, &'static [&'static str])> {
    agent
        .spec()
        .versions()
        .iter()
        .map(|v| (v.since, v.shape, v.fixtures))
        .collect()
}

/// [`run_captured`] reads with small buffers: they exercise the splitter's rolling and
/// growth, and cost little to set up (the fuzz target runs many times a second).
const CAPTURED_BUFFER: usize = 4096;

/// What a view wrote when run by [`run_captured`].
pub struct Captured {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The exit status, or the error that ended the run.
    pub status: anyhow::Result<ExitStatus>,
}

/// Runs a view over one input and keeps what it writes.
pub fn run_captured<R: io::Read + Send + 'static>(
    choice: &ViewChoice,
    strict: bool,
    input: R,
) -> Captured {
    run_captured_as(choice, strict, None, CAPTURED_BUFFER, input)
}

/// [`run_captured`] with `--agent` and the buffer size chosen.
pub fn run_captured_as<R: io::Read + Send + 'static>(
    choice: &ViewChoice,
    strict: bool,
    agent: Option<Agent>,
    buffer: usize,
    input: R,
) -> Captured {
    struct Capturing<R> {
        input: R,
        strict: bool,
        agent: Option<Agent>,
        buffer: usize,
    }
    impl<R: io::Read + Send + 'static> WithView for Capturing<R> {
        type Out = Captured;
        fn call<V: View>(self, view: V) -> Captured {
            let (stdout, stderr) = (Capture::default(), Capture::default());
            let out = Output::new(
                Box::new(stdout.clone()),
                Box::new(stderr.clone()),
                OutputMode::default(),
            );
            let ctx = Ctx::new(out, Diag::new(self.strict, false));
            let mut dispatcher = Dispatcher::new(ViewHandler::new(view, ctx), None)
                .agent(self.agent)
                .buffer_size(self.buffer);
            let status = dispatcher
                .feed("input", self.input)
                .and_then(|()| dispatcher.finish());
            Captured {
                stdout: stdout.take(),
                stderr: stderr.take(),
                status,
            }
        }
    }
    with_view(
        choice,
        Capturing {
            input,
            strict,
            agent,
            buffer,
        },
    )
}

/// Every agent, for tests that go through them all.
pub const AGENTS: [Agent; 6] = Agent::ALL;

/// The name of an agent, as `--agent` takes it.
pub fn agent_name(agent: Agent) -> &'static str {
    agent.name()
}

/// A writer that keeps what is written, readable by whoever holds a clone.
#[derive(Clone, Default)]
pub struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Capture {
    /// What was written so far, taken out.
    pub fn take(&self) -> Vec<u8> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

/// Runs a view over in-memory input, output discarded, with the usual 1 MiB buffers: what
/// the benchmarks time.
pub fn run_discarding(
    choice: &ViewChoice,
    agent: Option<Agent>,
    input: &'static [u8],
) -> ExitStatus {
    struct Discarding {
        input: &'static [u8],
        agent: Option<Agent>,
    }
    impl WithView for Discarding {
        type Out = ExitStatus;
        fn call<V: View>(self, view: V) -> ExitStatus {
            let out = Output::new(
                Box::new(io::sink()),
                Box::new(io::sink()),
                OutputMode::default(),
            );
            let ctx = Ctx::new(out, Diag::new(false, true));
            let mut dispatcher =
                Dispatcher::new(ViewHandler::new(view, ctx), None).agent(self.agent);
            dispatcher
                .feed("bench", self.input)
                .expect("reading memory");
            dispatcher.finish().expect("writing nowhere")
        }
    }
    with_view(choice, Discarding { input, agent })
}

/// The peek of one line: whether it is an event (for the benchmarks).
pub fn peek_is_event(line: &[u8]) -> bool {
    matches!(
        crate::input::peek::peek(line, crate::input::peek::TypeSet::NONE),
        crate::input::peek::Peeked::Event(_)
    )
}

/// Reads a Cursor `assistant` line's text (for the benchmarks).
pub fn read_cursor_assistant(line: &[u8], text: &mut Vec<u8>) -> bool {
    crate::agent::cursor::wire::read_assistant(line, text).is_ok()
}

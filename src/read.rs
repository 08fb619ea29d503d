//! The library's entry point: a [`Reader`] drives a [`Handler`] with the normalized events
//! of a stream.

use std::io;

use crate::agent::event::{Agent, Event, RunEnd, RunInfo, Wants};
use crate::dispatch::{Dispatcher, Driven};
use crate::handler::Handler;

/// Reads an agent's stream and drives a [`Handler`] with its normalized events.
///
/// The agent is told from the first events of each input (or named with
/// [`Reader::agent`]), and a log that appends runs of several agents is read run by run.
/// Lines that are not events (banners, truncated lines, JSON of another shape) and events
/// whose fields cannot be read are skipped; no input makes it panic.
///
/// ```
/// use cursor_stream::{Event, Handler, Reader, RunInfo};
///
/// /// Counts the tool calls of each run.
/// #[derive(Default)]
/// struct CountCalls(Vec<usize>);
///
/// impl Handler for CountCalls {
///     type Error = std::io::Error;
///
///     fn run_start(&mut self, _run: &RunInfo) -> std::io::Result<()> {
///         self.0.push(0);
///         Ok(())
///     }
///
///     fn event(&mut self, _run: &RunInfo, event: &Event<'_>) -> std::io::Result<()> {
///         if let (Event::ToolEnded(_), Some(n)) = (event, self.0.last_mut()) {
///             *n += 1;
///         }
///         Ok(())
///     }
/// }
///
/// let log = std::fs::File::open("examples/claude.ndjson")?;
/// let mut calls = CountCalls::default();
/// Reader::new().read(log, &mut calls)?;
/// assert_eq!(calls.0, [2]);
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Reader {
    agent: Option<Agent>,
    max_line: Option<usize>,
}

impl Reader {
    /// A reader that tells the agent from the stream and takes lines of any length.
    pub fn new() -> Reader {
        Reader::default()
    }

    /// Reads every input as `agent`'s stream, without telling the agent from the events: for
    /// a stream cut before its first lines.
    pub fn agent(mut self, agent: Agent) -> Reader {
        self.agent = Some(agent);
        self
    }

    /// Refuses a line longer than `bytes` with an error (of kind
    /// [`io::ErrorKind::InvalidData`]) instead of holding it in memory whole.
    pub fn max_line(mut self, bytes: usize) -> Reader {
        self.max_line = Some(bytes);
        self
    }

    /// Reads `input` to its end, calling `handler` as the events come: a line is handled
    /// as soon as it is read, so a live agent's output is followed live.
    ///
    /// The input is read and split on a thread of its own (hence `Send + 'static`: a
    /// [`File`](std::fs::File), a child's [`ChildStdout`](std::process::ChildStdout), a
    /// `Cursor<Vec<u8>>`); the handler is called on the caller's thread. A run still open
    /// when the input ends ends there, with [`Outcome::NoEnd`](crate::Outcome::NoEnd).
    pub fn read<R, H>(&self, input: R, handler: H) -> Result<(), H::Error>
    where
        R: io::Read + Send + 'static,
        H: Handler,
    {
        let mut dispatcher = self.dispatcher(handler);
        let read = dispatcher.feed("input", input);
        Plain::<H>::settle(read)
    }

    /// Reads lines the caller already has — split, with or without their line ends — as
    /// one input, on the caller's thread.
    ///
    /// ```
    /// use cursor_stream::{Handler, Outcome, Reader, RunEnd, RunInfo};
    ///
    /// struct Status(Vec<Outcome>);
    ///
    /// impl Handler for Status {
    ///     type Error = std::io::Error;
    ///
    ///     fn run_end(&mut self, _run: &RunInfo, end: &RunEnd<'_>) -> std::io::Result<()> {
    ///         self.0.push(end.outcome.clone());
    ///         Ok(())
    ///     }
    /// }
    ///
    /// let lines = [
    ///     r#"{"type":"thread.started","thread_id":"t1"}"#,
    ///     r#"{"type":"turn.started"}"#,
    ///     r#"{"type":"turn.failed","error":{"message":"quota exceeded"}}"#,
    /// ];
    /// let mut status = Status(Vec::new());
    /// Reader::new().read_lines(lines, &mut status)?;
    /// assert!(matches!(&status.0[..], [Outcome::Failed { reason }] if reason.contains("quota")));
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn read_lines<I, H>(&self, lines: I, handler: H) -> Result<(), H::Error>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
        H: Handler,
    {
        let mut dispatcher = self.dispatcher(handler);
        dispatcher.begin("input");
        let read = (|| {
            for (line, number) in lines.into_iter().zip(1..) {
                dispatcher.push(line.as_ref(), number)?;
            }
            dispatcher.end()
        })();
        Plain::<H>::settle(read)
    }

    fn dispatcher<H: Handler>(&self, handler: H) -> Dispatcher<Plain<H>> {
        Dispatcher::new(Plain(handler), self.max_line).agent(self.agent)
    }
}

/// A library user's handler, as the dispatcher drives it: no hooks of the CLI's.
pub(crate) struct Plain<H>(H);

impl<H: Handler> Plain<H> {
    /// The handler's own error back from the engine, or an error of the reading as one.
    fn settle(read: anyhow::Result<()>) -> Result<(), H::Error> {
        let Err(err) = read else { return Ok(()) };
        let err = match err.downcast::<H::Error>() {
            Ok(own) => return Err(own),
            Err(err) => err,
        };
        Err(match err.downcast::<io::Error>() {
            Ok(e) => e.into(),
            Err(other) => io::Error::other(format!("{other:#}")).into(),
        })
    }
}

impl<H: Handler> Handler for Plain<H> {
    type Error = H::Error;

    fn wants(&self) -> Wants {
        self.0.wants()
    }

    fn run_start(&mut self, run: &RunInfo) -> Result<(), H::Error> {
        self.0.run_start(run)
    }

    fn event(&mut self, run: &RunInfo, event: &Event<'_>) -> Result<(), H::Error> {
        self.0.event(run, event)
    }

    fn run_end(&mut self, run: &RunInfo, end: &RunEnd<'_>) -> Result<(), H::Error> {
        self.0.run_end(run, end)
    }
}

impl<H: Handler> Driven for Plain<H> {
    fn into_anyhow(e: H::Error) -> anyhow::Error {
        anyhow::Error::new(e)
    }
}

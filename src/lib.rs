//! cursor-stream: read the Cursor Agent CLI's `stream-json` output and show what is needed.
//!
//! The shape: a reading thread ([`reader`]) splits lines ([`line_buffer`]) and peeks each
//! event's type ([`event`]); the dispatcher ([`dispatch`]) routes the events to the chosen
//! view ([`view`]), which parses only what it shows and writes through buffered
//! [`output`]. `run` ([`run`]) feeds it the stream of an agent it starts and watches.

pub mod answer;
pub mod calls;
pub mod cli;
pub mod diag;
pub mod dispatch;
pub mod event;
pub mod filter;
pub mod human;
pub mod input;
pub mod lenient;
pub mod line_buffer;
pub mod output;
pub mod path;
pub mod reader;
pub mod run;
pub mod session;
pub mod tool_call;
pub mod view;

use std::fs::File;
use std::io;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;

use cli::{Config, ViewChoice};
use diag::Diag;
use dispatch::Dispatcher;
use output::{Output, OutputMode};
use session::ExitStatus;
use view::{Ctx, View};

/// Runs the configured view over the configured inputs, or over the agent's stream for
/// `run`.
pub fn run(config: &Config) -> anyhow::Result<ExitStatus> {
    let Some(opts) = &config.run else {
        let inputs = config.inputs.iter().map(|i| (i.name(), input::open(i)));
        return with_view(
            &config.view,
            Drive {
                config,
                inputs,
                result_seen: None,
            },
        );
    };
    let mut agent = match run::Agent::start(opts) {
        Ok(agent) => agent,
        Err(run::CannotStart(why)) => {
            eprintln!("cursor-stream: error: {why}");
            return Ok(run::CANNOT_START);
        }
    };
    let stdout: Box<dyn io::Read + Send> = Box::new(agent.take_stdout());
    let inputs = std::iter::once(("agent".to_string(), Ok(stdout)));
    let result_seen = Some(agent.watch.result_seen.clone());
    match with_view(
        &config.view,
        Drive {
            config,
            inputs,
            result_seen,
        },
    ) {
        Ok(status) => Ok(agent.finish(status)),
        Err(e) => {
            // Our output is gone (a closed pipe) or the input unusable: the agent goes too.
            agent.abort();
            Err(e)
        }
    }
}

/// Something to do with a view: views are generic, so a choice made at run time becomes a
/// type in [`with_view`], once.
trait WithView {
    type Out;
    fn call<V: View>(self, view: V) -> Self::Out;
}

fn with_view<W: WithView>(choice: &ViewChoice, w: W) -> W::Out {
    use view::*;
    match choice {
        ViewChoice::Text(opts) => w.call(text::TextView::new(opts.clone())),
        ViewChoice::Result => w.call(result::ResultView),
        ViewChoice::Json => w.call(json::JsonView),
        ViewChoice::Tools(opts) => w.call(tools::ToolsView::new(opts.clone())),
        ViewChoice::Progress(opts) => w.call(progress::ProgressView::new(opts.clone())),
        ViewChoice::Events(opts) => w.call(events::EventsView::new(opts.clone())),
        ViewChoice::Get(opts) => w.call(get::GetView::new(opts.clone())),
        ViewChoice::Stats(opts) => w.call(stats::StatsView::new(opts.clone())),
        ViewChoice::Check(opts) => w.call(check::CheckView::new(opts.clone())),
    }
}

/// The inputs to read, by name, opened (or why they could not be).
type Inputs = (String, io::Result<Box<dyn io::Read + Send>>);

struct Drive<'c, I> {
    config: &'c Config,
    inputs: I,
    result_seen: Option<Arc<AtomicBool>>,
}

impl<I: Iterator<Item = Inputs>> WithView for Drive<'_, I> {
    type Out = anyhow::Result<ExitStatus>;

    fn call<V: View>(self, view: V) -> Self::Out {
        drive(view, self.config, self.inputs, self.result_seen)
    }
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

/// Runs a view over one input and keeps what it writes: for tests, the fuzz target and
/// benchmarks, which drive the engine without a process of its own.
pub fn run_captured<R: io::Read + Send + 'static>(
    choice: &ViewChoice,
    strict: bool,
    input: R,
) -> Captured {
    struct Capturing<R> {
        input: R,
        strict: bool,
    }
    impl<R: io::Read + Send + 'static> WithView for Capturing<R> {
        type Out = Captured;
        fn call<V: View>(self, view: V) -> Captured {
            let (stdout, stderr) = (output::Capture::default(), output::Capture::default());
            let out = Output::new(
                Box::new(stdout.clone()),
                Box::new(stderr.clone()),
                OutputMode::default(),
            );
            let ctx = Ctx::new(out, Diag::new(self.strict, false));
            let mut dispatcher = Dispatcher::new(view, ctx, None).buffer_size(CAPTURED_BUFFER);
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
    with_view(choice, Capturing { input, strict })
}

fn drive<V: View>(
    view: V,
    config: &Config,
    inputs: impl Iterator<Item = Inputs>,
    result_seen: Option<Arc<AtomicBool>>,
) -> anyhow::Result<ExitStatus> {
    let out = Output::new(
        Box::new(io::stdout().lock()),
        Box::new(io::stderr()),
        OutputMode {
            out_is_terminal: config.out_is_terminal,
            err_is_terminal: config.err_is_terminal,
            color_out: config.color_out,
            color_err: config.color_err,
            line_buffered: config.line_buffered,
        },
    );
    let ctx = Ctx::new(out, Diag::new(config.strict, config.quiet));
    let tee = match &config.tee {
        Some(path) => Some(Arc::new(File::create(path).with_context(|| {
            format!("cannot create the --tee file {}", path.display())
        })?)),
        None => None,
    };
    let mut dispatcher = Dispatcher::new(view, ctx, config.max_line);
    if let Some(flag) = result_seen {
        dispatcher = dispatcher.signal_results(flag);
    }
    let mut unreadable = false;
    for (name, opened) in inputs {
        match opened {
            Ok(rdr) => dispatcher.feed(&name, input::Tee::new(rdr, tee.clone()))?,
            Err(e) => {
                let ctx = dispatcher.ctx();
                ctx.out.begin_err_block();
                ctx.out.write_err(
                    format!("cursor-stream: error: cannot read {name}: {e}\n").as_bytes(),
                );
                unreadable = true;
            }
        }
    }
    let status = dispatcher.finish()?;
    Ok(if unreadable {
        ExitStatus::ERROR
    } else {
        status
    })
}

//! Running the chosen view over the inputs, or over the stream of an agent `run` starts.

use std::fs::File;
use std::io::{self, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context as _;
use clap::{CommandFactory, Parser};

use crate::cli::Cli;
use crate::config::{Action, Config, ViewChoice};
use crate::dispatch::Dispatcher;
use crate::exit::ExitStatus;
use crate::input;
use crate::input::file::Opened;
use crate::input::parts::Parts;
use crate::out::diag::{Diag, InputFailed};
use crate::out::{Output, OutputMode};
use crate::supervise;
use crate::view::get::LARGE_STACK;
use crate::view::{Ctx, View, ViewHandler};

/// The `cursor-stream` command, from its arguments to its exit status.
pub(crate) fn main() -> ExitCode {
    let config = match Config::from_cli(Cli::parse()) {
        Action::View(config) => config,
        Action::Completions(shell) => {
            let mut cmd = Cli::command();
            clap_complete::generate(shell, &mut cmd, "cursor-stream", &mut io::stdout());
            return ExitCode::SUCCESS;
        }
        Action::Man => {
            return match clap_mangen::Man::new(Cli::command()).render(&mut io::stdout()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => exit_for(&e.into()),
            };
        }
    };
    let code = match run(&config) {
        Ok(status) => ExitCode::from(status.code()),
        Err(err) => exit_for(&err),
    };
    if std::env::var_os("CURSOR_STREAM_PEAK_MEMORY").is_some() {
        report_peak_memory();
    }
    code
}

/// For the memory tests: the process's peak resident memory, on stderr (Linux only).
fn report_peak_memory() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib = line
            .trim_start_matches("VmHWM:")
            .trim()
            .trim_end_matches(" kB");
        eprintln!("cursor-stream: peak memory: {kib} KiB");
    }
}

/// A closed stdout (`| head`) is the reader's choice, not a failure: end quietly.
fn exit_for(err: &anyhow::Error) -> ExitCode {
    if broken_pipe(err) {
        return ExitCode::from(ExitStatus::SUCCESS.code());
    }
    // `get`'s `halt` / `halt_error`: the status the program asked for, nothing more to say.
    if let Some(crate::view::get::Halted(status)) = err.downcast_ref() {
        return ExitCode::from(*status);
    }
    eprintln!("cursor-stream: error: {err:#}");
    ExitCode::from(error_status(err).code())
}

/// Runs the configured view over the configured inputs, or over the agent's stream for
/// `run`.
fn run(config: &Config) -> anyhow::Result<ExitStatus> {
    let Some(opts) = &config.run else {
        if matches!(config.view, ViewChoice::Get(_)) {
            return on_large_stack(|| read_inputs(config));
        }
        return read_inputs(config);
    };
    let mut agent = match supervise::Supervised::start(opts) {
        Ok(agent) => agent,
        Err(supervise::CannotStart(why)) => {
            eprintln!("cursor-stream: error: {why}");
            return Ok(ExitStatus::CANNOT_START);
        }
    };
    let stdout: Box<dyn io::Read + Send> = Box::new(agent.take_stdout());
    let inputs = std::iter::once(("agent".to_string(), (1, 0), Ok((stdout, None))));
    let terminal_seen = Some(agent.watch.result_seen.clone());
    match with_view(
        &config.view,
        Drive {
            config,
            inputs,
            terminal_seen,
        },
    ) {
        Ok(status) => Ok(agent.finish(status)),
        Err(e) => {
            // Our output is gone (a closed pipe) or the input unusable: the agent goes too.
            let was_running = agent.abort();
            // A signal says why the run ended, even when it cost us our output too (a
            // closed terminal).
            if let Some(status) = agent.stopped_by_signal() {
                return Ok(status);
            }
            if broken_pipe(&e) {
                if was_running {
                    let _ = writeln!(
                        io::stderr(),
                        "cursor-stream: the output was closed: the agent was stopped"
                    );
                }
                return Ok(ExitStatus::OUTPUT_CLOSED);
            }
            Err(e)
        }
    }
}

/// Whether the error is a closed stdout.
fn broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

/// Runs `f` on a thread with [`LARGE_STACK`], as if on this one.
fn on_large_stack<T: Send>(f: impl FnOnce() -> anyhow::Result<T> + Send) -> anyhow::Result<T> {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("engine".into())
            .stack_size(LARGE_STACK)
            .spawn_scoped(scope, f)?;
        thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Reads the configured inputs through the configured view.
fn read_inputs(config: &Config) -> anyhow::Result<ExitStatus> {
    if let Some(spec) = &config.live {
        return read_live(config, spec);
    }
    // A terminal on stdin means nothing was piped in: without a word the view would seem
    // to hang.
    if !config.quiet && config.inputs.contains(&input::Input::Stdin) && io::stdin().is_terminal() {
        eprintln!(
            "cursor-stream: reading the stream from stdin (pipe an agent's output in, or name \
             a file; Ctrl-D ends)"
        );
    }
    if let Some(plan) = &config.follow {
        return read_followed(config, plan);
    }
    let inputs = config.inputs.iter().map(|i| {
        let opened = crate::stores::open::open(i).map(Opened::into_read);
        (i.name(), i.first_line(), opened)
    });
    with_view(
        &config.view,
        Drive {
            config,
            inputs,
            terminal_seen: None,
        },
    )
}

/// `usage --live`, `sessions --live`: the view and its `--json` twin, redrawn as logs change.
fn read_live(
    config: &Config,
    spec: &crate::stores::watched::Watched,
) -> anyhow::Result<ExitStatus> {
    use crate::live::Views;
    use crate::view::{sessions::SessionsOptions, usage::UsageOptions};
    use crate::view::{sessions::SessionsView, usage::UsageView};
    match &config.view {
        ViewChoice::Usage(opts) => {
            let views = Views::of(|json| {
                let json = json || opts.json;
                UsageView::new(UsageOptions {
                    json,
                    ..opts.clone()
                })
            });
            crate::live::run(config, &views, spec)
        }
        ViewChoice::Sessions(opts) => {
            let views = Views::of(|json| {
                SessionsView::new(SessionsOptions {
                    json: json || opts.json,
                })
            })
            .newest_first();
            crate::live::run(config, &views, spec)
        }
        _ => anyhow::bail!("--live is for usage and sessions"),
    }
}

/// `--follow`: the file named, read on as it grows (stdin as it is), or the newest
/// sessions of the agents, each as it starts.
fn read_followed(config: &Config, plan: &crate::config::FollowPlan) -> anyhow::Result<ExitStatus> {
    let drive = |inputs: Box<dyn Iterator<Item = Inputs> + '_>| {
        with_view(
            &config.view,
            Drive {
                config,
                inputs,
                terminal_seen: None,
            },
        )
    };
    if !plan.sessions_of.is_empty() {
        let sessions =
            crate::stores::follow::sessions(plan.sessions_of.clone(), plan.follow.clone());
        return drive(Box::new(
            sessions.map(|(name, first, read)| (name, first, read.map(|r| (r, None)))),
        ));
    }
    let inputs = config.inputs.iter().map(|i| {
        let opened = match i {
            input::Input::Path(path) => {
                if !path.exists() {
                    eprintln!(
                        "cursor-stream: note: {} is not there yet: waiting for it",
                        path.display()
                    );
                }
                crate::input::follow::Followed::wait_for(path, plan.follow.clone())
                    .map(|f| (Box::new(f) as Box<dyn io::Read + Send>, None))
            }
            other => crate::stores::open::open(other).map(Opened::into_read),
        };
        (i.name(), i.first_line(), opened)
    });
    drive(Box::new(inputs))
}

/// The exit status for an error that ended the run: 4 for bad input (`--strict`,
/// `--max-line`), else 2.
fn error_status(err: &anyhow::Error) -> ExitStatus {
    if err.downcast_ref::<crate::out::diag::BadInput>().is_some() {
        ExitStatus::BAD_INPUT
    } else {
        ExitStatus::ERROR
    }
}

/// Something to do with a view: views are generic, so a choice made at run time becomes a
/// type in [`with_view`], once.
pub(crate) trait WithView {
    type Out;
    fn call<V: View>(self, view: V) -> Self::Out;
}

pub(crate) fn with_view<W: WithView>(choice: &ViewChoice, w: W) -> W::Out {
    use crate::view::*;
    match choice {
        ViewChoice::Text(opts) => w.call(text::TextView::new(opts.clone())),
        ViewChoice::Result => w.call(result::ResultView),
        ViewChoice::Json => w.call(json::JsonView),
        ViewChoice::Tools(opts) => w.call(tools::ToolsView::new(opts.clone())),
        ViewChoice::Progress(opts) => w.call(progress::ProgressView::new(opts.clone())),
        ViewChoice::Events(opts) => w.call(events::EventsView::new(opts.clone())),
        ViewChoice::Normalized(opts) => w.call(normalized::NormalizedView::new(opts.clone())),
        ViewChoice::Get(opts) => w.call(get::GetView::new(opts.clone())),
        ViewChoice::Stats(opts) => w.call(stats::StatsView::new(opts.clone())),
        ViewChoice::Check(opts) => w.call(check::CheckView::new(opts.clone())),
        ViewChoice::Transcript(opts) => w.call(transcript::TranscriptView::new(opts.clone())),
        ViewChoice::Sessions(opts) => w.call(sessions::SessionsView::new(opts.clone())),
        ViewChoice::Usage(opts) => w.call(usage::UsageView::new(opts.clone())),
        ViewChoice::Export(opts) => w.call(export::ExportView::new(opts.clone())),
        ViewChoice::Statusline(opts) => w.call(statusline::StatuslineView::new(opts.clone())),
    }
}

/// The inputs to read, by name, with the number and offset of the first line read,
/// opened (or why they could not be); for an input of several files' lines, which file
/// each line is from.
type Inputs = (
    String,
    (u64, u64),
    io::Result<(Box<dyn io::Read + Send>, Option<Parts>)>,
);

struct Drive<'c, I> {
    config: &'c Config,
    inputs: I,
    terminal_seen: Option<Arc<AtomicBool>>,
}

impl<I: Iterator<Item = Inputs>> WithView for Drive<'_, I> {
    type Out = anyhow::Result<ExitStatus>;

    fn call<V: View>(self, view: V) -> Self::Out {
        // Several files, or one large file, and a view that can read them apart: one
        // worker per core.
        let view = match self.terminal_seen {
            None => match crate::parallel::drive(view, self.config, output_mode(self.config)) {
                Ok(status) => return status,
                Err(view) => view,
            },
            Some(_) => view,
        };
        drive(view, self.config, self.inputs, self.terminal_seen)
    }
}

/// How the output streams behave, from the configuration.
fn output_mode(config: &Config) -> OutputMode {
    OutputMode {
        out_is_terminal: config.out_is_terminal,
        err_is_terminal: config.err_is_terminal,
        color_out: config.color_out,
        color_err: config.color_err,
        line_buffered: config.line_buffered,
        out_width: config.columns.filter(|_| config.out_is_terminal),
        err_width: config.columns.filter(|_| config.err_is_terminal),
    }
}

fn drive<V: View>(
    view: V,
    config: &Config,
    inputs: impl Iterator<Item = Inputs>,
    terminal_seen: Option<Arc<AtomicBool>>,
) -> anyhow::Result<ExitStatus> {
    let out = Output::new(
        Box::new(io::stdout().lock()),
        Box::new(io::stderr()),
        output_mode(config),
    );
    let ctx = Ctx::new(out, Diag::new(config.strict, config.quiet));
    let tee = match &config.tee {
        Some(path) => Some(Arc::new(File::create(path).with_context(|| {
            format!("cannot create the --tee file {}", path.display())
        })?)),
        None => None,
    };
    let mut dispatcher =
        Dispatcher::new(ViewHandler::new(view, ctx), config.max_line).agent(config.agent);
    if let Some(flag) = terminal_seen {
        dispatcher = dispatcher.signal_terminal(flag);
    }
    let mut unreadable = false;
    for (name, first_line, opened) in inputs {
        let failed = match opened {
            Ok((rdr, parts)) => {
                dispatcher.begin(&name);
                dispatcher.spliced(parts);
                match dispatcher.resume(&name, input::Tee::new(rdr, tee.clone()), first_line) {
                    Err(e) if e.is::<InputFailed>() => e.to_string(),
                    read => {
                        read?;
                        continue;
                    }
                }
            }
            Err(e) => format!("cannot read {name}: {e}"),
        };
        // One input that cannot be read (opened, or to its end) hides none of the others.
        let ctx = &mut dispatcher.handler().ctx;
        ctx.out.begin_err_block();
        ctx.out
            .write_err(format!("cursor-stream: error: {failed}\n").as_bytes());
        unreadable = true;
    }
    let status = dispatcher.finish()?;
    Ok(if unreadable {
        ExitStatus::ERROR
    } else {
        status
    })
}

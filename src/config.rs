//! The command line, resolved once into a plain [`Config`] that the engine uses (as fd
//! does): the chosen view with its options, the inputs, and how output behaves.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::agent::event::Agent;
use crate::cli::{Cli, ColorChoice, Command, InputArgs, RunView};
use crate::input::Input;
use crate::supervise::RunOptions;
use crate::view::check::CheckOptions;
use crate::view::events::EventsOptions;
use crate::view::get::GetOptions;
use crate::view::progress::ProgressOptions;
use crate::view::stats::StatsOptions;
use crate::view::text::TextOptions;
use crate::view::tools::{CallFilter, ToolsOptions};
use crate::view::transcript::TranscriptOptions;

#[derive(Debug, Clone)]
pub enum ViewChoice {
    Text(TextOptions),
    Result,
    Json,
    Tools(ToolsOptions),
    Progress(ProgressOptions),
    Events(EventsOptions),
    Get(GetOptions),
    Stats(StatsOptions),
    Check(CheckOptions),
    Transcript(TranscriptOptions),
}

/// Everything a run needs, decided once.
#[derive(Debug, Clone)]
pub struct Config {
    pub view: ViewChoice,
    /// For `run`: the agent to start (and the inputs are its stdout).
    pub run: Option<RunOptions>,
    pub inputs: Vec<Input>,
    /// `--agent`: read every input as this agent's stream, with no detection.
    pub agent: Option<Agent>,
    pub strict: bool,
    pub quiet: bool,
    pub line_buffered: bool,
    pub max_line: Option<usize>,
    pub tee: Option<PathBuf>,
    pub color_out: bool,
    pub color_err: bool,
    pub out_is_terminal: bool,
    pub err_is_terminal: bool,
    /// The terminal's width, read once, when stdout or stderr is one.
    pub columns: Option<usize>,
}

/// What the command line asks for.
pub enum Action {
    View(Box<Config>),
    Completions(clap_complete::Shell),
    Man,
}

impl Config {
    /// Resolves the command line once: the view with its options, the inputs, colours and
    /// terminals.
    pub fn from_cli(cli: Cli) -> Action {
        let mut run = None;
        let (view, input) = match cli.command {
            Command::Completions { shell } => return Action::Completions(shell),
            Command::Man => return Action::Man,
            Command::Run(a) => {
                let view = match a.view {
                    RunView::Progress => ViewChoice::Progress(ProgressOptions::default()),
                    RunView::Text => ViewChoice::Text(TextOptions::default()),
                    RunView::Tools => ViewChoice::Tools(ToolsOptions::default()),
                    RunView::Result => ViewChoice::Result,
                    RunView::Json => ViewChoice::Json,
                };
                run = Some(RunOptions {
                    command: a.command,
                    grace: a.grace,
                    idle_timeout: a.idle_timeout,
                });
                (view, InputArgs { files: Vec::new() })
            }
            Command::Text(a) => (
                ViewChoice::Text(TextOptions {
                    separator: a.separator.as_deref().map(unescape),
                    thinking: a.thinking,
                }),
                a.input,
            ),
            Command::Result(a) => (ViewChoice::Result, a),
            Command::Json(a) => (ViewChoice::Json, a),
            Command::Tools(a) => {
                let mut statuses = a.status;
                if a.failed {
                    statuses.push("failed".to_string());
                }
                let opts = ToolsOptions {
                    json: a.json,
                    starts: a.starts,
                    filter: CallFilter {
                        tools: a.tool,
                        statuses,
                        session: a.session,
                    },
                };
                (ViewChoice::Tools(opts), a.input)
            }
            Command::Progress(a) => (
                ViewChoice::Progress(ProgressOptions {
                    activity_stderr: a.activity_stderr,
                    thinking: a.thinking,
                }),
                a.input,
            ),
            Command::Events(a) => (
                ViewChoice::Events(EventsOptions {
                    filter: a.filter.into_filter(),
                    last_run: a.last_run,
                    count: a.count,
                }),
                a.input,
            ),
            Command::Get(a) => (
                ViewChoice::Get(GetOptions {
                    paths: a.paths,
                    filter: a.filter.into_filter(),
                    raw: a.raw_output,
                    join: a.join_output,
                    exit_status: a.exit_status,
                }),
                a.input,
            ),
            Command::Stats(a) => (ViewChoice::Stats(StatsOptions { json: a.json }), a.input),
            Command::Check(a) => (ViewChoice::Check(CheckOptions { json: a.json }), a.input),
            Command::Transcript(a) => (
                ViewChoice::Transcript(TranscriptOptions {
                    html: a.html,
                    full: a.full,
                }),
                a.input,
            ),
        };
        let out_is_terminal = std::io::stdout().is_terminal();
        let err_is_terminal = std::io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = |is_terminal: bool| match cli.global.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => is_terminal && !no_color,
        };
        Action::View(Box::new(Config {
            view,
            run,
            inputs: inputs(input.files),
            agent: cli.global.agent.agent(),
            strict: cli.global.strict,
            quiet: cli.global.quiet,
            line_buffered: cli.global.line_buffered,
            max_line: cli.global.max_line,
            tee: cli.global.tee,
            color_out: color(out_is_terminal),
            color_err: color(err_is_terminal),
            out_is_terminal,
            err_is_terminal,
            columns: (out_is_terminal || err_is_terminal).then(crate::out::fit::terminal_columns),
        }))
    }
}

fn inputs(files: Vec<PathBuf>) -> Vec<Input> {
    if files.is_empty() {
        return vec![Input::Stdin];
    }
    files
        .into_iter()
        .map(|f| {
            if f.as_os_str() == "-" {
                Input::Stdin
            } else {
                Input::Path(f)
            }
        })
        .collect()
}

/// `\n`, `\t`, `\r`, `\0` and `\\`; any other backslash stays as written.
fn unescape(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match bytes.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b't') => out.push(b'\t'),
            Some(b'r') => out.push(b'\r'),
            Some(b'0') => out.push(0),
            Some(b'\\') => out.push(b'\\'),
            Some(other) => out.extend_from_slice(&[b'\\', other]),
            None => out.push(b'\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separator_escapes() {
        assert_eq!(unescape(r"\n\n"), b"\n\n");
        assert_eq!(unescape(r"a\tb\\c\q"), b"a\tb\\c\\q");
        assert_eq!(unescape("---"), b"---");
    }

    #[test]
    fn dash_and_nothing_mean_stdin() {
        assert_eq!(inputs(vec![]), vec![Input::Stdin]);
        assert_eq!(
            inputs(vec!["a".into(), "-".into()]),
            vec![Input::Path("a".into()), Input::Stdin]
        );
    }
}

use std::io;
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use cursor_stream::cli::Cli;
use cursor_stream::{Action, Config, ExitStatus};

fn main() -> ExitCode {
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
    let code = match cursor_stream::run(&config) {
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
    let broken_pipe = err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    });
    if broken_pipe {
        return ExitCode::from(ExitStatus::SUCCESS.code());
    }
    eprintln!("cursor-stream: error: {err:#}");
    ExitCode::from(cursor_stream::error_status(err).code())
}

use std::io;
use std::process::ExitCode;

use clap::Parser;

use cursor_stream::cli::Cli;
use cursor_stream::diag::BadInput;
use cursor_stream::session::ExitStatus;

fn main() -> ExitCode {
    let config = Cli::parse().resolve();
    match cursor_stream::run(&config) {
        Ok(status) => ExitCode::from(status.code()),
        Err(err) => exit_for(&err),
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
    if err.downcast_ref::<BadInput>().is_some() {
        ExitCode::from(ExitStatus::BAD_INPUT.code())
    } else {
        ExitCode::from(ExitStatus::ERROR.code())
    }
}

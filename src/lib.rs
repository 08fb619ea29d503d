//! cursor-stream: read the Cursor Agent CLI's `stream-json` output and show what is needed.
//!
//! The shape: a line splitter ([`line_buffer`]) feeds a dispatcher ([`dispatch`]) that peeks
//! each event's type ([`event`]) and routes it to the chosen view ([`view`]), which writes
//! through buffered [`output`].

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
pub mod session;
pub mod tool_call;
pub mod view;

use std::fs::File;
use std::io;
use std::sync::Arc;

use anyhow::Context as _;

use cli::{Config, ViewChoice};
use diag::Diag;
use dispatch::Dispatcher;
use output::{Output, OutputMode};
use session::ExitStatus;
use view::{Ctx, View};

/// Runs the configured view over the configured inputs.
pub fn run(config: &Config) -> anyhow::Result<ExitStatus> {
    match &config.view {
        ViewChoice::Text(opts) => drive(view::text::TextView::new(opts.clone()), config),
        ViewChoice::Result => drive(view::result::ResultView, config),
        ViewChoice::Json => drive(view::json::JsonView, config),
        ViewChoice::Tools(opts) => drive(view::tools::ToolsView::new(opts.clone()), config),
        ViewChoice::Progress(opts) => {
            drive(view::progress::ProgressView::new(opts.clone()), config)
        }
        ViewChoice::Events(opts) => drive(view::events::EventsView::new(opts.clone()), config),
        ViewChoice::Get(opts) => drive(view::get::GetView::new(opts.clone()), config),
        ViewChoice::Stats(opts) => drive(view::stats::StatsView::new(opts.clone()), config),
        ViewChoice::Check(opts) => drive(view::check::CheckView::new(opts.clone()), config),
    }
}

fn drive<V: View>(view: V, config: &Config) -> anyhow::Result<ExitStatus> {
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
    let mut unreadable = false;
    for input in &config.inputs {
        let name = input.name();
        match input::open(input) {
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

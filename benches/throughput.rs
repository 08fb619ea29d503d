//! Micro-benchmarks of the engine's parts and each view's work per line, in bytes per
//! second, on a generated log held in memory:
//!
//! ```text
//! cargo bench --bench throughput
//! ```
//!
//! Whole-program comparisons with jq and `wc -l` on a 1 GiB file are in `scripts/bench.sh`.

use std::io;
use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::{Bencher, black_box};

use cursor_stream::diag::Diag;
use cursor_stream::dispatch::Dispatcher;
use cursor_stream::event;
use cursor_stream::filter::EventFilter;
use cursor_stream::line_buffer::LineReader;
use cursor_stream::output::{Output, OutputMode};
use cursor_stream::view::check::{CheckOptions, CheckView};
use cursor_stream::view::events::{EventsOptions, EventsView};
use cursor_stream::view::get::{GetOptions, GetView};
use cursor_stream::view::json::JsonView;
use cursor_stream::view::progress::{ProgressOptions, ProgressView};
use cursor_stream::view::result::ResultView;
use cursor_stream::view::stats::{StatsOptions, StatsView};
use cursor_stream::view::text::{TextOptions, TextView};
use cursor_stream::view::tools::{ToolsOptions, ToolsView};
use cursor_stream::view::{Ctx, View};

#[allow(dead_code)]
#[path = "../examples/generate.rs"]
mod generate;

fn main() {
    divan::main();
}

/// 16 MiB of realistic log: tool results, deltas, thinking, several runs.
fn log() -> &'static [u8] {
    static LOG: OnceLock<Vec<u8>> = OnceLock::new();
    LOG.get_or_init(|| {
        let mut out = Vec::new();
        generate::generate(&mut out, 16 << 20, 42, false).unwrap();
        out
    })
}

/// 8 MiB of assistant deltas: every line must be parsed by `text`.
fn deltas() -> &'static [u8] {
    static DELTAS: OnceLock<Vec<u8>> = OnceLock::new();
    DELTAS.get_or_init(|| {
        let mut out = Vec::new();
        generate::generate(&mut out, 8 << 20, 42, true).unwrap();
        out
    })
}

fn lines(data: &[u8]) -> Vec<&[u8]> {
    data.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect()
}

#[divan::bench]
fn split_lines(bencher: Bencher) {
    let data = log();
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        let mut reader = LineReader::new(data);
        let mut n = 0usize;
        while reader.fill().unwrap() {
            while let Some(line) = reader.next_line() {
                n += line.bytes.len();
            }
        }
        black_box(n)
    });
}

#[divan::bench]
fn peek_type(bencher: Bencher) {
    let data = log();
    let lines = lines(data);
    bencher.counter(BytesCount::new(data.len())).bench(|| {
        for line in &lines {
            let _ = black_box(event::peek(line));
        }
    });
}

#[divan::bench]
fn read_assistant(bencher: Bencher) {
    let data = deltas();
    let lines = lines(data);
    let mut text = Vec::new();
    bencher
        .counter(BytesCount::new(data.len()))
        .bench_local(|| {
            for line in &lines {
                text.clear();
                let _ = black_box(event::read_assistant(line, &mut text));
            }
        });
}

fn run_view<V: View>(bencher: Bencher, data: &'static [u8], make: impl Fn() -> V) {
    bencher
        .counter(BytesCount::new(data.len()))
        .bench_local(|| {
            let out = Output::new(
                Box::new(io::sink()),
                Box::new(io::sink()),
                OutputMode::default(),
            );
            let ctx = Ctx::new(out, Diag::new(false, true));
            let mut dispatcher = Dispatcher::new(make(), ctx, None);
            dispatcher.feed("bench", data).unwrap();
            black_box(dispatcher.finish().unwrap())
        });
}

#[divan::bench]
fn view_text(bencher: Bencher) {
    run_view(bencher, log(), || TextView::new(TextOptions::default()));
}

#[divan::bench]
fn view_text_deltas_only(bencher: Bencher) {
    run_view(bencher, deltas(), || TextView::new(TextOptions::default()));
}

#[divan::bench]
fn view_result(bencher: Bencher) {
    run_view(bencher, log(), || ResultView);
}

#[divan::bench]
fn view_json(bencher: Bencher) {
    run_view(bencher, log(), || JsonView);
}

#[divan::bench]
fn view_tools_json(bencher: Bencher) {
    run_view(bencher, log(), || {
        ToolsView::new(ToolsOptions {
            json: true,
            ..ToolsOptions::default()
        })
    });
}

#[divan::bench]
fn view_tools(bencher: Bencher) {
    run_view(bencher, log(), || ToolsView::new(ToolsOptions::default()));
}

#[divan::bench]
fn view_progress(bencher: Bencher) {
    run_view(bencher, log(), || {
        ProgressView::new(ProgressOptions::default())
    });
}

#[divan::bench]
fn view_get_text(bencher: Bencher) {
    run_view(bencher, log(), || {
        let filter = EventFilter {
            types: vec!["assistant".into()],
            ..EventFilter::default()
        };
        GetView::new(GetOptions {
            paths: ".message.content[].text".parse().unwrap(),
            filter,
            raw: true,
            join: true,
            exit_status: false,
        })
    });
}

#[divan::bench]
fn view_events_tool_call(bencher: Bencher) {
    run_view(bencher, log(), || {
        let mut opts = EventsOptions::default();
        opts.filter.types = vec!["tool_call".into()];
        EventsView::new(opts)
    });
}

#[divan::bench]
fn view_stats(bencher: Bencher) {
    run_view(bencher, log(), || StatsView::new(StatsOptions::default()));
}

#[divan::bench]
fn view_check(bencher: Bencher) {
    run_view(bencher, log(), || CheckView::new(CheckOptions::default()));
}

//! Micro-benchmarks of the engine's parts and each view's work per line, in bytes per
//! second, on a generated log held in memory:
//!
//! ```text
//! cargo bench --bench throughput
//! ```
//!
//! Whole-program comparisons with jq and `wc -l` on a 1 GiB file are in `scripts/bench.sh`.

use std::sync::OnceLock;

use divan::counter::BytesCount;
use divan::{Bencher, black_box};

use cursor_stream::testing::{
    CheckOptions, EventFilter, EventsOptions, GetOptions, LineReader, ProgressOptions,
    StatsOptions, TextOptions, ToolsOptions, ViewChoice, peek_is_event, read_cursor_assistant,
    run_discarding,
};

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
            black_box(peek_is_event(line));
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
                black_box(read_cursor_assistant(line, &mut text));
            }
        });
}

fn run_view(bencher: Bencher, data: &'static [u8], choice: ViewChoice) {
    bencher
        .counter(BytesCount::new(data.len()))
        .bench_local(|| black_box(run_discarding(&choice, None, data)));
}

#[divan::bench]
fn view_text(bencher: Bencher) {
    run_view(bencher, log(), ViewChoice::Text(TextOptions::default()));
}

#[divan::bench]
fn view_text_deltas_only(bencher: Bencher) {
    run_view(bencher, deltas(), ViewChoice::Text(TextOptions::default()));
}

#[divan::bench]
fn view_result(bencher: Bencher) {
    run_view(bencher, log(), ViewChoice::Result);
}

#[divan::bench]
fn view_json(bencher: Bencher) {
    run_view(bencher, log(), ViewChoice::Json);
}

#[divan::bench]
fn view_tools_json(bencher: Bencher) {
    run_view(
        bencher,
        log(),
        ViewChoice::Tools(ToolsOptions {
            json: true,
            ..ToolsOptions::default()
        }),
    );
}

#[divan::bench]
fn view_tools(bencher: Bencher) {
    run_view(bencher, log(), ViewChoice::Tools(ToolsOptions::default()));
}

#[divan::bench]
fn view_progress(bencher: Bencher) {
    run_view(
        bencher,
        log(),
        ViewChoice::Progress(ProgressOptions::default()),
    );
}

#[divan::bench]
fn view_get_text(bencher: Bencher) {
    let filter = EventFilter {
        types: vec!["assistant".into()],
        ..EventFilter::default()
    };
    let mut opts = GetOptions::new(".message.content[].text").unwrap();
    opts.filter = filter;
    opts.raw = true;
    opts.join = true;
    run_view(bencher, log(), ViewChoice::Get(opts));
}

#[divan::bench]
fn view_events_tool_call(bencher: Bencher) {
    let mut opts = EventsOptions::default();
    opts.filter.types = vec!["tool_call".into()];
    run_view(bencher, log(), ViewChoice::Events(opts));
}

#[divan::bench]
fn view_stats(bencher: Bencher) {
    run_view(bencher, log(), ViewChoice::Stats(StatsOptions::default()));
}

#[divan::bench]
fn view_check(bencher: Bencher) {
    run_view(bencher, log(), ViewChoice::Check(CheckOptions::default()));
}

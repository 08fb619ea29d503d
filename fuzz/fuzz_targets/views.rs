//! Arbitrary bytes, cut into arbitrary reads, through the splitter, the peek and every
//! view. Besides "no panic", it checks what must hold whatever the input:
//!
//! - a view's output does not depend on how the input was split into reads;
//! - `events` with no filter reproduces its input byte for byte.
//!
//! The first byte of the fuzzer's input chooses the read sizes; the rest is the stream.

#![no_main]

use std::io::{self, Read};

use libfuzzer_sys::fuzz_target;

use cursor_stream::Agent;
use cursor_stream::testing::{
    AGENTS, Captured, CheckOptions, EventFilter, EventsOptions, GetOptions, ProgressOptions,
    StatsOptions, TextOptions, ToolsOptions, TranscriptOptions, ViewChoice, run_captured_as,
};

/// Hands out its data in reads of a fixed size.
struct Chunked {
    data: Vec<u8>,
    at: usize,
    size: usize,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.size.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

fn views() -> Vec<ViewChoice> {
    vec![
        ViewChoice::Text(TextOptions::default()),
        ViewChoice::Text(TextOptions {
            separator: Some(b"|".to_vec()),
            thinking: true,
        }),
        ViewChoice::Result,
        ViewChoice::Json,
        ViewChoice::Tools(ToolsOptions::default()),
        ViewChoice::Tools(ToolsOptions {
            json: true,
            starts: true,
            ..ToolsOptions::default()
        }),
        ViewChoice::Progress(ProgressOptions {
            activity_stderr: false,
            thinking: true,
        }),
        ViewChoice::Events(EventsOptions {
            filter: EventFilter {
                tools: vec!["shell".into()],
                ..EventFilter::default()
            },
            ..EventsOptions::default()
        }),
        ViewChoice::Get({
            let mut opts = GetOptions::new(".message.content[].text, .tool_call[]?.args").unwrap();
            opts.raw = true;
            opts
        }),
        ViewChoice::Get(GetOptions::new("select(.type == \"assistant\") | .message.content[]?.text // empty, ($run | .agent), $line").unwrap()),
        ViewChoice::Stats(StatsOptions { json: true }),
        ViewChoice::Stats(StatsOptions::default()),
        ViewChoice::Check(CheckOptions { json: true }),
        ViewChoice::Transcript(TranscriptOptions::default()),
        ViewChoice::Transcript(TranscriptOptions {
            html: true,
            full: true,
        }),
    ]
}

fn run(view: &ViewChoice, agent: Option<Agent>, data: &[u8], size: usize) -> Captured {
    let input = Chunked {
        data: data.to_vec(),
        at: 0,
        size,
    };
    run_captured_as(view, false, agent, 4096, input)
}

fuzz_target!(|input: &[u8]| {
    let Some((&seed, data)) = input.split_first() else {
        return;
    };
    let size = usize::from(seed % 32) + 1;
    // The top bits pick the dialect: one given with --agent, or (a quarter of the time)
    // detection.
    let agent = AGENTS.get(usize::from(seed >> 5)).copied();
    for view in views() {
        let whole = run(&view, agent, data, usize::MAX);
        let chunked = run(&view, agent, data, size);
        assert!(
            whole.stdout == chunked.stdout,
            "stdout depends on the reads: {view:?}"
        );
        assert!(
            whole.stderr == chunked.stderr,
            "stderr depends on the reads: {view:?}"
        );
        assert_eq!(
            whole.status.as_ref().ok(),
            chunked.status.as_ref().ok(),
            "{view:?}"
        );
    }
    let events = run(
        &ViewChoice::Events(EventsOptions::default()),
        agent,
        data,
        size,
    );
    assert!(events.stdout == data, "events did not reproduce its input");
});

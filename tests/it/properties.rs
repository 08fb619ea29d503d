//! Properties that must hold for any input, checked on generated ones (proptest):
//!
//! - any chunking of the input yields the same lines;
//! - a view's output does not depend on how the input was split into reads;
//! - `events` with no filter reproduces its input byte for byte.

use std::io::{self, Read};
use std::path::Path;

use proptest::prelude::*;

use cursor_stream::testing::{
    AGENTS, CheckOptions, EventsOptions, LineReader, ProgressOptions, StatsOptions, TextOptions,
    ToolsOptions, TranscriptOptions, ViewChoice, run_captured, run_captured_as,
};

/// Hands out its data in reads of the given sizes, in turn.
struct Chunked {
    data: Vec<u8>,
    at: usize,
    sizes: Vec<usize>,
    turn: usize,
}

impl Chunked {
    fn new(data: &[u8], sizes: &[usize]) -> Chunked {
        Chunked {
            data: data.to_vec(),
            at: 0,
            sizes: sizes.to_vec(),
            turn: 0,
        }
    }
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.turn % self.sizes.len()].max(1);
        self.turn += 1;
        let n = size.min(buf.len()).min(self.data.len() - self.at);
        buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// Lines as the splitter should give them: `\n` ends a line, a `\r` before it is dropped,
/// a UTF-8 byte order mark at the very start is dropped (alone, it is an empty last line:
/// its bytes still belong to a line), so is an RS (RFC 7464) that starts a line, the last
/// line may lack its `\n`.
fn reference_lines(data: &[u8]) -> Vec<(Vec<u8>, bool)> {
    if data == b"\xEF\xBB\xBF" {
        return vec![(Vec::new(), true)];
    }
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let mut lines = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        let (line, terminated, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&rest[..i], true, &rest[i + 1..]),
            None => (rest, false, &rest[rest.len()..]),
        };
        let line = line.strip_prefix(b"\x1e").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        lines.push((line.to_vec(), !terminated));
        rest = next;
    }
    lines
}

/// Bytes that make lines interesting: newlines, CRs, quotes, braces, a BOM's bytes, RS.
fn stream_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::sample::select(b"{}[]\":,\\ ab\r\n".to_vec()),
            1 => prop::sample::select(vec![0xEF, 0xBB, 0xBF, 0xFF, 0x00, 0x1E]),
            1 => any::<u8>(),
        ],
        0..400,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_chunking_gives_the_same_lines(
        data in stream_bytes(),
        sizes in prop::collection::vec(1usize..40, 1..8),
        capacity in 1usize..64,
    ) {
        let mut reader = LineReader::with_capacity(Chunked::new(&data, &sizes), capacity);
        let mut lines = Vec::new();
        let mut raw = Vec::new();
        while reader.fill().unwrap() {
            while let Some(line) = reader.next_line() {
                lines.push((line.bytes.to_vec(), line.unterminated));
                raw.extend_from_slice(line.raw);
            }
        }
        prop_assert_eq!(lines, reference_lines(&data));
        prop_assert_eq!(raw, data);
    }

    #[test]
    fn events_without_a_filter_reproduces_any_input(
        data in prop::collection::vec(any::<u8>(), 0..600),
        sizes in prop::collection::vec(1usize..50, 1..6),
    ) {
        let out = run_captured(
            &ViewChoice::Events(EventsOptions::default()),
            false,
            Chunked::new(&data, &sizes),
        );
        prop_assert!(out.stdout == data);
    }
}

/// The `.ndjson` files under `dir`, and under its folders.
fn ndjson_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            ndjson_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "ndjson") {
            out.push(path);
        }
    }
}

/// Lines to build streams from: every line of every agent's fixtures (so streams mix
/// agents, and dialects switch), and some broken ones.
fn line_pool() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut pool: Vec<Vec<u8>> = Vec::new();
    let mut names = Vec::new();
    ndjson_files(&dir, &mut names);
    names.sort();
    for name in names {
        for line in std::fs::read(name).unwrap().split(|&b| b == b'\n') {
            if !line.is_empty() {
                pool.push(line.to_vec());
            }
        }
    }
    pool.extend([
        b"T: 0.2s".to_vec(),
        b"".to_vec(),
        b"[1,2]".to_vec(),
        br#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"cu"#.to_vec(),
        b"\xEF\xBB\xBF{}".to_vec(),
    ]);
    pool
}

fn views() -> Vec<ViewChoice> {
    vec![
        ViewChoice::Text(TextOptions {
            separator: Some(b"\n".to_vec()),
            thinking: true,
        }),
        ViewChoice::Result,
        ViewChoice::Json,
        ViewChoice::Tools(ToolsOptions {
            json: true,
            starts: true,
            ..ToolsOptions::default()
        }),
        ViewChoice::Progress(ProgressOptions::default()),
        ViewChoice::Stats(StatsOptions { json: true }),
        ViewChoice::Check(CheckOptions { json: true }),
        ViewChoice::Transcript(TranscriptOptions::default()),
        ViewChoice::Transcript(TranscriptOptions {
            html: true,
            full: false,
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn views_do_not_depend_on_how_the_input_was_read(
        picks in prop::collection::vec(any::<prop::sample::Index>(), 1..60),
        crlf in any::<bool>(),
        sizes in prop::collection::vec(1usize..300, 1..6),
        agent in prop::option::of(prop::sample::select(AGENTS.to_vec())),
    ) {
        let pool = line_pool();
        let mut data = Vec::new();
        for pick in picks {
            let line: &Vec<u8> = pick.get(&pool);
            data.extend_from_slice(line);
            data.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        for view in views() {
            let whole = run_captured_as(&view, false, agent, 4096, Chunked::new(&data, &[usize::MAX]));
            let pieces = run_captured_as(&view, false, agent, 4096, Chunked::new(&data, &sizes));
            prop_assert!(whole.stdout == pieces.stdout, "{:?}: stdout", view);
            prop_assert!(whole.stderr == pieces.stderr, "{:?}: stderr", view);
            prop_assert_eq!(whole.status.ok(), pieces.status.ok());
        }
    }
}

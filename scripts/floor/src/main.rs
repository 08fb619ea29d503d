//! The floor under reading a log: what it costs only to get a file's bytes, split them into
//! lines and find each line's `type`, with none of cursor-stream's work on top. The
//! closing notes of issue 12 use it to say which speed goals this machine can reach.
//!
//!   cargo run --release --manifest-path scripts/floor/Cargo.toml -- MODE FILE
//!
//! Modes (each prints the lines, the `assistant` lines and the time):
//! - `read`: `read()` into a 1 MiB buffer, newlines counted (what `wc -l` does);
//!   `OFFSET=n` reads into the buffer `n` bytes in (see below);
//! - `read-peek`: `read()`, lines split, each line's start searched for `assistant` (about
//!   what the reading thread does before a view sees a line);
//! - `pread-halves`: the same, each half of the file read by a thread of its own (`pread`);
//! - `mmap-peek`, `mmap-halves`: the same over the file mapped (`memmap2`), by one thread
//!   and by two.
//!
//! On the 2-core machine of these notes, `read` costs 4× more (0.6 s against 0.16 s for
//! 1 GiB) when the buffer's place in its page is within 32 bytes of the file offset's: the
//! copy out of the page cache stalls on 4K aliasing. `OFFSET` shows it.

use std::io::Read;
use std::os::unix::fs::FileExt;
use std::time::Instant;

/// What finding a line's type costs at least: a search in its first bytes.
fn is_answer(line: &[u8]) -> bool {
    memchr::memmem::find(&line[..line.len().min(40)], b"assistant").is_some()
}

/// Lines and answer lines in `bytes`, which end with a newline.
fn split(bytes: &[u8]) -> (usize, usize) {
    let (mut lines, mut answers, mut at) = (0, 0, 0);
    for end in memchr::memchr_iter(b'\n', bytes) {
        lines += 1;
        answers += usize::from(is_answer(&bytes[at..end]));
        at = end + 1;
    }
    (lines, answers)
}

/// Reads `file` from `from` to `to` (a line start, and a line start or its end) with
/// `pread` into a 1 MiB buffer, the partial last line carried to the next read.
fn read_range(file: &std::fs::File, from: u64, to: u64) -> (usize, usize) {
    const PAD: usize = 64; // out of 4K aliasing's way
    let mut buf = vec![0u8; PAD + (1 << 20)];
    let (mut lines, mut answers, mut kept, mut pos) = (0, 0, 0, from);
    while pos < to {
        let room = (buf.len() - PAD - kept).min((to - pos) as usize);
        let n = file
            .read_at(&mut buf[PAD + kept..PAD + kept + room], pos)
            .unwrap();
        if n == 0 {
            break;
        }
        pos += n as u64;
        let end = PAD + kept + n;
        let whole = memchr::memrchr(b'\n', &buf[PAD..end]).map_or(PAD, |i| PAD + i + 1);
        let (l, a) = split(&buf[PAD..whole]);
        (lines, answers) = (lines + l, answers + a);
        buf.copy_within(whole..end, PAD);
        kept = end - whole;
    }
    (lines, answers)
}

/// The first line start at or after `at`.
fn line_start(file: &std::fs::File, at: u64) -> u64 {
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = at.saturating_sub(1);
    loop {
        let n = file.read_at(&mut buf, pos).unwrap();
        if n == 0 {
            return pos;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return pos + i as u64 + 1;
        }
        pos += n as u64;
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, mode, path] = args.as_slice() else {
        eprintln!("usage: floor read|read-peek|pread-halves|mmap-peek|mmap-halves FILE");
        std::process::exit(2);
    };
    let file = std::fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    let start = Instant::now();
    let (lines, answers) = match mode.as_str() {
        "read" => {
            let offset: usize = std::env::var("OFFSET").map_or(64, |v| v.parse().unwrap());
            let mut buf = vec![0u8; offset + (1 << 20)];
            let (mut lines, mut f) = (0, &file);
            loop {
                let n = f.read(&mut buf[offset..]).unwrap();
                if n == 0 {
                    break (lines, 0);
                }
                lines += memchr::memchr_iter(b'\n', &buf[offset..offset + n]).count();
            }
        }
        "read-peek" => read_range(&file, 0, len),
        "pread-halves" => {
            let mid = line_start(&file, len / 2);
            let (a, b) = std::thread::scope(|s| {
                let later = s.spawn(|| read_range(&file, mid, len));
                (read_range(&file, 0, mid), later.join().unwrap())
            });
            (a.0 + b.0, a.1 + b.1)
        }
        "mmap-peek" | "mmap-halves" => {
            // SAFETY: the file is not changed while it is measured.
            let map = unsafe { memmap2::Mmap::map(&file).unwrap() };
            let whole = memchr::memrchr(b'\n', &map).map_or(0, |i| i + 1);
            if mode == "mmap-peek" {
                split(&map[..whole])
            } else {
                let mid = line_start(&file, len / 2) as usize;
                let (a, b) = std::thread::scope(|s| {
                    let later = s.spawn(|| split(&map[mid..whole]));
                    (split(&map[..mid]), later.join().unwrap())
                });
                (a.0 + b.0, a.1 + b.1)
            }
        }
        _ => {
            eprintln!("floor: unknown mode {mode}");
            std::process::exit(2);
        }
    };
    println!(
        "{mode}: {lines} lines, {answers} answer lines, {:.3} s",
        start.elapsed().as_secs_f64()
    );
}

//! Reads agent streams with the library's public API only: for each run, its agent,
//! session and outcome, the tool calls as they end, and the answer.
//!
//! ```sh
//! cargo run --example library -- examples/claude.ndjson
//! claude -p "…" --output-format stream-json --verbose | cargo run --example library
//! ```

use std::io::{self, Write};

use cursor_stream::{Event, Handler, Reader, RunEnd, RunInfo, StatusClass, Wants};

/// Writes what it is told as it comes: a live agent is followed live.
struct Summary<W> {
    out: W,
    answer: Vec<u8>,
    /// A new segment of the answer begins with the next text.
    segment: bool,
    calls: usize,
    failed_calls: usize,
}

impl<W: Write> Handler for Summary<W> {
    type Error = io::Error;

    /// The answer and the tool calls; not the tools' raw arguments and results, which would
    /// cost a parse of every (possibly huge) result.
    fn wants(&self) -> Wants {
        Wants::TEXT | Wants::TOOLS | Wants::TOOL_DETAILS
    }

    fn run_start(&mut self, run: &RunInfo) -> io::Result<()> {
        self.answer.clear();
        (self.calls, self.failed_calls) = (0, 0);
        writeln!(
            self.out,
            "run of {} (session {}, model {})",
            run.agent,
            run.session_id.as_deref().unwrap_or("-"),
            run.model.as_deref().unwrap_or("-"),
        )
    }

    fn event(&mut self, _run: &RunInfo, event: &Event<'_>) -> io::Result<()> {
        match event {
            Event::Text(text) => {
                if std::mem::take(&mut self.segment) && !self.answer.is_empty() {
                    self.answer.extend_from_slice(b"\n\n");
                }
                self.answer.extend_from_slice(text);
            }
            Event::Segment => self.segment = true,
            Event::ToolEnded(end) => {
                self.calls += 1;
                if matches!(
                    end.status.class,
                    StatusClass::Failed | StatusClass::Rejected
                ) {
                    self.failed_calls += 1;
                }
                let took = end
                    .duration_ms()
                    .map_or(String::new(), |ms| format!(" in {ms} ms"));
                writeln!(
                    self.out,
                    "  {} {} {}{took}",
                    end.status.word,
                    end.call.tool,
                    end.call.target.as_deref().unwrap_or(""),
                )?;
            }
            _ => {}
        }
        Ok(())
    }

    fn run_end(&mut self, _run: &RunInfo, end: &RunEnd<'_>) -> io::Result<()> {
        writeln!(
            self.out,
            "  {} tool calls, {} failed; {}",
            self.calls, self.failed_calls, end.outcome
        )?;
        if let Some(usage) = &end.usage {
            writeln!(
                self.out,
                "  tokens: {} in, {} out",
                usage.input + usage.cache_read + usage.cache_write,
                usage.output
            )?;
        }
        writeln!(
            self.out,
            "  answer: {}",
            String::from_utf8_lossy(&self.answer)
        )
    }
}

fn main() -> io::Result<()> {
    let mut summary = Summary {
        out: io::stdout().lock(),
        answer: Vec::new(),
        segment: false,
        calls: 0,
        failed_calls: 0,
    };
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Reader::new().read(io::stdin(), &mut summary);
    }
    for path in paths {
        Reader::new().read(std::fs::File::open(&path)?, &mut summary)?;
    }
    Ok(())
}

//! `text`: the assistant's answer, live, exactly once.
//!
//! # Why this is not "concatenate every assistant event"
//!
//! An `assistant` event comes in three forms, told apart by two fields:
//!
//! | form                        | `timestamp_ms` | `model_call_id` | with `--stream-partial-output` | without       |
//! |-----------------------------|----------------|-----------------|--------------------------------|---------------|
//! | delta                       | yes            | no              | a small piece of new text      | not emitted   |
//! | segment flush (before tools)| yes            | yes             | a repeat of the deltas         | the only copy |
//! | final flush (end of turn)   | no             | no              | a repeat of the last segment   | the only copy |
//!
//! A segment is the text of one model call; tool calls separate segments. The vendor's
//! docs say to concatenate everything, which doubles the text in partial mode; dropping
//! the flushes loses all text without partial mode. So the text the deltas gave since the
//! last boundary (a flush or a `tool_call`) is kept, and:
//!
//! - a flush whose segment the deltas already gave adds nothing (if the deltas gave only
//!   a prefix of it, the rest is written: no text is lost);
//! - a flush with no deltas before it is the only copy and is written;
//! - a final flush right after a segment flush with the same text is a repeat;
//! - a delta that equals the whole segment built from two or more deltas is a copy of the
//!   segment dressed as a delta (seen in a forum report) and is skipped. A single delta
//!   repeated (`"\n"`, `"\n"`) is real text and is kept.
//!
//! The docs' own examples have deltas with neither field; each then counts as a flush with
//! no deltas before it, which is written: the docs' concatenation.
//!
//! The rebuilt text of a run is checked against its `result` (length and CRC-32, so memory
//! stays bounded): a difference is reported on stderr. A run with a `result` but no
//! assistant text at all (a `--output-format json` line fed in) prints the result's text.

use anstyle::Style;

use crate::event::{self, EventKind, KindSet, ThinkingPhase};
use crate::session::Outcome;
use crate::view::{Ctx, Event, SessionEnd, View};

#[derive(Debug, Clone, Default)]
pub struct TextOptions {
    /// Written between segments (the text before and after a round of tool calls).
    pub separator: Option<Vec<u8>>,
    /// Show the reasoning on stderr.
    pub thinking: bool,
}

/// Where the current segment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Segment {
    /// Nothing since the last boundary.
    Fresh,
    /// Deltas have given `seg`.
    Deltas,
    /// A segment flush (with `model_call_id`) just gave `seg`.
    Flushed,
}

pub struct TextView {
    opts: TextOptions,
    segment: Segment,
    /// The current segment's text, for recognising repeats.
    seg: Vec<u8>,
    seg_deltas: u32,
    /// The text of the event being handled.
    scratch: Vec<u8>,
    /// What this run has written so far, to compare with its `result`.
    written_len: u64,
    written_crc: crc32fast::Hasher,
    /// A tool call came after this run's last text: the separator is due.
    separator_due: bool,
    /// The previous run's text did not end its line: the next run starts on a new one.
    newline_due: bool,
    thinking_open: bool,
}

impl TextView {
    pub fn new(opts: TextOptions) -> TextView {
        TextView {
            opts,
            segment: Segment::Fresh,
            seg: Vec::new(),
            seg_deltas: 0,
            scratch: Vec::new(),
            written_len: 0,
            written_crc: crc32fast::Hasher::new(),
            separator_due: false,
            newline_due: false,
            thinking_open: false,
        }
    }

    fn assistant(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.scratch.clear();
        let meta = match event::read_assistant(ev.line, &mut self.scratch) {
            Ok(meta) => meta,
            Err(e) => {
                ctx.diag.bad_line(
                    &mut ctx.out,
                    "unreadable assistant events",
                    format_args!("unreadable assistant event ({e})"),
                    ev.line,
                )?;
                return Ok(());
            }
        };
        let text = std::mem::take(&mut self.scratch);
        let result = if meta.has_model_call_id || !meta.has_timestamp {
            self.flush_form(&text, meta.has_model_call_id, ctx)
        } else {
            self.delta(&text, ctx)
        };
        self.scratch = text;
        result
    }

    fn delta(&mut self, text: &[u8], ctx: &mut Ctx) -> anyhow::Result<()> {
        if self.segment != Segment::Deltas {
            self.begin_segment(Segment::Deltas);
        }
        if self.seg_deltas >= 2 && text == self.seg.as_slice() {
            return Ok(());
        }
        self.seg.extend_from_slice(text);
        self.seg_deltas += 1;
        self.write(text, ctx)
    }

    fn flush_form(
        &mut self,
        text: &[u8],
        segment_flush: bool,
        ctx: &mut Ctx,
    ) -> anyhow::Result<()> {
        let new_part: &[u8] = match self.segment {
            Segment::Deltas => text.strip_prefix(self.seg.as_slice()).unwrap_or(b""),
            Segment::Flushed if text == self.seg.as_slice() => b"",
            _ => text,
        };
        self.write(new_part, ctx)?;
        if segment_flush {
            self.begin_segment(Segment::Flushed);
            self.seg.extend_from_slice(text);
        } else {
            self.begin_segment(Segment::Fresh);
        }
        Ok(())
    }

    fn begin_segment(&mut self, segment: Segment) {
        self.segment = segment;
        self.seg.clear();
        self.seg_deltas = 0;
    }

    /// Writes answer text, with whatever separation is due before it.
    fn write(&mut self, text: &[u8], ctx: &mut Ctx) -> anyhow::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        self.close_thinking(ctx);
        if self.newline_due {
            ctx.out.write_out(b"\n")?;
            self.newline_due = false;
        }
        if self.separator_due {
            if let Some(sep) = &self.opts.separator {
                ctx.out.write_out(sep)?;
            }
            self.separator_due = false;
        }
        ctx.out.write_out(text)?;
        self.written_len += text.len() as u64;
        self.written_crc.update(text);
        Ok(())
    }

    fn thinking(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.scratch.clear();
        let phase = match event::read_thinking(ev.line, &mut self.scratch) {
            Ok(phase) => phase,
            Err(e) => {
                ctx.diag.bad_line(
                    &mut ctx.out,
                    "unreadable thinking events",
                    format_args!("unreadable thinking event ({e})"),
                    ev.line,
                )?;
                return Ok(());
            }
        };
        if !self.scratch.is_empty() {
            let dim = Style::new().dimmed().italic();
            if !self.thinking_open {
                ctx.out.begin_err_block();
                ctx.out.write_err_styled(dim, b"[thinking] ");
                self.thinking_open = true;
            }
            ctx.out.write_err_styled(dim, &self.scratch);
        }
        if phase == ThinkingPhase::Completed {
            self.close_thinking(ctx);
        }
        Ok(())
    }

    fn close_thinking(&mut self, ctx: &mut Ctx) {
        if self.thinking_open {
            ctx.out.write_err(b"\n");
            self.thinking_open = false;
        }
    }

    fn reset_run(&mut self) {
        self.begin_segment(Segment::Fresh);
        self.written_len = 0;
        self.written_crc = crc32fast::Hasher::new();
        self.separator_due = false;
    }
}

impl View for TextView {
    fn interest(&self) -> KindSet {
        let answer = KindSet::of(&[EventKind::Assistant, EventKind::ToolCall]);
        if self.opts.thinking {
            answer.union(KindSet::of(&[EventKind::Thinking]))
        } else {
            answer
        }
    }

    fn session_start(&mut self, _ctx: &mut Ctx) -> anyhow::Result<()> {
        self.reset_run();
        Ok(())
    }

    fn event(&mut self, ev: &Event<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        match ev.kind() {
            EventKind::Assistant => self.assistant(ev, ctx),
            EventKind::ToolCall => {
                self.begin_segment(Segment::Fresh);
                self.separator_due = self.written_len > 0;
                Ok(())
            }
            EventKind::Thinking => self.thinking(ev, ctx),
            _ => Ok(()),
        }
    }

    fn session_end(&mut self, end: &SessionEnd<'_>, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.close_thinking(ctx);
        if let Some(result) = &end.result {
            let expected = result.event.text().as_bytes();
            if self.written_len == 0 && *end.outcome == Outcome::Succeeded {
                self.separator_due = false;
                self.write(expected, ctx)?;
            } else if self.written_len > 0
                && (self.written_len != expected.len() as u64
                    || self.written_crc.clone().finalize() != crc32fast::hash(expected))
            {
                ctx.diag.warn(
                    &mut ctx.out,
                    "rebuilt text differs from result",
                    format_args!(
                        "the text rebuilt from the assistant events ({} bytes) differs from \
                         the result event's text ({} bytes)",
                        self.written_len,
                        expected.len()
                    ),
                );
            }
        }
        self.newline_due = !ctx.out.out_at_line_start();
        self.reset_run();
        Ok(())
    }

    fn finish(&mut self, ctx: &mut Ctx) -> anyhow::Result<()> {
        self.close_thinking(ctx);
        if ctx.out.out_is_terminal && !ctx.out.out_at_line_start() {
            ctx.out.write_out(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diag;
    use crate::dispatch::Dispatcher;
    use crate::output::{OutputMode, testing::capture};
    use crate::session::ExitStatus;

    fn run(input: &str, opts: TextOptions) -> (String, String, ExitStatus) {
        let (out, stdout, stderr) = capture(OutputMode::default());
        let ctx = Ctx {
            out,
            diag: Diag::new(false, false),
        };
        let mut d = Dispatcher::new(TextView::new(opts), ctx, None);
        d.feed("test", input.as_bytes()).unwrap();
        let status = d.finish().unwrap();
        (stdout.text(), stderr.text(), status)
    }

    fn text(input: &str) -> String {
        run(input, TextOptions::default()).0
    }

    const DELTA_A: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hel"}]},"timestamp_ms":1}"#;
    const DELTA_B: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"lo"}]},"timestamp_ms":2}"#;
    const SEG_FLUSH: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]},"model_call_id":"m1","timestamp_ms":3}"#;
    const FINAL_HELLO: &str =
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]}}"#;
    const TOOL: &str = r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{}}"#;
    const DELTA_C: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":" world"}]},"timestamp_ms":4}"#;
    const FINAL_WORLD: &str =
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":" world"}]}}"#;

    fn lines(ls: &[&str]) -> String {
        ls.iter().map(|l| format!("{l}\n")).collect()
    }

    #[test]
    fn partial_mode_writes_each_segment_once() {
        let input = lines(&[DELTA_A, DELTA_B, SEG_FLUSH, TOOL, DELTA_C, FINAL_WORLD]);
        assert_eq!(text(&input), "Hello world");
    }

    #[test]
    fn non_partial_mode_keeps_the_only_copies() {
        let input = lines(&[SEG_FLUSH, TOOL, FINAL_WORLD]);
        assert_eq!(text(&input), "Hello world");
    }

    #[test]
    fn flush_after_partial_deltas_adds_the_missing_rest() {
        let input = lines(&[DELTA_A, SEG_FLUSH]);
        assert_eq!(text(&input), "Hello");
    }

    #[test]
    fn final_flush_repeating_a_segment_flush_is_skipped() {
        let input = lines(&[SEG_FLUSH, FINAL_HELLO]);
        assert_eq!(text(&input), "Hello");
    }

    #[test]
    fn whole_segment_copy_dressed_as_delta_is_skipped() {
        let copy = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]},"timestamp_ms":9}"#;
        let input = lines(&[DELTA_A, DELTA_B, copy]);
        assert_eq!(text(&input), "Hello");
    }

    #[test]
    fn repeated_single_delta_is_real_text() {
        let nl = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"\n"}]},"timestamp_ms":1}"#;
        let input = lines(&[nl, nl]);
        assert_eq!(text(&input), "\n\n");
    }

    #[test]
    fn docs_style_deltas_without_fields_are_concatenated() {
        let a = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"I "}]}}"#;
        let b = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"read it"}]}}"#;
        let input = lines(&[a, b, TOOL, FINAL_WORLD]);
        assert_eq!(text(&input), "I read it world");
    }

    #[test]
    fn separator_goes_between_segments_only() {
        let input = lines(&[
            DELTA_A,
            DELTA_B,
            SEG_FLUSH,
            TOOL,
            TOOL,
            DELTA_C,
            FINAL_WORLD,
        ]);
        let opts = TextOptions {
            separator: Some(b"\n--\n".to_vec()),
            thinking: false,
        };
        assert_eq!(run(&input, opts).0, "Hello\n--\n world");
    }

    #[test]
    fn result_mismatch_is_reported() {
        let res = r#"{"type":"result","subtype":"success","is_error":false,"result":"Goodbye"}"#;
        let (out, err, status) = run(&lines(&[SEG_FLUSH, res]), TextOptions::default());
        assert_eq!(out, "Hello");
        assert!(
            err.contains("differs from the result event's text"),
            "{err}"
        );
        assert_eq!(status, ExitStatus::Success);
    }

    #[test]
    fn result_alone_prints_its_text() {
        let res = r#"{"type":"result","subtype":"success","is_error":false,"result":"Only this"}"#;
        assert_eq!(text(&lines(&[res])), "Only this");
    }

    #[test]
    fn runs_are_separated_by_a_newline() {
        let res = r#"{"type":"result","subtype":"success","is_error":false,"result":"Hello"}"#;
        let init = r#"{"type":"system","subtype":"init","session_id":"s2"}"#;
        let input = lines(&[SEG_FLUSH, res, init, SEG_FLUSH, res]);
        let (out, err, status) = run(&input, TextOptions::default());
        assert_eq!(out, "Hello\nHello");
        assert_eq!(err, "");
        assert_eq!(status, ExitStatus::Success);
    }

    #[test]
    fn thinking_goes_to_stderr_apart_from_the_answer() {
        let t1 = r#"{"type":"thinking","subtype":"delta","text":"Let me ","timestamp_ms":1}"#;
        let t2 = r#"{"type":"thinking","subtype":"delta","text":"think.","timestamp_ms":1}"#;
        let tc = r#"{"type":"thinking","subtype":"completed","timestamp_ms":1}"#;
        let input = lines(&[t1, t2, tc, SEG_FLUSH]);
        let (out, err, _) = run(
            &input,
            TextOptions {
                separator: None,
                thinking: true,
            },
        );
        assert_eq!(out, "Hello");
        assert!(err.starts_with("[thinking] Let me think.\n"), "{err}");
        let (out, err, _) = run(&input, TextOptions::default());
        assert_eq!(out, "Hello");
        assert!(!err.contains("think"), "{err}");
    }
}

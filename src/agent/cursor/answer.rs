//! Rebuilding the assistant's answer from `assistant` events, each piece exactly once.
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
//!   a prefix of it, the rest is added; if it does not start with what they gave, it is
//!   added whole: no text is lost, and the check against `result` will tell);
//! - a flush with no deltas before it is the only copy and is added;
//! - a final flush right after a segment flush with the same text is a repeat;
//! - a delta that equals the whole segment built from two or more deltas is a copy of the
//!   segment dressed as a delta (seen in a forum report) and is skipped. A single delta
//!   repeated (`"\n"`, `"\n"`) is real text and is kept.
//!
//! The docs' own examples have deltas with neither field; each then counts as a flush with
//! no deltas before it, which is added: the docs' concatenation.
//!
//! The dispatcher checks what was added against the run's `result` (see `dispatch`).

use super::wire;
use crate::agent::digest::Digest;

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

pub(crate) struct Answer {
    segment: Segment,
    /// The current segment's text as a length and a hash, for recognising repeats with
    /// memory that does not grow with the segment (a stream of deltas may never flush).
    seg: Digest,
    seg_deltas: u32,
    /// The text of the event being read; the new part is a range of it.
    scratch: Vec<u8>,
}

impl Default for Answer {
    fn default() -> Self {
        Answer {
            segment: Segment::Fresh,
            seg: Digest::default(),
            seg_deltas: 0,
            scratch: Vec::new(),
        }
    }
}

impl Answer {
    /// Reads an `assistant` event and returns the text it adds to the answer (often none).
    pub(super) fn assistant(&mut self, line: &[u8]) -> Result<&[u8], serde_json::Error> {
        self.scratch.clear();
        let meta = wire::read_assistant(line, &mut self.scratch)?;
        let new = if meta.has_model_call_id || !meta.has_timestamp {
            self.flush_form(meta.has_model_call_id)
        } else {
            self.delta()
        };
        Ok(&self.scratch[new..])
    }

    /// A tool call: the segment ends.
    pub(super) fn tool_call(&mut self) {
        self.begin_segment(Segment::Fresh);
    }

    /// A new run begins.
    pub(super) fn reset(&mut self) {
        self.begin_segment(Segment::Fresh);
    }

    /// Returns where the new text starts in `scratch`.
    fn delta(&mut self) -> usize {
        if self.segment != Segment::Deltas {
            self.begin_segment(Segment::Deltas);
        }
        if self.seg_deltas >= 2 && self.seg.matches(&self.scratch) {
            return self.scratch.len();
        }
        self.seg.add(&self.scratch);
        self.seg_deltas += 1;
        0
    }

    fn flush_form(&mut self, segment_flush: bool) -> usize {
        let text = &self.scratch;
        let new = match self.segment {
            // The length fits: the text it is a prefix of is in memory.
            Segment::Deltas if self.seg.is_prefix_of(text) => self.seg.len as usize,
            Segment::Flushed if self.seg.matches(text) => text.len(),
            _ => 0,
        };
        if segment_flush {
            self.begin_segment(Segment::Flushed);
            self.seg.add(&self.scratch);
        } else {
            self.begin_segment(Segment::Fresh);
        }
        new
    }

    fn begin_segment(&mut self, segment: Segment) {
        self.segment = segment;
        self.seg.clear();
        self.seg_deltas = 0;
    }
}

#[cfg(test)]
pub(crate) mod samples {
    //! Assistant events in each form, for tests here and in the views.
    pub(crate) const DELTA_A: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hel"}]},"timestamp_ms":1}"#;
    pub(crate) const DELTA_B: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"lo"}]},"timestamp_ms":2}"#;
    pub(crate) const SEG_FLUSH: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]},"model_call_id":"m1","timestamp_ms":3}"#;
    pub(crate) const FINAL_HELLO: &str =
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]}}"#;
    pub(crate) const DELTA_C: &str = r#"{"type":"assistant","message":{"content":[{"type":"text","text":" world"}]},"timestamp_ms":4}"#;
    pub(crate) const FINAL_WORLD: &str =
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":" world"}]}}"#;
}

#[cfg(test)]
mod tests {
    use super::samples::*;
    use super::*;

    const TOOL: &str = "tool";

    fn rebuild(events: &[&str]) -> String {
        let mut answer = Answer::default();
        let mut out = Vec::new();
        for ev in events {
            if *ev == TOOL {
                answer.tool_call();
            } else {
                out.extend_from_slice(answer.assistant(ev.as_bytes()).unwrap());
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn partial_mode_adds_each_segment_once() {
        assert_eq!(
            rebuild(&[DELTA_A, DELTA_B, SEG_FLUSH, TOOL, DELTA_C, FINAL_WORLD]),
            "Hello world"
        );
    }

    #[test]
    fn non_partial_mode_keeps_the_only_copies() {
        assert_eq!(rebuild(&[SEG_FLUSH, TOOL, FINAL_WORLD]), "Hello world");
    }

    #[test]
    fn flush_after_partial_deltas_adds_the_missing_rest() {
        assert_eq!(rebuild(&[DELTA_A, SEG_FLUSH]), "Hello");
    }

    #[test]
    fn flush_that_disagrees_with_the_deltas_is_not_lost() {
        let other = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Bye"}]},"model_call_id":"m1","timestamp_ms":3}"#;
        assert_eq!(rebuild(&[DELTA_A, other]), "HelBye");
    }

    #[test]
    fn final_flush_repeating_a_segment_flush_is_skipped() {
        assert_eq!(rebuild(&[SEG_FLUSH, FINAL_HELLO]), "Hello");
    }

    #[test]
    fn whole_segment_copy_dressed_as_delta_is_skipped() {
        let copy = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hello"}]},"timestamp_ms":9}"#;
        assert_eq!(rebuild(&[DELTA_A, DELTA_B, copy]), "Hello");
    }

    #[test]
    fn repeated_single_delta_is_real_text() {
        let nl = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"\n"}]},"timestamp_ms":1}"#;
        assert_eq!(rebuild(&[nl, nl]), "\n\n");
    }

    #[test]
    fn docs_style_deltas_without_fields_are_concatenated() {
        let a = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"I "}]}}"#;
        let b = r#"{"type":"assistant","message":{"content":[{"type":"text","text":"read it"}]}}"#;
        assert_eq!(rebuild(&[a, b, TOOL, FINAL_WORLD]), "I read it world");
    }
}

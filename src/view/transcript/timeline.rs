//! Where things go on a run's timeline: each tool call a bar from its start to its end,
//! parallel calls in lanes side by side, reasoning and answer phases marked.
//!
//! The axis is time when the agent dates its tool calls (Cursor, Claude, Gemini, OpenCode
//! do, in most versions): events between dated ones are placed by interpolation, as they
//! came between them. Otherwise the axis is the stream's order of events, which shows the
//! same overlaps without claiming durations.

use super::{Item, Run};

/// Lanes past this many share the last one.
const MAX_LANES: usize = 12;

pub(crate) struct Timeline {
    /// The run's length in milliseconds, when the axis is time.
    pub millis: Option<u64>,
    /// Reasoning and answer phases.
    pub marks: Vec<Mark>,
    pub bars: Vec<Bar>,
    pub lanes: usize,
}

pub(crate) struct Mark {
    pub thinking: bool,
    /// Where it starts and how long it is, as fractions of the axis.
    pub left: f64,
    pub width: f64,
}

pub(crate) struct Bar {
    /// An index into [`Run::calls`].
    pub call: usize,
    pub lane: usize,
    pub left: f64,
    pub width: f64,
}

/// The moments (event ticks) whose time is known, in order, times never going back.
///
/// When the run's duration is known and longer than the dated stretch, the time left is
/// shared between before the first dated event and after the last one, in proportion to
/// the events there (reasoning before the first call, the answer after the last): an
/// estimate, but one that keeps those phases visible and the axis as long as the run.
fn anchors(run: &Run) -> Vec<(u64, u64)> {
    let mut known: Vec<(u64, u64)> = Vec::new();
    for call in &run.calls {
        known.extend(call.at_ms.map(|t| (call.start, t)));
        known.extend(call.ended_ms.map(|t| (call.end, t)));
    }
    known.sort_unstable();
    let mut latest = 0;
    for (_, t) in &mut known {
        latest = latest.max(*t);
        *t = latest;
    }
    let duration = run.end.as_ref().and_then(|e| e.duration_ms);
    if let (Some(&(m0, t0)), Some(&(m1, t1)), Some(d)) = (known.first(), known.last(), duration) {
        let extra = d.saturating_sub(t1 - t0);
        let before = m0;
        let after = (run.clock + 1).saturating_sub(m1);
        if extra > 0 && before + after > 0 {
            let pre = extra * before / (before + after);
            known.insert(0, (0, t0.saturating_sub(pre)));
            known.push((run.clock + 1, t1 + (extra - pre)));
        }
    }
    known
}

/// The time of moment `m` from the anchors around it.
fn time_at(anchors: &[(u64, u64)], m: u64) -> f64 {
    let i = anchors.partition_point(|&(a, _)| a <= m);
    match (i.checked_sub(1).map(|j| anchors[j]), anchors.get(i)) {
        (Some((m0, t0)), Some(&(m1, t1))) if m1 > m0 => {
            t0 as f64 + (t1 as f64 - t0 as f64) * (m - m0) as f64 / (m1 - m0) as f64
        }
        (Some((_, t0)), _) => t0 as f64,
        (None, Some(&(_, t1))) => t1 as f64,
        (None, None) => m as f64,
    }
}

pub(crate) fn layout(run: &Run) -> Timeline {
    let anchors = anchors(run);
    let dated = anchors.len() >= 2 && anchors.last().map(|a| a.1) > anchors.first().map(|a| a.1);
    let at = |m: u64| -> f64 {
        if dated {
            time_at(&anchors, m)
        } else {
            m as f64
        }
    };
    let (t0, t1) = if dated {
        (anchors[0].1 as f64, anchors[anchors.len() - 1].1 as f64)
    } else {
        (0.0, run.clock.max(1) as f64)
    };
    let span = (t1 - t0).max(1.0);
    let place = |start: u64, end: u64| -> (f64, f64) {
        let left = ((at(start) - t0) / span).clamp(0.0, 1.0);
        let right = ((at(end) - t0) / span).clamp(left, 1.0);
        (left, right - left)
    };

    let marks = run
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Answer(p) => Some((false, p)),
            Item::Thinking(p) => Some((true, p)),
            _ => None,
        })
        .map(|(thinking, p)| {
            let (left, width) = place(p.start.saturating_sub(1), p.end);
            Mark {
                thinking,
                left,
                width,
            }
        })
        .collect();

    let mut order: Vec<usize> = (0..run.calls.len()).collect();
    order.sort_by_key(|&i| (run.calls[i].start, i));
    let mut lane_ends: Vec<f64> = Vec::new();
    let mut bars = Vec::with_capacity(order.len());
    for i in order {
        let call = &run.calls[i];
        let (left, width) = place(call.start, call.end.max(call.start));
        let lane = match lane_ends.iter().position(|&end| end <= left) {
            Some(lane) => lane,
            None if lane_ends.len() < MAX_LANES => {
                lane_ends.push(0.0);
                lane_ends.len() - 1
            }
            None => MAX_LANES - 1,
        };
        lane_ends[lane] = lane_ends[lane].max(left + width);
        bars.push(Bar {
            call: i,
            lane,
            left,
            width,
        });
    }
    Timeline {
        millis: dated.then_some((t1 - t0) as u64),
        marks,
        bars,
        lanes: lane_ends.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_between_dated_moments() {
        let anchors = [(2, 1000), (6, 3000)];
        assert_eq!(time_at(&anchors, 4), 2000.0);
        assert_eq!(time_at(&anchors, 1), 1000.0);
        assert_eq!(time_at(&anchors, 9), 3000.0);
    }
}

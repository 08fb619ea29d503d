//! The rate limits a rollout's `token_count` carries, `payload.rate_limits`, shape by shape:
//!
//! | versions | shape | real file (`tests/fixtures/history/codex/`) |
//! |---|---|---|
//! | 0.36 | none | `0.36-resume-replay` |
//! | 0.40 | flat: `{"primary_used_percent":1.0,"secondary_used_percent":0.0,"primary_window_minutes":299,"secondary_window_minutes":10079}`, no reset time | `0.40-vscode-aborted` |
//! | between 0.40 and 0.58 | `{"primary":{"used_percent":…,"window_minutes":300,"resets_in_seconds":…},…}`: the reset counted from the line's time | none found; peers' parsers read it ("older builds send how long, not when") |
//! | ≤ 0.58 on | `{"primary":{"used_percent":58.0,"window_minutes":300,"resets_at":1763422724},"secondary":{…}}` (epoch seconds) | `0.58-token-info-null` |
//! | 0.117 on | the same with `limit_id`, `credits`, `plan_type`; a plan with a weekly window only has it as `primary` (`window_minutes` 10080) and `secondary: null`; `primary: null` with no limit at all | `0.117-archived-task-events`, `0.145-exec-command-compacted` |
//!
//! The window is told by its length (`window_minutes`, 299 or 300 the five hours, 10079 or
//! 10080 the seven days), not by its place; a window that is `null`, or of another length, is
//! no record.

use serde::Deserialize;
use serde_json::value::RawValue;

use crate::agent::event::{Limit, LimitWindow};
use crate::input::lenient::{Num, Object};

#[derive(Deserialize, Default)]
#[serde(default)]
struct RateLimits {
    primary: Object<Window>,
    secondary: Object<Window>,
    primary_used_percent: Num,
    secondary_used_percent: Num,
    primary_window_minutes: Num,
    secondary_window_minutes: Num,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Window {
    used_percent: Num,
    window_minutes: Num,
    resets_at: Num,
    resets_in_seconds: Num,
}

/// The limits recorded in `rate_limits` at `at_ms` (the line's time).
pub(super) fn limits(rate_limits: &RawValue, at_ms: Option<u64>) -> Vec<Limit<'static>> {
    let Ok(r) = crate::input::json::from_str::<RateLimits>(rate_limits.get()) else {
        return Vec::new();
    };
    let limit = |minutes: Num, used: Num, resets_ms: Option<i64>| {
        Some(Limit {
            window: LimitWindow::of_minutes(minutes.0?)?,
            used_percent: used.0,
            resets_ms,
            status: None,
            at_ms,
            source: "rate_limits",
        })
    };
    let nested = |w: Window| {
        let resets = w
            .resets_at
            .as_i64()
            .map(|s| s.saturating_mul(1000))
            .or_else(|| {
                let at = i64::try_from(at_ms?).ok()?;
                Some(at.saturating_add(w.resets_in_seconds.as_i64()?.saturating_mul(1000)))
            });
        limit(w.window_minutes, w.used_percent, resets)
    };
    let mut out = Vec::new();
    out.extend(r.primary.0.and_then(nested));
    out.extend(r.secondary.0.and_then(nested));
    out.extend(limit(
        r.primary_window_minutes,
        r.primary_used_percent,
        None,
    ));
    out.extend(limit(
        r.secondary_window_minutes,
        r.secondary_used_percent,
        None,
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str, at_ms: Option<u64>) -> Vec<(LimitWindow, Option<f64>, Option<i64>)> {
        let raw: Box<RawValue> = serde_json::from_str(json).unwrap();
        limits(&raw, at_ms)
            .into_iter()
            .map(|l| (l.window, l.used_percent, l.resets_ms))
            .collect()
    }

    #[test]
    fn every_shape_codex_wrote_is_read_by_the_windows_length() {
        use LimitWindow::{FiveHour, SevenDay};
        // 0.6x on (real lines of tests/fixtures/history/codex).
        assert_eq!(
            read(
                r#"{"primary":{"used_percent":58.0,"window_minutes":300,"resets_at":1763422724},"secondary":{"used_percent":42.0,"window_minutes":10080,"resets_at":1763910108}}"#,
                None
            ),
            vec![
                (FiveHour, Some(58.0), Some(1_763_422_724_000)),
                (SevenDay, Some(42.0), Some(1_763_910_108_000))
            ]
        );
        // A weekly window only, as `primary`; `secondary: null` is no record.
        assert_eq!(
            read(
                r#"{"limit_id":"codex","primary":{"used_percent":11.0,"window_minutes":10080,"resets_at":1785620361},"secondary":null,"credits":null}"#,
                None
            ),
            vec![(SevenDay, Some(11.0), Some(1_785_620_361_000))]
        );
        // The flat shape, with no reset time; the reset in seconds from the line's time.
        assert_eq!(
            read(
                r#"{"primary_used_percent":1.0,"secondary_used_percent":0.0,"primary_window_minutes":299,"secondary_window_minutes":10079}"#,
                None
            ),
            vec![(FiveHour, Some(1.0), None), (SevenDay, Some(0.0), None)]
        );
        assert_eq!(
            read(
                r#"{"primary":{"used_percent":5.0,"window_minutes":300,"resets_in_seconds":60}}"#,
                Some(1_000_000)
            ),
            vec![(FiveHour, Some(5.0), Some(1_060_000))]
        );
        assert_eq!(read(r#"{"primary":null,"secondary":null}"#, None), vec![]);
        assert_eq!(read(r#""not limits""#, None), vec![]);
    }
}

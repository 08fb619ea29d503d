//! `--since` and `--until`: a time ago (`2d`, `12h`, `1w`), a day (`2026-11-20`, local
//! time), or a moment (`2026-11-20T14:00`, `2026-11-20T14:00:00Z`).

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan, Zoned};

/// Which end of a window a value gives: a day given as `--until` includes the whole day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Since,
    Until,
}

/// The moment `text` names, in epoch milliseconds, in the time zone `tz`.
pub(crate) fn parse(text: &str, end: End, tz: &TimeZone) -> Result<i64, String> {
    parse_at(text, end, tz, Timestamp::now())
}

fn parse_at(text: &str, end: End, tz: &TimeZone, now: Timestamp) -> Result<i64, String> {
    let text = text.trim();
    let bad = || {
        format!(
            "`{text}` is not a time: use a time ago (2d, 12h, 1w), a day (2026-11-20) or a \
             moment (2026-11-20T14:00)"
        )
    };
    if let Ok(ago) = humantime::parse_duration(text) {
        let ago = i64::try_from(ago.as_millis()).map_err(|_| bad())?;
        return Ok(now.as_millisecond().saturating_sub(ago));
    }
    if let Ok(moment) = text.parse::<Timestamp>() {
        return Ok(moment.as_millisecond());
    }
    if let Ok(moment) = text.parse::<Zoned>() {
        return Ok(moment.timestamp().as_millisecond());
    }
    // A day alone (jiff would also take a moment's day).
    if !text.contains(['T', 't', ' '])
        && let Ok(day) = text.parse::<Date>()
    {
        let day = match end {
            End::Since => day,
            // The whole day: until the next one starts.
            End::Until => day.checked_add(1.day()).map_err(|_| bad())?,
        };
        let start = day.to_zoned(tz.clone()).map_err(|_| bad())?;
        return Ok(start.timestamp().as_millisecond());
    }
    if let Ok(civil) = text.parse::<DateTime>() {
        let zoned = civil.to_zoned(tz.clone()).map_err(|_| bad())?;
        return Ok(zoned.timestamp().as_millisecond());
    }
    Err(bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ago_days_and_moments() {
        let utc = TimeZone::UTC;
        let now: Timestamp = "2026-11-27T12:00:00Z".parse().unwrap();
        let ms = |s: &str| s.parse::<Timestamp>().unwrap().as_millisecond();
        assert_eq!(
            parse_at("2d", End::Since, &utc, now),
            Ok(ms("2026-11-25T12:00:00Z"))
        );
        assert_eq!(
            parse_at("2026-11-20", End::Since, &utc, now),
            Ok(ms("2026-11-20T00:00:00Z"))
        );
        assert_eq!(
            parse_at("2026-11-20", End::Until, &utc, now),
            Ok(ms("2026-11-21T00:00:00Z")),
            "a day given as the end includes all of it"
        );
        assert_eq!(
            parse_at("2026-11-20T14:00:00Z", End::Since, &utc, now),
            Ok(ms("2026-11-20T14:00:00Z"))
        );
        assert_eq!(
            parse_at("2026-11-20T14:00", End::Since, &utc, now),
            Ok(ms("2026-11-20T14:00:00Z"))
        );
        let paris = TimeZone::get("Europe/Paris").unwrap();
        assert_eq!(
            parse_at("2026-11-20", End::Since, &paris, now),
            Ok(ms("2026-11-19T23:00:00Z"))
        );
        assert!(parse_at("yesterday-ish", End::Since, &utc, now).is_err());
    }
}

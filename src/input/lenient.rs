//! Fields read leniently: a value of an unexpected JSON type counts as absent instead of
//! failing the whole event. Real streams change shape between CLI builds; a view that
//! shows a line count should not lose the whole tool call because the count became a
//! string.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A string, or `None` for any other JSON value.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Text(pub Option<String>);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        d.deserialize_any(Lenient(|v: Scalar<'_>| match v {
            Scalar::Str(s) => Text(Some(s.to_owned())),
            _ => Text(None),
        }))
    }
}

/// A number, or a string holding one (`"1784819289745"`); `None` for anything else.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Num(pub Option<f64>);

impl Num {
    pub(crate) fn as_u64(self) -> Option<u64> {
        self.0
            .filter(|n| n.is_finite() && *n >= 0.0 && *n < 1.8e19)
            .map(|n| n as u64)
    }

    pub(crate) fn as_i64(self) -> Option<i64> {
        self.0
            .filter(|n| n.is_finite() && n.abs() < 9.2e18)
            .map(|n| n as i64)
    }
}

impl<'de> Deserialize<'de> for Num {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Num, D::Error> {
        d.deserialize_any(Lenient(|v: Scalar<'_>| match v {
            Scalar::Num(n) => Num(Some(n)),
            Scalar::Str(s) => Num(s.trim().parse().ok()),
            _ => Num(None),
        }))
    }
}

/// A boolean; `None` for anything else.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Flag(pub Option<bool>);

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Flag, D::Error> {
        d.deserialize_any(Lenient(|v: Scalar<'_>| match v {
            Scalar::Bool(b) => Flag(Some(b)),
            _ => Flag(None),
        }))
    }
}

/// An object read as `T`; `None` for any other JSON value, so that a usage block or an
/// error that became a string (or `null`, or a list) loses that field, not the event.
#[derive(Debug, Clone)]
pub(crate) struct Object<T>(pub Option<T>);

impl<T> Default for Object<T> {
    fn default() -> Self {
        Object(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Object<T>, D::Error> {
        use serde::de::DeserializeSeed;
        crate::input::json::ObjectOnly::<T>::new()
            .deserialize(d)
            .map(Object)
    }
}

/// A token count as a log writes it: absent (missing, or null), a count, or a value that
/// is no count (negative, fractional, a string, …): the record holding it is left out of
/// the totals and reported.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenCount {
    #[default]
    Absent,
    Count(u64),
    Bad,
}

impl TokenCount {
    /// The count; 0 when absent or bad.
    pub(crate) fn get(self) -> u64 {
        match self {
            TokenCount::Count(n) => n,
            _ => 0,
        }
    }

    /// The count, when there is one.
    pub(crate) fn as_u64(self) -> Option<u64> {
        match self {
            TokenCount::Count(n) => Some(n),
            _ => None,
        }
    }

    /// Whether any of `counts` is no count.
    pub(crate) fn any_bad(counts: &[TokenCount]) -> bool {
        counts.contains(&TokenCount::Bad)
    }
}

/// The largest token count taken: 2^53, the last integer every JSON reader keeps exact.
const MAX_COUNT: f64 = 9_007_199_254_740_992.0;

impl<'de> Deserialize<'de> for TokenCount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<TokenCount, D::Error> {
        d.deserialize_any(Lenient(|v: Scalar<'_>| match v {
            // Above 2^53 a count is not exact in the number it was read as: no count
            // (nor one that would overflow the sums).
            Scalar::Num(n) if n >= 0.0 && n.fract() == 0.0 && n <= MAX_COUNT => {
                TokenCount::Count(n as u64)
            }
            Scalar::Other => TokenCount::Absent,
            _ => TokenCount::Bad,
        }))
    }
}

/// A count: a number, or the length of an array.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Count(pub Option<u64>);

impl<'de> Deserialize<'de> for Count {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Count, D::Error> {
        d.deserialize_any(Lenient(|v: Scalar<'_>| match v {
            Scalar::Num(n) => Count(Num(Some(n)).as_u64()),
            Scalar::Len(n) => Count(Some(n)),
            _ => Count(None),
        }))
    }
}

/// What a lenient field saw.
pub(crate) enum Scalar<'v> {
    Str(&'v str),
    Num(f64),
    Bool(bool),
    /// An array, with its length.
    Len(u64),
    /// An object or null.
    Other,
}

/// Accepts any JSON value, skipping containers, and maps what it saw with the function.
pub(crate) struct Lenient<F>(F);

impl<'de, T, F: FnOnce(Scalar<'_>) -> T> Visitor<'de> for Lenient<F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        Ok((self.0)(Scalar::Str(v)))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Ok((self.0)(Scalar::Num(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Ok((self.0)(Scalar::Num(v as f64)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        Ok((self.0)(Scalar::Num(v as f64)))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<T, E> {
        Ok((self.0)(Scalar::Bool(v)))
    }
    fn visit_unit<E: de::Error>(self) -> Result<T, E> {
        Ok((self.0)(Scalar::Other))
    }
    fn visit_seq<S: SeqAccess<'de>>(self, mut seq: S) -> Result<T, S::Error> {
        let mut n = 0;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok((self.0)(Scalar::Len(n)))
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<T, M::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok((self.0)(Scalar::Other))
    }
}

//! The native builtins jaq-json gives its `Val`, given for [`Jv`] (jaq-json's are bound to
//! its own type): `fromjson`, `tojson`, `tobytes`, `length`, `contains`, `has`, `indices`,
//! `bsearch`; and `nan` and `infinite`, which jaq-std defines as `0 / 0` and `1 / 0`, an
//! error in jq (and so here). Each as jq does it where jaq-json's differs (said below).

use jaq_core::RunPtr;
use jaq_core::box_iter::box_once;
use jaq_core::native::{Filter, Fun, bome, run, unary, v};
use jaq_json::{Num, Rc, Val};

use super::jv::{Error, Jv, kind, shown};

type D = super::data::Data;
type ValR = Result<Jv, Error>;

/// The builtins, to be chained after jaq-std's natives.
pub(crate) fn funs() -> impl Iterator<Item = Fun<D>> {
    base().into_vec().into_iter().map(run::<D>)
}

fn base() -> Box<[Filter<RunPtr<D>>]> {
    Box::new([
        ("_compat_nan", v(0), |_| box_once(Ok(Jv::from(f64::NAN)))),
        ("_compat_infinite", v(0), |_| {
            box_once(Ok(Jv::from(f64::INFINITY)))
        }),
        ("fromjson", v(0), |cv| bome(fromjson(&cv.1))),
        ("tojson", v(0), |cv| {
            bome(Ok(Jv(Val::from(cv.1.to_string()))))
        }),
        ("tobytes", v(0), |cv| bome(tobytes(cv.1))),
        ("length", v(0), |cv| bome(length(cv.1))),
        ("contains", v(1), |cv| {
            unary(cv, |x, y| Ok(Jv::from(contains(&x.0, &y.0))))
        }),
        ("has", v(1), |cv| {
            unary(cv, |x, k| has(&x.0, &k.0).map(Jv::from))
        }),
        ("indices", v(1), |cv| unary(cv, |x, y| indices(&x.0, &y.0))),
        ("bsearch", v(1), |cv| unary(cv, |a, x| bsearch(a, &x))),
    ])
}

fn msg(text: impl ToString) -> Error {
    Error::str(text)
}

/// jq's `fromjson`: the one JSON value of a string. jaq-json's gives every value of the
/// string (`"1 2"` gives 1 and 2); jq's is an error, as for no value.
fn fromjson(v: &Jv) -> ValR {
    let (Val::TStr(s) | Val::BStr(s)) = &v.0 else {
        return Err(msg(format!(
            "{} ({}) cannot be parsed as JSON",
            kind(&v.0),
            shown(&v.0)
        )));
    };
    let fail = |why: &str| {
        msg(format!(
            "{why} (while parsing '{}')",
            String::from_utf8_lossy(s)
        ))
    };
    // jq reads NaN, which jaq's reader does not (as a whole text only, here).
    if matches!(s.trim_ascii(), b"nan" | b"-nan" | b"NaN" | b"-NaN") {
        return Ok(Jv::from(f64::NAN));
    }
    let mut values = super::values(&s[..]).map_err(|e| fail(&e))?;
    match (values.next(), values.next()) {
        (Some(Ok(one)), None) => Ok(Jv(one)),
        (None, _) => Err(fail("Expected JSON value")),
        (Some(Ok(_)), Some(_)) => Err(fail("Unexpected extra JSON values")),
        (Some(Err(e)), _) => Err(fail(&e)),
    }
}

fn tobytes(v: Jv) -> ValR {
    fn bytes(v: &Val, out: &mut Vec<u8>) -> bool {
        match v {
            Val::Num(_) => match jaq_std::ValT::as_isize(v).and_then(|i| u8::try_from(i).ok()) {
                Some(b) => out.push(b),
                None => return false,
            },
            Val::BStr(b) | Val::TStr(b) => out.extend_from_slice(b),
            Val::Arr(a) => return a.iter().all(|x| bytes(x, out)),
            _ => return false,
        }
        true
    }
    let mut out = Vec::new();
    if bytes(&v.0, &mut out) {
        Ok(Jv(Val::byte_str(out)))
    } else {
        Err(msg(format!("cannot convert {v} to bytes")))
    }
}

/// jq's `length`: 0 for null, the absolute value of a number, the characters of a string,
/// the members of an array or object; an error for a boolean.
fn length(v: Jv) -> ValR {
    match &v.0 {
        Val::Null => Ok(Jv::from(0usize)),
        Val::Bool(_) => Err(msg(format!(
            "{} ({}) has no length",
            kind(&v.0),
            shown(&v.0)
        ))),
        Val::Num(Num::Int(i)) => Ok(Jv(Val::Num(Num::from_integral(i.unsigned_abs())))),
        Val::Num(_) => {
            if v < Jv::from(0isize) {
                -v
            } else {
                Ok(v)
            }
        }
        Val::TStr(s) => Ok(Jv::from(match std::str::from_utf8(s) {
            Ok(s) => s.chars().count(),
            Err(_) => String::from_utf8_lossy(s).chars().count(),
        })),
        Val::BStr(b) => Ok(Jv::from(b.len())),
        Val::Arr(a) => Ok(Jv::from(a.len())),
        Val::Obj(o) => Ok(Jv::from(o.len())),
    }
}

/// `a` contains `b`: a substring, every element of `b` in some element of `a`, every
/// member of `b` in `a`'s member of that key; else equal.
fn contains(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::BStr(l) | Val::TStr(l), Val::BStr(r) | Val::TStr(r)) => {
            memchr::memmem::find(l, r).is_some()
        }
        (Val::Arr(l), Val::Arr(r)) => r.iter().all(|r| l.iter().any(|l| contains(l, r))),
        (Val::Obj(l), Val::Obj(r)) => r
            .iter()
            .all(|(k, r)| l.get(k).is_some_and(|l| contains(l, r))),
        _ => a == b,
    }
}

/// jq's `has`: a key of an object, an index of an array; an error for anything else.
fn has(v: &Val, k: &Val) -> Result<bool, Error> {
    match (v, k) {
        (Val::Obj(o), Val::TStr(_) | Val::BStr(_)) => Ok(o.contains_key(k)),
        // The index cut towards zero, as jq's `(int)`.
        (Val::Arr(a), Val::Num(_)) => {
            Ok(jaq_std::ValT::as_f64(k).is_some_and(|i| i > -1.0 && (i as usize) < a.len()))
        }
        _ => Err(msg(format!(
            "Cannot check whether {} has a {} key",
            kind(v),
            kind(k)
        ))),
    }
}

/// Where `y` occurs in `x`: a substring (by characters), a sub-array, an element.
fn indices(x: &Val, y: &Val) -> ValR {
    let at = |i: usize| Val::from(i);
    let found: Vec<Val> = match (x, y) {
        (Val::TStr(_), Val::TStr(y)) | (Val::BStr(_), Val::BStr(y)) if y.is_empty() => Vec::new(),
        (Val::TStr(x), Val::TStr(y)) => {
            let text = String::from_utf8_lossy(x);
            let y = String::from_utf8_lossy(y);
            text.char_indices()
                .enumerate()
                .filter(|(_, (b, _))| text[*b..].starts_with(&*y))
                .map(|(i, _)| at(i))
                .collect()
        }
        (Val::BStr(x), Val::BStr(y)) => (0..x.len())
            .filter(|&i| x[i..].starts_with(y))
            .map(at)
            .collect(),
        (Val::Arr(_), Val::Arr(y)) if y.is_empty() => Vec::new(),
        (Val::Arr(x), Val::Arr(y)) => x
            .windows(y.len())
            .enumerate()
            .filter(|(_, w)| *w == &y[..])
            .map(|(i, _)| at(i))
            .collect(),
        (Val::Arr(x), y) => x
            .iter()
            .enumerate()
            .filter(|(_, e)| *e == y)
            .map(|(i, _)| at(i))
            .collect(),
        // jq's `indices` is `.[$i]` on anything else (`{} | indices("a")` is null).
        (x, y) => return jaq_core::ValT::index(Jv(x.clone()), &Jv(y.clone())),
    };
    Ok(Jv(Val::Arr(Rc::new(found))))
}

/// Where `x` is in the sorted array `a`, or `-1 - ` where it would go.
fn bsearch(a: Jv, x: &Jv) -> ValR {
    let Val::Arr(items) = &a.0 else {
        return Err(msg(format!(
            "{} ({}) cannot be searched from",
            kind(&a.0),
            shown(&a.0)
        )));
    };
    let i = match items.binary_search(&x.0) {
        Ok(i) => i as isize,
        Err(i) => -1 - i as isize,
    };
    Ok(Jv::from(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Val {
        Val::from(text.to_string())
    }

    #[test]
    fn fromjson_reads_one_value() {
        assert_eq!(fromjson(&Jv(s(" [1, 2] "))).unwrap().to_string(), "[1,2]");
        for (text, error) in [
            ("1 2", "Unexpected extra JSON values (while parsing '1 2')"),
            ("", "Expected JSON value (while parsing '')"),
        ] {
            let e = fromjson(&Jv(s(text))).unwrap_err();
            assert_eq!(e.into_val().0, s(error));
        }
        assert!(fromjson(&Jv(s("{"))).is_err());
    }

    #[test]
    fn length_and_indices_count_characters() {
        assert_eq!(length(Jv(s("aé😀"))).unwrap(), Jv::from(3usize));
        assert_eq!(length(Jv::from(-2.5)).unwrap(), Jv::from(2.5));
        assert_eq!(
            length(Jv::from(isize::MIN)).unwrap().to_string(),
            "9223372036854775808"
        );
        assert!(length(Jv::from(true)).is_err());
        let found = indices(&s("aéa,éa"), &s("éa")).unwrap();
        assert_eq!(found.to_string(), "[1,4]");
    }
}

//! jq compatibility for `get`: definitions (compat.jq) and native filters that
//! make jaq (jaq-core 3.1 / jaq-std 3.0 / jaq-json 2.0) behave like jq where
//! jq's test suite or manual relies on it.
//!
//! Wire them in *after* jaq's own, so that they shadow jaq's definitions:
//! `Loader::new(jaq_core::defs().chain(jaq_std::defs()).chain(jaq_json::defs()).chain(compat::defs()))`
//! and `Compiler::default().with_funs(jaq_core::funs().chain(jaq_std::funs()).chain(jaq_json::funs()).chain(compat::funs()))`.
//! (In jaq a later definition shadows an earlier one of the same name/arity, and any
//! definition shadows a native filter; so the natives here have `_compat_` names and
//! compat.jq defines the public names on top of them.)
//!
//! Native filters (all total: errors are jq errors, never panics):
//! - `_compat_setpath($path; $v)`: jq's `setpath`: pads arrays with null, creates
//!   objects/arrays from null, slice keys (`{"start","end"}`) splice, negative indices
//!   count from the end; jq's error messages. Iterative, so deep paths cannot overflow.
//! - `_compat_delpaths($paths)`: jq's `delpaths`: paths sorted, out-of-range indices
//!   ignored, slices deleted, null subvalues skipped; jq's error messages.
//! - `_compat_base32`, `_compat_base32d`: RFC 4648 base32 of a string's UTF-8 bytes and back.
//! - `_compat_base64d`: jq's `@base64d`: padding optional, decoding stops at `=`.
//! - `_compat_implode`: jq 1.8's `implode`: a code point that is none is U+FFFD.
//! - `_compat_tonumber`: jq 1.8's `tonumber`: a string that is a number and nothing else.

use jaq_core::RunPtr;
use jaq_core::load::{self, parse::Def};
use jaq_core::native::{Filter, Fun, bome, run, v};
use jaq_json::{Map, Num, Rc, Val};
use jaq_std::ValT as _;

use super::jv::{Error, Jv, kind, shown, slice_bounds};

/// Definitions of compat.jq, to be chained after jaq's std and json definitions.
pub(crate) fn defs() -> impl Iterator<Item = Def<&'static str>> {
    // compat.jq is a constant; the test below makes sure it parses.
    load::parse(include_str!("compat.jq"), |p| p.defs())
        .unwrap_or_default()
        .into_iter()
}

/// Native filters that cannot be written in jq on top of jaq (see the module docs).
pub(crate) fn funs() -> impl Iterator<Item = Fun<D>> {
    base().into_vec().into_iter().map(|f| run::<D>(f))
}

/// The data that `get` runs filters on.
type D = super::data::Data;

fn base() -> Box<[Filter<RunPtr<D>>]> {
    Box::new([
        ("_compat_setpath", v(2), |mut cv| {
            let x = cv.0.pop_var();
            let path = cv.0.pop_var();
            bome(setpath(cv.1.0, &path.0, x.0).map(Jv))
        }),
        ("_compat_delpaths", v(1), |mut cv| {
            let paths = cv.0.pop_var();
            bome(delpaths(cv.1.0, paths.0).map(Jv))
        }),
        ("_compat_csv", v(0), |cv| {
            bome(row(&cv.1.0, Row::Csv).map(Jv))
        }),
        ("_compat_tsv", v(0), |cv| {
            bome(row(&cv.1.0, Row::Tsv).map(Jv))
        }),
        ("_compat_base32", v(0), |cv| {
            bome(str_bytes(&cv.1.0, "base32").map(|b| Jv(Val::utf8_str(base32_encode(&b)))))
        }),
        ("_compat_base32d", v(0), |cv| {
            bome(str_bytes(&cv.1.0, "base32").and_then(|b| {
                base32_decode(&b)
                    .map(|b| Jv(Val::utf8_str(b)))
                    .ok_or_else(|| err(format!("{} is not valid base32 data", cv.1)))
            }))
        }),
        ("_compat_base64d", v(0), |cv| {
            bome(base64_decode(&cv.1.0).map(Jv))
        }),
        ("_compat_implode", v(0), |cv| bome(implode(&cv.1.0).map(Jv))),
        ("_compat_tonumber", v(0), |cv| {
            bome(tonumber(cv.1.0).map(Jv))
        }),
    ])
}

type ValR = Result<Val, Error>;

#[derive(Clone, Copy)]
enum Row {
    Csv,
    Tsv,
}

/// jq's `@csv` and `@tsv`: an array of scalars as one row. Native because a definition in
/// jq (split and join per cell) ran `@tsv` over a large log six times slower than jaq.
fn row(v: &Val, how: Row) -> ValR {
    let name = match how {
        Row::Csv => "csv",
        Row::Tsv => "tsv",
    };
    let Val::Arr(cells) = v else {
        return Err(err(format!(
            "{} ({}) cannot be {name}-formatted, only an array can be",
            kind(v),
            shown(v)
        )));
    };
    let mut out: Vec<u8> = Vec::new();
    for (i, cell) in cells.iter().enumerate() {
        if i > 0 {
            out.push(match how {
                Row::Csv => b',',
                Row::Tsv => b'\t',
            });
        }
        match cell {
            // jq writes NaN as nothing.
            Val::Null => {}
            Val::Num(_) if cell.as_f64().is_some_and(f64::is_nan) => {}
            Val::Bool(_) | Val::Num(_) => {
                out.extend_from_slice(Jv(cell.clone()).to_string().as_bytes())
            }
            Val::TStr(s) | Val::BStr(s) => match how {
                Row::Csv => {
                    out.push(b'"');
                    for &b in s.iter() {
                        if b == b'"' {
                            out.push(b'"');
                        }
                        out.push(b);
                    }
                    out.push(b'"');
                }
                Row::Tsv => {
                    for &b in s.iter() {
                        match b {
                            b'\\' => out.extend_from_slice(b"\\\\"),
                            b'\t' => out.extend_from_slice(b"\\t"),
                            b'\n' => out.extend_from_slice(b"\\n"),
                            b'\r' => out.extend_from_slice(b"\\r"),
                            _ => out.push(b),
                        }
                    }
                }
            },
            _ => {
                return Err(err(format!(
                    "{} ({}) is not valid in a {name} row",
                    kind(cell),
                    shown(cell)
                )));
            }
        }
    }
    Ok(Val::utf8_str(out))
}

fn err(msg: impl ToString) -> Error {
    Error::str(msg)
}

fn str_bytes(v: &Val, what: &str) -> Result<Vec<u8>, Error> {
    match v {
        Val::BStr(b) | Val::TStr(b) => Ok(b.to_vec()),
        _ => Err(err(format!(
            "{} ({}) cannot be {what}-encoded",
            kind(v),
            shown(v)
        ))),
    }
}

/// A number as a jq array index: truncated towards zero, saturating; NaN is none.
fn num_index(k: &Val) -> Option<isize> {
    k.as_f64().filter(|f| !f.is_nan()).map(|f| f as isize)
}

/// The bounds of the slice key `{"start": s, "end": e}` in an array of length `len`.
fn bounds(k: &Map<Val, Val>, len: usize) -> Result<(usize, usize), Error> {
    let get = |name: &str| k.get(&Val::utf8_str(name.as_bytes().to_vec()));
    slice_bounds(get("start"), get("end"), len)
}

/// jq's `@base64d` (1.7, 1.8): the base64 alphabet up to the first `=` (padding is
/// optional), each four characters three bytes, two or three left one or two; the bytes a
/// string, an invalid UTF-8 sequence as U+FFFD (jaq's refuses unpadded text).
fn base64_decode(v: &Val) -> ValR {
    let text = match v {
        Val::TStr(b) | Val::BStr(b) => b.to_vec(),
        v => Jv(v.clone()).to_string().into_bytes(),
    };
    let invalid = |why: &str| {
        let shown = shown(&Val::utf8_str(text.clone()));
        err(format!("string ({shown}) {why}"))
    };
    let (mut out, mut code, mut read) = (Vec::with_capacity(text.len() * 3 / 4), 0u32, 0);
    for &c in text.iter().take_while(|&&c| c != b'=') {
        let sextet = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(invalid("is not valid base64 data")),
        };
        code = code << 6 | u32::from(sextet);
        read += 1;
        if read == 4 {
            out.extend_from_slice(&code.to_be_bytes()[1..]);
            (code, read) = (0, 0);
        }
    }
    match read {
        3 => out.extend_from_slice(&(code >> 2).to_be_bytes()[2..]),
        2 => out.push((code >> 4) as u8),
        1 => return Err(invalid("trailing base64 byte found")),
        _ => {}
    }
    Ok(Val::from(String::from_utf8_lossy(&out).into_owned()))
}

/// jq 1.8's `implode`: each number a code point, cut to an integer; one that is none (a
/// surrogate, negative, past U+10FFFF) U+FFFD; NaN or anything but a number an error.
fn implode(v: &Val) -> ValR {
    let Val::Arr(points) = v else {
        return Err(err("implode input must be an array"));
    };
    let mut text = String::with_capacity(points.len());
    for p in points.iter() {
        let code = match p {
            Val::Num(_) => p.as_f64().filter(|f| !f.is_nan()),
            _ => None,
        };
        let Some(code) = code else {
            return Err(err(format!(
                "{} ({}) can't be imploded, unicode codepoint needs to be numeric",
                kind(p),
                shown(p)
            )));
        };
        let code = u32::try_from(code as i64).ok().and_then(char::from_u32);
        text.push(code.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    Ok(Val::from(text))
}

/// jq 1.8's `tonumber`: a number as it is; a string that is a number and nothing else
/// (no space around it; `nan`, `infinity`, `+1`, `.5`, `5.` are numbers); anything else an
/// error. jaq's reads the string's JSON values, so `"0x10"` gave 0 and then an error.
fn tonumber(v: Val) -> ValR {
    let text = match &v {
        Val::Num(_) => return Ok(v),
        Val::TStr(b) => std::str::from_utf8(b).ok(),
        _ => None,
    };
    let fail = || {
        err(format!(
            "{} ({}) cannot be parsed as a number",
            kind(&v),
            shown(&v)
        ))
    };
    let text = text.ok_or_else(fail)?;
    // A JSON number is kept as it was written, as when read from the input.
    if let Some(Val::Num(n)) = super::read::value(text.as_bytes())
        && !text.starts_with(|c: char| c.is_ascii_whitespace())
        && !text.ends_with(|c: char| c.is_ascii_whitespace())
    {
        return Ok(Val::Num(n));
    }
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let lower = unsigned.to_ascii_lowercase();
    let decimal = {
        let (mantissa, exp) = lower.split_once('e').unwrap_or((&lower, "0"));
        let exp = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        digits(int)
            && digits(frac)
            && !(int.is_empty() && frac.is_empty())
            && !exp.is_empty()
            && digits(exp)
    };
    let f = match &*lower {
        "nan" | "snan" => f64::NAN,
        "inf" | "infinity" => f64::INFINITY,
        _ if decimal => unsigned.parse().map_err(|_| fail())?,
        _ => return Err(fail()),
    };
    Ok(Val::Num(Num::Float(if text.starts_with('-') {
        -f
    } else {
        f
    })))
}

/// jq's `jv_get` as far as `setpath` needs it (null where jq gives null).
fn get(v: &Val, k: &Val) -> ValR {
    match (v, k) {
        (Val::Null, Val::TStr(_) | Val::BStr(_) | Val::Num(_) | Val::Obj(_) | Val::Null) => {
            Ok(Val::Null)
        }
        (Val::Obj(o), Val::TStr(_) | Val::BStr(_)) => Ok(o.get(k).cloned().unwrap_or(Val::Null)),
        (Val::Arr(a), Val::Num(_)) => {
            let Some(i) = num_index(k) else {
                return Ok(Val::Null);
            };
            let i = if i < 0 { i + a.len() as isize } else { i };
            Ok(usize::try_from(i)
                .ok()
                .and_then(|i| a.get(i))
                .cloned()
                .unwrap_or(Val::Null))
        }
        (Val::Arr(a), Val::Obj(o)) => {
            let (s, e) = bounds(o, a.len())?;
            Ok(Val::Arr(Rc::new(a[s..e].to_vec())))
        }
        // jq indexes an array with an array (`indices`); setting there fails below anyway
        (Val::Arr(_), Val::Arr(_)) => Ok(Val::Null),
        _ => Err(err(match k {
            Val::TStr(_) | Val::BStr(_) => format!("Cannot index {} with {k}", kind(v)),
            _ => format!("Cannot index {} with {} ({})", kind(v), kind(k), shown(k)),
        })),
    }
}

/// jq's `jv_set`: `v` with its element `k` replaced by `x`.
fn set(v: Val, k: &Val, x: Val) -> ValR {
    match (v, k) {
        (Val::Null, Val::TStr(_) | Val::BStr(_)) => set(Val::obj(Map::default()), k, x),
        (Val::Obj(mut o), Val::TStr(_) | Val::BStr(_)) => {
            Rc::make_mut(&mut o).insert(k.clone(), x);
            Ok(Val::Obj(o))
        }
        (Val::Null, Val::Num(_) | Val::Obj(_)) => set(Val::Arr(Rc::new(Vec::new())), k, x),
        (Val::Arr(mut a), Val::Num(_)) => {
            let len = a.len() as isize;
            let i = num_index(k).ok_or_else(|| err("Cannot set array element at NaN index"))?;
            let i = if i < 0 { i + len } else { i };
            let i = usize::try_from(i).map_err(|_| err("Out of bounds negative array index"))?;
            // jq pads with null; refuse absurd sizes instead of exhausting memory
            if i > (1 << 29) {
                return Err(err("Array index too large"));
            }
            let a_ = Rc::make_mut(&mut a);
            if i >= a_.len() {
                a_.resize(i + 1, Val::Null);
            }
            a_[i] = x;
            Ok(Val::Arr(a))
        }
        (Val::Arr(mut a), Val::Obj(o)) => {
            let Val::Arr(xs) = x else {
                return Err(err(
                    "A slice of an array can only be assigned another array",
                ));
            };
            let (s, e) = bounds(o, a.len())?;
            Rc::make_mut(&mut a).splice(s..e, xs.iter().cloned());
            Ok(Val::Arr(a))
        }
        (v, k) => Err(err(format!(
            "Cannot update field at {} index of {}",
            kind(k),
            kind(&v)
        ))),
    }
}

/// jq's limit on the length of a path (`setpath`, `getpath`, `delpaths`), its
/// `MAX_PATH_DEPTH`: past it, "Path too deep".
pub(crate) const MAX_PATH_DEPTH: usize = 10_000;

/// jq's `setpath(path; x)`, without recursion.
fn setpath(root: Val, path: &Val, x: Val) -> ValR {
    let Val::Arr(path) = path else {
        return Err(err("Path must be specified as an array"));
    };
    if path.len() > MAX_PATH_DEPTH {
        return Err(err("Path too deep"));
    }
    // the values along the path, root first
    let mut stack = Vec::with_capacity(path.len());
    let mut cur = root;
    for k in path.iter() {
        let next = get(&cur, k)?;
        stack.push(cur);
        cur = next;
    }
    drop(cur);
    let mut acc = x;
    for (v, k) in stack.into_iter().rev().zip(path.iter().rev()) {
        acc = set(v, k, acc)?;
    }
    Ok(acc)
}

/// jq's `delpaths(paths)`.
fn delpaths(v: Val, paths: Val) -> ValR {
    let Val::Arr(paths) = paths else {
        return Err(err("Paths must be specified as an array"));
    };
    let mut ps = Vec::with_capacity(paths.len());
    for p in paths.iter() {
        match p {
            Val::Arr(p) if p.len() > MAX_PATH_DEPTH => return Err(err("Path too deep")),
            Val::Arr(p) => ps.push(p.clone()),
            _ => return Err(err("Path must be specified as an array")),
        }
    }
    ps.sort();
    match ps.first() {
        None => Ok(v),
        Some(p) if p.is_empty() => Ok(Val::Null),
        Some(_) => delpaths_sorted(v, &ps, 0),
    }
}

/// Delete the sorted `paths`, all longer than `depth`, below their common prefix `v`.
fn delpaths_sorted(mut v: Val, paths: &[Rc<Vec<Val>>], depth: usize) -> ValR {
    let mut delkeys = Vec::new();
    let mut i = 0;
    while i < paths.len() {
        let key = &paths[i][depth];
        // At least this path: a NaN key equals nothing, itself neither (it hung here).
        let mut j = i + 1;
        while j < paths.len() && paths[j].get(depth) == Some(key) {
            j += 1;
        }
        if paths[i].len() == depth + 1 {
            // the whole element goes, so do its parts
            delkeys.push(key.clone());
        } else {
            let sub = get(&v, key)?;
            if sub != Val::Null {
                let sub = delpaths_sorted(sub, &paths[i..j], depth + 1)?;
                v = set(v, key, sub)?;
            }
        }
        i = j;
    }
    dels(v, &delkeys)
}

/// jq's `jv_dels`: `v` without its elements `keys`.
fn dels(v: Val, keys: &[Val]) -> ValR {
    if keys.is_empty() {
        return Ok(v);
    }
    match v {
        Val::Null => Ok(Val::Null),
        Val::Arr(a) => {
            let len = a.len();
            let mut del = vec![false; len];
            for k in keys {
                match k {
                    // jq: NaN is no index.
                    Val::Num(_) => {
                        let Some(i) = num_index(k) else { continue };
                        let i = if i < 0 { i + len as isize } else { i };
                        if let Some(d) = usize::try_from(i).ok().and_then(|i| del.get_mut(i)) {
                            *d = true;
                        }
                    }
                    Val::Obj(o) => {
                        let (s, e) = bounds(o, len)?;
                        del[s..e].iter_mut().for_each(|d| *d = true);
                    }
                    _ => {
                        return Err(err(format!(
                            "Cannot delete field at {} index of array",
                            kind(k)
                        )));
                    }
                }
            }
            let kept = a
                .iter()
                .zip(del)
                .filter(|(_, d)| !d)
                .map(|(x, _)| x.clone());
            Ok(Val::Arr(Rc::new(kept.collect())))
        }
        Val::Obj(mut o) => {
            for k in keys {
                match k {
                    Val::TStr(_) | Val::BStr(_) => {
                        Rc::make_mut(&mut o).shift_remove(k);
                    }
                    _ => {
                        return Err(err(format!(
                            "Cannot delete field at {} index of object",
                            kind(k)
                        )));
                    }
                }
            }
            Ok(Val::Obj(o))
        }
        v => Err(err(format!("Cannot delete fields from {}", kind(&v)))),
    }
}

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn base32_encode(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len().div_ceil(5) * 8);
    for chunk in b.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = buf.iter().fold(0u64, |acc, &x| acc << 8 | u64::from(x));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            out.push(if i < chars {
                B32[(n >> (35 - 5 * i) & 31) as usize]
            } else {
                b'='
            });
        }
    }
    out
}

/// Decode base32 (padding optional); `None` on a character outside the alphabet.
fn base32_decode(s: &[u8]) -> Option<Vec<u8>> {
    let s = s.strip_suffix(b"\n").unwrap_or(s);
    let end = s.iter().rposition(|&c| c != b'=').map_or(0, |i| i + 1);
    let (mut acc, mut bits, mut out) = (0u64, 0u32, Vec::with_capacity(s.len() * 5 / 8));
    for &c in &s[..end] {
        let d = B32.iter().position(|&x| x == c.to_ascii_uppercase())? as u64;
        acc = (acc << 5 | d) & 0xffff;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compat_jq_parses() {
        assert!(jaq_core::load::parse(include_str!("compat.jq"), |p| p.defs()).is_some());
    }

    fn run(code: &str) -> Vec<String> {
        let p = super::super::Program::compile(code, &Default::default()).unwrap();
        let none = super::super::program::RcIter::new(std::iter::empty());
        p.run(Val::Null, &Val::Null, &Val::Null, 1, &none)
            .map(|r| match r {
                Ok(v) => Jv(v).to_string(),
                Err(e) => format!("error: {e:?}"),
            })
            .collect()
    }

    /// A NaN index is none, as in jq: deleting at it deletes nothing (this hung, a NaN
    /// equalling no other key, itself neither), setting at it is an error.
    #[test]
    fn a_nan_index_deletes_nothing() {
        assert_eq!(run("[1,2,3] | delpaths([[nan], [nan]])"), ["[1,2,3]"]);
        assert_eq!(run("[1,2,3] | del(.[nan])"), ["[1,2,3]"]);
        assert_eq!(run("[1,2] | getpath([nan])"), ["null"]);
        assert_eq!(
            run("[1,2] | try setpath([nan]; 0) catch ."),
            [r#""Cannot set array element at NaN index""#]
        );
    }

    #[test]
    fn base32_round_trip() {
        assert_eq!(base32_encode(b"foobar"), b"MZXW6YTBOI======");
        assert_eq!(base32_decode(b"MZXW6YTBOI======").unwrap(), b"foobar");
        assert_eq!(base32_decode(b"MZXW6YQ=").unwrap(), b"foob");
        assert!(base32_decode(b"M!").is_none());
    }
}

//! The values `get`'s programs run on: jaq-json's `Val` in a type of our own, so that where
//! jq and jaq-json differ, jq's behaviour can be had.
//!
//! jaq's engine runs on any type with its value traits (`jaq_core::ValT`, `jaq_std::ValT`):
//! indexing, slicing, updating a path and arithmetic are methods of those traits, which
//! jaq-json implements its own way for `Val`. [`Jv`] hands each to `Val`, but where jq (1.7
//! and 1.8; 1.6 too unless said) does otherwise:
//!
//! - an update through `null` makes the object or array (`null | .a.b = 1`,
//!   `{} | .a[0] += 1`, `null | .[1:2] = ["x"]`), and a slice of `null` is `null`;
//! - an update past an array's end pads it with `null` (`[1] | .[3] = 1`); a fractional
//!   index or slice bound is cut to an integer (`.[1.5]`, jq 1.7/1.8), NaN indexes nothing;
//! - an object indexed with a number is an error (`{} | .[0]`, `getpath([0])`), not `null`,
//!   and the key of an object made must be a string (`1 as $k | {($k): 2}`);
//! - `x / 0` and `x % 0` are errors, and `%` works on integers (`5.5 % 2` is 1);
//! - a key removed by an update (`.a |= empty`) leaves the others in their order;
//! - a number is written as jq writes it ([`write`]): a whole float without `.0`, NaN as
//!   `null`, an infinity as the largest double; strings as valid UTF-8.
//!
//! Everything else — and so every builtin of jaq-std, which is written for any such type —
//! is jaq's.

use std::fmt;
use std::io;

use jaq_core::path::Opt;
use jaq_core::{Exn, ValX, val::Range};
use jaq_json::write::Pp;
use jaq_json::{Map, Num, Rc, Val};

/// A value of a program: a `Val`, with jq's behaviour where jaq's differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Jv(pub(crate) Val);

/// An error of a program.
pub(crate) type Error = jaq_core::Error<Jv>;
type ValR = Result<Jv, Error>;

/// An error of jaq-json's, as ours: its value (the message, or what `error` was given).
fn lift(e: jaq_core::Error<Val>) -> Error {
    Error::new(Jv(e.into_val()))
}

fn msg(text: impl ToString) -> Error {
    Error::str(text)
}

/// jq's name of a value's type.
pub(crate) fn kind(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::BStr(_) | Val::TStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// A value as jq shows it in an error message: its JSON, cut to 11 characters and `...`.
pub(crate) fn shown(v: &Val) -> String {
    let text = Jv(v.clone()).to_string();
    if text.chars().count() > 14 {
        let cut: String = text.chars().take(11).collect();
        format!("{cut}...")
    } else {
        text
    }
}

/// A value as jq 1.8 shows it in the error of an arithmetic operator: its JSON whole up to
/// 29 bytes, else cut at a character's start to fit 29 with `...` — a string's inside its
/// quotes (its own tests: `"very-long-long-long-long..."`, `12345678901234568000000000...`).
pub(crate) fn shown_long(v: &Val) -> String {
    let text = Jv(v.clone()).to_string();
    if text.len() <= 29 {
        return text;
    }
    let (mut keep, end) = if is_str(v) {
        (25, "...\"")
    } else {
        (26, "...")
    };
    while !text.is_char_boundary(keep) {
        keep -= 1;
    }
    format!("{}{end}", &text[..keep])
}

/// jq 1.8's error for an operator its operands' types do not allow.
fn cannot(l: &Val, r: &Val, what: &str) -> Error {
    msg(format!(
        "{} ({}) and {} ({}) cannot be {what}",
        kind(l),
        shown_long(l),
        kind(r),
        shown_long(r)
    ))
}

/// jq 1.8's `"abc" * n`: `n` copies (its integer part), none for `0 <= n < 1`; `null`
/// for a negative `n` or NaN.
fn repeat(s: &Val, n: &Val) -> ValR {
    let n = as_f64(n).unwrap_or(f64::NAN);
    if n.is_nan() || n < 0.0 {
        return Ok(Jv(Val::Null));
    }
    let text = match s {
        Val::TStr(t) | Val::BStr(t) => t,
        _ => return Ok(Jv(Val::Null)),
    };
    let copies = n as usize;
    if text.len().saturating_mul(copies) > i32::MAX as usize {
        return Err(msg("Repeat string result too long"));
    }
    let text = String::from_utf8_lossy(text).repeat(copies);
    Ok(Jv(Val::from(text)))
}

/// jq's error for `.[]` on what is neither an array nor an object.
fn cannot_iterate(v: &Val) -> Error {
    msg(format!("Cannot iterate over {} ({})", kind(v), shown(v)))
}

fn is_str(v: &Val) -> bool {
    matches!(v, Val::TStr(_) | Val::BStr(_))
}

fn as_f64(v: &Val) -> Option<f64> {
    jaq_std::ValT::as_f64(v)
}

/// A number as jq makes it an array index: cut towards zero (saturating); `None` for NaN.
fn index_of(n: &Val) -> Option<isize> {
    match jaq_std::ValT::as_isize(n) {
        Some(i) => Some(i),
        None => as_f64(n).filter(|f| !f.is_nan()).map(|f| f as isize),
    }
}

/// The bounds of the slice `[start:end]` of something `len` long, as jq computes them
/// (`parse_slice`): `null` is the start or the end, a negative bound counts from the end,
/// both are clamped, the start rounded down and the end up; NaN is the start or the end.
pub(crate) fn slice_bounds(
    start: Option<&Val>,
    end: Option<&Val>,
    len: usize,
) -> Result<(usize, usize), Error> {
    let bound = |b: Option<&Val>, default: f64| match b {
        None | Some(Val::Null) => Ok(default),
        Some(v @ Val::Num(_)) => Ok(as_f64(v).unwrap_or(default)),
        Some(_) => Err(msg(
            "Start and end indices of an array slice must be numbers",
        )),
    };
    let lenf = len as f64;
    let (mut s, mut e) = (bound(start, 0.0)?, bound(end, lenf)?);
    if s.is_nan() {
        s = 0.0;
    }
    if s < 0.0 {
        s += lenf;
    }
    let s = s.clamp(0.0, lenf).floor();
    if e.is_nan() {
        e = lenf;
    }
    if e < 0.0 {
        e += lenf;
    }
    let e = e.clamp(s, lenf).ceil();
    // Both within 0..=len now (`as` saturates, and they are whole).
    Ok((s as usize, e as usize))
}

/// The start and end of a slice key `{"start": s, "end": e}`.
fn slice_key(key: &Map<Val, Val>) -> (Option<&Val>, Option<&Val>) {
    let get = |name: &str| key.get(&Val::utf8_str(name.as_bytes().to_vec()));
    (get("start"), get("end"))
}

impl Jv {
    fn null_as(self, key: &Val) -> Jv {
        match (self.0, key) {
            (Val::Null, Val::TStr(_) | Val::BStr(_)) => Jv(Val::obj(Map::default())),
            (Val::Null, Val::Num(_) | Val::Obj(_)) => Jv(Val::Arr(Rc::default())),
            (v, _) => Jv(v),
        }
    }

    /// `self[start:end]`, as jq slices: `null` gives `null`, an array or a string (by
    /// characters) its part.
    fn slice(self, start: Option<&Val>, end: Option<&Val>) -> ValR {
        match self.0 {
            Val::Null => Ok(Jv(Val::Null)),
            Val::Arr(a) => {
                let (s, e) = slice_bounds(start, end, a.len())?;
                Ok(Jv(Val::Arr(Rc::new(a[s..e].to_vec()))))
            }
            Val::TStr(ref b) if let Ok(text) = std::str::from_utf8(b) => {
                let chars = text.chars().count();
                let (s, e) = slice_bounds(start, end, chars)?;
                let byte = |c| text.char_indices().nth(c).map_or(text.len(), |(i, _)| i);
                Ok(Jv(Val::utf8_str(
                    text.as_bytes()[byte(s)..byte(e)].to_vec(),
                )))
            }
            v => {
                let range = start.cloned()..end.cloned();
                jaq_core::ValT::range(v, range.start.as_ref()..range.end.as_ref())
                    .map(Jv)
                    .map_err(lift)
            }
        }
    }

    /// `self[start:end] |= f`: the part replaced by the first output of `f` (an array), or
    /// removed when `f` gives nothing.
    fn update_slice<'a, I: Iterator<Item = ValX<'a, Jv>>>(
        self,
        start: Option<&Val>,
        end: Option<&Val>,
        opt: Opt,
        f: impl Fn(Jv) -> I,
    ) -> ValX<'a, Jv> {
        let mut a = match self.0 {
            Val::Null => Rc::default(),
            Val::Arr(a) => a,
            Val::TStr(_) | Val::BStr(_) => return Err(msg("Cannot update string slices").into()),
            v => return opt.fail(Jv(v), |v| Exn::from(Error::typ(v, "array"))),
        };
        let (s, e) = slice_bounds(start, end, a.len())?;
        let part = Jv(Val::Arr(Rc::new(a[s..e].to_vec())));
        let new = match f(part).next().transpose()? {
            None => Rc::default(),
            Some(Jv(Val::Arr(new))) => new,
            Some(_) => {
                return Err(msg("A slice of an array can only be assigned another array").into());
            }
        };
        Rc::make_mut(&mut a).splice(s..e, new.iter().cloned());
        Ok(Jv(Val::Arr(a)))
    }

    /// `self[i] |= f` on an array: past its end, padded with `null` to hold the first output
    /// of `f` (if any); before its start (negative), an error.
    fn update_element<'a, I: Iterator<Item = ValX<'a, Jv>>>(
        mut a: Rc<Vec<Val>>,
        index: &Val,
        f: impl Fn(Jv) -> I,
    ) -> ValX<'a, Jv> {
        let len = a.len() as isize;
        let Some(i) = index_of(index) else {
            return Err(msg("Cannot set array element at NaN index").into());
        };
        let i = if i < 0 { i + len } else { i };
        let Ok(i) = usize::try_from(i) else {
            return Err(msg("Out of bounds negative array index").into());
        };
        let a_ = Rc::make_mut(&mut a);
        if let Some(x) = a_.get_mut(i) {
            match f(Jv(core::mem::take(x))).next().transpose()? {
                Some(y) => a_[i] = y.0,
                None => drop(a_.remove(i)),
            }
        } else if let Some(y) = f(Jv(Val::Null)).next().transpose()? {
            // jq pads with null; an absurd size is refused rather than exhausting memory.
            if i > 1 << 29 {
                return Err(msg("Array index too large").into());
            }
            a_.resize(i + 1, Val::Null);
            a_[i] = y.0;
        }
        Ok(Jv(Val::Arr(a)))
    }
}

impl From<bool> for Jv {
    fn from(b: bool) -> Self {
        Jv(Val::from(b))
    }
}

impl From<isize> for Jv {
    fn from(i: isize) -> Self {
        Jv(Val::from(i))
    }
}

impl From<usize> for Jv {
    fn from(i: usize) -> Self {
        Jv(Val::from(i))
    }
}

impl From<f64> for Jv {
    fn from(f: f64) -> Self {
        Jv(Val::from(f))
    }
}

impl From<String> for Jv {
    fn from(s: String) -> Self {
        Jv(Val::from(s))
    }
}

impl From<Range<Jv>> for Jv {
    fn from(r: Range<Jv>) -> Self {
        Jv(Val::from(r.start.map(|s| s.0)..r.end.map(|e| e.0)))
    }
}

impl FromIterator<Jv> for Jv {
    fn from_iter<T: IntoIterator<Item = Jv>>(iter: T) -> Self {
        Jv(Val::Arr(Rc::new(iter.into_iter().map(|v| v.0).collect())))
    }
}

impl core::ops::Add for Jv {
    type Output = ValR;
    fn add(self, rhs: Self) -> ValR {
        let (l, r) = (self.0.clone(), rhs.0.clone());
        (self.0 + rhs.0)
            .map(Jv)
            .map_err(|_| cannot(&l, &r, "added"))
    }
}

impl core::ops::Sub for Jv {
    type Output = ValR;
    fn sub(self, rhs: Self) -> ValR {
        let (l, r) = (self.0.clone(), rhs.0.clone());
        (self.0 - rhs.0)
            .map(Jv)
            .map_err(|_| cannot(&l, &r, "subtracted"))
    }
}

impl core::ops::Mul for Jv {
    type Output = ValR;
    fn mul(self, rhs: Self) -> ValR {
        match (&self.0, &rhs.0) {
            (s @ (Val::TStr(_) | Val::BStr(_)), n @ Val::Num(_))
            | (n @ Val::Num(_), s @ (Val::TStr(_) | Val::BStr(_))) => return repeat(s, n),
            _ => {}
        }
        let (l, r) = (self.0.clone(), rhs.0.clone());
        (self.0 * rhs.0)
            .map(Jv)
            .map_err(|_| cannot(&l, &r, "multiplied"))
    }
}

/// jq's error for a division by zero (`how`: `""` or `" (remainder)"`).
fn by_zero(l: &Val, r: &Val, how: &str) -> Error {
    msg(format!(
        "{} ({}) and {} ({}) cannot be divided{how} because the divisor is zero",
        kind(l),
        shown(l),
        kind(r),
        shown(r)
    ))
}

impl core::ops::Div for Jv {
    type Output = ValR;
    /// jq: a number divided by zero is an error (jaq gives an infinity or NaN).
    fn div(self, rhs: Self) -> ValR {
        if let (Val::Num(_), Val::Num(_)) = (&self.0, &rhs.0)
            && as_f64(&rhs.0) == Some(0.0)
        {
            return Err(by_zero(&self.0, &rhs.0, ""));
        }
        (self.0 / rhs.0).map(Jv).map_err(lift)
    }
}

impl core::ops::Rem for Jv {
    type Output = ValR;
    /// jq 1.8: `a % b` on the integers of `a` and `b` (cut towards zero, saturating), NaN if
    /// either is NaN, an error if `b`'s integer is 0. Integers, big ones too, are exact.
    fn rem(self, rhs: Self) -> ValR {
        let (Val::Num(_), Val::Num(_)) = (&self.0, &rhs.0) else {
            return (self.0 % rhs.0).map(Jv).map_err(lift);
        };
        let int = |v: &Val| jaq_std::ValT::is_int(v);
        if int(&self.0) && int(&rhs.0) {
            if jaq_std::ValT::as_isize(&rhs.0) == Some(0) {
                return Err(by_zero(&self.0, &rhs.0, " (remainder)"));
            }
            return (self.0 % rhs.0).map(Jv).map_err(lift);
        }
        let (a, b) = (
            as_f64(&self.0).unwrap_or(0.0),
            as_f64(&rhs.0).unwrap_or(0.0),
        );
        if a.is_nan() || b.is_nan() {
            return Ok(Jv::from(f64::NAN));
        }
        // `as` cuts towards zero and saturates, as jq's `dtoi`.
        let (a, b) = (a as isize, b as isize);
        if b == 0 {
            return Err(by_zero(&self.0, &rhs.0, " (remainder)"));
        }
        Ok(Jv::from(if b == -1 { 0 } else { a % b }))
    }
}

impl core::ops::Neg for Jv {
    type Output = ValR;
    /// jq 1.8: only a number can be negated.
    fn neg(self) -> ValR {
        if !matches!(self.0, Val::Num(_)) {
            return Err(msg(format!(
                "{} ({}) cannot be negated",
                kind(&self.0),
                shown_long(&self.0)
            )));
        }
        (-self.0).map(Jv).map_err(lift)
    }
}

impl fmt::Display for Jv {
    /// As written on the output, compact.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = Vec::new();
        write(&mut buf, &Pp::default(), 0, &self.0).map_err(|_| fmt::Error)?;
        f.write_str(&String::from_utf8_lossy(&buf))
    }
}

impl jaq_core::ValT for Jv {
    fn from_num(n: &str) -> ValR {
        <Val as jaq_core::ValT>::from_num(n).map(Jv).map_err(lift)
    }

    /// An object; jq: its keys must be strings.
    fn from_map<I: IntoIterator<Item = (Self, Self)>>(iter: I) -> ValR {
        let mut map = Map::default();
        for (k, v) in iter {
            if !is_str(&k.0) {
                return Err(msg(format!(
                    "Cannot use {} ({}) as object key",
                    kind(&k.0),
                    shown(&k.0)
                )));
            }
            map.insert(k.0, v.0);
        }
        Ok(Jv(Val::obj(map)))
    }

    fn key_values(self) -> Box<dyn Iterator<Item = Result<(Self, Self), Error>>> {
        Box::new(
            jaq_core::ValT::key_values(self.0)
                .map(|r| r.map(|(k, v)| (Jv(k), Jv(v))).map_err(lift)),
        )
    }

    /// `.[]`; jq's words for what cannot be iterated.
    fn values(self) -> Box<dyn Iterator<Item = ValR>> {
        if !matches!(self.0, Val::Arr(_) | Val::Obj(_)) {
            return Box::new(std::iter::once(Err(cannot_iterate(&self.0))));
        }
        Box::new(jaq_core::ValT::values(self.0).map(|r| r.map(Jv).map_err(lift)))
    }

    /// `.[k]` as jq's `jv_get`.
    fn index(self, k: &Self) -> ValR {
        match (self.0, &k.0) {
            (Val::Obj(o), Val::TStr(_) | Val::BStr(_)) => {
                Ok(Jv(o.get(&k.0).cloned().unwrap_or(Val::Null)))
            }
            (Val::Obj(_), k) => Err(msg(format!(
                "Cannot index object with {} ({})",
                kind(k),
                shown(k)
            ))),
            (Val::Arr(a), Val::Num(_)) if !jaq_std::ValT::is_int(&k.0) => {
                let Some(i) = index_of(&k.0) else {
                    return Ok(Jv(Val::Null));
                };
                let i = if i < 0 { i + a.len() as isize } else { i };
                let item = usize::try_from(i).ok().and_then(|i| a.get(i));
                Ok(Jv(item.cloned().unwrap_or(Val::Null)))
            }
            (v @ (Val::Null | Val::Arr(_) | Val::TStr(_)), Val::Obj(o)) => {
                let (start, end) = slice_key(o);
                Jv(v).slice(start, end)
            }
            // What jq cannot index at all (a number, a boolean; a string by a key).
            (v @ (Val::Num(_) | Val::Bool(_) | Val::TStr(_) | Val::BStr(_)), k)
                if !matches!((&v, k), (Val::TStr(_) | Val::BStr(_), Val::Obj(_))) =>
            {
                Err(msg(format!(
                    "Cannot index {} with {} ({})",
                    kind(&v),
                    kind(k),
                    shown(k)
                )))
            }
            (v, k) => jaq_core::ValT::index(v, k).map(Jv).map_err(lift),
        }
    }

    fn range(self, range: Range<&Self>) -> ValR {
        let (start, end) = (range.start.map(|s| &s.0), range.end.map(|e| &e.0));
        self.slice(start, end)
    }

    fn map_values<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        match self.0 {
            Val::Arr(a) => {
                let a = Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone());
                let iter = a.into_iter().flat_map(|x| f(Jv(x)));
                Ok(iter.collect::<Result<_, _>>()?)
            }
            Val::Obj(o) => {
                let o = Rc::try_unwrap(o).unwrap_or_else(|o| (*o).clone());
                let mut map = Map::with_capacity_and_hasher(o.len(), Default::default());
                for (k, v) in o {
                    if let Some(y) = f(Jv(v)).next() {
                        map.insert(k, y?.0);
                    }
                }
                Ok(Jv(Val::obj(map)))
            }
            v => {
                let e = cannot_iterate(&v);
                opt.fail(Jv(v), |_| Exn::from(e))
            }
        }
    }

    /// `.[k] |= f` as jq's `_modify`: through `null` as through an empty object (a string
    /// key) or array (a number, a slice); past an array's end padded; a key or element
    /// removed when `f` gives nothing.
    fn map_index<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        index: &Self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        match (self.null_as(&index.0).0, &index.0) {
            (Val::Obj(mut o), Val::TStr(_) | Val::BStr(_)) => {
                let map = Rc::make_mut(&mut o);
                match map.get_index_of(&index.0) {
                    Some(i) => match f(Jv(core::mem::take(&mut map[i]))).next().transpose()? {
                        Some(y) => map[i] = y.0,
                        None => drop(map.shift_remove_index(i)),
                    },
                    None => {
                        if let Some(y) = f(Jv(Val::Null)).next().transpose()? {
                            map.insert(index.0.clone(), y.0);
                        }
                    }
                }
                Ok(Jv(Val::Obj(o)))
            }
            (Val::Arr(a), Val::Num(_)) => Jv::update_element(a, &index.0, f),
            (v @ (Val::Arr(_) | Val::TStr(_) | Val::BStr(_)), Val::Obj(key)) => {
                let (start, end) = slice_key(key);
                Jv(v).update_slice(start, end, opt, f)
            }
            (v @ Val::Obj(_), k) => {
                let e = msg(format!(
                    "Cannot index object with {} ({})",
                    kind(k),
                    shown(k)
                ));
                opt.fail(Jv(v), |_| Exn::from(e))
            }
            (v, _) => opt.fail(Jv(v), |v| {
                Exn::from(Error::typ(v, "iterable (array or object)"))
            }),
        }
    }

    fn map_range<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        range: Range<&Self>,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        let (start, end) = (range.start.map(|s| &s.0), range.end.map(|e| &e.0));
        self.update_slice(start, end, opt, f)
    }

    fn as_bool(&self) -> bool {
        jaq_core::ValT::as_bool(&self.0)
    }

    /// `"\(.)"`, `tostring`: a string as it is, anything else as its JSON.
    fn into_string(self) -> Self {
        match self.0 {
            Val::TStr(s) | Val::BStr(s) => Jv(Val::TStr(s)),
            v => {
                let mut buf = Vec::new();
                // Writing to a Vec does not fail.
                let _ = write(&mut buf, &Pp::default(), 0, &v);
                Jv(Val::utf8_str(buf))
            }
        }
    }
}

impl jaq_std::ValT for Jv {
    fn into_seq<S: FromIterator<Self>>(self) -> Result<S, Self> {
        match self.0 {
            Val::Arr(a) => Ok(match Rc::try_unwrap(a) {
                Ok(a) => a.into_iter().map(Jv).collect(),
                Err(a) => a.iter().cloned().map(Jv).collect(),
            }),
            v => Err(Jv(v)),
        }
    }

    fn is_int(&self) -> bool {
        jaq_std::ValT::is_int(&self.0)
    }

    fn as_isize(&self) -> Option<isize> {
        jaq_std::ValT::as_isize(&self.0)
    }

    fn as_f64(&self) -> Option<f64> {
        as_f64(&self.0)
    }

    fn is_utf8_str(&self) -> bool {
        jaq_std::ValT::is_utf8_str(&self.0)
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        jaq_std::ValT::as_bytes(&self.0)
    }

    fn as_sub_str(&self, sub: &[u8]) -> Self {
        Jv(jaq_std::ValT::as_sub_str(&self.0, sub))
    }

    fn from_utf8_bytes(b: impl AsRef<[u8]> + Send + 'static) -> Self {
        Jv(<Val as jaq_std::ValT>::from_utf8_bytes(b))
    }
}

// The macros of jaq-json's writer, for containers and their layout, with our numbers and
// strings; they name `Val`, `style!`, `write_utf8!` and `alloc` where they are used.
extern crate alloc;
use jaq_json::{format_val, style, write_utf8};

/// Writes `v` as JSON the way jq does (jaq-json's layout otherwise: `pp` says the indent
/// and whether keys are sorted): numbers by [`write_num`], strings as valid UTF-8 (an
/// invalid sequence as U+FFFD), a DEL and the control characters escaped.
pub(crate) fn write(w: &mut dyn io::Write, pp: &Pp, level: usize, v: &Val) -> io::Result<()> {
    match v {
        Val::Num(n) => style!(w, pp, num, write_num(w, n)),
        Val::TStr(s) => style!(w, pp, str, write_utf8!(w, s, |part| write_lossy(w, part))),
        _ => format_val!(w, pp, level, v, write),
    }
}

/// Bytes of a string, as valid UTF-8: each invalid sequence as U+FFFD (jq's strings are
/// valid UTF-8; ours are too once read, but bytes made by a builtin may not be).
pub(crate) fn write_lossy(w: &mut dyn io::Write, bytes: &[u8]) -> io::Result<()> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(_) => w.write_all(bytes),
        Err(_) => w.write_all(String::from_utf8_lossy(bytes).as_bytes()),
    }
}

/// A number as jq writes it: an integer and a number read from the input (or the program)
/// as they are, a float as [`float_text`] writes it.
fn write_num(w: &mut dyn io::Write, n: &Num) -> io::Result<()> {
    match n {
        Num::Float(f) => w.write_all(float_text(*f).as_bytes()),
        n => write!(w, "{n}"),
    }
}

/// The text jq (1.6 and 1.8 alike) writes for a float: the shortest digits that read back
/// to it, plainly unless the decimal point is 4 or more places before them or more than 15
/// places past them (`1e-05`, `1e+17`, `1.5e+300`); `-0` kept; NaN as `null`, and an
/// infinity as the largest finite double, which are what JSON can say.
pub(crate) fn float_text(f: f64) -> String {
    if f.is_nan() {
        return "null".into();
    }
    let f = f.clamp(f64::MIN, f64::MAX);
    // Rust writes the shortest digits that read back: `d.ddde±x`.
    let sci = format!("{f:e}");
    let (sign, sci) = sci.strip_prefix('-').map_or(("", &*sci), |s| ("-", s));
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    let (n, point) = (digits.len() as i32, exp + 1);
    let mut out = String::from(sign);
    if point <= -4 || point > n + 15 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let sign = if exp < 0 { '-' } else { '+' };
        out.push_str(&format!("e{sign}{:02}", exp.unsigned_abs()));
    } else if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
        out.push_str(&digits);
    } else if point >= n {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - n) as usize));
    } else {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As jq 1.6 and 1.8 write them (`jq -n -c '[…]'` of computed floats).
    #[test]
    fn floats_are_written_as_jq_writes_them() {
        for (f, jq) in [
            (2.0, "2"),
            (10.0, "10"),
            (0.0, "0"),
            (-0.0, "-0"),
            (1e15, "1000000000000000"),
            (1e16, "1e+16"),
            (1e17, "1e+17"),
            (1.5e300, "1.5e+300"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e-6, "1e-06"),
            (1.0 / 3.0, "0.3333333333333333"),
            (2.0 / 3.0 * 1e20, "66666666666666660000"),
            (123456789012345678.0, "123456789012345680"),
            (-2.5, "-2.5"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (f64::NEG_INFINITY, "-1.7976931348623157e+308"),
            (f64::NAN, "null"),
        ] {
            assert_eq!(float_text(f), jq, "{f:e}");
        }
    }

    #[test]
    fn slices_are_bounded_as_jq_bounds_them() {
        let n = |f: f64| Val::from(f);
        let b = |s: Option<Val>, e: Option<Val>, len| {
            slice_bounds(s.as_ref(), e.as_ref(), len).unwrap()
        };
        assert_eq!(b(Some(n(1.2)), Some(n(3.5)), 5), (1, 4));
        assert_eq!(b(Some(n(-2.0)), None, 5), (3, 5));
        assert_eq!(b(Some(n(4.0)), Some(n(1.0)), 5), (4, 4));
        assert_eq!(b(Some(n(f64::NAN)), Some(n(f64::NAN)), 5), (0, 5));
        assert_eq!(b(Some(n(-9.0)), Some(n(99.0)), 5), (0, 5));
        assert_eq!(b(None, Some(Val::Null), 0), (0, 0));
    }

    #[test]
    fn operator_errors_show_values_as_jq_1_8_cuts_them() {
        let s = |t: &str| Val::from(t.to_string());
        assert_eq!(shown_long(&s("short")), r#""short""#);
        assert_eq!(
            shown_long(&s("very-long-long-long-long-string")),
            r#""very-long-long-long-long...""#
        );
        // A character is never cut: 25 bytes would end inside the seventh star.
        assert_eq!(shown_long(&s("xxxx☆☆☆☆☆☆☆☆")), r#""xxxx☆☆☆☆☆☆...""#);
        let big = Val::from(1.2345678901234568e29);
        assert_eq!(shown_long(&big), "12345678901234568000000000...");
        let neg = -Jv(s("very-long-long-long-long-string"));
        assert_eq!(
            neg.unwrap_err().into_val().0,
            s(r#"string ("very-long-long-long-long...") cannot be negated"#)
        );
    }

    #[test]
    fn a_string_times_a_number_repeats_it_as_jq_1_8() {
        let abc = Jv(Val::from("abc".to_string()));
        let times = |n: f64| (abc.clone() * Jv::from(n)).unwrap().0;
        assert_eq!(times(-0.5), Val::Null);
        assert_eq!(times(0.5), Val::from(String::new()));
        assert_eq!(times(2.7), Val::from("abcabc".to_string()));
        assert_eq!(times(f64::NAN), Val::Null);
    }
}

//! `--stream`: each input as jq's streaming form, the events `tostream` gives — `[path,
//! leaf]` for each scalar and empty array or object, and `[path]` when an array or object
//! ends (the path of its last member) — each an input of its own.
//!
//! jq streams while it parses, so a huge document needs no memory; `get` reads a line
//! whole first (its memory is bounded by the longest line anyway), then walks it here
//! without recursion, however deep.

use jaq_json::Val;

/// The members of an array or object, with their keys.
type Members<'a> = Box<dyn Iterator<Item = (Val, &'a Val)> + 'a>;

/// The members of `v`, when it is an array or object with any.
fn members(v: &Val) -> Option<Members<'_>> {
    match v {
        Val::Arr(a) if !a.is_empty() => Some(Box::new(
            a.iter()
                .enumerate()
                .map(|(i, v)| (Val::from(i as isize), v)),
        )),
        Val::Obj(o) if !o.is_empty() => Some(Box::new(o.iter().map(|(k, v)| (k.clone(), v)))),
        _ => None,
    }
}

fn path_of(path: &[Val]) -> Val {
    path.iter().cloned().collect()
}

/// Gives `each` the stream events of `root`, in jq's order.
pub(crate) fn events(
    root: &Val,
    each: &mut dyn FnMut(Val) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut path: Vec<Val> = Vec::new();
    let mut open: Vec<Members<'_>> = Vec::new();
    let mut current = root;
    loop {
        match members(current) {
            Some(inner) => {
                open.push(inner);
                path.push(Val::Null);
            }
            None => each([path_of(&path), current.clone()].into_iter().collect())?,
        }
        // The next member of the innermost open value; each value that has none left ends.
        loop {
            let Some(inner) = open.last_mut() else {
                return Ok(());
            };
            if let Some((key, member)) = inner.next() {
                *path.last_mut().expect("a key per open value") = key;
                current = member;
                break;
            }
            open.pop();
            each([path_of(&path)].into_iter().collect())?;
            path.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streamed(json: &str) -> String {
        let value = jaq_json::read::parse_single(json.as_bytes()).unwrap();
        let mut out = Vec::new();
        events(&value, &mut |e| {
            out.push(e.to_string());
            Ok(())
        })
        .unwrap();
        out.join(" ")
    }

    #[test]
    fn values_stream_as_jq_streams_them() {
        // `jq -c --stream .` on each.
        assert_eq!(
            streamed(r#"{"a":[1,{"b":2}]}"#),
            r#"[["a",0],1] [["a",1,"b"],2] [["a",1,"b"]] [["a",1]] [["a"]]"#
        );
        assert_eq!(streamed("[1,[]]"), "[[0],1] [[1],[]] [[1]]");
        assert_eq!(streamed("3"), "[[],3]");
        assert_eq!(streamed("{}"), "[[],{}]");
    }

    #[test]
    fn a_deep_value_streams_without_recursion() {
        // 10,000 levels, jq's limit: `[[[…[]…]]]`, one leaf event and one end per level but
        // the innermost.
        let mut value: Val = Vec::<Val>::new().into_iter().collect();
        for _ in 0..10_000 {
            value = [value].into_iter().collect();
        }
        let mut n = 0;
        events(&value, &mut |_| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 10_001);
    }
}

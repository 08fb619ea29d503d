//! The crate's top-level modules import each other without circles: input and output at
//! the bottom, the agents' dialects above them, the dispatcher, the views, the parallel
//! reading and the command on top (see `docs/design.md`). A module that uses another's
//! item names it as `crate::module::…` or, from a file under a folder, `super::…`; this
//! reads every such path in `src/` (comments and unit tests left out) and fails on the
//! first circle it finds, with the files and names that make it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file belongs to: `src/agent/claude/wire.rs` → `agent`.
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The code of a file without its comments and its `#[cfg(test)]` module.
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("#[cfg(test)]")
            && lines.peek().is_some_and(|next| {
                let next = next.trim_start();
                let next = next.strip_prefix("pub(crate) ").unwrap_or(next);
                next.strip_prefix("pub ")
                    .unwrap_or(next)
                    .starts_with("mod ")
            })
        {
            break;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The top-level modules named by `crate::<name>` paths in `code`, with the item after
/// them (for the report).
fn crate_paths(code: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    let mut at = 0;
    while let Some(i) = code[at..].find("crate::") {
        let start = at + i;
        at = start + "crate::".len();
        // `$crate::` in a macro is the same crate; `foo_crate::` is not ours.
        if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
            continue;
        }
        let rest = &code[at..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '{'))
            .unwrap_or(rest.len());
        let path = &rest[..end];
        let module = path.split("::").next().unwrap_or("").to_string();
        if !module.is_empty() && !module.contains('{') {
            found.push((module, path.to_string()));
        } else if let Some(list) = rest.strip_prefix('{') {
            // `use crate::{a::X, b::Y}`
            let list = &list[..list.find('}').unwrap_or(list.len())];
            for item in list.split(',') {
                let item = item.trim();
                let module = item.split("::").next().unwrap_or("").trim().to_string();
                if !module.is_empty() {
                    found.push((module, item.to_string()));
                }
            }
        }
    }
    found
}

#[test]
fn the_top_level_modules_import_each_other_without_circles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let modules: BTreeSet<String> = files.iter().map(|f| top_module(&src, f)).collect();
    // module -> module it uses -> where (file: path)
    let mut uses: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for file in &files {
        let from = top_module(&src, file);
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for (to, path) in crate_paths(&code) {
            if to == from || !modules.contains(&to) {
                continue;
            }
            let rel = file.strip_prefix(&src).unwrap().display().to_string();
            uses.entry(from.clone())
                .or_default()
                .entry(to)
                .or_default()
                .push(format!("{rel}: crate::{path}"));
        }
    }
    assert!(
        uses.get("dispatch")
            .is_some_and(|u| u.contains_key("agent")),
        "the reading of imports found nothing: {uses:?}"
    );
    // Depth-first search for a back edge.
    fn visit(
        module: &str,
        uses: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = stack.iter().position(|m| m == module) {
            let mut circle = stack[i..].to_vec();
            circle.push(module.to_string());
            return Some(circle);
        }
        if done.contains(module) {
            return None;
        }
        stack.push(module.to_string());
        for next in uses.get(module).into_iter().flat_map(|u| u.keys()) {
            if let Some(circle) = visit(next, uses, stack, done) {
                return Some(circle);
            }
        }
        stack.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for module in &modules {
        if let Some(circle) = visit(module, &uses, &mut Vec::new(), &mut done) {
            let why: Vec<String> = circle
                .windows(2)
                .map(|pair| format!("{} -> {}: {:?}", pair[0], pair[1], uses[&pair[0]][&pair[1]]))
                .collect();
            panic!("a circle of modules:\n{}", why.join("\n"));
        }
    }
}

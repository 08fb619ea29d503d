//! `transcript`: what a reader of the Markdown or the page must be able to trust.
//!
//! - Hostile runs (`tests/fixtures/transcript/hostile.ndjson`, every model- and tool-written
//!   field a payload): in the Markdown rendered by a renderer that passes HTML through, and
//!   in the page — statically and in headless Chromium — no payload becomes an element, an
//!   attribute, a script that runs or a request; all of them are there as text.
//! - The pages of every fixture, recording and capture load in Chromium with no script
//!   error, and their DOM holds each run, each answer and each tool call.
//! - Sizes: hundreds of large outputs stay under GitHub's 1 MiB, every call still listed.
//!
//! The browser tests need Chromium (`chromium`, or `CHROMIUM=/path`); without it they say
//! they skipped, and fail under `CI=true` (`.ci/run` installs it).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::browser::{Browser, browser};
use crate::prerequisite;

const BIN: &str = env!("CARGO_BIN_EXE_cursor-stream");

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn hostile() -> PathBuf {
    root().join("tests/fixtures/transcript/hostile.ndjson")
}

fn cursor_stream(args: &[&str], inputs: &[PathBuf]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).args(inputs).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// One tag of an HTML text: its name (lower case, `/` first for an end tag) and the text of
/// its attributes.
#[derive(Debug)]
struct Tag {
    name: String,
    attrs: String,
}

/// The tags of an HTML text, as a browser's tokenizer finds them in element content (the
/// text of `<script>` and `<style>` elements is skipped, as the tokenizer does).
fn tags(html: &str) -> Vec<Tag> {
    let b = html.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(off) = html[i..].find('<') {
        let start = i + off + 1;
        let mut j = start;
        if b.get(j) == Some(&b'/') {
            j += 1;
        }
        let name_start = j;
        while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'-') {
            j += 1;
        }
        if j == name_start || !b[name_start].is_ascii_alphabetic() {
            i = start;
            continue;
        }
        let name = html[start..j].to_ascii_lowercase();
        // Attributes up to the `>` outside quotes.
        let mut quote = None;
        let mut k = j;
        while k < b.len() {
            match (quote, b[k]) {
                (None, b'"' | b'\'') => quote = Some(b[k]),
                (Some(q), c) if c == q => quote = None,
                (None, b'>') => break,
                _ => {}
            }
            k += 1;
        }
        let attrs = html[j..k.min(b.len())].to_string();
        i = (k + 1).min(b.len());
        if name == "script" || name == "style" {
            // Raw text: up to its end tag.
            if let Some(end) = html[i..].to_ascii_lowercase().find(&format!("</{name}")) {
                i += end;
            }
        }
        out.push(Tag { name, attrs });
    }
    out
}

/// The attributes of a tag, by name (lower case) with their values.
fn attributes(attrs: &str) -> Vec<(String, String)> {
    let b = attrs.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
            i += 1;
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'>' {
            i += 1;
        }
        if start == i {
            i += 1;
            continue;
        }
        let name = attrs[start..i].to_ascii_lowercase();
        let mut value = String::new();
        if b.get(i) == Some(&b'=') {
            i += 1;
            match b.get(i) {
                Some(&q @ (b'"' | b'\'')) => {
                    let end = attrs[i + 1..]
                        .find(q as char)
                        .map_or(b.len(), |e| i + 1 + e);
                    value = attrs[i + 1..end].to_string();
                    i = end + 1;
                }
                _ => {
                    let end = attrs[i..]
                        .find(|c: char| c.is_ascii_whitespace())
                        .map_or(b.len(), |e| i + e);
                    value = attrs[i..end].to_string();
                    i = end;
                }
            }
        }
        out.push((name, value));
    }
    out
}

/// What in an HTML text could act: elements that run, load or restyle, event-handler
/// attributes, links to anything but the web, mail or the page itself. `scripts`/`styles`:
/// how many of those elements the page may have (its own).
fn dangers(html: &str, scripts: usize, styles: usize) -> Vec<String> {
    let mut found = Vec::new();
    let tags = tags(html);
    for (name, allowed) in [("script", scripts), ("style", styles)] {
        let n = tags.iter().filter(|t| t.name == name).count();
        if n != allowed {
            found.push(format!("{n} <{name}> elements, expected {allowed}"));
        }
    }
    for tag in &tags {
        if matches!(
            tag.name.as_str(),
            "img"
                | "svg"
                | "iframe"
                | "object"
                | "embed"
                | "link"
                | "base"
                | "math"
                | "video"
                | "audio"
                | "frame"
                | "frameset"
                | "input"
                | "textarea"
                | "button"
                | "img/"
        ) {
            found.push(format!("<{}{}>", tag.name, tag.attrs));
        }
        for (attr, value) in attributes(&tag.attrs) {
            if attr.starts_with("on") {
                found.push(format!("handler {attr} on <{}>", tag.name));
            }
            let v = value.trim().to_ascii_lowercase();
            if matches!(
                attr.as_str(),
                "href" | "src" | "action" | "formaction" | "xlink:href"
            ) && !(v.starts_with("https://")
                || v.starts_with("http://")
                || v.starts_with("mailto:")
                || v.starts_with('#'))
            {
                found.push(format!("{attr}={value:?} on <{}>", tag.name));
            }
            if attr == "style" && (v.contains("url(") || v.contains("expression")) {
                found.push(format!("style {value:?} on <{}>", tag.name));
            }
        }
    }
    found
}

/// The payloads of the hostile fixture that must be found as text.
const PAYLOAD_TEXTS: &[&str] = &[
    "setAttribute('data-pwned','script')",
    "setAttribute('data-pwned','img')",
    "setAttribute('data-pwned','svg')",
    "setAttribute('data-pwned','break')",
    "setAttribute('data-pwned','fence')",
    "evil.example/frame",
    "body{display:none}",
];

/// GitHub-flavoured Markdown as a renderer that keeps raw HTML renders it.
fn render_markdown(md: &str) -> String {
    use pulldown_cmark::{Options, Parser, html};
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES;
    let mut out = String::new();
    html::push_html(&mut out, Parser::new_ext(md, options));
    out
}

fn no_terminal_controls(what: &str, text: &str) {
    let bad: Vec<char> = text
        .chars()
        .filter(|&c| c.is_control() && c != '\n' && c != '\t')
        .collect();
    assert!(bad.is_empty(), "{what}: control characters {bad:?}");
    for c in ['\u{202e}', '\u{202d}', '\u{2066}'] {
        assert!(!text.contains(c), "{what}: bidi control {c:?}");
    }
}

#[test]
fn hostile_payloads_stay_text_in_the_markdown() {
    let (code, md, _) = cursor_stream(&["transcript"], &[hostile()]);
    assert_eq!(code, 1, "the Claude run fails");
    no_terminal_controls("markdown", &md);
    let html = render_markdown(&md);
    // A Markdown image to a web address is the model's to show (GitHub proxies it): the
    // one the fixture has is allowed, nothing else.
    let found: Vec<String> = dangers(&html, 0, 0)
        .into_iter()
        .filter(|d| d != "<img src=\"https://evil.example/pixel.png\" alt=\"tracker\" />")
        .collect();
    assert!(found.is_empty(), "rendered Markdown has {found:#?}");
    for tag in tags(&html) {
        assert!(
            !tag.attrs.contains("javascript:") && !tag.attrs.contains("data:text"),
            "{tag:?}"
        );
    }
    for text in PAYLOAD_TEXTS {
        assert!(md.contains(text), "{text} missing from the Markdown");
    }
    // Every call is listed, with its status.
    for line in [
        "✅ <b>shell</b>",
        "❌ <b>read</b>",
        "🚫 <b>edit</b>",
        "✅ <b>&lt;img src=",
        "❌ <b>Bash &lt;script&gt;",
    ] {
        assert!(md.contains(line), "{line} missing");
    }
}

#[test]
fn hostile_payloads_stay_text_in_the_page() {
    let (code, page, _) = cursor_stream(&["transcript", "--html"], &[hostile()]);
    assert_eq!(code, 1);
    no_terminal_controls("page", &page);
    let found = dangers(&page, 1, 1);
    assert!(found.is_empty(), "the page has {found:#?}");
    // Only the elements the page is made of.
    const OURS: &[&str] = &[
        "html",
        "head",
        "meta",
        "title",
        "style",
        "body",
        "header",
        "h1",
        "p",
        "form",
        "label",
        "select",
        "option",
        "output",
        "main",
        "table",
        "caption",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "a",
        "span",
        "code",
        "section",
        "h2",
        "strong",
        "figure",
        "div",
        "figcaption",
        "ol",
        "ul",
        "li",
        "details",
        "summary",
        "b",
        "h4",
        "h5",
        "pre",
        "em",
        "footer",
        "script",
        "blockquote",
        "hr",
        "del",
        "h3",
        "h6",
        "br",
        "sup",
        "!doctype",
    ];
    for tag in tags(&page) {
        let name = tag.name.trim_start_matches('/');
        assert!(OURS.contains(&name), "unexpected element {tag:?}");
    }
    for text in PAYLOAD_TEXTS {
        assert!(page.contains(text), "{text} missing from the page");
    }
}

/// The `<html …>` start tag of a DOM dump.
fn root_tag(dom: &str) -> &str {
    let start = dom.find("<html").expect("no <html> in the DOM");
    &dom[start..start + dom[start..].find('>').unwrap()]
}

/// Checks that the page loaded and its script ran to the end.
fn assert_loaded(dom: &str, what: &str) {
    let root = root_tag(dom);
    assert!(
        !root.contains("data-script-error"),
        "{what}: script error: {root}"
    );
    assert!(
        root.contains("data-ready=\"1\""),
        "{what}: the page script did not finish: {root}"
    );
}

/// Text of an HTML fragment: tags dropped, entities decoded, whitespace collapsed.
fn text_of(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                text.push(' ');
            }
            c if !in_tag => text.push(c),
            _ => {}
        }
    }
    let text = text
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn write_page(dir: &Path, name: &str, args: &[&str], inputs: &[PathBuf]) -> PathBuf {
    let mut all = vec!["transcript", "--html"];
    all.extend_from_slice(args);
    let (_, page, stderr) = cursor_stream(&all, inputs);
    assert!(!page.is_empty(), "no page for {name}: {stderr}");
    let path = dir.join(format!("{name}.html"));
    std::fs::write(&path, page).unwrap();
    path
}

#[test]
fn hostile_page_runs_no_payload_and_loads_nothing_in_a_browser() {
    let Some(browser) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = write_page(dir.path(), "hostile", &[], &[hostile()]);
    let netlog = dir.path().join("netlog.json");
    let dom = browser.dom(&page, Some(&netlog));
    assert_loaded(&dom, "hostile");
    assert!(
        !root_tag(&dom).contains("data-pwned"),
        "a payload ran: {}",
        root_tag(&dom)
    );
    let found = dangers(&dom, 1, 1);
    assert!(found.is_empty(), "the DOM has {found:#?}");
    let text = text_of(&dom);
    for payload in PAYLOAD_TEXTS {
        assert!(
            text.contains(payload),
            "{payload} is not in the page's text"
        );
    }
    assert!(
        text.contains(
            "<script>document.documentElement.setAttribute('data-pwned','script')</script>"
        ),
        "the script payload is not shown as text"
    );
    let log = std::fs::read_to_string(&netlog).unwrap_or_default();
    assert!(!log.is_empty(), "chromium wrote no network log");
    for host in ["198.51.100.", "evil.example"] {
        assert!(!log.contains(host), "the page made a request to {host}");
    }
}

/// The agent fixtures a page can be made of without `--agent`, and the recordings.
fn fixture_streams() -> Vec<PathBuf> {
    let mut streams = Vec::new();
    let mut expects = Vec::new();
    for dir in ["tests/fixtures/agents", "tests/fixtures/recorded"] {
        collect(&root().join(dir), &mut expects);
    }
    for expect in expects {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&expect).unwrap()).unwrap();
        if !v["agent_flag"].is_null() {
            continue;
        }
        let stem = expect
            .to_str()
            .unwrap()
            .strip_suffix(".expect.json")
            .unwrap();
        let stream = [".ndjson", ".stdout"]
            .iter()
            .map(|ext| PathBuf::from(format!("{stem}{ext}")))
            .chain(std::iter::once(root().join("examples").join(format!(
                "{}.ndjson",
                Path::new(stem).file_name().unwrap().to_str().unwrap()
            ))))
            .find(|p| p.exists())
            .unwrap();
        streams.push(stream);
    }
    streams.sort();
    streams
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.to_str().unwrap().ends_with(".expect.json") {
            out.push(path);
        }
    }
}

/// Loads the page of `inputs` and checks it holds a section per run, an entry per tool
/// call (as many as `stats` and `tools` count on the same inputs) and each of `answers`.
fn check_page(browser: &Browser, name: &str, inputs: &[PathBuf], answers: &[String]) {
    let dir = tempfile::tempdir().unwrap();
    let page = write_page(dir.path(), name, &[], inputs);
    let dom = browser.dom(&page, None);
    assert_loaded(&dom, name);
    let (_, stats, _) = cursor_stream(&["stats", "--json"], inputs);
    let (_, tools, _) = cursor_stream(&["tools", "--json"], inputs);
    let runs = dom.matches("<section class=\"run\"").count();
    assert_eq!(runs, stats.lines().count(), "{name}: runs in the page");
    let calls = dom.matches("<li class=\"call").count();
    assert_eq!(
        calls,
        tools.lines().count(),
        "{name}: tool calls in the page"
    );
    let text = text_of(&dom);
    for answer in answers {
        let expected = text_of(&render_markdown(answer));
        assert!(
            text.contains(&expected),
            "{name}: the answer {expected:?} is not in the page"
        );
    }
}

#[test]
fn a_link_to_a_call_opens_it_and_the_filters_show() {
    let Some(browser) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = write_page(
        dir.path(),
        "two-runs",
        &[],
        &[root().join("tests/fixtures/two-runs.ndjson")],
    );
    // A timeline bar links to its call: `#r2-c1` is the first call of the second run.
    let dom = browser.dom_at(&page, "#r2-c1", None);
    assert_loaded(&dom, "two-runs");
    let call = dom.find("id=\"r2-c1\"").expect("no call r2-c1");
    let tag_start = dom[..call].rfind('<').unwrap();
    let tag = &dom[tag_start..call + dom[call..].find('>').unwrap()];
    assert!(tag.contains(" open"), "the call is not open: {tag}");
    assert!(dom.contains("href=\"#r2-c1\""), "no bar links to the call");
    // Only the linked call is open; the filters, hidden without a script, are shown.
    let open = tags(&dom)
        .into_iter()
        .filter(|t| t.name == "details" && attributes(&t.attrs).iter().any(|(a, _)| a == "open"))
        .count();
    assert_eq!(open, 1, "open calls");
    let form = &dom[dom.find("<form id=\"filters\"").unwrap()..];
    assert!(
        !form[..form.find('>').unwrap()].contains("hidden"),
        "the filters stay hidden"
    );
    assert!(
        dom.contains("<option value=\"shell\">shell (3)</option>"),
        "no tool filter"
    );
}

#[test]
fn every_fixture_and_recording_reads_in_a_browser() {
    let Some(browser) = browser() else { return };
    let streams = fixture_streams();
    assert!(streams.len() > 80, "{} streams", streams.len());
    let mut answers = Vec::new();
    for stream in &streams {
        let stem = stream.to_str().unwrap();
        let stem = stem
            .strip_suffix(".ndjson")
            .or(stem.strip_suffix(".stdout"))
            .unwrap();
        let expect_path = if stream.starts_with(root().join("examples")) {
            root().join("tests/fixtures/agents/examples").join(format!(
                "{}.expect.json",
                Path::new(stem).file_name().unwrap().to_str().unwrap()
            ))
        } else {
            PathBuf::from(format!("{stem}.expect.json"))
        };
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(expect_path).unwrap()).unwrap();
        for run in v["runs"].as_array().unwrap() {
            for piece in run["answer_pieces"].as_array().into_iter().flatten() {
                let piece = piece.as_str().unwrap().trim();
                if !piece.is_empty() {
                    answers.push(piece.to_string());
                }
            }
        }
    }
    check_page(&browser, "fixtures", &streams, &answers);
}

#[test]
fn every_capture_reads_in_a_browser() {
    let captures = root().join("../shared/captures");
    if !captures.is_dir() {
        return prerequisite::missing(&format!("no captures at {}", captures.display()));
    }
    let Some(browser) = browser() else { return };
    let mut groups: Vec<(String, Vec<PathBuf>)> = Vec::new();
    let mut top = Vec::new();
    for entry in std::fs::read_dir(&captures).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(&path)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl" || e == "ndjson"))
                .collect();
            files.sort();
            groups.push((path.file_name().unwrap().to_string_lossy().into(), files));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            top.push(path);
        }
    }
    top.sort();
    groups.push(("cursor".into(), top));
    for (name, files) in groups {
        if !files.is_empty() {
            check_page(&browser, &name, &files, &[]);
        }
    }
}

/// A Cursor run of `calls` shell calls, each printing `output_lines` lines of 100 bytes.
fn big_run(calls: usize, output_lines: usize) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    let sid = "7a7a7a7a-0000-4000-8000-000000000000";
    let w = file.as_file_mut();
    writeln!(w, r#"{{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"{sid}","model":"gpt-5","permissionMode":"default"}}"#).unwrap();
    let line = format!("{}\\n", "x".repeat(99));
    let output = line.repeat(output_lines);
    for i in 0..calls {
        let args = format!(r#"{{"command":"make part-{i}","workingDirectory":"/w"}}"#);
        writeln!(w, r#"{{"type":"tool_call","subtype":"started","call_id":"c{i}","tool_call":{{"shellToolCall":{{"args":{args}}}}},"session_id":"{sid}"}}"#).unwrap();
        writeln!(w, r#"{{"type":"tool_call","subtype":"completed","call_id":"c{i}","tool_call":{{"shellToolCall":{{"args":{args},"result":{{"success":{{"exitCode":0,"stdout":"{output}end of part-{i}\n","stderr":""}}}}}}}},"session_id":"{sid}"}}"#).unwrap();
    }
    writeln!(w, r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":"Built every part."}}]}},"session_id":"{sid}"}}"#).unwrap();
    writeln!(w, r#"{{"type":"result","subtype":"success","duration_ms":1000,"duration_api_ms":900,"is_error":false,"result":"Built every part.","session_id":"{sid}"}}"#).unwrap();
    w.flush().unwrap();
    file
}

#[test]
fn hundreds_of_large_outputs_stay_under_a_mebibyte_with_every_call_listed() {
    // 400 calls of 40 KiB of output each: 16 MiB of log.
    let log = big_run(400, 400);
    let input = [log.path().to_path_buf()];
    let (code, md, _) = cursor_stream(&["transcript"], &input);
    assert_eq!(code, 0);
    assert!(md.len() < 1 << 20, "{} bytes of Markdown", md.len());
    assert_eq!(md.matches("<b>shell</b>").count(), 400, "every call listed");
    assert!(md.contains("<code>make part-399</code>"));
    assert!(md.contains("Built every part."));
    assert!(md.contains("`--full` keeps"), "the cuts are not said");

    let (_, page, _) = cursor_stream(&["transcript", "--html"], &input);
    assert!(page.len() < 9 << 20, "{} bytes of HTML", page.len());
    assert_eq!(page.matches("<li class=\"call").count(), 400);

    let (_, full, _) = cursor_stream(&["transcript", "--full"], &input);
    assert!(full.len() > 16_000_000, "--full: {} bytes", full.len());
    for i in [0, 199, 399] {
        assert!(
            full.contains(&format!("end of part-{i}\n")),
            "--full lost part {i}"
        );
    }
    assert!(!full.contains("--full` keeps"));
}

#[test]
#[cfg_attr(not(target_os = "linux"), ignore = "peak memory is read from /proc")]
fn full_transcripts_of_a_large_log_keep_memory_flat() {
    // 40 runs of 20 calls of 40 KiB of output: 32 MiB of log, all of it shown. The
    // sections wait for the table of runs in a temporary file past 2 MiB (the whole
    // document was held before: 718 MB for the 1 GiB benchmark log).
    let run = std::fs::read(big_run(20, 400).path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.ndjson");
    let many = dir.path().join("many.ndjson");
    std::fs::write(&one, &run).unwrap();
    std::fs::write(&many, run.repeat(40)).unwrap();
    let peak = |args: &[&str], input: &Path, tmpdir: &Path| {
        let out = Command::new(BIN)
            .args(args)
            .arg(input)
            .env("CURSOR_STREAM_PEAK_MEMORY", "1")
            .env("TMPDIR", tmpdir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let err = String::from_utf8(out.stderr).unwrap();
        let kib: u64 = err
            .lines()
            .find_map(|l| l.strip_prefix("cursor-stream: peak memory: "))
            .and_then(|kib| kib.trim_end_matches(" KiB").parse().ok())
            .expect("no peak memory report");
        (kib, out.stdout)
    };
    let tmp = std::env::temp_dir();
    for args in [
        &["transcript", "--full"][..],
        &["transcript", "--full", "--html"],
    ] {
        let (small, _) = peak(args, &one, &tmp);
        let (large, doc) = peak(args, &many, &tmp);
        assert!(doc.len() > 30_000_000, "{args:?}: {} bytes", doc.len());
        assert!(
            large < small + 8 * 1024,
            "{args:?}: {large} KiB for 40 runs, {small} KiB for one"
        );
        // No temporary file can be made: the same document, held in memory.
        let (_, in_memory) = peak(args, &many, &dir.path().join("no-such-dir"));
        assert!(in_memory == doc, "{args:?}: the same bytes either way");
        let doc = String::from_utf8(doc).unwrap();
        assert_eq!(doc.matches("end of part-19\n").count(), 40, "{args:?}");
    }
}

#[test]
fn several_runs_start_with_a_table_of_them() {
    let input = [root().join("tests/fixtures/two-runs.ndjson")];
    let (code, md, _) = cursor_stream(&["transcript"], &input);
    assert_eq!(code, 0);
    assert!(md.starts_with("## 2 runs\n\n| # | agent |"), "{md}");
    assert_eq!(
        md.matches("\n| 1 | cursor |").count() + md.matches("\n| 2 | cursor |").count(),
        2
    );
    let table = md.find("| 2 | cursor |").unwrap();
    let first_section = md.find("## ✅ Run 1 ·").unwrap();
    let second_section = md.find("## ✅ Run 2 ·").unwrap();
    assert!(table < first_section && first_section < second_section);

    let (_, page, _) = cursor_stream(&["transcript", "--html"], &input);
    assert!(page.contains("<table class=\"runs\">"));
    assert!(page.contains("<a href=\"#run-2\">2</a>"));
}

#[test]
fn a_run_still_in_progress_is_shown_as_far_as_it_went() {
    let input = [root().join("tests/fixtures/no-result.ndjson")];
    let (code, md, _) = cursor_stream(&["transcript"], &input);
    assert_eq!(code, 3, "as the other run views");
    assert!(md.contains("Unfinished"), "{md}");
    let (code, page, _) = cursor_stream(&["transcript", "--html"], &input);
    assert_eq!(code, 3);
    assert!(page.contains("<span class=\"badge unfinished\">unfinished</span>"));
}

#[test]
fn a_failed_run_says_why() {
    let input = [root().join("tests/fixtures/failed.ndjson")];
    let (code, md, _) = cursor_stream(&["transcript"], &input);
    assert_eq!(code, 1);
    assert!(md.contains("> ❌ **The run failed"), "{md}");
}

#[test]
fn a_live_stream_becomes_a_page_and_its_log() {
    let dir = tempfile::tempdir().unwrap();
    let tee = dir.path().join("run.ndjson");
    let input = std::fs::read(root().join("examples/session.ndjson")).unwrap();
    let mut child = Command::new(BIN)
        .args(["transcript", "--html", "--tee"])
        .arg(&tee)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with("<!doctype html>") && page.ends_with("</html>\n"));
    assert!(page.contains("<b class=\"tool\">shell</b> <code>cargo test</code>"));
    assert_eq!(std::fs::read(&tee).unwrap(), input);
}

#[test]
fn a_run_of_countless_small_events_keeps_memory_bounded() {
    // 200,000 reasoning phases in one run: each would be an entry; past the budget they are
    // counted, not kept (45 MiB before, whatever the budget).
    let mut file = tempfile::NamedTempFile::new().unwrap();
    let w = file.as_file_mut();
    writeln!(
        w,
        r#"{{"type":"system","subtype":"init","session_id":"s","model":"m","cwd":"/w"}}"#
    )
    .unwrap();
    for i in 0..200_000 {
        writeln!(w, r#"{{"type":"thinking","subtype":"delta","text":"t{i}","session_id":"s","timestamp_ms":{i}}}"#).unwrap();
        writeln!(
            w,
            r#"{{"type":"thinking","subtype":"completed","session_id":"s","timestamp_ms":{i}}}"#
        )
        .unwrap();
    }
    writeln!(
        w,
        r#"{{"type":"result","subtype":"success","is_error":false,"result":"","session_id":"s"}}"#
    )
    .unwrap();
    w.flush().unwrap();
    let out = Command::new(BIN)
        .args(["transcript"])
        .arg(file.path())
        .env("CURSOR_STREAM_PEAK_MEMORY", "1")
        .output()
        .unwrap();
    let md = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(md.len() < 1 << 20, "{} bytes", md.len());
    assert!(
        md.contains("more events (answer segments, reasoning, notices) left out"),
        "{md}"
    );
    let peak: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("cursor-stream: peak memory: "))
        .and_then(|kib| kib.trim_end_matches(" KiB").parse().ok())
        .expect("no peak memory report");
    assert!(peak < 24 * 1024, "{peak} KiB");
}

/// The session log a recorded run's store holds (`tests/fixtures/recorded/…/<run>.store/`).
fn store_log(agent: &str, run: &str) -> PathBuf {
    let recorded = root().join("tests/fixtures/recorded").join(agent);
    let version = std::fs::read_dir(&recorded)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let mut dirs = vec![version.join(format!("{run}.store"))];
    while let Some(dir) = dirs.pop() {
        for path in std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()) {
            let name = path.file_name().unwrap().to_str().unwrap();
            if path.is_dir() {
                dirs.push(path);
            } else if name == "opencode.db"
                || (name.ends_with(".jsonl") && name != "usage_record.jsonl")
            {
                return path;
            }
        }
    }
    panic!("no session log for {agent} {run}")
}

/// A recorded run's stream, beside its store.
fn stream_of(agent: &str, run: &str) -> PathBuf {
    let log = store_log(agent, run);
    let store = log
        .ancestors()
        .find(|p| p.to_string_lossy().ends_with(".store"))
        .unwrap();
    store.with_file_name(format!("{run}.stdout"))
}

#[test]
fn a_call_says_what_it_does_alike_in_a_store_and_its_stream() {
    // Codex names one command `exec_command` in its rollout, `command_execution` in its
    // stream: each keeps its name, both read as a shell command.
    for (input, tool) in [
        (store_log("codex", "tool"), "exec_command"),
        (stream_of("codex", "tool"), "command_execution"),
    ] {
        let (_, md, _) = cursor_stream(&["transcript"], std::slice::from_ref(&input));
        assert!(
            md.contains(&format!("✅ <b>{tool}</b> (shell) <code>")),
            "{md}"
        );
        let (_, page, _) = cursor_stream(&["transcript", "--html"], &[input]);
        assert!(
            page.contains(&format!("data-tool=\"{tool}\" data-kind=\"shell\"")),
            "{page}"
        );
        assert!(page.contains(&format!(
            "<b class=\"tool\">{tool}</b> <span class=\"kind\">shell</span>"
        )));
    }
    // A name that says it already is not repeated.
    let (_, md, _) = cursor_stream(&["transcript"], &[root().join("examples/session.ndjson")]);
    assert!(
        md.contains("<b>shell</b> <code>") && !md.contains("(shell)"),
        "{md}"
    );
}

/// The sections of a transcript, one per run, each from its heading on.
fn sections(doc: &str, html: bool) -> Vec<&str> {
    let heading = if html {
        "<section class=\"run\""
    } else {
        "\n## "
    };
    doc.split(heading)
        .skip(1)
        .filter(|s| html || !s.ends_with(" runs\n") && s.contains(" Run "))
        .collect()
}

#[test]
fn every_session_log_opens_each_run_with_its_prompt() {
    // Each recorded prompt reads `<text> SCEN_<NAME> RUN=<agent>-<run> WORKDIR=<dir>`.
    for agent in ["claude", "codex", "gemini", "qwen", "opencode"] {
        for (run, prompts) in [
            ("tool", &["tool"][..]),
            ("resume.2", &["resume.1", "resume.2"]),
        ] {
            let log = store_log(agent, run);
            for html in [false, true] {
                let args: &[&str] = if html {
                    &["transcript", "--html"]
                } else {
                    &["transcript"]
                };
                let (_, doc, _) = cursor_stream(args, std::slice::from_ref(&log));
                let doc = format!("\n{doc}");
                let runs = sections(&doc, html);
                assert_eq!(runs.len(), prompts.len(), "{agent} {run}: {doc}");
                for (section, prompt) in runs.iter().zip(prompts) {
                    let words = format!("RUN={agent}-{prompt} WORKDIR=");
                    let at = section.find(&words).unwrap_or_else(|| {
                        panic!("{agent} {run} (html: {html}): no prompt {words} in {section}")
                    });
                    // Before what the agent did: its answer, its calls.
                    for then in [
                        "Hello from",
                        "Resuming with",
                        "I will run",
                        "<details",
                        "<li",
                    ] {
                        if let Some(later) = section.find(then) {
                            assert!(at < later, "{agent} {run}: the prompt after {then}");
                        }
                    }
                }
            }
        }
    }
}

/// The Markdown and the page of the sessions of a fake HOME (`tests/fixtures/history`).
fn transcripts_of_home(shape: &str) -> (String, String) {
    let home = root()
        .join("tests/fixtures/history")
        .join(shape)
        .join("home");
    let run = |html: bool| {
        let mut cmd = Command::new(BIN);
        crate::home::in_home(&mut cmd, &home).args(["-q", "transcript", "--full", "--from", "all"]);
        if html {
            cmd.arg("--html");
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    (run(false), run(true))
}

#[test]
fn a_prompt_is_the_users_words_without_what_the_agent_wrapped_them_in() {
    let cases: &[(&str, &str, &[&str])] = &[
        // A slash command, as the user typed it.
        (
            "claude/1.0.108-inline-sidechain",
            "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください",
            &["command-message", "command-name", "is running…"],
        ),
        // The file the IDE had open is not what the user said.
        (
            "claude/2.0.74-queue-operation",
            "create me a .github/CODEOWNERS",
            &["ide_opened_file", "The user opened the file"],
        ),
        // A command run in Claude Code's bash mode is the user's, not a prompt: the run
        // opens with the request that followed it.
        (
            "claude/1.0.51-hook-system-lines",
            "please fix these",
            &["bash-input", "bash-stdout"],
        ),
        // Codex's IDE extension puts its context before the request.
        (
            "codex/0.40-vscode-aborted",
            "Why do we need stats for the team?",
            &[
                "Context from my IDE setup",
                "My request for Codex",
                "Open tabs",
            ],
        ),
        // Cursor's transcripts wrap the query and its time.
        (
            "cursor/2026.04-nested-jsonl",
            "GREETINGS, AGENT -- ARISE",
            &["user_query", "<timestamp>"],
        ),
    ];
    for (shape, words, wrappers) in cases {
        let (md, page) = transcripts_of_home(shape);
        assert!(md.contains("Prompt"), "{shape}: no prompt in {md}");
        for (what, doc) in [("markdown", &md), ("page", &page)] {
            assert!(doc.contains(words), "{shape} {what}: no {words:?} in {doc}");
            for wrapper in *wrappers {
                assert!(
                    !doc.contains(wrapper),
                    "{shape} {what}: {wrapper:?} in {doc}"
                );
            }
        }
    }
}

#[test]
fn a_long_prompt_is_folded_and_a_short_one_is_not() {
    // "Implement the following plan:" and the whole plan: folded, its first line the title.
    let (md, page) = transcripts_of_home("claude/2.1.41-agent-progress");
    let long = "<details><summary>💬 <b>Prompt</b> · Implement the following plan:";
    assert!(md.contains(long), "{md}");
    assert!(
        page.contains(
            "<details class=\"prompt\"><summary><b>Prompt</b> · Implement the following plan:"
        ),
        "{page}"
    );
    // The short ones after it are quoted whole.
    assert!(
        md.contains("**💬 Prompt**\n\n> no dont implement the plan, write the plan we discussed to IMPLEMENTATION_PLAN.md\n"),
        "{md}"
    );
    assert!(page.contains("<blockquote class=\"prompt\">"), "{page}");
}

#[test]
fn a_hostile_prompt_stays_text() {
    // A recorded Claude log whose prompt is the hostile fixture's payloads.
    let hostile = std::fs::read_to_string(hostile()).unwrap();
    let thinking: serde_json::Value = serde_json::from_str(
        hostile
            .lines()
            .find(|l| l.contains("\"thinking\""))
            .unwrap(),
    )
    .unwrap();
    let payload = thinking["text"].as_str().unwrap();
    let log = std::fs::read_to_string(store_log("claude", "plain")).unwrap();
    let prompt =
        "Say hello. SCEN_PLAIN RUN=claude-plain WORKDIR=/tmp/cs-e2e/pinned/claude/plain/proj";
    let json_prompt = serde_json::to_string(prompt).unwrap();
    let json_payload = serde_json::to_string(payload).unwrap();
    let log = log.replace(&json_prompt, &json_payload);
    assert!(log.contains("data-pwned"));
    let dir = tempfile::tempdir().unwrap();
    let file = dir
        .path()
        .join("73ff66c6-0a22-4cf9-9ad4-f52200ae212f.jsonl");
    std::fs::write(&file, log).unwrap();

    let (_, md, _) = cursor_stream(&["transcript"], std::slice::from_ref(&file));
    no_terminal_controls("markdown", &md);
    let rendered = render_markdown(&md);
    let found: Vec<String> = dangers(&rendered, 0, 0)
        .into_iter()
        .filter(|d| d != "<img src=\"https://evil.example/pixel.png\" alt=\"tracker\" />")
        .collect();
    assert!(found.is_empty(), "rendered Markdown has {found:#?}");
    let (_, page, _) = cursor_stream(&["transcript", "--html"], &[file]);
    no_terminal_controls("page", &page);
    let found = dangers(&page, 1, 1);
    assert!(found.is_empty(), "the page has {found:#?}");
    for text in PAYLOAD_TEXTS {
        assert!(md.contains(text), "{text} missing from the Markdown");
        assert!(page.contains(text), "{text} missing from the page");
    }
}

#[test]
fn a_prompt_leaves_out_the_files_its_at_mentions_added() {
    // Qwen Code 0.14's words and the files they name, in a log Qwen Code 0.24 wrote (the
    // older log is read as Qwen's elsewhere, issue 36 item 1): as Gemini CLI, it adds the
    // files after the words.
    let old = root().join("tests/fixtures/history/qwen/0.14-jsonl-windows/home");
    let old = crate::home::files_under(&old)
        .into_iter()
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let old = std::fs::read_to_string(old).unwrap();
    let with_files: serde_json::Value = serde_json::from_str(
        old.lines()
            .find(|l| l.contains("Content from referenced files"))
            .unwrap(),
    )
    .unwrap();
    let parts = serde_json::to_string(&with_files["message"]["parts"]).unwrap();
    let log = store_log("qwen", "plain");
    let recorded = std::fs::read_to_string(&log).unwrap();
    let words = r#"[{"text":"Say hello. SCEN_PLAIN RUN=qwen-plain WORKDIR=/tmp/cs-e2e/pinned/qwen/plain/proj"}]"#;
    assert!(recorded.contains(words));
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(log.file_name().unwrap());
    std::fs::write(&file, recorded.replace(words, &parts)).unwrap();
    for args in [&["transcript"][..], &["transcript", "--html"]] {
        let (_, doc, _) = cursor_stream(args, std::slice::from_ref(&file));
        assert!(
            doc.contains("cái này có dùng dc agent skill ko ??"),
            "{doc}"
        );
        for added in ["Content from referenced files", "Showing up"] {
            assert!(!doc.contains(added), "{added:?} in {doc}");
        }
    }
}

#[test]
fn a_stream_that_says_its_prompt_opens_its_run_with_it() {
    // Claude Code with `--replay-user-messages` echoes the prompt after its init, marked
    // `isReplay`; the other user lines of its stream (tool results, a local command's
    // output) are not the prompt.
    let recorded = std::fs::read_to_string(stream_of("claude", "tool")).unwrap();
    let (init, rest) = recorded.split_once('\n').unwrap();
    let replay = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>The user opened the file a.rs in the IDE.</ide_opened_file>"},{"type":"text","text":"Run echo hi, replayed."}]},"parent_tool_use_id":null,"session_id":"715f7aac-5a00-4e0b-8f37-be03d9c6249e","uuid":"u-1","isReplay":true}"#;
    let local = r#"{"type":"user","message":{"role":"user","content":"<local-command-stdout>Set model to haiku</local-command-stdout>"},"parent_tool_use_id":null,"session_id":"715f7aac-5a00-4e0b-8f37-be03d9c6249e","uuid":"u-0","isReplay":true}"#;
    let dir = tempfile::tempdir().unwrap();
    let claude = dir.path().join("claude.ndjson");
    std::fs::write(&claude, format!("{init}\n{local}\n{replay}\n{rest}")).unwrap();
    let cases = [
        // Cursor's stream echoes it on its second line.
        (
            root().join("examples/session.ndjson"),
            "Add a --shout flag to the greeter and run the tests.",
        ),
        // Gemini CLI's, as a user message.
        (
            stream_of("gemini", "tool"),
            "Run echo hi. SCEN_TOOL RUN=gemini-tool WORKDIR=",
        ),
        // Codex's before 0.44, on a line of its own.
        (
            root().join("tests/fixtures/agents/codex/legacy.ndjson"),
            "Run the tests and tell me why the failing one fails.",
        ),
        (claude, "Run echo hi, replayed."),
    ];
    for (input, words) in cases {
        for html in [false, true] {
            let args: &[&str] = if html {
                &["transcript", "--html"]
            } else {
                &["transcript"]
            };
            let (_, doc, _) = cursor_stream(args, std::slice::from_ref(&input));
            let doc = format!("\n{doc}");
            let runs = sections(&doc, html);
            let at = runs[0].find(words).unwrap_or_else(|| {
                panic!(
                    "{} (html: {html}): no prompt {words:?} in {doc}",
                    input.display()
                )
            });
            assert!(runs[0][..at].contains("Prompt"), "{doc}");
            for then in ["<details", "<li"] {
                if let Some(later) = runs[0].find(then) {
                    assert!(at < later, "{}: the prompt after {then}", input.display());
                }
            }
            for wrapped in ["ide_opened_file", "Set model to haiku"] {
                assert!(!doc.contains(wrapped), "{wrapped} in {doc}");
            }
        }
    }
}

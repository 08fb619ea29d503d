//! The model's Markdown (its answer, its reasoning) made safe for a transcript.
//!
//! For the Markdown transcript the text stays as the model wrote it, except what a
//! renderer would turn into markup: raw HTML is escaped (GitHub strips it, other
//! renderers do not), links and images to anything but http(s), mailto or a relative
//! address become their text, and a code fence left open is closed so that it cannot
//! swallow the rest of the transcript. For the HTML page it is rendered with
//! pulldown-cmark, raw HTML shown as code, links limited to http(s) and mailto, and
//! images shown as links (a page that loads nothing from the network).

use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

use super::escape;

/// GitHub-flavoured Markdown, as far as it is CommonMark's.
fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_FOOTNOTES
}

/// Whether a link to `dest` may stay a link. `relative`: addresses with no scheme too
/// (they point into the page's own site in a Markdown viewer; in a file opened offline
/// they would point at local files).
fn link_allowed(dest: &str, relative: bool) -> bool {
    let dest = dest.trim();
    let scheme_end = dest.find([':', '/', '?', '#']);
    match scheme_end {
        Some(i) if dest.as_bytes()[i] == b':' => {
            let scheme = dest[..i].to_ascii_lowercase();
            matches!(scheme.as_str(), "http" | "https" | "mailto")
        }
        _ => relative && !dest.starts_with("//"),
    }
}

/// The model's Markdown, safe to put in a Markdown transcript (see the module doc).
pub(crate) fn markdown(src: &str) -> String {
    let mut text = src.to_string();
    for _ in 0..4 {
        match neutralize(&text) {
            Some(safer) => text = safer,
            None => return close_fence(text),
        }
    }
    // Escaping kept uncovering markup (not seen in practice): show the text as code.
    let fence = escape::fence(src);
    format!("{fence}text\n{src}\n{fence}\n")
}

/// One pass of escaping; `None` when there was nothing to escape.
fn neutralize(src: &str) -> Option<String> {
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    // A link being replaced by its text: its range, the text so far, its nesting.
    let mut link: Option<(Range<usize>, String, usize)> = None;
    for (ev, range) in Parser::new_ext(src, options()).into_offset_iter() {
        if let Some((_, text, depth)) = &mut link {
            match ev {
                Event::Start(Tag::Link { .. } | Tag::Image { .. }) => *depth += 1,
                Event::End(TagEnd::Link | TagEnd::Image) if *depth > 0 => *depth -= 1,
                Event::End(TagEnd::Link | TagEnd::Image) => {
                    let (range, text, _) = link.take().unwrap_or_default();
                    let mut escaped = String::new();
                    escape::markdown_inline(&mut escaped, &text);
                    edits.push((range, escaped));
                }
                Event::Text(t) | Event::Code(t) => text.push_str(&t),
                _ => {}
            }
            continue;
        }
        match ev {
            Event::Html(_) | Event::InlineHtml(_) => {
                edits.push((range.clone(), src[range].replace('<', "&lt;")));
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. })
                if !link_allowed(&dest_url, true) =>
            {
                link = Some((range, String::new(), 0));
            }
            _ => {}
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(src.len() + 16);
    let mut at = 0;
    for (range, replacement) in edits {
        if range.start < at {
            continue; // inside an edit already made
        }
        out.push_str(&src[at..range.start]);
        out.push_str(&replacement);
        at = range.end;
    }
    out.push_str(&src[at..]);
    Some(out)
}

/// Closes a fenced code block the text leaves open at its top level, which would
/// otherwise hold everything after it.
fn close_fence(mut text: String) -> String {
    let mut depth = 0usize;
    let mut last_fenced: Option<Range<usize>> = None;
    for (ev, range) in Parser::new_ext(&text, options()).into_offset_iter() {
        match ev {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) if depth == 0 => {
                last_fenced = Some(range);
            }
            Event::Start(
                Tag::BlockQuote(_) | Tag::List(_) | Tag::Item | Tag::FootnoteDefinition(_),
            ) => depth += 1,
            Event::End(
                TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::Item | TagEnd::FootnoteDefinition,
            ) => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if let Some(range) = last_fenced
        && let Some(fence) = unclosed(&text[range])
    {
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&fence);
        text.push('\n');
    }
    text
}

/// The fence that closes `block` (a fenced code block's source), if it is open.
fn unclosed(block: &str) -> Option<String> {
    let first = block.lines().next()?.trim_start();
    let c = first.chars().next()?;
    let n = first.chars().take_while(|&x| x == c).count();
    let closed = block.lines().count() > 1
        && block.lines().last().is_some_and(|l| {
            let l = l.trim();
            l.len() >= n && l.chars().all(|x| x == c)
        });
    (!closed).then(|| c.to_string().repeat(n))
}

/// The model's Markdown rendered as HTML for the page (see the module doc).
pub(crate) fn html(src: &str, out: &mut String) {
    // For each open link or image: whether it was kept as a link.
    let mut links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(src, options()).map(|ev| match ev {
        Event::Html(t) | Event::InlineHtml(t) => Event::Text(t),
        // Raw HTML blocks show as what they are: code.
        Event::Start(Tag::HtmlBlock) => Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(
            CowStr::Borrowed("html"),
        ))),
        Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::CodeBlock),
        Event::Start(Tag::Link {
            dest_url,
            title,
            link_type,
            ..
        })
        | Event::Start(Tag::Image {
            dest_url,
            title,
            link_type,
            ..
        }) => {
            let keep = link_allowed(&dest_url, false);
            links.push(keep);
            if !keep {
                return Event::Text(CowStr::Borrowed(""));
            }
            let mut tag = String::from("<a href=\"");
            let dest = match link_type {
                LinkType::Email if !dest_url.starts_with("mailto:") => {
                    format!("mailto:{dest_url}")
                }
                _ => dest_url.to_string(),
            };
            let _ = pulldown_cmark_escape::escape_href(&mut tag, &dest);
            tag.push('"');
            if !title.is_empty() {
                tag.push_str(" title=\"");
                escape::html(&mut tag, &title);
                tag.push('"');
            }
            tag.push_str(" rel=\"nofollow noopener noreferrer\">");
            Event::InlineHtml(CowStr::Boxed(tag.into_boxed_str()))
        }
        Event::End(TagEnd::Link | TagEnd::Image) => {
            if links.pop().unwrap_or(false) {
                Event::InlineHtml(CowStr::Borrowed("</a>"))
            } else {
                Event::Text(CowStr::Borrowed(""))
            }
        }
        ev => ev,
    });
    pulldown_cmark::html::push_html(out, events);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html_of(src: &str) -> String {
        let mut out = String::new();
        html(src, &mut out);
        out
    }

    #[test]
    fn markdown_keeps_the_answer_as_written() {
        let src = "# Done\n\n- **fixed** `main.rs`\n\n```rust\nfn main() {}\n```\n\nSee [docs](https://x.dev/a).\n";
        assert_eq!(markdown(src), src);
    }

    #[test]
    fn markdown_escapes_raw_html_and_bad_links() {
        let out = markdown(
            "Hi <img src=x onerror=alert(1)> there\n\n<script>alert(2)</script>\n\n[click](javascript:alert(3)) and <javascript:alert(4)>\n",
        );
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("](javascript"), "{out}");
        assert!(!out.contains("<javascript"), "{out}");
        assert!(out.contains("&lt;img src=x onerror=alert(1)>"), "{out}");
        assert!(out.contains("click"), "{out}");
        // What is left parses to no HTML and no link.
        for ev in Parser::new_ext(&out, options()) {
            assert!(
                !matches!(ev, Event::Html(_) | Event::InlineHtml(_)),
                "{ev:?} in {out}"
            );
            assert!(
                !matches!(ev, Event::Start(Tag::Link { .. })),
                "{ev:?} in {out}"
            );
        }
    }

    #[test]
    fn markdown_closes_an_open_fence() {
        let out = markdown("Here:\n\n````sh\nrm -rf /\n");
        assert!(out.ends_with("rm -rf /\n````\n"), "{out}");
        let closed = "```\ncode\n```\n";
        assert_eq!(markdown(closed), closed);
        // A fence that escaping uncovers (it was inside an HTML block) is closed too.
        let out = markdown("<div>\n```\n</div>\n");
        let after = format!("{out}\n\n# after\n");
        assert!(
            Parser::new(&after).any(|e| matches!(e, Event::Start(Tag::Heading { .. }))),
            "{out}"
        );
    }

    #[test]
    fn html_escapes_raw_html_and_keeps_only_web_links() {
        let out = html_of(
            "a <img src=x onerror=alert(1)> [ok](https://example.com/?a=1&b=2) [bad](javascript:alert(1)) [rel](../etc/passwd) ![pic](https://t.example/p.png)\n\n<script>alert(2)</script>\n",
        );
        assert!(!out.contains("<img"), "{out}");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("javascript:"), "{out}");
        assert!(!out.contains("passwd\""), "{out}");
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt;"), "{out}");
        assert!(out.contains("<a href=\"https://example.com/?a=1&amp;b=2\" rel=\"nofollow noopener noreferrer\">ok</a>"), "{out}");
        assert!(out.contains(">pic</a>"), "{out}");
        assert!(
            out.contains("<pre><code class=\"language-html\">&lt;script&gt;"),
            "{out}"
        );
    }

    #[test]
    fn html_keeps_code_blocks_as_code() {
        let out = html_of("```rust\nlet x = a < b;\n```\n");
        assert_eq!(
            out,
            "<pre><code class=\"language-rust\">let x = a &lt; b;\n</code></pre>\n"
        );
    }
}

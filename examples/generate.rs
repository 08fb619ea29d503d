//! A deterministic generator of realistic `stream-json` logs, for benchmarks and tests.
//!
//! ```text
//! cargo run --release --example generate -- --size 1G > /tmp/big.ndjson
//! cargo run --release --example generate -- --size 100M --deltas-only > /tmp/deltas.ndjson
//! cargo run --release --example generate -- --size 1G --agent claude > /tmp/claude.ndjson
//! cargo run --release --example generate -- --size 1G --agent codex > /tmp/codex.ndjson
//! cargo run --release --example generate -- --size 1G --agent gemini > /tmp/gemini.ndjson
//! ```
//!
//! `--agent claude` writes Claude Code streams with partial messages instead: every text
//! block streamed as `text_delta`s and then repeated whole in an `assistant` event, tool
//! calls with large `tool_result`s, a `result` whose text is the last message.
//! `--agent codex` and `--agent gemini` write `codex exec --json` and Gemini CLI
//! `stream-json` runs: the answer as messages (Gemini: deltas), commands and tool results
//! with large outputs (most of the bytes), the usage at the end.
//!
//! The output imitates real logs appended run after run: each run has an `init`, the
//! prompt, thinking phases, partial-mode deltas with their segment and final flushes (one
//! run in five without partial output), tool calls of several kinds whose completions
//! carry large results (about two thirds of the bytes), and a `result` whose text is the
//! answer the deltas give. Text mixes ASCII, accents, CJK, emoji, quotes, backslashes,
//! newlines and control characters. About one line in twenty has its keys sorted, so that
//! `type` is not first. The same arguments always give the same bytes.

use std::io::{self, BufWriter, Write};

/// splitmix64: a few lines, and the stream is the same on every machine and every version
/// (a crate's generator may change its output between releases, and with it the corpus).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "test",
    "fails",
    "because",
    "rounding",
    "is",
    "missing",
    "in",
    "`total()`",
    "I'll",
    "read",
    "the",
    "file",
    "and",
    "fix",
    "it",
    "naïve",
    "café",
    "über",
    "日本語",
    "テスト",
    "🎉",
    "✓",
    "\"quoted\"",
    "back\\slash",
    "tab\there",
    "line\nbreak",
    "bell\u{7}",
    "—",
    "cargo",
    "build",
    "passes",
    "now",
    "src/lib.rs",
    "{braces}",
    "[brackets]",
    "a,b",
    "x:y",
];

const CODE_LINES: &[&str] = &[
    "pub fn total(items: &[Item]) -> f64 {",
    "    items.iter().map(|i| i.price * i.qty as f64).sum()",
    "}",
    "// TODO: round to cents — see issue #42",
    "fn main() { println!(\"héllo, wörld\\n\"); }",
    "    let s = \"tab\\there\";",
    "#[derive(Debug, Clone, PartialEq)]",
    "struct Cart { items: Vec<Item>, owner: String }",
    "",
    "    assert_eq!(total(&items), 12.5);",
];

fn js(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

struct Gen<W: Write> {
    rng: Rng,
    out: W,
    written: u64,
    ts: u64,
    session: String,
}

impl<W: Write> Gen<W> {
    fn new(out: W, seed: u64) -> Gen<W> {
        Gen {
            rng: Rng(seed),
            out,
            written: 0,
            ts: 1_790_000_000_000,
            session: String::new(),
        }
    }

    /// Sessions, as `session(n)` writes them, until `size` bytes are written.
    fn sessions(
        &mut self,
        size: u64,
        mut session: impl FnMut(&mut Self, u64) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut n = 0;
        while self.written < size {
            session(self, n)?;
            n += 1;
        }
        Ok(())
    }

    fn line(&mut self, line: String) -> io::Result<()> {
        // One line in twenty with sorted keys: `type` is then not first.
        let line = if self.rng.chance(5) {
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            serde_json::to_string(&v).unwrap()
        } else {
            line
        };
        self.written += line.len() as u64 + 1;
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")
    }

    fn words(&mut self, lo: u64, hi: u64) -> Vec<String> {
        let n = self.rng.range(lo, hi);
        (0..n)
            .map(|i| {
                let w = self.rng.pick(WORDS);
                if i == 0 {
                    w.to_string()
                } else {
                    format!(" {w}")
                }
            })
            .collect()
    }

    fn code(&mut self, lines: u64) -> String {
        let mut s = String::new();
        for _ in 0..lines {
            let line: &str = self.rng.pick(CODE_LINES);
            s.push_str(line);
            s.push('\n');
        }
        s
    }

    fn tick(&mut self) -> u64 {
        self.ts += self.rng.range(1, 40);
        self.ts
    }

    fn thinking(&mut self) -> io::Result<()> {
        for w in self.words(3, 10) {
            let ts = self.tick();
            let sid = self.session.clone();
            self.line(format!(
                r#"{{"type":"thinking","subtype":"delta","text":{},"session_id":"{sid}","timestamp_ms":{ts}}}"#,
                js(&w)
            ))?;
        }
        let ts = self.tick();
        let sid = self.session.clone();
        self.line(format!(
            r#"{{"type":"thinking","subtype":"completed","session_id":"{sid}","timestamp_ms":{ts}}}"#
        ))
    }

    fn assistant(
        &mut self,
        text: &str,
        model_call_id: Option<&str>,
        timestamp: bool,
    ) -> io::Result<()> {
        let sid = self.session.clone();
        let mut line = format!(
            r#"{{"type":"assistant","message":{{"role":"assistant","content":[{{"type":"text","text":{}}}]}},"session_id":"{sid}""#,
            js(text)
        );
        if let Some(m) = model_call_id {
            line.push_str(&format!(r#","model_call_id":"{m}""#));
        }
        if timestamp {
            let ts = self.tick();
            line.push_str(&format!(r#","timestamp_ms":{ts}"#));
        }
        line.push('}');
        self.line(line)
    }

    /// One segment of answer text; returns the text.
    fn segment(&mut self, partial: bool, model_call_id: Option<&str>) -> io::Result<String> {
        let parts = self.words(4, 40);
        let text: String = parts.concat();
        if partial {
            for p in &parts {
                self.assistant(p, None, true)?;
            }
        }
        match model_call_id {
            Some(m) => self.assistant(&text, Some(m), true)?,
            None => self.assistant(&text, None, false)?,
        }
        Ok(text)
    }

    fn tool_round(&mut self, round: u32, model_call_id: &str) -> io::Result<()> {
        let calls = self.rng.range(1, 3);
        let mut started = Vec::new();
        for i in 0..calls {
            let call_id = format!(
                "call-{:08x}-{round}-{i}\nfc_{:016x}_{i}",
                self.rng.next() as u32,
                self.rng.next()
            );
            let kind = self
                .rng
                .pick(&["read", "shell", "edit", "grep", "glob", "updateTodos"]);
            let (args, result) = self.tool_body(kind);
            started.push((call_id, kind, args, result));
        }
        let sid = self.session.clone();
        for (call_id, kind, args, _) in &started {
            let at = self.tick();
            self.line(format!(
                r#"{{"type":"tool_call","subtype":"started","call_id":{},"tool_call":{{"{kind}ToolCall":{{"args":{args}}},"hookAdditionalContexts":[],"toolCallId":{},"startedAtMs":"{at}"}},"model_call_id":"{model_call_id}","session_id":"{sid}","timestamp_ms":{at}}}"#,
                js(call_id),
                js(call_id)
            ))?;
        }
        // Parallel calls complete in their own order.
        if started.len() > 1 && self.rng.chance(50) {
            started.reverse();
        }
        for (call_id, kind, args, result) in &started {
            let at = self.tick();
            let done = at + self.rng.range(5, 3000);
            // Rejected calls come without their args, as in real streams.
            let body = if result.starts_with(r#"{"rejected""#) {
                format!(r#"{{"result":{result}}}"#)
            } else {
                format!(r#"{{"args":{args},"result":{result}}}"#)
            };
            self.line(format!(
                r#"{{"type":"tool_call","subtype":"completed","call_id":{},"tool_call":{{"{kind}ToolCall":{body},"hookAdditionalContexts":[],"toolCallId":{},"startedAtMs":"{at}","completedAtMs":"{done}"}},"model_call_id":"{model_call_id}","session_id":"{sid}","timestamp_ms":{done}}}"#,
                js(call_id),
                js(call_id)
            ))?;
        }
        Ok(())
    }

    /// Args and result of one call; results are large, as real ones are.
    fn tool_body(&mut self, kind: &str) -> (String, String) {
        let path = format!(
            "src/{}.rs",
            self.rng.pick(&["cart", "main", "lib", "db", "http"])
        );
        match kind {
            "read" => {
                let lines = self.rng.range(40, 900);
                let content = self.code(lines);
                (
                    format!(r#"{{"path":{}}}"#, js(&path)),
                    format!(
                        r#"{{"success":{{"content":{},"isEmpty":false,"exceededLimit":false,"totalLines":{lines},"fileSize":{},"path":{}}}}}"#,
                        js(&content),
                        content.len(),
                        js(&path)
                    ),
                )
            }
            "shell" => {
                let cmd = self.rng.pick(&["cargo test", "ls -la", "git status", "rm -rf build"]);
                let args = format!(
                    r#"{{"command":{},"workingDirectory":"","timeout":30000}}"#,
                    js(cmd)
                );
                if self.rng.chance(10) {
                    return (
                        args,
                        format!(
                            r#"{{"rejected":{{"command":{},"workingDirectory":"/home/dev/shop","reason":"","isReadonly":false}}}}"#,
                            js(cmd)
                        ),
                    );
                }
                let lines = self.rng.range(10, 500);
                let stdout = self.code(lines);
                let code = if self.rng.chance(20) { 1 } else { 0 };
                (
                    args,
                    format!(
                        r#"{{"success":{{"command":{},"exitCode":{code},"signal":"","stdout":{},"stderr":"","executionTime":{}}},"isBackground":false}}"#,
                        js(cmd),
                        js(&stdout),
                        self.rng.range(10, 9000)
                    ),
                )
            }
            "edit" => {
                let lines = self.rng.range(40, 600);
                let before = self.code(lines);
                let after = format!("{before}// edited\n");
                (
                    format!(r#"{{"path":{},"streamContent":"// edited\n"}}"#, js(&path)),
                    format!(
                        r#"{{"success":{{"path":{},"linesAdded":1,"linesRemoved":0,"diffString":"@@ -1 +1,2 @@\n+// edited","beforeFullFileContent":{},"afterFullFileContent":{},"message":"Edited"}}}}"#,
                        js(&path),
                        js(&before),
                        js(&after)
                    ),
                )
            }
            "grep" => {
                let n = self.rng.range(1, 80);
                let matches: Vec<String> = (0..n)
                    .map(|i| {
                        let line: &str = self.rng.pick(CODE_LINES);
                        format!(r#"{{"lineNumber":{},"content":{}}}"#, i * 7 + 1, js(line))
                    })
                    .collect();
                (
                    r#"{"pattern":"TODO","path":"src"}"#.to_string(),
                    format!(
                        r#"{{"success":{{"pattern":"TODO","workspaceResults":{{"/home/dev/shop":{{"content":{{"matches":[{{"file":{},"matches":[{}]}}],"totalMatchedLines":{n}}}}}}}}}}}"#,
                        js(&path),
                        matches.join(",")
                    ),
                )
            }
            "glob" => (
                r#"{"globPattern":"**/*.rs"}"#.to_string(),
                r#"{"success":{"files":["src/cart.rs","src/main.rs","src/lib.rs"],"totalFiles":3}}"#
                    .to_string(),
            ),
            _ => (
                r#"{"todos":[{"id":"1","content":"Fix rounding","status":"in_progress"}],"merge":true}"#
                    .to_string(),
                r#"{"success":{"todos":[{"id":"1","content":"Fix rounding","status":"in_progress"}],"totalCount":1}}"#
                    .to_string(),
            ),
        }
    }

    /// An id shaped as a UUID of this version and variant digit, numbered by the run `n`.
    fn uuid(&mut self, n: u64, version: u8, variant: u8) -> String {
        format!(
            "{:08x}-{:04x}-{version:x}{:03x}-{variant:x}{:03x}-{:012x}",
            self.rng.next() as u32,
            self.rng.next() as u16,
            n % 0x1000,
            self.rng.next() % 0x1000,
            self.rng.next() % 0x1_0000_0000_0000
        )
    }

    fn session(&mut self, n: u64) -> io::Result<()> {
        self.session = self.uuid(n, 4, 8);
        let sid = self.session.clone();
        let partial = self.rng.chance(80);
        self.line(format!(
            r#"{{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/home/dev/shop","session_id":"{sid}","model":"Composer 2.5","permissionMode":"default"}}"#
        ))?;
        let prompt = self.words(5, 20).concat();
        self.line(format!(
            r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":{}}}]}},"session_id":"{sid}"}}"#,
            js(&prompt)
        ))?;
        let mut answer = String::new();
        let rounds = self.rng.range(1, 4) as u32;
        for round in 0..rounds {
            self.thinking()?;
            let mcid = format!("{:08x}-{round}-abcd", self.rng.next() as u32);
            answer.push_str(&self.segment(partial, Some(&mcid))?);
            self.tool_round(round, &mcid)?;
        }
        self.thinking()?;
        answer.push_str(&self.segment(partial, None)?);
        let ms = self.rng.range(1000, 90000);
        let request = self.rng.next() as u32;
        let input_tokens = self.rng.range(1000, 90000);
        let output_tokens = self.rng.range(10, 4000);
        self.line(format!(
            r#"{{"type":"result","subtype":"success","duration_ms":{ms},"duration_api_ms":{ms},"is_error":false,"result":{},"session_id":"{sid}","request_id":"{request:08x}","usage":{{"inputTokens":{input_tokens},"outputTokens":{output_tokens},"cacheReadTokens":0,"cacheWriteTokens":0}}}}"#,
            js(&answer)
        ))
    }

    /// One Claude Code run with `--include-partial-messages`.
    fn claude_session(&mut self, n: u64) -> io::Result<()> {
        self.session = self.uuid(n, 4, 8);
        let sid = self.session.clone();
        let uuid = |rng: &mut Rng| {
            format!(
                "{:08x}-0000-4000-8000-{:012x}",
                rng.next() as u32,
                rng.next() % 0x1_0000_0000_0000
            )
        };
        let u = uuid(&mut self.rng);
        self.raw_line(format!(
            r#"{{"type":"system","subtype":"init","cwd":"/home/dev/shop","session_id":"{sid}","tools":["Task","Bash","Glob","Grep","Read","Edit","Write","TodoWrite"],"mcp_servers":[],"model":"claude-opus-5","permissionMode":"default","slash_commands":[],"apiKeySource":"none","claude_code_version":"2.1.330","output_style":"default","agents":[],"skills":[],"plugins":[],"uuid":"{u}"}}"#
        ))?;
        let messages = self.rng.range(2, 6);
        let mut last = String::new();
        for m in 0..messages {
            let msg_id = format!("msg_{:024x}", self.rng.next() as u128 * 31 + m as u128);
            let tail = format!(r#""session_id":"{sid}","parent_tool_use_id":null"#);
            let event = |g: &mut Self, e: String| -> io::Result<()> {
                let u = uuid(&mut g.rng);
                g.raw_line(format!(
                    r#"{{"type":"stream_event","event":{e},{tail},"uuid":"{u}"}}"#
                ))
            };
            event(
                self,
                format!(
                    r#"{{"type":"message_start","message":{{"model":"claude-opus-5","id":"{msg_id}","type":"message","role":"assistant","content":[],"stop_reason":null,"usage":{{"input_tokens":2,"output_tokens":1}}}}}}"#
                ),
            )?;
            event(self, r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#.to_string())?;
            let parts = self.words(8, 80);
            for p in &parts {
                event(
                    self,
                    format!(
                        r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":{}}}}}"#,
                        js(p)
                    ),
                )?;
            }
            let text = parts.concat();
            let u = uuid(&mut self.rng);
            self.raw_line(format!(
                r#"{{"type":"assistant","message":{{"model":"claude-opus-5","id":"{msg_id}","type":"message","role":"assistant","content":[{{"type":"text","text":{}}}],"stop_reason":null,"usage":{{"input_tokens":2,"output_tokens":1}}}},{tail},"uuid":"{u}"}}"#,
                js(&text)
            ))?;
            event(
                self,
                r#"{"type":"content_block_stop","index":0}"#.to_string(),
            )?;
            last = text;
            if m + 1 == messages {
                event(self, r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":120}}"#.to_string())?;
                event(self, r#"{"type":"message_stop"}"#.to_string())?;
                break;
            }
            // A tool call, and its (large) result.
            let tool_id = format!("toolu_{:024x}", self.rng.next());
            let (name, input, output) = match self.rng.below(3) {
                0 => {
                    let lines = self.rng.range(40, 900);
                    (
                        "Read",
                        r#"{"file_path":"/home/dev/shop/src/cart.rs"}"#.to_string(),
                        self.code(lines),
                    )
                }
                1 => {
                    let lines = self.rng.range(10, 500);
                    (
                        "Bash",
                        r#"{"command":"cargo test","description":"Run the tests"}"#.to_string(),
                        self.code(lines),
                    )
                }
                _ => (
                    "Grep",
                    r#"{"pattern":"TODO","path":"src"}"#.to_string(),
                    self.code(30),
                ),
            };
            event(
                self,
                format!(
                    r#"{{"type":"content_block_start","index":1,"content_block":{{"type":"tool_use","id":"{tool_id}","name":"{name}","input":{{}}}}}}"#
                ),
            )?;
            event(
                self,
                format!(
                    r#"{{"type":"content_block_delta","index":1,"delta":{{"type":"input_json_delta","partial_json":{}}}}}"#,
                    js(&input)
                ),
            )?;
            let u = uuid(&mut self.rng);
            self.raw_line(format!(
                r#"{{"type":"assistant","message":{{"model":"claude-opus-5","id":"{msg_id}","type":"message","role":"assistant","content":[{{"type":"tool_use","id":"{tool_id}","name":"{name}","input":{input}}}],"stop_reason":null,"usage":{{"input_tokens":2,"output_tokens":1}}}},{tail},"uuid":"{u}"}}"#
            ))?;
            event(
                self,
                r#"{"type":"content_block_stop","index":1}"#.to_string(),
            )?;
            event(self, r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":60}}"#.to_string())?;
            event(self, r#"{"type":"message_stop"}"#.to_string())?;
            let u = uuid(&mut self.rng);
            self.raw_line(format!(
                r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{tool_id}","type":"tool_result","content":{}}}]}},{tail},"uuid":"{u}","tool_use_result":{{"stdout":{},"stderr":"","interrupted":false,"isImage":false}}}}"#,
                js(&output),
                js(&output)
            ))?;
        }
        let ms = self.rng.range(1000, 90000);
        let u = uuid(&mut self.rng);
        let output_tokens = self.rng.range(10, 4000);
        // The 2.1.26x key order: `type` far from first.
        self.raw_line(format!(
            r#"{{"duration_api_ms":{ms},"stop_reason":"end_turn","session_id":"{sid}","total_cost_usd":0.0231041,"usage":{{"input_tokens":6,"cache_creation_input_tokens":3117,"cache_read_input_tokens":14723,"output_tokens":{output_tokens}}},"permission_denials":[],"terminal_reason":"completed","is_error":false,"num_turns":{messages},"subtype":"success","api_error_status":null,"result":{},"type":"result","duration_ms":{ms},"uuid":"{u}"}}"#,
            js(&last)
        ))
    }

    /// One Codex (`codex exec --json`) run: a thread, one turn of reasoning, messages and
    /// commands whose `aggregated_output` is large (most of the bytes), a file change,
    /// and the turn's usage. The answer is the last `agent_message`.
    fn codex_session(&mut self, n: u64) -> io::Result<()> {
        let tid = self.uuid(n, 7, 0xa);
        self.raw_line(format!(
            r#"{{"type":"thread.started","thread_id":"{tid}"}}"#
        ))?;
        self.raw_line(r#"{"type":"turn.started"}"#.to_string())?;
        let mut item = 0;
        let rounds = self.rng.range(2, 6);
        for _ in 0..rounds {
            let thought = format!("**{}**", self.words(3, 8).concat());
            self.raw_line(format!(
                r#"{{"type":"item.completed","item":{{"id":"item_{item}","type":"reasoning","text":{}}}}}"#,
                js(&thought)
            ))?;
            item += 1;
            let say = self.words(8, 60).concat();
            self.raw_line(format!(
                r#"{{"type":"item.completed","item":{{"id":"item_{item}","type":"agent_message","text":{}}}}}"#,
                js(&say)
            ))?;
            item += 1;
            let command = js(&format!(
                "/bin/bash -lc 'cargo test -q {}'",
                self.rng.below(100)
            ));
            self.raw_line(format!(
                r#"{{"type":"item.started","item":{{"id":"item_{item}","type":"command_execution","command":{command},"aggregated_output":"","exit_code":null,"status":"in_progress"}}}}"#
            ))?;
            let lines = self.rng.range(20, 700);
            let output = self.code(lines);
            let (code, status) = if self.rng.chance(20) {
                (101, "failed")
            } else {
                (0, "completed")
            };
            self.raw_line(format!(
                r#"{{"type":"item.completed","item":{{"id":"item_{item}","type":"command_execution","command":{command},"aggregated_output":{},"exit_code":{code},"status":"{status}"}}}}"#,
                js(&output)
            ))?;
            item += 1;
            if self.rng.chance(50) {
                for phase in ["item.started", "item.completed"] {
                    let status = if phase == "item.started" {
                        "in_progress"
                    } else {
                        "completed"
                    };
                    self.raw_line(format!(
                        r#"{{"type":"{phase}","item":{{"id":"item_{item}","type":"file_change","changes":[{{"path":"/home/dev/shop/src/cart.rs","kind":"update"}}],"status":"{status}"}}}}"#
                    ))?;
                }
                item += 1;
            }
        }
        let answer = self.words(10, 120).concat();
        self.raw_line(format!(
            r#"{{"type":"item.completed","item":{{"id":"item_{item}","type":"agent_message","text":{}}}}}"#,
            js(&answer)
        ))?;
        let input = self.rng.range(1000, 90000);
        let output = self.rng.range(10, 4000);
        self.raw_line(format!(
            r#"{{"type":"turn.completed","usage":{{"input_tokens":{input},"cached_input_tokens":{},"cache_write_input_tokens":0,"output_tokens":{output},"reasoning_output_tokens":{}}}}}"#,
            input / 2,
            output / 3
        ))
    }

    /// One Gemini CLI (`--output-format stream-json`) run: the answer streamed as
    /// `message` deltas, tool calls whose `tool_result` output is large, a `result` with
    /// its stats.
    fn gemini_session(&mut self, n: u64) -> io::Result<()> {
        let sid = self.uuid(n, 4, 8);
        let ts = |g: &mut Self| {
            g.ts += g.rng.range(10, 900);
            let t = g.ts % 86_400_000;
            format!(
                "2026-10-06T{:02}:{:02}:{:02}.{:03}Z",
                t / 3_600_000,
                t / 60_000 % 60,
                t / 1000 % 60,
                t % 1000
            )
        };
        let t = ts(self);
        self.raw_line(format!(
            r#"{{"type":"init","timestamp":"{t}","session_id":"{sid}","model":"auto-gemini-3"}}"#
        ))?;
        let t = ts(self);
        self.raw_line(format!(
            r#"{{"type":"message","timestamp":"{t}","role":"user","content":"Fix the rounding bug in src/price.rs and run the tests."}}"#
        ))?;
        let rounds = self.rng.range(2, 6);
        for r in 0..rounds {
            for p in self.words(4, 40) {
                let t = ts(self);
                self.raw_line(format!(
                    r#"{{"type":"message","timestamp":"{t}","role":"assistant","content":{},"delta":true}}"#,
                    js(&p)
                ))?;
            }
            if r + 1 == rounds {
                break;
            }
            let t = ts(self);
            let tool_id = format!("run_shell_command__run_shell_command_{}_{r}", self.ts);
            self.raw_line(format!(
                r#"{{"type":"tool_use","timestamp":"{t}","tool_name":"run_shell_command","tool_id":"{tool_id}","parameters":{{"command":"cargo test -q","description":"Run the test suite"}}}}"#
            ))?;
            let lines = self.rng.range(20, 700);
            let output = self.code(lines);
            let t = ts(self);
            if self.rng.chance(20) {
                self.raw_line(format!(
                    r#"{{"type":"tool_result","timestamp":"{t}","tool_id":"{tool_id}","status":"error","output":{},"error":{{"type":"shell_failed","message":"exit code 101"}}}}"#,
                    js(&output)
                ))?;
            } else {
                self.raw_line(format!(
                    r#"{{"type":"tool_result","timestamp":"{t}","tool_id":"{tool_id}","status":"success","output":{}}}"#,
                    js(&output)
                ))?;
            }
        }
        let t = ts(self);
        let input = self.rng.range(1000, 90000);
        let output = self.rng.range(10, 4000);
        let ms = self.rng.range(1000, 90000);
        self.raw_line(format!(
            r#"{{"type":"result","timestamp":"{t}","status":"success","stats":{{"total_tokens":{},"input_tokens":{input},"output_tokens":{output},"cached":0,"input":{input},"duration_ms":{},"tool_calls":{}}}}}"#,
            input + output,
            ms,
            rounds - 1
        ))
    }

    /// A line as given (the Claude streams keep their own key orders).
    fn raw_line(&mut self, line: String) -> io::Result<()> {
        self.written += line.len() as u64 + 1;
        self.out.write_all(line.as_bytes())?;
        self.out.write_all(b"\n")
    }

    /// Runs of 500 assistant deltas and a result: almost every line must be parsed by
    /// `text`.
    fn deltas_only(&mut self, size: u64) -> io::Result<()> {
        self.session = "00000000-0000-4000-8000-000000000000".into();
        while self.written < size {
            let mut answer = String::new();
            for _ in 0..500 {
                let w = self.words(1, 3).concat();
                self.assistant(&w, None, true)?;
                answer.push_str(&w);
            }
            self.line(format!(
                r#"{{"type":"result","subtype":"success","duration_ms":1,"duration_api_ms":1,"is_error":false,"result":{},"session_id":"{}"}}"#,
                js(&answer),
                self.session
            ))?;
        }
        Ok(())
    }
}

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>()
        .expect("--size takes a number with K, M or G")
        * mult
}

fn main() -> io::Result<()> {
    let mut size = 100 << 20;
    let mut seed = 42;
    let mut deltas_only = false;
    let mut agent = String::from("cursor");
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--size" => size = parse_size(&args.next().expect("--size SIZE")),
            "--seed" => seed = args.next().expect("--seed N").parse().expect("--seed N"),
            "--deltas-only" => deltas_only = true,
            "--agent" => agent = args.next().expect("--agent cursor|claude|codex|gemini"),
            _ => {
                eprintln!(
                    "usage: generate [--size SIZE] [--seed N] [--deltas-only] [--agent cursor|claude|codex|gemini] > out.ndjson"
                );
                std::process::exit(2);
            }
        }
    }
    let mut out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
    match agent.as_str() {
        "claude" => generate_claude(&mut out, size, seed)?,
        "codex" => generate_agent(&mut out, size, seed, "codex")?,
        "gemini" => generate_agent(&mut out, size, seed, "gemini")?,
        _ => generate(&mut out, size, seed, deltas_only)?,
    }
    out.flush()
}

/// Writes about `size` bytes of log to `out`; the same arguments give the same bytes.
/// Tests and benchmarks include this file to call it.
pub fn generate<W: Write>(out: W, size: u64, seed: u64, deltas_only: bool) -> io::Result<()> {
    let mut g = Gen::new(out, seed);
    if deltas_only {
        g.deltas_only(size)
    } else {
        g.sessions(size, |g, n| g.session(n))
    }
}

/// Writes about `size` bytes of Claude Code runs with partial messages to `out`.
pub fn generate_claude<W: Write>(out: W, size: u64, seed: u64) -> io::Result<()> {
    Gen::new(out, seed).sessions(size, |g, n| g.claude_session(n))
}

/// Writes about `size` bytes of Codex (`agent` = `codex`) or Gemini CLI (`gemini`) runs
/// to `out`.
pub fn generate_agent<W: Write>(out: W, size: u64, seed: u64, agent: &str) -> io::Result<()> {
    Gen::new(out, seed).sessions(size, |g, n| match agent {
        "codex" => g.codex_session(n),
        _ => g.gemini_session(n),
    })
}

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
//!
//! # `--home`: the agents' own session logs
//!
//! ```text
//! cargo run --release --example generate -- --home /tmp/home --size 1G
//! cargo run --release --example generate -- --home /tmp/home --size 1G --agents claude
//! cargo run --release --example generate -- --home /tmp/home --size 50M --agents codex,gemini --seed 7 --days 10
//! HOME=/tmp/home cursor-stream sessions
//! scripts/check-home.py /tmp/home      # recounts the files, compares with EXPECTED.json
//! ```
//!
//! `--home DIR` writes a fake HOME instead of a stream: the session logs ("stores") of
//! Claude Code (`.claude/projects/<cwd-slug>/<session>.jsonl`, sub-agents in
//! `<session>/subagents/agent-<id>.jsonl`), Codex (`.codex/sessions/YYYY/MM/DD/rollout-…`,
//! some `.jsonl.zst`, some in `archived_sessions/`), Gemini CLI
//! (`.gemini/tmp/<project>/chats/session-….jsonl`, `projects.json`, `.project_root`), Qwen
//! Code (`.qwen/projects/<slug>/chats/<session>.jsonl`, `usage_record.jsonl`), Cursor
//! (`.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl`) and OpenCode
//! (`.local/share/opencode/opencode.db`, SQLite), about `--size` bytes in all (Claude
//! Code's share is about two thirds: some 400 files in a 1G home), for the agents of
//! `--agents` (default: all six). The records are those of the recorded stores (Claude Code
//! 2.1.330, Codex 0.169.0, Gemini CLI 0.61.0, Qwen Code 0.24.4, OpenCode 1.18.33): the same
//! keys, order and nesting, large attachments, instructions and tool results. Sessions of
//! several prompts in eight projects with several models, spread over the `--days` (30)
//! days before 2026-11-27 (UTC), with thinking, tool calls and their results, usage on every
//! billed response, a few failed runs, one cut log per agent, and the traps of each store
//! (responses split over lines, resumed copies, sub-agents, replayed forks, re-sent counts,
//! re-appended messages, rewinds, side requests). Files are dated by their last record.
//! `DIR/EXPECTED.json` holds what a correct reader counts (sessions, runs, billed responses
//! and their tokens, per agent, UTC day and model; the traps planted); the counting rules
//! are in the `home` module's documentation. The same arguments give the same files; 1G
//! takes a few seconds.

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
    let mut home: Option<std::path::PathBuf> = None;
    let mut agents = String::from("claude,codex,gemini,qwen,cursor,opencode");
    let mut days = 30;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--size" => size = parse_size(&args.next().expect("--size SIZE")),
            "--seed" => seed = args.next().expect("--seed N").parse().expect("--seed N"),
            "--deltas-only" => deltas_only = true,
            "--agent" => agent = args.next().expect("--agent cursor|claude|codex|gemini"),
            "--home" => home = Some(args.next().expect("--home DIR").into()),
            "--agents" => agents = args.next().expect("--agents claude,codex,…"),
            "--days" => days = args.next().expect("--days N").parse().expect("--days N"),
            _ => {
                eprintln!(
                    "usage: generate [--size SIZE] [--seed N] [--deltas-only] [--agent cursor|claude|codex|gemini] > out.ndjson\n       generate --home DIR [--size SIZE] [--agents claude,codex,gemini,qwen,cursor,opencode] [--seed N] [--days N]"
                );
                std::process::exit(2);
            }
        }
    }
    if let Some(dir) = home {
        let list: Vec<&str> = agents
            .split(',')
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        let expected = generate_home(&dir, size, seed, &list, days)?;
        // A summary: what each agent got.
        let mut out = io::stdout().lock();
        for (agent, v) in expected["agents"].as_object().into_iter().flatten() {
            writeln!(
                out,
                "{agent:9} {:>6} files {:>6} sessions {:>7} runs {:>8} responses {:>8.1} MiB",
                v["files"],
                v["sessions"],
                v["runs"],
                v["responses"],
                v["bytes"].as_u64().unwrap_or(0) as f64 / (1 << 20) as f64
            )?;
        }
        writeln!(
            out,
            "expected counts: {}",
            dir.join("EXPECTED.json").display()
        )?;
        return Ok(());
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

// ---------------------------------------------------------------------------------------
// `--home`: a fake HOME holding the agents' own session logs ("stores").
// ---------------------------------------------------------------------------------------

/// Writes a fake HOME under `dir`: the session logs of `agents` (`claude`, `codex`,
/// `gemini`, `qwen`, `cursor`, `opencode`), about `size` bytes in all, spread over the
/// `days` days before 2026-11-27T00:00:00Z, and `dir/EXPECTED.json`, what a correct reader
/// must count. Returns that document. The same arguments always give the same files.
pub fn generate_home(
    dir: &std::path::Path,
    size: u64,
    seed: u64,
    agents: &[&str],
    days: u32,
) -> io::Result<serde_json::Value> {
    home::generate(dir, size, seed, agents, days)
}

mod home {
    //! The layout and the records are those of the recordings under
    //! `tests/fixtures/recorded/<agent>/<version>/<scenario>.store/` (Claude Code 2.1.330,
    //! Codex 0.169.0, Gemini CLI 0.61.0, Qwen Code 0.24.4, OpenCode 1.18.33) and, for
    //! Cursor, of `shared/spec/stores.md` §2.6b A: the same keys in the same order, the
    //! same nesting, sizes of the same order (Claude Code's attachments and request shapes,
    //! Codex's instructions, tool results everywhere).
    //!
    //! # What `EXPECTED.json` counts
    //!
    //! Per agent: `files` (every file written), `sessions` (session logs: Claude's
    //! sub-agent files and Cursor's sub-agent transcripts are files, not sessions; OpenCode's
    //! sessions are rows of one database), `runs` (the user's prompts, failed ones included;
    //! not the prompts a resumed copy or a fork's replay repeats, nor a sub-agent's task),
    //! `failed_runs`, `unfinished_runs`, `responses` (billed model responses) and the tokens
    //! of those responses, overall, per UTC day (a run never crosses midnight, so its prompt
    //! and all its responses fall on one day) and per model. Token kinds, the same for every
    //! agent:
    //!
    //! - `input`: prompt tokens neither read from nor written to a cache;
    //! - `cache_read`, `cache_write`: prompt tokens read from, written to a cache;
    //! - `output`: generated tokens, reasoning included;
    //! - `reasoning`: the reasoning part of `output`;
    //! - `total` = input + cache_read + cache_write + output.
    //!
    //! Each billed response is counted once. Per agent, the rule:
    //!
    //! - **Claude Code**: a response is a distinct (`message.id`, `requestId`) among
    //!   `assistant` lines with a `usage`, across all files (main logs, `subagents/`, resumed
    //!   copies). The lines of one response (thinking, text, each tool call) all carry the
    //!   same full usage: count it once. A resumed session's new file starts with copies of
    //!   the earlier file's lines (same uuid, `message.id`, `requestId`, timestamp, another
    //!   `sessionId`): already counted. A sub-agent file's own responses are real spend and
    //!   count; its first assistant line may replay the parent's response (same `message.id`,
    //!   a new `requestId`, `isSidechain: true`): not counted. An `Agent` tool result's
    //!   `toolUseResult.usage` is a summary of the sub-agent's responses: not counted.
    //!   `isApiErrorMessage` lines (model `<synthetic>`, zero usage) are no responses. A run
    //!   is a `user` line whose `message.content` is a string (outside sidechains), once per
    //!   `uuid` (copies keep it). `input` =
    //!   `input_tokens`, `cache_write` = `cache_creation_input_tokens` (=
    //!   `cache_creation.ephemeral_5m_input_tokens` + `ephemeral_1h_input_tokens`),
    //!   `cache_read` = `cache_read_input_tokens`, `output` = `output_tokens` (thinking
    //!   included), `reasoning` = `output_tokens_details.thinking_tokens`.
    //! - **Codex**: a response is an increase of `token_count`'s cumulative
    //!   `info.total_token_usage` (the same as one `token_usage_record`). A `token_count`
    //!   re-emitted with unchanged totals adds nothing. A forked rollout
    //!   (`session_meta.payload.forked_from_id`) first replays its parent: the parent's
    //!   `session_meta` and its lines (prompts and `token_count`s included, not its
    //!   `token_usage_record`s), up to the fork's own `thread_settings_applied` (with the
    //!   fork's `thread_id`); the replay is neither runs nor usage, and the fork's own
    //!   totals go on from the parent's. `.jsonl.zst` files and `archived_sessions/` count
    //!   as plain files. `input` = `input_tokens` − `cached_input_tokens` (the cached
    //!   tokens are part of `input_tokens`), `cache_read` = `cached_input_tokens`,
    //!   `cache_write` = `cache_write_input_tokens` (0), `output` = `output_tokens`
    //!   (reasoning included), `reasoning` = `reasoning_output_tokens`.
    //! - **Gemini CLI**: a response is a distinct `id` of the top-level `type: "gemini"`
    //!   records that carry `tokens`; the last such record wins (an answer that calls tools
    //!   is written twice, the same tokens each time). The messages inside `$set` (a resume
    //!   restores the history there, without tokens) are not responses. `$rewindTo` removes
    //!   messages from the conversation, not from the bill: rewound responses count, and
    //!   their prompts are runs. A failed prompt (dropped by the next `$set`) is a failed
    //!   run. `input` = `tokens.input` − `tokens.cached` (the prompt count includes the
    //!   cached tokens), `cache_read` = `tokens.cached`, `output` = `tokens.output` +
    //!   `tokens.thoughts`, `reasoning` = `tokens.thoughts` (`total` = input + output +
    //!   thoughts).
    //! - **Qwen Code**: a response is a `system` `ui_telemetry` record whose
    //!   `uiEvent["event.name"]` is `qwen-code.api_response`: each main response (also
    //!   written as the `assistant` record's `usageMetadata`, the same numbers) and each
    //!   side request (the memory extractor, `subagent_name`, found nowhere else).
    //!   `~/.qwen/usage_record.jsonl` is a summary per process (after a resume, the
    //!   session's running total): not counted. `input` = `input_token_count` −
    //!   `cached_content_token_count` (`promptTokenCount` includes the cached tokens),
    //!   `cache_read` = `cached_content_token_count`, `output` = `output_token_count`
    //!   (`candidatesTokenCount`, thoughts included: `total` = prompt + candidates),
    //!   `reasoning` = `thoughts_token_count`.
    //! - **OpenCode**: a response is an assistant row of the `message` table; its
    //!   `step-finish` part repeats the tokens, and the `session` row holds the session's
    //!   totals: not counted again. `input` = `tokens.input` (cached tokens excluded),
    //!   `cache_read` = `tokens.cache.read`, `cache_write` = `tokens.cache.write`, `output`
    //!   = `tokens.output` + `tokens.reasoning` (stored apart), `reasoning` =
    //!   `tokens.reasoning`. A run is a user row.
    //! - **Cursor**: the transcripts hold no tokens: runs only (a `user` line, its time from
    //!   the `<timestamp>`, local with an explicit offset), `responses` 0.
    //!
    //! Failed runs: an API error as each agent records it (Claude's retries and its
    //! synthetic `isApiErrorMessage` answer; Codex's `task_complete` with an `error`;
    //! Gemini's prompt dropped by a `$set`; Qwen's `qwen-code.api_error` telemetry;
    //! OpenCode's assistant row with an `error`; Cursor's `turn_ended` `error`). The
    //! responses before the failure count. One session per agent (OpenCode's database
    //! aside) is unfinished: its last line is cut in the middle, the first line of a
    //! response, so that response is not counted (nor is the run's end).
    //!
    //! `traps` counts each pitfall planted, and `trap_tokens` the tokens behind some (a
    //! sub-agent's spend, a fork's replayed totals, side requests); `session_list` gives each
    //! session's own numbers. `scripts/check-home.py DIR` recounts all of it from the files
    //! alone, with these rules, and compares.

    use std::collections::BTreeMap;
    use std::fmt::Write as _;
    use std::fs;
    use std::io;
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use super::{Rng, js};

    pub(super) const DAY_MS: i64 = 86_400_000;
    /// The homes end here: 2026-11-27T00:00:00Z, the day of the recordings.
    pub(super) const END_MS: i64 = 1_795_737_600_000;
    /// The longest a run lasts: a run starting later in a UTC day moves to the next.
    const RUN_MAX_MS: i64 = 50 * 60_000;

    /// The share of the bytes each agent gets, when chosen.
    const AGENTS: [(&str, u64); 6] = [
        ("claude", 64),
        ("codex", 22),
        ("gemini", 6),
        ("qwen", 5),
        ("opencode", 3),
        ("cursor", 1),
    ];

    pub(super) fn generate(
        dir: &Path,
        size: u64,
        seed: u64,
        agents: &[&str],
        days: u32,
    ) -> io::Result<Value> {
        let chosen: Vec<(&str, u64)> = AGENTS
            .iter()
            .copied()
            .filter(|(a, _)| agents.contains(a))
            .collect();
        if let Some(bad) = agents
            .iter()
            .find(|a| !AGENTS.iter().any(|(known, _)| known == *a))
        {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("unknown agent `{bad}` (claude, codex, gemini, qwen, cursor, opencode)"),
            ));
        }
        let weights: u64 = chosen.iter().map(|(_, w)| w).sum::<u64>().max(1);
        let days = days.max(1);
        fs::create_dir_all(dir)?;
        let results: Vec<io::Result<(&str, Tally)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chosen
                .iter()
                .map(|&(agent, w)| {
                    let budget = size * w / weights;
                    scope.spawn(move || {
                        let mut ctx = Ctx::new(dir, agent, seed, budget, days);
                        match agent {
                            "claude" => claude::generate(&mut ctx)?,
                            "codex" => codex::generate(&mut ctx)?,
                            "gemini" => gemini::generate(&mut ctx)?,
                            "qwen" => qwen::generate(&mut ctx)?,
                            "opencode" => opencode::generate(&mut ctx)?,
                            _ => cursor::generate(&mut ctx)?,
                        }
                        Ok((agent, ctx.tally))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a generator thread panicked"))
                .collect()
        });
        let mut per_agent = serde_json::Map::new();
        let mut all = Tally::default();
        for r in results {
            let (agent, tally) = r?;
            all.merge(&tally);
            per_agent.insert(agent.to_string(), tally.json(true));
        }
        let doc = json!({
            "generator": {
                "command": format!(
                    "cargo run --release --example generate -- --home DIR --size {size} --agents {} --seed {seed} --days {days}",
                    chosen.iter().map(|(a, _)| *a).collect::<Vec<_>>().join(",")
                ),
                "size": size,
                "seed": seed,
                "days": days,
                "from": iso(END_MS - i64::from(days) * DAY_MS),
                "until": iso(END_MS),
                "agents": chosen.iter().map(|(a, _)| *a).collect::<Vec<_>>(),
            },
            "rules": rules(),
            "agents": per_agent,
            "all": all.json(false),
        });
        let mut text = serde_json::to_string_pretty(&doc).map_err(io::Error::other)?;
        text.push('\n');
        fs::write(dir.join("EXPECTED.json"), text)?;
        Ok(doc)
    }

    /// The counting rules, in short, for the reader of `EXPECTED.json`.
    fn rules() -> Value {
        json!({
            "tokens": "input = prompt tokens neither read from nor written to a cache; cache_read, cache_write; output = generated tokens, reasoning included; reasoning = the reasoning part of output; total = input + cache_read + cache_write + output. Days are UTC; a run never crosses midnight.",
            "runs": "a run is a prompt of the user's (failed ones included, the cut one included); not a prompt a resumed copy or a fork's replay repeats, nor a sub-agent's task",
            "claude": "distinct (message.id, requestId) of assistant lines with usage, across all files; split lines of one response counted once; resumed copies not again; a sidechain line replaying a parent's message.id (new requestId) not counted; toolUseResult.usage of Agent results not counted; input = input_tokens, cache_write = cache_creation_input_tokens, cache_read = cache_read_input_tokens, output = output_tokens, reasoning = output_tokens_details.thinking_tokens",
            "codex": "increases of token_count's cumulative total_token_usage (= token_usage_record); re-emitted counts add nothing; a fork's replay of its parent (up to its own thread_settings_applied) not counted; .zst and archived_sessions count; input = input_tokens - cached_input_tokens, cache_read = cached_input_tokens, output = output_tokens, reasoning = reasoning_output_tokens",
            "gemini": "distinct ids of top-level gemini records with tokens, the last wins; $set contents are not responses; rewound responses count; input = tokens.input - tokens.cached, cache_read = tokens.cached, output = tokens.output + tokens.thoughts, reasoning = tokens.thoughts",
            "qwen": "each ui_telemetry qwen-code.api_response (main responses, also in assistant usageMetadata, and side requests); usage_record.jsonl not counted; input = input_token_count - cached_content_token_count, cache_read = cached_content_token_count, output = output_token_count, reasoning = thoughts_token_count",
            "opencode": "assistant rows of message; step-finish parts and session totals are copies; input = tokens.input, cache_read = tokens.cache.read, cache_write = tokens.cache.write, output = tokens.output + tokens.reasoning, reasoning = tokens.reasoning",
            "cursor": "no tokens; runs are the user lines of the main transcripts, dated by their <timestamp>",
        })
    }

    // -- time -----------------------------------------------------------------------------

    fn civil_from_days(z: i64) -> (i64, u32, u32) {
        let z = z + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let y = yoe + era * 400 + i64::from(m <= 2);
        (y, m, d)
    }

    pub(super) struct Tm {
        pub y: i64,
        pub mo: u32,
        pub d: u32,
        pub h: u32,
        pub mi: u32,
        pub s: u32,
        pub ms: u32,
        /// 0 = Sunday.
        pub wday: u32,
    }

    pub(super) fn tm(ms: i64) -> Tm {
        let days = ms.div_euclid(DAY_MS);
        let rem = ms.rem_euclid(DAY_MS);
        let (y, mo, d) = civil_from_days(days);
        Tm {
            y,
            mo,
            d,
            h: (rem / 3_600_000) as u32,
            mi: (rem / 60_000 % 60) as u32,
            s: (rem / 1000 % 60) as u32,
            ms: (rem % 1000) as u32,
            wday: (days + 4).rem_euclid(7) as u32,
        }
    }

    /// `2026-11-27T00:58:49.970Z`
    pub(super) fn iso(ms: i64) -> String {
        let t = tm(ms);
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.y, t.mo, t.d, t.h, t.mi, t.s, t.ms
        )
    }

    /// `2026-11-27`
    pub(super) fn day_of(ms: i64) -> String {
        let t = tm(ms);
        format!("{:04}-{:02}-{:02}", t.y, t.mo, t.d)
    }

    // -- counting -------------------------------------------------------------------------

    #[derive(Default, Clone, Copy, PartialEq, Eq, Debug)]
    pub(super) struct Tok {
        pub input: u64,
        pub output: u64,
        pub cache_read: u64,
        pub cache_write: u64,
        pub reasoning: u64,
    }

    impl Tok {
        fn add(&mut self, o: &Tok) {
            self.input += o.input;
            self.output += o.output;
            self.cache_read += o.cache_read;
            self.cache_write += o.cache_write;
            self.reasoning += o.reasoning;
        }

        fn json(&self) -> Value {
            json!({
                "input": self.input,
                "output": self.output,
                "cache_read": self.cache_read,
                "cache_write": self.cache_write,
                "reasoning": self.reasoning,
                "total": self.input + self.output + self.cache_read + self.cache_write,
            })
        }
    }

    #[derive(Default)]
    struct Day {
        runs: u64,
        failed_runs: u64,
        responses: u64,
        tokens: Tok,
    }

    /// One session's own numbers, for the `sessions` list.
    #[derive(Default)]
    struct SessionTally {
        runs: u64,
        failed_runs: u64,
        responses: u64,
        tokens: Tok,
        first_ms: Option<i64>,
        last_ms: i64,
    }

    #[derive(Default)]
    pub(super) struct Tally {
        files: u64,
        sessions: u64,
        runs: u64,
        failed_runs: u64,
        unfinished_runs: u64,
        responses: u64,
        bytes: u64,
        tokens: Tok,
        days: BTreeMap<String, Day>,
        models: BTreeMap<String, Tok>,
        traps: BTreeMap<&'static str, u64>,
        trap_tokens: BTreeMap<&'static str, Tok>,
        sessions_list: Vec<Value>,
        session: SessionTally,
    }

    impl Tally {
        fn merge(&mut self, o: &Tally) {
            self.files += o.files;
            self.sessions += o.sessions;
            self.runs += o.runs;
            self.failed_runs += o.failed_runs;
            self.unfinished_runs += o.unfinished_runs;
            self.responses += o.responses;
            self.bytes += o.bytes;
            self.tokens.add(&o.tokens);
            for (d, v) in &o.days {
                let e = self.days.entry(d.clone()).or_default();
                e.runs += v.runs;
                e.failed_runs += v.failed_runs;
                e.responses += v.responses;
                e.tokens.add(&v.tokens);
            }
        }

        fn json(&self, full: bool) -> Value {
            let days: serde_json::Map<String, Value> = self
                .days
                .iter()
                .map(|(d, v)| {
                    (
                        d.clone(),
                        json!({
                            "runs": v.runs,
                            "failed_runs": v.failed_runs,
                            "responses": v.responses,
                            "tokens": v.tokens.json(),
                        }),
                    )
                })
                .collect();
            let mut v = json!({
                "files": self.files,
                "sessions": self.sessions,
                "runs": self.runs,
                "failed_runs": self.failed_runs,
                "unfinished_runs": self.unfinished_runs,
                "responses": self.responses,
                "bytes": self.bytes,
                "tokens": self.tokens.json(),
                "days": days,
            });
            if full {
                let models: serde_json::Map<String, Value> = self
                    .models
                    .iter()
                    .map(|(m, t)| (m.clone(), t.json()))
                    .collect();
                let traps: serde_json::Map<String, Value> = self
                    .traps
                    .iter()
                    .map(|(k, n)| (k.to_string(), json!(n)))
                    .collect();
                let trap_tokens: serde_json::Map<String, Value> = self
                    .trap_tokens
                    .iter()
                    .map(|(k, t)| (k.to_string(), t.json()))
                    .collect();
                v["models"] = Value::Object(models);
                v["traps"] = Value::Object(traps);
                v["trap_tokens"] = Value::Object(trap_tokens);
                v["session_list"] = Value::Array(self.sessions_list.clone());
            }
            v
        }
    }

    // -- the context of one agent's generator -------------------------------------------

    pub(super) struct Ctx<'a> {
        pub rng: Rng,
        pub root: &'a Path,
        pub budget: u64,
        pub written: u64,
        pub start_ms: i64,
        pub tally: Tally,
        pub text: Text,
    }

    impl<'a> Ctx<'a> {
        fn new(root: &'a Path, agent: &str, seed: u64, budget: u64, days: u32) -> Ctx<'a> {
            // One stream per agent: an agent's files do not depend on the others'.
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            for b in agent.bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
            let mut rng = Rng(seed ^ h);
            let text = Text::new(&mut rng);
            Ctx {
                rng,
                root,
                budget,
                written: 0,
                start_ms: END_MS - i64::from(days) * DAY_MS,
                tally: Tally::default(),
                text,
            }
        }

        pub fn more(&self) -> bool {
            self.written < self.budget
        }

        /// Writes a file (its folders made), dated `mtime_ms`.
        pub fn write(&mut self, rel: &str, data: &[u8], mtime_ms: i64) -> io::Result<()> {
            let path: PathBuf = self.root.join(rel);
            if let Some(parent) = path.parent() {
                fs::create_dir_all(parent)?;
            }
            let file = fs::File::create(&path)?;
            io::Write::write_all(&mut &file, data)?;
            let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(mtime_ms as u64);
            file.set_modified(t)?;
            self.written += data.len() as u64;
            self.tally.bytes += data.len() as u64;
            self.tally.files += 1;
            Ok(())
        }

        /// A moment for a run to start at or after `t`: a run that could reach the next
        /// UTC midnight starts after it. `None` past the end of the window.
        pub fn place_run(&mut self, t: i64) -> Option<i64> {
            let mut t = t.max(self.start_ms);
            if t.rem_euclid(DAY_MS) > DAY_MS - RUN_MAX_MS {
                t = (t.div_euclid(DAY_MS) + 1) * DAY_MS + self.rng.range(5_000, 900_000) as i64;
            }
            (t + RUN_MAX_MS <= END_MS).then_some(t)
        }

        /// When a new session starts.
        pub fn session_start(&mut self) -> i64 {
            let span = (END_MS - self.start_ms - 2 * RUN_MAX_MS).max(1) as u64;
            let t = self.start_ms + self.rng.below(span) as i64;
            self.place_run(t).unwrap_or(self.start_ms)
        }

        /// The pause before the user's next prompt in a session.
        pub fn gap(&mut self) -> i64 {
            let r = self.rng.below(100);
            let s = if r < 70 {
                self.rng.range(20, 900)
            } else if r < 95 {
                self.rng.range(900, 3 * 3600)
            } else {
                self.rng.range(3 * 3600, 30 * 3600)
            };
            s as i64 * 1000 + self.rng.below(1000) as i64
        }

        /// The start and the number of prompts of the session whose log gets cut: early
        /// enough that all its prompts fit in the window (one prompt in a short window).
        pub fn unfinished_plan(&mut self, start: i64, prompts: u64) -> (i64, u64) {
            let days = (END_MS - self.start_ms) / DAY_MS;
            if days >= 6 {
                let t = self.start_ms + self.rng.below(((days - 5) * DAY_MS) as u64) as i64;
                (t, prompts.clamp(1, 3))
            } else {
                (start, 1)
            }
        }

        pub fn begin_session(&mut self) {
            self.tally.session = SessionTally::default();
        }

        /// Closes the session being counted: one more session, listed.
        pub fn end_session(&mut self, id: &str, path: &str, cwd: &str, extra: Value) {
            let s = std::mem::take(&mut self.tally.session);
            self.tally.sessions += 1;
            let mut v = json!({
                "id": id,
                "path": path,
                "cwd": cwd,
                "runs": s.runs,
                "failed_runs": s.failed_runs,
                "responses": s.responses,
                "tokens": s.tokens.json(),
                "first": s.first_ms.map(iso),
                "last": iso(s.last_ms),
            });
            if let (Value::Object(m), Value::Object(e)) = (&mut v, extra) {
                m.extend(e);
            }
            self.tally.sessions_list.push(v);
        }

        fn touch(&mut self, at_ms: i64) {
            let s = &mut self.tally.session;
            s.first_ms.get_or_insert(at_ms);
            s.last_ms = s.last_ms.max(at_ms);
        }

        pub fn run(&mut self, at_ms: i64) {
            self.touch(at_ms);
            self.tally.runs += 1;
            self.tally.session.runs += 1;
            self.tally.days.entry(day_of(at_ms)).or_default().runs += 1;
        }

        pub fn failed(&mut self, run_ms: i64) {
            self.tally.failed_runs += 1;
            self.tally.session.failed_runs += 1;
            self.tally
                .days
                .entry(day_of(run_ms))
                .or_default()
                .failed_runs += 1;
        }

        pub fn unfinished(&mut self) {
            self.tally.unfinished_runs += 1;
            self.trap("unfinished_sessions", 1);
        }

        /// One billed response.
        pub fn billed(&mut self, at_ms: i64, model: &str, t: &Tok) {
            self.touch(at_ms);
            self.tally.responses += 1;
            self.tally.tokens.add(t);
            self.tally.session.responses += 1;
            self.tally.session.tokens.add(t);
            let d = self.tally.days.entry(day_of(at_ms)).or_default();
            d.responses += 1;
            d.tokens.add(t);
            self.tally
                .models
                .entry(model.to_string())
                .or_default()
                .add(t);
        }

        pub fn trap(&mut self, name: &'static str, n: u64) {
            *self.tally.traps.entry(name).or_default() += n;
        }

        pub fn trap_tokens(&mut self, name: &'static str, t: &Tok) {
            self.tally.trap_tokens.entry(name).or_default().add(t);
        }

        pub fn uuid(&mut self) -> String {
            let a = self.rng.next();
            let b = self.rng.next();
            format!(
                "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xfff,
                8 + (b >> 62),
                (b >> 48) & 0xfff,
                b & 0xffff_ffff_ffff
            )
        }

        /// A time-ordered id, as Codex makes them.
        pub fn uuid7(&mut self, ms: i64) -> String {
            let b = self.rng.next();
            let ms = ms as u64;
            format!(
                "{:08x}-{:04x}-7{:03x}-{:x}{:03x}-{:012x}",
                ms >> 16,
                ms & 0xffff,
                (b >> 52) & 0xfff,
                8 + ((b >> 50) & 3),
                (b >> 38) & 0xfff,
                b & 0xffff_ffff_ffff
            )
        }

        pub fn hex(&mut self, n: usize) -> String {
            let mut s = String::with_capacity(n + 16);
            while s.len() < n {
                let _ = write!(s, "{:016x}", self.rng.next());
            }
            s.truncate(n);
            s
        }

        pub fn base62(&mut self, n: usize) -> String {
            const A: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
            (0..n)
                .map(|_| A[self.rng.below(62) as usize] as char)
                .collect()
        }

        /// Prose of `lo..=hi` bytes.
        pub fn prose_in(&mut self, lo: u64, hi: u64) -> String {
            let n = self.rng.range(lo, hi) as usize;
            self.prose(n)
        }

        pub fn base62_in(&mut self, lo: u64, hi: u64) -> String {
            let n = self.rng.range(lo, hi) as usize;
            self.base62(n)
        }

        /// `lo..=hi` lines of code, escaped.
        pub fn take_code(&mut self, lo: u64, hi: u64) -> String {
            let n = self.rng.range(lo, hi) as usize;
            self.text.code.take(&mut self.rng, n).to_string()
        }

        /// `lo..=hi` lines of command output, escaped.
        pub fn take_out(&mut self, lo: u64, hi: u64) -> String {
            let n = self.rng.range(lo, hi) as usize;
            self.text.out.take(&mut self.rng, n).to_string()
        }

        /// Prose, JSON-escaped, about `len` bytes.
        pub fn prose(&mut self, len: usize) -> String {
            self.text.prose(&mut self.rng, len)
        }

        /// What the user asks, escaped.
        pub fn prompt(&mut self) -> String {
            let lead = self.rng.pick(PROMPTS);
            let n = self.rng.range(0, 60) as usize;
            if n < 8 {
                esc(lead)
            } else {
                format!("{} {}", esc(lead), self.prose(n * 6))
            }
        }
    }

    /// `s` as the inside of a JSON string.
    pub(super) fn esc(s: &str) -> String {
        let j = js(s);
        j[1..j.len() - 1].to_string()
    }

    /// A rough token count of an escaped text.
    pub(super) fn toks(escaped_len: usize) -> u64 {
        (escaped_len as u64 / 4).max(1)
    }

    const PROMPTS: &[&str] = &[
        "Fix the failing test in the cart module.",
        "Why does `cargo build` fail on CI but not locally?",
        "Add pagination to the /orders endpoint.",
        "Refactor the config loader so it reads env vars first.",
        "The login page flickers on Safari — find out why.",
        "Write unit tests for the price rounding (naïve café €4,50 case).",
        "Explain what this migration does and whether it is safe to run twice.",
        "Upgrade the dependencies and fix what breaks.",
        "Rename `UserService` to `AccountService` everywhere.",
        "Profile the import job, it got 3× slower since last week.",
        "日本語のエラーメッセージを英語に直して",
        "Add a --dry-run flag to the deploy script.",
        "Summarize the open TODOs in src/ and group them by module.",
        "Make the flaky websocket test deterministic.",
        "Port the Python helper to Rust 🦀 and keep the same CLI.",
        "Review my last commit for bugs.",
        "Set up a GitHub Actions workflow that runs clippy and the tests.",
        "Find where we leak file descriptors in the watcher.",
        "Document the public API of the billing crate.",
        "Continue.",
    ];

    // -- text -----------------------------------------------------------------------------

    /// Pools of pre-escaped text: tool output is a slice of consecutive lines, copied.
    pub(super) struct Text {
        pub code: Pool,
        pub out: Pool,
        words: Vec<String>,
    }

    pub(super) struct Pool {
        text: String,
        starts: Vec<usize>,
    }

    impl Pool {
        fn new(lines: impl Iterator<Item = String>) -> Pool {
            let mut text = String::new();
            let mut starts = Vec::new();
            for l in lines {
                starts.push(text.len());
                text.push_str(&esc(&l));
                text.push_str("\\n");
            }
            starts.push(text.len());
            Pool { text, starts }
        }

        pub fn lines(&self) -> usize {
            self.starts.len() - 1
        }

        /// `n` consecutive lines from a random one, escaped, each ending in `\n`.
        pub fn take(&self, rng: &mut Rng, n: usize) -> &str {
            let at = self.start(rng, n);
            self.slice(at, n)
        }

        /// Where `n` consecutive lines can start.
        pub fn start(&self, rng: &mut Rng, n: usize) -> usize {
            let n = n.clamp(1, self.lines() - 1);
            rng.below((self.lines() - n) as u64) as usize
        }

        /// Lines `at..at + n`.
        pub fn slice(&self, at: usize, n: usize) -> &str {
            let end = (at + n.max(1)).min(self.lines());
            &self.text[self.starts[at]..self.starts[end]]
        }

        /// How many of the `n` lines from `at` fit in `max` bytes (one at least).
        pub fn fit(&self, at: usize, n: usize, max: usize) -> usize {
            let base = self.starts[at];
            (1..=n)
                .take_while(|&k| at + k < self.starts.len() && self.starts[at + k] - base <= max)
                .last()
                .unwrap_or(1)
        }

        /// Line `i` (escaped, without its `\n`).
        pub fn line(&self, i: usize) -> &str {
            let i = i % self.lines();
            &self.text[self.starts[i]..self.starts[i + 1] - 2]
        }
    }

    const IDS: &[&str] = &[
        "total", "cart", "items", "price", "qty", "user", "account", "order", "invoice", "config",
        "load_env", "parse", "render", "handler", "req", "resp", "conn", "pool", "retry",
        "backoff", "cache", "key", "value", "buf", "reader", "writer", "session", "token", "limit",
        "offset", "page", "cursor", "watcher", "event", "queue", "job", "worker", "ctx", "state",
        "diff", "patch", "node", "edge", "graph", "schema",
    ];
    const TYPES: &[&str] = &[
        "Item",
        "Cart",
        "Order",
        "Config",
        "Error",
        "Session",
        "Request",
        "Response",
        "String",
        "Vec<u8>",
        "Option<u64>",
        "HashMap<String, Value>",
        "Arc<Mutex<State>>",
        "Result<()>",
    ];
    const FILES: &[&str] = &[
        "src/cart.rs",
        "src/main.rs",
        "src/lib.rs",
        "src/db/pool.rs",
        "src/http/handler.rs",
        "src/config.rs",
        "web/src/App.tsx",
        "web/src/api/client.ts",
        "scripts/deploy.sh",
        "tests/cart_test.rs",
        "pkg/billing/invoice.go",
        "app/models/user.py",
        "README.md",
        "migrations/0042_orders.sql",
        "src/watcher/mod.rs",
    ];
    const PROSE: &[&str] = &[
        "the",
        "test",
        "fails",
        "because",
        "the",
        "rounding",
        "is",
        "done",
        "before",
        "the",
        "tax",
        "is",
        "added",
        "so",
        "I",
        "will",
        "read",
        "the",
        "file",
        "first",
        "and",
        "then",
        "fix",
        "it",
        "in",
        "place",
        "—",
        "this",
        "keeps",
        "the",
        "public",
        "API",
        "stable",
        "`total()`",
        "returns",
        "cents",
        "now",
        "which",
        "matches",
        "the",
        "spec",
        "naïve",
        "café",
        "über",
        "日本語",
        "🎉",
        "✓",
        "\"quoted\"",
        "back\\slash",
        "→",
        "≤",
        "tab\there",
        "should",
        "must",
        "never",
        "always",
        "when",
        "the",
        "user",
        "asks",
        "for",
        "a",
        "change",
        "run",
        "the",
        "tests",
        "again",
        "after",
        "each",
        "edit",
        "commit",
        "only",
        "when",
        "asked",
        "prefer",
        "small",
        "diffs",
        "and",
        "clear",
        "names",
        "use",
        "the",
        "existing",
        "helpers",
        "instead",
        "of",
        "new",
        "ones",
        "cargo",
        "clippy",
        "passes",
        "`src/lib.rs`",
        "{braces}",
        "[brackets]",
        "x:y",
        "a,b",
        "it's",
        "don't",
    ];

    impl Text {
        fn new(rng: &mut Rng) -> Text {
            let code = Pool::new((0..30_000).map(|_| code_line(rng)));
            let out = Pool::new((0..30_000).map(|_| output_line(rng)));
            let words = PROSE.iter().map(|w| esc(w)).collect();
            Text { code, out, words }
        }

        fn prose(&self, rng: &mut Rng, len: usize) -> String {
            let mut s = String::with_capacity(len + 16);
            let mut sentence = 0;
            while s.len() < len {
                let w = &self.words[rng.below(self.words.len() as u64) as usize];
                if sentence == 0 {
                    if !s.is_empty() {
                        s.push_str(if rng.chance(12) { "\\n\\n" } else { " " });
                    }
                    // A capital letter starts a sentence.
                    let mut c = w.chars();
                    if let Some(f) = c.next() {
                        s.extend(f.to_uppercase());
                        s.push_str(c.as_str());
                    }
                } else {
                    s.push(' ');
                    s.push_str(w);
                }
                sentence += 1;
                if sentence > 6 && rng.chance(15) {
                    s.push('.');
                    sentence = 0;
                }
            }
            if sentence != 0 {
                s.push('.');
            }
            s
        }
    }

    fn code_line(rng: &mut Rng) -> String {
        let id = |r: &mut Rng| r.pick(IDS);
        let ty = |r: &mut Rng| r.pick(TYPES);
        let n = rng.range(0, 4096);
        let indent = "    ".repeat(rng.below(4) as usize);
        match rng.below(22) {
            0 => format!(
                "pub fn {}(&self, {}: &{}) -> Result<{}, Error> {{",
                id(rng),
                id(rng),
                ty(rng),
                ty(rng)
            ),
            1 => format!(
                "{indent}let {} = {}.iter().map(|x| x.{}()).collect::<Vec<_>>();",
                id(rng),
                id(rng),
                id(rng)
            ),
            2 => format!(
                "{indent}if {}.len() > {n} {{ return Err(Error::Invalid(\"{} too long\".into())); }}",
                id(rng),
                id(rng)
            ),
            3 | 4 => format!("{indent}}}"),
            5 => format!(
                "{indent}// {} {} {} — see #{n}",
                id(rng),
                rng.pick(PROSE),
                rng.pick(PROSE)
            ),
            6 => format!("{indent}assert_eq!({}({n}), {});", id(rng), rng.below(1000)),
            7 => format!("import {{ {} }} from \"./{}\";", ty(rng), id(rng)),
            8 => format!(
                "export async function {}(req: Request): Promise<{}> {{",
                id(rng),
                ty(rng)
            ),
            9 => format!("def {}(self, {}: int = {n}) -> dict:", id(rng), id(rng)),
            10 => format!("{indent}return {}[{}:{n}]", id(rng), rng.below(10)),
            11 => "#[derive(Debug, Clone, PartialEq, Eq, Hash)]".to_string(),
            12 => format!(
                "{indent}\"{}\": \"{} {}\",",
                id(rng),
                rng.pick(PROSE),
                rng.pick(PROSE)
            ),
            13 => format!("\t{} := make(map[string]{}, {n})", id(rng), id(rng)),
            14 | 15 => String::new(),
            16 => format!(
                "{indent}let path = \"C:\\\\Users\\\\dev\\\\{}\\\\{}.txt\";",
                id(rng),
                id(rng)
            ),
            17 => format!(
                "{indent}/* {} 🎉 ✓ naïve café {} */",
                id(rng),
                rng.pick(PROSE)
            ),
            18 => format!(
                "{indent}self.{} = {}::new({}, {n});",
                id(rng),
                ty(rng),
                id(rng)
            ),
            19 => format!(
                "{indent}match {} {{ Some(v) => v, None => return Ok({}::default()) }}",
                id(rng),
                ty(rng)
            ),
            20 => format!("# 日本語のコメント {n}: {}", id(rng)),
            _ => format!("{indent}{}.{}(&{}).await?;", id(rng), id(rng), id(rng)),
        }
    }

    fn output_line(rng: &mut Rng) -> String {
        let id = |r: &mut Rng| r.pick(IDS);
        let n = rng.range(1, 999);
        match rng.below(16) {
            0..=3 => format!(
                "test {}::tests::{}_{} ... {}",
                id(rng),
                id(rng),
                id(rng),
                if rng.chance(8) { "FAILED" } else { "ok" }
            ),
            4 => format!(
                "   Compiling {}-{} v0.{}.{}",
                id(rng),
                id(rng),
                rng.below(20),
                rng.below(10)
            ),
            5 => format!("warning: unused variable: `{}`", id(rng)),
            6 => format!("  --> {}:{n}:{}", rng.pick(FILES), rng.below(80)),
            7 => format!(
                "-rw-r--r--  1 dev dev {:>6} Nov {:>2} {:02}:{:02} {}",
                n * 37,
                rng.range(1, 28),
                rng.below(24),
                rng.below(60),
                rng.pick(FILES)
            ),
            8 => format!("{}:{n}:    {}", rng.pick(FILES), code_line(rng)),
            9 => format!(
                "commit {:016x}{:016x}{:08x}",
                rng.next(),
                rng.next(),
                rng.next() as u32
            ),
            10 => format!(
                "    {} {} {} (#{n})",
                rng.pick(PROSE),
                id(rng),
                rng.pick(PROSE)
            ),
            11 => format!(
                "test result: ok. {n} passed; 0 failed; {} ignored; finished in {}.{:02}s",
                rng.below(3),
                rng.below(30),
                rng.below(100)
            ),
            12 => format!(
                "\u{1b}[32m✓\u{1b}[0m {} {} ({n} ms)",
                id(rng),
                rng.pick(PROSE)
            ),
            13 => format!(
                "npm WARN deprecated {}@{}.{}.{}: {} {}",
                id(rng),
                rng.below(9),
                rng.below(20),
                rng.below(9),
                rng.pick(PROSE),
                rng.pick(PROSE)
            ),
            14 => format!(
                "error[E0{:03}]: mismatched types in `{}`",
                rng.below(800),
                id(rng)
            ),
            _ => code_line(rng),
        }
    }

    /// The working directories the sessions are run in.
    const CWDS: &[&str] = &[
        "/home/dev/src/shop-api",
        "/home/dev/src/web-frontend",
        "/home/dev/src/cursor-stream",
        "/home/dev/work/infra.tf",
        "/home/dev/src/ml_pipeline",
        "/home/dev/go/src/github.com/acme/billing",
        "/home/dev/notes",
        "/home/dev/src/mobile-app",
    ];

    const BRANCHES: &[&str] = &[
        "main",
        "main",
        "main",
        "HEAD",
        "feature/pagination",
        "fix/rounding",
    ];

    /// A project for a new session: some are used much more than others.
    pub(super) fn cwd(ctx: &mut Ctx) -> &'static str {
        let r = ctx.rng.below(100) as usize;
        let i = match r {
            0..=29 => 0,
            30..=49 => 1,
            50..=64 => 2,
            65..=74 => 3,
            75..=82 => 4,
            83..=89 => 5,
            90..=94 => 6,
            _ => 7,
        };
        CWDS[i]
    }

    /// `/home/dev/work/infra.tf` → `-home-dev-work-infra-tf` (Claude Code's project folders).
    pub(super) fn dash_slug(cwd: &str) -> String {
        cwd.chars()
            .map(|c| if c == '/' || c == '.' { '-' } else { c })
            .collect()
    }

    /// The number of model responses in a run: mostly a few, sometimes many.
    pub(super) fn responses_in_run(ctx: &mut Ctx, max: u64) -> u64 {
        let r = ctx.rng.below(100);
        let n = if r < 20 {
            1
        } else if r < 55 {
            ctx.rng.range(2, 4)
        } else if r < 85 {
            ctx.rng.range(5, 8)
        } else {
            ctx.rng.range(9, 14)
        };
        n.min(max)
    }

    /// The number of prompts in a session.
    pub(super) fn prompts_in_session(ctx: &mut Ctx, max: u64) -> u64 {
        let r = ctx.rng.below(100);
        let n = if r < 25 {
            1
        } else if r < 60 {
            ctx.rng.range(2, 4)
        } else if r < 90 {
            ctx.rng.range(5, 9)
        } else {
            ctx.rng.range(10, 16)
        };
        n.min(max)
    }

    /// The prompt of a cut line: `line` up to about its middle (on a character boundary),
    /// with no newline: a log whose writer was killed.
    pub(super) fn cut(line: &str) -> &str {
        let mut at = line.len() / 2;
        while !line.is_char_boundary(at) {
            at -= 1;
        }
        &line[..at]
    }

    // -- Claude Code ------------------------------------------------------------------------

    mod claude {
        //! `~/.claude/projects/<cwd-slug>/<session>.jsonl`, and
        //! `<session>/subagents/agent-<id>.jsonl`: Claude Code 2.1.330's records.

        use super::*;

        const VERSION: &str = "2.1.330";
        const MODELS: &[(&str, &str)] = &[
            ("claude-opus-5-5", "Opus 5.5"),
            ("claude-sonnet-5-1", "Sonnet 5.1"),
            ("claude-haiku-5", "Haiku 5"),
        ];
        const BETAS: &str = r#"["claude-code-20250219","interleaved-thinking-2025-05-14","context-management-2025-06-27","per-turn-control-2026-07-01","mid-conversation-tool-changes-2026-07-01","thinking-token-count-2026-05-13","advanced-tool-use-2025-11-20","effort-2025-11-24","thinking-display-updates-2026-08-18"]"#;
        const SERVER_TOOLS: &str =
            r#""server_tool_use":{"web_search_requests":0,"web_fetch_requests":0}"#;

        /// (name, description length, properties)
        const TOOLS: &[(&str, usize, &[&str])] = &[
            (
                "Agent",
                3225,
                &[
                    "description",
                    "prompt",
                    "subagent_type",
                    "model",
                    "effort",
                    "run_in_background",
                    "isolation",
                ],
            ),
            (
                "Bash",
                1800,
                &[
                    "command",
                    "timeout",
                    "description",
                    "run_in_background",
                    "dangerouslyDisableSandbox",
                ],
            ),
            (
                "Edit",
                360,
                &["file_path", "old_string", "new_string", "replace_all"],
            ),
            ("ListAgents", 1433, &["channel", "q", "cursor"]),
            (
                "Read",
                790,
                &["file_path", "offset", "limit", "pages", "allow_large"],
            ),
            ("ReportFindings", 574, &["level", "findings"]),
            (
                "ScheduleWakeup",
                3396,
                &["delaySeconds", "reason", "prompt", "stop", "noop"],
            ),
            ("Skill", 1417, &["skill", "args"]),
            ("ToolSearch", 952, &["query", "max_results"]),
            (
                "Workflow",
                3496,
                &[
                    "script",
                    "name",
                    "description",
                    "title",
                    "args",
                    "scriptPath",
                    "resumeFromRunId",
                ],
            ),
            ("DeferredToolPlaceholder", 83, &[]),
            ("Write", 240, &["file_path", "content"]),
        ];

        /// What every session of this install shares: the large, fixed parts of the
        /// records (attachments, the request shape, the prompt snapshot).
        struct Static {
            env_rest: String,
            deferred_rendered: String,
            agent_lines: Vec<String>,
            agent_rendered: String,
            skill_content: String,
            skill_rendered: String,
            auto_rendered: String,
            remote_rendered: String,
            snap_system: String,
            shape_system: String,
            shape_tools: String,
            snap_tools: String,
            blob_system: String,
            blob_reminder: String,
        }

        impl Static {
            fn new(ctx: &mut Ctx) -> Static {
                let mut schemas = Vec::new();
                for (name, len, props) in TOOLS {
                    let desc = ctx.prose(*len);
                    let mut schema = String::from(
                        r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"#,
                    );
                    for (i, p) in props.iter().enumerate() {
                        if i > 0 {
                            schema.push(',');
                        }
                        let n = ctx.rng.range(30, 360) as usize;
                        let d = ctx.prose(n);
                        let ty = ctx
                            .rng
                            .pick(&["string", "string", "boolean", "number", "integer"]);
                        let _ = write!(schema, r#""{p}":{{"description":"{d}","type":"{ty}"}}"#);
                    }
                    schema.push('}');
                    if let Some(first) = props.first() {
                        let _ = write!(schema, r#","required":["{first}"]"#);
                    }
                    schema.push_str(r#","additionalProperties":false}"#);
                    schemas.push((name, desc, schema));
                }
                let shape_tools = format!(
                    "[{}]",
                    schemas
                        .iter()
                        .map(|(n, d, s)| format!(
                            r#"{{"name":"{n}","description":"{d}","input_schema":{s}}}"#
                        ))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                let snap_tools = format!(
                    "[{}]",
                    schemas
                        .iter()
                        .map(|(n, d, s)| {
                            format!(
                                r#"{{"name":"{n}","description":"{d}","schema":{{"name":"{n}","description":"{d}","input_schema":{s}}}}}"#
                            )
                        })
                        .collect::<Vec<_>>()
                        .join(",")
                );
                let snap_system = format!(
                    "[{}]",
                    [2025, 357, 520, 424, 163, 2115, 620, 280, 277, 265]
                        .iter()
                        .map(|&n| format!("\"{}\"", ctx.prose(n)))
                        .collect::<Vec<_>>()
                        .join(",")
                );
                let shape_system = format!(
                    r#"[{{"type":"text","text":"You are a Claude agent, built on Anthropic's Claude Agent SDK."}},{{"type":"text","text":"{}"}}]"#,
                    ctx.prose(7064)
                );
                let agent_lines: Vec<String> = [132, 539, 309, 364, 111]
                    .iter()
                    .map(|&n| ctx.prose(n))
                    .collect();
                Static {
                    env_rest: ctx.prose(560),
                    deferred_rendered: ctx.prose(404),
                    agent_rendered: format!(
                        "<system-reminder>\\nAvailable agent types for the Agent tool:\\n{}\\n</system-reminder>",
                        agent_lines.join("\\n")
                    ),
                    agent_lines,
                    skill_content: ctx.prose(6210),
                    skill_rendered: ctx.prose(6312),
                    auto_rendered: ctx.prose(530),
                    remote_rendered: ctx.prose(579),
                    snap_system,
                    shape_system,
                    shape_tools,
                    snap_tools,
                    blob_system: ctx.prose(9711),
                    blob_reminder: ctx.prose(580),
                }
            }
        }

        /// One file's lines and the conversation they hold: a session's log, or a
        /// sub-agent's.
        struct Conv {
            buf: String,
            sid: String,
            cwd: String,
            branch: String,
            /// `"userType":…,"gitBranch":"…"}` (what closes every envelope).
            tail: String,
            /// The sub-agent's id, in a sub-agent's file.
            agent: Option<String>,
            parent: Option<String>,
            /// The conversation's lines, kept for a resumed copy.
            keep: Option<Vec<String>>,
            now: i64,
            /// Tokens in the context, and how many of them the cache holds.
            context: u64,
            cached: u64,
            last_request_ms: i64,
        }

        impl Conv {
            fn new(sid: &str, cwd: &str, branch: &str, agent: Option<String>, now: i64) -> Conv {
                Conv {
                    buf: String::with_capacity(1 << 20),
                    sid: sid.to_string(),
                    cwd: cwd.to_string(),
                    branch: branch.to_string(),
                    tail: format!(
                        r#""userType":"external","entrypoint":"sdk-cli","cwd":"{cwd}","sessionId":"{sid}","version":"{VERSION}","gitBranch":"{branch}"}}"#
                    ),
                    agent,
                    parent: None,
                    keep: None,
                    now,
                    context: 0,
                    cached: 0,
                    last_request_ms: 0,
                }
            }

            fn line(&mut self, l: &str) {
                self.buf.push_str(l);
                self.buf.push('\n');
            }

            /// A line of the conversation (kept for a resumed copy).
            fn convo(&mut self, l: String) {
                self.buf.push_str(&l);
                self.buf.push('\n');
                if let Some(k) = &mut self.keep {
                    k.push(l);
                }
            }

            /// `{"parentUuid":…,"isSidechain":…,` and the next line's parent.
            fn head(&mut self, uuid: &str) -> String {
                let parent = match self.parent.replace(uuid.to_string()) {
                    Some(p) => format!("\"{p}\""),
                    None => "null".to_string(),
                };
                match &self.agent {
                    Some(a) => {
                        format!(r#"{{"parentUuid":{parent},"isSidechain":true,"agentId":"{a}","#)
                    }
                    None => format!(r#"{{"parentUuid":{parent},"isSidechain":false,"#),
                }
            }

            fn tick(&mut self, ctx: &mut Ctx, lo: u64, hi: u64) -> i64 {
                self.now += ctx.rng.range(lo, hi) as i64;
                self.now
            }
        }

        /// A session's state beyond its conversation.
        struct Sess {
            conv: Conv,
            model: &'static str,
            perm: &'static str,
            slug: String,
            shape_hash: String,
            snapshot_done: bool,
            last_ref: Option<String>,
            start_ms: i64,
            api_ms: u64,
            tool_ms: u64,
            lines_added: u64,
            lines_removed: u64,
            /// Per model: tokens, 5-minute and 1-hour cache writes, cost.
            cost: BTreeMap<&'static str, (Tok, u64, u64, f64)>,
        }

        pub(in super::super) fn generate(ctx: &mut Ctx) -> io::Result<()> {
            let st = Static::new(ctx);
            let mut n = 0u64;
            let mut parent: Option<Conv> = None;
            while ctx.more() {
                let unfinished = n == 1;
                let resumed = if unfinished { None } else { parent.take() };
                let keep = !unfinished && resumed.is_none() && ctx.rng.chance(3);
                session(ctx, &st, resumed, keep, unfinished, &mut parent)?;
                n += 1;
            }
            Ok(())
        }

        fn session(
            ctx: &mut Ctx,
            st: &Static,
            resumed: Option<Conv>,
            keep: bool,
            unfinished: bool,
            parent_out: &mut Option<Conv>,
        ) -> io::Result<()> {
            ctx.begin_session();
            let sid = ctx.uuid();
            let (cwd, start) = match &resumed {
                Some(p) => {
                    let t = p.now + ctx.gap();
                    (p.cwd.clone(), t)
                }
                None => (cwd(ctx).to_string(), ctx.session_start()),
            };
            let prompts = prompts_in_session(ctx, 16) + ctx.rng.below(3);
            let (start, prompts) = if unfinished {
                ctx.unfinished_plan(start, prompts)
            } else {
                (start, prompts)
            };
            let Some(start) = ctx.place_run(start) else {
                // No room left in the window after the parent: a session of its own.
                return session(ctx, st, None, keep, unfinished, parent_out);
            };
            let branch = ctx.rng.pick(BRANCHES);
            let mut conv = Conv::new(&sid, &cwd, branch, None, start);
            if keep {
                conv.keep = Some(Vec::new());
            }
            let model = match ctx.rng.below(10) {
                0..=5 => MODELS[0].0,
                6..=8 => MODELS[1].0,
                _ => MODELS[2].0,
            };
            let mut s = Sess {
                conv,
                model,
                perm: ctx.rng.pick(&[
                    "default",
                    "acceptEdits",
                    "bypassPermissions",
                    "default",
                    "plan",
                ]),
                slug: dash_slug(&cwd),
                shape_hash: ctx.hex(64),
                snapshot_done: false,
                last_ref: None,
                start_ms: start,
                api_ms: 0,
                tool_ms: 0,
                lines_added: 0,
                lines_removed: 0,
                cost: BTreeMap::new(),
            };
            // A resumed session: the earlier file's conversation first, under this id.
            if let Some(p) = &resumed {
                let lines = p.keep.as_deref().unwrap_or_default();
                let mut copied_responses = std::collections::HashSet::new();
                for l in lines {
                    let l = l.replace(&p.sid, &sid);
                    if l.contains(r#""type":"assistant""#) {
                        if let Some(at) = l.find(r#""id":"msg_"#) {
                            copied_responses.insert(l[at + 6..at + 34].to_string());
                        }
                    } else if l.contains(r#""message":{"role":"user","content":""#) {
                        ctx.trap("claude_copied_prompts", 1);
                    }
                    s.conv.line(&l);
                }
                ctx.trap("claude_resumed_files", 1);
                ctx.trap("claude_copied_lines", lines.len() as u64);
                ctx.trap("claude_copied_responses", copied_responses.len() as u64);
                s.conv.parent = p.parent.clone();
                s.conv.context = p.context;
                s.conv.cached = 0;
            }
            let cut_at = unfinished.then(|| prompts - 1);
            let mut t = start;
            for k in 0..prompts {
                let Some(at) = ctx.place_run(t) else { break };
                // A pause over an hour: the cache is gone.
                if at - s.conv.last_request_ms > 3_600_000 {
                    s.conv.cached = 0;
                }
                s.conv.now = at;
                let fail = ctx.rng.chance(3);
                if !run(ctx, st, &mut s, k, k == 0, fail, cut_at == Some(k))? {
                    break;
                }
                t = s.conv.now + ctx.gap();
            }
            let rel = format!(".claude/projects/{}/{sid}.jsonl", s.slug);
            let now = s.conv.now;
            ctx.write(&rel, s.conv.buf.as_bytes(), now)?;
            let extra = json!({
                "model": s.model,
                "resumed_from": resumed.as_ref().map(|p| p.sid.clone()),
            });
            ctx.end_session(&sid, &rel, &cwd, extra);
            if keep {
                s.conv.buf = String::new();
                *parent_out = Some(s.conv);
            }
            Ok(())
        }

        /// The lines a new process writes before its first request.
        fn preamble(ctx: &mut Ctx, st: &Static, s: &mut Sess, prompt: &str) {
            let c = &mut s.conv;
            let cwd = c.cwd.clone();
            let (model, marketing) = *MODELS
                .iter()
                .find(|(m, _)| *m == s.model)
                .unwrap_or(&MODELS[0]);
            let attach = |ctx: &mut Ctx,
                          c: &mut Conv,
                          body: String,
                          rendered: Option<(&str, &str)>| {
                let u = ctx.uuid();
                let t = c.tick(ctx, 0, 3);
                let head = c.head(&u);
                let rendered = match rendered {
                    Some((text, role)) => {
                        let beside = if role == "user" {
                            r#","renderedBesideToolResult":true"#
                        } else {
                            ""
                        };
                        format!(
                            r#","rendered":[{{"content":"{text}"}}],"renderedRole":"{role}"{beside}"#
                        )
                    }
                    None => String::new(),
                };
                let line = format!(
                    r#"{head}"attachment":{body},"type":"attachment","uuid":"{u}","timestamp":"{}"{rendered},{}"#,
                    iso(t),
                    c.tail
                );
                c.line(&line);
            };
            let env = format!(
                "<system-reminder>\\n# Environment\\nYou have been invoked in the following environment: \\n - Primary working directory: {cwd}\\n - Is a git repository: true\\n - Platform: linux\\n - Shell: bash\\n - OS Version: Linux 6.8.0-49-generic\\n - {}\\n</system-reminder>",
                st.env_rest
            );
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"environment","snapshot":{{"workingDirectory":"{cwd}","isWorktree":false,"isGitRepo":true,"additionalWorkingDirectories":[],"platform":"linux","shell":"bash","osVersion":"Linux 6.8.0-49-generic"}}}}"#
                ),
                Some((&env, "system")),
            );
            let text = format!(
                "You are powered by the model named {marketing}. The exact model ID is {model}. Assistant knowledge cutoff is June 2026."
            );
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"model","identity":{{"modelId":"{model}","marketingName":"{marketing}","knowledgeCutoff":"June 2026"}},"text":"{text}"}}"#
                ),
                Some((
                    &format!("<system-reminder>\\n{text}\\n</system-reminder>"),
                    "system",
                )),
            );
            let deferred = r#"["CronCreate","CronDelete","CronList","EnterWorktree","ExitWorktree","Monitor","NotebookEdit","SendMessage","TaskStop","WebFetch","WebSearch"]"#;
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"deferred_tools_delta","addedNames":{deferred},"addedLines":{deferred},"removedNames":[],"wireHiddenNames":[],"readdedNames":[],"pendingMcpServers":[],"needsAuthMcpServers":[],"failedMcpServers":[]}}"#
                ),
                Some((&st.deferred_rendered, "system")),
            );
            let types = r#"["claude","Explore","general-purpose","Plan","statusline-setup"]"#;
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"agent_listing_delta","addedTypes":{types},"addedLines":[{}],"builtInTypes":{types},"builtInPluginTypes":[],"removedTypes":[],"isInitial":true,"showConcurrencyNote":true}}"#,
                    st.agent_lines
                        .iter()
                        .map(|l| format!("\"{l}\""))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                Some((&st.agent_rendered, "system")),
            );
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"skill_listing","content":"{}","skillCount":13,"isInitial":true,"names":["dataviz","update-config","keybindings-help","code-review","simplify","fewer-permission-prompts","loop","claude-api","workflow-authoring","run","plugin-authoring","init","security-review"],"digests":["140faf7359fd9e4c","909bf5fe1d1fb81f","8bcbb8b001b829d1","233332cc9c0d34f7","e6e9b542dec5def2","6b9c0ebd3ca594f8","0d4f2716799e058f","8e7b82fc9f7b5ab0","49e061d3cd347fd2","c3733391c3cbaef1","b8762aae9d28fe4a","ff38bf755f0da166","08f19dfd18875bba"]}}"#,
                    st.skill_content
                ),
                Some((&st.skill_rendered, "system")),
            );
            let bypass = s.perm == "bypassPermissions";
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"auto_mode","autoModeConsentFlow":false,"finishExposedWork":false,"bashFirst":true,"bashFirstSteer":"relaxed","steerOnly":true,"bypass":{bypass}}}"#
                ),
                Some((&st.auto_rendered, "system")),
            );
            let sid = c.sid.clone();
            c.line(&format!(
                r#"{{"type":"atis-latch","atis":"","sessionId":"{sid}"}}"#
            ));
            attach(
                ctx,
                c,
                r#"{"type":"session_context","context":{}}"#.to_string(),
                None,
            );
            let date = day_of(c.now);
            attach(
                ctx,
                c,
                format!(r#"{{"type":"date","date":"{date}"}}"#),
                Some((
                    &format!("<system-reminder>\\nToday's date is {date}.\\n</system-reminder>"),
                    "system",
                )),
            );
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"remote_session_change","url":null,"commit":"Co-Authored-By: Claude {marketing} <noreply@anthropic.com>","pr":"🤖 Generated with [Claude Code](https://claude.com/claude-code)","sendUserFileHint":false,"managedCommit":false,"managedPr":false}}"#
                ),
                Some((&st.remote_rendered, "user")),
            );
            attach(
                ctx,
                c,
                format!(
                    r#"{{"type":"prompt_snapshot","systemPrompt":{},"reminderFold":false,"echoWireToolInputs":false,"contextRendering":"announced"}}"#,
                    st.snap_system
                ),
                None,
            );
            let t = c.tick(ctx, 20, 90);
            let version = VERSION;
            c.line(&format!(
                r#"{{"type":"api-request-shape","sessionId":"{sid}","shapeHash":"{}","timestamp":"{}","version":"{version}","shape":{{"system":{},"tools":{}}}}}"#,
                s.shape_hash,
                iso(t),
                st.shape_system,
                st.shape_tools
            ));
            let h1 = ctx.hex(64);
            let h2 = ctx.hex(64);
            c.line(&format!(
                r#"{{"type":"api-request-blob","sessionId":"{sid}","hash":"{h1}","message":{{"role":"user","content":[{{"type":"text","text":"<system-reminder>\n{}\n</system-reminder>"}},{{"type":"text","text":"{prompt}"}}]}}}}"#,
                st.blob_reminder
            ));
            c.line(&format!(
                r##"{{"type":"api-request-blob","sessionId":"{sid}","hash":"{h2}","message":{{"role":"system","content":[{{"type":"text","text":"# Environment\nYou have been invoked in the following environment: \n - Primary working directory: {cwd}\n{}"}}],"output_config":{{"effort":"medium"}}}}}}"##,
                st.blob_system
            ));
            // The system prompt and the tools: in the context from the start.
            c.context += 18_000 + ctx.rng.below(6_000);
        }

        /// An `api-request` line; returns its id.
        fn api_request(ctx: &mut Ctx, s: &mut Sess, model: &str) -> String {
            let id = ctx.uuid();
            let t = s.conv.tick(ctx, 30, 400);
            s.conv.last_request_ms = t;
            let base = match &s.last_ref {
                Some(b) => format!(r#""base":"{b}","#),
                None => String::new(),
            };
            let keep = if s.last_ref.is_some() {
                ctx.rng.range(2, 40)
            } else {
                0
            };
            let tail1 = ctx.hex(64);
            let tail2 = ctx.hex(64);
            let digest = ctx.hex(64);
            let msg_at = keep + 1;
            let line = format!(
                r#"{{"type":"api-request","sessionId":"{}","id":"{id}","timestamp":"{}","version":"{VERSION}","querySource":"sdk","shapeHash":"{}","params":{{"model":"{model}","betas":{BETAS},"max_tokens":128000,"thinking":{{"type":"adaptive","display":"updates"}},"context_management":{{"edits":[{{"type":"clear_thinking_20251015","keep":"all"}}]}},"output_config":{{"effort":"medium"}}}},{base}"keep":{keep},"tail":["{tail1}","{tail2}"],"cacheControl":[{{"path":["system",0],"value":{{"type":"ephemeral"}}}},{{"path":["system",1],"value":{{"type":"ephemeral"}}}},{{"path":["messages",{msg_at},"content",0],"value":{{"type":"ephemeral"}}}}],"requestDigest":"{digest}"}}"#,
                s.conv.sid,
                iso(t),
                s.shape_hash
            );
            s.conv.line(&line);
            s.last_ref = Some(id.clone());
            id
        }

        /// One tool call of a response.
        enum Call {
            Read {
                path: String,
                lines: usize,
            },
            Bash {
                cmd: String,
                desc: String,
                lines: usize,
                denied: bool,
            },
            Edit {
                path: String,
                lines: usize,
            },
            Grep {
                pattern: String,
                lines: usize,
            },
            Agent {
                desc: String,
                prompt: String,
                kind: &'static str,
            },
        }

        impl Call {
            fn pick(ctx: &mut Ctx, cwd: &str, sub_ok: bool) -> Call {
                let file = ctx.rng.pick(FILES);
                let r = ctx.rng.below(1000);
                if sub_ok && r < 2 {
                    let prompt = ctx.prose_in(200, 900);
                    return Call::Agent {
                        desc: "Explore the code base".to_string(),
                        prompt,
                        kind: ctx.rng.pick(&["Explore", "general-purpose", "Plan"]),
                    };
                }
                match r % 100 {
                    0..=37 => Call::Read {
                        path: format!("{cwd}/{file}"),
                        lines: ctx.rng.range(30, 2000) as usize,
                    },
                    38..=69 => {
                        let cmd = ctx.rng.pick(&[
                            "cargo test 2>&1 | tail -200",
                            "cargo build --release",
                            "git log --stat -20",
                            "npm run test -- --watch=false",
                            "ls -la src",
                            "rg -n TODO",
                            "pytest -x -q",
                            "git diff HEAD~1",
                        ]);
                        Call::Bash {
                            cmd: cmd.to_string(),
                            desc: format!("Run {}", cmd.split(' ').next().unwrap_or(cmd)),
                            lines: ctx.rng.range(5, 1200) as usize,
                            denied: ctx.rng.chance(3),
                        }
                    }
                    70..=86 => Call::Edit {
                        path: format!("{cwd}/{file}"),
                        lines: ctx.rng.range(60, 1300) as usize,
                    },
                    _ => Call::Grep {
                        pattern: ctx.rng.pick(IDS).to_string(),
                        lines: ctx.rng.range(5, 300) as usize,
                    },
                }
            }

            fn name(&self) -> &'static str {
                match self {
                    Call::Read { .. } => "Read",
                    Call::Bash { .. } => "Bash",
                    Call::Edit { .. } => "Edit",
                    Call::Grep { .. } => "Grep",
                    Call::Agent { .. } => "Agent",
                }
            }

            fn input(&self, ctx: &mut Ctx) -> String {
                match self {
                    Call::Read { path, .. } => format!(r#"{{"file_path":"{path}"}}"#),
                    Call::Bash { cmd, desc, .. } => {
                        format!(r#"{{"command":"{cmd}","description":"{desc}"}}"#)
                    }
                    Call::Edit { path, .. } => {
                        let old = ctx.text.code.take(&mut ctx.rng, 3).to_string();
                        let new = ctx.text.code.take(&mut ctx.rng, 4).to_string();
                        format!(
                            r#"{{"file_path":"{path}","old_string":"{old}","new_string":"{new}","replace_all":false}}"#
                        )
                    }
                    Call::Grep { pattern, .. } => {
                        format!(
                            r#"{{"pattern":"{pattern}","path":"src","output_mode":"content","-n":true}}"#
                        )
                    }
                    Call::Agent { desc, prompt, kind } => {
                        format!(
                            r#"{{"description":"{desc}","prompt":"{prompt}","subagent_type":"{kind}"}}"#
                        )
                    }
                }
            }
        }

        /// Usage of one response on `conv`'s context; the context grows by its output.
        fn usage(
            ctx: &mut Ctx,
            conv: &mut Conv,
            out_tokens: u64,
            thinking: u64,
        ) -> (Tok, u64, u64) {
            let prompt = conv.context.max(1000);
            let read = conv.cached.min(prompt);
            let input = if ctx.rng.chance(4) {
                ctx.rng.range(50, 3000)
            } else {
                ctx.rng.range(1, 12)
            };
            let input = input.min(prompt - read);
            let write = prompt - read - input;
            let (w5, w1) = if ctx.rng.chance(85) {
                (0, write)
            } else {
                (write, 0)
            };
            conv.cached = prompt;
            conv.context = (prompt + out_tokens).min(195_000);
            let tok = Tok {
                input,
                output: out_tokens,
                cache_read: read,
                cache_write: write,
                reasoning: thinking,
            };
            (tok, w5, w1)
        }

        fn usage_json(t: &Tok, w5: u64, w1: u64) -> String {
            format!(
                r#""usage":{{"input_tokens":{},"cache_creation_input_tokens":{},"cache_read_input_tokens":{},"output_tokens":{},"output_tokens_details":{{"thinking_tokens":{}}},{SERVER_TOOLS},"service_tier":"standard","cache_creation":{{"ephemeral_1h_input_tokens":{w1},"ephemeral_5m_input_tokens":{w5}}},"inference_geo":"","iterations":[],"speed":"standard","fallback_credit":null}}"#,
                t.input, t.cache_write, t.cache_read, t.output, t.reasoning
            )
        }

        /// What a response is made of.
        struct Resp {
            msg_id: String,
            req_id: String,
            model: &'static str,
            usage: String,
            stop: &'static str,
            blocks: Vec<(String, String)>,
        }

        /// The lines of one response: one per content block, each with the whole usage.
        /// Returns the lines (not yet written) and the uuid of the last.
        fn response_lines(ctx: &mut Ctx, conv: &mut Conv, r: &Resp, req_ref: &str) -> Vec<String> {
            let mut lines = Vec::new();
            for (i, (block, extra)) in r.blocks.iter().enumerate() {
                let u = ctx.uuid();
                let t = if i == 0 {
                    conv.tick(ctx, 800, 15_000)
                } else {
                    conv.tick(ctx, 40, 1500)
                };
                let head = conv.head(&u);
                lines.push(format!(
                    r#"{head}"message":{{"id":"{}","type":"message","role":"assistant","model":"{}","content":[{block}],"stop_reason":"{}","stop_sequence":null,{},"stop_details":null}},{extra}"apiBlockIndex":{i},"requestId":"{}","requestRef":"{req_ref}","requestedModel":"{}","promptCacheRequested":"1h","type":"assistant","uuid":"{u}","timestamp":"{}","effort":"medium","perTurnEffort":"medium","madeBy":"model",{}"#,
                    r.msg_id,
                    r.model,
                    r.stop,
                    r.usage,
                    r.req_id,
                    r.model,
                    iso(t),
                    conv.tail
                ));
            }
            lines
        }

        /// Builds one response: thinking, text, tool calls. Returns it, its tokens and the
        /// calls.
        fn make_response(
            ctx: &mut Ctx,
            conv: &mut Conv,
            model: &'static str,
            calls: u64,
            sub_ok: bool,
        ) -> (Resp, Tok, u64, u64, Vec<(String, Call)>) {
            let mut blocks = Vec::new();
            let mut out = 0u64;
            let mut thinking = 0;
            if model != MODELS[2].0 && ctx.rng.chance(40) {
                thinking = ctx.rng.range(30, 2500);
                let text = ctx.prose((thinking as usize * 3).min(6000));
                let sig = ctx.base62_in(200, 1200);
                let ms = ctx.rng.range(200, 30_000);
                blocks.push((
                    format!(r#"{{"type":"thinking","thinking":"{text}","signature":"{sig}"}}"#),
                    format!(r#""thinkingDurationMs":{ms},"thinkingDisplay":"updates","#),
                ));
                out += thinking;
            }
            if calls == 0 || ctx.rng.chance(75) {
                let text = ctx.prose_in(40, 1500);
                out += toks(text.len());
                blocks.push((
                    format!(r#"{{"type":"text","text":"{text}"}}"#),
                    String::new(),
                ));
            }
            let mut made = Vec::new();
            for _ in 0..calls {
                let call = Call::pick(ctx, &conv.cwd, sub_ok);
                let id = format!("toolu_01{}", ctx.base62(22));
                let input = call.input(ctx);
                out += toks(input.len()) + 10;
                let ms = ctx.rng.range(20, 3000);
                blocks.push((
                    format!(
                        r#"{{"type":"tool_use","id":"{id}","name":"{}","input":{input}}}"#,
                        call.name()
                    ),
                    format!(r#""toolInputStreamMs":{ms},"#),
                ));
                made.push((id, call));
            }
            out += ctx.rng.range(5, 60);
            let (tok, w5, w1) = usage(ctx, conv, out, thinking);
            let resp = Resp {
                msg_id: format!("msg_01{}", ctx.base62(22)),
                req_id: format!("req_011C{}", ctx.base62(20)),
                model,
                usage: usage_json(&tok, w5, w1),
                stop: if calls > 0 { "tool_use" } else { "end_turn" },
                blocks,
            };
            (resp, tok, w5, w1, made)
        }

        /// The user line carrying a tool's result; returns it and the tokens the result
        /// adds to the context.
        fn tool_result(
            ctx: &mut Ctx,
            conv: &mut Conv,
            prompt_id: &str,
            tool_id: &str,
            source: &str,
            call: &Call,
            agent_result: Option<(String, String)>,
        ) -> (String, u64) {
            let u = ctx.uuid();
            let t = conv.tick(ctx, 30, 20_000);
            let head = conv.head(&u);
            let decision = r#""permissionDecision":{"decision":"accept","source":"config","reasonType":"mode"}"#;
            let (content, result) = match call {
                Call::Read { path, lines } => {
                    let start = ctx.rng.below(20_000) as usize;
                    let mut numbered = String::new();
                    let mut raw = String::new();
                    for i in 0..*lines {
                        let l = ctx.text.code.line(start + i);
                        let _ = write!(numbered, "{:>6}\\t{l}\\n", i + 1);
                        raw.push_str(l);
                        raw.push_str("\\n");
                    }
                    (
                        format!("\"{numbered}\""),
                        format!(
                            r#"{{"type":"text","file":{{"filePath":"{path}","content":"{raw}","numLines":{lines},"startLine":1,"totalLines":{lines}}}}}"#
                        ),
                    )
                }
                Call::Bash {
                    cmd,
                    lines,
                    denied: true,
                    ..
                } => {
                    let _ = lines;
                    let why = format!(
                        "{cmd} needs approval. The path is inside the working directories for this session ('{}'), and Claude Code asks before a shell command creates, changes or removes files there.",
                        conv.cwd
                    );
                    let line = format!(
                        r#"{head}"promptId":"{prompt_id}","type":"user","message":{{"role":"user","content":[{{"type":"tool_result","content":"{why}","is_error":true,"tool_use_id":"{tool_id}"}}]}},"uuid":"{u}","timestamp":"{}","toolUseResult":"Error: {why}","toolDenialKind":"user-rejected","sourceToolAssistantUUID":"{source}","permissionDecision":{{"decision":"reject","source":"config","reasonCode":"unknown"}},{}"#,
                        iso(t),
                        conv.tail
                    );
                    return (line, 80);
                }
                Call::Bash { lines, .. } => {
                    let pool = &ctx.text.out;
                    let at = pool.start(&mut ctx.rng, *lines);
                    let out = pool.slice(at, *lines).to_string();
                    if out.len() > 30_000 {
                        let preview = pool.slice(at, pool.fit(at, *lines, 2000)).to_string();
                        let stdout = pool.slice(at, pool.fit(at, *lines, 30_000)).to_string();
                        let name = ctx.base62(9).to_lowercase();
                        let path = format!(
                            "/home/dev/.claude/projects/{}/{}/tool-results/{name}.txt",
                            dash_slug(&conv.cwd),
                            conv.sid
                        );
                        (
                            format!(
                                "\"<persisted-output>\\nOutput too large ({:.1}KB). Full output saved to: {path}\\n\\nPreview (first 2KB):\\n{preview}\\n...\\n</persisted-output>\"",
                                out.len() as f64 / 1024.0
                            ),
                            format!(
                                r#"{{"stdout":"{stdout}","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false,"persistedOutputPath":"{path}","persistedOutputSize":{}}}"#,
                                out.len()
                            ),
                        )
                    } else {
                        (
                            format!("\"{out}\""),
                            format!(
                                r#"{{"stdout":"{out}","stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}}"#
                            ),
                        )
                    }
                }
                Call::Edit { path, lines } => {
                    let original = ctx.text.code.take(&mut ctx.rng, *lines).to_string();
                    let start = ctx.rng.range(1, *lines as u64);
                    let old = ctx.text.code.line(start as usize).to_string();
                    let new = ctx.text.code.line(start as usize + 7).to_string();
                    (
                        format!("\"The file {path} has been updated successfully.\""),
                        format!(
                            r#"{{"filePath":"{path}","oldString":"{old}","newString":"{new}","originalFile":"{original}","structuredPatch":[{{"oldStart":{start},"oldLines":1,"newStart":{start},"newLines":1,"lines":["-{old}","+{new}"]}}],"userModified":false,"replaceAll":false}}"#
                        ),
                    )
                }
                Call::Grep { lines, .. } => {
                    let mut found = String::new();
                    let start = ctx.rng.below(20_000) as usize;
                    for i in 0..*lines {
                        let f = FILES[(start + i) % FILES.len()];
                        let _ = write!(
                            found,
                            "{f}:{}:{}\\n",
                            (start + i * 7) % 900 + 1,
                            ctx.text.code.line(start + i)
                        );
                    }
                    (
                        format!("\"{found}\""),
                        format!(
                            r#"{{"mode":"content","numFiles":{},"filenames":[],"content":"{found}","numLines":{lines}}}"#,
                            lines.min(&FILES.len())
                        ),
                    )
                }
                Call::Agent { prompt, .. } => {
                    let (agent_id, summary_usage) = agent_result.unwrap_or_default();
                    let text = ctx.prose_in(300, 3000);
                    let ms = ctx.rng.range(20_000, 200_000);
                    (
                        format!(r#"[{{"type":"text","text":"{text}"}}]"#),
                        format!(
                            r#"{{"status":"completed","prompt":"{prompt}","agentId":"{agent_id}","content":[{{"type":"text","text":"{text}"}}],"totalDurationMs":{ms},{summary_usage}}}"#
                        ),
                    )
                }
            };
            let added = toks(content.len());
            let line = format!(
                r#"{head}"promptId":"{prompt_id}","type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{tool_id}","type":"tool_result","content":{content},"is_error":false}}]}},"uuid":"{u}","timestamp":"{}","toolUseResult":{result},"sandboxed":false,"sourceToolAssistantUUID":"{source}",{decision},{}"#,
                iso(t),
                conv.tail
            );
            (line, added)
        }

        /// Records a response's tokens in the session's cost state.
        fn cost(s: &mut Sess, model: &'static str, t: &Tok, w5: u64, w1: u64) {
            let (inp, out, w5p, w1p, read) = match model {
                m if m == MODELS[0].0 => (5.0, 25.0, 6.25, 10.0, 0.5),
                m if m == MODELS[1].0 => (3.0, 15.0, 3.75, 6.0, 0.3),
                _ => (1.0, 5.0, 1.25, 2.0, 0.1),
            };
            let usd = (t.input as f64 * inp
                + t.output as f64 * out
                + w5 as f64 * w5p
                + w1 as f64 * w1p
                + t.cache_read as f64 * read)
                / 1e6;
            let e = s.cost.entry(model).or_default();
            e.0.add(t);
            e.1 += w5;
            e.2 += w1;
            e.3 += usd;
        }

        fn cost_state(s: &Sess) -> String {
            let total: f64 = s.cost.values().map(|e| e.3).sum();
            let models: Vec<String> = s
                .cost
                .iter()
                .map(|(m, (t, w5, w1, usd))| {
                    format!(
                        r#""{m}":{{"inputTokens":{},"outputTokens":{},"thinkingTokens":{},"cacheReadInputTokens":{},"cacheCreationInputTokens":{},"cacheCreationEphemeral5mInputTokens":{w5},"cacheCreationEphemeral1hInputTokens":{w1},"webSearchRequests":0,"costUSD":{usd}}}"#,
                        t.input, t.output, t.reasoning, t.cache_read, t.cache_write
                    )
                })
                .collect();
            format!(
                r#"{{"type":"cost-state","sessionId":"{}","totalCostUSD":{total},"totalAPIDuration":{},"totalAPIDurationWithoutRetries":{},"totalToolDuration":{},"totalLinesAdded":{},"totalLinesRemoved":{},"totalDuration":{},"startTime":{},"modelUsage":{{{}}},"hasUnknownModelCost":false}}"#,
                s.conv.sid,
                s.api_ms,
                s.api_ms * 95 / 100,
                s.tool_ms,
                s.lines_added,
                s.lines_removed,
                s.conv.now - s.start_ms,
                s.start_ms,
                models.join(",")
            )
        }

        /// One prompt and what follows it. `false` when the log was cut.
        fn run(
            ctx: &mut Ctx,
            st: &Static,
            s: &mut Sess,
            k: u64,
            fresh: bool,
            fail: bool,
            cut_here: bool,
        ) -> io::Result<bool> {
            let t0 = s.conv.now;
            let sid = s.conv.sid.clone();
            let prompt = ctx.prompt();
            let prompt_id = ctx.uuid();
            s.conv.line(&format!(
                r#"{{"type":"queue-operation","operation":"enqueue","timestamp":"{}","sessionId":"{sid}","content":"{prompt}"}}"#,
                iso(t0)
            ));
            let t = s.conv.tick(ctx, 2, 12);
            s.conv.line(&format!(
                r#"{{"type":"queue-operation","operation":"dequeue","timestamp":"{}","sessionId":"{sid}"}}"#,
                iso(t)
            ));
            let u = ctx.uuid();
            let t = s.conv.tick(ctx, 40, 200);
            let head = s.conv.head(&u);
            let line = format!(
                r#"{head}"promptId":"{prompt_id}","type":"user","message":{{"role":"user","content":"{prompt}"}},"uuid":"{u}","timestamp":"{}","permissionMode":"{}","promptSource":"sdk","turnOrigin":"sdk","turnPosition":{{"promptIndex":0,"turnIndex":{}}},{}"#,
                iso(t),
                s.perm,
                k + 1,
                s.conv.tail
            );
            s.conv.convo(line);
            ctx.run(t0);
            s.conv.context += toks(prompt.len()) + 30;
            if fresh {
                preamble(ctx, st, s, &prompt);
            }
            let model = if ctx.rng.chance(10) {
                MODELS[ctx.rng.below(MODELS.len() as u64) as usize].0
            } else {
                s.model
            };
            let n = responses_in_run(ctx, 14);
            let fail_at = (fail && !cut_here).then(|| ctx.rng.below(n));
            let cut_at = cut_here.then(|| n - 1);
            let mut tools_used = false;
            for i in 0..n {
                let req_ref = api_request(ctx, s, model);
                if i == 0 {
                    let leaf = s.conv.parent.clone().unwrap_or_default();
                    s.conv.line(&format!(
                        r#"{{"type":"last-prompt","lastPrompt":"{prompt}","leafUuid":"{leaf}","sessionId":"{sid}"}}"#
                    ));
                    s.conv.line(&format!(
                        r#"{{"type":"atis-latch","atis":"","sessionId":"{sid}"}}"#
                    ));
                }
                if fail_at == Some(i) {
                    failure(ctx, s, t0);
                    break;
                }
                let last = i + 1 == n;
                let calls = if last {
                    0
                } else {
                    match ctx.rng.below(100) {
                        0..=74 => 1,
                        75..=92 => 2,
                        _ => 3,
                    }
                };
                if calls > 0 && !tools_used {
                    tools_used = true;
                    s.conv.line(&format!(r#"{{"type":"tools-used","tools":["Bash","Read","Edit","Grep"],"sessionId":"{sid}"}}"#));
                }
                let (resp, tok, w5, w1, made) = make_response(ctx, &mut s.conv, model, calls, true);
                let lines = response_lines(ctx, &mut s.conv, &resp, &req_ref);
                if cut_at == Some(i) {
                    s.conv.buf.push_str(cut(&lines[0]));
                    ctx.unfinished();
                    return Ok(false);
                }
                if lines.len() > 1 {
                    ctx.trap("claude_split_responses", 1);
                    ctx.trap("claude_split_extra_lines", lines.len() as u64 - 1);
                }
                let source = s.conv.parent.clone().unwrap_or_default();
                for l in lines {
                    s.conv.convo(l);
                }
                let at = s.conv.now;
                ctx.billed(at, model, &tok);
                cost(s, model, &tok, w5, w1);
                s.api_ms += ctx.rng.range(800, 20_000);
                let mut added = 0;
                for (id, call) in &made {
                    let agent = match call {
                        Call::Agent { prompt, .. } => Some(subagent(ctx, s, &resp, model, prompt)?),
                        _ => None,
                    };
                    if let Call::Edit { .. } = call {
                        s.lines_added += ctx.rng.range(1, 40);
                        s.lines_removed += ctx.rng.range(0, 30);
                    }
                    let before = s.conv.now;
                    let (line, toks) =
                        tool_result(ctx, &mut s.conv, &prompt_id, id, &source, call, agent);
                    s.tool_ms += (s.conv.now - before) as u64;
                    s.conv.convo(line);
                    added += toks;
                }
                s.conv.context = (s.conv.context + added).min(195_000);
                if !s.snapshot_done {
                    s.snapshot_done = true;
                    let u = ctx.uuid();
                    let t = s.conv.tick(ctx, 1, 20);
                    let head = s.conv.head(&u);
                    let line = format!(
                        r#"{head}"attachment":{{"type":"prompt_snapshot","systemPrompt":{},"tools":{},"cliPrefix":"You are a Claude agent, built on Anthropic's Claude Agent SDK.","reminderFold":false,"systemTurns":true,"toolChangeHeader":true,"inlineTools":false,"keptReminders":false,"echoWireToolInputs":false,"contextRendering":"announced"}},"type":"attachment","uuid":"{u}","timestamp":"{}",{}"#,
                        st.snap_system,
                        st.snap_tools,
                        iso(t),
                        s.conv.tail
                    );
                    s.conv.line(&line);
                }
            }
            let leaf = s.conv.parent.clone().unwrap_or_default();
            s.conv.line(&format!(
                r#"{{"type":"last-prompt","lastPrompt":"{prompt}","leafUuid":"{leaf}","sessionId":"{sid}"}}"#
            ));
            if ctx.rng.chance(20) {
                s.conv.line(&format!(
                    r#"{{"type":"mode","mode":"normal","sessionId":"{sid}"}}"#
                ));
            } else {
                s.conv.line(&format!(
                    r#"{{"type":"atis-latch","atis":"","sessionId":"{sid}"}}"#
                ));
            }
            let line = cost_state(s);
            s.conv.line(&line);
            Ok(true)
        }

        /// A request that fails: a server error retried twice, or a bad request; then the
        /// synthetic answer that reports it.
        fn failure(ctx: &mut Ctx, s: &mut Sess, run_ms: i64) {
            let sid = s.conv.sid.clone();
            let server = ctx.rng.chance(60);
            let req = format!("req_011C{}", ctx.base62(20));
            if server {
                for attempt in 1..=2 {
                    let u = ctx.uuid();
                    let t = s.conv.tick(ctx, 300, 1500);
                    let head = s.conv.head(&u);
                    let retry = ctx.rng.range(500, 1200);
                    let line = format!(
                        r#"{head}"type":"system","subtype":"api_error","level":"error","error":{{"message":"500 {{\"type\":\"error\",\"error\":{{\"type\":\"api_error\",\"message\":\"Internal server error\"}}}}","status":500,"requestId":"{req}","formatted":"500 Internal server error","connection":null,"isNetworkDown":false,"rateLimits":null,"noResponse":null}},"retryInMs":{retry},"retryAttempt":{attempt},"maxRetries":2,"source":"request_retry","timestamp":"{}","uuid":"{u}",{}"#,
                        iso(t),
                        s.conv.tail
                    );
                    s.conv.line(&line);
                    ctx.trap("claude_retry_lines", 1);
                    let model = s.model;
                    api_request(ctx, s, model);
                }
            }
            let (text, status, error, kind) = if server {
                (
                    "API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment.",
                    500,
                    "server_error",
                    "api_error",
                )
            } else {
                (
                    "API Error: 400 Bad request",
                    400,
                    "unknown",
                    "invalid_request_error",
                )
            };
            let u = ctx.uuid();
            let t = s.conv.tick(ctx, 300, 1500);
            let head = s.conv.head(&u);
            let id = ctx.uuid();
            let line = format!(
                r#"{head}"type":"assistant","uuid":"{u}","timestamp":"{}","message":{{"diagnostics":null,"id":"{id}","container":null,"model":"<synthetic>","role":"assistant","stop_details":null,"stop_reason":"stop_sequence","stop_sequence":"","type":"message","usage":{{"output_tokens_details":null,"input_tokens":0,"output_tokens":0,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,{SERVER_TOOLS},"service_tier":null,"cache_creation":{{"ephemeral_1h_input_tokens":0,"ephemeral_5m_input_tokens":0}},"inference_geo":null,"iterations":null,"speed":null,"fallback_credit":null}},"content":[{{"type":"text","text":"{text}"}}],"context_management":null}},"requestId":"{req}","error":"{error}","isApiErrorMessage":true,"apiErrorStatus":{status},"apiErrorType":"{kind}","perTurnEffort":"medium","failedResponseHadNoToolCall":true,"madeBy":"model",{}"#,
                iso(t),
                s.conv.tail
            );
            s.conv.convo(line);
            ctx.trap("claude_api_error_messages", 1);
            ctx.failed(run_ms);
            let _ = sid;
        }

        /// A sub-agent's file for the `Agent` call of `resp`: its task, maybe a replay of
        /// the parent's message, its own responses. Returns its id and the
        /// `totalTokens…usage` part of the tool's result.
        fn subagent(
            ctx: &mut Ctx,
            s: &mut Sess,
            resp: &Resp,
            parent_model: &'static str,
            task: &str,
        ) -> io::Result<(String, String)> {
            let agent_id = format!("a{}", ctx.hex(16));
            let mut c = Conv::new(
                &s.conv.sid,
                &s.conv.cwd,
                &s.conv.branch,
                Some(agent_id.clone()),
                s.conv.now,
            );
            c.context = 12_000 + toks(task.len());
            let u = ctx.uuid();
            let t = c.tick(ctx, 10, 200);
            let head = c.head(&u);
            let line = format!(
                r#"{head}"type":"user","message":{{"role":"user","content":"{task}"}},"uuid":"{u}","timestamp":"{}",{}"#,
                iso(t),
                c.tail
            );
            c.line(&line);
            // A replay of the parent's message under a new request id.
            if ctx.rng.chance(35) {
                let replay = Resp {
                    msg_id: resp.msg_id.clone(),
                    req_id: format!("req_011C{}", ctx.base62(20)),
                    model: resp.model,
                    usage: resp.usage.clone(),
                    stop: resp.stop,
                    blocks: resp.blocks[..1].to_vec(),
                };
                let req_ref = ctx.uuid();
                for l in response_lines(ctx, &mut c, &replay, &req_ref) {
                    c.line(&l);
                }
                ctx.trap("claude_sidechain_replays", 1);
            }
            let model = if ctx.rng.chance(50) {
                MODELS[2].0
            } else {
                parent_model
            };
            let n = ctx.rng.range(2, 6);
            let mut sum = Tok::default();
            let mut tools = 0;
            for i in 0..n {
                let calls = if i + 1 == n { 0 } else { 1 };
                let req_ref = ctx.uuid();
                let (r, tok, w5, w1, made) = make_response(ctx, &mut c, model, calls, false);
                let lines = response_lines(ctx, &mut c, &r, &req_ref);
                if lines.len() > 1 {
                    ctx.trap("claude_split_responses", 1);
                    ctx.trap("claude_split_extra_lines", lines.len() as u64 - 1);
                }
                for l in lines {
                    c.line(&l);
                }
                let source = c.parent.clone().unwrap_or_default();
                let at = c.now;
                ctx.billed(at, model, &tok);
                ctx.trap("claude_subagent_responses", 1);
                ctx.trap_tokens("claude_subagent_responses", &tok);
                cost(s, model, &tok, w5, w1);
                sum.add(&tok);
                for (id, call) in &made {
                    let pid = ctx.uuid();
                    let (line, added) = tool_result(ctx, &mut c, &pid, id, &source, call, None);
                    c.line(&line);
                    c.context = (c.context + added).min(195_000);
                    tools += 1;
                }
            }
            let rel = format!(
                ".claude/projects/{}/{}/subagents/agent-{agent_id}.jsonl",
                s.slug, s.conv.sid
            );
            ctx.write(&rel, c.buf.as_bytes(), c.now)?;
            ctx.trap("claude_subagent_files", 1);
            ctx.trap("claude_agent_result_usage", 1);
            ctx.trap_tokens("claude_agent_result_usage", &sum);
            s.conv.now = c.now;
            let summary = format!(
                r#""totalTokens":{},"totalToolUseCount":{tools},"usage":{{"input_tokens":{},"cache_creation_input_tokens":{},"cache_read_input_tokens":{},"output_tokens":{},{SERVER_TOOLS},"service_tier":"standard","cache_creation":{{"ephemeral_1h_input_tokens":{},"ephemeral_5m_input_tokens":0}}}}"#,
                sum.input + sum.output + sum.cache_read + sum.cache_write,
                sum.input,
                sum.cache_write,
                sum.cache_read,
                sum.output,
                sum.cache_write
            );
            Ok((agent_id, summary))
        }
    }

    // -- Codex --------------------------------------------------------------------------------

    mod codex {
        //! `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (some `.jsonl.zst`, some
        //! in `archived_sessions/`): Codex 0.169.0's rollouts.

        use super::*;

        const VERSION: &str = "0.169.0";
        const MODELS: &[&str] = &["gpt-5.5", "gpt-5.5", "gpt-5.5-codex", "gpt-5.4-mini"];
        const RATE_LIMITS: &str = r#""rate_limits":{"limit_id":"codex","limit_name":null,"primary":null,"secondary":null,"credits":null,"individual_limit":null,"spend_control_reached":null,"plan_type":null,"rate_limit_reached_type":null}"#;

        struct Static {
            base_instructions: String,
            skills: String,
            permissions: String,
            host_skills: String,
        }

        #[derive(Default, Clone, Copy)]
        struct Usage {
            input: u64,
            cached: u64,
            output: u64,
            reasoning: u64,
        }

        impl Usage {
            fn json(&self) -> String {
                format!(
                    r#"{{"input_tokens":{},"cached_input_tokens":{},"cache_write_input_tokens":0,"output_tokens":{},"reasoning_output_tokens":{},"total_tokens":{}}}"#,
                    self.input,
                    self.cached,
                    self.output,
                    self.reasoning,
                    self.input + self.output
                )
            }

            fn add(&mut self, o: &Usage) {
                self.input += o.input;
                self.cached += o.cached;
                self.output += o.output;
                self.reasoning += o.reasoning;
            }
        }

        /// A rollout being written.
        struct Roll {
            buf: String,
            ordinal: u64,
            sid: String,
            cwd: String,
            model: &'static str,
            now: i64,
            total: Usage,
            last: Usage,
            context: u64,
            cached: u64,
            history: u64,
            /// The lines after `session_meta` (time, the rest after the ordinal, a
            /// `token_usage_record`?), kept for a fork's replay.
            keep: Option<Vec<(i64, String, bool)>>,
            meta: String,
        }

        impl Roll {
            /// `rest` is what follows `"ordinal":N,`, the closing brace included.
            fn line(&mut self, at: i64, rest: &str) {
                let _ = writeln!(
                    self.buf,
                    r#"{{"timestamp":"{}","ordinal":{},{rest}"#,
                    iso(at),
                    self.ordinal
                );
                self.ordinal += 1;
                if let Some(k) = &mut self.keep {
                    k.push((
                        at,
                        rest.to_string(),
                        rest.starts_with(r#""type":"token_usage_record""#),
                    ));
                }
            }

            fn tick(&mut self, ctx: &mut Ctx, lo: u64, hi: u64) -> i64 {
                self.now += ctx.rng.range(lo, hi) as i64;
                self.now
            }
        }

        pub(in super::super) fn generate(ctx: &mut Ctx) -> io::Result<()> {
            let st = Static {
                base_instructions: ctx.prose(21_459),
                skills: ctx.prose(4698),
                permissions: ctx.prose(362),
                host_skills: ctx.prose(4655),
            };
            let mut n = 0u64;
            let mut parent: Option<Roll> = None;
            while ctx.more() {
                let unfinished = n == 1;
                let fork_of = if unfinished { None } else { parent.take() };
                let keep = !unfinished && fork_of.is_none() && ctx.rng.chance(4);
                session(ctx, &st, fork_of, keep, unfinished, &mut parent)?;
                n += 1;
            }
            Ok(())
        }

        fn session(
            ctx: &mut Ctx,
            st: &Static,
            fork_of: Option<Roll>,
            keep: bool,
            unfinished: bool,
            parent_out: &mut Option<Roll>,
        ) -> io::Result<()> {
            ctx.begin_session();
            let (cwd, start, model) = match &fork_of {
                Some(p) => (p.cwd.clone(), p.now + ctx.gap(), p.model),
                None => (
                    cwd(ctx).to_string(),
                    ctx.session_start(),
                    ctx.rng.pick(MODELS),
                ),
            };
            let (start, prompts) = if unfinished {
                {
                    let p = prompts_in_session(ctx, 8);
                    ctx.unfinished_plan(start, p)
                }
            } else {
                (start, prompts_in_session(ctx, 10))
            };
            let Some(start) = ctx.place_run(start) else {
                return session(ctx, st, None, keep, unfinished, parent_out);
            };
            let sid = ctx.uuid7(start);
            let mut r = Roll {
                buf: String::with_capacity(1 << 20),
                ordinal: 0,
                sid: sid.clone(),
                cwd: cwd.clone(),
                model,
                now: start,
                total: Usage::default(),
                last: Usage::default(),
                context: 0,
                cached: 0,
                history: 0,
                keep: None,
                meta: String::new(),
            };
            let exec = ctx.rng.chance(40);
            let (originator, source) = if exec {
                ("codex_exec", r#""exec""#)
            } else {
                ("codex_cli_rs", r#""cli""#)
            };
            let fork = match &fork_of {
                Some(p) => format!(r#""forked_from_id":"{}","#, p.sid),
                None => String::new(),
            };
            let (source, thread_source) = match &fork_of {
                Some(p) => (
                    format!(
                        r#"{{"subagent":{{"thread_spawn":{{"parent_thread_id":"{}","depth":1}}}}}}"#,
                        p.sid
                    ),
                    "subagent",
                ),
                None => (source.to_string(), "user"),
            };
            let window = ctx.uuid7(start + 4);
            let meta = format!(
                r#""type":"session_meta","payload":{{"account_scoped":true,"session_id":"{sid}","id":"{sid}",{fork}"timestamp":"{}","cwd":"{cwd}","runtime_workspace_roots":["{cwd}"],"originator":"{originator}","cli_version":"{VERSION}","source":{source},"thread_source":"{thread_source}","model_provider":"openai","base_instructions":{{"text":"{}","provenance":{{"type":"model","model":"{model}"}}}},"history_mode":"paginated","context_window":{{"window_id":"{window}"}}}}}}"#,
                iso(start - 20),
                st.base_instructions
            );
            r.line(start, &meta);
            r.meta = meta;
            if keep {
                r.keep = Some(Vec::new());
            }
            // A fork replays its parent: the parent's `session_meta` and lines, not its
            // `token_usage_record`s, written when the fork is made (as real forks are: the
            // replay shares the second of the fork's first line, which ccusage's replay
            // detection relies on too); the fork's own first turn comes seconds later.
            if let Some(p) = &fork_of {
                let lines = p.keep.as_deref().unwrap_or_default();
                r.line(start, &p.meta);
                let mut replayed = 1;
                for (at, rest, usage_record) in lines {
                    if *usage_record {
                        continue;
                    }
                    if rest.contains(r#""type":"token_count""#) {
                        ctx.trap("codex_replayed_token_counts", 1);
                    } else if rest.contains(r#""item":{"type":"UserMessage""#) {
                        ctx.trap("codex_replayed_prompts", 1);
                    }
                    let _ = at;
                    r.line(start, rest);
                    replayed += 1;
                }
                ctx.trap("codex_forked_files", 1);
                ctx.trap("codex_replayed_lines", replayed);
                let replay = Tok {
                    input: p.total.input - p.total.cached,
                    output: p.total.output,
                    cache_read: p.total.cached,
                    cache_write: 0,
                    reasoning: p.total.reasoning,
                };
                ctx.trap_tokens("codex_replayed_totals", &replay);
                r.total = p.total;
                r.last = p.last;
                r.context = p.context;
                r.history = p.history;
            }
            let mut t = if fork_of.is_some() {
                start + 5_000
            } else {
                start
            };
            for k in 0..prompts {
                let Some(at) = ctx.place_run(t) else { break };
                if at - r.now > 3_600_000 {
                    r.cached = 0;
                }
                r.now = at;
                let cut_here = unfinished && k + 1 == prompts;
                let fail = !cut_here && ctx.rng.chance(3);
                let fresh = k == 0 || ctx.rng.chance(30);
                if !turn(ctx, st, &mut r, k, fresh, fork_of.is_some(), fail, cut_here) {
                    break;
                }
                t = r.now + ctx.gap();
            }
            // Where the file ends up: idle rollouts get compressed, some get archived.
            let tm = tm(start);
            let stamp = format!(
                "{:04}-{:02}-{:02}T{:02}-{:02}-{:02}",
                tm.y, tm.mo, tm.d, tm.h, tm.mi, tm.s
            );
            let archived = !unfinished && ctx.rng.chance(4);
            let cold = END_MS - r.now > 7 * DAY_MS;
            let compressed = !unfinished && cold && ctx.rng.chance(if archived { 50 } else { 8 });
            let dir = if archived {
                ".codex/archived_sessions".to_string()
            } else {
                format!(".codex/sessions/{:04}/{:02}/{:02}", tm.y, tm.mo, tm.d)
            };
            let mut rel = format!("{dir}/rollout-{stamp}-{sid}.jsonl");
            let now = r.now;
            if compressed {
                rel.push_str(".zst");
                let data = zstd::stream::encode_all(r.buf.as_bytes(), 3)?;
                ctx.write(&rel, &data, now)?;
                ctx.trap("codex_compressed_files", 1);
            } else {
                ctx.write(&rel, r.buf.as_bytes(), now)?;
            }
            if archived {
                ctx.trap("codex_archived_files", 1);
            }
            let extra = json!({
                "model": model,
                "forked_from": fork_of.as_ref().map(|p| p.sid.clone()),
                "compressed": compressed,
                "archived": archived,
            });
            ctx.end_session(&sid, &rel, &cwd, extra);
            if keep {
                r.buf = String::new();
                *parent_out = Some(r);
            }
            Ok(())
        }

        /// One turn (a prompt and its responses). `false` when the log was cut.
        #[allow(clippy::too_many_arguments)]
        fn turn(
            ctx: &mut Ctx,
            st: &Static,
            r: &mut Roll,
            k: u64,
            fresh: bool,
            forked: bool,
            fail: bool,
            cut_here: bool,
        ) -> bool {
            let sid = r.sid.clone();
            let cwd = r.cwd.clone();
            let model = r.model;
            let turn_id = ctx.uuid7(r.now);
            let t0 = r.now;
            let settings = format!(
                r#""type":"event_msg","payload":{{"type":"thread_settings_applied","thread_id":"{sid}","thread_settings":{{"model":"{model}","model_provider_id":"openai","approval_policy":"never","approvals_reviewer":"user","requested_approvals_reviewer":"user","permission_profile":{{"type":"disabled"}},"cwd":"{cwd}","runtime_workspace_roots":["{cwd}"],"collaboration_mode":{{"mode":"default","settings":{{"model":"{model}","reasoning_effort":null,"developer_instructions":null}}}},"disabled_plugin_ids":[]}}}}}}"#
            );
            // A new process on an existing thread (a resume, or the fork's start).
            if fresh && (k > 0 || forked) {
                r.line(t0, &settings);
            }
            r.line(
                t0,
                &format!(
                    r#""type":"event_msg","payload":{{"type":"task_started","turn_attribution":{{"turn_id":"{turn_id}","turn_trigger":"exec","parent_turn_id":null,"initiating_agent_path":null,"root_turn_id":"{turn_id}"}},"turn_id":"{turn_id}","root_turn_id":"{turn_id}","started_at":{},"model_context_window":258400,"collaboration_mode_kind":"default"}}}}"#,
                    t0 / 1000
                ),
            );
            // An older habit: the last count sent again, unchanged, as a turn starts.
            if k > 0 && r.total.output > 0 && ctx.rng.chance(40) {
                let line = token_count(r);
                r.line(t0, &line);
                ctx.trap("codex_reemitted_token_counts", 1);
            }
            let meta = |r: &mut Roll, extra: &str| {
                r.history += 1;
                format!(
                    r#""metadata":{{"history_sequence":{},"sampled_through_sequence":{},"client_authored":false{extra}}}"#,
                    r.history,
                    r.history.saturating_sub(3)
                )
            };
            if k == 0 && !forked {
                let t = r.tick(ctx, 20, 80);
                let id = ctx.uuid7(t);
                let m = meta(r, r#","mcp_attribution":{"status":"none"}"#);
                r.line(
                    t,
                    &format!(
                        r#""type":"response_item","payload":{{"type":"message","id":"msg_{id}","role":"developer","content":[{{"type":"input_text","text":"<skills_instructions>\n{}\n</skills_instructions>"}},{{"type":"input_text","text":"<permissions instructions>\n{}\n</permissions instructions>"}},{{"type":"input_text","text":"<tools>\nDeferred tool namespaces:\n- multi_agent_v1: Tools for spawning and managing sub-agents.\n</tools>"}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}","create_time":{}.{:06},"content_item_kinds":["host_skills.instructions","permissions.instructions","tools.deferred_namespaces"],"content_item_metadata":[{{"provenance":{{"type":"skills"}}}},{{"provenance":{{"type":"harness","hook":false}}}},{{"provenance":{{"type":"tool","namespace":"tool_search"}}}}]}}}},{m}}}"#,
                        st.skills,
                        st.permissions,
                        t / 1000,
                        ctx.rng.below(1_000_000)
                    ),
                );
                let id = ctx.uuid7(t);
                let date = day_of(t);
                let m = meta(r, "");
                r.line(
                    t,
                    &format!(
                        r#""type":"response_item","payload":{{"type":"message","id":"msg_{id}","role":"user","content":[{{"type":"input_text","text":"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>bash</shell>\n  <current_date>{date}</current_date>\n  <timezone>Etc/UTC</timezone>\n  <filesystem><workspace_roots><root>{cwd}</root></workspace_roots><permission_profile type=\"disabled\"><file_system type=\"unrestricted\" /></permission_profile></filesystem>\n</environment_context>"}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}","create_time":{}.{:06},"content_item_kinds":["environments.environment_context"],"content_item_metadata":[{{"provenance":{{"type":"harness","hook":false}}}}]}}}},{m}}}"#,
                        t / 1000,
                        ctx.rng.below(1_000_000)
                    ),
                );
                let t = r.tick(ctx, 1, 5);
                let instr = ctx.hex(40);
                let catalog = ctx.hex(40);
                let perms = ctx.hex(40);
                r.line(
                    t,
                    &format!(
                        r#""type":"world_state","payload":{{"full":true,"state":{{"agents_md":{{}},"apps_instructions":false,"collaboration_mode":{{"mode":"default","model":"{model}","instructions":"{instr}"}},"context_window_guidance":"","environments":{{"environments":{{"local":{{"cwd":"{cwd}","status":"available","shell":"bash"}}}},"current_date":"{date}","timezone":"Etc/UTC","filesystem":"<filesystem><workspace_roots><root>{cwd}</root></workspace_roots><permission_profile type=\"disabled\"><file_system type=\"unrestricted\" /></permission_profile></filesystem>"}},"environments_instructions":false,"git_attribution":false,"host_skills":{{"body":"{}","includeInstructions":true}},"managed_developer_instructions":{{}},"model":"{model}","model_catalog":"{catalog}","multi_agent_mode":{{}},"permissions":{{"instructions":"{perms}","approved_command_prefixes":[]}},"persistent_mode":{{}},"plugins_instructions":false,"realtime":{{"active":false}},"skills":{{"includeInstructions":true}},"tools":{{"multi_agent_v1":"Tools for spawning and managing sub-agents."}}}}}}}}"#,
                        st.host_skills
                    ),
                );
                r.context += 9_000 + ctx.rng.below(3000);
            }
            let t = r.tick(ctx, 0, 3);
            r.line(
                t,
                &format!(
                    r#""type":"turn_context","payload":{{"turn_id":"{turn_id}","root_turn_id":"{turn_id}","disabled_plugin_ids":[],"cwd":"{cwd}","approval_policy":"never","approvals_reviewer":"user","permission_profile":{{"type":"disabled"}},"model":"{model}","comp_hash":"{}","collaboration_mode":{{"mode":"default","settings":{{"model":"{model}","reasoning_effort":null,"developer_instructions":null}}}},"multi_agent_version":"v1","realtime_active":false,"summary":"none","sandbox_policy":{{"type":"danger-full-access"}}}}}}"#,
                    ctx.rng.range(1000, 9999)
                ),
            );
            if k == 0 && !forked {
                r.line(t, &settings);
            }
            // The prompt.
            let prompt = ctx.prompt();
            let t = r.tick(ctx, 5, 30);
            let id = ctx.uuid7(t);
            let rev = ctx.uuid7(t);
            let m = meta(
                r,
                &format!(
                    r#","retained_source":{{"id":{{"message_id":"msg_{id}","turn_id":"{turn_id}","role":"user"}},"revision":"retained_{rev}","complete":true}},"user_input_order":0,"mcp_attribution":{{"status":"none"}}"#
                ),
            );
            r.line(
                t,
                &format!(
                    r#""type":"response_item","payload":{{"type":"message","id":"msg_{id}","role":"user","content":[{{"type":"input_text","text":"{prompt}"}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}","create_time":{}.{:06},"content_item_kinds":["user.text"],"content_item_metadata":[{{"provenance":{{"type":"user"}}}}]}}}},{m}}}"#,
                    t / 1000,
                    ctx.rng.below(1_000_000)
                ),
            );
            let item = ctx.uuid7(t);
            let t = r.tick(ctx, 0, 3);
            r.line(
                t,
                &format!(
                    r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{sid}","turn_id":"{turn_id}","item":{{"type":"UserMessage","id":"{item}","content":[{{"type":"text","text":"{prompt}","text_elements":[]}}]}},"started_at_ms":{t},"completed_at_ms":{t}}}}}"#
                ),
            );
            ctx.run(t0);
            r.context += toks(prompt.len()) + 20;
            let n = responses_in_run(ctx, 14);
            let fail_at = fail.then(|| ctx.rng.below(n));
            let cut_at = cut_here.then(|| n - 1);
            let mut last_text = String::from("null");
            let mut turn_total = Usage::default();
            let mut first_token_ms = None;
            for i in 0..n {
                if fail_at == Some(i) {
                    let t = r.tick(ctx, 300, 3000);
                    let error = if ctx.rng.chance(60) {
                        r#"{"message":"We’re currently experiencing high demand, which may cause temporary errors.","codex_error_info":"internal_server_error"}"#.to_string()
                    } else {
                        r#"{"message":"{\"error\": {\"message\": \"Invalid request: the input is too long\", \"type\": \"invalid_request_error\", \"param\": null, \"code\": null}}","codex_error_info":"other"}"#.to_string()
                    };
                    r.line(
                        t,
                        &format!(
                            r#""type":"event_msg","payload":{{"type":"task_complete","root_turn_id":"{turn_id}","turn_id":"{turn_id}","last_agent_message":null,"error":{error},"started_at":{},"completed_at":{},"duration_ms":{}}}}}"#,
                            t0 / 1000,
                            t / 1000,
                            t - t0
                        ),
                    );
                    ctx.failed(t0);
                    ctx.trap("codex_failed_turns", 1);
                    return true;
                }
                let last = i + 1 == n;
                let calls = if last {
                    0
                } else if ctx.rng.chance(80) {
                    1
                } else {
                    2
                };
                let t = r.tick(ctx, 800, 20_000);
                first_token_ms.get_or_insert(t - t0);
                let mut lines: Vec<(i64, String)> = Vec::new();
                let mut out = ctx.rng.range(5, 40);
                let mut reasoning = 0;
                if model != "gpt-5.4-mini" && ctx.rng.chance(60) {
                    reasoning = ctx.rng.range(20, 3000);
                    out += reasoning;
                    let summary = ctx.prose_in(40, 400);
                    let rs = format!("rs_{}", ctx.hex(48));
                    let enc = ctx.base62((reasoning as usize * 2).clamp(400, 8000));
                    lines.push((
                        t,
                        format!(
                            r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{sid}","turn_id":"{turn_id}","item":{{"type":"Reasoning","id":"{rs}","summary_text":["{summary}"],"raw_content":[]}},"started_at_ms":{},"completed_at_ms":{t}}}}}"#,
                            t - 800
                        ),
                    ));
                    r.history += 1;
                    lines.push((
                        t + 2,
                        format!(
                            r#""type":"response_item","payload":{{"type":"reasoning","id":"{rs}","summary":[{{"type":"summary_text","text":"{summary}"}}],"content":null,"encrypted_content":"{enc}","internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}"}}}},"metadata":{{"history_sequence":{},"sampled_through_sequence":{},"client_authored":false}}}}"#,
                            r.history,
                            r.history.saturating_sub(1)
                        ),
                    ));
                }
                if last || ctx.rng.chance(60) {
                    let text = ctx.prose_in(40, 1600);
                    out += toks(text.len());
                    let mid = format!("msg_{}", ctx.hex(48));
                    let rev = ctx.uuid7(t);
                    lines.push((
                        t + 3,
                        format!(
                            r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{sid}","turn_id":"{turn_id}","item":{{"type":"AgentMessage","id":"{mid}","content":[{{"type":"Text","text":"{text}"}}]}},"started_at_ms":{},"completed_at_ms":{}}}}}"#,
                            t - 300,
                            t + 3
                        ),
                    ));
                    r.history += 1;
                    lines.push((
                        t + 5,
                        format!(
                            r#""type":"response_item","payload":{{"type":"message","status":"completed","id":"{mid}","role":"assistant","content":[{{"type":"output_text","text":"{text}","annotations":[]}}],"internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}","content_item_kinds":["unknown"]}}}},"metadata":{{"history_sequence":{},"sampled_through_sequence":{},"retained_source":{{"id":{{"message_id":"{mid}","turn_id":"{turn_id}","role":"assistant"}},"revision":"retained_{rev}","complete":true}},"client_authored":false,"user_input_order":{}}}}}"#,
                            r.history,
                            r.history.saturating_sub(1),
                            i + 1
                        ),
                    ));
                    last_text = format!("\"{text}\"");
                }
                let mut execs = Vec::new();
                for c in 0..calls {
                    let cmd = ctx.rng.pick(&[
                        "cargo test --workspace",
                        "rg -n 'fn total' src",
                        "sed -n 1,400p src/cart.rs",
                        "git status --short && git diff",
                        "npm test",
                        "ls -R | head -300",
                        "python -m pytest -q",
                    ]);
                    let call_id = format!("call_{}", ctx.base62(24));
                    let args = format!(
                        r#"{{\"cmd\": \"{cmd}\", \"workdir\": \"{cwd}\", \"yield_time_ms\": 10000}}"#
                    );
                    out += toks(args.len());
                    r.history += 1;
                    lines.push((
                        t + 10 + c as i64,
                        format!(
                            r#""type":"response_item","payload":{{"type":"function_call","status":"completed","id":"fc_{}","name":"exec_command","arguments":"{args}","call_id":"{call_id}","internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}"}}}},"metadata":{{"history_sequence":{},"sampled_through_sequence":{},"client_authored":false,"user_input_order":{}}}}}"#,
                            ctx.hex(48),
                            r.history,
                            r.history.saturating_sub(1),
                            i + 2
                        ),
                    ));
                    execs.push((call_id, cmd));
                }
                if cut_at == Some(i) {
                    let first = format!(
                        r#"{{"timestamp":"{}","ordinal":{},{}"#,
                        iso(lines[0].0),
                        r.ordinal,
                        lines[0].1
                    );
                    r.buf.push_str(cut(&first));
                    ctx.unfinished();
                    return false;
                }
                for (at, l) in &lines {
                    r.line(*at, l);
                }
                r.now = lines.last().map_or(t, |l| l.0) + 2;
                // The usage of this response.
                let prompt = r.context.max(2000);
                let cached = if r.cached == 0 {
                    0
                } else {
                    r.cached.min(prompt) / 128 * 128
                };
                let usage = Usage {
                    input: prompt,
                    cached,
                    output: out,
                    reasoning,
                };
                r.cached = prompt;
                r.context = prompt + out;
                r.total.add(&usage);
                r.last = usage;
                turn_total.add(&usage);
                let resp_id = format!("resp_{}", ctx.hex(48));
                let t = r.tick(ctx, 2, 20);
                r.line(
                    t,
                    &format!(
                        r#""type":"token_usage_record","payload":{{"thread_id":"{sid}","turn_id":"{turn_id}","session_id":"{sid}","root_turn_id":"{turn_id}","response_id":"{resp_id}","usage":{},"turn_token_usage":{},"thread_token_usage":{}}}}}"#,
                        usage.json(),
                        turn_total.json(),
                        r.total.json()
                    ),
                );
                let mut added = 0;
                for (call_id, cmd) in &execs {
                    let lines_out = ctx.rng.range(3, 700) as usize;
                    let output = ctx.text.out.take(&mut ctx.rng, lines_out).to_string();
                    added += toks(output.len());
                    let start = r.tick(ctx, 20, 200);
                    let done = r.tick(ctx, 50, 30_000);
                    let code = if ctx.rng.chance(15) { 1 } else { 0 };
                    let status = if code == 0 { "completed" } else { "failed" };
                    r.line(
                        done,
                        &format!(
                            r#""type":"event_msg","payload":{{"type":"item_completed","thread_id":"{sid}","turn_id":"{turn_id}","item":{{"type":"CommandExecution","id":"{call_id}","process_id":"{}","command":["/bin/bash","-lc","{cmd}"],"cwd":"file://{cwd}","parsed_cmd":[{{"type":"unknown","cmd":"{cmd}"}}],"source":"unified_exec_startup","status":"{status}","aggregated_output":"{output}","exit_code":{code},"duration":{{"secs":{},"nanos":{}}}}},"started_at_ms":{start},"completed_at_ms":{done}}}}}"#,
                            ctx.rng.range(1000, 99_999),
                            (done - start) / 1000,
                            ctx.rng.below(1_000_000_000)
                        ),
                    );
                    let t = r.tick(ctx, 1, 10);
                    let fco = ctx.uuid7(t);
                    r.history += 1;
                    r.line(
                        t,
                        &format!(
                            r#""type":"response_item","payload":{{"type":"function_call_output","id":"fco_{fco}","call_id":"{call_id}","output":"Chunk ID: {}\nWall time: {}.{:04} seconds\nProcess exited with code {code}\nOriginal token count: {}\nOutput:\n{output}","internal_chat_message_metadata_passthrough":{{"turn_id":"{turn_id}","create_time":{}.{:06}}}}},"metadata":{{"history_sequence":{},"sampled_through_sequence":{},"client_authored":false,"fallback_token_limit_override":12000}}}}"#,
                            ctx.hex(6),
                            (done - start) / 1000,
                            ctx.rng.below(10_000),
                            toks(output.len()),
                            t / 1000,
                            ctx.rng.below(1_000_000),
                            r.history,
                            r.history.saturating_sub(2)
                        ),
                    );
                }
                r.context = (r.context + added).min(250_000);
                let t = r.tick(ctx, 1, 10);
                let line = token_count(r);
                r.line(t, &line);
                let tok = Tok {
                    input: usage.input - usage.cached,
                    output: usage.output,
                    cache_read: usage.cached,
                    cache_write: 0,
                    reasoning: usage.reasoning,
                };
                ctx.billed(t, model, &tok);
            }
            let t = r.tick(ctx, 2, 30);
            r.line(
                t,
                &format!(
                    r#""type":"event_msg","payload":{{"type":"task_complete","root_turn_id":"{turn_id}","turn_id":"{turn_id}","last_agent_message":{last_text},"started_at":{},"completed_at":{},"duration_ms":{},"time_to_first_token_ms":{}}}}}"#,
                    t0 / 1000,
                    t / 1000,
                    t - t0,
                    first_token_ms.unwrap_or(0)
                ),
            );
            true
        }

        fn token_count(r: &Roll) -> String {
            format!(
                r#""type":"event_msg","payload":{{"type":"token_count","info":{{"total_token_usage":{},"last_token_usage":{},"last_usage_includes_reasoning":false,"model_context_window":258400}},{RATE_LIMITS}}}}}"#,
                r.total.json(),
                r.last.json()
            )
        }
    }

    /// A short project name: the folder's name, lowercased, other characters as `-`.
    fn short_name(cwd: &str) -> String {
        cwd.rsplit('/')
            .next()
            .unwrap_or("project")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect()
    }

    // -- Gemini CLI -----------------------------------------------------------------------------

    mod gemini {
        //! `~/.gemini/tmp/<project>/chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`, with
        //! `~/.gemini/projects.json` and `tmp/<project>/.project_root`: Gemini CLI 0.61.0's
        //! chat logs (a replay log: records, `$set`, `$rewindTo`).

        use super::*;

        const MODELS: &[&str] = &[
            "gemini-3.1-pro-preview",
            "gemini-3.1-pro-preview-customtools",
            "gemini-3-flash-preview",
        ];
        const DAYS: &[&str] = &[
            "Sunday",
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
        ];
        const MONTHS: &[&str] = &[
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];

        struct Chat {
            buf: String,
            sid: String,
            hash: String,
            cwd: String,
            slug: String,
            now: i64,
            context: u64,
            cached: u64,
            model: &'static str,
            ctx_id: String,
            /// The conversation as a resume restores it (`$set` messages): id, type, text;
            /// each prompt's first message.
            history: Vec<(String, &'static str, String)>,
        }

        impl Chat {
            fn line(&mut self, l: &str) {
                self.buf.push_str(l);
                self.buf.push('\n');
            }

            fn tick(&mut self, ctx: &mut Ctx, lo: u64, hi: u64) -> i64 {
                self.now += ctx.rng.range(lo, hi) as i64;
                self.now
            }

            /// `$set` of the whole message list, as restored at `at` (new times, no tokens).
            fn set_messages(&self, at: i64) -> String {
                let mut all = vec![self.context_message(at)];
                for (id, kind, text) in &self.history {
                    all.push(format!(
                        r#"{{"id":"{id}","timestamp":"{}","type":"{kind}","content":[{{"text":"{text}"}}]}}"#,
                        iso(at)
                    ));
                }
                format!(
                    r#"{{"$set":{{"messages":[{}],"lastUpdated":"{}"}}}}"#,
                    all.join(","),
                    iso(at)
                )
            }

            fn touch(&mut self) {
                let l = format!(r#"{{"$set":{{"lastUpdated":"{}"}}}}"#, iso(self.now));
                self.line(&l);
            }

            fn context_message(&self, at: i64) -> String {
                let t = tm(at);
                format!(
                    r#"{{"id":"{}","timestamp":"{}","type":"user","content":[{{"text":"<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\nToday's date is {}, {} {}, {} (formatted according to the user's locale).\nMy operating system is: linux\nThe project's temporary directory is: /home/dev/.gemini/tmp/{}\n- **Workspace Directories:**\n  - {}\n- **Directory Structure:**\n\nShowing up to 200 items (files + folders).\n\n{}/\n├───Cargo.toml\n├───README.md\n└───src/\n</session_context>"}}]}}"#,
                    self.ctx_id,
                    iso(at),
                    DAYS[t.wday as usize],
                    MONTHS[t.mo as usize - 1],
                    t.d,
                    t.y,
                    self.slug,
                    self.cwd,
                    self.cwd
                )
            }

            /// The first records a process writes.
            fn open(&mut self, at: i64, start: i64) {
                let l = format!(
                    r#"{{"sessionId":"{}","projectHash":"{}","startTime":"{}","lastUpdated":"{}","kind":"main"}}"#,
                    self.sid,
                    self.hash,
                    iso(start),
                    iso(at)
                );
                self.line(&l);
                let l = format!(
                    r#"{{"$set":{{"messages":[{}],"lastUpdated":"{}"}}}}"#,
                    self.context_message(at),
                    iso(at)
                );
                self.line(&l);
            }
        }

        pub(in super::super) fn generate(ctx: &mut Ctx) -> io::Result<()> {
            let mut projects: BTreeMap<String, String> = BTreeMap::new();
            let mut n = 0u64;
            let mut last_ms = ctx.start_ms;
            while ctx.more() {
                let cwd = cwd(ctx).to_string();
                let slug = short_name(&cwd);
                projects.insert(cwd.clone(), slug.clone());
                last_ms = last_ms.max(session(ctx, &cwd, &slug, n == 1)?);
                n += 1;
            }
            if projects.is_empty() {
                return Ok(());
            }
            let mut text = String::from("{\n  \"projects\": {\n");
            let entries: Vec<String> = projects
                .iter()
                .map(|(cwd, slug)| format!("    \"{cwd}\": \"{slug}\""))
                .collect();
            text.push_str(&entries.join(",\n"));
            text.push_str("\n  }\n}");
            ctx.write(".gemini/projects.json", text.as_bytes(), last_ms)?;
            for (cwd, slug) in &projects {
                for dir in ["tmp", "history"] {
                    ctx.write(
                        &format!(".gemini/{dir}/{slug}/.project_root"),
                        cwd.as_bytes(),
                        last_ms,
                    )?;
                }
            }
            Ok(())
        }

        fn session(ctx: &mut Ctx, cwd: &str, slug: &str, unfinished: bool) -> io::Result<i64> {
            ctx.begin_session();
            let start = ctx.session_start();
            let (start, prompts) = if unfinished {
                {
                    let p = prompts_in_session(ctx, 8);
                    ctx.unfinished_plan(start, p)
                }
            } else {
                (start, prompts_in_session(ctx, 10))
            };
            let start = ctx.place_run(start).unwrap_or(start);
            let sid = ctx.uuid();
            let mut c = Chat {
                buf: String::with_capacity(1 << 20),
                sid: sid.clone(),
                hash: {
                    use sha2::Digest as _;
                    sha2::Sha256::digest(cwd.as_bytes())
                        .iter()
                        .map(|b| format!("{b:02x}"))
                        .collect()
                },
                cwd: cwd.to_string(),
                slug: slug.to_string(),
                now: start,
                context: 8_000 + ctx.rng.below(4000),
                cached: 0,
                model: ctx.rng.pick(MODELS),
                ctx_id: "d04923d38bb0f6017037e74183378ef4".to_string(),
                history: Vec::new(),
            };
            c.open(start, start);
            let mut t = start;
            for k in 0..prompts {
                let Some(at) = ctx.place_run(t) else { break };
                if at - c.now > 3_600_000 {
                    c.cached = 0;
                }
                c.now = at;
                let cut_here = unfinished && k + 1 == prompts;
                // A new process: the history comes back inside `$set`, without tokens.
                if k > 0 && !cut_here && ctx.rng.chance(15) {
                    let t = c.now;
                    c.open(t, t);
                    let l = format!(r#"{{"$set":{{"sessionId":"{}"}}}}"#, c.sid);
                    c.line(&l);
                    let l = c.set_messages(t);
                    c.line(&l);
                    ctx.trap("gemini_resumes", 1);
                    c.tick(ctx, 500, 3000);
                }
                let fail = k == 0 && !cut_here && ctx.rng.chance(4);
                if !run(ctx, &mut c, fail, cut_here) {
                    break;
                }
                t = c.now + ctx.gap();
            }
            let tm = tm(start);
            let rel = format!(
                ".gemini/tmp/{slug}/chats/session-{:04}-{:02}-{:02}T{:02}-{:02}-{}.jsonl",
                tm.y,
                tm.mo,
                tm.d,
                tm.h,
                tm.mi,
                &sid[..8]
            );
            let now = c.now;
            ctx.write(&rel, c.buf.as_bytes(), now)?;
            ctx.end_session(&sid, &rel, cwd, json!({ "model": c.model }));
            Ok(now)
        }

        /// One prompt. `false` when the log was cut.
        fn run(ctx: &mut Ctx, c: &mut Chat, fail: bool, cut_here: bool) -> bool {
            let t0 = c.now;
            let prompt = ctx.prompt();
            let uid = ctx.uuid();
            let l = format!(
                r#"{{"id":"{uid}","timestamp":"{}","type":"user","content":[{{"text":"{prompt}"}}]}}"#,
                iso(t0)
            );
            c.line(&l);
            c.touch();
            ctx.run(t0);
            if fail {
                // The request fails: the prompt is dropped from the conversation.
                let t = c.tick(ctx, 2000, 60_000);
                let l = c.set_messages(t);
                c.line(&l);
                ctx.failed(t0);
                ctx.trap("gemini_failed_prompts", 1);
                return true;
            }
            let mark = c.history.len();
            c.history.push((uid.clone(), "user", prompt.clone()));
            c.context += toks(prompt.len()) + 10;
            let model = if ctx.rng.chance(10) {
                ctx.rng.pick(MODELS)
            } else {
                c.model
            };
            let n = responses_in_run(ctx, 12);
            let cut_at = cut_here.then(|| n - 1);
            let mut responses = 0;
            for i in 0..n {
                let last = i + 1 == n;
                let calls = if last {
                    0
                } else if ctx.rng.chance(80) {
                    1
                } else {
                    2
                };
                let t = c.tick(ctx, 800, 20_000);
                let id = ctx.uuid();
                let text = if last || ctx.rng.chance(70) {
                    ctx.prose_in(30, 1500)
                } else {
                    String::new()
                };
                let mut thoughts = Vec::new();
                let mut thought_toks = 0;
                if ctx.rng.chance(25) {
                    // One entry per streamed chunk, a word each, no subject.
                    let words = ctx.prose_in(40, 400);
                    for w in words.split(' ') {
                        let w = w.trim_end_matches('\\');
                        thought_toks += 2;
                        thoughts.push(format!(
                            r#"{{"subject":"","description":"{w}","timestamp":"{}"}}"#,
                            iso(t - 300)
                        ));
                    }
                } else if ctx.rng.chance(45) {
                    for _ in 0..ctx.rng.range(1, 4) {
                        let subject = ctx.prose_in(12, 40);
                        let desc = ctx.prose_in(60, 600);
                        thought_toks += toks(desc.len()) * 3;
                        thoughts.push(format!(
                            r#"{{"subject":"{subject}","description":"{desc}","timestamp":"{}"}}"#,
                            iso(t - 400)
                        ));
                    }
                }
                let output = toks(text.len()) + 5 + calls * 30;
                let input = c.context.max(2000);
                let cached = if c.cached == 0 || ctx.rng.chance(30) {
                    0
                } else {
                    c.cached.min(input) * ctx.rng.range(50, 95) / 100
                };
                c.cached = input;
                c.context = input + output;
                let tokens = format!(
                    r#""tokens":{{"input":{input},"output":{output},"cached":{cached},"thoughts":{thought_toks},"tool":0,"total":{}}}"#,
                    input + output + thought_toks
                );
                let record = format!(
                    r#"{{"id":"{id}","timestamp":"{}","type":"gemini","content":"{text}","thoughts":[{}],{tokens},"model":"{model}""#,
                    iso(t),
                    thoughts.join(",")
                );
                if cut_at == Some(i) {
                    c.buf.push_str(cut(&(record.clone() + "}")));
                    ctx.unfinished();
                    return false;
                }
                c.line(&(record.clone() + "}"));
                c.touch();
                let tok = Tok {
                    input: input - cached,
                    output: output + thought_toks,
                    cache_read: cached,
                    cache_write: 0,
                    reasoning: thought_toks,
                };
                ctx.billed(t, model, &tok);
                responses += 1;
                c.history.push((id.clone(), "gemini", text.clone()));
                if calls == 0 {
                    continue;
                }
                // The answer is written again with its tool calls and their results.
                let mut items = Vec::new();
                let mut responses_json = Vec::new();
                let mut added = 0;
                for j in 0..calls {
                    let done = c.tick(ctx, 50, 20_000);
                    let call_id_ms = t + 10 + j as i64;
                    let (name, args, output, display, desc, shown, markdown) = if ctx.rng.chance(45)
                    {
                        let path = format!("{}/{}", c.cwd, ctx.rng.pick(FILES));
                        let lines = ctx.rng.range(20, 800) as usize;
                        let content = ctx.text.code.take(&mut ctx.rng, lines).to_string();
                        (
                            "read_file",
                            format!(r#"{{"file_path":"{path}"}}"#),
                            content,
                            String::new(),
                            path,
                            "ReadFile",
                            true,
                        )
                    } else {
                        let cmd = ctx.rng.pick(&[
                            "cargo test",
                            "npm run build",
                            "git log --oneline -50",
                            "ls -la",
                            "pytest -q",
                            "make lint",
                        ]);
                        let lines = ctx.rng.range(3, 500) as usize;
                        let out = ctx.text.out.take(&mut ctx.rng, lines).to_string();
                        let pgid = ctx.rng.range(1000, 99_999);
                        (
                            "run_shell_command",
                            format!(r#"{{"command":"{cmd}"}}"#),
                            format!(
                                "<untrusted_context>\\nOutput: {out}\\nProcess Group PGID: {pgid}\\n</untrusted_context>"
                            ),
                            out,
                            cmd.to_string(),
                            "Shell",
                            false,
                        )
                    };
                    added += toks(output.len());
                    let call_id = format!("{name}__{name}_{call_id_ms}_{j}");
                    let response = format!(
                        r#"{{"functionResponse":{{"id":"{call_id}","name":"{name}","response":{{"output":"{output}"}}}}}}"#
                    );
                    items.push(format!(
                        r#"{{"id":"{call_id}","name":"{name}","args":{args},"result":[{response}],"status":"success","timestamp":"{}","resultDisplay":"{display}","description":"{desc}","displayName":"{shown}","renderOutputAsMarkdown":{markdown}}}"#,
                        iso(done)
                    ));
                    responses_json.push(response);
                }
                c.line(&format!(r#"{record},"toolCalls":[{}]}}"#, items.join(",")));
                ctx.trap("gemini_reappended_messages", 1);
                let t = c.tick(ctx, 2, 20);
                let rid = ctx.uuid();
                let l = format!(
                    r#"{{"id":"{rid}","timestamp":"{}","type":"user","content":[{}]}}"#,
                    iso(t),
                    responses_json.join(",")
                );
                c.line(&l);
                c.touch();
                c.context += added;
            }
            // Now and then the user rewinds: the prompt and its answers leave the
            // conversation (they were billed all the same).
            if !cut_here && ctx.rng.chance(4) {
                let t = c.tick(ctx, 5_000, 60_000);
                c.line(&format!(r#"{{"$rewindTo":"{uid}"}}"#));
                c.history.truncate(mark);
                c.touch();
                let _ = t;
                ctx.trap("gemini_rewinds", 1);
                ctx.trap("gemini_rewound_responses", responses);
            }
            true
        }
    }

    // -- Qwen Code ------------------------------------------------------------------------------

    mod qwen {
        //! `~/.qwen/projects/<sanitized cwd>/chats/<session>.jsonl` and
        //! `~/.qwen/usage_record.jsonl`: Qwen Code 0.24.4's chat records.

        use super::*;

        const VERSION: &str = "0.24.4";
        const MODELS: &[&str] = &[
            "qwen3-coder-plus",
            "qwen3-coder-plus",
            "qwen3.5-plus",
            "qwen3-coder-flash",
        ];

        struct Chat {
            buf: String,
            sid: String,
            cwd: String,
            parent: Option<String>,
            now: i64,
            context: u64,
            cached: u64,
        }

        impl Chat {
            /// A record: the envelope, then `body` (which closes it).
            fn record(
                &mut self,
                ctx: &mut Ctx,
                kind: &str,
                provenance: &str,
                at: i64,
                body: &str,
            ) -> String {
                let u = ctx.uuid();
                let parent = match self.parent.replace(u.clone()) {
                    Some(p) => format!("\"{p}\""),
                    None => "null".to_string(),
                };
                format!(
                    r#"{{"uuid":"{u}","parentUuid":{parent},"sessionId":"{}","timestamp":"{}","type":"{kind}","provenance":"{provenance}","cwd":"{}","version":"{VERSION}",{body}"#,
                    self.sid,
                    iso(at),
                    self.cwd
                )
            }

            fn push(&mut self, l: &str) {
                self.buf.push_str(l);
                self.buf.push('\n');
            }

            fn tick(&mut self, ctx: &mut Ctx, lo: u64, hi: u64) -> i64 {
                self.now += ctx.rng.range(lo, hi) as i64;
                self.now
            }
        }

        /// One process's usage, for `usage_record.jsonl`.
        #[derive(Default)]
        struct Summary {
            requests: u64,
            input: u64,
            output: u64,
            cached: u64,
            thoughts: u64,
            latency: u64,
            calls: u64,
        }

        pub(in super::super) fn generate(ctx: &mut Ctx) -> io::Result<()> {
            let mut records: Vec<(i64, String)> = Vec::new();
            let mut n = 0u64;
            while ctx.more() {
                session(ctx, n == 1, &mut records)?;
                n += 1;
            }
            if !records.is_empty() {
                records.sort_by_key(|r| r.0);
                let last = records.last().map_or(END_MS, |r| r.0);
                let text: String = records.iter().map(|r| format!("{}\n", r.1)).collect();
                ctx.write(".qwen/usage_record.jsonl", text.as_bytes(), last)?;
                ctx.trap("qwen_usage_record_lines", records.len() as u64);
            }
            Ok(())
        }

        fn summary_line(c: &Chat, model: &str, s: &Summary, start: i64) -> (i64, String) {
            (
                c.now,
                format!(
                    r#"{{"version":1,"sessionId":"{}","timestamp":{},"startTime":{start},"project":"{}","durationMs":{},"totalLatencyMs":{},"models":{{"{model}":{{"requests":{},"inputTokens":{},"outputTokens":{},"cachedTokens":{},"thoughtsTokens":{},"totalTokens":{},"totalLatencyMs":{}}}}},"tools":{{"totalCalls":{},"totalSuccess":{},"totalFail":0,"byName":{{}}}},"files":{{"linesAdded":0,"linesRemoved":0}},"skills":{{"totalCalls":0,"totalSuccess":0,"totalFail":0,"byName":{{}}}}}}"#,
                    c.sid,
                    c.now,
                    c.cwd,
                    c.now - start,
                    s.latency,
                    s.requests,
                    s.input,
                    s.output,
                    s.cached,
                    s.thoughts,
                    s.input + s.output,
                    s.latency,
                    s.calls,
                    s.calls
                ),
            )
        }

        fn session(
            ctx: &mut Ctx,
            unfinished: bool,
            records: &mut Vec<(i64, String)>,
        ) -> io::Result<()> {
            ctx.begin_session();
            let cwd = cwd(ctx).to_string();
            let start = ctx.session_start();
            let (start, prompts) = if unfinished {
                {
                    let p = prompts_in_session(ctx, 8);
                    ctx.unfinished_plan(start, p)
                }
            } else {
                (start, prompts_in_session(ctx, 10))
            };
            let start = ctx.place_run(start).unwrap_or(start);
            let sid = ctx.uuid();
            let model = ctx.rng.pick(MODELS);
            let mut c = Chat {
                buf: String::with_capacity(1 << 20),
                sid: sid.clone(),
                cwd: cwd.clone(),
                parent: None,
                now: start,
                context: 10_000 + ctx.rng.below(5000),
                cached: 0,
            };
            // The session's running total: each process writes it when it ends.
            let mut sum = Summary::default();
            let mut process_start = start;
            let mut processes = 1;
            let mut t = start;
            let mut finished = true;
            for k in 0..prompts {
                let Some(at) = ctx.place_run(t) else { break };
                let cut_here = unfinished && k + 1 == prompts;
                if k > 0 && !cut_here && ctx.rng.chance(20) {
                    records.push(summary_line(&c, model, &sum, process_start));
                    process_start = at - 3000;
                    processes += 1;
                }
                if at - c.now > 3_600_000 {
                    c.cached = 0;
                }
                c.now = at;
                let fail = !cut_here && ctx.rng.chance(3);
                if !run(ctx, &mut c, k, model, fail, cut_here, &mut sum) {
                    finished = false;
                    break;
                }
                t = c.now + ctx.gap();
            }
            if finished {
                records.push(summary_line(&c, model, &sum, process_start));
            }
            if processes > 1 {
                ctx.trap("qwen_resumed_sessions", 1);
            }
            let slug: String = cwd
                .chars()
                .map(|ch| if ch.is_ascii_alphanumeric() { ch } else { '-' })
                .collect();
            let rel = format!(".qwen/projects/{slug}/chats/{sid}.jsonl");
            let now = c.now;
            ctx.write(&rel, c.buf.as_bytes(), now)?;
            ctx.end_session(&sid, &rel, &cwd, json!({ "model": model }));
            Ok(())
        }

        #[allow(clippy::too_many_arguments)]
        fn api_response(
            ctx: &mut Ctx,
            c: &mut Chat,
            at: i64,
            model: &str,
            prompt_id: &str,
            u: (u64, u64, u64, u64),
            text: &str,
            side: Option<&str>,
        ) -> (String, String) {
            let (input, cached, output, thoughts) = u;
            let resp = format!("chatcmpl-{}", ctx.base62(29));
            let ms = ctx.rng.range(300, 20_000);
            let ttft = ms * ctx.rng.range(10, 90) / 100;
            let side = match side {
                Some(id) => format!(
                    r#","subagent_name":"managed-auto-memory-extractor","subagent_id":"{id}","subagent_type":"managed-auto-memory-extractor""#
                ),
                None => String::new(),
            };
            let shown: String = text.chars().take(400).collect::<String>();
            let shown = shown.trim_end_matches('\\');
            let body = format!(
                r#""subtype":"ui_telemetry","systemPayload":{{"uiEvent":{{"event.name":"qwen-code.api_response","event.timestamp":"{}","response_id":"{resp}","model":"{model}","status_code":200,"duration_ms":{ms},"input_token_count":{input},"output_token_count":{output},"cached_content_token_count":{cached},"thoughts_token_count":{thoughts},"total_token_count":{},"response_text":"{shown}","prompt_id":"{prompt_id}","auth_type":"openai","ttft_ms":{ttft}{side}}}}}}}"#,
                iso(at - 2),
                input + output
            );
            (c.record(ctx, "system", "system", at, &body), resp)
        }

        #[allow(clippy::too_many_arguments)]
        fn run(
            ctx: &mut Ctx,
            c: &mut Chat,
            k: u64,
            model: &'static str,
            fail: bool,
            cut_here: bool,
            sum: &mut Summary,
        ) -> bool {
            let t0 = c.now;
            let prompt = ctx.prompt();
            let l = c.record(
                ctx,
                "user",
                "real_user",
                t0,
                &format!(r#""message":{{"role":"user","parts":[{{"text":"{prompt}"}}]}}}}"#),
            );
            c.push(&l);
            ctx.run(t0);
            let t = c.tick(ctx, 5, 30);
            let l = c.record(
                ctx,
                "system",
                "system",
                t,
                &format!(
                    r#""subtype":"attribution_snapshot","systemPayload":{{"snapshot":{{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{{}},"promptCount":{},"promptCountAtLastCommit":0}}}}}}"#,
                    k + 1
                ),
            );
            c.push(&l);
            let prompt_id = format!("{}########{k}", c.sid);
            if fail {
                for _ in 0..ctx.rng.range(1, 7) {
                    let t = c.tick(ctx, 400, 20_000);
                    let req = format!("req_{}", ctx.base62(24));
                    let ms = ctx.rng.range(5, 900);
                    let l = c.record(
                        ctx,
                        "system",
                        "system",
                        t,
                        &format!(
                            r#""subtype":"ui_telemetry","systemPayload":{{"uiEvent":{{"event.name":"qwen-code.api_error","event.timestamp":"{}","response_id":"{req}","model":"{model}","duration_ms":{},"prompt_id":"{prompt_id}","auth_type":"openai","error_message":"500 Internal server error","error_type":"InternalServerError","status_code":500}}}}}}"#,
                            iso(t),
                            ms
                        ),
                    );
                    c.push(&l);
                    ctx.trap("qwen_api_errors", 1);
                }
                ctx.failed(t0);
                return true;
            }
            c.context += toks(prompt.len()) + 10;
            let n = responses_in_run(ctx, 12);
            let cut_at = cut_here.then(|| n - 1);
            for i in 0..n {
                let last = i + 1 == n;
                let calls = if last {
                    0
                } else if ctx.rng.chance(80) {
                    1
                } else {
                    2
                };
                let t = c.tick(ctx, 800, 20_000);
                let text = if last || ctx.rng.chance(70) {
                    ctx.prose_in(30, 1500)
                } else {
                    String::new()
                };
                let mut parts = Vec::new();
                let mut thoughts = 0;
                if model != "qwen3-coder-flash" && ctx.rng.chance(40) {
                    let th = ctx.prose_in(100, 2500);
                    thoughts = toks(th.len());
                    parts.push(format!(r#"{{"text":"{th}","thought":true}}"#));
                }
                if !text.is_empty() {
                    parts.push(format!(r#"{{"text":"{text}"}}"#));
                }
                let mut calls_made = Vec::new();
                for _ in 0..calls {
                    let id = format!("call_{}", ctx.base62(24));
                    let (name, args) = if ctx.rng.chance(40) {
                        (
                            "read_file",
                            format!(r#"{{"absolute_path":"{}/{}"}}"#, c.cwd, ctx.rng.pick(FILES)),
                        )
                    } else {
                        let cmd = ctx.rng.pick(&[
                            "cargo test",
                            "npm test",
                            "git diff",
                            "ls -la src",
                            "pytest -q",
                        ]);
                        (
                            "run_shell_command",
                            format!(r#"{{"command":"{cmd}","is_background":false}}"#),
                        )
                    };
                    parts.push(format!(
                        r#"{{"functionCall":{{"id":"{id}","name":"{name}","args":{args}}}}}"#
                    ));
                    calls_made.push((id, name, args));
                }
                let output = toks(text.len()) + thoughts + 5 + calls * 25;
                let input = c.context.max(2000);
                let cached = if c.cached == 0 {
                    0
                } else {
                    c.cached.min(input) * ctx.rng.range(60, 98) / 100
                };
                c.cached = input;
                c.context = input + output;
                let (tele, resp_id) = api_response(
                    ctx,
                    c,
                    t,
                    model,
                    &prompt_id,
                    (input, cached, output, thoughts),
                    &text,
                    None,
                );
                if cut_at == Some(i) {
                    c.buf.push_str(cut(&tele));
                    ctx.unfinished();
                    return false;
                }
                c.push(&tele);
                let tok = Tok {
                    input: input - cached,
                    output,
                    cache_read: cached,
                    cache_write: 0,
                    reasoning: thoughts,
                };
                ctx.billed(t, model, &tok);
                sum.requests += 1;
                sum.input += input;
                sum.output += output;
                sum.cached += cached;
                sum.thoughts += thoughts;
                sum.latency += ctx.rng.range(300, 9000);
                let t = c.tick(ctx, 1, 10);
                let l = c.record(
                    ctx,
                    "assistant",
                    "assistant_output",
                    t,
                    &format!(
                        r#""model":"{model}","message":{{"role":"model","parts":[{}]}},"usageMetadata":{{"promptTokenCount":{input},"candidatesTokenCount":{output},"thoughtsTokenCount":{thoughts},"totalTokenCount":{},"cachedContentTokenCount":{cached}}}}}"#,
                        parts.join(","),
                        input + output
                    ),
                );
                c.push(&l);
                let mut added = 0;
                for (id, name, args) in &calls_made {
                    let done = c.tick(ctx, 50, 20_000);
                    let (output, display) = if *name == "read_file" {
                        let lines = ctx.rng.range(20, 800) as usize;
                        (
                            ctx.text.code.take(&mut ctx.rng, lines).to_string(),
                            r#""""#.to_string(),
                        )
                    } else {
                        let lines = ctx.rng.range(3, 500) as usize;
                        let out = ctx.text.out.take(&mut ctx.rng, lines).to_string();
                        let display = format!(
                            r#"{{"type":"shell_result","version":1,"directory":"{}","exitCode":0,"signal":null,"pid":null,"outcome":"completed","outputFiles":[],"output":"{out}","text":"{out}","error":null,"notices":[],"truncated":false}}"#,
                            c.cwd
                        );
                        let cmd = args.split('"').nth(3).unwrap_or_default();
                        (
                            format!(
                                "Command: {cmd}\\nDirectory: (root)\\nOutput: {out}\\nError: (none)\\nExit Code: 0\\nSignal: (none)\\nProcess Group PGID: (none)"
                            ),
                            display,
                        )
                    };
                    added += toks(output.len());
                    let ms = ctx.rng.range(20, 9000);
                    let l = c.record(
                        ctx,
                        "system",
                        "system",
                        done,
                        &format!(
                            r#""subtype":"ui_telemetry","systemPayload":{{"uiEvent":{{"event.name":"qwen-code.tool_call","event.timestamp":"{}","call_id":"{id}","function_name":"{name}","function_args":{args},"duration_ms":{},"status":"success","execution_status":"success","success":true,"decision":"auto_accept","prompt_id":"{prompt_id}","response_id":"{resp_id}","tool_type":"native","content_length":{}}}}}}}"#,
                            iso(done),
                            ms,
                            output.len()
                        ),
                    );
                    c.push(&l);
                    let t = c.tick(ctx, 1, 5);
                    let l = c.record(
                        ctx,
                        "tool_result",
                        "tool_result",
                        t,
                        &format!(
                            r#""message":{{"role":"user","parts":[{{"functionResponse":{{"id":"{id}","name":"{name}","response":{{"output":"{output}"}}}}}}]}},"toolCallResult":{{"callId":"{id}","status":"success","resultDisplay":{display},"executionStatus":"success"}}}}"#
                        ),
                    );
                    c.push(&l);
                    sum.calls += 1;
                }
                c.context += added;
            }
            // The memory extractor: a side request, billed, recorded only here.
            if ctx.rng.chance(50) {
                let t = c.tick(ctx, 300, 5000);
                let id = format!("managed-auto-memory-extractor-{}", ctx.hex(8));
                let input = c.context + ctx.rng.range(2000, 6000);
                let cached = input * ctx.rng.range(0, 60) / 100;
                let output = ctx.rng.range(20, 400);
                let text = ctx.prose_in(20, 300);
                let pid = format!("{}#{id}#0", c.sid);
                let (l, _) = api_response(
                    ctx,
                    c,
                    t,
                    model,
                    &pid,
                    (input, cached, output, 0),
                    &text,
                    Some(&id),
                );
                c.push(&l);
                let tok = Tok {
                    input: input - cached,
                    output,
                    cache_read: cached,
                    cache_write: 0,
                    reasoning: 0,
                };
                ctx.billed(t, model, &tok);
                ctx.trap("qwen_side_requests", 1);
                ctx.trap_tokens("qwen_side_requests", &tok);
                sum.requests += 1;
                sum.input += input;
                sum.output += output;
                sum.cached += cached;
            }
            true
        }
    }

    // -- Cursor Agent ---------------------------------------------------------------------------

    mod cursor {
        //! `~/.cursor/projects/<slug>/agent-transcripts/<id>/<id>.jsonl` (and
        //! `<id>/subagents/<child>.jsonl`): stores.md §2.6b A. No tokens.

        use super::*;

        const MONTHS: &[&str] = &[
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        const DAYS: &[&str] = &[
            "Sunday",
            "Monday",
            "Tuesday",
            "Wednesday",
            "Thursday",
            "Friday",
            "Saturday",
        ];
        /// The machine's offset from UTC (its clock is at UTC+2).
        const OFFSET_H: i64 = 2;

        /// `<timestamp>Tuesday, Jul 28, 2026, 12:06 PM (UTC+2)</timestamp>`, and the UTC
        /// instant it stands for (to the minute).
        fn stamp(at: i64) -> (String, i64) {
            let local = (at + OFFSET_H * 3_600_000).div_euclid(60_000) * 60_000;
            let t = tm(local);
            let (h12, ampm) = match t.h {
                0 => (12, "AM"),
                1..=11 => (t.h, "AM"),
                12 => (12, "PM"),
                h => (h - 12, "PM"),
            };
            (
                format!(
                    "<timestamp>{}, {} {}, {}, {}:{:02} {} (UTC+{OFFSET_H})</timestamp>",
                    DAYS[t.wday as usize],
                    MONTHS[t.mo as usize - 1],
                    t.d,
                    t.y,
                    h12,
                    t.mi,
                    ampm
                ),
                local - OFFSET_H * 3_600_000,
            )
        }

        fn slug(cwd: &str) -> String {
            dash_slug(cwd).trim_start_matches('-').to_string()
        }

        pub(in super::super) fn generate(ctx: &mut Ctx) -> io::Result<()> {
            let mut n = 0u64;
            while ctx.more() {
                session(ctx, n == 1)?;
                n += 1;
            }
            Ok(())
        }

        fn tool(ctx: &mut Ctx, cwd: &str) -> (String, Option<String>) {
            let file = ctx.rng.pick(FILES);
            let r = ctx.rng.below(1000);
            if r < 3 {
                let prompt = ctx.prose_in(100, 600);
                return (
                    format!(
                        r#"{{"type":"tool_use","name":"Task","input":{{"description":"Investigate","prompt":"{prompt}","subagent_type":"explore"}}}}"#
                    ),
                    Some(prompt),
                );
            }
            let block = match r % 100 {
                0..=34 => {
                    let cmd = ctx.rng.pick(&[
                        "ls -la",
                        "cargo test",
                        "npm run lint",
                        "git status",
                        "pytest -q",
                    ]);
                    format!(
                        r#"{{"type":"tool_use","name":"Shell","input":{{"command":"{cmd}","description":"Run {cmd}"}}}}"#
                    )
                }
                35..=59 => format!(
                    r#"{{"type":"tool_use","name":"Read","input":{{"path":"{cwd}/{file}"}}}}"#
                ),
                60..=79 => {
                    let old = ctx.take_code(1, 12);
                    let new = ctx.take_code(1, 20);
                    format!(
                        r#"{{"type":"tool_use","name":"StrReplace","input":{{"path":"{cwd}/{file}","old_string":"{old}","new_string":"{new}"}}}}"#
                    )
                }
                _ => {
                    let id = ctx.rng.pick(IDS);
                    format!(
                        r#"{{"type":"tool_use","name":"Grep","input":{{"pattern":"{id}","path":"{cwd}"}}}}"#
                    )
                }
            };
            (block, None)
        }

        fn assistant(ctx: &mut Ctx, cwd: &str, tools: u64, tasks: &mut Vec<String>) -> String {
            let mut blocks = Vec::new();
            if tools == 0 || ctx.rng.chance(80) {
                let text = ctx.prose_in(30, 1800);
                blocks.push(format!(r#"{{"type":"text","text":"{text}"}}"#));
            }
            for _ in 0..tools {
                let (b, task) = tool(ctx, cwd);
                blocks.push(b);
                if let Some(t) = task {
                    tasks.push(t);
                }
            }
            format!(
                r#"{{"role":"assistant","message":{{"content":[{}]}}}}"#,
                blocks.join(",")
            )
        }

        fn session(ctx: &mut Ctx, unfinished: bool) -> io::Result<()> {
            ctx.begin_session();
            let cwd = cwd(ctx).to_string();
            let start = ctx.session_start();
            let (start, prompts) = if unfinished {
                {
                    let p = prompts_in_session(ctx, 6);
                    ctx.unfinished_plan(start, p)
                }
            } else {
                (start, prompts_in_session(ctx, 8))
            };
            let id = ctx.uuid();
            let dir = format!(".cursor/projects/{}/agent-transcripts/{id}", slug(&cwd));
            let mut buf = String::with_capacity(1 << 18);
            let mut now = start;
            let mut t = start;
            for k in 0..prompts {
                let Some(at) = ctx.place_run(t) else { break };
                now = at;
                let (ts, minute) = stamp(at);
                let prompt = ctx.prompt();
                let _ = writeln!(
                    buf,
                    r#"{{"role":"user","message":{{"content":[{{"type":"text","text":"{ts}\n<user_query>\n{prompt}\n</user_query>"}}]}}}}"#
                );
                ctx.run(minute);
                let cut_here = unfinished && k + 1 == prompts;
                let n = responses_in_run(ctx, 12);
                let fail = !cut_here && ctx.rng.chance(3);
                let mut tasks = Vec::new();
                for i in 0..n {
                    now += ctx.rng.range(1000, 40_000) as i64;
                    let tools = if i + 1 == n { 0 } else { ctx.rng.range(1, 3) };
                    let line = assistant(ctx, &cwd, tools, &mut tasks);
                    if cut_here && i + 1 == n {
                        buf.push_str(cut(&line));
                        break;
                    }
                    buf.push_str(&line);
                    buf.push('\n');
                }
                if cut_here {
                    ctx.unfinished();
                    break;
                }
                for task in tasks {
                    let child = ctx.uuid();
                    let mut sub = format!(
                        r#"{{"role":"user","message":{{"content":[{{"type":"text","text":"<user_query>\n{task}\n</user_query>"}}]}}}}"#
                    );
                    sub.push('\n');
                    let mut none = Vec::new();
                    for j in 0..ctx.rng.range(2, 6) {
                        let tools = if j == 0 { 1 } else { ctx.rng.below(2) };
                        sub.push_str(&assistant(ctx, &cwd, tools, &mut none));
                        sub.push('\n');
                    }
                    sub.push_str("{\"type\":\"turn_ended\",\"status\":\"success\"}\n");
                    ctx.write(
                        &format!("{dir}/subagents/{child}.jsonl"),
                        sub.as_bytes(),
                        now,
                    )?;
                    ctx.trap("cursor_subagent_files", 1);
                }
                if fail {
                    buf.push_str(r#"{"type":"turn_ended","status":"error","error":"Connection error: the model provider returned 500 (Internal Server Error)"}"#);
                    buf.push('\n');
                    ctx.failed(minute);
                } else {
                    buf.push_str("{\"type\":\"turn_ended\",\"status\":\"success\"}\n");
                }
                t = now + ctx.gap();
            }
            let rel = format!("{dir}/{id}.jsonl");
            ctx.write(&rel, buf.as_bytes(), now)?;
            ctx.end_session(&id, &rel, &cwd, json!({}));
            Ok(())
        }
    }

    // -- OpenCode -------------------------------------------------------------------------------

    mod opencode {
        //! `~/.local/share/opencode/opencode.db`: OpenCode 1.18.33's database (its schema;
        //! `session`, `message` and `part` rows as it writes them).

        use super::*;

        const VERSION: &str = "1.18.33";
        /// (provider, model, writes a cache)
        const MODELS: &[(&str, &str, bool)] = &[
            ("anthropic", "claude-sonnet-5-1", true),
            ("openai", "gpt-5.5", false),
            ("opencode", "qwen3-coder-plus", false),
        ];
        const SCHEMA: &str = r#"
CREATE TABLE `workspace` (`id` text PRIMARY KEY, `type` text NOT NULL, `name` text DEFAULT '' NOT NULL, `branch` text, `directory` text, `extra` text, `project_id` text NOT NULL, `time_used` integer NOT NULL, CONSTRAINT `fk_workspace_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);
CREATE TABLE `data_migration` (`name` text PRIMARY KEY, `time_completed` integer NOT NULL);
CREATE TABLE `account_state` (`id` integer PRIMARY KEY, `active_account_id` text, `active_org_id` text, CONSTRAINT `fk_account_state_active_account_id_account_id_fk` FOREIGN KEY (`active_account_id`) REFERENCES `account`(`id`) ON DELETE SET NULL);
CREATE TABLE `account` (`id` text PRIMARY KEY, `email` text NOT NULL, `url` text NOT NULL, `access_token` text NOT NULL, `refresh_token` text NOT NULL, `token_expiry` integer, `time_created` integer NOT NULL, `time_updated` integer NOT NULL);
CREATE TABLE `event_sequence` (`aggregate_id` text PRIMARY KEY, `seq` integer NOT NULL, `owner_id` text);
CREATE TABLE `event` (`id` text PRIMARY KEY, `aggregate_id` text NOT NULL, `seq` integer NOT NULL, `type` text NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_event_aggregate_id_event_sequence_aggregate_id_fk` FOREIGN KEY (`aggregate_id`) REFERENCES `event_sequence`(`aggregate_id`) ON DELETE CASCADE);
CREATE TABLE `permission` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `action` text NOT NULL, `resource` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, CONSTRAINT `fk_permission_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);
CREATE TABLE `project` (`id` text PRIMARY KEY, `worktree` text NOT NULL, `vcs` text, `name` text, `icon_url` text, `icon_url_override` text, `icon_color` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_initialized` integer, `sandboxes` text NOT NULL, `commands` text);
CREATE TABLE `message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
CREATE TABLE `part` (`id` text PRIMARY KEY, `message_id` text NOT NULL, `session_id` text NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_part_message_id_message_id_fk` FOREIGN KEY (`message_id`) REFERENCES `message`(`id`) ON DELETE CASCADE);
CREATE TABLE `session_message` (`id` text PRIMARY KEY, `session_id` text NOT NULL, `type` text NOT NULL, `seq` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `data` text NOT NULL, CONSTRAINT `fk_session_message_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
CREATE TABLE `session` (`id` text PRIMARY KEY, `project_id` text NOT NULL, `workspace_id` text, `parent_id` text, `slug` text NOT NULL, `directory` text NOT NULL, `path` text, `title` text NOT NULL, `version` text NOT NULL, `share_url` text, `summary_additions` integer, `summary_deletions` integer, `summary_files` integer, `summary_diffs` text, `metadata` text, `cost` real DEFAULT 0 NOT NULL, `tokens_input` integer DEFAULT 0 NOT NULL, `tokens_output` integer DEFAULT 0 NOT NULL, `tokens_reasoning` integer DEFAULT 0 NOT NULL, `tokens_cache_read` integer DEFAULT 0 NOT NULL, `tokens_cache_write` integer DEFAULT 0 NOT NULL, `revert` text, `permission` text, `agent` text, `model` text, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, `time_compacting` integer, `time_archived` integer, CONSTRAINT `fk_session_project_id_project_id_fk` FOREIGN KEY (`project_id`) REFERENCES `project`(`id`) ON DELETE CASCADE);
CREATE TABLE `todo` (`session_id` text NOT NULL, `content` text NOT NULL, `status` text NOT NULL, `priority` text NOT NULL, `position` integer NOT NULL, `time_created` integer NOT NULL, `time_updated` integer NOT NULL, CONSTRAINT `todo_pk` PRIMARY KEY(`session_id`, `position`), CONSTRAINT `fk_todo_session_id_session_id_fk` FOREIGN KEY (`session_id`) REFERENCES `session`(`id`) ON DELETE CASCADE);
CREATE INDEX `message_session_time_created_id_idx` ON `message` (`session_id`,`time_created`,`id`);
CREATE INDEX `part_message_id_id_idx` ON `part` (`message_id`,`id`);
CREATE INDEX `part_session_idx` ON `part` (`session_id`);
CREATE UNIQUE INDEX `session_message_session_seq_idx` ON `session_message` (`session_id`,`seq`);
CREATE INDEX `session_project_idx` ON `session` (`project_id`);
CREATE INDEX `session_parent_idx` ON `session` (`parent_id`);
CREATE TABLE "migration" (id TEXT PRIMARY KEY, time_completed INTEGER NOT NULL);
"#;

        /// OpenCode's ids: a prefix, 12 hex digits of time (descending for sessions), 14
        /// random characters.
        fn id(ctx: &mut Ctx, prefix: &str, ms: i64, descending: bool) -> String {
            let t = (ms as u64) << 12 | ctx.rng.below(4096);
            let t = if descending {
                !t & 0xffff_ffff_ffff
            } else {
                t & 0xffff_ffff_ffff
            };
            format!("{prefix}_{t:012x}{}", ctx.base62(14))
        }

        struct Row {
            id: String,
            session: String,
            created: i64,
            updated: i64,
            data: String,
        }

        pub(in super::super) fn generate(ctx: &mut Ctx) -> io::Result<()> {
            let mut sessions = Vec::new();
            let mut messages = Vec::new();
            let mut parts: Vec<(Row, String)> = Vec::new();
            let mut last = ctx.start_ms;
            let mut bytes = 0u64;
            while bytes < ctx.budget {
                let (s, m, p, end) = session(ctx)?;
                bytes += m.iter().map(|r| r.data.len() as u64).sum::<u64>()
                    + p.iter().map(|r| r.0.data.len() as u64).sum::<u64>();
                sessions.push(s);
                messages.extend(m);
                parts.extend(p);
                last = last.max(end);
            }
            let path = ctx.root.join(".local/share/opencode/opencode.db");
            fs::create_dir_all(path.parent().unwrap_or(ctx.root))?;
            let _ = fs::remove_file(&path);
            let db = |e: rusqlite::Error| io::Error::other(e);
            let mut conn = rusqlite::Connection::open(&path).map_err(db)?;
            conn.pragma_update(None, "journal_mode", "wal")
                .map_err(db)?;
            conn.execute_batch(SCHEMA).map_err(db)?;
            let tx = conn.transaction().map_err(db)?;
            for (name, at) in [
                ("20260127222353_familiar_lady_ursula", ctx.start_ms),
                ("20260211171708_add_project_commands", ctx.start_ms + 4),
                ("20260213144116_wakeful_the_professor", ctx.start_ms + 5),
            ] {
                tx.execute(
                    "INSERT INTO migration VALUES (?1, ?2)",
                    rusqlite::params![name, at],
                )
                .map_err(db)?;
            }
            tx.execute(
                "INSERT INTO project (id, worktree, time_created, time_updated, sandboxes) VALUES ('global', '/', ?1, ?1, '[]')",
                [ctx.start_ms],
            )
            .map_err(db)?;
            {
                let mut st = tx
                    .prepare(
                        "INSERT INTO session (id, project_id, slug, directory, path, title, version, summary_additions, summary_deletions, summary_files, cost, tokens_input, tokens_output, tokens_reasoning, tokens_cache_read, tokens_cache_write, permission, agent, model, time_created, time_updated) VALUES (?1, 'global', ?2, ?3, ?4, ?5, ?6, 0, 0, 0, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 'build', ?14, ?15, ?16)",
                    )
                    .map_err(db)?;
                for s in &sessions {
                    st.execute(rusqlite::params![
                        s.id, s.slug, s.dir, s.dir.trim_start_matches('/'), s.title, VERSION, s.cost,
                        s.tok.input as i64,
                        (s.tok.output - s.tok.reasoning) as i64,
                        s.tok.reasoning as i64,
                        s.tok.cache_read as i64,
                        s.tok.cache_write as i64,
                        r#"[{"permission":"question","pattern":"*","action":"deny"},{"permission":"plan_enter","pattern":"*","action":"deny"},{"permission":"plan_exit","pattern":"*","action":"deny"}]"#,
                        s.model, s.created, s.updated
                    ])
                    .map_err(db)?;
                }
                let mut st = tx
                    .prepare("INSERT INTO message VALUES (?1, ?2, ?3, ?4, ?5)")
                    .map_err(db)?;
                for m in &messages {
                    st.execute(rusqlite::params![
                        m.id, m.session, m.created, m.updated, m.data
                    ])
                    .map_err(db)?;
                }
                let mut st = tx
                    .prepare("INSERT INTO part VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
                    .map_err(db)?;
                for (p, message) in &parts {
                    st.execute(rusqlite::params![
                        p.id, message, p.session, p.created, p.updated, p.data
                    ])
                    .map_err(db)?;
                }
            }
            tx.commit().map_err(db)?;
            drop(conn);
            let size = fs::metadata(&path)?.len();
            let file = fs::File::options().write(true).open(&path)?;
            file.set_modified(
                std::time::UNIX_EPOCH + std::time::Duration::from_millis(last as u64),
            )?;
            ctx.written += size;
            ctx.tally.bytes += size;
            ctx.tally.files += 1;
            ctx.trap("opencode_sessions_in_one_database", sessions.len() as u64);
            Ok(())
        }

        struct Session {
            id: String,
            slug: String,
            dir: String,
            title: String,
            model: String,
            cost: f64,
            tok: Tok,
            created: i64,
            updated: i64,
        }

        type Made = (Session, Vec<Row>, Vec<(Row, String)>, i64);

        fn session(ctx: &mut Ctx) -> io::Result<Made> {
            ctx.begin_session();
            let dir = cwd(ctx).to_string();
            let start = ctx.session_start();
            let sid = id(ctx, "ses", start, true);
            let (provider, model, writes) = MODELS[ctx.rng.below(MODELS.len() as u64) as usize];
            let mut messages = Vec::new();
            let mut parts = Vec::new();
            let mut total = Tok::default();
            let mut cost = 0.0;
            let mut context = 12_000 + ctx.rng.below(4000);
            let mut cached = 0u64;
            let mut now = start;
            let mut t = start;
            let part = |ctx: &mut Ctx,
                        parts: &mut Vec<(Row, String)>,
                        mid: &str,
                        at: i64,
                        data: String| {
                let pid = id(ctx, "prt", at, false);
                parts.push((
                    Row {
                        id: pid,
                        session: sid.clone(),
                        created: at,
                        updated: at + 3,
                        data,
                    },
                    mid.to_string(),
                ));
            };
            for _ in 0..prompts_in_session(ctx, 8) {
                let Some(at) = ctx.place_run(t) else { break };
                if at - now > 3_600_000 {
                    cached = 0;
                }
                now = at;
                let uid = id(ctx, "msg", at, false);
                messages.push(Row {
                    id: uid.clone(),
                    session: sid.clone(),
                    created: at,
                    updated: at + 5,
                    data: format!(
                        r#"{{"role":"user","time":{{"created":{at}}},"agent":"build","model":{{"providerID":"{provider}","modelID":"{model}"}},"summary":{{"diffs":[]}}}}"#
                    ),
                });
                let prompt = ctx.prompt();
                part(
                    ctx,
                    &mut parts,
                    &uid,
                    at + 2,
                    format!(r#"{{"type":"text","text":"\"{prompt}\""}}"#),
                );
                ctx.run(at);
                context += toks(prompt.len());
                let n = responses_in_run(ctx, 12);
                let fail_at = ctx.rng.chance(3).then(|| ctx.rng.below(n));
                for i in 0..n {
                    let created = now + ctx.rng.range(300, 3000) as i64;
                    let done = created + ctx.rng.range(800, 30_000) as i64;
                    now = done;
                    let mid = id(ctx, "msg", created, false);
                    let head = format!(
                        r#"{{"parentID":"{uid}","role":"assistant","mode":"build","agent":"build","path":{{"cwd":"{dir}","root":"/"}},"#
                    );
                    if fail_at == Some(i) {
                        messages.push(Row {
                            id: mid,
                            session: sid.clone(),
                            created,
                            updated: done,
                            data: format!(
                                r#"{head}"cost":0,"tokens":{{"input":0,"output":0,"reasoning":0,"cache":{{"read":0,"write":0}}}},"modelID":"{model}","providerID":"{provider}","time":{{"created":{created},"completed":{done}}},"error":{{"name":"APIError","data":{{"message":"Internal server error","statusCode":500,"isRetryable":true,"responseHeaders":{{"content-type":"application/json"}},"responseBody":"{{\"type\":\"error\",\"error\":{{\"type\":\"api_error\",\"message\":\"Internal server error\"}}}}","metadata":{{"url":"https://api.example.com/v1/messages"}}}}}}}}"#
                            ),
                        });
                        ctx.failed(at);
                        ctx.trap("opencode_error_messages", 1);
                        break;
                    }
                    let last = i + 1 == n;
                    part(
                        ctx,
                        &mut parts,
                        &mid,
                        created + 10,
                        r#"{"type":"step-start"}"#.to_string(),
                    );
                    let mut output = ctx.rng.range(5, 40);
                    let mut reasoning = 0;
                    if ctx.rng.chance(40) {
                        let text = ctx.prose_in(80, 2000);
                        reasoning = toks(text.len());
                        part(
                            ctx,
                            &mut parts,
                            &mid,
                            created + 20,
                            format!(
                                r#"{{"type":"reasoning","text":"{text}","time":{{"start":{},"end":{}}}}}"#,
                                created + 20,
                                created + 400
                            ),
                        );
                    }
                    if last || ctx.rng.chance(70) {
                        let text = ctx.prose_in(30, 1500);
                        output += toks(text.len());
                        part(
                            ctx,
                            &mut parts,
                            &mid,
                            created + 500,
                            format!(
                                r#"{{"type":"text","text":"{text}","time":{{"start":{},"end":{}}}}}"#,
                                created + 450,
                                done - 50
                            ),
                        );
                    }
                    let calls = if last { 0 } else { ctx.rng.range(1, 2) };
                    let mut added = 0;
                    for _ in 0..calls {
                        let call = format!("call_{}", ctx.base62(24));
                        let data = if ctx.rng.chance(50) {
                            let cmd = ctx.rng.pick(&[
                                "cargo test",
                                "bun test",
                                "git diff",
                                "ls -la",
                                "go test ./...",
                            ]);
                            let out = ctx.take_out(3, 500).to_string();
                            added += toks(out.len());
                            format!(
                                r#"{{"type":"tool","tool":"bash","callID":"{call}","state":{{"status":"completed","input":{{"command":"{cmd}","description":"Run {cmd}"}},"output":"{out}","metadata":{{"output":"{out}","exit":0,"truncated":false}},"title":"{cmd}","time":{{"start":{},"end":{}}}}}}}"#,
                                done - 900,
                                done - 100
                            )
                        } else {
                            let file = ctx.rng.pick(FILES);
                            let lines = ctx.rng.range(20, 800) as usize;
                            let body = ctx.text.code.take(&mut ctx.rng, lines).to_string();
                            added += toks(body.len());
                            format!(
                                r#"{{"type":"tool","tool":"read","callID":"{call}","state":{{"status":"completed","input":{{"filePath":"{dir}/{file}"}},"output":"<file>\n{body}</file>","metadata":{{"truncated":false}},"title":"{file}","time":{{"start":{},"end":{}}}}}}}"#,
                                done - 900,
                                done - 100
                            )
                        };
                        output += 30;
                        part(ctx, &mut parts, &mid, done - 900, data);
                    }
                    let prompt_toks = context.max(2000);
                    let read = if cached == 0 {
                        0
                    } else {
                        cached.min(prompt_toks)
                    };
                    let write = if writes {
                        prompt_toks - read - ctx.rng.range(0, 5).min(prompt_toks - read)
                    } else {
                        0
                    };
                    let input = prompt_toks - read - write;
                    cached = prompt_toks;
                    context = prompt_toks + output + reasoning + added;
                    let usd = (input as f64 * 3.0
                        + (output + reasoning) as f64 * 15.0
                        + read as f64 * 0.3
                        + write as f64 * 3.75)
                        / 1e6;
                    let tokens = format!(
                        r#""tokens":{{"total":{},"input":{input},"output":{output},"reasoning":{reasoning},"cache":{{"write":{write},"read":{read}}}}}"#,
                        input + output + reasoning + read + write
                    );
                    let finish = if calls > 0 { "tool-calls" } else { "stop" };
                    part(
                        ctx,
                        &mut parts,
                        &mid,
                        done - 20,
                        format!(
                            r#"{{"reason":"{finish}","type":"step-finish",{tokens},"cost":{usd}}}"#
                        ),
                    );
                    ctx.trap("opencode_step_finish_copies", 1);
                    messages.push(Row {
                        id: mid,
                        session: sid.clone(),
                        created,
                        updated: done,
                        data: format!(
                            r#"{head}"cost":{usd},{tokens},"modelID":"{model}","providerID":"{provider}","time":{{"created":{created},"completed":{done}}},"finish":"{finish}"}}"#
                        ),
                    });
                    let tok = Tok {
                        input,
                        output: output + reasoning,
                        cache_read: read,
                        cache_write: write,
                        reasoning,
                    };
                    ctx.billed(done, model, &tok);
                    total.add(&tok);
                    cost += usd;
                }
                t = now + ctx.gap();
            }
            let words = ["kind", "hidden", "playful", "lucky", "brave", "quiet"];
            let nouns = ["meadow", "cabin", "falcon", "knight", "river", "lantern"];
            let slug = format!("{}-{}", ctx.rng.pick(&words), ctx.rng.pick(&nouns));
            let title = ctx.prose_in(20, 60);
            let s = Session {
                id: sid.clone(),
                slug,
                dir: dir.clone(),
                title,
                model: format!(
                    r#"{{"id":"{model}","providerID":"{provider}","variant":"default"}}"#
                ),
                cost,
                tok: total,
                created: start,
                updated: now,
            };
            ctx.end_session(
                &sid,
                ".local/share/opencode/opencode.db",
                &dir,
                json!({ "model": model }),
            );
            Ok((s, messages, parts, now))
        }
    }
}

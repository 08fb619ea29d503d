#!/usr/bin/env python3
"""A scripted model server for the real agent CLIs: one process on 127.0.0.1 that speaks
the four wire APIs they use, each with server-sent events.

  POST /v1/messages                     Anthropic Messages         (Claude Code)
  POST /v1/responses                    OpenAI Responses           (Codex)
  POST /v1/chat/completions             OpenAI Chat Completions    (Qwen Code, OpenCode)
  POST /v1beta/models/M:streamGenerateContent, :generateContent   Gemini (Gemini CLI)

What to answer comes from scenarios.py (marker `SCEN_<NAME>` in the prompt); which tool
names to use comes from the agent, told by its User-Agent. Stdlib only; binds loopback
only; exits by itself after --lifetime seconds. Every request is logged (one JSON line,
without the body) to --log, and a run that reaches a stall is noted there too, which is
how the recorder knows when to kill the CLI.

Token counts are fixed and distinct per response (`numbers`): the n-th response of a run
(the `RUN=` word of the prompt) reports input 1000+10n, cached 200+n, output 70+2n, ...,
and a side request 5000+10n, ..., so that what a CLI writes to its own store can be
matched to the response it came from. Each response is logged too (`"event": "response"`: its id,
the usage objects as sent, normalized), which the recorder turns into `<run>.usage.json`.
"""

import argparse
import itertools
import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, __import__("os").path.dirname(__file__))
import scenarios  # noqa: E402

LOG_LOCK = threading.Lock()
LOG = None
IDS = itertools.count(1)
SEQ = itertools.count(1)  # request numbers, to pair a request's log line with its response's
COUNTS: dict = {}  # (run, side?) -> responses served so far


def next_index(run, side: bool) -> int:
    """n of this response: 1, 2, ... per run, main and side requests counted apart."""
    with LOG_LOCK:
        COUNTS[(run, side)] = COUNTS.get((run, side), 0) + 1
        return COUNTS[(run, side)]


def numbers(n: int, side: bool, thinking: bool) -> dict:
    """The token counts the n-th response of a run reports: fixed, distinct and known, so
    that what a CLI stores can be checked against what the server said. `input` counts
    the whole prompt where the wire API includes cached tokens in it (OpenAI, Gemini),
    the uncached part where it does not (Anthropic); `output` includes `reasoning` where
    the API does (OpenAI), not where it does not (Gemini's candidates)."""
    # Steps of 10, 1 and 2 keep the differences distinct too (input - cached, output -
    # reasoning), which some CLIs store instead of the wire's numbers.
    if side:
        return {"input": 5000 + 10 * n, "cached": 500 + n, "cache_write": 600 + n, "output": 50 + 2 * n,
                "reasoning": 0}
    return {"input": 1000 + 10 * n, "cached": 200 + n, "cache_write": 300 + n, "output": 70 + 2 * n,
            "reasoning": 40 + n if thinking else 0}


def normalized(wire: str, k: dict | None) -> dict | None:
    """One shape for every wire API: input = every prompt token (cached and cache writes
    included), output = every generated token (reasoning included), total = input + output."""
    if k is None:
        return None
    if wire == "anthropic":  # input_tokens excludes cache reads and writes; no reasoning count
        inp, out, cw, reas = k["input"] + k["cached"] + k["cache_write"], k["output"], k["cache_write"], None
    elif wire == "gemini":  # thoughts are not in candidatesTokenCount; no cache writes
        inp, out, cw, reas = k["input"], k["output"] + k["reasoning"], 0, k["reasoning"]
    else:  # responses, chat: prompt includes cached, completion includes reasoning
        inp, out, cw, reas = k["input"], k["output"], 0, k["reasoning"]
    return {"input": inp, "cached": k["cached"], "cache_write": cw, "output": out,
            "reasoning": reas, "total": inp + out}


def log(**entry):
    if LOG:
        with LOG_LOCK:
            LOG.write(json.dumps(entry) + "\n")
            LOG.flush()


def agent_of(user_agent: str) -> str:
    ua = user_agent.lower()
    for needle, agent in [
        ("claude", "claude"),
        ("codex", "codex"),
        ("gemini", "gemini"),
        ("qwen", "qwen"),
        ("opencode", "opencode"),
    ]:
        if needle in ua:
            return agent
    return "unknown"


def tool_call(agent: str, tool: scenarios.Tool, workdir: str, offered: dict, lines: int | None):
    """(name, arguments) of a scripted tool call in the agent's own terms. `offered` maps
    the tool names in the request to their parameter schema (used for parameter names)."""
    arg = tool.arg.format(lines=lines or 20000)
    if tool.kind == "read" and agent == "codex":  # Codex reads files with its shell
        tool = scenarios.Tool("shell", f"cat {arg}")
        arg = tool.arg
    if tool.kind == "shell":
        name = {"claude": "Bash", "codex": "exec_command", "opencode": "bash"}.get(
            agent, "run_shell_command"
        )
        args = {"cmd": arg} if agent == "codex" else {"command": arg}
        if agent == "codex" and tool.outcome == "rejected":  # ask to leave the sandbox
            args.update(sandbox_permissions="require_escalated", justification="Create a file")
        if agent in ("claude", "opencode"):
            args["description"] = "Run " + arg
        return name, args
    name = {"claude": "Read", "opencode": "read"}.get(agent, "read_file")
    path = f"{workdir}/{arg}" if workdir else arg
    props = (offered.get(name) or {}).get("properties") or {}
    key = next((k for k in ("file_path", "absolute_path", "filePath", "path") if k in props), None)
    key = key or {"opencode": "filePath", "qwen": "absolute_path"}.get(agent, "file_path")
    return name, {key: path}


class Reply:
    """One model response, built from a scripted turn; the wire classes render it."""

    def __init__(self, turn, agent, workdir, offered, lines, prefix):
        self.turn = turn
        self.calls = []
        for i, tool in enumerate(turn.tools):
            name, args = tool_call(agent, tool, workdir, offered, lines)
            self.calls.append((f"{prefix}{next(IDS):04}_{i}", name, json.dumps(args)))

    @property
    def text_deltas(self):
        t = self.turn
        return t.text[: t.stall_after] if t.stall_after is not None else t.text


def pieces(s: str, n: int = 3) -> list[str]:
    """Split tool-call arguments into a few chunks, as real servers stream them."""
    step = max(1, len(s) // n)
    return [s[i : i + step] for i in range(0, len(s), step)]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-model/1"

    def log_message(self, *a):  # the JSON log says enough
        pass

    # ---- plumbing -------------------------------------------------------------------

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return json.loads(raw or b"{}")
        except ValueError:
            return {}

    def request_id_header(self):
        """As the real APIs: Anthropic's `request-id` (Claude Code stores it as `requestId`),
        OpenAI's `x-request-id`; Gemini's API sends none."""
        name = {"anthropic": "request-id", "responses": "x-request-id", "chat": "x-request-id"}.get(
            getattr(self, "wire", None))
        if name and getattr(self, "request_id", None):
            self.send_header(name, self.request_id)

    def send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.request_id_header()
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def start_sse(self):
        self.send_response(200)
        self.request_id_header()
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()

    def chunk(self, data: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def end_sse(self):
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def stall(self, agent, scen):
        """Go silent mid-stream until the client goes away (or a bounded time passes)."""
        log(event="stall", agent=agent, scenario=scen.name, run=self.run_id, t=time.time())
        deadline = time.time() + self.server.stall_seconds
        while time.time() < deadline:
            time.sleep(0.5)
            try:  # an empty write is not possible in chunked encoding: probe with a comment
                self.chunk(b": still here\n\n")
            except OSError:
                return
        self.close_connection = True

    # ---- routing --------------------------------------------------------------------

    def do_GET(self):
        self.send_json(200, {"object": "list", "data": []})

    def do_POST(self):
        req = self.body()
        agent = agent_of(self.headers.get("user-agent", ""))
        path = self.path.split("?")[0]
        wire = (
            "anthropic"
            if path.endswith("/messages")
            else "responses"
            if path.endswith("/responses")
            else "chat"
            if path.endswith("/chat/completions")
            else "gemini"
            if ":streamGenerateContent" in path or ":generateContent" in path
            else None
        )
        if wire is None:
            log(path=self.path, agent=agent, answer="404")
            return self.send_json(404, {"error": {"message": "not found (mock)"}})
        prompt, results, side, offered = getattr(self, "read_" + wire)(req)
        scen, lines = scenarios.find(prompt)
        # The last of each: a resumed session holds the first invocation's prompt too.
        m = re.findall(r"WORKDIR=([^\s\"']+)", prompt)  # OpenCode quotes the prompt
        workdir = m[-1] if m else ""
        m = re.findall(r"RUN=([^\s\"']+)", prompt)
        self.run_id = m[-1] if m else None
        side = side or scen is None
        seq, t0 = next(SEQ), time.time()
        self.wire, self.request_id = wire, f"req_mock{seq:04}"
        self.sent, self.final, self.response_id, self.tokens = {}, False, None, None
        status, n = 200, None
        try:
            if side:
                log(path=self.path, agent=agent, run=self.run_id, side=True, seq=seq, t=t0)
                turn = scenarios.Turn(text=[scenarios.SIDE_ANSWER])
                n = next_index(self.run_id, True)
                self.tokens = numbers(n, True, False)
                return getattr(self, "send_" + wire)(
                    req, Reply(turn, agent, workdir, offered, lines, "call_"), agent, None
                )
            turn = scenarios.turn_for(scen, results)
            log(path=self.path, agent=agent, run=self.run_id, scenario=scen.name, tool_results=results,
                http_error=turn.http_error, seq=seq, t=t0)
            if turn.http_error:
                status = turn.http_error
                return self.send_json(turn.http_error, self.error_body(wire, turn.http_error))
            n = next_index(self.run_id, False)
            self.tokens = numbers(n, False, bool(turn.thinking))
            prefix = {"anthropic": "toolu_mock", "responses": "call_mock"}.get(wire, "call_mock")
            reply = Reply(turn, agent, workdir, offered, lines, prefix)
            try:
                getattr(self, "send_" + wire)(req, reply, agent, scen)
            except OSError:  # the CLI went away (killed): nothing to do
                self.close_connection = True
                return
            if reply.calls:  # the recorder kills `midtool` runs once their tool runs
                log(event="tools", agent=agent, scenario=scen.name, run=self.run_id, t=time.time())
        finally:
            # What this response reported, for the run's `.usage.json`: the usage objects as
            # they went on the wire (keyed by where they were sent), and the same numbers
            # normalized, once the final usage was sent.
            log(event="response", seq=seq, run=self.run_id, agent=agent, wire=wire, path=path,
                side=side, n=n, status=status, id=self.response_id,
                request_id=self.request_id if wire != "gemini" else None, usage=self.sent or None,
                final=self.final, normalized=normalized(wire, self.tokens) if self.final else None,
                t0=t0, t=time.time())

    def error_body(self, wire, status):
        message = {500: "Internal server error (mock)", 400: "Bad request (mock)"}.get(
            status, "Error (mock)"
        )
        if wire == "anthropic":
            kind = {500: "api_error", 400: "invalid_request_error", 529: "overloaded_error"}
            return {"type": "error", "error": {"type": kind.get(status, "api_error"), "message": message}}
        if wire == "gemini":
            st = {500: "INTERNAL", 400: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED"}
            return {"error": {"code": status, "message": message, "status": st.get(status, "UNKNOWN")}}
        kind = "server_error" if status >= 500 else "invalid_request_error"
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    # ---- reading requests: (prompt text, tool results so far, side request?, tools) --

    def read_anthropic(self, req):
        texts, results = [], 0
        for msg in req.get("messages", []):
            content = msg.get("content")
            if isinstance(content, str):
                texts.append(content)
                results = 0 if "SCEN_" in content else results
                continue
            for block in content or []:
                if block.get("type") == "text":
                    texts.append(block.get("text", ""))
                    results = 0 if "SCEN_" in block.get("text", "") else results
                elif block.get("type") == "tool_result":
                    results += 1
        offered = {t.get("name"): t.get("input_schema") for t in req.get("tools") or []}
        return "\n".join(texts), results, not req.get("tools"), offered

    def read_responses(self, req):
        texts, results = [], 0
        for item in req.get("input") or []:
            if item.get("type", "message") == "message" and item.get("role") == "user":
                content = item.get("content")
                new = [content] if isinstance(content, str) else [c.get("text", "") for c in content or []]
                texts += new
                if any("SCEN_" in x for x in new):  # a prompt: count the results after it
                    results = 0
            elif item.get("type", "").endswith("_call_output"):
                results += 1
        offered = {t.get("name"): t.get("parameters") for t in req.get("tools") or []}
        return "\n".join(texts), results, not req.get("tools"), offered

    def read_chat(self, req):
        texts, results, system = [], 0, ""
        for msg in req.get("messages", []):
            content = msg.get("content")
            if isinstance(content, list):
                content = "\n".join(c.get("text", "") for c in content if isinstance(c, dict))
            if msg.get("role") == "user":
                texts.append(content or "")
                results = 0 if "SCEN_" in (content or "") else results
            elif msg.get("role") == "system":
                system += content or ""
            elif msg.get("role") == "tool":
                results += 1
        offered = {
            t["function"].get("name"): t["function"].get("parameters")
            for t in req.get("tools") or []
            if "function" in t
        }
        # Qwen's memory extraction carries tools of its own; OpenCode's title request none.
        side = not req.get("tools") or "memory extraction" in system
        return "\n".join(texts), results, side, offered

    def read_gemini(self, req):
        texts, results = [], 0
        for content in req.get("contents", []):
            for part in content.get("parts", []):
                if "text" in part and content.get("role") == "user":
                    texts.append(part["text"])
                    results = 0 if "SCEN_" in part["text"] else results
                if "functionResponse" in part:
                    results += 1
        offered = {}
        for t in req.get("tools") or []:
            for f in t.get("functionDeclarations") or []:
                offered[f.get("name")] = f.get("parametersJsonSchema") or f.get("parameters")
        gen = req.get("generationConfig") or {}
        # The model router asks for JSON: a side request whatever the prompt says.
        side = ":generateContent" in self.path or "responseJsonSchema" in gen
        return "\n".join(texts), results, side, offered

    # ---- Anthropic Messages -----------------------------------------------------------

    def send_anthropic(self, req, reply, agent, scen):
        k = self.tokens
        self.response_id = f"msg_mock{next(IDS):04}"
        start_usage = {"input_tokens": k["input"], "cache_creation_input_tokens": k["cache_write"],
                       "cache_read_input_tokens": k["cached"], "output_tokens": 1}
        if not req.get("stream"):
            text = "".join(reply.turn.text)
            usage = {**start_usage, "output_tokens": k["output"]}
            self.sent["body"], self.final = usage, True
            return self.send_json(200, {
                "id": self.response_id, "type": "message", "role": "assistant",
                "model": req.get("model"), "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn", "stop_sequence": None, "usage": usage,
            })
        self.start_sse()

        def ev(kind, obj):
            obj = {"type": kind, **obj}
            self.chunk(f"event: {kind}\ndata: {json.dumps(obj)}\n\n".encode())

        t = reply.turn
        # as the real API: message_start has the input counts and a placeholder output of 1,
        # message_delta the final output count
        ev("message_start", {"message": {
            "id": self.response_id, "type": "message", "role": "assistant",
            "model": req.get("model"), "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": start_usage}})
        self.sent["message_start"] = start_usage
        ev("ping", {})
        index = 0
        if t.thinking:
            ev("content_block_start", {"index": index, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
            for d in t.thinking:
                time.sleep(t.delay)
                ev("content_block_delta", {"index": index, "delta": {"type": "thinking_delta", "thinking": d}})
            ev("content_block_delta", {"index": index, "delta": {"type": "signature_delta", "signature": "bW9jay1zaWduYXR1cmU="}})
            ev("content_block_stop", {"index": index})
            index += 1
        if t.text:
            ev("content_block_start", {"index": index, "content_block": {"type": "text", "text": ""}})
            for d in reply.text_deltas:
                time.sleep(t.delay)
                ev("content_block_delta", {"index": index, "delta": {"type": "text_delta", "text": d}})
            if t.stall_after is not None:
                return self.stall(agent, scen)
            ev("content_block_stop", {"index": index})
            index += 1
        for call_id, name, args in reply.calls:
            ev("content_block_start", {"index": index, "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}})
            for p in pieces(args):
                time.sleep(t.delay)
                ev("content_block_delta", {"index": index, "delta": {"type": "input_json_delta", "partial_json": p}})
            ev("content_block_stop", {"index": index})
            index += 1
        delta_usage = {"output_tokens": k["output"]}
        ev("message_delta", {"delta": {"stop_reason": "tool_use" if reply.calls else "end_turn", "stop_sequence": None},
                             "usage": delta_usage})
        self.sent["message_delta"], self.final = delta_usage, True
        ev("message_stop", {})
        self.end_sse()

    # ---- OpenAI Responses -------------------------------------------------------------

    def send_responses(self, req, reply, agent, scen):
        self.start_sse()
        seq = itertools.count()
        t = reply.turn
        rid = self.response_id = f"resp_mock{next(IDS):04}"
        k = self.tokens
        base = {"id": rid, "object": "response", "created_at": int(time.time()),
                "model": req.get("model"), "output": []}

        def ev(kind, obj):
            obj = {"type": kind, "sequence_number": next(seq), **obj}
            self.chunk(f"event: {kind}\ndata: {json.dumps(obj)}\n\n".encode())

        ev("response.created", {"response": {**base, "status": "in_progress"}})
        ev("response.in_progress", {"response": {**base, "status": "in_progress"}})
        output = []
        if t.thinking:
            i, iid = len(output), f"rs_mock{next(IDS):04}"
            ev("response.output_item.added", {"output_index": i, "item": {"id": iid, "type": "reasoning", "summary": []}})
            part = {"item_id": iid, "output_index": i, "summary_index": 0}
            ev("response.reasoning_summary_part.added", {**part, "part": {"type": "summary_text", "text": ""}})
            for d in t.thinking:
                time.sleep(t.delay)
                ev("response.reasoning_summary_text.delta", {**part, "delta": d})
            text = "".join(t.thinking)
            ev("response.reasoning_summary_text.done", {**part, "text": text})
            ev("response.reasoning_summary_part.done", {**part, "part": {"type": "summary_text", "text": text}})
            item = {"id": iid, "type": "reasoning", "summary": [{"type": "summary_text", "text": text}],
                    "encrypted_content": "bW9jay1yZWFzb25pbmc="}
            ev("response.output_item.done", {"output_index": i, "item": item})
            output.append(item)
        if t.text:
            i, iid = len(output), f"msg_mock{next(IDS):04}"
            ev("response.output_item.added", {"output_index": i, "item": {
                "id": iid, "type": "message", "status": "in_progress", "role": "assistant", "content": []}})
            part = {"item_id": iid, "output_index": i, "content_index": 0}
            ev("response.content_part.added", {**part, "part": {"type": "output_text", "text": "", "annotations": []}})
            for d in reply.text_deltas:
                time.sleep(t.delay)
                ev("response.output_text.delta", {**part, "delta": d})
            if t.stall_after is not None:
                return self.stall(agent, scen)
            text = "".join(t.text)
            ev("response.output_text.done", {**part, "text": text})
            done_part = {"type": "output_text", "text": text, "annotations": []}
            ev("response.content_part.done", {**part, "part": done_part})
            item = {"id": iid, "type": "message", "status": "completed", "role": "assistant", "content": [done_part]}
            ev("response.output_item.done", {"output_index": i, "item": item})
            output.append(item)
        for call_id, name, args in reply.calls:
            i, iid = len(output), f"fc_mock{next(IDS):04}"
            item = {"id": iid, "type": "function_call", "status": "in_progress", "call_id": call_id, "name": name, "arguments": ""}
            ev("response.output_item.added", {"output_index": i, "item": item})
            for p in pieces(args):
                time.sleep(t.delay)
                ev("response.function_call_arguments.delta", {"item_id": iid, "output_index": i, "delta": p})
            ev("response.function_call_arguments.done", {"item_id": iid, "output_index": i, "arguments": args})
            item = {**item, "status": "completed", "arguments": args}
            ev("response.output_item.done", {"output_index": i, "item": item})
            output.append(item)
        usage = {"input_tokens": k["input"], "input_tokens_details": {"cached_tokens": k["cached"]},
                 "output_tokens": k["output"], "output_tokens_details": {"reasoning_tokens": k["reasoning"]},
                 "total_tokens": k["input"] + k["output"]}
        ev("response.completed", {"response": {**base, "status": "completed", "output": output, "usage": usage}})
        self.sent["response.completed"], self.final = usage, True
        self.end_sse()

    # ---- OpenAI Chat Completions ------------------------------------------------------

    def send_chat(self, req, reply, agent, scen):
        t = reply.turn
        cid, created, model = f"chatcmpl-mock{next(IDS):04}", int(time.time()), req.get("model")
        self.response_id, k = cid, self.tokens
        usage = {"prompt_tokens": k["input"], "completion_tokens": k["output"],
                 "total_tokens": k["input"] + k["output"],
                 "prompt_tokens_details": {"cached_tokens": k["cached"]},
                 "completion_tokens_details": {"reasoning_tokens": k["reasoning"]}}
        if not req.get("stream"):
            self.sent["body"], self.final = usage, True
            return self.send_json(200, {
                "id": cid, "object": "chat.completion", "created": created, "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": "".join(t.text)},
                             "finish_reason": "stop"}], "usage": usage})
        self.start_sse()

        def ev(delta=None, finish=None, **extra):
            obj = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                   "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}
            self.chunk(f"data: {json.dumps(obj)}\n\n".encode())

        ev({"role": "assistant", "content": ""})
        for d in t.thinking:
            time.sleep(t.delay)
            ev({"reasoning_content": d})
        for d in reply.text_deltas:
            time.sleep(t.delay)
            ev({"content": d})
        if t.stall_after is not None:
            return self.stall(agent, scen)
        for n, (call_id, name, args) in enumerate(reply.calls):
            ev({"tool_calls": [{"index": n, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]})
            for p in pieces(args):
                time.sleep(t.delay)
                ev({"tool_calls": [{"index": n, "function": {"arguments": p}}]})
        ev({}, "tool_calls" if reply.calls else "stop")
        ev(None, usage=usage)
        self.sent["chunk"], self.final = usage, True
        self.chunk(b"data: [DONE]\n\n")
        self.end_sse()

    # ---- Gemini -----------------------------------------------------------------------

    def send_gemini(self, req, reply, agent, scen):
        t = reply.turn
        model = self.path.split("/models/")[-1].split(":")[0]
        rid = self.response_id = f"mock-response-{next(IDS):04}"
        k = self.tokens
        # the prompt count includes the cached tokens; thoughts are not in the candidates
        final_usage = {"promptTokenCount": k["input"], "candidatesTokenCount": k["output"],
                       "cachedContentTokenCount": k["cached"],
                       "totalTokenCount": k["input"] + k["output"] + k["reasoning"]}
        if k["reasoning"]:
            final_usage["thoughtsTokenCount"] = k["reasoning"]
        gen = req.get("generationConfig") or {}
        if ":generateContent" in self.path or "responseJsonSchema" in gen:
            # The model router: steer it to "pro", whatever the schema asks.
            props = (gen.get("responseJsonSchema") or {}).get("properties") or {}
            answer = {}
            for k, v in props.items():
                typ = str(v.get("type", "")).lower()
                answer[k] = 90 if typ == "integer" else "pro" if "choice" in k else "mock reasoning"
            body = {"candidates": [{"content": {"parts": [{"text": json.dumps(answer)}], "role": "model"},
                                    "finishReason": "STOP", "index": 0}],
                    "usageMetadata": final_usage, "modelVersion": model, "responseId": rid}
            self.sent["body" if ":generateContent" in self.path else "final_chunk"] = final_usage
            self.final = True
            if ":generateContent" in self.path:
                return self.send_json(200, body)
            self.start_sse()
            self.chunk(f"data: {json.dumps(body)}\r\n\r\n".encode())
            return self.end_sse()
        self.start_sse()

        def ev(parts, final=False):
            cand = {"content": {"parts": parts, "role": "model"}, "index": 0}
            # the earlier chunks carry the prompt count only, the last one everything
            usage = {"promptTokenCount": k["input"], "totalTokenCount": k["input"]}
            if final:
                cand["finishReason"] = "STOP"
                usage = final_usage
                self.sent["final_chunk"], self.final = usage, True
            else:
                self.sent.setdefault("chunks", usage)
            obj = {"candidates": [cand], "usageMetadata": usage, "modelVersion": model, "responseId": rid}
            self.chunk(f"data: {json.dumps(obj)}\r\n\r\n".encode())

        for d in t.thinking:
            time.sleep(t.delay)
            ev([{"text": d, "thought": True}])
        deltas = reply.text_deltas
        for n, d in enumerate(deltas):
            time.sleep(t.delay)
            last = n == len(deltas) - 1 and not reply.calls and t.stall_after is None
            ev([{"text": d}], final=last)
        if t.stall_after is not None:
            return self.stall(agent, scen)
        if reply.calls:
            time.sleep(t.delay)
            ev([{"functionCall": {"name": name, "args": json.loads(args)}} for _, name, args in reply.calls], final=True)
        elif not deltas:
            ev([{"text": ""}], final=True)
        self.end_sse()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port", type=int, default=8765)
    ap.add_argument("--log", help="append one JSON line per request here")
    ap.add_argument("--lifetime", type=float, default=1800, help="exit after this many seconds")
    ap.add_argument("--stall-seconds", type=float, default=300, help="longest silence of a stall")
    ap.add_argument("--ready", help="write this file once listening")
    a = ap.parse_args()
    global LOG
    LOG = open(a.log, "a") if a.log else None
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    server.daemon_threads = True
    server.stall_seconds = a.stall_seconds
    threading.Timer(a.lifetime, server.shutdown).start()
    if a.ready:
        open(a.ready, "w").write(str(server.server_address[1]))
    server.serve_forever()


if __name__ == "__main__":
    main()

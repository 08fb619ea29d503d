#!/usr/bin/env python3
"""Recounts a fake HOME written by `cargo run --example generate -- --home DIR` from its
files alone, with the counting rules of `EXPECTED.json` (see `examples/generate.rs`, module
`home`), and compares with `DIR/EXPECTED.json`: a check of the generator, and a reference
reader for the tests.

    scripts/check-home.py DIR            # exit status 1 on a difference
    scripts/check-home.py DIR --print    # and the recount, as JSON

Python 3 standard library; the `zstd` command for `.jsonl.zst` rollouts.
"""

import json
import os
import sqlite3
import subprocess
import sys
from collections import defaultdict
from datetime import datetime, timedelta, timezone


def day(ts):
    """The UTC day of an ISO time or of epoch milliseconds."""
    if isinstance(ts, (int, float)):
        return datetime.fromtimestamp(ts / 1000, timezone.utc).strftime("%Y-%m-%d")
    return ts[:10]


def lines(path):
    """A file's records; a line that does not parse (the cut one) is left out."""
    if path.endswith(".zst"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        with open(path, "rb") as f:
            data = f.read()
    out = []
    for raw in data.split(b"\n"):
        if not raw:
            continue
        try:
            out.append(json.loads(raw))
        except ValueError:
            out.append(None)
    return out


KINDS = ("input", "output", "cache_read", "cache_write", "reasoning", "total")


class Count:
    def __init__(self):
        self.files = 0
        self.sessions = 0
        self.runs = 0
        self.failed_runs = 0
        self.unfinished_runs = 0
        self.responses = 0
        self.tokens = defaultdict(int)
        self.days = defaultdict(lambda: {"runs": 0, "failed_runs": 0, "responses": 0,
                                         "tokens": defaultdict(int)})

    def run(self, ts):
        self.runs += 1
        self.days[day(ts)]["runs"] += 1

    def failed(self, ts):
        self.failed_runs += 1
        self.days[day(ts)]["failed_runs"] += 1

    def billed(self, ts, inp, out, read, write, reasoning):
        t = {"input": inp, "output": out, "cache_read": read, "cache_write": write,
             "reasoning": reasoning}
        t["total"] = inp + out + read + write
        self.responses += 1
        d = self.days[day(ts)]
        d["responses"] += 1
        for k, v in t.items():
            self.tokens[k] += v
            d["tokens"][k] += v

    def json(self):
        def tokens(t):
            return {k: t.get(k, 0) for k in KINDS}

        return {
            "files": self.files, "sessions": self.sessions, "runs": self.runs,
            "failed_runs": self.failed_runs, "unfinished_runs": self.unfinished_runs,
            "responses": self.responses, "tokens": tokens(self.tokens),
            "days": {d: {"runs": v["runs"], "failed_runs": v["failed_runs"],
                         "responses": v["responses"], "tokens": tokens(v["tokens"])}
                     for d, v in sorted(self.days.items())},
        }


def walk(root, keep):
    for base, _, files in os.walk(root):
        for f in sorted(files):
            p = os.path.join(base, f)
            if keep(p):
                yield p


def claude(home):
    c = Count()
    root = os.path.join(home, ".claude", "projects")
    paths = list(walk(root, lambda p: p.endswith(".jsonl")))
    recs = {p: lines(p) for p in paths}
    for p in paths:
        c.files += 1
        if "/subagents/" not in p:
            c.sessions += 1
        if recs[p] and recs[p][-1] is None:
            c.unfinished_runs += 1
    # Message ids the main conversations answered: a sidechain line with one is a replay.
    main_ids = set()
    for p in paths:
        for r in recs[p]:
            if r and r.get("type") == "assistant" and not r.get("isSidechain"):
                main_ids.add(r["message"].get("id"))
    seen, prompts, errors = set(), set(), set()
    for p in paths:
        for r in recs[p]:
            if not r:
                continue
            if r.get("type") == "user" and not r.get("isSidechain") \
                    and isinstance(r["message"].get("content"), str):
                if r["uuid"] not in prompts:
                    prompts.add(r["uuid"])
                    c.run(r["timestamp"])
            if r.get("type") != "assistant" or "usage" not in r.get("message", {}):
                continue
            m = r["message"]
            if r.get("isApiErrorMessage"):
                if r["uuid"] not in errors:
                    errors.add(r["uuid"])
                    c.failed(r["timestamp"])
                continue
            if r.get("isSidechain") and m["id"] in main_ids:
                continue
            key = (m["id"], r.get("requestId"))
            if key in seen:
                continue
            seen.add(key)
            u = m["usage"]
            c.billed(r["timestamp"], u["input_tokens"], u["output_tokens"],
                     u["cache_read_input_tokens"], u["cache_creation_input_tokens"],
                     (u.get("output_tokens_details") or {}).get("thinking_tokens", 0))
    return c


def codex(home):
    c = Count()
    root = os.path.join(home, ".codex")
    paths = [p for sub in ("sessions", "archived_sessions")
             for p in walk(os.path.join(root, sub),
                           lambda p: os.path.basename(p).startswith("rollout-"))]
    for p in paths:
        c.files += 1
        c.sessions += 1
        recs = lines(p)
        if recs and recs[-1] is None:
            c.unfinished_runs += 1
        recs = [r for r in recs if r]
        own = recs[0]["payload"]["id"]
        forked = "forked_from_id" in recs[0]["payload"]
        # A fork's replay: up to its own thread_settings_applied.
        start = 1
        if forked:
            start = next(i for i, r in enumerate(recs)
                         if r["type"] == "event_msg"
                         and r["payload"].get("type") == "thread_settings_applied"
                         and r["payload"].get("thread_id") == own)
        prev = None
        for r in recs[1:start]:
            if r["type"] == "event_msg" and r["payload"].get("type") == "token_count":
                prev = r["payload"]["info"]["total_token_usage"]
        run_ts = None
        for r in recs[start:]:
            pl = r.get("payload", {})
            if r["type"] != "event_msg":
                continue
            if pl.get("type") == "item_completed" and pl["item"]["type"] == "UserMessage":
                run_ts = r["timestamp"]
                c.run(run_ts)
            elif pl.get("type") == "task_complete" and pl.get("error"):
                c.failed(run_ts)
            elif pl.get("type") == "token_count" and pl.get("info"):
                tot = pl["info"]["total_token_usage"]
                if tot == prev:
                    continue
                d = {k: tot[k] - (prev[k] if prev else 0) for k in tot}
                prev = tot
                c.billed(r["timestamp"], d["input_tokens"] - d["cached_input_tokens"],
                         d["output_tokens"], d["cached_input_tokens"],
                         d["cache_write_input_tokens"], d["reasoning_output_tokens"])
    return c


def gemini(home):
    c = Count()
    root = os.path.join(home, ".gemini")
    if not os.path.isdir(root):
        return c
    for p in walk(root, lambda p: True):
        c.files += 1
    for p in walk(os.path.join(root, "tmp"), lambda p: "/chats/session-" in p):
        c.sessions += 1
        recs = lines(p)
        if recs and recs[-1] is None:
            c.unfinished_runs += 1
        last = {}
        prompt_ts, answered, pending = None, False, False
        for r in recs:
            if r is None:
                pending = False
                continue
            if r.get("type") == "user" and r["content"] and "text" in r["content"][0]:
                if pending and not answered:
                    c.failed(prompt_ts)
                prompt_ts, answered, pending = r["timestamp"], False, True
                c.run(prompt_ts)
            elif r.get("type") == "gemini" and "tokens" in r:
                answered = True
                last[r["id"]] = r
        if pending and not answered:
            c.failed(prompt_ts)
        for r in last.values():
            t = r["tokens"]
            c.billed(r["timestamp"], t["input"] - t["cached"], t["output"] + t["thoughts"],
                     t["cached"], 0, t["thoughts"])
    return c


def qwen(home):
    c = Count()
    root = os.path.join(home, ".qwen")
    if not os.path.isdir(root):
        return c
    for p in walk(root, lambda p: True):
        c.files += 1
    for p in walk(os.path.join(root, "projects"), lambda p: "/chats/" in p):
        c.sessions += 1
        recs = lines(p)
        if recs and recs[-1] is None:
            c.unfinished_runs += 1
        run_ts, billed, errors = None, 0, 0

        def close():
            if run_ts and billed == 0 and errors:
                c.failed(run_ts)

        for r in recs:
            if not r:
                continue
            if r["type"] == "user" and r.get("provenance") == "real_user":
                close()
                run_ts, billed, errors = r["timestamp"], 0, 0
                c.run(run_ts)
            elif r.get("subtype") == "ui_telemetry":
                e = r["systemPayload"]["uiEvent"]
                if e["event.name"] == "qwen-code.api_response":
                    billed += 1
                    cached = e["cached_content_token_count"]
                    c.billed(r["timestamp"], e["input_token_count"] - cached,
                             e["output_token_count"], cached, 0, e["thoughts_token_count"])
                elif e["event.name"] == "qwen-code.api_error":
                    errors += 1
        close()
    return c


def cursor(home):
    c = Count()
    root = os.path.join(home, ".cursor", "projects")
    for p in walk(root, lambda p: p.endswith(".jsonl")):
        c.files += 1
        if "/subagents/" in p:
            continue
        c.sessions += 1
        recs = lines(p)
        if recs and recs[-1] is None:
            c.unfinished_runs += 1
        ts = None
        for r in recs:
            if not r:
                continue
            if r.get("role") == "user":
                text = r["message"]["content"][0]["text"]
                stamp = text[len("<timestamp>"):text.index("</timestamp>")]
                local, off = stamp.rsplit(" (UTC", 1)
                t = datetime.strptime(local, "%A, %b %d, %Y, %I:%M %p")
                t = t - timedelta(hours=int(off.rstrip(")")))
                ts = t.strftime("%Y-%m-%d")
                c.run(ts)
            elif r.get("type") == "turn_ended" and r.get("status") == "error":
                c.failed(ts)
    return c


def opencode(home):
    c = Count()
    path = os.path.join(home, ".local", "share", "opencode", "opencode.db")
    if not os.path.exists(path):
        return c
    c.files = 1
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    c.sessions = db.execute("SELECT count(*) FROM session").fetchone()[0]
    for created, data in db.execute("SELECT time_created, data FROM message ORDER BY time_created, id"):
        m = json.loads(data)
        if m["role"] == "user":
            c.run(created)
        elif m.get("error"):
            c.failed(created)
        else:
            t = m["tokens"]
            c.billed(m["time"]["completed"], t["input"], t["output"] + t["reasoning"],
                     t["cache"]["read"], t["cache"]["write"], t["reasoning"])
    return c


def compare(path, want, got, errors):
    if isinstance(want, dict):
        for k, v in want.items():
            if k in ("bytes", "models", "traps", "trap_tokens", "session_list"):
                continue
            compare(f"{path}.{k}", v, (got or {}).get(k), errors)
        for k in (got or {}):
            if k not in want:
                errors.append(f"{path}.{k}: not expected, counted {got[k]}")
    elif want != got:
        errors.append(f"{path}: expected {want}, counted {got}")


def main():
    home = sys.argv[1]
    with open(os.path.join(home, "EXPECTED.json")) as f:
        expected = json.load(f)
    readers = {"claude": claude, "codex": codex, "gemini": gemini, "qwen": qwen,
               "cursor": cursor, "opencode": opencode}
    errors, recount = [], {}
    for agent, want in expected["agents"].items():
        got = readers[agent](home).json()
        recount[agent] = got
        compare(agent, want, got, errors)
    if "--print" in sys.argv:
        print(json.dumps(recount, indent=1))
    for e in errors[:50]:
        print(e)
    if errors:
        print(f"{len(errors)} differences")
        sys.exit(1)
    print("EXPECTED.json matches the files:",
          ", ".join(f"{a} {v['responses']} responses, {v['runs']} runs"
                    for a, v in recount.items()))


if __name__ == "__main__":
    main()

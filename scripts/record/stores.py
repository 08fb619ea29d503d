#!/usr/bin/env python3
"""Check each recorded store (`<run>.store/`) against what the model server reported for
the run (`<run>.usage.json`): a plain reading of each agent's store, per the rules that
tests/fixtures/recorded/STORES.md describes, not cursor-stream. For every response the
mock sent with its final usage, the store must hold that response's numbers, mapped as
the agent maps them; a response the agent leaves out (a side request, a killed step) is
listed as such. A resume's second store holds both invocations: it is checked against
both usage files.

usage: stores.py [DIR] [--extra DIR]   (default tests/fixtures/recorded; --extra: the
       stores kept out of the repo, target/e2e/stores)
"""

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile


def walk(root):
    for d, _, files in os.walk(root):
        for f in sorted(files):
            yield os.path.join(d, f)


def jsonl(path):
    with open(path, "rb") as f:
        for raw in f:
            if raw.strip():
                yield json.loads(raw)


def usage_of(base_dir, stem):
    """The main responses with a final usage, and the side ones, of the invocation(s) whose
    store this is (a resume's `.2` store holds `.1` too)."""
    stems = [stem]
    if stem.endswith(".2"):
        stems = [stem[:-2] + ".1", stem]
    main, side, other = [], [], []
    for s in stems:
        doc = json.load(open(os.path.join(base_dir, s + ".usage.json")))
        for r in doc["responses"]:
            if r["side"]:
                side.append(r)
            elif r["final"]:
                main.append(r)
            else:
                other.append(r)
    return main, side, other


# ---- per agent: [(key, {field: number})] as stored, and the same from the wire -------


def claude(store):
    got, lines = {}, {}
    for path in walk(store):
        if not path.endswith(".jsonl"):
            continue
        for ev in jsonl(path):
            if ev.get("type") != "assistant" or ev["message"].get("model") == "<synthetic>":
                continue
            m = ev["message"]
            u = m["usage"]
            rec = {"input_tokens": u["input_tokens"], "cache_creation_input_tokens": u["cache_creation_input_tokens"],
                   "cache_read_input_tokens": u["cache_read_input_tokens"], "output_tokens": u["output_tokens"],
                   "requestId": ev.get("requestId")}
            key = m["id"]
            lines[key] = lines.get(key, 0) + 1
            if key in got and got[key] != rec:
                raise AssertionError(f"{key}: lines of one message disagree: {got[key]} / {rec}")
            got[key] = rec
    notes = [f"{k} on {n} lines" for k, n in lines.items() if n > 1]
    return got, notes


def claude_wire(r):
    start, delta = r["usage"]["message_start"], r["usage"]["message_delta"]
    return r["id"], {"input_tokens": start["input_tokens"],
                     "cache_creation_input_tokens": start["cache_creation_input_tokens"],
                     "cache_read_input_tokens": start["cache_read_input_tokens"],
                     "output_tokens": delta["output_tokens"], "requestId": r["request_id"]}


def codex(store):
    got, notes = {}, []
    for path in walk(store):
        for ev in jsonl(path):
            if ev.get("type") == "token_usage_record":
                p = ev["payload"]
                got[p["response_id"]] = {k: p["usage"][k] for k in (
                    "input_tokens", "cached_input_tokens", "output_tokens", "reasoning_output_tokens", "total_tokens")}
            elif ev.get("type") == "event_msg" and ev["payload"].get("type") == "token_count":
                info = ev["payload"].get("info") or {}
                notes.append(f"token_count total {info.get('total_token_usage', {}).get('total_tokens')}")
    return got, notes[-1:]


def codex_wire(r):
    u = r["usage"]["response.completed"]
    return r["id"], {"input_tokens": u["input_tokens"], "cached_input_tokens": u["input_tokens_details"]["cached_tokens"],
                     "output_tokens": u["output_tokens"],
                     "reasoning_output_tokens": u["output_tokens_details"]["reasoning_tokens"],
                     "total_tokens": u["total_tokens"]}


def gemini(store):
    """`gemini` messages, last record per id, in the order of their first record; Gemini
    keeps no response id, so they are paired with the responses by position."""
    order, last = [], {}
    for path in walk(store):
        if not path.endswith(".jsonl"):
            continue
        for ev in jsonl(path):
            if ev.get("type") == "gemini":
                if ev["id"] not in last:
                    order.append(ev["id"])
                last[ev["id"]] = ev
    got = {}
    for i, mid in enumerate(order):
        t = last[mid].get("tokens") or {}
        got[f"#{i + 1}"] = {k: t.get(k) for k in ("input", "output", "cached", "thoughts", "total")}
    return got, []


def gemini_wire(r, i):
    u = r["usage"]["final_chunk"]
    return f"#{i + 1}", {"input": u["promptTokenCount"], "output": u["candidatesTokenCount"],
                         "cached": u.get("cachedContentTokenCount", 0), "thoughts": u.get("thoughtsTokenCount", 0),
                         "total": u["totalTokenCount"]}


def qwen(store):
    """`assistant` records' usageMetadata, keyed by the response id of the
    `qwen-code.api_response` telemetry record that precedes each; side requests appear
    only as telemetry."""
    got, notes, pending = {}, [], None
    for path in walk(store):
        if "/chats/" in path:
            for ev in jsonl(path):
                ui = ((ev.get("systemPayload") or {}).get("uiEvent") or {})
                if ui.get("event.name") == "qwen-code.api_response":
                    if ui.get("subagent_name"):
                        notes.append(f"side {ui['response_id']} in telemetry only: "
                                     f"in {ui['input_token_count']} out {ui['output_token_count']}")
                    else:
                        pending = ui["response_id"]
                elif ev.get("type") == "assistant" and ev.get("usageMetadata"):
                    u = ev["usageMetadata"]
                    got[pending] = {k: u.get(k) for k in ("promptTokenCount", "candidatesTokenCount",
                                                          "thoughtsTokenCount", "cachedContentTokenCount",
                                                          "totalTokenCount")}
        elif path.endswith("usage_record.jsonl"):
            recs = list(jsonl(path))
            m = recs[-1]["models"]
            notes.append(f"usage_record: {len(recs)} line(s), last "
                         + ", ".join(f"{k} in {v['inputTokens']} out {v['outputTokens']} total {v['totalTokens']}"
                                     for k, v in m.items()))
    return got, notes


def qwen_wire(r):
    u = r["usage"]["chunk"]
    return r["id"], {"promptTokenCount": u["prompt_tokens"], "candidatesTokenCount": u["completion_tokens"],
                     "thoughtsTokenCount": u["completion_tokens_details"]["reasoning_tokens"],
                     "cachedContentTokenCount": u["prompt_tokens_details"]["cached_tokens"],
                     "totalTokenCount": u["total_tokens"]}


def opencode(store):
    """Assistant `message` rows that have tokens, in creation order (no response id is
    stored: paired by position). Read from a copy: opening the fixture itself would
    write a -shm file, and could checkpoint the WAL into the database."""
    share = os.path.join(store, ".local", "share", "opencode")
    tmp = tempfile.mkdtemp()
    try:
        for f in os.listdir(share):
            shutil.copyfile(os.path.join(share, f), os.path.join(tmp, f))
        db = sqlite3.connect(os.path.join(tmp, "opencode.db"))
        got, i = {}, 0
        for (data,) in db.execute("select data from message order by time_created, id"):
            d = json.loads(data)
            if d.get("role") != "assistant":
                continue
            t = d["tokens"]
            if not any([t["input"], t["output"], t["reasoning"], t["cache"]["read"]]):
                continue  # a step that never finished (killed, failed): zeros
            i += 1
            got[f"#{i}"] = {"input": t["input"], "output": t["output"], "reasoning": t["reasoning"],
                            "cache.read": t["cache"]["read"], "total": t.get("total")}
        s = db.execute("select tokens_input, tokens_output, tokens_reasoning, tokens_cache_read from session").fetchall()
        db.close()
        return got, [f"session totals (input, output, reasoning, cache_read): {s}"]
    finally:
        shutil.rmtree(tmp)


def opencode_wire(r, i):
    u = r["usage"]["chunk"]
    prompt, cached = u["prompt_tokens"], u["prompt_tokens_details"]["cached_tokens"]
    out, reas = u["completion_tokens"], u["completion_tokens_details"]["reasoning_tokens"]
    return f"#{i + 1}", {"input": prompt - cached, "output": out - reas, "reasoning": reas,
                         "cache.read": cached, "total": prompt + out}


READ = {"claude": (claude, claude_wire), "codex": (codex, codex_wire), "gemini": (gemini, gemini_wire),
        "qwen": (qwen, qwen_wire), "opencode": (opencode, opencode_wire)}
POSITIONAL = {"gemini", "opencode"}


def check(agent, base_dir, stem, store):
    read, wire = READ[agent]
    main, side, other = usage_of(base_dir, stem)
    got, notes = read(store)
    want = dict(wire(r, i) if agent in POSITIONAL else wire(r) for i, r in enumerate(main))
    problems, missing = [], []
    for key, rec in want.items():
        if key not in got:
            missing.append(key)
        elif got[key] != rec:
            problems.append(f"{key}: stored {got[key]}, server {rec}")
    extra = [k for k in got if k not in want]
    if extra:
        problems.append(f"stored but not served: {extra}")
    facts = [f"{len(want) - len(missing)} of {len(want)} main responses stored"]
    if missing:
        facts.append(f"not stored: {missing}")
    if side:
        facts.append(f"{len(side)} side response(s): {', '.join(str(r['id']) for r in side)}")
    if other:
        facts.append(f"{len(other)} without final usage (status {sorted({r['status'] for r in other})})")
    return problems, facts + notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("dir", nargs="?", default=os.path.join(here, "..", "..", "tests", "fixtures", "recorded"))
    ap.add_argument("--extra", help="stores kept out of the repo (target/e2e/stores)")
    a = ap.parse_args()
    bad = n = 0
    for agent in sorted(os.listdir(a.dir)):
        if not os.path.isdir(os.path.join(a.dir, agent)):
            continue
        for version in sorted(os.listdir(os.path.join(a.dir, agent))):
            base = os.path.join(a.dir, agent, version)
            stems = sorted(f[: -len(".usage.json")] for f in os.listdir(base) if f.endswith(".usage.json"))
            for stem in stems:
                store = os.path.join(base, stem + ".store")
                if not os.path.isdir(store) and a.extra:
                    store = os.path.join(a.extra, agent, version, stem + ".store")
                if not os.path.isdir(store):
                    continue
                n += 1
                try:
                    problems, facts = check(agent, base, stem, store)
                except (AssertionError, KeyError, OSError, ValueError) as e:
                    problems, facts = [f"{type(e).__name__}: {e}"], []
                mark = "ok  " if not problems else "BAD "
                bad += bool(problems)
                print(f"{mark}{agent}/{version}/{stem}: " + "; ".join(problems + facts))
    print(f"{n - bad} of {n} stores agree with what the server reported")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

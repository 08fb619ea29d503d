#!/usr/bin/env python3
"""Check each recording's `.expect.json` (written from the scenario) against a plain,
independent reading of the stream, per agent, as the format notes describe it. A
mismatch means the CLI did something other than the script (or the expectation is
wrong): either way a person should look. Not a replay of cursor-stream.

usage: verify.py [DIR]   (default tests/fixtures/recorded)
"""

import json
import os
import sys


def events(path):
    for raw in open(path, "rb").read().splitlines():
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if isinstance(ev, dict):
            yield ev


def read(agent, path):
    """(status, answer pieces, final, [(call id, tool, class)]) from the stream."""
    pieces, tools, status, final = [], {}, "no_result", None
    segment, after_tool, denials = "", False, set()
    for ev in events(path):
        t = ev.get("type")
        if agent in ("claude", "qwen"):
            if t == "assistant" and not ev.get("parent_tool_use_id"):
                msg = ev.get("message") or {}
                for b in msg.get("content") or []:
                    if b.get("type") == "text":
                        pieces.append(b["text"])
                    elif b.get("type") == "tool_use":
                        tools.setdefault(b["id"], [b["name"], "pending"])
            elif t == "system" and ev.get("subtype") == "permission_denied":
                denials.add(ev.get("tool_use_id"))
            elif t == "user":
                for b in (ev.get("message") or {}).get("content") or []:
                    if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in tools:
                        # Claude: a system/permission_denied line; Qwen: the denial text
                        denied = (b["tool_use_id"] in denials
                                  or "permission" in json.dumps(b.get("content")).lower())
                        tools[b["tool_use_id"]][1] = (
                            ("rejected" if denied else "failed") if b.get("is_error") else "success")
            elif t == "result":
                ok = ev.get("subtype") == "success" and not ev.get("is_error")
                status, final = ("success" if ok else "failed"), ev.get("result")
        elif agent == "codex":
            item = ev.get("item") or {}
            if t == "item.completed" and item.get("type") == "agent_message":
                pieces.append(item["text"])
            elif t and t.startswith("item.") and item.get("type") == "command_execution":
                st = {"completed": "success", "failed": "failed", "declined": "rejected"}.get(item.get("status"), "pending")
                tools[item["id"]] = ["command_execution", st]
            elif t == "turn.completed":
                status, final = "success", pieces[-1] if pieces else None
            elif t == "turn.failed":
                status = "failed"
        elif agent == "gemini":
            if t == "message" and ev.get("role") == "assistant":
                if after_tool:
                    segment, after_tool, denials = "", False, set()
                    pieces.append("")
                if not pieces:
                    pieces.append("")
                pieces[-1] += ev.get("content", "")
                segment += ev.get("content", "")
            elif t == "tool_use":
                tools[ev["tool_id"]] = [ev["tool_name"], "pending"]
                after_tool = True
            elif t == "tool_result":
                err = (ev.get("error") or {}).get("type")
                tools[ev["tool_id"]][1] = ("success" if ev.get("status") == "success" else
                                           "rejected" if err in ("permission_denied", "policy_violation") else "failed")
                after_tool = True
            elif t == "result":
                status = "success" if ev.get("status") == "success" else "failed"
                final = segment if not after_tool else ""
        elif agent == "opencode":
            part = ev.get("part") or {}
            if t == "text":
                pieces.append(part.get("text", ""))
                segment = part.get("text", "")
            elif t == "tool_use":
                state = part.get("state") or {}
                err = state.get("error") or ""
                st = ("success" if state.get("status") == "completed" else
                      "rejected" if "rejected permission" in err or "specified a rule" in err else "failed")
                tools[part["callID"]] = [part["tool"], st]
            elif t == "step_start":
                segment = ""
            elif t == "step_finish" and part.get("reason") == "stop":
                status, final = "success", segment
            elif t == "error":
                status = "failed"
    return status, pieces, final, [(k, v[0], v[1]) for k, v in tools.items()]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "..", "tests", "fixtures", "recorded")
    bad = n = 0
    for agent in sorted(os.listdir(root)):
        if not os.path.isdir(os.path.join(root, agent)):  # STORES.md
            continue
        for version in sorted(os.listdir(os.path.join(root, agent))):
            d = os.path.join(root, agent, version)
            for f in sorted(x for x in os.listdir(d) if x.endswith(".stdout")):
                n += 1
                path = os.path.join(d, f)
                exp = json.load(open(path[: -len(".stdout")] + ".expect.json"))
                run = exp["runs"][0]
                status, pieces, final, tools = read(agent, path)
                problems = []
                if status != run["status"]:
                    problems.append(f"status {status}, expected {run['status']}")
                if run["answer_pieces"] is not None and pieces != run["answer_pieces"]:
                    problems.append(f"pieces {pieces}, expected {run['answer_pieces']}")
                if run["final"] is not None and final != run["final"]:
                    problems.append(f"final {final!r}, expected {run['final']!r}")
                want = [(t["call_id"], t["tool"], t["class"]) for t in run["tools"]]
                if tools != want:
                    problems.append(f"tools {tools}, expected {want}")
                if problems:
                    bad += 1
                    print(f"{agent}/{version}/{f}: " + "; ".join(problems))
    print(f"{n - bad} of {n} recordings agree with their expectations")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Compare two sets of recordings of the same scenarios (the pinned CLIs' against the
newest CLIs') and print what changed in the streams, so a new CLI release can be judged
in minutes:

  - event kinds (type, and subtype / item type / part type / stream event type) that
    appear or disappear;
  - keys per event kind, as JSON paths (`.message.content[].text`), that appear or
    disappear, and paths whose value type changed;
  - the line count and the CLI's exit status per scenario;
  - with --bin (a built cursor-stream), whether `text`, `result` and `tools --json`
    (tool name and status only: ids and times differ on every run) read differently.

usage: drift.py OLD_DIR NEW_DIR [--bin PATH]   (each DIR holds <agent>/<version>/...)
"""

import argparse
import json
import os
import subprocess
from collections import defaultdict


def kind(ev: dict) -> str:
    """The event's kind: its type, refined by the field each agent uses for a subtype."""
    t = str(ev.get("type"))
    for sub in (
        ev.get("subtype"),
        (ev.get("item") or {}).get("type") if isinstance(ev.get("item"), dict) else None,
        (ev.get("part") or {}).get("type") if isinstance(ev.get("part"), dict) else None,
        (ev.get("event") or {}).get("type") if isinstance(ev.get("event"), dict) else None,
        ev.get("role") if t == "message" else None,
    ):
        if isinstance(sub, str):
            return f"{t}/{sub}"
    return t


def type_name(v) -> str:
    return {dict: "object", list: "array", str: "string", bool: "bool", type(None): "null"}.get(
        type(v), "number"
    )


def paths(v, prefix, out):
    """Every JSON path under v with the set of value types seen there."""
    out[prefix or "."].add(type_name(v))
    if isinstance(v, dict):
        for k, x in v.items():
            paths(x, f"{prefix}.{k}", out)
    elif isinstance(v, list):
        for x in v:
            paths(x, f"{prefix}[]", out)


def read_dir(d: str) -> dict:
    """agent -> (version, {run name: {"lines", "status", "kinds", "paths", "stdout"}})."""
    out = {}
    for agent in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if not os.path.isdir(os.path.join(d, agent)):  # STORES.md
            continue
        versions = sorted(os.listdir(os.path.join(d, agent)))
        if not versions:
            continue
        version = versions[-1]
        runs = {}
        base = os.path.join(d, agent, version)
        for f in sorted(os.listdir(base)):
            if not f.endswith(".stdout"):
                continue
            name = f[: -len(".stdout")]
            data = open(os.path.join(base, f), "rb").read()
            kinds, ps = set(), defaultdict(lambda: defaultdict(set))
            for raw in data.splitlines():
                try:
                    ev = json.loads(raw)
                except ValueError:
                    kinds.add("(not JSON)")
                    continue
                if not isinstance(ev, dict):
                    kinds.add(f"(JSON {type_name(ev)})")
                    continue
                k = kind(ev)
                kinds.add(k)
                paths(ev, "", ps[k])
            try:
                status = open(os.path.join(base, name + ".status")).read().strip()
            except OSError:
                status = "?"
            try:
                with open(os.path.join(base, name + ".expect.json")) as ef:
                    killed = json.load(ef)["runs"][0]["status"] == "no_result"
            except (OSError, ValueError, KeyError, IndexError):
                killed = False
            runs[name] = {"lines": data.count(b"\n"), "status": status, "kinds": kinds,
                          "paths": ps, "stdout": os.path.join(base, f), "killed": killed}
        out[agent] = (version, runs)
    return out


def views(binary: str, stdout: str) -> dict:
    """What cursor-stream makes of a recording (the parts that do not vary between runs)."""
    res = {}
    for view in (["text"], ["result"], ["tools", "--json"]):
        p = subprocess.run([binary, *view, stdout], capture_output=True)
        body = p.stdout.decode(errors="replace")
        if view[0] == "tools":
            rows = []
            for line in body.splitlines():
                try:
                    row = json.loads(line)
                    rows.append(f"{row.get('tool')}:{row.get('status')}")
                except ValueError:
                    rows.append(line)
            body = " ".join(rows)
        res[" ".join(view)] = (p.returncode, body)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--bin", help="a built cursor-stream, to compare what its views read")
    a = ap.parse_args()
    old, new = read_dir(a.old), read_dir(a.new)
    changed_any = timing_only = False
    for agent in sorted(set(old) | set(new)):
        if agent not in new or agent not in old:
            print(f"## {agent}: only in {'old' if agent in old else 'new'} recordings\n")
            continue
        (v_old, r_old), (v_new, r_new) = old[agent], new[agent]
        lines = [f"## {agent} {v_old} -> {v_new}"]
        all_old = {k for r in r_old.values() for k in r["kinds"]}
        all_new = {k for r in r_new.values() for k in r["kinds"]}
        for k in sorted(all_new - all_old):
            lines.append(f"  new event kind: {k}")
        for k in sorted(all_old - all_new):
            lines.append(f"  removed event kind: {k}")
        # keys per event kind, over all scenarios together
        p_old, p_new = defaultdict(lambda: defaultdict(set)), defaultdict(lambda: defaultdict(set))
        for runs, acc in ((r_old, p_old), (r_new, p_new)):
            for r in runs.values():
                for k, ps in r["paths"].items():
                    for p, types in ps.items():
                        acc[k][p] |= types
        for k in sorted(set(p_old) & set(p_new)):
            for p in sorted(set(p_new[k]) - set(p_old[k])):
                lines.append(f"  {k}: new key {p} ({'|'.join(sorted(p_new[k][p]))})")
            for p in sorted(set(p_old[k]) - set(p_new[k])):
                lines.append(f"  {k}: removed key {p}")
            for p in sorted(set(p_old[k]) & set(p_new[k])):
                if p_old[k][p] != p_new[k][p]:
                    lines.append(f"  {k}: {p} was {'|'.join(sorted(p_old[k][p]))}, "
                                 f"now {'|'.join(sorted(p_new[k][p]))}")
        for name in sorted(set(r_old) | set(r_new)):
            if name not in r_new or name not in r_old:
                lines.append(f"  {name}: only in {'old' if name in r_old else 'new'} recordings")
                continue
            o, n = r_old[name], r_new[name]
            # where a killed run stops is a race: its changes are flagged as such
            label = f"{name} (killed: timing decides where it stops)" if o["killed"] else name
            # keys gone from (or new in) this scenario but still present in (or already
            # reported for) another one: the union above does not show them
            for k in sorted(set(o["paths"]) & set(n["paths"])):
                for p in sorted(set(o["paths"][k]) - set(n["paths"][k])):
                    if p in p_new[k]:
                        lines.append(f"  {label}: {k}: key {p} no longer there")
                for p in sorted(set(n["paths"][k]) - set(o["paths"][k])):
                    if p in p_old[k]:
                        lines.append(f"  {label}: {k}: key {p} now there")
            if o["lines"] != n["lines"]:
                lines.append(f"  {label}: {o['lines']} lines -> {n['lines']}")
            if o["status"] != n["status"]:
                lines.append(f"  {label}: exit status {o['status']} -> {n['status']}")
            if a.bin:
                vo, vn = views(a.bin, o["stdout"]), views(a.bin, n["stdout"])
                for view in vo:
                    if vo[view] != vn[view]:
                        lines.append(f"  {label}: `{view}` reads differently: "
                                     f"{vo[view]!r:.160} -> {vn[view]!r:.160}")
        if len(lines) == 1:
            lines.append("  no change in event kinds, keys, value types, line counts, exit status"
                         + (" or what the views read" if a.bin else ""))
        elif any("(killed: timing" not in line for line in lines[1:]):
            changed_any = True
        else:
            timing_only = True
        print("\n".join(lines) + "\n")
    print("drift: changes found" if changed_any else
          "drift: none (only where killed runs stopped, which timing decides)" if timing_only else
          "drift: none")


if __name__ == "__main__":
    main()

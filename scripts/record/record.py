#!/usr/bin/env python3
"""Install the pinned agent CLIs and record every scenario, offline.

  record.py install [--latest] [AGENT...]     npm install into the cache (outside the repo)
  record.py record [-a AGENT]... [-s SCENARIO]... [--out DIR] [--latest] [-j N]

`record` re-executes itself in a network namespace that has only loopback (`unshare -n`),
so nothing any CLI tries can leave the machine; the mock and every CLI run in there.
Each run gets a fresh HOME and project; its stdout, stderr and exit status are written
byte for byte to OUT/<agent>/<version>/<scenario>[-<variant>].{stdout,stderr,status},
with the `.expect.json` derived from the scenario (agents.expect). OUT defaults to
tests/fixtures/recorded. Rerunning overwrites only the runs asked for.

The big-output scenario is run twice: with ~2 MB of tool output (kept outside the repo,
in target/e2e/big/, and summed up on stdout) and with ~109 KB (committed).
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import agents  # noqa: E402
import scenarios  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PORT = 8765  # the namespace is ours: a fixed port cannot clash
RUN_TIMEOUT = 240  # seconds; the slowest failure (OpenCode's retries) takes ~70 s
WORK = os.environ.get("CURSOR_STREAM_E2E_WORK", "/tmp/cs-e2e")


def install(names, latest):
    """npm-installs each CLI (and Node 22, OpenCode's plugin) into a folder of its own in
    the cache. A pinned package already there is kept; npm's own cache makes the rest cheap."""
    for name in names or list(agents.PINS) + list(agents.HELPERS):
        if name in agents.PINS:
            pkg, ver = agents.PINS[name]
            ver = "latest" if latest else ver
        else:
            pkg, ver = agents.HELPERS[name]
            # the plugin follows OpenCode's version; the newest Node 22 for --latest
            ver = ver.format(opencode=agents.versions(latest)["opencode"] or agents.PINS["opencode"][1])
            ver = "22" if latest and name == "node22" else ver
        dest = agents.install_dir(name, latest)
        have = os.path.join(dest, "node_modules", pkg, "package.json")
        if not latest and os.path.exists(have) and json.load(open(have))["version"] == ver:
            print(f"installed {pkg}@{ver}", flush=True)
            continue
        os.makedirs(dest, exist_ok=True)
        print(f"install {pkg}@{ver} -> {dest}", flush=True)
        # Claude and Qwen declare Node >= 22: an explicit version makes npm take it (with an
        # EBADENGINE warning) instead of silently falling back to an old release.
        rc = subprocess.call(["npm", "install", "--prefix", dest, "--no-audit", "--no-fund",
                              "--loglevel=error", f"{pkg}@{ver}"])
        if rc:
            sys.exit(f"install of {pkg}@{ver} failed ({rc})")


def in_netns():
    """Re-executes this script in a loopback-only network namespace, once."""
    if os.environ.get("CS_E2E_NETNS") == "1":
        subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
        links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
        assert all(": lo:" in l for l in links.splitlines()), "not a loopback-only namespace"
        return
    env = dict(os.environ, CS_E2E_NETNS="1")
    os.execvpe("unshare", ["unshare", "-n", "--", sys.executable, *sys.argv], env)


def leftovers(marker: str, wait: float = 2.0) -> list[str]:
    """Processes that still carry the run's marker in their environment (after giving
    the ones just killed a moment to go)."""
    deadline = time.time() + wait
    while True:
        left = find_marked(marker)
        if not left or time.time() > deadline:
            return left
        time.sleep(0.1)


def find_marked(marker: str) -> list[str]:
    left = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            env = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
            if f"CS_E2E_RUN={marker}".encode() in env:
                cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ")
                left.append(f"{pid} {cmd[:60].decode(errors='replace')}")
        except OSError:
            pass
    return left


def status_of(rc: int) -> int:
    return 128 - rc if rc < 0 else rc  # killed by signal N: 128 + N, as a shell says


def wait_for_stall(log_path, run_id, proc, timeout, event="stall"):
    """Waits until the mock logs `event` (a stall, or tool calls sent) for this run."""
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        try:
            with open(log_path) as f:
                for line in f:
                    ev = json.loads(line)
                    if ev.get("event") == event and ev.get("run") == run_id:
                        return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def kill_group(proc, grace=5.0):
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    try:  # everything left in the group (Qwen's orphaned worker, a tool's child) goes too
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


def record_one(agent, scen, variant, out_dir, version, latest, log_path, lines=None):
    name = agents.run_name(scen, variant)
    work = os.path.join(WORK, "latest" if latest else "pinned", agent, name + ("-mb" if lines else ""))
    dest = os.path.join(out_dir, agent, version)
    os.makedirs(dest, exist_ok=True)
    scenario = scenarios.SCENARIOS[scen]
    start = time.time()
    # A resume is two invocations in the same HOME: `<name>.1.*` and `<name>.2.*`.
    parts = [1, 2] if scenario.then else [None]
    session, status, stdout = None, None, b""
    for part in parts:
        stem = name if part is None else f"{name}.{part}"
        if part == 2 and session is None and agent != "gemini":  # Gemini resumes "latest"
            raise RuntimeError(f"{agent} {stem}: part 1 gave no session id to resume")
        setup = agents.prepare(agent, scen, variant, work, PORT, lines=lines, latest=latest,
                               part=part, resume_id=session,
                               run_id=f"{agent}-{stem}" + ("-mb" if lines else ""))
        turns = scenario.then if part == 2 else scenario
        base = os.path.join(dest, stem)
        status, stdout = run_cli(agent, stem, setup, base, turns, log_path)
        exp = agents.expect(agent, turns.name, stdout)
        with open(base + ".expect.json", "w") as f:
            json.dump(exp, f, indent=2, ensure_ascii=False)
            f.write("\n")
        write_usage(log_path, agent, setup["run"], base + ".usage.json")
        store = base + ".store"
        if not agents.store_committed(agent, scen, variant, stem) and not lines:
            shutil.rmtree(store, ignore_errors=True)  # kept out of the repo: only in target/
            store = os.path.join(agents.REPO, "target", "e2e", "stores", agent, version, stem + ".store")
        copy_store(agent, setup["env"]["HOME"], store)
        session = exp["runs"][0]["session_id"]
        # A cheap sanity check of the recording against the script (not of cursor-stream):
        # every scripted call shows up in the stream.
        seen = len(agents.stream_ids(agent, stdout)[0])
        scripted = len(exp["runs"][0]["tools"])
        if seen != scripted:
            print(f"warning: {agent} {stem}: {seen} tool calls in the stream, {scripted} scripted",
                  file=sys.stderr)
    if scenario.then:
        write_resume_note(agent, name, dest, scenario)
    return {"agent": agent, "run": name, "status": status, "lines": stdout.count(b"\n"),
            "bytes": len(stdout), "seconds": round(time.time() - start, 1),
            "last": last_event(stdout)}


def run_cli(agent, stem, setup, base, scen, log_path):
    """One invocation of the CLI: its stdout, stderr and exit status written byte for byte
    to `base`.{stdout,stderr,status}; returns (status, stdout)."""
    with open(base + ".stdout", "wb") as out, open(base + ".stderr", "wb") as err:
        proc = subprocess.Popen(setup["argv"], env=setup["env"], cwd=setup["cwd"],
                                stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                start_new_session=True)  # a process group to kill
        if scen.status == "no_result":
            # killed: mid-answer (the mock stalls) or mid-tool (the command sleeps)
            event = "stall" if scen.turns[0].stall_after is not None else "tools"
            if wait_for_stall(log_path, setup["run"], proc, 60, event):
                time.sleep(2.0)  # let what was sent reach stdout, the tool start
            kill_group(proc)  # SIGTERM to the whole group, as Ctrl-C or a CI timeout would
        else:
            try:
                proc.wait(RUN_TIMEOUT)
            except subprocess.TimeoutExpired:
                pass
            kill_group(proc)
    status = status_of(proc.returncode)
    with open(base + ".status", "w") as f:
        f.write(f"{status}\n")
    left = leftovers(setup["env"]["CS_E2E_RUN"])
    if left:  # escaped the group (a session of its own): note it, and stop it
        print(f"note: {agent} {stem}: left behind after the group was killed: {left}", file=sys.stderr)
        for pid in left:
            try:
                os.kill(int(pid.split()[0]), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
    return status, open(base + ".stdout", "rb").read()


def copy_store(agent, home, dest):
    """The agent's own session store as the run left it in HOME (agents.store_files),
    byte for byte, to `dest`/<path relative to HOME>, but for the machine's identity
    (agents.redactions) in text files. What is left out is printed."""
    shutil.rmtree(dest, ignore_errors=True)
    kept, skipped = agents.store_files(agent, home)
    for rel in kept:
        os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
        data = open(os.path.join(home, rel), "rb").read()
        for old, new in agents.redactions():
            if old in data and ".db" in rel:  # SQLite pages and WAL frames carry checksums
                print(f"warning: {agent} {rel}: holds {old!r}, kept as is (SQLite)", file=sys.stderr)
            elif old in data:
                data = data.replace(old, new)
        with open(os.path.join(dest, rel), "wb") as f:
            f.write(data)
    for rel, why in skipped:
        print(f"note: {agent} {os.path.basename(dest)}: left out {rel} ({why})", file=sys.stderr)


def write_usage(log_path, agent, run_id, path, wait=10.0):
    """`<run>.usage.json`: every response the mock sent for the run, in the order the
    requests came, with the usage it reported (mock.py `numbers`): as the wire API put it,
    and normalized. Side requests are there too (`side`: Gemini's router, OpenCode's title,
    Qwen's memory extraction), as are answers without usage (HTTP errors, a stall)."""
    deadline = time.time() + wait
    while True:  # a killed run's response is logged once the mock notices the client left
        requests, responses = {}, {}
        with open(log_path) as f:
            for line in f:
                try:
                    ev = json.loads(line)
                except ValueError:  # a line still being written
                    continue
                if ev.get("run") != run_id or "seq" not in ev:
                    continue
                (responses if ev.get("event") == "response" else requests)[ev["seq"]] = ev
        if set(requests) <= set(responses) or time.time() > deadline:
            break
        time.sleep(0.2)
    out = []
    for seq in sorted(responses):
        r, q = responses[seq], requests.get(seq, {})
        entry = {"n": r["n"], "side": r["side"], "path": r["path"], "status": r["status"]}
        if not r["side"]:
            entry["tool_results"] = q.get("tool_results")
        entry.update(id=r["id"], request_id=r.get("request_id"), final=r["final"], usage=r["usage"],
                     normalized=r["normalized"])
        out.append(entry)
    doc = {"run": run_id, "agent": agent, "numbers": USAGE_NUMBERS, "responses": out,
           "totals": totals([e["normalized"] for e in out if e["normalized"]]),
           "totals_without_side": totals([e["normalized"] for e in out if e["normalized"] and not e["side"]])}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


USAGE_NUMBERS = ("the n-th main response of a run reports input 1000+10n, cached 200+n, cache writes "
                 "300+n (Anthropic only), output 70+2n, reasoning 40+n (thinking turns only); the n-th "
                 "side response 5000+10n, 500+n, 600+n, 50+2n, 0 (mock.py numbers). normalized: input = "
                 "every prompt token (cached and cache writes included), output = every generated "
                 "token (reasoning included), total = input + output")


def totals(rows):
    keys = ("input", "cached", "cache_write", "output", "reasoning", "total")
    return {k: sum(r[k] or 0 for r in rows) for k in keys} if rows else None


def write_resume_note(agent, name, dest, scenario):
    """`<name>.json` beside a resume's two recordings: what each invocation was."""
    parts = []
    for part, sc in ((1, scenario), (2, scenario.then)):
        exp = json.load(open(os.path.join(dest, f"{name}.{part}.expect.json")))
        parts.append({
            "stdout": f"{name}.{part}.stdout", "scenario": sc.name, "prompt": sc.prompt,
            "resume_flags": None if part == 1 else agents.RESUME_FLAGS[agent],
            "session_id": exp["runs"][0]["session_id"], "status": exp["runs"][0]["status"],
            # the store as this invocation left it (not committed for every agent)
            "store_after": f"{name}.{part}.store" if os.path.isdir(
                os.path.join(dest, f"{name}.{part}.store")) else None,
        })
    with open(os.path.join(dest, f"{name}.json"), "w") as f:
        json.dump({"agent": agent, "what": "one session, two invocations of the CLI in the same "
                   "HOME and project: the second resumes the session of the first",
                   "invocations": parts}, f, indent=2)
        f.write("\n")


def last_event(stdout: bytes) -> str:
    """The type (and subtype) of the stream's last JSON line, for the summary table."""
    for raw in reversed(stdout.splitlines()):
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if isinstance(ev, dict):
            kind = ev.get("type", "?")
            sub = ev.get("subtype") or ev.get("status") or (ev.get("part") or {}).get("reason")
            return f"{kind}/{sub}" if sub else kind
    return "-"


def record(args):
    in_netns()
    latest = args.latest
    vers = agents.versions(latest)
    have = agents.installed(latest)
    chosen = args.agent or agents.AGENTS
    scens = args.scenario or list(scenarios.SCENARIOS)
    out_dir = os.path.abspath(args.out)
    logs = os.path.join(agents.REPO, "target", "e2e", "logs")
    os.makedirs(logs, exist_ok=True)
    log_path = os.path.join(logs, f"mock-{int(time.time())}.jsonl")
    ready = os.path.join(logs, "mock.ready")
    if os.path.exists(ready):
        os.remove(ready)
    mock = subprocess.Popen([sys.executable, os.path.join(HERE, "mock.py"), "--port", str(PORT),
                             "--log", log_path, "--ready", ready, "--lifetime", "3600",
                             "--stall-seconds", "120"])
    while not os.path.exists(ready):
        time.sleep(0.05)
    jobs = []
    for agent in chosen:
        if not have[agent]:
            print(f"skipped {agent}: not installed in {agents.cache_dir()} (record.py install)")
            continue
        for scen in scens:
            for variant in agents.variants(agent, scen):
                jobs.append((agent, scen, variant, out_dir, vers[agent], latest, log_path))
                if scen == "bigout" and not args.no_big:  # the megabyte run, kept out of the repo
                    big = os.path.join(agents.REPO, "target", "e2e", "big")
                    jobs.append((agent, scen, variant, big, vers[agent], latest, log_path,
                                 agents.BIG_LINES_LIVE))
    try:
        run_jobs(jobs, args.jobs, logs)
    finally:  # whatever happened, the mock goes
        mock.terminate()
        mock.wait()


def run_jobs(jobs, n, logs):
    results = []
    # Slow runs (retries) first, so that the pool ends together.
    jobs.sort(key=lambda j: j[1] not in ("fail", "killed"))
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(record_one, *j) for j in jobs]
        for fut in concurrent.futures.as_completed(futures):
            try:
                r = fut.result()
            except Exception as e:  # one broken run must not lose the others
                print(f"error: {e!r}", file=sys.stderr)
                continue
            results.append(r)
            print(f"{r['agent']:9} {r['run']:22} status {r['status']:>3}  {r['lines']:>4} lines "
                  f"{r['bytes']:>8} B  last {r['last']:28} {r['seconds']:>6} s", flush=True)
    with open(os.path.join(logs, "last-record.json"), "w") as f:
        json.dump(sorted(results, key=lambda r: (r["agent"], r["run"])), f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("install")
    p.add_argument("names", nargs="*")
    p.add_argument("--latest", action="store_true", help="the newest version of each CLI")
    p = sub.add_parser("record")
    p.add_argument("-a", "--agent", action="append", choices=agents.AGENTS)
    p.add_argument("-s", "--scenario", action="append", choices=sorted(scenarios.SCENARIOS))
    p.add_argument("--out", default=os.path.join(agents.REPO, "tests", "fixtures", "recorded"))
    p.add_argument("--latest", action="store_true", help="record the CLIs of `install --latest`")
    p.add_argument("-j", "--jobs", type=int, default=3)
    p.add_argument("--no-big", action="store_true", help="skip the megabyte run of bigout")
    a = ap.parse_args()
    if a.cmd == "install":
        install(a.names, a.latest)
    else:
        record(a)


if __name__ == "__main__":
    main()

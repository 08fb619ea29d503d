#!/usr/bin/env python3
"""Makes `src/view/usage/prices.json`, the price table `cursor-stream usage` builds in, from
LiteLLM's price list (`model_prices_and_context_window_backup.json`, which ships inside the
`litellm` package on PyPI).

  scripts/prices.py                   # the newest litellm on PyPI, and the models it dropped
  scripts/prices.py --version 1.110.2 # a given one
  scripts/prices.py --json FILE       # a price list already at hand (same format), alone

LiteLLM drops a model from its list when the vendor retires it (`claude-sonnet-4-20250514`,
`claude-3-7-sonnet-20250219`, `codex-mini-latest`, `gemini-2.0-flash`), though a year of an
agent's logs is full of them. So the list of the release read first is completed from older
releases: the last release of each minor series (1.109.3, 1.108.14, …) back to `--oldest`,
newest first, tell which models were dropped in the series after each; each of those is taken
from the last release that still had it (found among that series' releases by bisection) and
marked with that release in its `from` field. `source` names both. Qwen's models that LiteLLM
priced only through OpenRouter (`openrouter/qwen/qwen3.6-plus`) are kept under Alibaba's name
(`dashscope/qwen3.6-plus`), the entry they came from in `via`. The wheels' lists are kept in `--cache`
(`~/.cache/cursor-stream/litellm/VERSION.json`), so a second run downloads nothing.

Only the models of the agents' vendors are kept (Anthropic, OpenAI, Google, Alibaba's Qwen,
and the few others OpenCode and Cursor route to), and of each only what `usage` prices:
input, output, cache read, cache write (5 minutes, 1 hour), reasoning where priced apart,
and the rates above 200k tokens of context. Prices are US dollars per token. The file
records where it came from and when.
"""

import argparse
import datetime
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "src", "view", "usage", "prices.json")

# LiteLLM's providers whose models the agents use; model names of theirs are kept bare
# (`claude-sonnet-4-5`), others with their prefix (`dashscope/qwen3-coder-plus`).
PROVIDERS = {
    "anthropic",
    "openai",
    "gemini",
    "vertex_ai-language-models",
    "dashscope",
    "deepseek",
    "xai",
    "moonshot",
    "zai",
    "mistral",
    "minimax",
}

FIELDS = {
    "input_cost_per_token": "i",
    "output_cost_per_token": "o",
    "cache_read_input_token_cost": "cr",
    "cache_creation_input_token_cost": "cw",
    "cache_creation_input_token_cost_above_1hr": "cw1h",
    "output_cost_per_reasoning_token": "r",
    "input_cost_per_token_above_200k_tokens": "i200",
    "output_cost_per_token_above_200k_tokens": "o200",
    "cache_read_input_token_cost_above_200k_tokens": "cr200",
    "cache_creation_input_token_cost_above_200k_tokens": "cw200",
}


def cache_dir(path):
    path = path or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cursor-stream", "litellm"
    )
    os.makedirs(path, exist_ok=True)
    return path


def releases():
    """Every final release of litellm on PyPI (no dev, rc or post), newest first."""
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "litellm"],
        check=True, capture_output=True, text=True,
    ).stdout
    line = next(l for l in out.splitlines() if l.startswith("Available versions:"))
    found = [v.strip() for v in line.split(":", 1)[1].split(",")]
    return sorted((v for v in found if re.fullmatch(r"\d+\.\d+\.\d+", v)), key=key, reverse=True)


def key(version):
    return tuple(int(n) for n in version.split("."))


def download(version, cache):
    """The price list inside litellm `version` (the newest where None), and that version."""
    if version:
        kept = os.path.join(cache, f"{version}.json")
        if os.path.exists(kept):
            with open(kept) as f:
                return json.load(f), version
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"litellm=={version}" if version else "litellm"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", spec, "--no-deps", "-q", "-d", tmp],
            check=True,
        )
        wheel = glob.glob(os.path.join(tmp, "litellm-*.whl"))[0]
        version = os.path.basename(wheel).split("-")[1]
        with zipfile.ZipFile(wheel) as z:
            name = next(n for n in z.namelist() if n.endswith(LIST))
            data = z.read(name)
    with open(os.path.join(cache, f"{version}.json"), "wb") as f:
        f.write(data)
    return json.loads(data), version


LIST = "model_prices_and_context_window_backup.json"


def last_of_each_minor(newest, oldest):
    """The last release of each minor series older than `newest`, down to `oldest`'s, newest
    first, each with the releases between it and the one before it in the list (or `newest`),
    oldest first."""
    every = [v for v in releases() if key(oldest)[:2] <= key(v)[:2] and key(v) < key(newest)]
    last = {}
    for v in every:
        last.setdefault(key(v)[:2], v)
    picked = [last[m] for m in sorted(last, reverse=True)]
    newer = [newest] + picked
    return [
        (v, sorted((b for b in every if key(v) < key(b) < key(n)), key=key))
        for v, n in zip(picked, newer)
    ]


def last_with(name, have, between, lists):
    """The newest of `between` (oldest first; each newer than `have`) whose list has `name`."""
    lo, hi = 0, len(between)  # between[:lo] have it (with `have`), between[hi:] do not
    while lo < hi:
        mid = (lo + hi) // 2
        if name in lists(between[mid]):
            lo = mid + 1
        else:
            hi = mid
    return between[lo - 1] if lo else have


def kept_models(prices):
    """The entries of `prices` that `usage` can price, by lowercase name, in our format."""
    models = {}
    for name, entry in sorted(prices.items()):
        if isinstance(entry, dict) and entry.get("litellm_provider") in PROVIDERS:
            kept = ours(entry)
            if kept:
                models[name.lower()] = kept
    # Qwen's models that LiteLLM prices only through OpenRouter (`openrouter/qwen/qwen3.6-plus`,
    # Qwen Code's default in 2026): under Alibaba's name, the entry they came from in `via`.
    for name, entry in sorted(prices.items()):
        lower = name.lower()
        own = "dashscope/" + lower.removeprefix("openrouter/qwen/")
        if lower.startswith("openrouter/qwen/") and own not in models and isinstance(entry, dict):
            kept = ours(entry)
            if kept:
                models[own] = dict(kept, via=name)
    return models


def ours(entry):
    """A LiteLLM entry in our format: its prices that `usage` uses, or None."""
    if entry.get("mode") not in (None, "chat", "responses", "completion"):
        return None
    kept = {short: entry[long] for long, short in FIELDS.items() if isinstance(entry.get(long), (int, float))}
    # Prices by the size of the context (Qwen's): [from, to, input, output, cache read].
    tiers = []
    for t in entry.get("tiered_pricing") or []:
        r = t.get("range") or []
        if len(r) == 2 and isinstance(t.get("input_cost_per_token"), (int, float)):
            tiers.append([r[0], r[1], t["input_cost_per_token"], t.get("output_cost_per_token", 0),
                          t.get("cache_read_input_token_cost")])
    if tiers:
        kept["t"] = tiers
        kept.setdefault("i", tiers[0][2])
        kept.setdefault("o", tiers[0][3])
    if "i" not in kept or "o" not in kept:
        return None
    return kept


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version")
    ap.add_argument("--json")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--oldest", default="1.53.0", help="the oldest release read for retired models")
    ap.add_argument("--version-only", action="store_true", help="no retired models from older releases")
    ap.add_argument("--cache", help="where the wheels' price lists are kept")
    a = ap.parse_args()
    cache = cache_dir(a.cache)
    if a.json:
        with open(a.json) as f:
            models, source = kept_models(json.load(f)), os.path.basename(a.json)
        write(models, source, a.out)
        return
    prices, newest = download(a.version, cache)
    models = kept_models(prices)
    source = f"litellm {newest} ({LIST})"
    older = [] if a.version_only else last_of_each_minor(newest, a.oldest)
    read = {}

    def lists(version):
        if version not in read:
            read[version] = kept_models(download(version, cache)[0])
        return read[version]

    taken = set()
    for version, between in older:
        retired = {n: m for n, m in lists(version).items() if n not in models}
        for name in retired:
            # The newest release that still had it: the series after `version` may have.
            last = last_with(name, version, between, lists)
            models[name] = dict(lists(last)[name], **{"from": last})
            taken.add(last)
        print(f"litellm {version}: {len(retired)} models the newer releases dropped", file=sys.stderr)
    if taken:
        taken = sorted(taken, key=key)
        source += (
            f", and the models it dropped from the last release that had each"
            f" (litellm {taken[0]}–{taken[-1]}; each entry's from and via say which)"
        )
    write(models, source, a.out)


def write(models, source, out):
    doc = {
        "source": source,
        "generated": datetime.date.today().isoformat(),
        "unit": "US dollars per token",
        "models": models,
    }
    with open(out, "w") as f:
        json.dump(doc, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(models)} models from {source} -> {os.path.relpath(out)}", file=sys.stderr)


if __name__ == "__main__":
    main()

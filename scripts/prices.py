#!/usr/bin/env python3
"""Makes `src/view/usage/prices.json`, the price table `cursor-stream usage` builds in, from
LiteLLM's price list (`model_prices_and_context_window_backup.json`, which ships inside the
`litellm` package on PyPI).

  scripts/prices.py                   # the newest litellm on PyPI
  scripts/prices.py --version 1.110.2 # a given one
  scripts/prices.py --json FILE       # a price list already at hand (same format)

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


def download(version):
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"litellm=={version}" if version else "litellm"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", spec, "--no-deps", "-q", "-d", tmp],
            check=True,
        )
        wheel = glob.glob(os.path.join(tmp, "litellm-*.whl"))[0]
        version = os.path.basename(wheel).split("-")[1]
        with zipfile.ZipFile(wheel) as z:
            name = next(n for n in z.namelist() if n.endswith("model_prices_and_context_window_backup.json"))
            return json.loads(z.read(name)), f"litellm {version} ({name})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--version")
    ap.add_argument("--json")
    ap.add_argument("--out", default=OUT)
    a = ap.parse_args()
    if a.json:
        prices, source = json.load(open(a.json)), os.path.basename(a.json)
    else:
        prices, source = download(a.version)
    models = {}
    for name, entry in sorted(prices.items()):
        if not isinstance(entry, dict) or entry.get("litellm_provider") not in PROVIDERS:
            continue
        if entry.get("mode") not in (None, "chat", "responses", "completion"):
            continue
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
            continue
        models[name.lower()] = kept
    doc = {
        "source": source,
        "generated": datetime.date.today().isoformat(),
        "unit": "US dollars per token",
        "models": models,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"), sort_keys=True)
        f.write("\n")
    print(f"{len(models)} models from {source} -> {os.path.relpath(a.out)}", file=sys.stderr)


if __name__ == "__main__":
    main()

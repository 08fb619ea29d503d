#!/usr/bin/env python3
"""Two or more builds of cursor-stream on the same jobs, run in turn, for a shared machine.

    scripts/ab.py BEFORE AFTER [--jobs 'result,events --count,text'] [--runs 8] FILE

Each job runs once with each build, the order reversed every round, `--runs` rounds; prints
the minimum and the median wall time of each. Alternating puts the machine's slow and fast
moments on both builds alike, where hyperfine runs one command's runs back to back.
"""
import argparse
import subprocess
import time

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("builds", nargs="+", help="binaries to compare, then the log FILE")
p.add_argument("--jobs", default="result,events --count,text,tools --json,stats --json")
p.add_argument("--runs", type=int, default=8)
a = p.parse_intermixed_args()
*builds, file = a.builds
if not builds:
    p.error("give at least one build and the log file")
for job in a.jobs.split(","):
    times = {b: [] for b in builds}
    for i in range(a.runs):
        for b in builds if i % 2 == 0 else builds[::-1]:
            start = time.perf_counter()
            subprocess.run([b, *job.split(), file], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            times[b].append(time.perf_counter() - start)
    for b, t in times.items():
        t.sort()
        print(f"{job:16} {b}: min {t[0] * 1000:5.0f} ms, median {t[len(t) // 2] * 1000:5.0f} ms",
              flush=True)

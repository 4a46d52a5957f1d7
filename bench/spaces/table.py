#!/usr/bin/env python3
"""Prints the README table rows from queue.log (wall times) and the cachefiles."""
import glob, gzip, json, re

walls = {}
for line in open("queue.log"):
    m = re.search(r"start (\S+) -> (\S+)", line)
    if m:
        cur = (m.group(1), m.group(2))
    m = re.search(r"done \S+ rc=0 wall=(\d+)s", line)
    if m:
        walls[cur[1]] = (cur[0], int(m.group(1)))
for cache, (t1, wall) in walls.items():
    found = [p for p in glob.glob("cachefiles/*/*.json.gz")]
    d = json.load(open("raw/" + cache))
    ok = sum(isinstance(v.get("time"), (int, float)) for v in d["cache"].values())
    size = "x".join(str(s) for s in d["problem_size"]) if isinstance(d["problem_size"], list) else d["problem_size"]
    params = ", ".join(f"{k} ({len(v)})" for k, v in d["tune_params"].items())
    print(f"| {cache} | {d['kernel_name']} | {size} | {params} | {ok} of {len(d['cache'])} | {wall} s | "
          f"`nice -n 19 ktune tune {t1} --strategy brute_force --cache raw/{cache} --quiet` |")

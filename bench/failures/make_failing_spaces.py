#!/usr/bin/env python3
"""Spaces with many failures, for measuring learned failure avoidance (issue 38; docs/live-tuning.md).

Each input Kernel Tuner cache is copied with a hidden constraint added: the configurations whose two parameters with
the most values are jointly large (the sum of their value ranks, scaled to [0, 1] each, above a threshold) fail to
compile, as a register or shared-memory limit fails a region of a real space. The threshold is chosen so that about
FRACTION of the configurations that ran fail. The recorded failures stay failures. Nothing is written into the
inputs' folders.

usage: make_failing_spaces.py OUTDIR CACHE.json.gz... [--fraction 0.4]
"""
import argparse
import gzip
import json
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("caches", nargs="+")
    ap.add_argument("--fraction", type=float, default=0.4)
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for path in a.caches:
        with gzip.open(path, "rt") as f:
            doc = json.load(f)
        params = doc["tune_params"]
        numeric = [k for k in doc["tune_params_keys"]
                   if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in params[k])]
        two = sorted(numeric, key=lambda k: -len(params[k]))[:2]
        rank = {k: {v: i / max(1, len(params[k]) - 1) for i, v in enumerate(sorted(params[k]))} for k in two}
        ran = [e for e in doc["cache"].values() if isinstance(e.get("time"), (int, float))]
        load = sorted(sum(rank[k][e[k]] for k in two) for e in ran)
        threshold = load[int(len(load) * (1 - a.fraction))]
        failed = 0
        for e in ran:
            if sum(rank[k][e[k]] for k in two) >= threshold:
                e["time"] = "CompilationFailedConfig"
                e.pop("times", None)
                failed += 1
        kernel = os.path.basename(os.path.dirname(path))
        name = os.path.basename(path).replace(".json.gz", "")
        out = os.path.join(a.outdir, kernel, name + ".json.gz")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with gzip.open(out, "wt") as f:
            json.dump(doc, f)
        print(f"{out}: {failed} of {len(doc['cache'])} fail by {' + '.join(two)} >= {threshold:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Spaces with many failures, for measuring learned failure avoidance (issue 38; docs/live-tuning.md).

Each input Kernel Tuner cache is copied with a hidden constraint added: the configurations whose two parameters with
the most values are jointly large fail to compile, as a register or shared-memory limit fails a region of a real
space. "Large" by --shape: `ranks` (the default), the sum of their value ranks, each scaled to [0, 1], is above a
threshold (a limit that grows with each value's position in its list); `product`, the product of their values is (a
resource that is the product of the two: threads = block x * block y, shared memory = tile x * tile y * bytes). The
threshold is chosen so that about FRACTION of the configurations that ran fail. `random`: no region at all, FRACTION
of them drawn at random (--seed) fail at run time, as sporadic failures do (a driver hiccup, a flaky launch): a model
that learns a region from them must not cost the run much. The recorded failures stay failures. Nothing is written
into the inputs' folders.

usage: make_failing_spaces.py OUTDIR CACHE.json.gz... [--fraction 0.4] [--shape ranks|product|random] [--seed 0]
"""
import argparse
import gzip
import json
import math
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("caches", nargs="+")
    ap.add_argument("--fraction", type=float, default=0.4)
    ap.add_argument("--shape", choices=["ranks", "product", "random"], default="ranks")
    ap.add_argument("--seed", type=int, default=0, help="--shape random: which configurations fail")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for path in a.caches:
        with gzip.open(path, "rt") as f:
            doc = json.load(f)
        params = doc["tune_params"]
        if a.shape == "random":
            failed = sporadic(doc, a.fraction, random.Random(f"{a.seed}:{os.path.basename(path)}"))
            write(doc, path, a.outdir, f"{failed} of {len(doc['cache'])} fail at random")
            continue
        positive = a.shape == "product"
        numeric = [k for k in doc["tune_params_keys"]
                   if all(isinstance(v, (int, float)) and not isinstance(v, bool) and (v > 0 or not positive)
                          for v in params[k])]
        two = sorted(numeric, key=lambda k: -len(params[k]))[:2]
        if positive:  # the log of the product: the sum of the logs
            size = {k: {v: math.log(v) for v in params[k]} for k in two}
        else:
            size = {k: {v: i / max(1, len(params[k]) - 1) for i, v in enumerate(sorted(params[k]))} for k in two}
        ran = [e for e in doc["cache"].values() if isinstance(e.get("time"), (int, float))]
        load = sorted(sum(size[k][e[k]] for k in two) for e in ran)
        threshold = load[int(len(load) * (1 - a.fraction))]
        failed = 0
        for e in ran:
            if sum(size[k][e[k]] for k in two) >= threshold:
                e["time"] = "CompilationFailedConfig"
                e.pop("times", None)
                failed += 1
        joined = (" * " if positive else " + ").join(two)
        bound = f"{math.exp(threshold):.4g}" if positive else f"{threshold:.2f}"
        write(doc, path, a.outdir, f"{failed} of {len(doc['cache'])} fail by {joined} >= {bound}")


def sporadic(doc, fraction, rng):
    ran = sorted((k for k, e in doc["cache"].items() if isinstance(e.get("time"), (int, float))))
    chosen = rng.sample(ran, int(round(len(ran) * fraction)))
    for k in chosen:
        doc["cache"][k]["time"] = "RuntimeFailedConfig"
        doc["cache"][k].pop("times", None)
    return len(chosen)


def write(doc, path, outdir, what):
    kernel = os.path.basename(os.path.dirname(path))
    name = os.path.basename(path).replace(".json.gz", "")
    out = os.path.join(outdir, kernel, name + ".json.gz")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with gzip.open(out, "wt") as f:
        json.dump(doc, f)
    print(f"{out}: {what}")


if __name__ == "__main__":
    main()

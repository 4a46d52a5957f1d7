#!/usr/bin/env python3
"""Spaces with many failures, for measuring learned failure avoidance (issue 38; docs/live-tuning.md).

Each input Kernel Tuner cache is copied with a hidden constraint added: the configurations whose two parameters with
the most values are jointly large fail to compile, as a register or shared-memory limit fails a region of a real
space. "Large" by --shape: `ranks` (the default), the sum of their value ranks, each scaled to [0, 1], is above a
threshold (a limit that grows with each value's position in its list); `product`, the product of their values is (a
resource that is the product of the two: threads = block x * block y, shared memory = tile x * tile y * bytes). The
threshold is chosen so that about FRACTION of the configurations that ran fail. The recorded failures stay failures.
Nothing is written into the inputs' folders.

usage: make_failing_spaces.py OUTDIR CACHE.json.gz... [--fraction 0.4] [--shape ranks|product]
"""
import argparse
import gzip
import json
import math
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("caches", nargs="+")
    ap.add_argument("--fraction", type=float, default=0.4)
    ap.add_argument("--shape", choices=["ranks", "product"], default="ranks")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for path in a.caches:
        with gzip.open(path, "rt") as f:
            doc = json.load(f)
        params = doc["tune_params"]
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
        kernel = os.path.basename(os.path.dirname(path))
        name = os.path.basename(path).replace(".json.gz", "")
        out = os.path.join(a.outdir, kernel, name + ".json.gz")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with gzip.open(out, "wt") as f:
            json.dump(doc, f)
        joined = (" * " if positive else " + ").join(two)
        bound = f"{math.exp(threshold):.4g}" if positive else f"{threshold:.2f}"
        print(f"{out}: {failed} of {len(doc['cache'])} fail by {joined} >= {bound}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Sub-spaces of brute-forced spaces, for training strategies on more budget regimes (issue 35).

A sub-space fixes one or two parameters of a brute-forced Kernel Tuner cache to one of their values and keeps the
recorded configurations that have it. It is a real space (every configuration measured on a real GPU) with fewer
configurations and another distribution, so its methodology budget differs from its parent's: fixing a parameter
that matters a lot leaves spaces where random search reaches 95% of the way to the optimum within 5-50 evaluations,
the regime the parents rarely show. Deterministic for a seed.

usage: subspaces.py OUT_DIR SPACE.json.gz... [--per-space N] [--seed S] [--min-valid M]
writes OUT_DIR/<kernel>/<gpu>__<param>=<value>[__<param>=<value>].json.gz; the kernel folder is the parent's, so
leave-one-kernel-out folds keep a sub-space with its parent.
"""
import argparse
import gzip
import json
import math
import os
import random


def valid_time(record, objective):
    t = record.get(objective)
    return isinstance(t, (int, float)) and math.isfinite(t) and t > 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("spaces", nargs="+")
    ap.add_argument("--per-space", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--min-valid", type=int, default=64)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    for path in a.spaces:
        kernel = os.path.basename(os.path.dirname(path))
        gpu = os.path.basename(path).split(".")[0]
        with gzip.open(path) as f:
            data = json.load(f)
        names = data.get("tune_params_keys", list(data["tune_params"]))
        objective = data.get("objective", "time")
        varying = [n for n in names if len(data["tune_params"][n]) > 1]
        made, tries = set(), 0
        while len(made) < a.per_space and tries < 50 * a.per_space:
            tries += 1
            fixed = sorted(rng.sample(varying, rng.choice([1, 1, 2])))
            values = {n: rng.choice(data["tune_params"][n]) for n in fixed}
            key = tuple((n, json.dumps(values[n])) for n in fixed)
            if key in made:
                continue
            cache = {k: r for k, r in data["cache"].items() if all(r.get(n) == values[n] for n in fixed)}
            if sum(valid_time(r, objective) for r in cache.values()) < a.min_valid:
                continue
            made.add(key)
            sub = {k: v for k, v in data.items() if k != "cache"}
            sub["tune_params"] = {n: ([values[n]] if n in values else data["tune_params"][n]) for n in names}
            sub["cache"] = cache
            tag = "__".join(f"{n}={values[n]}" for n in fixed)
            os.makedirs(os.path.join(a.out, kernel), exist_ok=True)
            with gzip.open(os.path.join(a.out, kernel, f"{gpu}__{tag}.json.gz"), "wt") as f:
                json.dump(sub, f)


if __name__ == "__main__":
    main()

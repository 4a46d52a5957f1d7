#!/usr/bin/env python3
"""Derives small synthetic search spaces from benchmark_hub's GPU caches, each reproducing what hurts strategies on
unseen spaces (issue 22): tiny budgets, bimodal runtimes, many failing configurations. Extra validation spaces for
`ktune compare --by-space` and `ktune hypertune --cv` (docs/hyperparameters.md, "Synthetic spaces").

  scripts/make_synthetic_spaces.py [--hub DIR] [--out DIR]

Each space is a Kernel Tuner cache (gzip JSON, like the inputs) written to
tests/data/spaces/synthetic/<kernel>_<variant>/<gpu>.json.gz: the folder names the kernel (for `--cv kernel`), the
file the GPU. The script is deterministic (fixed seed, sorted keys), so running it again gives the same files.

How a space is made:
1. A sub-grid of the source space: some parameters keep only some of their values (the rest of the cache entries
   are dropped), so the space has a few hundred to about two thousand configurations. The optimum of the sub-grid
   is whatever the source says; nothing is tuned towards a strategy.
2. A transformation of the runtimes (and of benchmark_time with them, so that evaluations cost what they measure):
   - tiny_budget: t' = opt * (t / opt)^k, k such that the median is 10x the optimum (at least 2): the median moves much further from the optimum, so the methodology's
     budget becomes a few dozen evaluations and few configurations are near the optimum;
   - bimodal: the configurations that share the optimum's value of a binary parameter keep a heavy tail (as
     tiny_budget), the others are squeezed into a tight band from 3x the optimum upwards: a mode that looks better
     on average and never holds the optimum, a trap for exploitation (what MI250X convolution does with use_shmem);
   - failures: about 45% of the configurations fail, clustered (a failing configuration's neighbours in one
     parameter fail more often), CompilationFailedConfig and RuntimeFailedConfig; the optimum stays valid.
Fields other than the parameters, time and the time keys are dropped to keep the files small.
"""
import argparse
import gzip
import json
import math
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUB = os.path.join(os.path.dirname(ROOT), "shared", "data", "benchmark_hub", "cachefiles")
OUT = os.path.join(ROOT, "tests", "data", "spaces", "synthetic")
TIME_KEYS = ("compile_time", "verification_time", "benchmark_time", "strategy_time", "framework_time")

# (source folder, GPU file, kept values per parameter (others: all), variant, binary parameter for bimodal)
SPACES = [
    ("convolution_milo", "A100", {"block_size_x": [16, 32, 64, 128], "block_size_y": [1, 2, 4]}, "tiny_budget", None),
    ("convolution_milo", "A4000", {"block_size_x": [16, 32, 48, 64, 128], "block_size_y": [1, 2, 4],
                                   "tile_size_y": [1, 2, 4]}, "bimodal", "use_shmem"),
    ("dedispersion_milo", "A4000", {"block_size_y": [1, 2, 4, 8, 16, 32]}, "tiny_budget", None),
    ("dedispersion_milo", "MI250X", {"block_size_y": [1, 2, 4, 8, 16, 32], "tile_size_y": [1, 2, 4, 8]},
     "failures", None),
    ("pnpoly", "RTX_Titan", {"block_size_x": [32, 64, 128, 256, 512, 1024], "tile_size": [1, 2, 4, 8, 12, 16, 20]},
     "failures", None),
    ("gemm_clblast", "RTX_Titan", {"MWG": [64, 128], "NWG": [64, 128], "VWM": [1, 2, 4], "VWN": [1, 2, 4],
                                   "MDIMC": [8, 16], "NDIMC": [8, 16], "MDIMA": [8, 16], "NDIMB": [8, 16]}, "bimodal", "SA"),
]


def is_ok(entry):
    t = entry.get("time")
    return isinstance(t, (int, float)) and t < 1e20


def transform(entries, variant, binary, rng):
    """The variant's runtimes: {key: new time or an error name}."""
    ok = {k: e["time"] for k, e in entries.items() if is_ok(e)}
    opt_key = min(ok, key=ok.get)
    opt = ok[opt_key]
    out = {k: e["time"] for k, e in entries.items()}
    # The power that puts the median at 10x the optimum (at least 2): flat and steep sources both get a tiny budget.
    median = sorted(ok.values())[len(ok) // 2]
    power = max(2.0, math.log(10.0) / math.log(max(median / opt, 1.0001)))
    if variant == "tiny_budget":
        for k, t in ok.items():
            out[k] = opt * (t / opt) ** power
    elif variant == "bimodal":
        mode = entries[opt_key][binary]
        other = sorted(t for k, t in ok.items() if entries[k][binary] != mode)
        lo, hi = other[0], other[-1]
        for k, t in ok.items():
            if entries[k][binary] == mode:
                out[k] = opt * (t / opt) ** power
            else:  # a tight band from 3x the optimum: better on average, never near the optimum
                out[k] = opt * (3.0 + 1.5 * (t - lo) / max(hi - lo, 1e-12))
    elif variant == "failures":
        keys = sorted(entries)
        params = [p for p in entries[keys[0]] if p not in ("time",) + TIME_KEYS]
        # Clustered failures: a hash of all parameters but one decides a "failing line" in that parameter.
        line_fails = {}
        for k in keys:
            if k == opt_key or not is_ok(entries[k]):
                continue
            p = params[rng.randrange(len(params))]
            line = json.dumps([p] + [entries[k][q] for q in params if q != p])
            if line not in line_fails:
                line_fails[line] = rng.random() < 0.4
            if line_fails[line] or rng.random() < 0.1:
                out[k] = "CompilationFailedConfig" if rng.random() < 0.6 else "RuntimeFailedConfig"
    return out


def make(folder, gpu, keep, variant, binary, hub, out_dir):
    with gzip.open(os.path.join(hub, folder, gpu + ".json.gz"), "rt", encoding="utf-8") as f:
        source = json.load(f)
    tune_params = {p: [v for v in vs if p not in keep or v in keep[p]] for p, vs in source["tune_params"].items()}
    entries = {}
    for key, e in source["cache"].items():
        if all(e[p] in tune_params[p] for p in tune_params):
            entries[key] = e
    rng = random.Random(22)
    times = transform(entries, variant, binary, rng)
    cache = {}
    for key in sorted(entries):
        e = entries[key]
        new = {p: e[p] for p in source["tune_params_keys"]}
        t = times[key]
        new["time"] = t
        for tk in TIME_KEYS:
            v = e.get(tk, 0)
            if tk == "benchmark_time" and isinstance(t, float) and is_ok(e) and isinstance(v, (int, float)):
                v = v * t / e["time"]  # the benchmark repeats the kernel: it takes as long as the new runtime says
            if tk == "benchmark_time" and isinstance(t, str):
                v = 0
            new[tk] = round(v, 4) if isinstance(v, float) else v
        if isinstance(t, float):
            new["time"] = round(t, 6)
        cache[key] = new
    document = {
        "device_name": source["device_name"] + " (synthetic " + variant + ")",
        "kernel_name": source["kernel_name"],
        "problem_size": source["problem_size"],
        "tune_params_keys": source["tune_params_keys"],
        "tune_params": tune_params,
        "objective": source.get("objective", "time"),
        "cache": cache,
    }
    kernel = folder.replace("_milo", "") + "_" + variant
    os.makedirs(os.path.join(out_dir, kernel), exist_ok=True)
    path = os.path.join(out_dir, kernel, gpu + ".json.gz")
    text = json.dumps(document, sort_keys=False, separators=(",", ":"))
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(text.encode("utf-8"))
    ok = [v["time"] for v in cache.values() if isinstance(v["time"], float)]
    print(f"{path}: {len(cache)} configurations, {len(cache) - len(ok)} failing, optimum {min(ok):.4g}, "
          f"median {sorted(ok)[len(ok) // 2] / min(ok):.1f}x the optimum, {os.path.getsize(path)} bytes")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", default=HUB, help="benchmark_hub's cachefiles folder")
    parser.add_argument("--out", default=OUT, help="where the spaces go")
    args = parser.parse_args()
    for folder, gpu, keep, variant, binary in SPACES:
        make(folder, gpu, keep, variant, binary, args.hub, args.out)


if __name__ == "__main__":
    main()

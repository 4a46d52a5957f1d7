#!/usr/bin/env python3
"""Prints the score tables of docs/strategies.md ("Scores on the six training spaces") for the current defaults.

  scripts/strategy_score_tables.py > /tmp/tables.md   (KTUNE: the binary, default build/ktune; SHARED: ../shared)

Three tables: constraint-aware against classic twins over seeds 0-9 on the six training spaces; the same pairs on
four held-out spaces (seeds 0-3); every strategy at seed 0 with its score per training space.
"""
import json
import os
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KTUNE = os.environ.get("KTUNE", os.path.join(ROOT, "build", "ktune"))
SHARED = os.environ.get("SHARED", os.path.join(ROOT, "..", "shared"))
CACHES = os.path.join(SHARED, "data", "benchmark_hub", "cachefiles")
TRAIN = [os.path.join(CACHES, app, gpu + ".json.gz") for app in ("convolution_milo", "dedispersion_milo")
         for gpu in ("A100", "A4000", "MI250X")]
TEST = [os.path.join(CACHES, app, gpu + ".json.gz") for app in ("gemm_clblast", "pnpoly") for gpu in ("RTX_3090", "RTX_Titan")]
TWINS = ["genetic_algorithm", "pso", "firefly_algorithm", "diff_evo"]


def compare(spaces, labels, seed):
    out = subprocess.run([KTUNE, "compare", "--json", "--seed", str(seed), "--spaces", *spaces, "--strategies", *labels],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def strategies():
    listing = json.loads(subprocess.run([KTUNE, "strategies", "--json"], check=True, capture_output=True, text=True).stdout)
    return listing["strategies"] if isinstance(listing, dict) else listing


def main():
    labels = [s for t in TWINS for s in (t, t + ":constraint_aware=false")]
    runs = [compare(TRAIN, labels, seed)["aggregate"] for seed in range(10)]
    print("| strategy | aware | unaware | difference | aware ahead in |\n|---|---|---|---|---|")
    for t in TWINS:
        a = [r[t]["score"] for r in runs]
        u = [r[t + ":constraint_aware=false"]["score"] for r in runs]
        ahead = sum(x > y for x, y in zip(a, u))
        print(f"| `{t}` | {statistics.mean(a):.3f} ({min(a):.3f}–{max(a):.3f}) | {statistics.mean(u):.3f} "
              f"({min(u):.3f}–{max(u):.3f}) | {statistics.mean(a) - statistics.mean(u):+.3f} | {ahead} of 10 seeds |")
    print()

    held = labels + ["bayes_opt", "hybrid_vndx", "random_sample"]
    runs = [compare(TEST, held, seed)["aggregate"] for seed in range(4)]
    print("| strategy | aware | unaware |\n|---|---|---|")
    for t in TWINS + ["bayes_opt", "hybrid_vndx", "random_sample"]:
        aware = statistics.mean(r[t]["score"] for r in runs)
        twin = t + ":constraint_aware=false"
        unaware = f"{statistics.mean(r[twin]['score'] for r in runs):.3f}" if twin in runs[0] else ""
        print(f"| `{t}` | {aware:.3f} | {unaware} |")
    print()

    every = []
    for s in strategies():
        if s["name"] in ("brute_force", "nsga2", "nsga3"):
            continue
        every.append(s["name"])
        if any(h["name"] == "constraint_aware" for h in s["hyperparameters"]):
            every.append(s["name"] + ":constraint_aware=false")
    report = compare(TRAIN, every, 0)
    names = [s["name"] for s in report["spaces"]]
    print("| strategy | score | A100_conv | A4000_conv | MI250X_conv | A100_dedisp | A4000_dedisp | MI250X_dedisp |")
    print("|---|---|---|---|---|---|---|---|")
    order = ["A100_convolution_milo", "A4000_convolution_milo", "MI250X_convolution_milo", "A100_dedispersion_milo",
             "A4000_dedispersion_milo", "MI250X_dedispersion_milo"]
    by_space = {s["name"]: s["scores"] for s in report["spaces"]}
    assert sorted(names) == sorted(order), names
    for label in sorted(every, key=lambda l: -report["aggregate"][l]["score"]):
        a = report["aggregate"][label]
        cells = " | ".join(f"{by_space[n][label]:.3f}" for n in order)
        print(f"| `{label}` | {a['score']:.3f} ± {a['error']:.3f} | {cells} |")


if __name__ == "__main__":
    main()

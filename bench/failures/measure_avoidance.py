#!/usr/bin/env python3
"""Learned failure avoidance measured (issue 38; docs/live-tuning.md): failing evaluations and the best time found,
per strategy, with and without --avoid-failures, cold and with transfer sources (the same kernel's other devices).

Each space is replayed with `ktune tune --simulate` for every strategy and seed; the sources of a space are the other
caches in its kernel's folder (leave one device out). Prints one row per strategy and mode: failing evaluations
summed over spaces and seeds, the change against the same mode without avoidance, and the geometric mean of the best
time's ratio to it; then the same summed over the strategies, per mode.

usage: measure_avoidance.py KTUNE SPACES_DIR [--sources-dir DIR] [--strategies ...] [--seeds 5]
                             [--evals 100|methodology] [--modes cold transfer] [--jobs 2]
--evals methodology: each space's own methodology budget in evaluations (the `fevals_end` of `ktune compare`, the
budget its score is taken at) instead of one count for all.
"""
import argparse
import concurrent.futures
import glob
import json
import math
import os
import subprocess


def run(ktune, space, strategy, seed, evals, avoid, sources):
    cmd = [ktune, "tune", "--simulate", space, "--strategy", strategy, "--max-fevals", str(evals),
           "--seed", str(seed), "--json", "--quiet"]
    if avoid:
        cmd.append("--avoid-failures")
    if sources:
        cmd += ["--transfer"] + sources
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    failed = sum(n for status, n in out["statuses"].items() if status != "ok")
    best = out["best"]["value"] if out.get("best") else math.inf
    return failed, best


def methodology_budget(ktune, space):
    """The evaluations the methodology gives this space (its score is taken at that budget)."""
    cmd = [ktune, "compare", "--spaces", space, "--strategies", "random_sample", "--repeats", "1", "--json"]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return int(out["spaces"][0]["stats"]["fevals_end"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ktune")
    ap.add_argument("spaces_dir")
    ap.add_argument("--strategies", nargs="+", default=["random_sample", "pso", "simulated_annealing", "diff_evo",
                                                         "genetic_algorithm", "hybrid_vndx", "bayes_opt", "auto"])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--evals", default="100", help="a count, or 'methodology': each space's methodology budget")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--modes", nargs="+", default=["cold", "transfer"])
    ap.add_argument("--sources-dir", help="take the transfer sources from here (same kernel folder, other devices) "
                    "instead of SPACES_DIR: sources whose failures differ from the spaces'")
    a = ap.parse_args()
    spaces = sorted(glob.glob(os.path.join(a.spaces_dir, "*", "*.json.gz")))
    budgets = {space: methodology_budget(a.ktune, space) if a.evals == "methodology" else int(a.evals)
               for space in spaces}
    jobs = {}
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for space in spaces:
            kernel, device = os.path.split(os.path.relpath(space, a.spaces_dir))
            pool_dir = os.path.join(a.sources_dir or a.spaces_dir, kernel)
            others = [s for s in sorted(glob.glob(os.path.join(pool_dir, "*.json.gz")))
                      if os.path.basename(s) != device]
            for strategy in a.strategies:
                for mode in a.modes:
                    for avoid in (False, True):
                        for seed in range(a.seeds):
                            key = (strategy, mode, avoid, space, seed)
                            jobs[key] = pool.submit(run, a.ktune, space, strategy, seed, budgets[space], avoid,
                                                    others if mode == "transfer" else [])
    results = {k: f.result() for k, f in jobs.items()}
    counts = sorted(set(budgets.values()))
    print(f"{len(spaces)} spaces, {a.seeds} seeds, {counts[0] if len(counts) == 1 else counts} evaluations")
    print(f"{'strategy':22} {'mode':9} {'failing':>8} {'avoiding':>9} {'change':>8} {'best ratio':>10}")
    def row(label, mode, strategies):
        base = [results[(g, mode, False, s, k)] for g in strategies for s in spaces for k in range(a.seeds)]
        new = [results[(g, mode, True, s, k)] for g in strategies for s in spaces for k in range(a.seeds)]
        f0, f1 = sum(b[0] for b in base), sum(n[0] for n in new)
        ratios = [n[1] / b[1] for b, n in zip(base, new) if math.isfinite(b[1]) and math.isfinite(n[1])]
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else math.nan
        change = (f1 - f0) / f0 * 100 if f0 else 0.0
        # The space whose failing evaluations fell least (summed over the seeds), with its budget.
        worst = None
        for s in spaces:
            b0 = sum(results[(g, mode, False, s, k)][0] for g in strategies for k in range(a.seeds))
            b1 = sum(results[(g, mode, True, s, k)][0] for g in strategies for k in range(a.seeds))
            c = (b1 - b0) / b0 * 100 if b0 else 0.0
            if worst is None or c > worst[0]:
                worst = (c, budgets[s], os.path.relpath(s, a.spaces_dir))
        print(f"{label:22} {mode:9} {f0:8d} {f1:9d} {change:7.1f}% {gm:10.4f}   least: {worst[0]:+.0f}% "
              f"({worst[2]}, {worst[1]} evaluations)")

    for strategy in a.strategies:
        for mode in a.modes:
            row(strategy, mode, [strategy])
    if len(a.strategies) > 1:
        for mode in a.modes:
            row("(all)", mode, a.strategies)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Learned failure avoidance measured live (issue 38; docs/live-tuning.md): a cpp kernel with a hidden resource limit.

matmul_limit.c is examples/matmul/matmul.c whose accumulator of more than 256 floats fails to compile (#error), as a
GPU kernel that runs out of registers or shared memory fails to build; matmul_limit_cpp.json does not say so (360
configurations, 150 fail). Each strategy tunes it live with `ktune tune`, with and without --avoid-failures, for
each seed; prints the failing evaluations summed over seeds, the deferrals, the geometric mean of the best time found
and the runs' wall time. Timings are live, so the two modes' traces also differ by measurement noise.

usage: measure_live.py KTUNE [--evals 60] [--seeds 5] [--strategies ...]
"""
import argparse
import json
import math
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ktune")
    ap.add_argument("--evals", type=int, default=60)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--strategies", nargs="+", default=["random_sample", "pso", "simulated_annealing", "diff_evo",
                                                         "genetic_algorithm", "hybrid_vndx", "bayes_opt", "auto"])
    a = ap.parse_args()
    problem = os.path.join(HERE, "matmul_limit_cpp.json")
    print(f"{'strategy':20} {'failing':>8} {'avoiding':>8} {'change':>8} {'deferred':>8}  best time (geo. mean)  wall")
    for strategy in a.strategies:
        failing, best, wall = {False: 0, True: 0}, {False: [], True: []}, {False: 0.0, True: 0.0}
        deferred = 0
        for seed in range(a.seeds):
            for avoid in (False, True):
                cmd = [os.path.abspath(a.ktune), "tune", problem, "--strategy", strategy, "--max-fevals",
                       str(a.evals), "--seed", str(seed), "--json", "--quiet"]
                if avoid:
                    cmd.append("--avoid-failures")
                out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
                failing[avoid] += sum(n for status, n in out["statuses"].items() if status != "ok")
                best[avoid].append(out["best"]["value"])
                wall[avoid] += out["wall_seconds"]
                deferred += out.get("deferred", 0) if avoid else 0

        def geo(values):
            return math.exp(sum(math.log(v) for v in values) / len(values))

        change = 100.0 * (failing[True] - failing[False]) / max(1, failing[False])
        print(f"{strategy:20} {failing[False]:8d} {failing[True]:8d} {change:+7.1f}% {deferred:8d}  "
              f"{geo(best[False]):.3f} -> {geo(best[True]):.3f} ms  {wall[False]:.1f} -> {wall[True]:.1f} s",
              flush=True)


if __name__ == "__main__":
    main()

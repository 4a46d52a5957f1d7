#!/usr/bin/env python3
"""Checks the settings found by scripts/hypertune_strategies.sh before they become defaults.

The best of ~100 settings scored once is partly the luckiest: its training score is biased upwards. So, per strategy:
  1. the five best settings of docs/hyperparameters/<strategy>.out.json (seed 0) are scored again on the training
     spaces with fresh seeds (1, 2, 3), beside the current defaults;
  2. the one with the best mean over those seeds is the candidate;
  3. the candidate and the defaults are scored on the held-out spaces (seeds 0-3).
Prints one line per strategy and writes docs/hyperparameters/validation.json.

  scripts/validate_tuned_settings.py [run ...]   (a run: a strategy, or STRATEGY_GRID as scripts/hypertune_strategies.sh
                                                  names it; KTUNE: the binary, default build/ktune; SHARED: ../shared)
"""
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KTUNE = os.environ.get("KTUNE", os.path.join(ROOT, "build", "ktune"))
SHARED = os.environ.get("SHARED", os.path.join(ROOT, "..", "shared"))
CACHES = os.path.join(SHARED, "data", "benchmark_hub", "cachefiles")
TRAIN = [os.path.join(CACHES, app, gpu + "_T4.json.gz") for app in ("convolution_milo", "dedispersion_milo")
         for gpu in ("A100", "A4000", "MI250X")]
TEST = [os.path.join(CACHES, app, gpu + ".json.gz") for app in ("gemm_clblast", "pnpoly") for gpu in ("RTX_3090", "RTX_Titan")]
STRATEGIES = ["genetic_algorithm", "pso", "simulated_annealing", "diff_evo", "firefly_algorithm", "dual_annealing",
              "hybrid_vndx"]


def scores(spaces, labels, seed):
    out = subprocess.run([KTUNE, "compare", "--json", "--seed", str(seed), "--spaces", *spaces, "--strategies", *labels],
                         check=True, capture_output=True, text=True).stdout
    aggregate = json.loads(out)["aggregate"]
    return {label: aggregate[label]["score"] for label in labels}


def registry_defaults(strategy):
    """The strategy's declared defaults as a label, as `ktune hypertune` writes defaults_label."""
    listing = json.loads(subprocess.run([KTUNE, "strategies", "--json"], check=True, capture_output=True,
                                        text=True).stdout)
    entries = listing["strategies"] if isinstance(listing, dict) else listing
    spec = next(s for s in entries if s["name"] == strategy)

    def text(v):
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, float):
            return repr(v)
        return str(v)
    return strategy + ":" + ",".join(f"{h['name']}={text(h['default'])}" for h in spec["hyperparameters"])


def mean_over(spaces, labels, seeds):
    per_seed = [scores(spaces, labels, s) for s in seeds]
    return {label: statistics.mean(p[label] for p in per_seed) for label in labels}


def main():
    strategies = sys.argv[1:] or STRATEGIES
    path = os.path.join(ROOT, "docs", "hyperparameters", "validation.json")
    report = json.load(open(path)) if os.path.exists(path) else {}
    for name in strategies:
        run = json.load(open(os.path.join(ROOT, "docs", "hyperparameters", name + ".out.json")))
        strategy = run["strategy"]
        top = [r["label"] for r in run["results"] if r["score"] is not None][:5]
        # The current defaults, written out, so that the check still means "versus these" once they change.
        defaults = run.get("defaults_label") or registry_defaults(strategy)
        train = mean_over(TRAIN, top + [defaults], [1, 2, 3])
        candidate = max(top, key=lambda label: train[label])
        test = mean_over(TEST, [candidate, defaults], [0, 1, 2, 3])
        report[name] = {"candidate": candidate, "defaults": defaults,
                            "train_fresh_seeds": {"candidate": train[candidate], "defaults": train[defaults]},
                            "test": {"candidate": test[candidate], "defaults": test[defaults]},
                            "top5_train_fresh_seeds": {label: train[label] for label in top}}
        verdict = "adopt" if train[candidate] > train[defaults] and test[candidate] > test[defaults] else "keep"
        report[name]["verdict"] = verdict
        print(f"{name:26} train {train[candidate]:.3f} vs {train[defaults]:.3f}  "
              f"test {test[candidate]:.3f} vs {test[defaults]:.3f}  {verdict}  {candidate}", flush=True)
        json.dump(report, open(path, "w"), indent=1)


if __name__ == "__main__":
    main()

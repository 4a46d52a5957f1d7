#!/bin/bash
# "Tuning the tuner": the benchmark_hub grids of GA, PSO, DE, Firefly, SA and dual annealing scored by hypertune on the
# six training spaces (25 repeats), each report ending with the paper's sensitivity analysis (Kruskal-Wallis,
# mutual information, the setting closest to the mean). Minutes per strategy on 2 cores.
#   scripts/reproduce/hypertuning.sh [STRATEGY...]     (default: all six)
set -euo pipefail
source "$(dirname "$0")/common.sh"
strategies=("$@")
[ ${#strategies[@]} -eq 0 ] && strategies=(genetic_algorithm pso diff_evo firefly_algorithm simulated_annealing dual_annealing)
for strategy in "${strategies[@]}"; do
  "$KTUNE" hypertune --strategy "$strategy" --spaces "${S6[@]}" --repeats 25 \
    --hyperspace "$SHARED/data/benchmark_hub/hyperparametertuning/algorithms/metatuning_$strategy.json" \
    --output "$OUT/hypertune_$strategy.json"
done

#!/bin/bash
# "Constraint-aware optimisation": GA, PSO, DE and Firefly as the paper publishes them (variant=paper), aware against
# their blind baselines, ktune's own aware/classic twins of GA, PSO, DE and Firefly, and pyATF's own simulated annealing
# and differential evolution, on the six training spaces, 100 repeats each, seeds 0-2 (docs/reproducing.md has the
# paper's numbers beside ours); then the gain against the sparsity of 24 spaces (the paper's Fig. 5,
# $OUT/constraint_aware_density.svg). 71 s on 2 cores.
#   scripts/reproduce/constraint_aware.sh      (KTUNE, SHARED, OUT as in common.sh)
set -euo pipefail
source "$(dirname "$0")/common.sh"
PAPER=()
for a in genetic_algorithm pso firefly_algorithm diff_evo; do
  PAPER+=("$a:variant=paper" "$a:variant=paper,constraint_aware=false")
done
for seed in 0 1 2; do
  "$KTUNE" compare --spaces "${S6[@]}" --repeats 100 --seed "$seed" --json \
    --strategies "${PAPER[@]}" > "$OUT/constraint_aware_paper_seed$seed.json"
  "$KTUNE" compare --spaces "${S6[@]}" --repeats 100 --seed "$seed" --strategies "${PAPER[@]}"
done
"$KTUNE" compare --spaces "${S6[@]}" --repeats 100 --seed 0 --plot "$OUT/constraint_aware_twins" \
  --strategies genetic_algorithm genetic_algorithm:constraint_aware=false pso pso:constraint_aware=false \
               diff_evo diff_evo:constraint_aware=false firefly_algorithm firefly_algorithm:constraint_aware=false
"$KTUNE" compare --spaces "${S6[@]}" --repeats 100 --seed 0 \
  --strategies pyatf_simulated_annealing pyatf_differential_evolution genetic_algorithm pso diff_evo firefly_algorithm
# Fig. 5: the twelve benchmark_hub caches and ktune's twelve PoCL caches (Kernel Tuner format: their tune_params give
# the Cartesian product).
CACHES=()
for f in "$SHARED"/data/benchmark_hub/cachefiles/*/*.json.gz "$ROOT"/bench/spaces/cachefiles/*/*.json.gz; do
  case "$f" in *_T4.json.gz) ;; *) CACHES+=("$f") ;; esac
done
/usr/bin/python3 "$ROOT/scripts/reproduce/constraint_aware_density.py" "$OUT/constraint_aware_density.svg" \
  "${CACHES[@]}" --ktune "$KTUNE" --repeats 100 --seed 0

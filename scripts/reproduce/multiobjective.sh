#!/bin/bash
# The multi-objective thesis: NSGA-II and NSGA-III against random search on ktune's five-objective data (time, memory,
# MRE, NRMSE, NMAE; tests/data/multiobjective), 200 evaluations, 100 repeats, IGD+ at every checkpoint and the
# figures with the quartile band. Seconds.
set -euo pipefail
source "$(dirname "$0")/common.sh"
for kernel in dot gemm convolution; do
  "$KTUNE" compare --spaces "$ROOT/tests/data/multiobjective/${kernel}_cache.json.gz" \
    --objectives time,memory,MRE,NRMSE,NMAE --strategies nsga2 nsga3 --budget 200 --repeats 100 --seed 0 \
    --plot "$OUT/multiobjective_$kernel"
done

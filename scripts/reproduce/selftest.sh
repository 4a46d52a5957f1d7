#!/bin/bash
# The check `ctest -R Reproduce.Scripts` runs: every reproduction script parses, the density analysis runs on three
# spaces with few repeats, and the shortest script (the multi-objective one, a second) runs to the end. KTUNE, SHARED
# and OUT as in common.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for script in "$here"/*.sh; do bash -n "$script"; done
for script in construction.py construction_python_constraint.py; do
  /usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$here/$script"
done
source "$here/common.sh"
/usr/bin/python3 "$here/constraint_aware_density.py" "$OUT/constraint_aware_density_selftest.svg" --ktune "$KTUNE" \
  --repeats 3 "$SHARED/data/benchmark_hub/cachefiles/pnpoly/RTX_3090.json.gz" \
  "$SHARED/data/benchmark_hub/cachefiles/gemm_clblast/RTX_Titan.json.gz" \
  "$ROOT/bench/spaces/cachefiles/hotspot_ocl/pocl_1024.json.gz" | grep "mean of the four"
"$here/multiobjective.sh"

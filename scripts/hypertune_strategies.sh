#!/usr/bin/env bash
# Tunes the hyperparameters of our main strategies on the six training spaces (convolution and dedispersion on A100,
# A4000, MI250X) and re-scores the best, median and worst settings and the current defaults on held-out spaces
# (CLBlast GEMM and pnpoly on RTX 3090 and RTX Titan). A run is named STRATEGY or STRATEGY_GRID; it writes
# docs/hyperparameters/<run>.json (the scores, a Kernel Tuner cache: rerunning resumes it) and
# docs/hyperparameters/<run>.out.json (`ktune hypertune --json`).
#
#   scripts/hypertune_strategies.sh                       # the first round: every strategy below
#   scripts/hypertune_strategies.sh pso diff_evo          # only these
#   scripts/hypertune_strategies.sh pso_wide              # the grid docs/hyperparameters/spaces/pso_wide.json
#
# Grids: for a plain strategy name benchmark_hub's (the tuning-the-tuner paper's) where our strategy has those
# hyperparameters, else docs/hyperparameters/spaces/<run>.json. Environment: KTUNE (the binary, default
# build/ktune), SHARED (../shared).
set -euo pipefail
cd "$(dirname "$0")/.."

KTUNE=${KTUNE:-build/ktune}
SHARED=${SHARED:-../shared}
C=$SHARED/data/benchmark_hub/cachefiles
HUB=$SHARED/data/benchmark_hub/hyperparametertuning/algorithms
OUT=docs/hyperparameters
TRAIN=()
for app in convolution_milo dedispersion_milo; do
  for gpu in A100 A4000 MI250X; do TRAIN+=("$C/$app/${gpu}_T4.json.gz"); done
done
TEST=("$C/gemm_clblast/RTX_3090.json.gz" "$C/gemm_clblast/RTX_Titan.json.gz" "$C/pnpoly/RTX_3090.json.gz"
      "$C/pnpoly/RTX_Titan.json.gz")

grid_of() {
  case $1 in
    genetic_algorithm | pso | simulated_annealing | diff_evo | firefly_algorithm) echo "$HUB/metatuning_$1.json" ;;
    *) echo "$OUT/spaces/$1.json" ;;
  esac
}
# The strategy of a run: the longest registered name that the run name starts with.
strategy_of() {
  local best=""
  for name in $("$KTUNE" strategies --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(" ".join(s["name"] for s in (d["strategies"] if isinstance(d, dict) else d)))'); do
    if [[ $1 == "$name" || $1 == "${name}_"* ]] && [ ${#name} -gt ${#best} ]; then best=$name; fi
  done
  [ -n "$best" ] || { echo "$0: no strategy for run '$1'" >&2; exit 2; }
  echo "$best"
}

strategies=("$@")
[ ${#strategies[@]} -gt 0 ] ||
  strategies=(genetic_algorithm pso simulated_annealing diff_evo firefly_algorithm dual_annealing hybrid_vndx)
[ -x "$KTUNE" ] || { echo "$0: build ktune first (make build)" >&2; exit 2; }
for s in "${strategies[@]}"; do
  echo "== $s on $(grid_of "$s")"
  start=$(date +%s.%N)
  "$KTUNE" hypertune --strategy "$(strategy_of "$s")" --hyperspace "$(grid_of "$s")" --spaces "${TRAIN[@]}" \
    --test-spaces "${TEST[@]}" --repeats 25 --seed 0 --output "$OUT/$s.json" --json --quiet >"$OUT/$s.out.json"
  end=$(date +%s.%N)
  python3 - "$OUT/$s.out.json" "$start" "$end" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"  {d['evaluations']} settings scored ({d['resumed']} resumed) in {float(sys.argv[3]) - float(sys.argv[2]):.1f} s")
for r in d["test"]["rows"]:
    print(f"  {r['role']:8} train {r['train']:.3f}  test {r['test']:.3f}  {r['label']}")
EOF
done

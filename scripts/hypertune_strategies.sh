#!/usr/bin/env bash
# Tunes the hyperparameters of our main strategies on the six training spaces (convolution and dedispersion on A100,
# A4000, MI250X), re-scores the best, median and worst settings and the defaults on held-out spaces (CLBlast GEMM and
# pnpoly on RTX 3090 and RTX Titan), and confirms the five best with fresh seeds against the defaults of the
# strategies issue (`--confirm 5 --defaults ...`: the procedure that decided the shipped defaults). A run is named
# STRATEGY, STRATEGY_GRID or either with _r<REPEATS>; it writes docs/hyperparameters/<run>.json (the scores, a Kernel
# Tuner cache: rerunning resumes it, so only the confirmation is computed again) and <run>.out.json (`--json`).
#
#   scripts/hypertune_strategies.sh                       # round 1: every strategy below on its benchmark_hub grid
#   scripts/hypertune_strategies.sh pso diff_evo          # only these
#   scripts/hypertune_strategies.sh pso_wide              # the grid docs/hyperparameters/spaces/pso_wide.json
#   scripts/hypertune_strategies.sh simulated_annealing_wide_r100   # that grid, 100 repeats per setting
#   scripts/hypertune_strategies.sh simulated_annealing_schedule_r100   # the schedule only (neighbourhood fixed)
#
# Grids: for a plain strategy name benchmark_hub's (the tuning-the-tuner paper's) where our strategy has those
# hyperparameters, else docs/hyperparameters/spaces/<run without _r<N>>.json. Environment: KTUNE (the binary, default
# build/ktune), SHARED (../shared), CONFIRM_SEEDS (fresh training seeds of the confirmation, default 3; the held-out
# scores use seed 0 and these).
set -euo pipefail
cd "$(dirname "$0")/.."

KTUNE=${KTUNE:-build/ktune}
CONFIRM_SEEDS=${CONFIRM_SEEDS:-3}
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

# The defaults of the strategies issue, before any were tuned: what every run is confirmed against.
old_defaults() {
  case $1 in
    genetic_algorithm) echo "genetic_algorithm:popsize=26,maxiter=90,method=single_point,mutation_chance=55,elitism=1,sampling=lhs,initial_popsize=0,mutation=Hamming,constraint_aware=True" ;;
    pso) echo "pso:popsize=50,maxiter=190,w=0.5,c1=3.5,c2=1.0,constraint_aware=True" ;;
    simulated_annealing) echo "simulated_annealing:T=0.1,T_min=0.0001,alpha=0.9975,maxiter=1,neighbor=Hamming,constraint_aware=True,start_sample=1" ;;
    diff_evo) echo "diff_evo:method=best1bin,popsize=16,popsize_times_dimensions=False,F=0.7,CR=0.6,maxiter=1000000000,constraint_aware=True" ;;
    firefly_algorithm) echo "firefly_algorithm:popsize=20,maxiter=100,B0=1.0,gamma=1.0,alpha=0.2,constraint_aware=True" ;;
    dual_annealing) echo "dual_annealing:method=COBYLA,maxiter=1000,local_maxiter=100,initial_temp=5230.0,restart_temp_ratio=2e-05,visit=2.62,accept=-5.0,constraint_aware=True" ;;
    hybrid_vndx) echo "hybrid_vndx:budget=5000,k=5,cand_pool=8,restart_iter=100,tabu_size=300,elite_size=5,temp0=1.0,cooling=0.995,constraint_aware=True" ;;
    *) echo "$0: no old defaults for $1" >&2; exit 2 ;;
  esac
}

strategies=("$@")
[ ${#strategies[@]} -gt 0 ] ||
  strategies=(genetic_algorithm pso simulated_annealing diff_evo firefly_algorithm dual_annealing hybrid_vndx)
[ -x "$KTUNE" ] || { echo "$0: build ktune first (make build)" >&2; exit 2; }
for run in "${strategies[@]}"; do
  repeats=25
  grid_name=$run
  if [[ $run =~ ^(.*)_r([0-9]+)$ ]]; then
    grid_name=${BASH_REMATCH[1]}
    repeats=${BASH_REMATCH[2]}
  fi
  strategy=$(strategy_of "$grid_name")
  echo "== $run: $strategy on $(grid_of "$grid_name"), $repeats repeats"
  "$KTUNE" hypertune --strategy "$strategy" --hyperspace "$(grid_of "$grid_name")" --spaces "${TRAIN[@]}" \
    --test-spaces "${TEST[@]}" --repeats "$repeats" --seed 0 --confirm 5 --confirm-seeds "$CONFIRM_SEEDS" \
    --defaults "$(old_defaults "$strategy")" \
    --output "$OUT/$run.json" --json --quiet >"$OUT/$run.out.json"
  python3 - "$OUT/$run.out.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
print(f"  {d['evaluations']} settings scored ({d['resumed']} resumed) in {d['wall_seconds']:.1f} s")
for r in d["test"]["rows"]:
    print(f"  {r['role']:8} train {r['train']:.3f}  test {r['test']:.3f}  {r['label']}")
c = d["confirmation"]
print(f"  {c['verdict']:8} train {c['recommended']['confirmed']:.3f} vs {c['reference']['confirmed']:.3f}  "
      f"test {c['recommended']['test']:.3f} vs {c['reference']['test']:.3f}  {c['recommended']['label']}")
EOF
done

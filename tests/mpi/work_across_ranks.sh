#!/usr/bin/env bash
# `mpirun -np 3 ktune compare --json` prints exactly what one process prints (the runs are seeded per run, dealt over
# the ranks and gathered); `mpirun -np 3 ktune hypertune` scores the same settings with the same scores, resumes its
# cache the same way, and leaves no rank's private copy behind; a verb that does not share its work refuses to run on
# several ranks. (A live tune across ranks: live_tune_across_ranks.sh.)
#   work_across_ranks.sh KTUNE MPIEXEC SHARED_DIR
set -euo pipefail
ktune=$1 mpiexec=$2 shared=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Root may start ranks (CI runs as root); shared memory between local ranks only.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
spaces=("$shared/data/benchmark_hub/cachefiles/convolution_milo/A4000.json.gz"
        "$shared/data/benchmark_hub/cachefiles/dedispersion_milo/A100.json.gz")
args=(compare --json --quiet --repeats 7 --seed 5 --spaces "${spaces[@]}" --strategies random_sample genetic_algorithm pso)
"$ktune" "${args[@]}" > "$work/one.json"
"$mpiexec" --oversubscribe -np 3 "$ktune" "${args[@]}" > "$work/three.json"
cmp "$work/one.json" "$work/three.json"
test -s "$work/one.json"
echo "compare: -np 3 output identical to one process ($(wc -c < "$work/one.json") bytes)"
# hypertune: the same report (times aside) and cache, in one go and resumed with a larger budget.
hyper=(hypertune --strategy greedy_mls --spaces "${spaces[@]}" --repeats 3 --seed 2 --json --quiet)
"$ktune" "${hyper[@]}" --budget 4 --output "$work/h1.json" > /dev/null
"$ktune" "${hyper[@]}" --budget 7 --output "$work/h1.json" > "$work/h1.out"
"$mpiexec" --oversubscribe -np 3 "$ktune" "${hyper[@]}" --budget 4 --output "$work/h3.json" > /dev/null
"$mpiexec" --oversubscribe -np 3 "$ktune" "${hyper[@]}" --budget 7 --output "$work/h3.json" > "$work/h3.out"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
def without_times(x):
    if isinstance(x, dict):
        return {k: without_times(v) for k, v in x.items() if "seconds" not in k}
    if isinstance(x, list):
        return [without_times(v) for v in x]
    return x
one, three = (without_times(json.load(open(f"{work}/{n}.out"))) for n in ("h1", "h3"))
assert one == three, (one, three)
assert one["resumed"] == 4 and one["evaluations"] > 0, (one["resumed"], one["evaluations"])
caches = [json.load(open(f"{work}/{n}.json"))["cache"] for n in ("h1", "h3")]
assert sorted(caches[0]) == sorted(caches[1]) and len(caches[0]) == 4 + one["evaluations"]
PY
if ls "$work"/h3.json.rank* > /dev/null 2>&1; then
  echo "a rank's private copy of the cache was left behind" >&2
  exit 1
fi
echo "hypertune: -np 3 scores and resumes like one process"
if "$mpiexec" --oversubscribe -np 2 "$ktune" tune --simulate "${spaces[0]}" --max-fevals 5 > "$work/tune.out" 2>&1; then
  echo "a simulated tune under mpirun should refuse" >&2
  exit 1
fi
grep -q "under mpirun, tune measures live" "$work/tune.out"
if "$mpiexec" --oversubscribe -np 2 "$ktune" space "${spaces[0]}" > "$work/space.out" 2>&1; then
  echo "space under mpirun should refuse" >&2
  exit 1
fi
grep -q "only \`ktune tune\`, \`ktune compare\` and \`ktune hypertune\` share" "$work/space.out"
echo "simulated tune and space: refused on several ranks"

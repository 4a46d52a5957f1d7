#!/usr/bin/env bash
# `mpirun -np 3 ktune compare --json` prints exactly what one process prints (the runs are seeded per run, dealt over
# the ranks and gathered), and a verb that does not share its work refuses to run on several ranks.
#   compare_across_ranks.sh KTUNE MPIEXEC SHARED_DIR
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
if "$mpiexec" --oversubscribe -np 2 "$ktune" tune --simulate "${spaces[0]}" --max-fevals 5 > "$work/tune.out" 2>&1; then
  echo "tune under mpirun should refuse" >&2
  exit 1
fi
grep -q "only \`ktune compare\` shares its work" "$work/tune.out"
echo "tune: refused on several ranks"

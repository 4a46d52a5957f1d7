#!/usr/bin/env bash
# `mpirun -np 3 ktune tune T1` measures live on ranks 1 and 2 while rank 0 runs the strategy: a brute force gives the
# configurations, order and statuses of one process, and both ranks measure; with rank 2 killed (kill -9, its worker
# too) in the middle of the run, the run still ends normally with every configuration measured, in the same order,
# the cache holding all of them, and the report naming the lost rank; a rank that cannot open its device is left out.
#   live_tune_across_ranks.sh KTUNE MPIEXEC
set -euo pipefail
ktune=$1 mpiexec=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none

# A kernel that takes 20-22 ms a launch, so that a run lasts long enough to lose a rank in its middle.
cat > "$work/slow.c" <<'C'
#include <time.h>
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
void slow(float* c, int n) {
  const double start = now_ms();
  while (now_ms() - start < 20 + x % 3) {}
  for (int i = 0; i < n; ++i) c[i] = (float)x;
}
C
values=$(seq -s, 1 24)
cat > "$work/slow.json" <<JSON
{"General": {"BenchmarkName": "slow_cpp", "OutputFormat": "JSON"},
 "ConfigurationSpace": {"TuningParameters": [{"Name": "x", "Type": "int", "Values": "[$values]"}], "Conditions": []},
 "KernelSpecification": {"Language": "C", "KernelName": "slow", "KernelFile": "slow.c", "CompilerOptions": ["-O1"],
   "ProblemSize": [16], "Iterations": 3,
   "Arguments": [{"Name": "c", "Type": "float", "MemoryType": "Vector", "AccessType": "WriteOnly", "Size": 16},
                 {"Name": "n", "Type": "int32", "MemoryType": "Scalar", "FillValue": 16}]}}
JSON
args=(tune "$work/slow.json" --strategy brute_force --json --trace)
"$ktune" "${args[@]}" --quiet > "$work/one.json"
"$mpiexec" --oversubscribe -np 3 "$ktune" "${args[@]}" --quiet --cache "$work/three-cache.json" > "$work/three.json"

# A rank that cannot open its device (rank 1 takes OpenCL device 7, which does not exist) is left out with a note;
# rank 2 measures everything.
vector_add=$(dirname "$0")/../../examples/vector_add/vector_add_opencl.json
"$mpiexec" --oversubscribe -np 3 "$ktune" tune "$vector_add" --strategy brute_force --iterations 1 --devices 0,7 \
  --json --trace > "$work/partial.json" 2> "$work/partial.err"
grep -q "rank 1 cannot measure: .*no device 7" "$work/partial.err" || { cat "$work/partial.err" >&2; exit 1; }

# Lose rank 2 once the run has measured a few configurations. OpenMPI 4 lets the others live on with recovery on.
export OMPI_MCA_orte_enable_recovery=1
"$mpiexec" --oversubscribe -np 3 "$ktune" "${args[@]}" --rank-timeout 2 --cache "$work/killed-cache.json" \
  > "$work/killed.json" 2> "$work/killed.err" &
run=$!
killed=""
for _ in $(seq 600); do
  if [ -s "$work/killed-cache.json" ] && [ "$(grep -c '"x":' "$work/killed-cache.json" || true)" -ge 4 ]; then
    for environ in /proc/[0-9]*/environ; do
      pid=${environ#/proc/}; pid=${pid%/environ}
      if { tr '\0' '\n' < "$environ"; } 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2' &&
         [ "$(cat /proc/"$pid"/comm 2>/dev/null)" = ktune ]; then
        kill -9 "$pid" 2>/dev/null && killed="$killed $pid"
      fi
    done
    break
  fi
  sleep 0.05
done
wait "$run"
test -n "$killed" || { echo "rank 2 was never found to be killed" >&2; exit 1; }
echo "killed rank 2 (pids$killed)"
grep -q "warning: rank 2 lost (rank 2 was silent" "$work/killed.err" || { cat "$work/killed.err" >&2; exit 1; }

python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
one, three, killed = (json.load(open(f"{work}/{n}.json")) for n in ("one", "three", "killed"))
order = lambda r: [(e["index"], e["status"]) for e in r["trace"]]
assert len(order(one)) == 24 and one["statuses"] == {"ok": 24}, one["statuses"]
assert order(three) == order(one), (order(three), order(one))
devices = three["live"]["devices"]
assert [d["where"] for d in devices] == ["rank 1", "rank 2"], devices
assert all(d["evaluations"] > 0 and d["lost"] == "" for d in devices), devices
assert len(json.load(open(f"{work}/three-cache.json"))["cache"]) == 24
# The killed run: nothing lost but rank 2's in-flight work, which rank 1 measured.
assert order(killed) == order(one), (order(killed), order(one))
lost = killed["live"]["devices"][1]
assert "silent" in lost["lost"], lost
assert killed["live"]["devices"][0]["lost"] == "", killed["live"]["devices"]
assert len(json.load(open(f"{work}/killed-cache.json"))["cache"]) == 24
partial = json.load(open(f"{work}/partial.json"))
assert [d["where"] for d in partial["live"]["devices"]] == ["rank 2"], partial["live"]["devices"]
assert partial["live"]["devices"][0]["evaluations"] == len(partial["trace"]) > 0
print(f"live tune: -np 3 like one process; rank 2 killed after {lost['evaluations']} evaluations, "
      f"rank 1 measured the other {killed['live']['devices'][0]['evaluations']}")
PY

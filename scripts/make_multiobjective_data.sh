#!/usr/bin/env bash
# Regenerates the multi-objective test data in tests/data/multiobjective/: brute-forces every kernel there with ktune's
# live cpp backend and stores the Kernel Tuner cache files gzipped (<name>_cache.json.gz).
#
#   scripts/make_multiobjective_data.sh                 # every kernel whose .json.gz is missing
#   scripts/make_multiobjective_data.sh gemm dot        # only these
#   scripts/make_multiobjective_data.sh --force gemm    # measure again even if its .json.gz exists
#
# The timings are only meaningful on an otherwise idle machine (the kernels use up to 2 OpenMP threads; a busy core
# makes a 2-thread configuration wait for its partner). Brute force is resumable: the uncompressed cache in $WORK is
# appended per configuration, so rerunning after an interruption measures only what is missing.
# Environment: KTUNE_DATA_BUILD (build directory, default build-data, kept apart from the developers' build/),
# KTUNE_DATA_WORK (uncompressed caches and run logs, default $KTUNE_DATA_BUILD/multiobjective).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${KTUNE_DATA_BUILD:-build-data}
WORK=${KTUNE_DATA_WORK:-$BUILD/multiobjective}
DATA=tests/data/multiobjective
KTUNE=$BUILD/ktune

force=0
kernels=()
for arg in "$@"; do
  case $arg in
    --force) force=1 ;;
    -h | --help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "$0: unknown option $arg" >&2; exit 2 ;;
    *) kernels+=("$arg") ;;
  esac
done
[ ${#kernels[@]} -gt 0 ] || kernels=(dot gemm convolution)
for name in "${kernels[@]}"; do
  [ -f "$DATA/$name.json" ] || { echo "$0: no T1 file $DATA/$name.json" >&2; exit 2; }
done

if [ ! -x "$KTUNE" ]; then
  echo "== building ktune in $BUILD"
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$BUILD" -j2 --target ktune
fi
mkdir -p "$WORK"

echo "== machine: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for name in "${kernels[@]}"; do
  out=$DATA/${name}_cache.json.gz
  cache=$WORK/${name}_cache.json
  if [ -f "$out" ] && [ $force -eq 0 ]; then
    echo "== $name: $out exists (use --force to measure again)"
    continue
  fi
  if [ $force -eq 1 ]; then rm -f "$cache"; fi
  echo "== $name: brute force, cache $cache"
  start=$(date +%s)
  "$KTUNE" tune "$DATA/$name.json" --strategy brute_force --cache "$cache" --quiet --json >"$WORK/${name}_run.json"
  end=$(date +%s)
  echo "$name: brute force took $((end - start)) s" | tee "$WORK/${name}_time.txt"
  gzip -9 -n -c "$cache" >"$out.tmp"
  mv "$out.tmp" "$out"
  echo "$name: wrote $out ($(stat -c %s "$out") bytes)"
  # The data must replay: a short simulated run over the cache.
  "$KTUNE" tune --simulate "$out" --strategy random_sample --max-fevals 50 --quiet >/dev/null
done

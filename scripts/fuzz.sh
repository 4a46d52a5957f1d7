#!/usr/bin/env bash
# Runs the libFuzzer targets one after another (make fuzz): each for FUZZ_SECONDS on a scratch copy of its seed
# corpus and regression inputs (the committed corpus stays as it is), with a per-input timeout (a hang), an RSS limit,
# and its dictionary. Prints one line of figures per target and exits non-zero if any target found something; the
# input that did it is under $WORK/artifacts/<target>/ (commit it under tests/data/fuzz/<target>/ with the fix).
#   scripts/fuzz.sh BUILD_DIR SECONDS [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:?build directory}
SECONDS_PER_TARGET=${2:?seconds per target}
shift 2
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  TARGETS=(expression solver t1 kernel_tuner_cache t4_results lenient_json results_csv wisdom kernel_tuner_results)
fi
WORK=${FUZZ_WORK:-$BUILD/fuzz-work}
mkdir -p "$WORK"
SUMMARY="$WORK/summary.txt"
: > "$SUMMARY"
failed=0
for t in "${TARGETS[@]}"; do
  corpus="$WORK/corpus/$t"
  artifacts="$WORK/artifacts/$t"
  rm -rf "$corpus" "$artifacts"
  mkdir -p "$corpus" "$artifacts"
  cp fuzz/corpus/"$t"/* "$corpus"/
  if [ -d tests/data/fuzz/"$t" ]; then cp tests/data/fuzz/"$t"/* "$corpus"/; fi
  dict=()
  if [ -f fuzz/dicts/"$t".dict ]; then dict=(-dict=fuzz/dicts/"$t".dict); fi
  log="$WORK/$t.log"
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s (log $log)"
  status=0
  "$BUILD/fuzz_$t" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "${dict[@]}" "$corpus" > "$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  crashes=$(find "$artifacts" -name 'crash-*' | wc -l)
  hangs=$(find "$artifacts" -name 'timeout-*' | wc -l)
  ooms=$(find "$artifacts" -name 'oom-*' | wc -l)
  leaks=$(find "$artifacts" -name 'leak-*' | wc -l)
  reports=$(grep -c -E 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)|runtime error:' "$log" || true)
  line="$t: exit $status, ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, crashes $crashes, hangs $hangs, ooms $ooms, leaks $leaks, sanitizer reports $reports"
  echo "$line" | tee -a "$SUMMARY"
  if [ "$status" -ne 0 ] || [ $((crashes + hangs + ooms + leaks + reports)) -ne 0 ]; then
    failed=1
    grep -E -A25 'ERROR:|runtime error:|==[0-9]+== ' "$log" | head -60 || tail -40 "$log"
  fi
done
echo "fuzz: summary in $SUMMARY"
exit $failed

#!/bin/bash
# "Search-space construction": the 8 real-world and 112 synthetic spaces built, counted against the paper's counts
# and timed, both forms (scripts/reproduce/construction.py); then the construction benchmarks. ~1 min.
set -euo pipefail
source "$(dirname "$0")/common.sh"
/usr/bin/python3 "$ROOT/scripts/reproduce/construction.py" --ktune "$KTUNE" --shared "$SHARED" --json "$OUT/construction.json"
if [ -x "$(dirname "$KTUNE")/ktune_bench" ]; then
  "$(dirname "$KTUNE")/ktune_bench" --benchmark_filter='construct/|BuildBigSpace|Lazy14x8'
fi

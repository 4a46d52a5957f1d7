#!/bin/bash
# "Search-space construction": the 8 real-world and 112 synthetic spaces built, counted against the paper's counts
# and timed, both forms (scripts/reproduce/construction.py); with PYTHON_CONSTRAINT=DIR (a python-constraint checkout)
# python-constraint's times beside ktune's on the same spaces; then the construction benchmarks. ~1 min.
set -euo pipefail
source "$(dirname "$0")/common.sh"
/usr/bin/python3 "$ROOT/scripts/reproduce/construction.py" --ktune "$KTUNE" --shared "$SHARED" --json "$OUT/construction.json"
# python-constraint beside ktune, when a checkout of it is given (it is not in Debian's archive).
if [ -n "${PYTHON_CONSTRAINT:-}" ]; then
  /usr/bin/python3 "$ROOT/scripts/reproduce/construction_python_constraint.py" --python-constraint "$PYTHON_CONSTRAINT" \
    --ktune "$KTUNE" --shared "$SHARED" --json "$OUT/construction_python_constraint.json"
fi
if [ -x "$(dirname "$KTUNE")/ktune_bench" ]; then
  "$(dirname "$KTUNE")/ktune_bench" --benchmark_filter='construct/|BuildBigSpace|Lazy14x8'
fi

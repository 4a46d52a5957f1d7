#!/bin/bash
# "LLM-driven algorithm design": the generated optimisers Kernel Tuner adopted (hybrid_vndx, adaptive_tabu_greywolf)
# against auto on the six training spaces by space; then, given an OpenAI-compatible endpoint, the design loop itself.
#   scripts/reproduce/llm_design.sh [LLM_URL MODEL]     (the key, if any, in KTUNE_LLM_API_KEY; docs/design.md)
set -euo pipefail
source "$(dirname "$0")/common.sh"
"$KTUNE" compare --spaces "${S6[@]}" --strategies hybrid_vndx adaptive_tabu_greywolf auto --by-space --repeats 100 \
  --seed 0 --plot "$OUT/llm_design_compare"
if [ $# -ge 2 ]; then
  "$KTUNE" design --spaces "${S6[@]}" --llm-url "$1" --model "$2" --output "$OUT/llm_design_run"
else
  echo "llm_design: no endpoint given: the design loop itself was not run (pass LLM_URL MODEL)"
fi

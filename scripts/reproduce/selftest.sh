#!/bin/bash
# The check `ctest -R Reproduce.Scripts` runs: every reproduction script parses, and the shortest (the multi-objective
# one, a second) runs to the end. KTUNE, SHARED and OUT as in common.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
for script in "$here"/*.sh; do bash -n "$script"; done
/usr/bin/python3 -c 'import ast, sys; ast.parse(open(sys.argv[1]).read(), sys.argv[1])' "$here/construction.py"
"$here/multiobjective.sh"

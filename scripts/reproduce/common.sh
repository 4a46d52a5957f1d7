# Shared by the scripts/reproduce/*.sh commands: where ktune and the shared data are, and the six training spaces.
# KTUNE (default build/ktune) and SHARED (default ../shared beside the project) may be set by the caller.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
KTUNE="${KTUNE:-$ROOT/build/ktune}"
SHARED="${SHARED:-$(cd "$ROOT/.." && pwd)/shared}"
if [ ! -x "$KTUNE" ]; then
  echo "reproduce: $KTUNE is missing: run 'make build' first (or set KTUNE)" >&2
  exit 1
fi
# The six benchmark_hub training spaces: convolution and dedispersion on A100, A4000 and MI250X.
S6=()
for kernel in convolution_milo dedispersion_milo; do
  for gpu in A100 A4000 MI250X; do S6+=("$SHARED/data/benchmark_hub/cachefiles/$kernel/${gpu}_T4.json.gz"); done
done
OUT="${OUT:-reproduce-out}"
mkdir -p "$OUT"

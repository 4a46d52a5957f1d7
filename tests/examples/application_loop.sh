#!/usr/bin/env bash
# The loop of examples/application/README.md, end to end on PoCL (saxpy) and the cpp backend (smooth): run with
# capture, tune the captured calls (a few live evaluations) into a wisdom file, run again. The second run must
# verify its outputs, report the tuned configurations (exact at the tuned size) and the nearest-size choice at an
# untuned size.
#   application_loop.sh KTUNE APPLICATION WORK_DIRECTORY
set -euo pipefail
ktune=$1
app=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The application as it is, with its calls captured.
KTUNE_CAPTURE='saxpy,smooth' "$app" 65536 | tee run1.txt
grep -q '^saxpy  n=65536 verified: none' run1.txt || fail "first run: saxpy"
grep -q '^smooth n=65536 verified: none' run1.txt || fail "first run: smooth"
for f in saxpy.t1.json saxpy.data/y.bin saxpy.data/x.bin saxpy.data/y.expected.bin saxpy.data/kernel.cl \
         smooth.t1.json smooth.data/in.bin smooth.data/out.expected.bin smooth.data/kernel.c; do
  test -s "capture/$f" || fail "capture/$f is missing"
done

# 2. Tune exactly those calls (verified against the captured outputs); the winners go into the wisdom.
for kernel in saxpy smooth; do
  "$ktune" tune "capture/$kernel.t1.json" --strategy random_sample --max-fevals 4 --seed 1 --wisdom app.wisdom \
    --json > "tune-$kernel.json"
done
test -s app.wisdom || fail "no wisdom written"
cat app.wisdom

# 3. Run again with the wisdom: the tuned size exactly, an untuned size by the nearest tuned one.
KTUNE_WISDOM=app.wisdom "$app" 65536 1000 | tee run2.txt
for kernel in saxpy smooth; do
  # The wisdom's configuration for the kernel: "name=value" pairs from its kernel and best lines.
  names=$(awk -F'\t' -v k="$kernel" '$1 == "kernel" && $2 == k { for (i = 3; i <= NF; ++i) print $i }' app.wisdom)
  values=$(awk -F'\t' -v k="$kernel" -v n="$(echo "$names" | wc -l)" \
           '$1 == "best" && $2 == k { for (i = 8; i < 8 + n; ++i) print $i }' app.wisdom)
  configuration=$(paste -d= <(echo "$names") <(echo "$values") | tr '\n' ' ' | sed 's/ $//')
  [ -n "$configuration" ] || fail "$kernel has no best entry in the wisdom"
  label=$(printf '%-6s' "$kernel")
  grep -q "^$label n=65536 verified: exact: tuned on .* at 65536 .*; $configuration\$" run2.txt ||
    fail "$kernel at 65536 does not report the tuned configuration '$configuration' as exact"
  grep -q "^$label n=1000 verified: nearest problem size: tuned on .* at 65536 for 1000 .*; $configuration\$" run2.txt ||
    fail "$kernel at 1000 does not report the nearest-size choice"
done
echo "application loop: captured, tuned, selected (exact and nearest size) and verified"

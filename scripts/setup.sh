#!/usr/bin/env bash
# Installs (idempotently, by Debian package name) everything ktune needs to build, test, benchmark and fuzz
# (clang and libclang-rt-dev, which has libFuzzer, for `make fuzz`; Debian's python3 with its headers, numpy,
# pytest and pybind11 for the Python module; chromium, headless, for the report pages' tests; libcurl for `ktune design`'s language model; OpenMPI, optional at build
# time, for `mpirun ktune compare`; libseccomp for the sandbox of unreviewed code).
# `setup.sh run` installs only what `make run` needs: not clang (fuzzing) or chromium (the browser tests).
set -euo pipefail
PACKAGES=(
  build-essential cmake make g++ pkg-config
  libgtest-dev libgmock-dev googletest libbenchmark-dev
  nlohmann-json3-dev libcli11-dev libfmt-dev zlib1g-dev
  libeigen3-dev libnlopt-dev libnlopt-cxx-dev
  libcurl4-openssl-dev libopenmpi-dev openmpi-bin
  libseccomp-dev libsqlite3-dev
  libffi-dev ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
  python3 python3-dev python3-numpy python3-pytest python3-jsonschema pybind11-dev
)
if [ "${1:-}" != "run" ]; then
  PACKAGES+=(clang libclang-rt-dev chromium)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

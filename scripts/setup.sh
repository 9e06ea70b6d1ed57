#!/usr/bin/env bash
# Idempotent set-up: installs the system packages Umbra needs (LLVM 22 toolchain, lit, FileCheck,
# cmake) when they are missing. Called first by `make demo`, `make test`, `make bench`.
set -euo pipefail
# libopenblas-dev: the BLAS rules' execution tests; libadolc-dev: the benchmark suite's ADOL-C
# column (make test builds and checks the benchmarks at small sizes too); fonts-dejavu-core: the
# font bench/report draws ratios.png with; libomp-22-dev: the OpenMP tests (-fopenmp, libomp);
# libeigen3-dev: the Eigen execution tests (header-only); flang-22: the Fortran execution tests
# (test/integration/fortran, LLVM 22's Fortran front end and its runtime library);
# libclang-22-dev (clang's headers) and libclang-cpp22-dev (libclang-cpp.so to link): the clang
# plugin, build/plugin/libUmbraClang.so (Enzyme's source attributes).
PKGS=(llvm-22-dev llvm-22-tools clang-22 libpolly-22-dev libzstd-dev cmake libclang-rt-22-dev
  libclang-22-dev libclang-cpp22-dev
  libopenblas-dev libadolc-dev fonts-dejavu-core libomp-22-dev libeigen3-dev flang-22 time)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

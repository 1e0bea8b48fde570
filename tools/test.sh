#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds cdevs with warnings as errors and runs the whole test suite (ctest).
# `tools/test.sh --sanitize` does the same in an AddressSanitizer + UBSan build.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh build
dir=build flags=(-DCMAKE_BUILD_TYPE=Release)
if [ "${1:-}" = --sanitize ]; then
  dir=build-asan flags=(-DCMAKE_BUILD_TYPE=Debug -DCDEVS_SANITIZE=ON)
fi
cmake -S . -B "$dir" -DCDEVS_WERROR=ON "${flags[@]}" >/dev/null
cmake --build "$dir" -j"$(nproc)"
cd "$dir"
ctest --output-on-failure -j"$(nproc)"

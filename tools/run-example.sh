#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: build cdevs, simulate the default example (the generator → processor →
# transducer experimental frame) and write its results and plot under results/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh run
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p results
build/cdevs example efp --out results/efp.csv --plot results/efp.svg "$@"

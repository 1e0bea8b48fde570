#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: build cdevs, simulate the default example (the flyback converter of the
# QSS seed, examples/flyback/flyback.mo, with QSS3) and write its results and plot
# under results/.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/deps.sh run
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p results
build/cdevs run examples/flyback/flyback.mo --out results/flyback.csv --plot results/flyback.svg "$@"

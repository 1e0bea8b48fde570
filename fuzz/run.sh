#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer targets with clang (ASan + UBSan) and runs each on its corpus.
#   fuzz/run.sh [SECONDS_PER_TARGET]      (default 60; CI runs a short smoke pass)
# Inputs go up to 64 KiB, so that deep nesting and long expressions are reached.
# New inputs that add coverage are kept in fuzz/corpus/<target>/; a crash leaves
# crash-* in fuzz/out/ and makes the script fail.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
tools/deps.sh fuzz
mkdir -p fuzz/out
srcs=(src/core/*.c src/qss/*.c src/blocks/*.c src/graph/*.c src/lang/*.c src/rt/*.c src/rt/posix/*.c)
for f in src/io/*.c; do # the library's: not the command's HDF5 writer
  [ "$f" = src/io/h5out.c ] || srcs+=("$f")
done
cmake -S . -B build >/dev/null # generates include/cdevs/version.h
# The one C++ unit (Dragonbox's shortest digits), without the C++ runtime as in CMake.
clang++ -std=c++17 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-exceptions \
  -fno-rtti -I"$(ls -d /usr/include/dragonbox-* | tail -1)" -Isrc -c src/io/shortest.cc -o fuzz/out/shortest.o
for t in lang mo udp rtlog; do
  clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -Iinclude -Ibuild/include -Isrc "fuzz/fuzz_$t.c" "${srcs[@]}" fuzz/out/shortest.o -lm -lpthread -o "fuzz/out/fuzz_$t"
  (cd fuzz/out && ./"fuzz_$t" -max_total_time="$secs" -max_len=65536 -timeout=10 \
     -rss_limit_mb=2048 ../corpus/"$t" 2>&1 | tail -3)
done
echo "fuzz: no crashes"

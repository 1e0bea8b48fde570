#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Structure changes (issue #21): a birth-death population of cells (bench/structure.c),
# almost one added or removed atomic model per instant, at several population sizes;
# time per change and per event. With ADEVS_INCLUDE naming adevs 3.3's include folder
# (see bench/peers/README.md), the same model on adevs' dynamic structure
# (bench/peers/adevs_structure.cpp, same random draws, so the same final population)
# runs in the same rounds, alternating with cdevs, and the ratio is printed.
#   [BUILD=dir] [ADEVS_INCLUDE=dir] bench/structure.sh [--quick] [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="[BUILD=dir] [ADEVS_INCLUDE=dir] bench/structure.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
build=${BUILD:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target structure_bench -j"$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
adevs=""
if [ -n "${ADEVS_INCLUDE:-}" ]; then
  g++ -O3 -DNDEBUG -std=c++17 -I "$ADEVS_INCLUDE" bench/peers/adevs_structure.cpp -o "$work/adevs_structure"
  adevs=$work/adevs_structure
fi
# rows: population at the start, changes measured by cdevs, changes measured by adevs
# (whose cost per change grows with the population: fewer, so a row ends in seconds)
rows="1000:200000:20000 10000:200000:2000 100000:400000:200"
[ "$quick" = 1 ] && rows="1000:20000:2000 10000:20000:200"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
faster() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(b=="" || a<b)}'; }
printf '%-8s %-10s %-12s %-12s %-10s %s\n' n0 sim changes us/change ns/event final_pop
for row in $rows; do
  IFS=: read -r n0 ch ach <<<"$row"
  best="" best_line="" abest="" abest_line=""
  for _ in $(seq "$reps"); do
    line=$("$build/structure_bench" "$n0" "$ch")
    u=$(field us_per_change "$line")
    if faster "$u" "$best"; then best=$u best_line=$line; fi
    [ -n "$adevs" ] || continue
    line=$("$adevs" "$n0" "$ach")
    u=$(field us_per_change "$line")
    if faster "$u" "$abest"; then abest=$u abest_line=$line; fi
  done
  printf '%-8s %-10s %-12s %-12s %-10s %s\n' "$n0" cdevs "$(field changes "$best_line")" "$best" \
    "$(field ns_per_event "$best_line")" "$(field final_population "$best_line")"
  if [ -n "$adevs" ]; then
    printf '%-8s %-10s %-12s %-12s %-10s %s\n' "$n0" adevs "$(field changes "$abest_line")" "$abest" \
      "$(field ns_per_event "$abest_line")" "$(field final_population "$abest_line")"
    awk -v n="$n0" -v a="$abest" -v c="$best" 'BEGIN{printf "%-8s ratio      adevs/cdevs per change: %.1fx\n", n, a/c}'
  fi
done

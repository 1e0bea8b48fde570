#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# QSS benchmarks of issue #3, one `bench name=..` line each (the fastest of REPS runs):
#   flyback  — every QSS method, and CVODE over a range of tolerances, all against the
#              CVODE rtol 1e-10 reference, so equal accuracy can be read off the lines;
#   stiff    — the stiff system of Migoni et al. with every method;
#   lcline   — the LC line, N = 200, QSS3 (QSS Solver reports 279,061 transitions).
#   bench/qss.sh [--quick] [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="bench/qss.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"

# Runs `cdevs bench "$@"` REPS times and prints the line with the smallest wall_s.
best_of() {
  local best="" bw=""
  for _ in $(seq "$reps"); do
    local line w
    line=$(build/cdevs bench "$@")
    w=$(sed -n 's/.*wall_s=\([^ ]*\).*/\1/p' <<<"$line")
    if [ -z "$bw" ] || awk -v a="$w" -v b="$bw" 'BEGIN{exit !(a<b)}'; then best=$line bw=$w; fi
  done
  echo "$best"
}

if [ "$quick" = 1 ]; then
  best_of flyback --method QSS3
  best_of flyback --method CVODE --tol 1e-4
  best_of stiff --method LIQSS2
  best_of lcline --method QSS3 --n 20
  exit 0
fi
for m in QSS1 QSS2 QSS3 LIQSS1 LIQSS2 LIQSS3; do best_of flyback --method "$m"; done
for q in "1e-4 1e-6" "1e-5 1e-7"; do
  set -- $q
  best_of flyback --method QSS3 --dqrel "$1" --dqmin "$2"
done
for tol in 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8; do best_of flyback --method CVODE --tol "$tol"; done
for m in QSS1 QSS2 QSS3 LIQSS1 LIQSS2 LIQSS3; do best_of stiff --method "$m"; done
for m in QSS2 QSS3 LIQSS3; do best_of lcline --method "$m" --n 200; done

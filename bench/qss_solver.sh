#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs models of CIFASIS/qss-solver's models/ directory in cdevs and, when given, in
# QSS Solver itself, one line each:
#   bench name=<model> sim=cdevs transitions=.. crossings=.. wall_s=..
#   bench name=<model> sim=qss-solver transitions=.. sim_s=..
# QSS_SOLVER_MODELS: a checkout of that models/ directory (required).
# QSS_SOLVER_RUN: a command taking MODEL.mo that compiles and runs it with QSS Solver
# and prints "transitions=N sim_ms=X" (built outside this repository; see bench/README.md).
#   bench/qss_solver.sh [MODEL …]     (default: the models the issue names)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${QSS_SOLVER_MODELS:?set QSS_SOLVER_MODELS to a qss-solver models/ directory}"
[ -x build/cdevs ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(lc_line/lc_line lotka_volterra/lotka_volterra bball/bball_downstairs
                                   spikings/spikings advection/advection airs/airconds converters/buck)
for m in "${models[@]}"; do
  f="$QSS_SOLVER_MODELS/$m.mo"
  s=$(build/cdevs run "$f" --quiet 2>&1 | sed -n 's/^summary: //p')
  tr=$(sed -n 's/.*transitions=\([0-9]*\).*/\1/p' <<<"$s")
  zc=$(sed -n 's/.*zero_crossings=\([0-9]*\).*/\1/p' <<<"$s")
  w=$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$s")
  echo "bench name=$(basename "$m") sim=cdevs transitions=${tr:-nan} crossings=${zc:-nan} wall_s=${w:-nan}"
  if [ -n "${QSS_SOLVER_RUN:-}" ]; then
    out=$($QSS_SOLVER_RUN "$f" 2>&1 | tail -5)
    qt=$(sed -n 's/.*transitions=\([0-9]*\).*/\1/p' <<<"$out" | tail -1)
    qm=$(sed -n 's/.*sim_ms=\([0-9.]*\).*/\1/p' <<<"$out" | tail -1)
    qs=$(awk -v m="${qm:-nan}" 'BEGIN{ if (m == "nan") print "nan"; else printf "%.6f", m / 1000 }')
    echo "bench name=$(basename "$m") sim=qss-solver transitions=${qt:-nan} sim_s=$qs"
  fi
done

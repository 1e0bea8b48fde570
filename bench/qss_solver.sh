#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs models of CIFASIS/qss-solver's models/ directory in cdevs and, when given, in
# QSS Solver itself, one line each:
#   bench name=<model> sim=cdevs transitions=.. crossings=.. wall_s=..
#   bench name=<model> sim=qss-solver transitions=.. sim_s=..
# QSS_SOLVER_MODELS: a checkout of that models/ directory (required).
# QSS_SOLVER_RUN: a command taking MODEL.mo that compiles and runs it with QSS Solver
# and prints "transitions=N sim_ms=X" (built outside this repository; see bench/README.md).
# REPS: runs of each, alternating between the two, keeping each one's fastest (default 1).
# CDEVS_ARGS: more options for cdevs run (e.g. --jacobian secant).
# With both simulators a third line gives ratio = cdevs wall_s / QSS Solver sim_s.
#   bench/qss_solver.sh [MODEL …]     (default: the models the issue names)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${QSS_SOLVER_MODELS:?set QSS_SOLVER_MODELS to a qss-solver models/ directory}"
[ -x build/cdevs ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(lc_line/lc_line lotka_volterra/lotka_volterra bball/bball_downstairs
                                   spikings/spikings advection/advection airs/airconds converters/buck)
reps=${REPS:-1}
read -r -a extra <<<"${CDEVS_ARGS:-}"
# The smaller of two times; "nan" or empty (a run that failed) is no time.
min() { awk -v a="${1:-nan}" -v b="${2:-nan}" 'BEGIN{ if (a == "nan") print b; else if (b == "nan") print a; else print (a + 0 < b + 0) ? a : b }'; }
for m in "${models[@]}"; do
  f="$QSS_SOLVER_MODELS/$m.mo"
  w=nan qs=nan tr= zc= qt=
  for ((r = 0; r < reps; r++)); do
    s=$(build/cdevs run "$f" --quiet "${extra[@]}" 2>&1 | sed -n 's/^summary: //p')
    tr=$(sed -n 's/.*transitions=\([0-9]*\).*/\1/p' <<<"$s")
    zc=$(sed -n 's/.*zero_crossings=\([0-9]*\).*/\1/p' <<<"$s")
    w=$(min "$w" "$(sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p' <<<"$s")")
    if [ -n "${QSS_SOLVER_RUN:-}" ]; then
      out=$($QSS_SOLVER_RUN "$f" 2>&1 | tail -5)
      qt=$(sed -n 's/.*transitions=\([0-9]*\).*/\1/p' <<<"$out" | tail -1)
      qm=$(sed -n 's/.*sim_ms=\([0-9.]*\).*/\1/p' <<<"$out" | tail -1)
      qs=$(min "$qs" "$(awk -v m="${qm:-nan}" 'BEGIN{ if (m == "nan") print "nan"; else printf "%.6f", m / 1000 }')")
    fi
  done
  echo "bench name=$(basename "$m") sim=cdevs transitions=${tr:-nan} crossings=${zc:-nan} wall_s=${w:-nan}"
  if [ -n "${QSS_SOLVER_RUN:-}" ]; then
    echo "bench name=$(basename "$m") sim=qss-solver transitions=${qt:-nan} sim_s=$qs"
    awk -v n="$(basename "$m")" -v w="$w" -v q="$qs" -v a="${tr:-0}" -v z="${zc:-0}" -v b="${qt:-0}" 'BEGIN{
      if (w == "nan" || q == "nan" || q + 0 == 0 || b + 0 == 0) { printf "bench name=%s ratio=nan\n", n; exit }
      printf "bench name=%s ratio=%.3f transitions_vs_qss_solver=%+.1f%%\n", n, w / q, 100 * ((a + z) / b - 1) }'
  fi
done

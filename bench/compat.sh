#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs every model of CIFASIS/qss-solver's models/ directory in cdevs and, when given,
# in QSS Solver, compares the outputs and prints a Markdown table:
#   | model | parses | runs | matches | details |
# parses: `cdevs check`; runs: `cdevs run --out` finished within TIMEOUT; matches: every
# output variable both simulators write agrees within 5 quanta (bench/compat_cmp.py).
# QSS_SOLVER_MODELS: a checkout of that models/ directory (required).
# QSS_SOLVER_RUN: a command taking MODEL.mo that compiles and runs it with QSS Solver and
#   prints `transitions=N sim_ms=X` and `outputs=DIR` (one line or two), DIR holding one <var>.dat per
#   output (built outside this repository; see bench/README.md). If it fails before
#   printing `outputs=` but after a line `== simulate (DIR)`, DIR is used all the same.
#   Without it, matches says "no reference".
# CDEVS: the cdevs binary (default build/cdevs, built when missing).
# TIMEOUT: seconds allowed for each run, cdevs or QSS Solver (compilation included)
#   (default 300).
# COMPAT_DIR: where each model's logs, CSV and reference outputs go (default
#   results/compat, one folder per model).
# PYTHON: a python3 with numpy (default python3, else /usr/bin/python3).
# CDEVS_ARGS: options added to every `cdevs run` (e.g. `--jacobian secant`, QSS
#   Solver's way of taking LIQSS's a).
#   bench/compat.sh [FILTER …]   (models whose path under models/ contains a FILTER)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${QSS_SOLVER_MODELS:?set QSS_SOLVER_MODELS to a qss-solver models/ directory}"
timeout_s=${TIMEOUT:-300}
work=${COMPAT_DIR:-results/compat}
if [ -z "${CDEVS:-}" ]; then
  CDEVS=build/cdevs
  [ -x "$CDEVS" ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
fi
py=${PYTHON:-python3}
"$py" -c 'import numpy' 2>/dev/null || py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "compat.sh: no python3 with numpy (set PYTHON)" >&2; exit 2; }
read -r -a extra <<<"${CDEVS_ARGS:-}"
models_dir=$(cd "$QSS_SOLVER_MODELS" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)

# The first line of FILE matching the extended regex RE, shortened for a table cell.
first() { grep -m1 -E "$2" "$1" 2>/dev/null | sed "s|^$models_dir/||" | cut -c1-140 | tr '|' '/' || true; }
# A key=value field of the last line of FILE that has it.
field() { grep -o "\b$2=[^ ]*" "$1" 2>/dev/null | tail -1 | cut -d= -f2 || true; }

echo "| model | parses | runs | matches | details |"
echo "|---|---|---|---|---|"
while IFS= read -r f; do
  m=${f#"$models_dir"/}
  m=${m%.mo}
  if [ $# -gt 0 ]; then
    hit=0
    for pat in "$@"; do [[ $m == *"$pat"* ]] && hit=1; done
    [ $hit = 1 ] || continue
  fi
  d="$work/${m//\//_}"
  rm -rf "$d"
  mkdir -p "$d"
  echo "compat: $m" >&2
  notes=() tr_q=""

  if timeout -k 10 "$timeout_s" "$CDEVS" check "$f" >"$d/check.log" 2>&1; then
    parses=yes
  else
    parses=no
    notes+=("$(first "$d/check.log" 'error')")
  fi

  rc=0
  timeout -k 10 "$timeout_s" "$CDEVS" run "$f" --out "$d/cdevs.csv" --quiet "${extra[@]}" >"$d/run.log" 2>&1 || rc=$?
  tr_c=$(field "$d/run.log" transitions) zc_c=$(field "$d/run.log" zero_crossings) wall=$(field "$d/run.log" wall_s)
  if [ $rc = 0 ]; then
    runs="yes (${wall:-?} s)"
  elif [ $rc = 124 ] || [ $rc = 137 ]; then
    runs="timeout (${timeout_s} s)"
  else
    runs="no"
    [ $parses = no ] || notes+=("$(first "$d/run.log" 'error|cdevs run:')")
  fi
  while IFS= read -r w; do notes+=("cdevs: $w"); done \
    < <(sed -n 's/.*warning: MMO_Solver \([^ ]*\) is not available here; using \([^ ]*\).*/\2 for \1/p' "$d/run.log" | sort -u)

  if [ -z "${QSS_SOLVER_RUN:-}" ]; then
    matches="no reference"
  else
    qrc=0
    # shellcheck disable=SC2086 # a command with its arguments
    timeout -k 10 "$timeout_s" $QSS_SOLVER_RUN "$f" >"$d/qss-solver.log" 2>&1 || qrc=$?
    out=$(field "$d/qss-solver.log" outputs) # (on its own line, or after transitions=… on one)
    [ -n "$out" ] || out=$(sed -n 's/^== simulate (\(.*\))$/\1/p' "$d/qss-solver.log" | tail -1)
    tr_q=$(field "$d/qss-solver.log" transitions)
    mkdir -p "$d/ref"
    # Copied at once: two models of the same name share QSS Solver's output folder.
    if [ -n "$out" ] && [ $qrc != 124 ] && [ $qrc != 137 ]; then
      find "$out" -maxdepth 1 -name '*.dat' -exec cp {} "$d/ref/" \;
      find "$out" -maxdepth 1 -name '*.log' -exec cp {} "$d/ref/" \;
    fi
    ndat=$(find "$d/ref" -name '*.dat' | wc -l)
    if [ $qrc = 124 ] || [ $qrc = 137 ]; then
      matches="n/a"
      notes+=("QSS Solver: timeout (${timeout_s} s)")
    elif [ "$ndat" = 0 ]; then
      matches="n/a"
      why=$(first "$d/qss-solver.log" '[Ee]rror|Abort|^mmoc: ')
      notes+=("QSS Solver failed (exit $qrc): ${why:-see qss-solver.log}")
    elif [ "$(head -2 "$d/cdevs.csv" 2>/dev/null | wc -l)" -lt 2 ]; then
      matches="n/a"
      [ "$runs" = no ] || notes+=("no cdevs output")
    else
      "$py" bench/compat_cmp.py "$f" "$d/cdevs.csv" "$d/ref" >"$d/compare.log" 2>&1 || true
      res=$(grep '^result' "$d/compare.log" | tail -1 || true)
      matches=$(cut -f2 <<<"$res")
      notes+=("$(cut -f3 <<<"$res")")
      [ -n "$matches" ] || matches="n/a"
    fi
    [ $qrc = 0 ] || [ "$ndat" = 0 ] || notes+=("QSS Solver exit $qrc")
  fi
  [ "${tr_q:-NA}" != NA ] || tr_q=""
  tr=""
  [ -z "$tr_c" ] || tr="cdevs $tr_c (+${zc_c:-?} crossings)"
  [ -z "$tr_q" ] || tr+="${tr:+, }QSS Solver $tr_q"
  [ -z "$tr" ] || notes+=("transitions $tr")
  details=""
  for n in "${notes[@]}"; do [ -n "$n" ] && details+="${details:+; }$n"; done
  echo "| $m | $parses | $runs | $matches | ${details//|//} |"
done < <(find "$models_dir" -name '*.mo' | sort)

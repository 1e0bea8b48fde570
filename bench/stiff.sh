#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stiffness off the diagonal (issue #18): LIQSS and mLIQSS on the same models in one
# script (and LIQSS_BDF's mixed mode on adr, below), with the error against CVODE_BDF at rtol 1e-10 (computed first, same script):
#   tyson — Tyson's cell cycle (examples/tyson), its C2/CP pair exchanging a
#           millionfold faster than anything else moves; the error is the largest
#           |x - ref| over the states on a 0.1 grid, relative to each state's largest;
#   pair  — the same exchange alone, x1' = -1e6·x1 + 1e3·x2, x2' = 1e6·x1 - 1001·x2
#           (tests/test_stiff.c's closed form is the test; here CVODE, like tyson).
# One `bench name=stiff ..` line per run (the fastest of REPS), and a `ratio` line per
# model: LIQSS2's transitions and wall time over mLIQSS2's.
# With QSS_SOLVER_RUN (see bench/compat.sh) and QSS_SOLVER_MODELS, QSS Solver's
# mLIQSS models are run too, each with the method it names, by cdevs and by QSS
# Solver: transitions and wall time side by side (QSS Solver's sim_ms, its own timer),
# and its mixed-mode models (LIQSS_BDF).
#   bench/stiff.sh [--quick] [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="bench/stiff.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat > "$work/pair.mo" <<'EOF'
model pair
  Real x1(start = 0), x2(start = 1);
equation
  der(x1) = -1e6 * x1 + 1e3 * x2;
  der(x2) = 1e6 * x1 - 1001 * x2;
  annotation(experiment(StopTime = 10, Tolerance = 1e-3, AbsTolerance = 1e-6));
end pair;
EOF

rel_error() { # CSV REF: max over states of max|x - ref| / max|ref|
  python3 - "$1" "$2" <<'EOF'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
worst = 0.0
for k in range(1, len(b[0])):
    scale = max(abs(float(r[k])) for r in b[1:]) or 1.0
    worst = max(worst, max(abs(float(x[k]) - float(y[k])) for x, y in zip(a[1:], b[1:])) / scale)
print("%.3g" % worst)
EOF
}

# ratio MODEL A B: A's transitions and wall time over B's, from the arrays steps and wall.
ratio() {
  local a=${2,,} b=${3,,}
  awk -v m="$1" -v s1="${steps[$2]}" -v s2="${steps[$3]}" -v w1="${wall[$2]}" -v w2="${wall[$3]}" -v a="$a" -v b="$b" \
    'BEGIN{printf "ratio name=stiff model=%s %s_over_%s_transitions=%.3g %s_over_%s_wall=%.3g\n", m, a, b, s1/s2, a, b, (w2>0?w1/w2:0)}'
}

stop=""
[ "$quick" = 1 ] && stop="--stop 20"
for model in tyson pair; do
  file=examples/tyson/tyson.mo
  [ "$model" = pair ] && file=$work/pair.mo
  # shellcheck disable=SC2086
  build/cdevs run "$file" --method CVODE_BDF --tol 1e-10 --abstol 1e-14 --step 0.1 --quiet --out "$work/ref.csv" $stop \
    2>/dev/null
  declare -A wall steps
  for method in LIQSS2 mLIQSS2 LIQSS1 mLIQSS1; do
    # shellcheck disable=SC2086
    read -r w s < <(best_run "$work/out.csv" "$file" --method "$method" --step 0.1 $stop)
    wall[$method]=$w steps[$method]=$s
    echo "bench name=stiff model=$model method=$method wall_s=$w transitions=$s" \
         "max_rel_error=$(rel_error "$work/out.csv" "$work/ref.csv")"
  done
  ratio "$model" LIQSS2 mLIQSS2
  unset wall steps
done

# Mixed mode: QSS Solver's advection-reaction-diffusion problem (mixed-mode/adr,
# N = 1000; 200 with --quick), its stiff right half by BDF (LIQSS_BDF) or everything
# by LIQSS2. Error: the largest lateness of the front (u > 0.5) at u[N/4], u[N/2+1]
# and u[3N/4] against CVODE_BDF at rtol 1e-9 (same script), on a 0.01 grid.
n=1000
[ "$quick" = 1 ] && n=200
cat > "$work/adr.mo" <<EOF
model adr
  constant Integer N = $n;
  parameter Real a = 1, r = 1000, L = 10, dx = L / N, dx2 = dx ^ 2;
  parameter Real d[N];
  Real u[N];
initial algorithm
  for i in N / 2:N loop
    d[i] := 10;
  end for;
  for i in 1:N / 2 - 1 loop
    d[i] := 1e-6;
  end for;
equation
  der(u[1]) = -a * (u[1] - 1) / dx + d[1] * (u[2] - 2 * u[1] + 1) / dx2 + r * (u[1] ^ 2) * (1 - u[1]);
  der(u[N]) = -a * (u[N] - u[N - 1]) / dx + d[N] * (u[N] - 2 * u[N] + u[N - 1]) / dx2 + r * (u[N] ^ 2) * (1 - u[N]);
  for i in 2:N - 1 loop
    der(u[i]) = -a * (u[i] - u[i - 1]) / dx + d[i] * (u[i + 1] - 2 * u[i] + u[i - 1]) / dx2 + r * (u[i] ^ 2) * (1 - u[i]);
  end for;
  annotation(experiment(StopTime = 10, MMO_BDF_Part = {u[N / 2:N]},
    MMO_Output = {u[$((n / 4))], u[$((n / 2 + 1))], u[$((3 * n / 4))]}, Tolerance = 1e-3, AbsTolerance = 1e-3));
end adr;
EOF
front_error() { # CSV REF: the largest |arrival - reference arrival| of u > 0.5 over the columns
  python3 - "$1" "$2" <<'EOF'
import csv, sys
def arrivals(path):
    rows = list(csv.reader(open(path)))
    out = []
    for k in range(1, len(rows[0])):
        t = None
        for a, b in zip(rows[1:], rows[2:]):
            ua, ub = float(a[k]), float(b[k])
            if ua <= 0.5 < ub:
                t = float(a[0]) + (float(b[0]) - float(a[0])) * (0.5 - ua) / (ub - ua)
                break
        out.append(t)
    return out
got, ref = arrivals(sys.argv[1]), arrivals(sys.argv[2])
print("%.3g" % max((abs(g - r) if g is not None and r is not None else float("inf")) for g, r in zip(got, ref)))
EOF
}
build/cdevs run "$work/adr.mo" --method CVODE_BDF --tol 1e-9 --abstol 1e-9 --step 0.01 --quiet --out "$work/ref.csv" 2>/dev/null
declare -A wall steps
for method in LIQSS2 LIQSS_BDF; do
  read -r w s < <(best_run "$work/out.csv" "$work/adr.mo" --method "$method" --step 0.01)
  wall[$method]=$w steps[$method]=$s
  echo "bench name=stiff model=adr$n method=$method wall_s=$w transitions=$s" \
       "front_error_s=$(front_error "$work/out.csv" "$work/ref.csv")"
done
ratio "adr$n" LIQSS2 LIQSS_BDF
unset wall steps

if [ -n "${QSS_SOLVER_RUN:-}" ] && [ -n "${QSS_SOLVER_MODELS:-}" ] && [ "$quick" = 0 ]; then
  for f in "$QSS_SOLVER_MODELS"/mLIQSS/*.mo "$QSS_SOLVER_MODELS"/mixed-mode/*.mo; do
    name=$(basename "$(dirname "$f")")/$(basename "$f" .mo)
    line=$(timeout 300 build/cdevs run "$f" --no-out --quiet 2>&1 | grep '^summary:' || true)
    q=$(timeout 300 "$QSS_SOLVER_RUN" "$f" 2>/dev/null | grep -o 'transitions=[0-9]* sim_ms=[0-9.]*' | tail -1 || true)
    echo "bench name=stiff_qss_solver model=$name cdevs_method=$(sed -n 's/.*method=\([^ ]*\).*/\1/p' <<<"$line")" \
         "cdevs_transitions=$(sed -n 's/.* transitions=\([^ ]*\).*/\1/p' <<<"$line")" \
         "cdevs_wall_s=$(sed -n 's/.*wall_s=\([^ ]*\).*/\1/p' <<<"$line") qss_solver_${q:-failed=1}"
  done
fi

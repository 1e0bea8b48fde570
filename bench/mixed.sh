#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Mixed QSS/classical models (issue #18): Beltrame & Cellier's RC circuit with a DEVS
# capacitor (examples/rc) and the flyback with a DEVS secondary capacitor
# (examples/flyback/flyback_mixed.mo), each run three ways at several tolerances:
#   qss      — everything QSS3 (--method QSS3);
#   mixed    — the circuit by CVODE_BDF, the capacitor a QSS3 integrator block;
#   classical — the all-classical model (rc.mo, flyback.mo) by CVODE_BDF.
# One `bench name=mixed ..` line per run (the fastest of REPS): wall time, the number
# of steps, and the largest error of the capacitor voltage on a 1e-3 (RC) / 1e-5
# (flyback) grid against the RC's closed form and, for the flyback, the all-classical
# model at rtol 1e-11 (computed first, same script). Read the lines at equal error.
#   bench/mixed.sh [--quick] [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="bench/mixed.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# max_error CSV COLUMN REFERENCE: the largest |column - reference| (reference: "rc" for
# the closed form, or a CSV on the same grid).
max_error() {
  python3 - "$1" "$2" "$3" <<'EOF'
import csv, math, sys
rows = list(csv.reader(open(sys.argv[1])))
col = rows[0].index(sys.argv[2])
if sys.argv[3] == "rc":
    R, C, V, w = 1000.0, 1e-6, 10.0, 2 * math.pi * 50
    a = w * R * C
    ref = lambda t: V / (1 + a * a) * (math.sin(w * t) - a * math.cos(w * t)) + V * a / (1 + a * a) * math.exp(-t / (R * C))
    print(max(abs(float(r[col]) - ref(float(r[0]))) for r in rows[1:]))
else:
    ref = list(csv.reader(open(sys.argv[3])))
    rc = ref[0].index("vC")
    print(max(abs(float(a[col]) - float(b[rc])) for a, b in zip(rows[1:], ref[1:])))
EOF
}

bench() { # MODEL_NAME FILE VARIANT METHOD TOL STEP COLUMN REFERENCE
  local r
  r=$(best_run "$work/out.csv" "$2" --method "$4" --tol "$5" --abstol "$(awk -v t="$5" 'BEGIN{print t/100}')" --step "$6")
  set -- "$@" $r
  echo "bench name=mixed model=$1 variant=$3 method=$4 tol=$5 wall_s=$9 transitions=${10} max_error=$(max_error "$work/out.csv" "$7" "$8")"
}

tols="1e-4 1e-6 1e-8"
[ "$quick" = 1 ] && tols="1e-4"
for tol in $tols; do
  bench rc examples/rc/rc_mixed.mo qss QSS3 "$tol" 1e-3 cap.y rc
  bench rc examples/rc/rc_mixed.mo mixed CVODE_BDF "$tol" 1e-3 cap.y rc
  bench rc examples/rc/rc.mo classical CVODE_BDF "$tol" 1e-3 v rc
done
build/cdevs run examples/flyback/flyback.mo --method CVODE_BDF --tol 1e-11 --abstol 1e-13 --step 1e-5 --quiet \
  --out "$work/ref.csv" 2>/dev/null
for tol in $tols; do
  bench flyback examples/flyback/flyback_mixed.mo qss QSS3 "$tol" 1e-5 cap.y "$work/ref.csv"
  bench flyback examples/flyback/flyback_mixed.mo mixed CVODE_BDF "$tol" 1e-5 cap.y "$work/ref.csv"
  bench flyback examples/flyback/flyback.mo classical CVODE_BDF "$tol" 1e-5 vC "$work/ref.csv"
done

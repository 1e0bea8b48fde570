#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Result files of gigabytes: CSV, MAT v4 (our own binary) and HDF5, written by the same
# run of examples/lcline (200 states) and read back as a user would.
# - long: every state, a record per change (--format long), stop $STOP_LONG
#   (default 20000: ~27 million records, ~1.7 GB of CSV). MAT v4 has no long layout and
#   its wide table would be instants × 201 doubles (its size is printed, not written).
# - wide: every state, dense rows (--step $STEP up to $STOP_WIDE; default 0.01 and 5000:
#   500,001 rows of 201 values).
# One line per case and format:
#   bench case=long|wide format=csv|mat|h5 run_s=.. bytes=.. bytes_per_value=..
#     read_all_s=.. read_one_s=.. read_one_rss_mb=..
# run_s: the whole `cdevs run` process (fastest of REPS); read_all_s: every value into
# memory (CSV: pandas.read_csv, or numpy when pandas is missing; MAT: scipy's loadmat;
# HDF5: h5py); read_one_s and read_one_rss_mb: one variable, x[100], in a fresh Python
# (its peak resident memory). Needs /usr/bin/python3 with numpy, scipy and h5py
# (python3-h5py); pandas (python3-pandas) if present.
#   bench/hdf5.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = --quick ] && quick=1
[ -x build/cdevs ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
reps=${REPS:-3}
stop_long=${STOP_LONG:-20000}
stop_wide=${STOP_WIDE:-5000}
step=${STEP:-0.01}
if [ $quick = 1 ]; then reps=1 stop_long=200 stop_wide=50; fi
work=${HDF5_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
model=examples/lcline/lcline.mo
py=/usr/bin/python3
if ! build/cdevs run "$model" --stop 1 --out "$work/probe.h5" --quiet 2>"$work/err"; then
  echo "bench hdf5: skipped: $(cat "$work/err")" >&2
  exit 0
fi
$py -c 'import numpy, scipy, h5py' 2>/dev/null || { echo "bench hdf5: skipped: needs python3-h5py, python3-scipy" >&2; exit 0; }

now() { date +%s.%N; }

# The fastest of $reps runs of: cdevs run $model --out $1 ${@:2}
run_best() {
  local out=$1 best= t0 t1 d
  shift
  for ((i = 0; i < reps; i++)); do
    t0=$(now)
    build/cdevs run "$model" --quiet --out "$out" "$@" 2>/dev/null
    t1=$(now)
    d=$(echo "$t1 - $t0" | bc -l)
    if [ -z "$best" ] || [ "$(echo "$d < $best" | bc -l)" = 1 ]; then best=$d; fi
  done
  printf '%.3f' "$best"
}

# Reading: prints "seconds" for every value (all) or for x[100] (one) and the peak RSS.
read_py() { # FILE LAYOUT all|one
  $py - "$@" <<'EOF'
import sys, time, resource
path, layout, what = sys.argv[1], sys.argv[2], sys.argv[3]
var = "x[100]"
t0 = time.perf_counter()
if path.endswith(".h5"):
    import h5py, numpy as np
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else n for n in f["names"][:]]
        k = names.index(var)
        if layout == "long":
            if what == "all":
                t, v, x = f["time"][:], f["variable"][:], f["value"][:]
                n = len(x)
            else:
                # (h5py's own indexing by a mask or a list of indices reads point by
                # point: minutes for a gigabyte file; whole columns take a second.)
                sel = f["variable"][:] == k
                t, x = f["time"][:][sel], f["value"][:][sel]
                n = len(x)
        else:
            t = f["time"][:]
            x = f["values"][:] if what == "all" else f["values"][:, k]
            n = x.size
elif path.endswith(".mat"):
    import scipy.io
    m = scipy.io.loadmat(path)
    x = m["data_2"]
    n = x.size if what == "all" else x.shape[1]
else:
    try:
        import pandas as pd
        d = pd.read_csv(path)
        if what == "one":
            d = d[d["variable"] == var] if layout == "long" else d[["time", var]]
        n = d.size
    except ImportError:
        import numpy as np
        d = np.genfromtxt(path, delimiter=",", names=True, dtype=None, encoding=None)
        n = d.size
el = time.perf_counter() - t0
print(f"{el:.3f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} {n}")
EOF
}

report() { # CASE FORMAT FILE RUN_S VALUES
  local bytes all one
  bytes=$(stat -c %s "$3")
  all=$(read_py "$3" "$1" all)
  one=$(read_py "$3" "$1" one)
  echo "bench case=$1 format=$2 run_s=$4 bytes=$bytes bytes_per_value=$(echo "scale=2; $bytes / $5" | bc -l)" \
       "read_all_s=${all%% *} read_one_s=${one%% *} read_one_rss_mb=$(echo "$one" | cut -d' ' -f2)"
}

# long: a record per change of every state.
for fmt in csv h5; do
  f="$work/long.$fmt"
  s=$(run_best "$f" --vars x --format long --stop "$stop_long")
  recs=$($py -c "import h5py; print(h5py.File('$f')['time'].shape[0])" 2>/dev/null || true)
  [ "$fmt" = csv ] && recs=$(($(wc -l <"$f") - 1))
  report long "$fmt" "$f" "$s" "$recs"
  rm -f "$f"
done
# wide: dense rows of every state.
rows=$(echo "$stop_wide / $step + 1" | bc)
for fmt in csv mat h5; do
  f="$work/wide.$fmt"
  s=$(run_best "$f" --vars x --format wide --step "$step" --stop "$stop_wide")
  report wide "$fmt" "$f" "$s" "$((rows * 200))"
  rm -f "$f"
done

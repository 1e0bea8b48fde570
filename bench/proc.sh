#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Process models (issue #19): M/M/1 (λ = 0.8, μ = 1) with N customers by cdevs and by
# SimPy (Debian python3-simpy3) in the same script, and the ratio of customers per
# second; then JaamSim's three micro-benchmarks: ns per Create→Dispose, per Delay and
# per Seize/Release pair (each the difference from the simpler model). Then through
# `cdevs run examples/proc/mm1.mo`: replications per second with --jobs 1 and 2 and
# `mpirun -np 2` (when the command has MPI), the coverage of the 95% intervals over 200 replications (each run's batch-means interval,
# and Student's t over groups of 10 runs), and the bytes per entity waiting in a queue.
#   [BUILD=dir] [BASE=dir] bench/proc.sh [--quick] [--reps N]
# BUILD: the build directory (default build; configured as Release when it has none).
# BASE: another build directory, of an older cdevs (say the last commit's, from a git
# worktree): its proc_bench runs alternately with BUILD's on the same models, and the
# speed-ups and memory against it are printed too.
set -euo pipefail
cd "$(dirname "$0")/.."
usage="[BUILD=dir] [BASE=dir] bench/proc.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
tools/deps.sh bench
build=${BUILD:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target cdevs proc_bench -j"$(nproc)" >/dev/null
base=${BASE:-}
[ -z "$base" ] || cmake --build "$base" --target proc_bench -j"$(nproc)" >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The replications run stop_t each after the warm-up; bench/README.md says why this
# long. n_queue entities wait in one queue at once for the memory line.
n=1000000 n_simpy=200000 n_reps=200 stop_t=100000 warmup=1000 n_queue=1000000 n_short=10000
[ "$quick" = 1 ] && n=100000 n_simpy=20000 stop_t=10000 n_queue=100000 n_short=2000

best() { # the fastest of REPS runs of a command printing a bench line: prints its line
  local best_line="" best_s="" line s
  for _ in $(seq "$reps"); do
    line=$("$@")
    s=$(sed -n 's/.* sim_s=\([^ ]*\).*/\1/p' <<<"$line")
    if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then best_s=$s best_line=$line; fi
  done
  echo "$best_line"
}
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# Each model by this build and, alternately, by BASE's: the fastest of REPS runs each
# (the two builds then see the same state of a shared machine).
declare -A ns base_ns
for model in mm1 create delay seize; do
  best_line="" best_s="" base_line="" base_s=""
  for _ in $(seq "$reps"); do
    line=$("$build/proc_bench" "$model" "$n")
    s=$(field sim_s "$line")
    if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN{exit !(a<b)}'; then best_s=$s best_line=$line; fi
    [ -n "$base" ] || continue
    line=$("$base/proc_bench" "$model" "$n")
    s=$(field sim_s "$line")
    if [ -z "$base_s" ] || awk -v a="$s" -v b="$base_s" 'BEGIN{exit !(a<b)}'; then base_s=$s base_line=$line; fi
  done
  echo "$best_line"
  ns[$model]=$(field ns_per_entity "$best_line")
  if [ -n "$base" ]; then
    echo "${base_line/name=proc /name=proc build=base }"
    base_ns[$model]=$(field ns_per_entity "$base_line")
  fi
done
micro() { # the three micro-benchmarks from the ns per entity of create, delay and seize
  awk -v c="$2" -v d="$3" -v s="$4" -v b="$1" 'BEGIN {
    printf "bench name=proc_micro%s create_dispose_ns=%.1f delay_ns=%.1f seize_release_ns=%.1f\n", b, c, d - c, s - d }'
}
micro "" "${ns[create]}" "${ns[delay]}" "${ns[seize]}"
if [ -n "$base" ]; then
  micro " build=base" "${base_ns[create]}" "${base_ns[delay]}" "${base_ns[seize]}"
  for model in mm1 create delay seize; do
    awk -v m="$model" -v a="${ns[$model]}" -v b="${base_ns[$model]}" \
      'BEGIN { printf "ratio name=proc_vs_base model=%s ns_per_entity=%s base_ns_per_entity=%s speedup=%.2f\n", m, a, b, b / a }'
  done
fi
py=/usr/bin/python3
if $py -c 'import simpy' 2>/dev/null; then
  line=$(best $py bench/mm1_simpy.py "$n_simpy")
  echo "$line"
  awk -v a="${ns[mm1]}" -v b="$(field ns_per_entity "$line")" \
    'BEGIN { printf "ratio name=proc model=mm1 cdevs_over_simpy_customers_per_s=%.1f\n", b / a }'
  [ -z "$base" ] || awk -v a="${base_ns[mm1]}" -v b="$(field ns_per_entity "$line")" \
    'BEGIN { printf "ratio name=proc model=mm1 build=base cdevs_over_simpy_customers_per_s=%.1f\n", b / a }'
else
  echo "bench/proc.sh: SimPy does not import (Debian python3-simpy3; tools/deps.sh bench installs it)" >&2
  exit 1
fi

# Replications: the same K runs with --jobs 1, --jobs 2 and, when the command was built
# with OpenMPI, `mpirun -np 2` (two ranks of one worker each), alternating, the fastest
# of REPS each: wall_s of cdevs' summary (the whole set, workers, ranks and merge
# included; under mpirun from rank 0's start of the replications, after MPI_Init),
# run_s the command's elapsed time (for mpirun: the launcher's start and MPI's
# included), and cpu_s, the user + system time of that run and its workers or ranks
# (/usr/bin/time). The reports must be byte-identical; the coverage below is read from
# them.
mpi=no
if "$build/cdevs" run --help | grep -q '^MPI: built in' && command -v mpirun >/dev/null; then
  mpi=yes
fi
# (mpirun refuses root unless told: containers run as root)
root_env=()
[ "$(id -u)" -eq 0 ] && root_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
launchers=(1 2)
[ "$mpi" = yes ] && launchers+=(mpi2)
declare -A wall run cpu
for _ in $(seq "$reps"); do
  for how in "${launchers[@]}"; do
    cmd=("$build/cdevs" run examples/proc/mm1.mo --reps "$n_reps" --stop "$stop_t" --warmup "$warmup"
         --report "$work/jobs$how.json" --quiet)
    if [ "$how" = mpi2 ]; then
      cmd=(env "${root_env[@]}" mpirun -np 2 --oversubscribe "${cmd[@]}" --jobs 1)
    else
      cmd+=(--jobs "$how")
    fi
    line=$(/usr/bin/time -f 'cpu %U %S %e' -o "$work/time" "${cmd[@]}" 2>&1 | grep '^summary:')
    w=$(field wall_s "$line")
    if [ -z "${wall[$how]:-}" ] || awk -v a="$w" -v b="${wall[$how]}" 'BEGIN{exit !(a<b)}'; then
      wall[$how]=$w
      cpu[$how]=$(awk '$1 == "cpu" { print $2 + $3 }' "$work/time")
      run[$how]=$(awk '$1 == "cpu" { print $4 }' "$work/time")
    fi
  done
done
declare -A rps
for how in "${launchers[@]}"; do
  rps[$how]=$(awk -v k="$n_reps" -v w="${wall[$how]}" 'BEGIN { printf "%.4g", k / w }')
  if [ "$how" = mpi2 ]; then what="launcher=mpirun np=2 jobs=1"; else what="jobs=$how"; fi
  echo "bench name=proc_reps model=mm1 reps=$n_reps stop=$stop_t $what wall_s=${wall[$how]} run_s=${run[$how]}" \
    "cpu_s=${cpu[$how]} reps_per_s=${rps[$how]}"
done
same=yes
for how in "${launchers[@]}"; do
  cmp -s "$work/jobs1.json" "$work/jobs$how.json" || same=no
done
if [ "$mpi" = yes ]; then
  awk -v a="${rps[1]}" -v b="${rps[2]}" -v c="${rps[mpi2]}" -v ra="${run[1]}" -v rc="${run[mpi2]}" -v same="$same" 'BEGIN {
    printf "ratio name=proc_reps model=mm1 jobs2_over_jobs1=%.2f mpirun2_over_jobs1=%.2f " \
           "mpirun2_over_jobs1_run_s=%.2f identical_reports=%s\n", b / a, c / a, ra / rc, same }'
else
  awk -v a="${rps[1]}" -v b="${rps[2]}" -v same="$same" 'BEGIN {
    printf "ratio name=proc_reps model=mm1 jobs2_over_jobs1=%.2f identical_reports=%s\n", b / a, same }'
  echo "bench name=proc_reps model=mm1 launcher=mpirun np=2 measured=no reason=cdevs_built_without_mpi" \
    "(Debian openmpi-bin and libopenmpi-dev; tools/deps.sh installs them)"
fi
if [ "$same" != yes ]; then
  echo "bench/proc.sh: --jobs 1, --jobs 2 and mpirun -np 2 wrote different reports (in $work)" >&2
  exit 1
fi

# Many short replications: what one costs beyond its events (building the model, its
# streams, the report), and that merging them stays linear: 10 times the replications
# should take about 10 times as long (reading them back was once quadratic: 10^5
# replications of one time unit took 122 s).
short_reps() {
  /usr/bin/time -f '%e %M' -o "$work/short_time" "$build/cdevs" run examples/proc/mm1.mo --reps "$1" --stop 1 \
    --jobs 2 --quiet --report "$work/short.csv" 2>/dev/null
  read -r s kb <"$work/short_time"
  echo "bench name=proc_short_reps model=mm1 reps=$1 stop=1 jobs=2 wall_s=$s rss_kb=$kb" \
    "reps_per_s=$(awk -v k="$1" -v s="$s" 'BEGIN { printf "%.4g", k / s }')"
  short_s=$s
}
short_reps "$n_short"
small_s=$short_s
short_reps "$((10 * n_short))"
awk -v a="$small_s" -v b="$short_s" 'BEGIN { printf "ratio name=proc_short_reps tenfold_reps_time_ratio=%.2f\n", b / a }'

# Coverage: whether each run's batch-means 95% interval holds the exact value (L = 4
# for Customer.WIP, Wq = 4 for serve.Queue.WaitTime); runs without a half-width
# ("(Insufficient)", "(Correlated)") are counted apart. Then the Student-t interval
# from each group of 10 runs' averages. se: the binomial standard error of 0.95 over
# that many intervals. mean and all_hw: the report's mean over all runs and its
# half-width.
$py - "$work/jobs2.json" "$n_reps" "$stop_t" "$warmup" <<'EOF'
import json, math, sys
from scipy import stats

report = json.load(open(sys.argv[1]))
head = "model=mm1 reps=%s stop=%s warmup=%s" % tuple(sys.argv[2:5])
group = 10
t975 = stats.t.ppf(0.975, group - 1)


def se(k):
    return math.sqrt(0.95 * 0.05 / k) if k else float("nan")


for owner, name, exact in (("Customer", "WIP", 4.0), ("serve.Queue", "WaitTime", 4.0)):
    st = next(s for s in report["statistics"] if s["owner"] == owner and s["name"] == name)
    runs = st["runs"]
    status = [r["half_width_status"] for r in runs]
    hit = [abs(r["avg"] - exact) <= r["half_width"] for r in runs if r["half_width_status"] == "ok"]
    avgs = [r["avg"] for r in runs]
    groups = [avgs[i:i + group] for i in range(0, len(avgs) - group + 1, group)]
    ghit = 0
    for x in groups:
        m = sum(x) / group
        s = math.sqrt(sum((v - m) ** 2 for v in x) / (group - 1))
        ghit += abs(m - exact) <= t975 * s / math.sqrt(group)
    print("bench name=proc_coverage %s stat=%s.%s exact=%g covered=%.3f se=%.3f with_hw=%d insufficient=%d "
          "correlated=%d group_size=%d groups=%d group_covered=%.3f group_se=%.3f mean=%.4f all_hw=%.4f" % (
              head, owner, name, exact, sum(hit) / len(hit) if hit else float("nan"), se(len(hit)), len(hit),
              status.count("insufficient"), status.count("correlated"), group, len(groups),
              ghit / len(groups) if groups else float("nan"), se(len(groups)), st["mean"], st["half_width"]))
EOF

# Memory: n_queue entities waiting at once against 1000, in two processes: bytes per
# entity from the resident set at the end of the run (every entity still alive) and
# from its peak; by BASE's build too when given.
memory() {
  local small big
  small=$("$1/proc_bench" queue 1000)
  big=$("$1/proc_bench" queue "$n_queue")
  echo "${big/name=proc /name=proc$2 }"
  awk -v n="$n_queue" -v r0="$(field rss_kb "$small")" -v r1="$(field rss_kb "$big")" -v b="$2" \
    -v p0="$(field peak_rss_kb "$small")" -v p1="$(field peak_rss_kb "$big")" 'BEGIN {
    printf "bench name=proc_memory%s entities=%d bytes_per_entity=%.1f peak_bytes_per_entity=%.1f\n",
      b, n, (r1 - r0) * 1024 / (n - 1000), (p1 - p0) * 1024 / (n - 1000) }'
}
memory "$build" ""
[ -z "$base" ] || memory "$base" " build=base"

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Process models (issue #19): M/M/1 (λ = 0.8, μ = 1) with N customers by cdevs and by
# SimPy (Debian python3-simpy3) in the same script, and the ratio of customers per
# second; then JaamSim's three micro-benchmarks: ns per Create→Dispose, per Delay and
# per Seize/Release pair (each the difference from the simpler model). Then through
# `cdevs run examples/proc/mm1.mo`: replications per second with --jobs 1 and 2, the
# coverage of the 95% intervals over 200 replications (each run's batch-means interval,
# and Student's t over groups of 10 runs), and the bytes per entity waiting in a queue.
#   [BUILD=dir] bench/proc.sh [--quick] [--reps N]
# BUILD: the build directory (default build; configured as Release when it has none).
set -euo pipefail
cd "$(dirname "$0")/.."
usage="[BUILD=dir] bench/proc.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
tools/deps.sh bench
build=${BUILD:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target cdevs proc_bench -j"$(nproc)" >/dev/null
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

declare -A ns
for model in mm1 create delay seize; do
  line=$(best "$build/proc_bench" "$model" "$n")
  echo "$line"
  ns[$model]=$(field ns_per_entity "$line")
done
awk -v c="${ns[create]}" -v d="${ns[delay]}" -v s="${ns[seize]}" 'BEGIN {
  printf "bench name=proc_micro create_dispose_ns=%.1f delay_ns=%.1f seize_release_ns=%.1f\n", c, d - c, s - d }'
py=/usr/bin/python3
if $py -c 'import simpy' 2>/dev/null; then
  line=$(best $py bench/mm1_simpy.py "$n_simpy")
  echo "$line"
  awk -v a="${ns[mm1]}" -v b="$(field ns_per_entity "$line")" \
    'BEGIN { printf "ratio name=proc model=mm1 cdevs_over_simpy_customers_per_s=%.1f\n", b / a }'
else
  echo "bench/proc.sh: SimPy does not import (Debian python3-simpy3; tools/deps.sh bench installs it)" >&2
  exit 1
fi

# Replications: the same K runs with --jobs 1 and --jobs 2, alternating, the fastest of
# REPS each: wall_s of cdevs' summary (the whole run, workers and merge included) and
# cpu_s, the user + system time of that run and its workers (/usr/bin/time). The two
# reports must be byte-identical; the coverage below is read from them.
declare -A wall cpu
for _ in $(seq "$reps"); do
  for jobs in 1 2; do
    line=$(/usr/bin/time -f 'cpu %U %S' -o "$work/time" "$build/cdevs" run examples/proc/mm1.mo --reps "$n_reps" \
      --jobs "$jobs" --stop "$stop_t" --warmup "$warmup" --report "$work/jobs$jobs.json" --quiet 2>&1 | grep '^summary:')
    w=$(field wall_s "$line")
    if [ -z "${wall[$jobs]:-}" ] || awk -v a="$w" -v b="${wall[$jobs]}" 'BEGIN{exit !(a<b)}'; then
      wall[$jobs]=$w
      cpu[$jobs]=$(awk '$1 == "cpu" { print $2 + $3 }' "$work/time")
    fi
  done
done
declare -A rps
for jobs in 1 2; do
  rps[$jobs]=$(awk -v k="$n_reps" -v w="${wall[$jobs]}" 'BEGIN { printf "%.4g", k / w }')
  echo "bench name=proc_reps model=mm1 reps=$n_reps stop=$stop_t jobs=$jobs wall_s=${wall[$jobs]} cpu_s=${cpu[$jobs]}" \
    "reps_per_s=${rps[$jobs]}"
done
same=no
cmp -s "$work/jobs1.json" "$work/jobs2.json" && same=yes
awk -v a="${rps[1]}" -v b="${rps[2]}" -v same="$same" 'BEGIN {
  printf "ratio name=proc_reps model=mm1 jobs2_over_jobs1=%.2f identical_reports=%s\n", b / a, same }'
if [ "$same" != yes ]; then
  echo "bench/proc.sh: --jobs 1 and --jobs 2 wrote different reports ($work/jobs1.json, $work/jobs2.json)" >&2
  exit 1
fi
echo "bench name=proc_reps model=mm1 launcher=mpirun np=2 measured=no reason=cdevs_has_no_mpi_support_yet"

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
# from its peak.
base=$("$build/proc_bench" queue 1000)
big=$("$build/proc_bench" queue "$n_queue")
echo "$big"
awk -v n="$n_queue" -v r0="$(field rss_kb "$base")" -v r1="$(field rss_kb "$big")" \
  -v p0="$(field peak_rss_kb "$base")" -v p1="$(field peak_rss_kb "$big")" 'BEGIN {
  printf "bench name=proc_memory entities=%d bytes_per_entity=%.1f peak_bytes_per_entity=%.1f\n",
    n, (r1 - r0) * 1024 / (n - 1000), (p1 - p0) * 1024 / (n - 1000) }'

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Process models (issue #19): M/M/1 (λ = 0.8, μ = 1) with N customers by cdevs and by
# SimPy (Debian python3-simpy3) in the same script, and the ratio of customers per
# second; then JaamSim's three micro-benchmarks: ns per Create→Dispose, per Delay and
# per Seize/Release pair (each the difference from the simpler model).
#   bench/proc.sh [--quick] [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="bench/proc.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
tools/deps.sh bench
cmake --build build --target proc_bench -j"$(nproc)" >/dev/null
n=1000000 n_simpy=200000
[ "$quick" = 1 ] && n=100000 n_simpy=20000

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
  line=$(best build/proc_bench "$model" "$n")
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

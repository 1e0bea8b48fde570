#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DEVStone benchmark: cdevs on the configurations of issue #2, each run REPS times
# (best time kept), one machine-readable line per configuration:
#   bench name=devstone sim=cdevs type=HO depth=200 width=200 build_s=.. sim_s=.. rss_kb=..
# With peer drivers built outside this repository (see bench/README.md) the same
# configurations run on them in this script, and a ratio line compares sim_s and RSS.
#   bench/devstone.sh [--quick] [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
usage="bench/devstone.sh [--quick] [--reps N]"
# shellcheck source=bench/common.sh
source bench/common.sh "$@"
if [ "$quick" = 1 ]; then
  configs=("LI 20 20" "HI 20 20" "HO 20 20" "HOmod 5 5")
else
  configs=("LI 400 400" "HI 200 200" "HI 300 300" "HO 200 200" "HO 300 300" "HOmod 20 20" "HOmod 30 30")
fi

# Peer drivers: commands taking TYPE DEPTH WIDTH and printing "sim_s=<seconds>" (see
# bench/peers/README.md for how we built and wrapped them). Unset ones are skipped.
declare -A peers=()
[ -n "${ADEVS_DEVSTONE:-}" ] && peers[adevs]="$ADEVS_DEVSTONE"
[ -n "${CADMIUM_DEVSTONE:-}" ] && peers[cadmium2]="$CADMIUM_DEVSTONE"
[ -n "${XDEVS_C_DEVSTONE:-}" ] && peers[xdevs_c]="$XDEVS_C_DEVSTONE"

field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# Runs "$@" REPS times; prints the line of the fastest run with rss_kb appended.
best_of() {
  local best="" best_t="" line t rss tmp
  tmp=$(mktemp)
  for _ in $(seq "$reps"); do
    line=$(/usr/bin/env time -f "rss_kb=%M" -o "$tmp" "$@" | tail -n 1) || return 1
    rss=$(field rss_kb "$(cat "$tmp")")
    t=$(field sim_s "$line")
    if [ -z "$best_t" ] || awk "BEGIN{exit !($t < $best_t)}"; then
      best_t=$t best="$line peak_rss_kb=$rss"
    fi
  done
  rm -f "$tmp"
  echo "$best"
}

command -v /usr/bin/time >/dev/null 2>&1 || { echo "bench: needs /usr/bin/time (Debian package 'time')" >&2; exit 1; }
for c in "${configs[@]}"; do
  read -r type depth width <<<"$c"
  line=$(best_of build/cdevs devstone --type "$type" --depth "$depth" --width "$width")
  cs=$(field sim_s "$line") cr=$(field peak_rss_kb "$line")
  echo "bench name=devstone sim=cdevs type=$type depth=$depth width=$width build_s=$(field build_s "$line") sim_s=$cs rss_kb=$cr"
  for p in "${!peers[@]}"; do
    pl=$(best_of ${peers[$p]} "$type" "$depth" "$width") || { echo "bench name=devstone sim=$p type=$type failed" ; continue; }
    ps=$(field sim_s "$pl") pr=$(field peak_rss_kb "$pl")
    echo "bench name=devstone sim=$p type=$type depth=$depth width=$width sim_s=$ps rss_kb=$pr speedup=$(awk "BEGIN{printf \"%.2f\", $ps/$cs}") rss_ratio=$(awk "BEGIN{printf \"%.2f\", $pr/$cr}")"
  done
done

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DEVStone benchmark: cdevs on the configurations of issue #2, and the peers named
# below, in one script. Each configuration runs REPS rounds; in each round every
# implementation runs once, in an order rotated from round to round, so a burst of
# load on the machine spreads over all of them instead of landing on one's
# repetitions (Cadmium HOmod 30x30 once measured 7.0 s back to back against 1.87 s
# interleaved). Per implementation and configuration, the best of the rounds:
#   bench name=devstone sim=cdevs type=HO depth=200 width=200 build_s=.. sim_s=.. proc_s=.. rss_kb=..
# sim_s is what each simulator measures of its simulation; proc_s the whole process
# as a user waits for it (start, model building, flattening, routes, simulation,
# exit, wall clock around it); rss_kb its peak resident memory (/usr/bin/time). Peer lines add
# speedup (peer sim_s / cdevs sim_s), proc_speedup (the same for proc_s) and
# rss_ratio.
# Peer drivers: commands taking TYPE DEPTH WIDTH and printing "sim_s=<seconds>"
# (and proc_s, the driver's whole process, when a wrapper times it; else the command
# is timed here). bench/peers/README.md says how we built them, outside this
# repository; bench/peers/*.sh are the wrappers. Unset ones are skipped.
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

declare -A cmd=([cdevs]="build/cdevs devstone --type")
names=(cdevs)
[ -n "${ADEVS_DEVSTONE:-}" ] && cmd[adevs]="$ADEVS_DEVSTONE" && names+=(adevs)
[ -n "${CADMIUM_DEVSTONE:-}" ] && cmd[cadmium2]="$CADMIUM_DEVSTONE" && names+=(cadmium2)
[ -n "${XDEVS_C_DEVSTONE:-}" ] && cmd[xdevs_c]="$XDEVS_C_DEVSTONE" && names+=(xdevs_c)

field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
less() { awk -v a="$1" -v b="$2" 'BEGIN{exit !(b == "" || a < b)}'; }

# One run of implementation $1 on TYPE DEPTH WIDTH: its last line with proc_s and
# rss_kb (of the whole process) appended; non-zero if it failed.
run_one() {
  local name=$1 type=$2 depth=$3 width=$4 tmp line args t0 t1
  tmp=$(mktemp)
  if [ "$name" = cdevs ]; then args=("$type" --depth "$depth" --width "$width"); else args=("$type" "$depth" "$width"); fi
  t0=$EPOCHREALTIME
  # shellcheck disable=SC2086
  line=$(/usr/bin/env time -f "rss_kb=%M" -o "$tmp" ${cmd[$name]} "${args[@]}" | tail -n 1) || { rm -f "$tmp"; return 1; }
  t1=$EPOCHREALTIME
  # (a wrapper that times its driver itself says proc_s: its bash and awk left out)
  [[ $line == *proc_s=* ]] || line+=" proc_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.6f", b - a}')"
  echo "$line $(tail -n 1 "$tmp")"
  rm -f "$tmp"
}

command -v /usr/bin/time >/dev/null 2>&1 || { echo "bench: needs /usr/bin/time (Debian package 'time')" >&2; exit 1; }
for c in "${configs[@]}"; do
  read -r type depth width <<<"$c"
  declare -A sim=() proc=() rss=() build=() failed=()
  n=${#names[@]}
  for round in $(seq 0 $((reps - 1))); do
    for k in $(seq 0 $((n - 1))); do
      name=${names[$(((k + round) % n))]}
      [ -n "${failed[$name]:-}" ] && continue
      line=$(run_one "$name" "$type" "$depth" "$width") || { failed[$name]=1; continue; }
      s=$(field sim_s "$line") p=$(field proc_s "$line") r=$(field rss_kb "$line")
      if less "$s" "${sim[$name]:-}"; then sim[$name]=$s build[$name]=$(field build_s "$line"); fi
      if less "$p" "${proc[$name]:-}"; then proc[$name]=$p; fi
      if less "$r" "${rss[$name]:-}"; then rss[$name]=$r; fi
    done
  done
  for name in "${names[@]}"; do
    if [ -n "${failed[$name]:-}" ] || [ -z "${sim[$name]:-}" ]; then
      echo "bench name=devstone sim=$name type=$type depth=$depth width=$width failed"
      continue
    fi
    out="bench name=devstone sim=$name type=$type depth=$depth width=$width"
    [ -n "${build[$name]}" ] && out+=" build_s=${build[$name]}"
    out+=" sim_s=${sim[$name]} proc_s=${proc[$name]} rss_kb=${rss[$name]}"
    if [ "$name" != cdevs ] && [ -n "${sim[cdevs]:-}" ]; then
      out+=$(awk -v ps="${sim[$name]}" -v cs="${sim[cdevs]}" -v pp="${proc[$name]}" -v cp="${proc[cdevs]}" \
                 -v pr="${rss[$name]}" -v cr="${rss[cdevs]}" \
                 'BEGIN{printf " speedup=%.2f proc_speedup=%.2f rss_ratio=%.2f", ps/cs, (cp > 0 ? pp/cp : 0), pr/cr}')
    fi
    echo "$out"
  done
  unset sim proc rss build failed
done

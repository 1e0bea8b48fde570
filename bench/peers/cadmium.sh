#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DEVStone on Cadmium v2, for bench/devstone.sh (CADMIUM_DEVSTONE): main_devstone of
# SimulationEverywhere/cadmium_v2, built outside this repository as
# bench/peers/README.md says, under $DEVSTONE_PEERS (default /work/peers/devstone).
#   cadmium.sh TYPE DEPTH WIDTH    (TYPE: LI, HI, HO or HOmod)
# One line: build_s = the driver's model creation + engine creation (the
# RootCoordinator constructor and start()), sim_s = simulate(infinity), both wall
# clock as the driver measures them; proc_s = the driver's whole process (wall clock
# here).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TYPE DEPTH WIDTH" >&2; exit 2; }
bin=${DEVSTONE_PEERS:-/work/peers/devstone}/cadmium/bin/main_devstone
t0=$EPOCHREALTIME
out=$("$bin" "$1" "$3" "$2" 0 0) # MODEL_TYPE WIDTH DEPTH INT_DELAY EXT_DELAY: width first
t1=$EPOCHREALTIME
awk -v t="$1" -v d="$2" -v w="$3" -v t0="$t0" -v t1="$t1" '
  /^Model creation time:/  {m = $4}
  /^Engine creation time:/ {e = $4}
  /^Simulation time:/      {s = $3}
  END {
    if (m == "" || e == "" || s == "") { print "cadmium.sh: no times in the driver output" > "/dev/stderr"; exit 1 }
    printf "peer=cadmium2 type=%s depth=%s width=%s build_s=%.6f sim_s=%.6f proc_s=%.6f\n", t, d, w, m + e, s, t1 - t0
  }' <<<"$out"

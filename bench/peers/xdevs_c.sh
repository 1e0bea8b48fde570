#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# DEVStone on xDEVS C, for bench/devstone.sh (XDEVS_C_DEVSTONE): examples/devstone of
# iscar-ucm/xdevs.c, built outside this repository as bench/peers/README.md says,
# under $DEVSTONE_PEERS (default /work/peers/devstone). Zero delays are hard-coded in
# its main.c; it sends one seed event; DEPTH and WIDTH must be at least 2.
#   xdevs_c.sh TYPE DEPTH WIDTH    (TYPE: LI, HI, HO or HOmod)
# One line with the driver's counts and times: build_s = model creation + engine setup
# (coordinator_new + coordinator_initialize), sim_s = coordinator_simulate. The driver
# times with clock(): process CPU time, not wall clock. proc_s = the driver's whole
# process (wall clock here).
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 TYPE DEPTH WIDTH" >&2; exit 2; }
bin=${DEVSTONE_PEERS:-/work/peers/devstone}/xdevs_c/examples/devstone/devstone
t0=$EPOCHREALTIME
out=$("$bin" -w "$3" -d "$2" -b "$1" -m 1)
t1=$EPOCHREALTIME
awk -v t="$1" -v d="$2" -v w="$3" -v t0="$t0" -v t1="$t1" '
  /^Num delta_int:/              {i = $3; sub(",", "", i)}
  /^Num delta_ext:/              {x = $3; sub(",", "", x)}
  /^Num event_ext:/              {v = $3; sub(",", "", v)}
  /^Model creation time \(s\):/  {m = $5}
  /^Engine setup time \(s\):/    {e = $5}
  /^Simulation time \(s\):/      {s = $4}
  END {
    if (m == "" || e == "" || s == "") { print "xdevs_c.sh: no times in the driver output" > "/dev/stderr"; exit 1 }
    printf "peer=xdevs_c type=%s depth=%s width=%s internals=%s externals=%s events=%s build_s=%.6f sim_s=%.6f proc_s=%.6f\n", t, d, w, i, x, v, m + e, s, t1 - t0
  }' <<<"$out"

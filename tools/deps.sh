#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages cdevs needs: `tools/deps.sh build` or `run` (compile,
# test, plot), `tools/deps.sh fuzz` (also clang, for the fuzz targets) or
# `tools/deps.sh bench` (also SimPy, the peer of bench/proc.sh). Does nothing when all
# are present.
set -euo pipefail

# libsundials-dev: CVODE, the reference solver of the QSS tests and benchmarks;
# python3-scipy: an independent reader of the MAT v4 result files, in the tests;
# gnuplot-nox: plots (run), and in the tests the --plot cases (no file name may reach
# gnuplot as script text); pkgconf and groff-base: the install test builds a program
# through pkg-config and checks the man page.
# g++ and libdragonbox-dev: the shortest round-trip numbers of the result files
# (src/io/shortest.cc, header-only; the library needs no C++ runtime).
# libhdf5-dev: HDF5 result files (--out F.h5; linked into the command only);
# python3-h5py: an independent reader of them, in the tests.
# openmpi-bin and libopenmpi-dev: replications across machines (`mpirun -np N cdevs run
# M.mo --reps K`; MPI is linked into the command only), which tests/reps_cli.cmake runs
# and which fails without them.
# graphviz: dot draws the DEVS graphs (cdevs graph --dot --render), as tests/graph_cli.cmake does.
want=(cmake make gcc g++ libc6-dev time libdragonbox-dev libsundials-dev python3-scipy gnuplot-nox pkgconf groff-base
      libhdf5-dev python3-h5py openmpi-bin libopenmpi-dev graphviz)
# The fuzz targets: clang with its libFuzzer and sanitizer runtimes.
[ "${1:-build}" = fuzz ] && want+=(clang libclang-rt-14-dev)
# The process-model benchmark's peer: SimPy running the same M/M/1.
[ "${1:-build}" = bench ] && want+=(python3-simpy3)

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  SUDO=()
elif command -v sudo >/dev/null 2>&1; then
  SUDO=(sudo)
else
  echo "cdevs: missing Debian packages: ${missing[*]}" >&2
  echo "cdevs: install them as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "cdevs: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${SUDO[@]}" apt-get update -qq && \
       "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
  cat "$log" >&2
  echo "cdevs: apt-get could not install: ${missing[*]}" >&2
  exit 1
fi

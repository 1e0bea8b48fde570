# SPDX-License-Identifier: MIT
# Shared by the bench scripts: `--quick` / `--reps N` parsing and a Release build.
# Sets $reps and $quick; usage text in $usage.
reps=3 quick=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 reps=1 ;;
    --reps) reps="$2"; shift ;;
    *) echo "usage: $usage" >&2; exit 2 ;;
  esac
  shift
done
if [ ! -x build/cdevs ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build -j"$(nproc)" >/dev/null
fi

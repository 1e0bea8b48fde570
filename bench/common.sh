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

# best_run OUT FILE ARGS…: `cdevs run FILE ARGS… --quiet --out OUT`, REPS times; prints
# "WALL TRANSITIONS": the fastest wall time and the transitions (the same in every run).
best_run() {
  local out=$1 file=$2 best="" line w
  shift 2
  for _ in $(seq "$reps"); do
    line=$(build/cdevs run "$file" "$@" --quiet --out "$out" 2>&1 | grep '^summary:')
    w=$(sed -n 's/.*wall_s=\([^ ]*\).*/\1/p' <<<"$line")
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$w; fi
  done
  echo "$best $(sed -n 's/.* transitions=\([^ ]*\).*/\1/p' <<<"$line")"
}

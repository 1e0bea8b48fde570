#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a user waits for: the whole `cdevs run MODEL --out F` process, against QSS
# Solver's own run of the same file (its simulation and saving; its C compilation
# excluded), for each model's own MMO_Output ("own") and for every state ("all").
# One line per model and output set:
#   bench name=<model> outputs=own|all changes=N layout=wide|long cdevs_csv_s=..
#     cdevs_mat_s=.. cdevs_noout_s=.. write_share=.. csv_bytes=.. bytes_per_change=..
#     mat_bytes=.. [base_csv_s=..] [qss_total_s=.. qss_sim_save_s=.. ratio=..]
# (MAT and CDEVS_BASE are skipped where the CSV is long: their wide tables would be
# instants × variables.)
# write_share = (csv − noout) / csv: the part of the run spent writing results;
# ratio = cdevs_csv_s / qss_total_s, both whole-process wall times (fastest of REPS).
# Then the formatter's throughput against glibc's %.17g (bench/format.c).
#
# QSS_SOLVER_MODELS: a checkout of CIFASIS/qss-solver's models/ directory (required).
# QSS_SOLVER_RUN: a command taking MODEL.mo that compiles it (once) and runs it with
#   QSS Solver, printing "transitions=N sim_ms=X save_ms=Y total_ms=Z" (total_ms: the
#   simulation binary's wall time); built outside this repository (bench/README.md).
# CDEVS_BASE: another cdevs binary (e.g. an older build) timed with --out F.csv too.
# REPS: runs of each, interleaved, keeping the fastest (default 7).
#   bench/output.sh [--quick] [MODEL …]   (default: the QSS Solver comparison's models and C7)
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[ "${1:-}" = --quick ] && { quick=1; shift; }
[ -x build/cdevs ] || { cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null; cmake --build build -j"$(nproc)" >/dev/null; }
cmake --build build --target bench_format >/dev/null
reps=${REPS:-7}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  if [ $quick = 1 ] || [ -z "${QSS_SOLVER_MODELS:-}" ]; then
    models=(c7)
  else
    models=(c7 lc_line/lc_line lotka_volterra/lotka_volterra bball/bball_downstairs spikings/spikings
            advection/advection converters/buck)
  fi
fi
[ $quick = 1 ] && reps=1

# ARGESIM C7 (examples/c7) as QSS Solver reads it: its Tolerance lists in braces, the
# start values as numbers (QSS Solver takes a start value that uses a parameter as 0),
# QSS3 (4,237 steps).
c7_file() {
  sed -e 's/Tolerance = 1e-6, AbsTolerance = 1e-8/Tolerance = {1e-6}, AbsTolerance = {1e-8}/' \
      -e 's/MMO_Solver = QSS2/MMO_Solver = QSS3/' -e 's|phi(start = pi / 6)|phi(start = 0.52359877559829882)|' \
      -e 's|phip = -pi / 12|phip = -0.26179938779914941|' examples/c7/c7.mo
}

# The model with MMO_Output listing every state (x[:] for an array): the names that
# der() is applied to.
all_states() {
  perl -0777 -e '
    my $s = do { local $/; <STDIN> };
    my (%seen, @out);
    while ($s =~ /der\s*\(\s*([A-Za-z_]\w*)\s*(\[)?/g) {
      my $n = $2 ? "$1\[:\]" : $1;
      push @out, $n unless $seen{$n}++;
    }
    my $list = join(",", @out);
    $s =~ s/MMO_Output\s*=\s*\{[^}]*\}/MMO_Output={$list}/s or die "no MMO_Output\n";
    print $s;'
}

# Wall time of a command in seconds (bash's microsecond clock).
wall() {
  local t0=$EPOCHREALTIME
  "$@" >/dev/null 2>&1 || true
  local t1=$EPOCHREALTIME
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f", b - a }'
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }'; }

for m in "${models[@]}"; do
  name=$(basename "$m")
  for set in own all; do
    d="$work/$name.$set"
    mkdir -p "$d"
    if [ "$m" = c7 ]; then c7_file >"$d/src.mo"; else cp "$QSS_SOLVER_MODELS/$m.mo" "$d/src.mo"; fi
    if [ $set = all ]; then all_states <"$d/src.mo" >"$d/$name.mo"; else cp "$d/src.mo" "$d/$name.mo"; fi
    f="$d/$name.mo"
    csv= mat= noout= base= qt= qss= changes= wide=1
    for ((r = 0; r < reps; r++)); do
      csv=$(min "$csv" "$(wall build/cdevs run "$f" --quiet --out "$d/out.csv")")
      # The long layout means many variables: a wide table of them (MAT, or an older
      # build's CSV) would be instants × variables (spikings, all states: ~24 GB).
      [ "$(head -1 "$d/out.csv")" = "time,variable,value" ] && wide=0
      [ $wide = 1 ] && mat=$(min "$mat" "$(wall build/cdevs run "$f" --quiet --out "$d/out.mat")")
      noout=$(min "$noout" "$(wall build/cdevs run "$f" --quiet --no-out)")
      [ $wide = 1 ] && [ -n "${CDEVS_BASE:-}" ] && base=$(min "$base" "$(wall "$CDEVS_BASE" run "$f" --quiet --out "$d/base.csv")")
      if [ -n "${QSS_SOLVER_RUN:-}" ]; then
        out=$($QSS_SOLVER_RUN "$f" 2>&1 | tail -1)
        qt=$(min "$qt" "$(sed -n 's/.*total_ms=\([0-9.]*\).*/\1/p' <<<"$out" | awk '{ printf "%.6f", $1 / 1000 }')")
        qss=$(min "$qss" "$(awk -v s="$(sed -n 's/.*sim_ms=\([0-9.]*\).*/\1/p' <<<"$out")" \
                              -v v="$(sed -n 's/.*save_ms=\([0-9.]*\).*/\1/p' <<<"$out")" \
                              'BEGIN { printf "%.6f", (s + v) / 1000 }')")
      fi
    done
    s=$(build/cdevs run "$f" --no-out 2>&1 | sed -n 's/^summary: //p')
    changes=$(awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "transitions" || kv[1] == "zero_crossings") n += kv[2] } } END { print n + 0 }' <<<"$s")
    cb=$(stat -c %s "$d/out.csv") mb=$([ $wide = 1 ] && stat -c %s "$d/out.mat" || echo skipped)
    line="bench name=$name outputs=$set changes=$changes layout=$([ $wide = 1 ] && echo wide || echo long)"
    line+=" cdevs_csv_s=$csv cdevs_mat_s=${mat:-skipped} cdevs_noout_s=$noout"
    line+=" $(awk -v c="$csv" -v n="$noout" -v b="$cb" -v k="$changes" 'BEGIN { printf "write_share=%.3f csv_bytes=%d bytes_per_change=%.1f", (c - n) / c, b, k ? b / k : 0 }')"
    line+=" mat_bytes=$mb"
    [ -n "$base" ] && line+=" base_csv_s=$base"
    [ -n "$qt" ] && line+=" qss_total_s=$qt qss_sim_save_s=$qss $(awk -v c="$csv" -v q="$qt" 'BEGIN { printf "ratio=%.2f", c / q }')"
    echo "$line"
    rm -rf "$d"
  done
done
build/bench_format $([ $quick = 1 ] && echo 100000)

#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Beltrame & Cellier's Fig. 8: the constant term of the load voltage's Taylor series
# (what each event sends) under QSS1 and under QSS3, over the flyback's 2 ms, at the
# quanta where QSS1 takes 7.6 times QSS3's events (Tolerance 3e-2, AbsTolerance 5e-2;
# tests/test_flyback.c). Writes fig8.png beside this script; needs gnuplot.
set -euo pipefail
cd "$(dirname "$0")"
cdevs=${CDEVS:-../../build/cdevs}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for m in QSS1 QSS3; do
  "$cdevs" run flyback.mo --method "$m" --tol 3e-2 --abstol 5e-2 --raw --vars vC --quiet --out "$work/$m.csv" 2>/dev/null
done
gnuplot <<GP
set terminal pngcairo size 900,500
set output "fig8.png"
set datafile separator ","
set key top left
set xlabel "time (s)"
set ylabel "load voltage, constant term (V)"
set title "Flyback converter: QSS1 vs QSS3 (Tolerance 3e-2, AbsTolerance 5e-2)"
plot "$work/QSS1.csv" every ::1 using 1:2 with steps lw 1 title "QSS1", \
     "$work/QSS3.csv" every ::1 using 1:2 with steps lw 2 title "QSS3"
GP
echo "wrote $(pwd)/fig8.png"

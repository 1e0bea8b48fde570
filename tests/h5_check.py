# SPDX-License-Identifier: MIT
# Reads a cdevs HDF5 result with h5py (an independent reader of HDF5) and checks it.
#
# h5_check.py RESULT.h5 RESULT.csv: the same run written as CSV; the layout attribute
#   names the CSV's layout, and every name, time and value is the same (the CSV's text
#   parsed by Python).
# h5_check.py --decays RESULT.h5 N T: N decays x[i]' = -0.1·i·x[i], x(0) = 1, run to T:
#   every record against exp(-0.1·i·t) (QSS2 at tolerance 1e-4: within 1e-3), each
#   variable's last record at T, the records in time order.
# h5_check.py --partial RESULT.h5 T STEP: the file of a run stopped at T with rows every
#   STEP: readable, times on the grid, the last within STEP of T, time and values of
#   the same length.
import csv
import math
import sys

import h5py
import numpy as np


def names_of(f):
    return [n.decode() if isinstance(n, bytes) else n for n in f["names"][:]]


def fail(msg):
    print("h5_check: FAIL: " + msg)
    sys.exit(1)


def against_csv(h5, csv_path):
    with open(csv_path, newline="") as fh:
        table = list(csv.reader(fh))
    header, rows = table[0], table[1:]
    with h5py.File(h5, "r") as f:
        layout, names = f.attrs["layout"], names_of(f)
        if not str(f.attrs["generator"]).startswith("cdevs "):
            fail(f"generator {f.attrs['generator']}")
        t = f["time"][:]
        if layout == "long":
            if header != ["time", "variable", "value"]:
                fail(f"layout long, csv header {header}")
            var, val = f["variable"][:], f["value"][:]
            if not (len(t) == len(var) == len(val) == len(rows)):
                fail(f"{len(t)}/{len(var)}/{len(val)} records, csv {len(rows)}")
            for i, r in enumerate(rows):
                if float(r[0]) != t[i] or r[1] != names[var[i]] or float(r[2]) != val[i]:
                    fail(f"record {i}: {t[i]},{names[var[i]]},{val[i]} against csv {r}")
        else:
            if header != ["time"] + names:
                fail(f"names {names}, csv header {header}")
            vals = f["values"][:]
            if vals.shape != (len(rows), len(names)) or len(t) != len(rows):
                fail(f"values {vals.shape}, time {len(t)}, csv {len(rows)} x {len(names)}")
            for i, r in enumerate(rows):
                if float(r[0]) != t[i] or [float(x) for x in r[1:]] != list(vals[i]):
                    fail(f"row {i}: {t[i]} {list(vals[i])} against csv {r}")
    print(f"h5_check: {layout}, {len(names)} variables, {len(rows)} rows or records match the csv")


def decays(h5, n, t_end):
    with h5py.File(h5, "r") as f:
        if f.attrs["layout"] != "long":
            fail(f"layout {f.attrs['layout']}, expected long")
        names = names_of(f)
        t, var, val = f["time"][:], f["variable"][:], f["value"][:]
    if names != [f"x[{i}]" for i in range(1, n + 1)]:
        fail(f"names {names}")
    if np.any(np.diff(t) < 0):
        fail("records out of time order")
    k = var + 1.0
    worst = float(np.max(np.abs(val - np.exp(-0.1 * k * t))))
    last = [t[var == i].max() for i in range(n)]
    if worst > 1e-3 or any(x != t_end for x in last) or len(t) < 3 * n:
        fail(f"{len(t)} records, worst error {worst}, last times {sorted(set(last))}")
    print(f"h5_check: {n} decays, {len(t)} records, worst error {worst:.2g} against exp(-0.1 i t)")


def partial(h5, t_stop, step):
    with h5py.File(h5, "r") as f:
        t = f["time"][:]
        n = f["values"].shape[0] if "values" in f else f["value"].shape[0]
    if len(t) < 2 or n != len(t):
        fail(f"{len(t)} times, {n} rows")
    if np.any(np.abs(np.diff(t) - step) > 1e-9 * np.maximum(1.0, np.abs(t[1:]))):
        fail("times not on the step grid")
    if not (t_stop - step < t[-1] <= t_stop):
        fail(f"last row at {t[-1]}, stopped at {t_stop}")
    print(f"{h5}: {len(t)} rows, whole, the last at {t[-1]} (stopped at {t_stop})")


if sys.argv[1] == "--decays":
    decays(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
elif sys.argv[1] == "--partial":
    partial(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
else:
    against_csv(sys.argv[1], sys.argv[2])

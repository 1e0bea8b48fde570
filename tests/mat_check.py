# SPDX-License-Identifier: MIT
# Reads a cdevs MAT v4 result with scipy (an independent reader) and checks it against
# the CSV of the same run: the Dymola layout (Aclass, name, dataInfo, data_1, data_2)
# and every value. Usage: mat_check.py RESULT.mat RESULT.csv
#
# mat_check.py --partial RESULT.csv|RESULT.mat T STEP checks the file of a run stopped
# at T with rows every STEP: every row whole, times increasing by STEP, the last
# within STEP of T; for MAT also that the matrices tile the file exactly (the header's
# column count matches the data written) and data_1 spans [first time, T].
import csv
import os
import struct
import sys

import scipy.io


def partial(path, t_stop, step):
    fail = []
    if path.endswith(".csv"):
        with open(path, newline="") as f:
            table = list(csv.reader(f))
        header, rows = table[0], table[1:]
        if any(len(r) != len(header) for r in rows):
            fail.append("a row with the wrong number of fields")
        times = [float(r[0]) for r in rows]
        for r in rows:
            [float(x) for x in r]
    else:
        size, pos, names = os.path.getsize(path), 0, []
        with open(path, "rb") as f:
            while pos < size:
                typ, mrows, ncols, imag, namlen = struct.unpack("<5i", f.read(20))
                names.append(f.read(namlen).rstrip(b"\0").decode())
                elem = {0: 8, 20: 4, 51: 1}[typ]
                pos += 20 + namlen + mrows * ncols * elem
                f.seek(pos)
        if pos != size or names != ["Aclass", "name", "description", "dataInfo", "data_1", "data_2"]:
            fail.append(f"matrices {names} end at {pos}, the file at {size}")
        m = scipy.io.loadmat(path)
        times = list(m["data_2"][0])
        d1 = m["data_1"]
        if d1.shape != (1, 2) or not times or d1[0][0] != times[0] or d1[0][1] != t_stop:
            fail.append(f"data_1 {d1}, expected [{times[0] if times else '?'}, {t_stop}]")
    if len(times) < 2:
        fail.append(f"{len(times)} rows")
    elif any(abs((b - a) - step) > 1e-9 * max(1.0, abs(b)) for a, b in zip(times, times[1:])):
        fail.append("times not on the step grid")
    elif not (t_stop - step < times[-1] <= t_stop):
        fail.append(f"last row at {times[-1]}, stopped at {t_stop}")
    if fail:
        print("mat_check --partial: FAIL: " + "; ".join(fail))
        sys.exit(1)
    print(f"{path}: {len(times)} rows, whole, the last at {times[-1]} (stopped at {t_stop})")
    sys.exit(0)


if sys.argv[1] == "--partial":
    partial(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))

mat, csv_path = sys.argv[1], sys.argv[2]
m = scipy.io.loadmat(mat)
fail = []
aclass = [s.strip() for s in m["Aclass"]]
if aclass != ["Atrajectory", "1.1", "", "binTrans"]:
    fail.append(f"Aclass {aclass}")
rows = m["name"]
w = max(len(r) for r in rows)
rows = [r.ljust(w) for r in rows]
names = ["".join(r[j] for r in rows).strip() for j in range(len(rows[0]))]
with open(csv_path) as f:
    table = list(csv.reader(f))
header, data = table[0], [[float(x) for x in r] for r in table[1:]]
if names != header:
    fail.append(f"names {names} != csv header {header}")
info = m["dataInfo"].T.tolist()
want = [[0, 1, 0, -1]] + [[2, j + 1, 0, -1] for j in range(1, len(names))]
if info != want:
    fail.append(f"dataInfo {info}")
d2 = m["data_2"]
if d2.shape != (len(names), len(data)):
    fail.append(f"data_2 shape {d2.shape}, csv {len(names)}x{len(data)}")
else:
    worst = max(abs(d2[i][k] - data[k][i]) for k in range(len(data)) for i in range(len(names)))
    if worst != 0.0:
        fail.append(f"data_2 differs from the csv by {worst}")
d1 = m["data_1"]
if d1.shape != (1, 2) or d1[0][0] != data[0][0] or d1[0][1] != data[-1][0]:
    fail.append(f"data_1 {d1}")
if fail:
    print("mat_check: FAIL: " + "; ".join(fail))
    sys.exit(1)
print(f"mat_check: {len(names)} variables x {len(data)} points match")

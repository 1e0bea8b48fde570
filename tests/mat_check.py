# SPDX-License-Identifier: MIT
# Reads a cdevs MAT v4 result with scipy (an independent reader) and checks it against
# the CSV of the same run: the Dymola layout (Aclass, name, dataInfo, data_1, data_2)
# and every value. Usage: mat_check.py RESULT.mat RESULT.csv
import csv
import sys

import scipy.io

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

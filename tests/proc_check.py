#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a process model's report (cdevs run --reps K --report FILE.csv) against
queueing theory: the values are derived here and in the model files' comments, never
taken from cdevs. Usage: proc_check.py MODEL REPORT.csv STOP"""
import csv
import sys

from scipy import stats

model, path, stop = sys.argv[1], sys.argv[2], float(sys.argv[3])
runs = {}
for row in csv.DictReader(open(path)):
    if row["replication"] == "all":
        continue
    runs.setdefault(int(row["replication"]), {})[row["owner"] + "." + row["name"]] = row
reps = sorted(runs)
fails = []


def values(name):
    return [float(runs[r][name]["avg"]) for r in reps]


def mean_hw(xs):
    n = len(xs)
    m = sum(xs) / n
    s2 = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, stats.t.ppf(0.975, n - 1) * (s2 / n) ** 0.5


def expect(label, xs, exact, widths, max_rel_hw=0.05):
    """The mean of the replications' values within `widths` half-widths of exact, and a
    half-width narrow enough (relative to exact) for the check to mean something."""
    m, hw = mean_hw(xs)
    ok = abs(m - exact) <= widths * hw and hw <= max_rel_hw * abs(exact)
    print(f"{model}: {label} = {m:.5f} ± {hw:.5f} (exact {exact:.5f}) {'ok' if ok else 'FAIL'}")
    if not ok:
        fails.append(label)


def little(type_):
    """L = lambda W on every run: the time-average number in the system against the
    throughput times the mean time in system."""
    for r in reps:
        L = float(runs[r][type_ + ".WIP"]["avg"])
        lam = float(runs[r][type_ + ".NumberOut"]["count"]) / stop
        W = float(runs[r][type_ + ".TotalTime"]["avg"])
        if abs(L - lam * W) > 0.01 * L:
            fails.append(f"Little's law in replication {r}: L {L} lambda*W {lam * W}")


if model == "mm1":  # rho = 0.8: L = 4, Lq = 3.2, W = 5, Wq = 4, utilization 0.8
    expect("L", values("Customer.WIP"), 4.0, 1)
    expect("Lq", values("serve.Queue.NQ"), 3.2, 1)
    expect("W", values("Customer.TotalTime"), 5.0, 1)
    expect("Wq", values("serve.Queue.WaitTime"), 4.0, 1)
    expect("utilization", values("server.Utilization"), 0.8, 1)
    little("Customer")
elif model == "mm3":  # Erlang C, a = 2, c = 3
    expect("Wq", values("serve.Queue.WaitTime"), 4 / 9, 3)
    expect("Lq", values("serve.Queue.NQ"), 8 / 9, 3)
    expect("L", values("Customer.WIP"), 26 / 9, 3)
    expect("utilization", values("clerks.Utilization"), 2 / 3, 3)
    little("Customer")
elif model == "jackson":  # product form: L_i = rho_i / (1 - rho_i)
    lam = [8 / 7, 4 / 7, 4 / 7]
    mu = [2, 1.5, 1]
    total = 0
    for i in range(3):
        rho = lam[i] / mu[i]
        total += rho / (1 - rho)
        n = [float(runs[r][f"s{i + 1}.Queue.NQ"]["avg"]) + float(runs[r][f"m{i + 1}.NumberBusy"]["avg"]) for r in reps]
        expect(f"L{i + 1}", n, rho / (1 - rho), 3)
        expect(f"utilization {i + 1}", values(f"m{i + 1}.Utilization"), rho, 3)
    expect("L", values("Job.WIP"), total, 3)
    expect("W", values("Job.TotalTime"), total / 1.0, 3)
    little("Job")
else:
    sys.exit(f"unknown model {model}")

if fails:
    sys.exit(f"{model}: {len(fails)} check(s) failed: {fails}")

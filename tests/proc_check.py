#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a process model's report (cdevs run --reps K --report FILE.csv) against
queueing theory: the values are derived here and in the model files' comments, never
taken from cdevs. Usage: proc_check.py MODEL REPORT.csv STOP [RESULTS.csv]"""
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
elif model in ("beverage", "beverage_starved"):  # one run: the tank and the bottles account for the same litres
    series = list(csv.DictReader(open(sys.argv[4])))
    r = runs[reps[0]]
    level = [float(x["level"]) for x in series]
    last = series[-1]
    q = r["filling.Quantity"]
    taken = float(q["avg"]) * int(q["count"])  # litres in the bottles filled, by the block's tally
    drawn = float(last["drawn"])  # litres the tank lost, integrated from the block's rate signal
    qmax = 1.1
    print(f"beverage: min level {min(level):.6g}, drawn {drawn:.9g}, filled bottles {taken:.9g}")
    if min(level) < -1e-9:
        fails.append(f"the tank's level went below zero: {min(level)}")
    # What the tank lost is what the bottles took, plus at most one bottle being filled.
    if not (taken - 1e-6 * taken <= drawn <= taken + qmax + 1e-6 * taken):
        fails.append(f"the tank lost {drawn} litres, the bottles filled hold {taken}")
    # Level = start + poured - drawn, and the level never rose far above the pump's stop.
    if abs(float(last["level"]) - (5 + float(last["poured"]) - drawn)) > 1e-6:
        fails.append("the level is not start + poured - drawn")
    if max(level) > 8 + 1e-3:
        fails.append(f"the level rose to {max(level)}, past the pump's stop at 8")
    n_in = int(r["System.NumberIn"]["count"])
    n_out = int(r["System.NumberOut"]["count"])
    if model == "beverage" and n_in - n_out > 15:  # what is left inside at the end is a handful of bottles
        fails.append(f"{n_in} bottles in, {n_out} out")
    if model == "beverage_starved":
        # The pump (0.45 l/s) cannot keep up with the bottles (0.5 l/s): they wait for
        # the level, and each fill starts when the tank holds the bottle's quantity q,
        # so the level falls to what the pump adds during the fill, 0.45 q/2, at least
        # 0.45 * 0.9/2 = 0.2025 (less a QSS quantum, 1e-3 of the level); a fill started
        # late would leave more, one started early would go below it.
        lo = 0.45 * 0.9 / 2
        if not (lo - 2e-3 <= min(level) <= lo + 5e-3):
            fails.append(f"the starved tank's lowest level {min(level)}, expected {lo} (fills start at the crossing)")
        waits = r["filling.Queue.WaitTime"]
        if float(waits["avg"]) < 10:
            fails.append("the starved tank kept no bottles waiting")
elif model == "batch":  # trays of 3 from Poisson(1) parts; the oven an E3/M/1 queue (see batch.mo)
    from scipy.optimize import brentq

    lam, mu, k = 1.0, 0.5, 3
    sigma = brentq(lambda s: s - (lam / (lam + mu * (1 - s))) ** k, 1e-12, 1 - 1e-12)
    expect("tray wait", values("tray.Queue.WaitTime"), (k - 1) / (2 * lam), 3)
    expect("tray queue", values("tray.Queue.NQ"), (k - 1) / 2, 3)
    expect("oven wait (E3/M/1)", values("bake.Queue.WaitTime"), sigma / (mu * (1 - sigma)), 3, 0.08)
    expect("oven utilization", values("oven.Utilization"), lam / k / mu, 3)
    expect("part VA time", values("Part.VATime"), 1 / mu, 3)
    little("Part")
elif model == "line":  # SIMAN's Fig. 4 line: traffic equations (see line.mo)
    expect("machine utilization", values("machine.Utilization"), 0.25 * 3, 3)
    good = [float(runs[r]["Good.Count"]["count"]) for r in reps]
    out = [float(runs[r]["System.NumberOut"]["count"]) for r in reps]
    expect("good share", [g / o for g, o in zip(good, out)], 0.7 / 0.8, 3)
    expect("machine passes per piece", [float(runs[r]["machine.NumberSeized"]["count"]) / o for r, o in zip(reps, out)],
           1 / 0.8, 3)
    for r in reps:
        n_in, n_out = int(runs[r]["System.NumberIn"]["count"]), int(runs[r]["System.NumberOut"]["count"])
        wip = float(runs[r]["Piece.WIP"]["final"])
        if n_in != n_out + wip:
            fails.append(f"replication {r}: NumberIn {n_in} != NumberOut {n_out} + WIP {wip}")
    little("Piece")
elif model == "shift_det":  # one clerk on [0,10), none on [10,20), ...; arrivals 0, 1, ...; service 1.2
    T, S = stop, 1.2

    def cap(t):
        return 1 if int(t // 10) % 2 == 0 else 0

    def next_on(t):  # the first time >= t the clerk is on
        return t if cap(t) else (t // 10 + 1) * 10

    starts, ends, arr = [], [], []
    free = 0.0
    for i in range(int(T) + 1):
        s0 = next_on(max(float(i), free))
        arr.append(float(i))
        starts.append(s0)
        ends.append(s0 + S)  # Ignore: a service runs to its end in a break
        free = s0 + S
    seized = [j for j in range(len(arr)) if starts[j] <= T]
    r = runs[reps[0]]

    def integral(f):  # the time integral of a piecewise constant f over [0, T]
        pts = sorted({0.0, T, *[x for x in arr + starts + ends if x <= T], *[10.0 * k for k in range(int(T / 10) + 1)]})
        return sum(f(a) * (b - a) for a, b in zip(pts, pts[1:]))

    def busy(t):
        return sum(1 for j in range(len(arr)) if starts[j] <= t < ends[j])

    def waiting(t):
        return sum(1 for j in range(len(arr)) if arr[j] <= t < starts[j])

    def util(t):
        return busy(t) / cap(t) if cap(t) else (1.0 if busy(t) else 0.0)

    exact = {
        "serve.Queue.WaitTime": sum(starts[j] - arr[j] for j in seized) / len(seized),
        "serve.Queue.NQ": integral(waiting) / T,
        "clerk.NumberBusy": integral(busy) / T,
        "clerk.Utilization": integral(util) / T,
        "clerk.Capacity": integral(cap) / T,
    }
    counts = {"clerk.NumberSeized": len(seized), "System.NumberOut": sum(1 for e in ends if e <= T),
              "System.NumberIn": len(arr)}
    for name, x in exact.items():
        got = float(r[name]["avg"])
        print(f"shift_det: {name} = {got:.12g} (by hand {x:.12g})")
        if abs(got - x) > 1e-9 * max(1, abs(x)):
            fails.append(f"{name} {got} != {x}")
    for name, n in counts.items():
        if int(r[name]["count"]) != n:
            fails.append(f"{name} {r[name]['count']} != {n}")
elif model in ("stock", "dup"):  # exact counts and averages given in the model files' comments
    r = runs[reps[0]]
    want = {"stock": {("sold.Count", "count"): 5, ("refused.Count", "count"): 3, ("stock.Value", "avg"): 1.0,
                      ("stock.Value", "final"): 0.0, ("System.NumberOut", "count"): 8},
            "dup": {("System.NumberIn", "count"): 15, ("System.NumberOut", "count"): 15, ("Part.NumberOut", "count"): 6,
                    ("Pair.NumberIn", "count"): 9, ("pair.Queue.WaitTime", "avg"): 0.5, ("wsum.Value", "avg"): 4.0,
                    ("wsum.Value", "count"): 9, ("Part.TotalTime", "avg"): 0.5}}[model]
    if model == "dup":  # the Entity data module orders the types as declared
        types = [k[:-len(".NumberIn")] for k in r if k.endswith(".NumberIn") and k != "System.NumberIn"]
        if types != ["Pair", "Part"]:
            fails.append(f"entity types reported as {types}, declared Pair, Part")
    for (name, col), x in want.items():
        got = float(r[name][col])
        print(f"{model}: {name}.{col} = {got:.12g} (expected {x})")
        if abs(got - x) > 1e-12:
            fails.append(f"{name}.{col} {got} != {x}")
elif model == "cashier":  # the trajectories (--vars of statistics) against the physical and abstract views
    rows = list(csv.DictReader(open(sys.argv[4])))
    r = runs[reps[0]]
    t = [float(x["time"]) for x in rows]
    col = {k: [float(x[k]) for x in rows] for k in rows[0] if k != "time"}
    if t[0] != 0 or t[-1] != stop or any(b < a for a, b in zip(t, t[1:])):
        fails.append("the rows do not run in time order from 0 to the stop time")
    for i in range(len(rows)):
        n_in, n_out, wip = col["System.NumberIn"][i], col["System.NumberOut"][i], col["Customer.WIP"][i]
        nq, busy = col["line.Queue.NQ"][i], col["cashier.NumberBusy"][i]
        if wip != n_in - n_out or wip != nq + busy or busy not in (0, 1):
            fails.append(f"row {i} (t={t[i]}): in {n_in} out {n_out} WIP {wip} NQ {nq} busy {busy}")
            break
    # Each change is a step: two rows at its time. The integral of the step function
    # is what the report's time averages integrate, computed the other way round.
    for name in ("Customer.WIP", "line.Queue.NQ", "cashier.NumberBusy"):
        area = sum(col[name][i] * (t[i + 1] - t[i]) for i in range(len(t) - 1))
        avg = float(r[name]["avg"])
        print(f"cashier: {name} trajectory average {area / stop:.12g}, report {avg:.12g}")
        if abs(area / stop - avg) > 1e-9 * max(1, avg):
            fails.append(f"{name}: the trajectory integrates to {area / stop}, the report says {avg}")
    if int(col["System.NumberIn"][-1]) != int(r["System.NumberIn"]["count"]) or len(rows) < 100:
        fails.append("the arrivals counted differ from the report's")
else:
    sys.exit(f"unknown model {model}")

if fails:
    sys.exit(f"{model}: {len(fails)} check(s) failed: {fails}")

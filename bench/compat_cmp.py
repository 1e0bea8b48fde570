#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compares a cdevs result CSV with the .dat outputs of QSS Solver for one model.

    bench/compat_cmp.py MODEL.mo CDEVS.csv REFDIR [--window R] [--limit Q]

MODEL.mo gives the experiment annotation (StartTime, StopTime, Tolerance,
AbsTolerance; arrays such as {1e-3} give their first element; 1e-3 each when absent).
CDEVS.csv is `cdevs run --out` (`time,<var>,...`, one row per change or per step), or
a directory of `<var>.dat` files (to score a QSS Solver run the same way, e.g. both
simulators against a tighter-tolerance reference).
REFDIR holds QSS Solver's `<var>.dat` files (two columns: time, value).

For every variable found on both sides, with the quantum
    dQ = max(AbsTolerance, Tolerance * max|x_ref|):
  final: the tube distance (below) at the last reference sample, in quanta (QSS
         Solver writes a variable at its own changes, so its last sample may come
         before the stop time; a run that ended early is not compared);
  traj:  the largest tube distance over the reference samples, in quanta. For a
         reference sample (t, r) the tube distance is the distance from r to the range
         of the cdevs trajectory over [t - w, t + w], w = R * (stop - start) (R = 1e-6
         by default): the range spans the cdevs rows inside the window, the linear
         interpolation of the cdevs rows at both window ends, and the step-hold value
         (the last cdevs row at or before t - w). So an event shifted by less than w
         costs nothing, and between rows either reading of the cdevs output (QSS
         polynomials sampled at their changes, or values held from event to event)
         is accepted. Reference samples outside the cdevs time span (a run that
         stopped early) or after the stop time (CVODE's last step may overshoot it) are
         not compared.
The model matches when every compared variable is within Q quanta (5 by default) at
the end and along the trajectory. A model that calls rand() is flagged in the details:
cdevs draws QSS Solver's sequence (glibc's unseeded rand()), so the two agree only while
they draw in the same order.

Prints one line per variable, then `result<TAB>yes|no<TAB>details` as the last line.
Exits 0 whatever the verdict (also on unreadable input, then the verdict is `no`).
"""
import argparse
import math
import os
import re
import sys

import numpy as np


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def number(expr):
    """A constant arithmetic expression such as 1e-3, {1e-3, 1e-4} (first) or 10/5000."""
    expr = expr.strip().strip("{}").split(",")[0].strip()
    if not expr or not re.fullmatch(r"[0-9eE.+\-*/() ]+", expr):
        return None
    try:
        return float(eval(expr, {"__builtins__": {}}, {}))  # digits and operators only
    except (SyntaxError, ZeroDivisionError, TypeError, ValueError):
        return None


def experiment(mo_path):
    with open(mo_path, encoding="utf-8", errors="replace") as f:
        text = strip_comments(f.read())
    i = text.find("experiment")
    ann = text[i:] if i >= 0 else ""
    out = {"StartTime": 0.0, "StopTime": 1.0, "Tolerance": 1e-3, "AbsTolerance": 1e-3}
    for key in out:
        m = re.search(r"(?<![A-Za-z0-9_])" + key + r"\s*=\s*(\{[^}]*\}|[^,)\n]+)", ann)
        v = number(m.group(1)) if m else None
        if v is not None:
            out[key] = v
    out["random"] = re.search(r"\brand\s*\(", text) is not None
    return out


def split_header(line):
    """Splits at commas outside brackets: a header may hold `u[20,20]`."""
    names, depth, cur = [], 0, ""
    for ch in line.strip():
        if ch == "," and depth == 0:
            names.append(cur)
            cur = ""
            continue
        depth += ch == "["
        depth -= ch == "]"
        cur += ch
    names.append(cur)
    return [norm(n) for n in names]


def norm(name):
    return re.sub(r"\s+", "", name.strip().strip('"'))


def read_cdevs(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        header = f.readline()
    names = split_header(header)
    if not names or names[0] != "time":
        raise ValueError(f"{path}: header does not start with time")
    # A run killed by a timeout may leave a last line cut short: drop it.
    complete = None
    with open(path, "rb") as f:
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                f.seek(0)
                complete = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 20), b"")) - 1
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2, max_rows=complete)
    if data.size == 0:
        data = np.zeros((0, len(names)))
    if data.shape[1] != len(names):
        raise ValueError(f"{path}: {data.shape[1]} columns for {len(names)} names")
    return names[1:], data


def read_ref(refdir):
    refs = {}
    for fn in sorted(os.listdir(refdir)):
        if fn.endswith(".dat"):
            d = np.loadtxt(os.path.join(refdir, fn), ndmin=2)
            if d.size and d.shape[1] >= 2:
                refs[norm(fn[:-4])] = d[:, :2]
    return refs


def range_min_max(c, lo, hi):
    """Min and max of c[lo[i]:hi[i]] for every i with lo[i] < hi[i] (others: +inf, -inf)."""
    n = len(lo)
    mn = np.full(n, np.inf)
    mx = np.full(n, -np.inf)
    ok = hi > lo
    if ok.any():
        ext = np.append(c, 0.0)  # reduceat needs indices < len; hi may be len(c)
        idx = np.empty(2 * ok.sum(), dtype=np.int64)
        idx[0::2] = lo[ok]
        idx[1::2] = hi[ok]
        mn[ok] = np.minimum.reduceat(ext, idx)[0::2]
        mx[ok] = np.maximum.reduceat(ext, idx)[0::2]
    return mn, mx


def tube(tc, c, tr, r, w):
    """Per reference sample: the distance from r to the cdevs range over [t-w, t+w]."""
    a, b = tr - w, tr + w
    lo = np.searchsorted(tc, a, side="left")
    hi = np.searchsorted(tc, b, side="right")
    mn, mx = range_min_max(c, lo, hi)
    for v in (np.interp(a, tc, c), np.interp(b, tc, c)):
        mn, mx = np.minimum(mn, v), np.maximum(mx, v)
    k = np.searchsorted(tc, a, side="right") - 1  # step hold: the last row at or before a
    has = k >= 0
    hold = c[np.maximum(k, 0)]
    mn = np.where(has, np.minimum(mn, hold), mn)
    mx = np.where(has, np.maximum(mx, hold), mx)
    return np.maximum(0.0, np.maximum(mn - r, r - mx))


def fmt(x):
    return "nan" if not math.isfinite(x) else f"{x:.3g}"


def compare(mo, csv, refdir, rel_window, limit):
    ex = experiment(mo)
    span = ex["StopTime"] - ex["StartTime"]
    w = rel_window * abs(span)
    side = {}  # name -> (times, values) of the result under test
    if os.path.isdir(csv):  # another QSS Solver run (.dat files), e.g. against a tight one
        side = read_ref(csv)
        names = sorted(side)
        # QSS Solver writes a variable at its changes: it holds its last value to the stop.
        for n, v in side.items():
            if v.shape[0] and v[-1, 0] < ex["StopTime"]:
                side[n] = np.vstack([v, [ex["StopTime"], v[-1, 1]]])
    else:
        names, data = read_cdevs(csv)
        order = np.argsort(data[:, 0], kind="stable")  # rows come sorted; be safe
        for k, n in enumerate(names):
            side[n] = data[order][:, [0, 1 + k]]
    refs = read_ref(refdir)
    if not refs:
        return "no", "no QSS Solver output (.dat) to compare"
    if not side or min(v.shape[0] for v in side.values()) == 0:
        return "no", "empty cdevs output"
    common = [n for n in names if n in refs]
    if not common:
        return "no", ("no common output variable (cdevs: %s; QSS Solver: %s)"
                      % (",".join(names[:4]) or "-", ",".join(sorted(refs)[:4])))
    t_end_c = min(side[n][-1, 0] for n in common)
    stopped = t_end_c < ex["StopTime"] - w - 1e-12 * abs(span)
    rows = []
    for n in common:
        tc, c = side[n][:, 0], side[n][:, 1]
        ref = refs[n]
        ref = ref[ref[:, 0] <= ex["StopTime"] + w]  # CVODE may write a step past the stop
        if ref.shape[0] == 0:
            continue
        tr, r = ref[:, 0], ref[:, 1]
        fin = np.isfinite(r)
        dq = max(ex["AbsTolerance"], ex["Tolerance"] * (np.max(np.abs(r[fin])) if fin.any() else 0.0))
        inside = (tr >= tc[0] - w) & (tr <= tc[-1] + w)
        if not np.all(np.isfinite(c)) or not fin.all():
            rows.append((n, dq, math.inf, math.inf, math.nan, c[-1], r[-1]))
            continue
        final, traj, t_at, cl = math.nan, 0.0, math.nan, math.nan
        if inside.any():
            d = tube(tc, c, tr[inside], r[inside], w)
            i = int(np.argmax(d))
            traj, t_at = d[i] / dq, tr[inside][i]
            if inside[-1]:
                final, cl = d[-1] / dq, float(np.interp(tr[-1], tc, c))
        rows.append((n, dq, final, traj, t_at, cl, r[-1]))
    if not rows:
        return "no", "no QSS Solver sample before the stop time"
    for n, dq, final, traj, t_at, cl, rl in rows:
        print(f"{n}: dQ={dq:.3g} final={fmt(final)} q (cdevs {cl:.10g}, "
              f"QSS Solver {rl:.10g}) traj={fmt(traj)} q at t={fmt(t_at)}")

    def badness(row):
        f = 0.0 if math.isnan(row[2]) else row[2]
        return max(f, row[3])

    worst = max(rows, key=badness)
    ok = all((math.isnan(x[2]) or x[2] <= limit) and x[3] <= limit for x in rows) and not stopped
    n, dq, final, traj, t_at, cl, rl = worst
    detail = (f"{len(rows)} var{'s' if len(rows) > 1 else ''}; worst {n}: final {fmt(final)} q, "
              f"max {fmt(traj)} q at t={fmt(t_at)} (dQ={dq:.3g})")
    if ex["random"]:
        detail = "calls rand() (same draws as QSS Solver while both draw in the same order); " + detail
    if stopped:
        detail += f"; cdevs output ends at t={t_end_c:.6g} < stop {ex['StopTime']:.6g}"
    if not ok and not stopped and math.isfinite(final):
        detail += f"; final cdevs {cl:.6g} vs QSS Solver {rl:.6g}"
    missing = sorted(set(refs) - set(common))
    if missing:
        detail += f"; not in cdevs output: {','.join(missing[:3])}{'…' if len(missing) > 3 else ''}"
    return ("yes" if ok else "no"), detail


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("mo")
    ap.add_argument("csv")
    ap.add_argument("refdir")
    ap.add_argument("--window", type=float, default=1e-6, help="tube half-width / (stop - start)")
    ap.add_argument("--limit", type=float, default=5.0, help="quanta allowed")
    a = ap.parse_args()
    try:
        verdict, detail = compare(a.mo, a.csv, a.refdir, a.window, a.limit)
    except Exception as e:  # the verdict goes into the table, never an exit code
        verdict, detail = "no", f"comparison failed: {type(e).__name__}: {e}"
    print(f"result\t{verdict}\t{detail}".replace("|", "/"))
    return 0


if __name__ == "__main__":
    sys.exit(main())

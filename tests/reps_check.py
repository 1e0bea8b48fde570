# SPDX-License-Identifier: MIT
"""Checks the report of `cdevs run MODEL --reps K` of examples/reps against values
derived here, independently of cdevs: closed forms of each replication's trajectory
(from the parameters it drew), the expectations of those over the parameters'
distributions (by numerical quadrature), the report's own arithmetic (mean, Student-t
half-width), and the draws' distribution (Kolmogorov-Smirnov).

    reps_check.py decay|decay_normal|spring REPORT.csv|.json
"""
import csv
import json
import math
import sys

import numpy as np
from scipy import integrate, stats

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def read(path):
    """{"parameters": {name: array}, "variables": {name: (final, min, max) arrays},
    "mean"/"half_width": {(kind, name): (final, min, max)}} from the CSV or JSON report."""
    par, var, summ = {}, {}, {"mean": {}, "half_width": {}}
    if path.endswith(".json"):
        d = json.load(open(path))
        for p in d["parameters"]:
            par[p["name"]] = np.array(p["runs"], dtype=float)
            summ["mean"][("parameter", p["name"])] = (p["value"]["mean"], None, None)
            summ["half_width"][("parameter", p["name"])] = (p["value"]["half_width"], None, None)
        for v in d["variables"]:
            var[v["name"]] = tuple(np.array([r[k] for r in v["runs"]], dtype=float) for k in ("final", "min", "max"))
            for s in ("mean", "half_width"):
                summ[s][("variable", v["name"])] = tuple(v[k][s] for k in ("final", "min", "max"))
        return par, var, summ, d["replications"]
    rows = list(csv.DictReader(open(path)))
    num = lambda x: float(x) if x != "" else math.nan
    reps = []
    for r in rows:
        if r["replication"] in summ:
            summ[r["replication"]][(r["kind"], r["name"])] = (num(r["final"]), num(r["min"]), num(r["max"]))
            continue
        rep = int(r["replication"])
        if not reps or reps[-1] != rep:
            reps.append(rep)
        if r["kind"] == "parameter":
            par.setdefault(r["name"], []).append(num(r["final"]))
        else:
            var.setdefault(r["name"], []).append((num(r["final"]), num(r["min"]), num(r["max"])))
    par = {k: np.array(v) for k, v in par.items()}
    var = {k: tuple(np.array(v)[:, j] for j in range(3)) for k, v in var.items()}
    return par, var, summ, reps


def mean_hw(x):
    n = len(x)
    return x.mean(), stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n)


def report_arithmetic(kind, name, x, j, summ):
    """The report's mean and half-width of x, against numpy's and scipy's."""
    m, hw = mean_hw(x)
    check(abs(summ["mean"][(kind, name)][j] - m) <= 1e-12 * max(1.0, abs(m)),
          "%s %s: the report's mean %.15g is the mean of its runs %.15g" % (kind, name, summ["mean"][(kind, name)][j], m))
    check(abs(summ["half_width"][(kind, name)][j] - hw) <= 1e-9 * hw,
          "%s %s: the report's half-width %.15g is t(0.975, n-1)·s/sqrt(n) = %.15g" % (
              kind, name, summ["half_width"][(kind, name)][j], hw))


def against_exact(what, x, exact, sd):
    """The mean of x holds the exact expectation within its half-width, and the
    half-width is near t·sd/sqrt(n) for the exact standard deviation sd (the sample
    standard deviation of n = 100 values has a relative standard error near 5-7%)."""
    m, hw = mean_hw(x)
    n = len(x)
    want_hw = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
    check(abs(m - exact) <= hw, "%s: mean %.6f +- %.6f holds the exact %.7f" % (what, m, hw, exact))
    check(abs(hw / want_hw - 1) <= 0.3, "%s: half-width %.6f within 30%% of t·sd/sqrt(n) = %.6f (sd %.6f exact)" % (
        what, hw, want_hw, sd))


def uniform_moments(f, a, b):
    """E[f(U)] and sd[f(U)] for U ~ Uniform(a, b), by quadrature."""
    m = integrate.quad(f, a, b)[0] / (b - a)
    m2 = integrate.quad(lambda u: f(u) ** 2, a, b)[0] / (b - a)
    return m, math.sqrt(m2 - m * m)


def main():
    model, path = sys.argv[1], sys.argv[2]
    par, var, summ, reps = read(path)
    n = len(reps)
    check(reps == list(range(1, n + 1)) and n >= 50, "replications 1..%d in order" % n)
    if model == "decay":
        k = par["k"]
        x_final, x_min, x_max = var["x"]
        check(k.min() > 1 and k.max() < 2, "k in (1, 2): %.6f .. %.6f" % (k.min(), k.max()))
        check(stats.kstest(k, "uniform", args=(1, 1)).pvalue > 1e-3, "k ~ Uniform(1, 2) (Kolmogorov-Smirnov)")
        err = np.max(np.abs(x_final - np.exp(-k)) / np.exp(-k))
        check(err < 1e-5, "each replication's x(1) is exp(-k) of the k it drew (max relative error %.2g)" % err)
        check(np.all(np.abs(x_min - x_final) <= 1e-12) and np.all(x_max == 1.0),
              "x decreases: its minimum is x(1), its maximum x(0) = 1")
        # E[x(1)] = e^-1 - e^-2 in closed form; its sd by quadrature.
        exact = math.exp(-1) - math.exp(-2)
        m, sd = uniform_moments(lambda u: math.exp(-u), 1, 2)
        check(abs(m - exact) < 1e-12, "quadrature agrees with e^-1 - e^-2 = %.10f" % exact)
        against_exact("E[x(1)]", x_final, exact, sd)
        against_exact("E[k]", k, 1.5, 1 / math.sqrt(12))
        report_arithmetic("variable", "x", x_final, 0, summ)
        report_arithmetic("parameter", "k", k, 0, summ)
    elif model == "decay_normal":
        mu, sigma = 1.0, 0.2
        k1, k2 = par["k[1]"], par["k[2]"]
        for i, k in ((1, k1), (2, k2)):
            xf = var["x[%d]" % i][0]
            check(stats.kstest(k, "norm", args=(mu, sigma)).pvalue > 1e-3, "k[%d] ~ Normal(1, 0.2) (K-S)" % i)
            err = np.max(np.abs(xf - np.exp(-k)) / np.exp(-k))
            check(err < 1e-5, "x[%d](1) = exp(-k[%d]) in every replication (max relative error %.2g)" % (i, i, err))
            # The normal's moment generating function: E[e^(-k)] = e^(-mu + sigma^2/2).
            exact = math.exp(-mu + sigma ** 2 / 2)
            sd = math.sqrt(math.exp(-2 * mu + 2 * sigma ** 2) - math.exp(-2 * mu + sigma ** 2))
            against_exact("E[x[%d](1)]" % i, xf, exact, sd)
            report_arithmetic("variable", "x[%d]" % i, xf, 0, summ)
        r = np.corrcoef(k1, k2)[0, 1]
        check(abs(r) < 4 / math.sqrt(n), "k[1] and k[2] are drawn on streams of their own (correlation %.3f)" % r)
    elif model == "spring":
        w = par["w"]
        x_final, x_min, x_max = var["x"]
        err = np.max(np.abs(x_final - np.cos(2 * w)))
        check(err < 1e-4, "x(2) = cos(2w) in every replication (max error %.2g)" % err)
        lo = np.cos(np.minimum(2 * w, math.pi))
        err = np.max(np.abs(x_min - lo))
        # (QSS3 at this tolerance has an event every ~0.012: the least of the values at
        # events alone misses a trough's -1 by up to ~6e-5.)
        check(err < 1e-5, "x's minimum over the run is cos(min(2w, pi)) in every replication, -1 past the trough "
              "between events (max error %.2g)" % err)
        check(np.all(np.abs(x_max - 1) < 1e-12), "x's maximum over the run is x(0) = 1")
        m, sd = uniform_moments(lambda u: math.cos(2 * u), 1, 2)
        check(abs(m - (math.sin(4) - math.sin(2)) / 2) < 1e-12, "quadrature agrees with (sin 4 - sin 2)/2")
        against_exact("E[x(2)]", x_final, m, sd)
        m, sd = uniform_moments(lambda u: math.cos(min(2 * u, math.pi)), 1, 2)
        against_exact("E[min x]", x_min, m, sd)
        report_arithmetic("variable", "x", x_min, 1, summ)
    else:
        sys.exit("unknown model " + model)
    if failures:
        sys.exit("%d check(s) failed" % len(failures))


main()

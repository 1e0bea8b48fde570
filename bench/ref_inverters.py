#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent reference for QSS Solver's inverters model (a chain of N inverters
driven by a ramp), by scipy's Radau at a tight tolerance.

    bench/ref_inverters.py [--n 501] [--stop 200] [--tol 1e-9] [--out DIR]

The model's switches sat = (x[i-1] > 1) and satd = (x[i-1] - x[i] > 1) multiply
squares whose arguments cross 0 exactly where the switches flip, so the switched
model is the smooth ODE
    x1' = ramp(t),  xi' = 5 - xi - 100 (max(x[i-1]-1, 0)^2 - max(x[i-1]-xi-1, 0)^2),
with the ramp 1 on [5,10), -2.5 on [15,17), 0 elsewhere (integrated piece by piece).
Initial state as in the model: x[2i] = 5, x[2i+1] = 0.006247. Writes DIR/x[N].dat
(time, value) in QSS Solver's layout, for bench/compat_cmp.py, and prints the times
x[N] crosses 2.5.
"""
import argparse
import os

import numpy as np
from scipy.integrate import solve_ivp
from scipy.sparse import diags


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=501)
    ap.add_argument("--stop", type=float, default=200.0)
    ap.add_argument("--tol", type=float, default=1e-9)
    ap.add_argument("--out", default="results/ref_inverters")
    a = ap.parse_args()
    n = a.n
    x = np.zeros(n + 1)
    for i in range(1, int(n / 2) + 1):  # the model's loop runs while i <= N/2
        x[2 * i - 1], x[2 * i] = 5.0, 0.006247

    def rhs(t, x, slope):
        d = np.empty_like(x)
        d[0] = slope
        u, v = x[:-1], x[1:]
        d[1:] = 5.0 - v - 100.0 * (np.maximum(u - 1.0, 0.0) ** 2 - np.maximum(u - v - 1.0, 0.0) ** 2)
        return d

    def jac(t, x, slope):
        u, v = x[:-1], x[1:]
        s = np.maximum(u - v - 1.0, 0.0)
        own = np.concatenate([[0.0], -1.0 - 200.0 * s])
        prev = -200.0 * (np.maximum(u - 1.0, 0.0) - s)
        return diags([own, prev], [0, -1], format="csc")

    pieces = [(0, 5, 0.0), (5, 10, 1.0), (10, 15, 0.0), (15, 17, -2.5), (17, a.stop, 0.0)]
    ts, vs = [], []
    for t0, t1, slope in pieces:
        if t0 >= a.stop:
            break
        t1 = min(t1, a.stop)
        s = solve_ivp(rhs, (t0, t1), x, method="Radau", jac=jac, args=(slope,), rtol=a.tol, atol=a.tol,
                      max_step=0.05)
        if s.status != 0:
            raise SystemExit(f"Radau failed on [{t0}, {t1}]: {s.message}")
        ts.append(s.t)
        vs.append(s.y[n - 1])
        x = s.y[:, -1]
    t, v = np.concatenate(ts), np.concatenate(vs)
    os.makedirs(a.out, exist_ok=True)
    np.savetxt(os.path.join(a.out, f"x[{n}].dat"), np.c_[t, v])
    side = np.sign(v - 2.5)
    for k in np.where(np.diff(side) != 0)[0]:
        print(f"x[{n}] crosses 2.5 at t = {t[k] + (2.5 - v[k]) * (t[k + 1] - t[k]) / (v[k + 1] - v[k]):.6f}")


if __name__ == "__main__":
    main()

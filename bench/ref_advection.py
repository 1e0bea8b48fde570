#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent reference for QSS Solver's advection model (upwind advection with a
bistable reaction, N cells), by scipy's Radau at a tight tolerance.

    bench/ref_advection.py [--n 20000] [--stop 1] [--tol 1e-10] [--out DIR]

The model is, for j = 1..N, with u[0] = 1 at the inflow,
    u[j]' = N (u[j-1] - u[j]) - mu u[j] (u[j] - alpha) (u[j] - 1),
alpha = 0.5, mu = 1000, u[j](0) = 1 for j <= N/3 (integer division) and 0 otherwise.
The Jacobian is lower bidiagonal: diagonal -N - mu (3u² - 2(1 + alpha) u + alpha),
subdiagonal N; it is given to Radau as a sparse matrix, so a step costs O(N). Writes
DIR/u[N].dat (time, value) in QSS Solver's layout, sampled from the dense output on a
uniform grid fine enough for the front (--samples), for bench/compat_cmp.py, and
prints the final u[N] and the time u[N] crosses 1/2. Nothing is shared with either
simulator.
"""
import argparse
import os
import time

import numpy as np
import scipy.sparse as sp
from scipy.integrate import Radau

ALPHA, MU = 0.5, 1000.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--stop", type=float, default=1.0)
    ap.add_argument("--tol", type=float, default=1e-10)
    ap.add_argument("--samples", type=int, default=200001)
    ap.add_argument("--out", default="results/ref_advection")
    a = ap.parse_args()
    n = a.n
    u0 = np.zeros(n)
    u0[: n // 3] = 1.0
    up = np.empty(n)

    def f(_t, u):
        up[0] = 1.0
        up[1:] = u[:-1]
        return n * (up - u) - MU * u * (u - ALPHA) * (u - 1.0)

    sub = np.full(n - 1, float(n))

    def jac(_t, u):
        d = -n - MU * (3.0 * u * u - 2.0 * (1.0 + ALPHA) * u + ALPHA)
        return sp.diags([d, sub], [0, -1], format="csc")

    t0 = time.time()
    solver = Radau(f, 0.0, u0, a.stop, jac=jac, rtol=a.tol, atol=a.tol)
    ts = np.linspace(0.0, a.stop, a.samples)
    last = np.empty_like(ts)
    last[0] = u0[-1]
    k, steps = 1, 0
    while solver.status == "running":
        solver.step()
        steps += 1
        if solver.status == "failed":
            raise SystemExit(f"Radau failed at t={solver.t}")
        e = np.searchsorted(ts, solver.t, side="right")
        if e > k:  # the samples this step covers, from its dense output
            last[k:e] = solver.dense_output()(ts[k:e])[n - 1]
            k = e
    os.makedirs(a.out, exist_ok=True)
    np.savetxt(os.path.join(a.out, f"u[{n}].dat"), np.c_[ts, last], fmt="%.17g")
    k = np.argmax(last >= 0.5)
    half = ts[k - 1] + (0.5 - last[k - 1]) * (ts[k] - ts[k - 1]) / (last[k] - last[k - 1]) \
        if last[-1] >= 0.5 and k > 0 else float("nan")
    print(f"n={n} steps={steps} nfev={solver.nfev} njev={solver.njev} "
          f"u_final={solver.y[n - 1]:.12g} t_half={half:.9g} wall_s={time.time() - t0:.1f}")


if __name__ == "__main__":
    main()

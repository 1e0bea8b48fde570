#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An independent reference for QSS Solver's spikings model (N Izhikevich neurons,
uncoupled), by scipy's DOP853 at a tight tolerance with exact event location.

    bench/ref_spikings.py [--neurons 1,2] [--stop 1000] [--tol 1e-12] [--out DIR]

Each neuron i is v' = 0.04 v² + 5 v + 140 - u + I[i], u' = a (b v - u), a = 0.02,
b = 0.2, from v = -60, u = 0; when v rises through 30, v := c[i] and u := u + d[i],
with c = -65 + 15 r², d = 8 - 6 r². The model draws r[i] = rand(1) and I[i] = rand(10)
in its initial algorithm, neuron by neuron, as x·rand()/RAND_MAX from the C library's
unseeded rand(); this script draws them from the C library itself (ctypes), so it
shares no code with either simulator. Neurons are independent, so only the ones
asked for are integrated. Writes DIR/v[i].dat (time, value, both sides of every
reset) in QSS Solver's layout, for bench/compat_cmp.py, and prints the spike times.
"""
import argparse
import ctypes
import os

import numpy as np
from scipy.integrate import solve_ivp

RAND_MAX = 2147483647


def draws(n):
    libc = ctypes.CDLL("libc.so.6")
    libc.srand(1)  # what rand() gives before any srand()
    r, cur = [], []
    for _ in range(n):
        r.append(1.0 * libc.rand() / RAND_MAX)
        cur.append(10.0 * libc.rand() / RAND_MAX)
    return r, cur


def neuron(r, cur, stop, tol):
    a, b = 0.02, 0.2
    c, d = -65.0 + 15.0 * r * r, 8.0 - 6.0 * r * r

    def f(t, y):
        return [0.04 * y[0] * y[0] + 5.0 * y[0] + 140.0 - y[1] + cur, a * (b * y[0] - y[1])]

    def spike(t, y):
        return y[0] - 30.0

    spike.terminal, spike.direction = True, 1
    t, y = 0.0, [-60.0, 0.0]
    ts, vs, spikes = [], [], []
    while t < stop:
        s = solve_ivp(f, (t, stop), y, method="DOP853", rtol=tol, atol=tol, events=spike)
        if s.status not in (0, 1):
            raise SystemExit(f"DOP853 failed after t = {t}: {s.message}")
        ts.append(s.t)
        vs.append(s.y[0])
        if s.status != 1:
            break
        t = s.t_events[0][0]
        ye = s.y_events[0][0]
        spikes.append(t)
        ts.append([t, t])
        vs.append([30.0, c])
        y = [c, ye[1] + d]
    return np.concatenate(ts), np.concatenate(vs), spikes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--neurons", default="1,2", help="1-based indices, as the model's v[i]")
    ap.add_argument("--stop", type=float, default=1000.0)
    ap.add_argument("--tol", type=float, default=1e-12)
    ap.add_argument("--out", default="results/ref_spikings")
    a = ap.parse_args()
    which = [int(k) for k in a.neurons.split(",")]
    r, cur = draws(max(which))
    os.makedirs(a.out, exist_ok=True)
    for i in which:
        t, v, spikes = neuron(r[i - 1], cur[i - 1], a.stop, a.tol)
        np.savetxt(os.path.join(a.out, f"v[{i}].dat"), np.c_[t, v])
        print(f"v[{i}] spikes={len(spikes)} at " + " ".join(f"{s:.9f}" for s in spikes))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An exact reference for QSS Solver's airconds model (N thermostat-controlled air
conditioners), event by event in closed form.

    bench/ref_airconds.py [--n 20000] [--stop 3000] [--out DIR]

Each room is linear between events:
    th' = (THA/RES - POT·on - th/RES + noise/RES)/CAP,
so th relaxes exponentially to θ∞ = THA + noise - RES·POT·on with time constant
RES·CAP, and the time th reaches a level is a logarithm. The thermostat switches on
when th - tref + on - 0.5 rises through 0 (th = tref + 0.5 with on = 0) and off when
it falls through 0 (th = tref - 0.5 with on = 1); tref steps to 20.5 at t = 1000 and
back to 20 at t = 2000, and a room whose condition the step makes true switches at
that instant (Modelica's "when": the condition became true). Every second each room
draws a new noise = rand(2) - 1, rooms in index order.

The random numbers come from the C library's unseeded rand() (ctypes), drawn in the
model's order: th, CAP, RES, POT and noise per room in the initial algorithm, then one
noise per room per second. Nothing is shared with either simulator. Writes
DIR/ptotal.dat (both sides of every change) and DIR/th[1].dat (every second and every
switch of room 1) in QSS Solver's layout, for bench/compat_cmp.py, and prints the
number of switches and the final ptotal. About 15 s for N = 20000.
"""
import argparse
import ctypes
import os

import numpy as np

RAND_MAX = 2147483647.0
THA = 32.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--stop", type=float, default=3000.0)
    ap.add_argument("--out", default="results/ref_airconds")
    a = ap.parse_args()
    n = a.n
    libc = ctypes.CDLL("libc.so.6")
    libc.srand(1)  # what rand() gives before any srand()
    rnd = libc.rand

    def scaled(x):  # the model's rand(x) = x·rand()/RAND_MAX
        return x * rnd() / RAND_MAX

    th, cap, res, pot, noise = (np.empty(n) for _ in range(5))
    for i in range(n):
        th[i] = scaled(4.0) + 18.0
        cap[i] = scaled(100.0) + 550.0
        res[i] = scaled(0.4) + 1.8
        pot[i] = scaled(2.0) + 13.0
        noise[i] = scaled(2.0) - 1.0
    tref = 20.0
    on = np.where(th - tref - 0.5 > 0.0, 1.0, 0.0)  # the initial algorithm's if
    tau = res * cap
    ev_t, ev_dp = [np.zeros(1)], [np.array([np.sum(pot * on)])]
    th1_t, th1_v = [0.0], [th[0]]

    def switch(t0, mask, to):
        """Rooms in mask switch to `to` at t0 (arrays or a scalar time)."""
        on[mask] = to
        ev_t.append(np.broadcast_to(t0, mask.shape)[mask])
        ev_dp.append((pot if to else -pot)[mask])

    k, stop = 0, a.stop
    while k < stop:
        if k == 1000 or k == 2000:
            tref = 20.5 if k == 1000 else 20.0
            f = th - tref + on - 0.5
            switch(float(k), (on == 1.0) & (f < 0.0), 0.0)
            f = th - tref + on - 0.5
            switch(float(k), (on == 0.0) & (f > 0.0), 1.0)
        h = min(1.0, stop - k)
        tinf = THA + noise - res * pot * on
        level = np.where(on == 1.0, tref - 0.5, tref + 0.5)
        # th reaches the level when (level - θ∞)/(th - θ∞) = e^(-s/τ), s in (0, h]
        ratio = (level - tinf) / (th - tinf)
        with np.errstate(divide="ignore", invalid="ignore"):
            s = -tau * np.log(ratio)
        hit = (ratio > 0.0) & (ratio < 1.0) & (s <= h)
        new = tinf + (th - tinf) * np.exp(-h / tau)
        if hit.any():
            idx = np.where(hit)[0]
            sw = s[idx]
            was = on[idx].copy()
            for to in (0.0, 1.0):
                m = np.zeros(n, bool)
                m[idx[was != to]] = True
                if m.any():
                    t_sw = np.zeros(n)
                    t_sw[idx] = k + sw
                    switch(t_sw, m, to)
            # from the level, with the new mode, for the rest of the interval
            tinf2 = THA + noise[idx] - res[idx] * pot[idx] * on[idx]
            rest = h - sw
            new[idx] = tinf2 + (level[idx] - tinf2) * np.exp(-rest / tau[idx])
            lvl2 = np.where(on[idx] == 1.0, tref - 0.5, tref + 0.5)
            back = np.where(on[idx] == 1.0, new[idx] < lvl2, new[idx] > lvl2)
            if back.any():
                raise SystemExit(f"a room switched twice within second {k}: not handled")
            if hit[0]:
                th1_t.append(k + sw[0])
                th1_v.append(level[0])
        th = new
        k += 1
        th1_t.append(float(k) if k <= stop else stop)
        th1_v.append(th[0])
        if k < stop:  # the sample handlers, rooms in index order
            for i in range(n):
                noise[i] = scaled(2.0) - 1.0
    t = np.concatenate(ev_t)
    dp = np.concatenate(ev_dp)
    order = np.argsort(t[1:], kind="stable") + 1
    t = np.concatenate([t[:1], t[order]])
    p = np.cumsum(np.concatenate([dp[:1], dp[order]]))
    os.makedirs(a.out, exist_ok=True)
    # both sides of each change: the value before it at the same time
    tt = np.repeat(t, 2)[1:]
    pp = np.repeat(p, 2)[:-1]
    np.savetxt(os.path.join(a.out, "ptotal.dat"), np.c_[np.append(tt, stop), np.append(pp, p[-1])])
    np.savetxt(os.path.join(a.out, "th[1].dat"), np.c_[th1_t, th1_v])
    print(f"switches={len(t) - 1} ptotal_final={p[-1]:.6f} th1_final={th[0]:.9f}")


if __name__ == "__main__":
    main()

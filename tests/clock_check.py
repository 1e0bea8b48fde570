#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks a run of the pendulum clock (examples/hybrid/pendulum_clock.mo, written with
--format long) against the closed-form pendulum: tic k at T/4 + (k - 1) T/2 with the
exact large-amplitude period T = 4 sqrt(l/g) K(sin^2(theta0/2)) (scipy's ellipk), the
counts of seconds, minutes and hours that follow from the tics, the displays, and the
alarm at hour:minute. The parameters are read from the model file; nothing is taken
from cdevs but the CSV under test. Each tic time must be within the drift bound B(t)
derived below (examples/hybrid/README.md explains it).

Usage: clock_check.py MODEL.mo RESULTS.csv
       clock_check.py MODEL.mo SWING.csv --swing
The second form checks a short run written with --step --vars p.theta,p.tic: theta(t)
against the exact solution sin(theta/2) = -k sn(K - W t | k^2), and the escapement's
output (0 before the first tic, then alternating at each tic).
"""
import csv
import math
import re
import sys

from scipy.special import ellipj, ellipk


def model_params(path):
    text = open(path).read()

    def num(pattern):
        m = re.search(pattern, text)
        if not m:
            sys.exit(f"clock_check: '{pattern}' not found in {path}")
        return float(m.group(1))

    f = r"([-+0-9.eE]+)"
    return {
        "g": num(r"Pendulum p\([^)]*\bg = " + f),
        "l": num(r"Pendulum p\([^)]*\bl = " + f),
        "theta0": num(r"Pendulum p\([^)]*\btheta0 = " + f),
        "hour": num(r"Alarm alarm\([^)]*\bhour = " + f),
        "minute": num(r"Alarm alarm\([^)]*\bminute = " + f),
        "stop": num(r"StopTime = " + f),
        "tol": num(r"\bTolerance = " + f),
        "abstol": num(r"AbsTolerance = " + f),
    }


def period(g, l, theta0):
    return 4.0 * math.sqrt(l / g) * ellipk(math.sin(theta0 / 2.0) ** 2)


def drift_bound(p):
    """B(t): how far QSS can move the tics by time t. QSS integrates x' = f(q) with
    |q - x| <= dQ = max(tol |x|, abstol) per state, so for the pendulum
      theta' = omega + d_omega,  omega' = -(g/l) sin(theta + d_theta).
    (1) Energy E = omega^2/2 - (g/l) cos(theta) drifts at most at
        |E'| <= (g/l) (|omega| dQ_theta + |sin theta| dQ_omega),
        so the amplitude at a rate <= |E'| / ((g/l) sin theta_a); the half-period then
        errs by <= T'(theta)/2 * drift(t), and the k-th tic by the sum over the half-
        periods before it: <= T'/2 * rate * (t_1 + ... + t_k), t_j = T/4 + (j - 1) T/2.
    (2) At a fixed energy, the angle phi = atan2(-omega/W, theta) (W^2 = g/l) turns
        faster or slower by <= (theta W dQ_theta + |omega| dQ_omega / W) / r^2, r^2 =
        theta^2 + omega^2/W^2 >= 4 sin^2(theta_a/2); its slowest rate on the orbit
        turns that into time.
    (3) The escapement crosses on q: <= dQ_theta / omega at the vertical.
    The amplitude is allowed to stray by `margin` (5 %) and the bound checks that it
    did not; returns B and the sizes of the three terms at the stop time."""
    g, l, th0, tol, atol = p["g"], p["l"], p["theta0"], p["tol"], p["abstol"]
    W = math.sqrt(g / l)
    margin = 0.05 * th0
    lo, hi = th0 - margin, th0 + margin
    w_hi, w_lo = 2 * W * math.sin(hi / 2), 2 * W * math.sin(lo / 2)
    dq_th, dq_w = max(tol * hi, atol), max(tol * w_hi, atol)
    e_rate = W * W * (w_hi * dq_th + math.sin(hi) * dq_w)
    amp_rate = e_rate / (W * W * math.sin(lo))
    if amp_rate * p["stop"] > margin:
        sys.exit(f"clock_check: the amplitude may drift by {amp_rate * p['stop']:.3g} rad, beyond the bound's margin")
    h = 1e-6
    dT = max((period(g, l, x + h) - period(g, l, x - h)) / (2 * h) for x in (lo, th0, hi))
    r2 = 4 * math.sin(lo / 2) ** 2
    # phi' = W (theta sin(theta) + 2 (cos theta - cos a)) / (theta^2 + 2 (cos theta - cos a))
    # (W at the vertical, W sin(a)/a at the turning point a)
    slowest = min(W * (x * math.sin(x) + 2 * (math.cos(x) - math.cos(a))) /
                  (x * x + 2 * (math.cos(x) - math.cos(a)))
                  for a in (lo, hi) for x in (a * i / 200 for i in range(1, 201)))
    phase_rate = (hi * W * dq_th + w_hi * dq_w / W) / r2 / slowest
    cross = dq_th / w_lo
    T = period(g, l, th0)

    def energy(t):
        k = math.floor((t - T / 4) / (T / 2)) + 2  # the tics up to t, and the next one
        return dT / 2 * amp_rate * (k * T / 4 + T / 2 * k * (k - 1) / 2)

    def B(t):
        return energy(t) + phase_rate * t + cross

    s = p["stop"]
    B.amp_rate, B.w_max, B.dq_th = amp_rate, w_hi, dq_th
    return B, (energy(s), phase_rate * s, cross)


def changes(path):
    """Per variable, the (time, value) of its start and of each change."""
    last, out = {}, {}
    with open(path) as f:
        for row in csv.DictReader(f):
            name, t, v = row["variable"], float(row["time"]), float(row["value"])
            if name not in last or last[name] != v:
                out.setdefault(name, []).append((t, v))
                last[name] = v
    return out


def check(ch, p, B, T, quiet=False):
    """The failures (strings) of the run `ch` against the closed form."""
    fails = []

    def expect(ok, what):
        if not ok:
            fails.append(what)

    stop = p["stop"]
    t_tic = lambda k: T / 4 + (k - 1) * T / 2  # noqa: E731
    n_exact = int(math.floor((stop - T / 4) / (T / 2))) + 1
    expect(abs(stop - t_tic(n_exact)) > B(stop) and abs(stop - t_tic(n_exact + 1)) > B(stop),
           "the stop time is within the drift bound of a tic: the final counts would be ambiguous")
    secs = [c for c in ch.get("seconds.v", []) if c[0] > 0]
    expect(len(secs) == n_exact, f"{len(secs)} tics by t = {stop}, exactly {n_exact}")
    worst = (0.0, 0)
    for k, (t, v) in enumerate(secs, start=1):
        err = t - t_tic(k)
        if abs(err) > abs(worst[0]):
            worst = (err, k)
        if abs(err) > B(t):
            fails.append(f"tic {k} at {t!r}, exact {t_tic(k)!r}: off by {err:.3g} s > bound {B(t):.3g}")
            break
        if v != k % 60:
            fails.append(f"tic {k}: seconds = {v}, expected {k % 60}")
            break
    # Minutes and hours change exactly at the tics that complete them, and the displays
    # follow at the same instants.
    for name, every, modulo in (("minutes.v", 60, 60), ("hours.v", 3600, 24),
                                ("minDisplay.shown", 60, 60), ("hourDisplay.shown", 3600, 24)):
        got = [c for c in ch.get(name, []) if c[0] > 0]
        want_n = n_exact // every
        expect(len(got) == want_n, f"{name} changed {len(got)} times, expected {want_n}")
        for j, (t, v) in enumerate(got, start=1):
            k = j * every
            if abs(t - t_tic(k)) > B(t) or v != j % modulo:
                fails.append(f"{name} change {j}: {v} at {t!r}; expected {j % modulo} at tic {k}, t = {t_tic(k)!r}")
                break
    # The alarm: rings once, at the tic that makes the clock read hour:minute.
    n_alarm = int(3600 * p["hour"] + 60 * p["minute"])
    ring = [c for c in ch.get("alarm.ring", []) if c[0] > 0]
    at = [c for c in ch.get("alarm.at", []) if c[0] > 0]
    if n_alarm <= n_exact:
        ta = t_tic(n_alarm)
        expect(len(ring) == 1 and ring[0][1] == 1 and abs(ring[0][0] - ta) <= B(ta),
               f"alarm.ring {ring}: expected one change to 1 at {ta!r} (within {B(ta):.3g})")
        expect(len(at) == 1 and abs(at[0][1] - ta) <= B(ta),
               f"alarm.at {at}: expected {ta!r} (within {B(ta):.3g})")
        if not quiet and at:
            print(f"alarm at {int(p['hour']):02d}:{int(p['minute']):02d}: t = {at[0][1]!r}, "
                  f"exact {ta!r} (tic {n_alarm}), error {at[0][1] - ta:.3g} s, bound {B(ta):.3g} s")
    else:
        expect(not ring, "the alarm rang before its time")
    if not quiet:
        print(f"{len(secs)} tics by t = {stop} (exact {n_exact}); T = {T!r} s; worst tic error "
              f"{worst[0]:.3g} s at tic {worst[1]}, bound there {B(t_tic(max(worst[1], 1))):.3g} s")
    return fails


def check_swing(path, p, B, T):
    """theta within what the drift bound allows (the time error times the fastest swing,
    plus the amplitude's drift and a quantum), and the escapement's output."""
    W = math.sqrt(p["g"] / p["l"])
    m = math.sin(p["theta0"] / 2) ** 2
    K = ellipk(m)
    fails, worst, n = [], 0.0, 0
    for row in csv.DictReader(open(path)):
        t, th, tic = float(row["time"]), float(row["p.theta"]), float(row["p.tic"])
        sn = ellipj(K - W * t, m)[0]
        exact = -2 * math.asin(math.sqrt(m) * sn)
        tol = B.w_max * B(t) + B.amp_rate * t + B.dq_th
        worst = max(worst, abs(th - exact) / tol)
        if abs(th - exact) > tol:
            fails.append(f"theta({t}) = {th!r}, exact {exact!r}, allowed {tol:.3g}")
        k = math.floor((t - T / 4) / (T / 2)) + 1 if t >= T / 4 else 0  # tics by t
        if min(abs(t - T / 4 - j * T / 2) for j in range(k + 1)) > B(t) and tic != k % 2:
            fails.append(f"tic({t}) = {tic}, expected {k % 2} after {k} tics")
        n += 1
    print(f"swing: {n} rows, theta within {worst:.3g} of its allowed error")
    if n < 5:
        fails.append(f"only {n} rows in {path}")
    return fails


def main():
    if len(sys.argv) not in (3, 4) or (len(sys.argv) == 4 and sys.argv[3] != "--swing"):
        sys.exit(__doc__)
    p = model_params(sys.argv[1])
    T = period(p["g"], p["l"], p["theta0"])
    B, terms = drift_bound(p)
    if len(sys.argv) == 4:
        fails = check_swing(sys.argv[2], p, B, T)
        for f in fails:
            print("FAIL:", f)
        sys.exit(1 if fails else 0)
    print(f"g = {p['g']}, l = {p['l']}, theta0 = {p['theta0']}: T = {T!r} s "
          f"(small-angle {2 * math.pi * math.sqrt(p['l'] / p['g'])!r}); drift bound at "
          f"t = {p['stop']}: {sum(terms):.3g} s (energy {terms[0]:.3g}, phase {terms[1]:.3g}, "
          f"crossing {terms[2]:.3g})")
    ch = changes(sys.argv[2])
    fails = check(ch, p, B, T)
    # The check can fail: the same run judged against the small-angle period, or with
    # one tic fewer, is refused.
    small = 2 * math.pi * math.sqrt(p["l"] / p["g"])
    if not check(ch, p, B, small, quiet=True):
        fails.append("self-test: the small-angle period was not told apart")
    dropped = dict(ch)
    dropped["seconds.v"] = ch["seconds.v"][:-1] if ch.get("seconds.v") else []
    if not check(dropped, p, B, T, quiet=True):
        fails.append("self-test: a missing tic was not noticed")
    for f in fails:
        print("FAIL:", f)
    sys.exit(1 if fails else 0)


main()

#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the e-puck co-simulation (examples/epuck): the robot's trajectory from
robot.csv and the controller's decisions from controller.csv, against the box's walls
and the controller's rule. Usage: epuck_check.py ROBOT.csv CONTROLLER.csv"""
import csv
import math
import sys

L, H, R, DELTA = 100.0, 60.0, 3.5, 4.0  # the box, the robot's radius, the clear-space threshold (cm)
robot = list(csv.DictReader(open(sys.argv[1])))
ctl = list(csv.DictReader(open(sys.argv[2])))
fails = []
xs = [float(r["x"]) for r in robot]
ys = [float(r["y"]) for r in robot]
# Never touches a wall: the rim stays inside the box at every row (the rows are the
# robot's events; between them it moves straight or turns in place, so the distance
# to a wall is monotone between rows).
clear = min(min(x - R, L - R - x, y - R, H - R - y) for x, y in zip(xs, ys))
dist = sum(math.hypot(xs[i + 1] - xs[i], ys[i + 1] - ys[i]) for i in range(len(xs) - 1))
motor = [float(r["ctl.motor"]) for r in ctl]
front = [float(r["front"]) for r in ctl]
turns = ends = 0
for i in range(1, len(ctl)):
    if motor[i] in (3.0, 4.0) and motor[i - 1] != motor[i]:
        turns += 1
    if motor[i] == 1.0 and motor[i - 1] in (3.0, 4.0):  # a turn ends: the front must be clear
        ends += 1
        if not front[i] > DELTA:
            fails.append(f"a turn ended at t={ctl[i]['time']} with the front at {front[i]} cm")
print(f"epuck: closest approach to a wall {clear:.3f} cm, distance travelled {dist:.1f} cm, "
      f"{turns} turns, {ends} ended with the front clear, {len(robot)} robot rows")
if clear <= 0:
    fails.append(f"the robot touched a wall (clearance {clear} cm)")
if dist < 100:
    fails.append(f"the robot travelled only {dist} cm")
if turns < 2 or ends < 2:
    fails.append(f"only {turns} turns and {ends} turn ends")
if fails:
    sys.exit("epuck: " + "; ".join(fails))

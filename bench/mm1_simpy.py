# SPDX-License-Identifier: MIT
"""bench/proc.sh's peer: the same M/M/1 (lambda = 0.8, mu = 1) in SimPy, N customers."""
import random
import sys
import time

import simpy


def main():
    n = int(sys.argv[1])
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    rng = random.Random(12345)
    done = [0]

    def customer(env):
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(1.0))
        done[0] += 1

    def source(env):
        for _ in range(n):
            env.process(customer(env))
            yield env.timeout(rng.expovariate(0.8))

    env.process(source(env))
    t0 = time.perf_counter()
    env.run()
    dt = time.perf_counter() - t0
    assert done[0] == n
    print("bench name=proc model=mm1_simpy n=%d sim_s=%.6f ns_per_entity=%.1f per_s=%.4g" % (n, dt, dt / n * 1e9, n / dt))


main()

# SPDX-License-Identifier: MIT
# Real time and UDP from the command line: UDPLib's loopback example (the seed's Fig. 3)
# at 20 times real time, its toggles against k pi / 10 and the values it receives
# against (t, 2t, 3t) exactly; the record of that run replayed into the same results
# byte for byte (also after SIGINT); garbage datagrams from another process dropped and
# counted by reason while the model runs; bad flags, a port in use and bad logs refused
# with a message. Nothing here depends on how late the machine runs: lateness is
# reported, never asserted, and the values checked do not depend on arrival times.
set(D ${WORK}/rt_cli)
file(REMOVE_RECURSE ${D})
file(MAKE_DIRECTORY ${D})
set(LOOP ${SRC}/examples/rt/loopback.mo)
set(PY /usr/bin/python3)
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

function(run_ok)
  execute_process(COMMAND ${CDEVS} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${D} TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cdevs ${ARGN}: exit ${rc}\n${err}")
  endif()
  set(ERR "${err}" PARENT_SCOPE)
endfunction()

function(same a b what)
  file(SHA256 ${a} ha)
  file(SHA256 ${b} hb)
  if(NOT ha STREQUAL hb)
    message(FATAL_ERROR "${what}: ${a} and ${b} differ")
  endif()
endfunction()

# The checker: toggles of c at k pi / 10 (k = 0, 1, ... up to the end), and each
# datagram received (a step of rx.count) carrying exactly the v1 = t sent at its toggle,
# with rx.y2 == 2 t and rx.y3 == 3 t as doubles, arriving after it was sent.
file(WRITE ${D}/check.py [=[
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
t_end = float(sys.argv[2])
f = lambda r, k: float(r[k])
toggles, sent, got = [], [], []
prev = None
for r in rows:
    if prev is None:
        if f(r, 'c') == 1:            # the when fires at t = 0, sin(10 t) leaving 0 upwards
            toggles.append(f(r, 'time'))
            sent.append(f(r, 'v1'))
    else:
        if f(r, 'c') != f(prev, 'c'):
            toggles.append(f(r, 'time'))
            sent.append(f(r, 'v1'))
        if f(r, 'rx.count') != f(prev, 'rx.count'):
            assert f(r, 'rx.count') == f(prev, 'rx.count') + 1, r
            got.append((f(r, 'time'), f(r, 'rx.y1'), f(r, 'rx.y2'), f(r, 'rx.y3')))
    prev = r
want = [k * math.pi / 10 for k in range(100) if k * math.pi / 10 <= t_end]
assert len(toggles) == len(want), (toggles, want)
worst = max(abs(a - b) for a, b in zip(toggles, want))
assert worst < 1e-6, ('toggle times', toggles, want)
assert sent == toggles, ('v1 is the time of its toggle', sent, toggles)
# An interrupted run (a third argument) may end between a send and its arrival.
if len(sys.argv) > 3 and len(got) == len(sent) - 1 and sent[-1] > t_end - 0.05:
    sent = sent[:-1]
assert len(got) == len(sent), ('one datagram per toggle', got, sent)
for (ta, y1, y2, y3), t in zip(got, sent):
    assert y1 == t and y2 == 2 * t and y3 == 3 * t, ('values', ta, y1, y2, y3, t)
    assert t <= ta < t + 1.0, ('arrival after the send', ta, t)
print('loopback: %d toggles, worst |t - k pi/10| = %.2e, %d datagrams with (t, 2t, 3t) exactly, latest arrival '
      '%.4f s (simulated) after its send' % (len(toggles), worst, len(got), max(a - t for (a, _, _, _), t in zip(got, sent))))
]=])

# 1. The loopback at 20 times real time, recorded.
run_ok(run ${LOOP} --realtime=20 --out ${D}/live.csv --record ${D}/live.log --quiet)
if(NOT ERR MATCHES "summary: realtime speed=20 overrun=catchup events=[0-9]+ late_p50_us=[0-9.]+ late_p99_us=[0-9.]+ late_max_us=[0-9.]+ [^\n]* inputs=7 udp_received=7 udp_sent=7 udp_dropped=0\n")
  message(FATAL_ERROR "loopback summary:\n${ERR}")
endif()
string(REGEX MATCH "summary: realtime[^\n]*" line "${ERR}")
message(STATUS "${line}")
execute_process(COMMAND ${PY} ${D}/check.py ${D}/live.csv 2 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE perr)
if(NOT rc EQUAL 0)
  file(READ ${D}/live.csv csv)
  message(FATAL_ERROR "loopback check: ${out}${perr}\n${csv}")
endif()
message(STATUS "${out}")

# 2. Its replay, as fast as possible, without the network: the same results byte for
# byte; the sends it does not make are said.
run_ok(run ${LOOP} --replay ${D}/live.log --out ${D}/replay.csv --quiet)
same(${D}/live.csv ${D}/replay.csv "replay")
if(NOT ERR MATCHES "summary: replay of [^\n]* inputs=7 udp_received=0 udp_sent=0 udp_dropped=0 sends_not_made=7\n")
  message(FATAL_ERROR "replay summary:\n${ERR}")
endif()
# Paced (real time again) and re-recorded: the same results, and a log with the same inputs.
run_ok(run ${LOOP} --replay ${D}/live.log --realtime=40 --record ${D}/again.log --out ${D}/paced.csv --quiet)
same(${D}/live.csv ${D}/paced.csv "paced replay")
file(STRINGS ${D}/live.log in1 REGEX "^in ")
file(STRINGS ${D}/again.log in2 REGEX "^in ")
string(REGEX REPLACE "in [0-9.]+ " "in " in1 "${in1}") # the wall times differ
string(REGEX REPLACE "in [0-9.]+ " "in " in2 "${in2}")
if(NOT in1 STREQUAL in2)
  message(FATAL_ERROR "re-recorded inputs differ:\n${in1}\n${in2}")
endif()
# Another model text (a comment more) is not the recorded run.
file(READ ${LOOP} text)
file(WRITE ${D}/edited.mo "// edited\n${text}")
expect_fail(1 "was recorded from another run" run ${D}/edited.mo --replay ${D}/live.log --no-out)

# 3. SIGINT in the middle of a real-time run: exit 130, results whole to where it
# stopped, and the log ends there, so that its replay gives the same file.
find_program(TIMEOUT timeout)
if(TIMEOUT)
  execute_process(COMMAND ${TIMEOUT} --preserve-status -s INT 0.6 ${CDEVS} run ${LOOP} --realtime=1 --out ${D}/int.csv
                          --record ${D}/int.log --quiet
                  RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
  if(NOT rc EQUAL 130 OR NOT err MATCHES "interrupted at t=([0-9.e+-]+) \\(SIGINT\\)")
    message(FATAL_ERROR "SIGINT during --realtime: exit ${rc}\n${err}")
  endif()
  set(t_int ${CMAKE_MATCH_1})
  file(STRINGS ${D}/int.log last REGEX "^end ")
  if(NOT last MATCHES "^end ${t_int} [0-9]+$")
    message(FATAL_ERROR "the interrupted log ends with '${last}', not at t=${t_int}")
  endif()
  run_ok(run ${LOOP} --replay ${D}/int.log --out ${D}/int_replay.csv --quiet)
  same(${D}/int.csv ${D}/int_replay.csv "replay of an interrupted run")
  execute_process(COMMAND ${PY} ${D}/check.py ${D}/int.csv ${t_int} interrupted RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE perr)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "interrupted loopback check: ${out}${perr}")
  endif()
  message(STATUS "interrupted at t=${t_int}: ${out}")
endif()

# 4. Garbage from another process while the model runs: each datagram dropped under its
# reason, and the model's own seven received as before. The sender waits until the
# model holds its port (its own bind fails), then sends at once: the run lasts a second
# of wall time after that.
file(WRITE ${D}/garbage.py [=[
import socket, struct, sys, time
port = int(sys.argv[1])
probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
deadline = time.time() + 30
while time.time() < deadline:
    try:
        probe.bind(('127.0.0.1', port)); probe.close()
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); time.sleep(0.005)
    except OSError:
        break
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
def dgram(seq, vals, magic=b'CDVS', ver=1, flags=0, count=None):
    n = len(vals) if count is None else count
    return magic + bytes([ver, flags]) + struct.pack('<HQd', n, seq, 0.5) + struct.pack('<%dd' % len(vals), *vals)
out = [b'xy', dgram(1, [1, 2, 3], magic=b'JUNK'), dgram(1, [1, 2, 3], ver=2), dgram(1, [1, 2]), b'\0' * 9000,
       dgram(1, [1, float('nan'), 3]), dgram(1, [1, 2, 3])[:-1]]
for d in out:
    s.sendto(d, ('127.0.0.1', port))
print(len(out))
]=])
execute_process(COMMAND ${PY} ${D}/garbage.py 50917
                COMMAND ${CDEVS} run ${LOOP} --realtime=2 --no-out --quiet
                RESULTS_VARIABLE rcs ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
if(NOT rcs STREQUAL "0;0"
   OR NOT err MATCHES "inputs=7 udp_received=7 udp_sent=7 udp_dropped=7 \\(truncated=2 malformed=1 version=1 count=1 oversized=1 nonfinite=1\\)")
  message(FATAL_ERROR "garbage while running: exit ${rcs}\n${err}")
endif()

# 5. Bad input: clear errors, the right exit status.
expect_fail(2 "--realtime needs a speed > 0" run ${LOOP} --realtime=0)
expect_fail(2 "--realtime needs a speed > 0" run ${LOOP} --realtime=-3)
expect_fail(2 "--realtime needs a speed > 0" run ${LOOP} --realtime=fast)
expect_fail(2 "its speed goes after '='" run ${LOOP} --realtime 20)
expect_fail(2 "--overrun is for real-time runs" run ${LOOP} --overrun skip)
expect_fail(2 "--late-threshold is for real-time runs" run ${LOOP} --late-threshold 0.01)
expect_fail(2 "--overrun needs catchup|skip|abort" run ${LOOP} --realtime --overrun later)
expect_fail(2 "--late-threshold needs a time >= 0" run ${LOOP} --realtime --late-threshold soon)
expect_fail(2 "--record and --replay name the same file" run ${LOOP} --record ${D}/x.log --replay ${D}/x.log)
file(WRITE ${D}/mm1udp.mo "model mm1udp\n  cdevs.Create arrive(interarrival = Exponential(1));\n  cdevs.Dispose leave;\n  cdevs.UDPReceive rx(port = 50933);\nequation\n  connect(arrive.out, leave.in);\n  annotation(experiment(StopTime = 10));\nend mm1udp;\n")
expect_fail(2 "a model with UDP ports runs one simulation; --reps runs replications" run ${D}/mm1udp.mo --reps 3)
expect_fail(2 "--realtime runs one simulation" run ${SRC}/examples/proc/mm1.mo --reps 3 --realtime=1000)
expect_fail(1 "cannot read --replay" run ${LOOP} --replay ${D}/missing.log --no-out)
file(WRITE ${D}/bad.log "cdevs-record 1\nin 0 0.5 0 run.model.rx udp array 3 1 2\n")
expect_fail(1 "bad.log:2: a value" run ${LOOP} --replay ${D}/bad.log --no-out)
expect_fail(1 "cannot write --record" run ${LOOP} --record ${D}/no/such/dir.log --no-out)
file(WRITE ${D}/dup.mo "model dup\n  cdevs.UDPReceive a(port = 50931);\n  cdevs.UDPReceive b(port = 50931);\n  annotation(experiment(StopTime = 1));\nend dup;\n")
expect_fail(1 "dup.mo:3:20: b: cannot bind UDP port 50931 on 127.0.0.1: Address already in use" run ${D}/dup.mo --no-out)
if(EXISTS ${D}/results/dup.csv)
  message(FATAL_ERROR "a run that could not start left results/dup.csv")
endif()
file(WRITE ${D}/badp.mo "model badp\n  cdevs.UDPSend a(host = \"\", port = 5000);\n  cdevs.UDPReceive b(port = 70000, n = 2);\n  annotation(experiment(StopTime = 1));\nend badp;\n")
expect_fail(1 "badp.mo:2:17: error: a: host is empty" check ${D}/badp.mo)
expect_fail(1 "badp.mo:3:20: error: b: port = 70000 is not 1 to 65535" check ${D}/badp.mo)

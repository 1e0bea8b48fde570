# SPDX-License-Identifier: MIT
# The e-puck case study (Urquia et al.): the robot (equations, infrared sensors) and its
# controller (a DEVS graph) in two processes that talk UDP over loopback in real time at
# ten times the wall clock. The robot never touches a wall, keeps moving, and each turn
# ends only when the front sensors see clear space (tests/epuck_check.py).
set(EX ${SRC}/examples/epuck)
set(D ${WORK}/epuck)
file(REMOVE_RECURSE ${D})
file(MAKE_DIRECTORY ${D})
# Both at once (execute_process runs its commands side by side, as a pipeline).
execute_process(COMMAND ${CDEVS} run ${EX}/robot.mo --realtime=10 --quiet --out ${D}/robot.csv
                COMMAND ${CDEVS} run ${EX}/controller.mo --realtime=10 --quiet --out ${D}/controller.csv
                RESULTS_VARIABLE rcs ERROR_VARIABLE err TIMEOUT 60)
if(NOT rcs STREQUAL "0;0")
  message(FATAL_ERROR "the e-puck co-simulation: exit ${rcs}\n${err}")
endif()
if(NOT err MATCHES "udp_received=[1-9][0-9]* udp_sent=[1-9]")
  message(FATAL_ERROR "no datagrams went both ways:\n${err}")
endif()
execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/epuck_check.py ${D}/robot.csv ${D}/controller.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err2)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${out}${err2}")
endif()

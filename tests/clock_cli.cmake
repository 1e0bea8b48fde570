# SPDX-License-Identifier: MIT
# The pendulum clock (SNE 18/2 Fig. 5b, DEVSLib's hybrid example): the model file
# checks clean, runs to 01:01:30 of clock time, and tests/clock_check.py compares the
# tics, the seconds, minutes and hours, the displays and the alarm with the exact
# large-amplitude pendulum (scipy's elliptic integral), within a drift bound derived
# from the QSS quantum (examples/hybrid/README.md).
set(MODEL ${SRC}/examples/hybrid/pendulum_clock.mo)

execute_process(COMMAND ${CDEVS} check ${MODEL} RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cdevs check pendulum_clock.mo: exit ${rc}\n${out}${err}")
endif()

# Only the discrete variables, as records at their changes: a few thousand lines.
execute_process(COMMAND ${CDEVS} run ${MODEL} --format long --quiet --out ${WORK}/clock.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cdevs run pendulum_clock.mo: exit ${rc}\n${err}")
endif()
message(STATUS "${err}")
execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/clock_check.py ${MODEL} ${WORK}/clock.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clock_check: ${out}${err}")
endif()

# The swing itself, sampled every 1/8 s for two periods: theta against the exact
# solution (Jacobi's sn), and the escapement's output, 0 until the first tic at T/4.
execute_process(COMMAND ${CDEVS} run ${MODEL} --stop 4 --step 0.125 --vars p.theta,p.tic --quiet
                        --out ${WORK}/clock_swing.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err WORKING_DIRECTORY ${WORK})
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cdevs run pendulum_clock.mo --stop 4: exit ${rc}\n${err}")
endif()
execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/clock_check.py ${MODEL} ${WORK}/clock_swing.csv --swing
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clock_check --swing: ${out}${err}")
endif()

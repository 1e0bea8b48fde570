# SPDX-License-Identifier: MIT
# Replications beyond process models, and beyond one machine (issue 19, item 5):
# equation models whose parameters are drawn from distributions (examples/reps), each
# replication checked against its closed form and the means against the expectations
# by tests/reps_check.py; a single run draws replication 1's values and says so; the
# same report byte for byte for --jobs 1, --jobs 3 and `mpirun -np 2`, for a process
# model (M/M/1) and an equation model; bad distributions and drawn values used where a
# fixed one is needed are located errors; a bad model under mpirun fails the whole
# run with its located error. A command built without MPI fails this test.
set(EX ${SRC}/examples/reps)
set(D ${WORK}/reps_cli)
file(REMOVE_RECURSE ${D})
file(MAKE_DIRECTORY ${D})
set(PY /usr/bin/python3)
include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

# cdevs ARGN in D, exit 0: its stderr in ERR.
function(run_ok)
  execute_process(COMMAND ${CDEVS} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${D})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cdevs ${ARGN}: exit ${rc}\n${err}")
  endif()
  set(ERR "${err}" PARENT_SCOPE)
endfunction()

function(check_report model report)
  execute_process(COMMAND ${PY} ${SRC}/tests/reps_check.py ${model} ${report} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "reps_check.py ${model}:\n${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "reps_check.py ${model} ${report}: ${out}${err}")
  endif()
endfunction()

# ---- Closed forms ------------------------------------------------------------------
run_ok(run ${EX}/decay.mo --reps 100 --jobs 2 --quiet --report ${D}/decay.csv)
check_report(decay ${D}/decay.csv)
run_ok(run ${EX}/decay_normal.mo --reps 100 --quiet --report ${D}/decay_normal.csv)
check_report(decay_normal ${D}/decay_normal.csv)
run_ok(run ${EX}/spring.mo --reps 100 --jobs 2 --quiet --report ${D}/spring.json)
check_report(spring ${D}/spring.json)

# The text report: the parameter with its law, the three tables.
run_ok(run ${EX}/decay.mo --reps 5 --no-out)
foreach(needle "Statistics over 5 replications to t = 1, seed 0" "k ~ Uniform\\(1, 2\\)" "Values at the stop time"
        "Minimum over each run" "Maximum over each run" "summary: model=[^ ]*decay.mo replications=5 jobs=1")
  if(NOT ERR MATCHES "${needle}")
    message(FATAL_ERROR "the report of 5 replications lacks '${needle}':\n${ERR}")
  endif()
endforeach()

# A single run draws replication 1's values (substream 0) and says so; its x(1) is
# exp(-k) of that k, the value replication 1 of the set above drew.
run_ok(run ${EX}/decay.mo --out ${D}/one.csv)
string(REGEX MATCH "parameters drawn on substream 0 of seed 0 \\(replication 1 of --reps\\): k = ([0-9.]+) ~ Uniform\\(1, 2\\)"
       said "${ERR}")
set(k1 "${CMAKE_MATCH_1}")
if(NOT said OR NOT ERR MATCHES "summary: [^\n]* drawn_parameters=1 seed=0 substream=0")
  message(FATAL_ERROR "a single run of decay.mo does not say what it drew:\n${ERR}")
endif()
execute_process(COMMAND ${PY} -c "
import csv, math, sys
k = float(sys.argv[1])
rep1 = [r for r in csv.DictReader(open(sys.argv[2])) if r['replication'] == '1' and r['kind'] == 'parameter']
x1 = float(list(csv.reader(open(sys.argv[3])))[-1][1])
assert abs(float(rep1[0]['final']) - k) <= 1e-9 * k, (rep1, k)
assert abs(x1 - math.exp(-k)) <= 1e-5 * x1, (x1, math.exp(-k))
" ${k1} ${D}/decay.csv ${D}/one.csv RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the single run's k (${k1}) is not replication 1's, or its x(1) not exp(-k): ${err}")
endif()
run_ok(check ${EX}/decay_normal.mo)

# ---- Determinism: the same report for any number of workers; another seed, another --
run_ok(run ${EX}/decay.mo --reps 20 --jobs 1 --report ${D}/j1.csv)
string(REGEX REPLACE "summary:[^\n]*\n" "" text1 "${ERR}")
run_ok(run ${EX}/decay.mo --reps 20 --jobs 3 --report ${D}/j3.csv)
string(REGEX REPLACE "summary:[^\n]*\n" "" text3 "${ERR}")
string(REPLACE "j3.csv" "j1.csv" text3 "${text3}")
file(READ ${D}/j1.csv csv1)
file(READ ${D}/j3.csv csv3)
if(NOT csv1 STREQUAL csv3 OR NOT text1 STREQUAL text3)
  message(FATAL_ERROR "decay.mo: --jobs 1 and --jobs 3 differ:\n${text1}\n---\n${text3}")
endif()
run_ok(run ${EX}/decay.mo --reps 20 --seed 7 --report ${D}/s7.json)
run_ok(run ${EX}/decay.mo --reps 20 --seed 7 --jobs 2 --report ${D}/s7j2.json)
file(READ ${D}/s7.json js7)
file(READ ${D}/s7j2.json js7j2)
if(NOT js7 STREQUAL js7j2 OR NOT js7 MATCHES "\"seed\": 7" OR js7 MATCHES "\"mean\": 1.4809050883371981")
  message(FATAL_ERROR "--seed 7: the JSON reports of --jobs 1 and 2 differ, or are seed 0's")
endif()

# ---- Bad input ---------------------------------------------------------------------
file(WRITE ${D}/bad_dist.mo "model M\n  parameter Real k = Uniform(2, 1);\n  Real x(start = 1);\nequation\n  der(x) = -k * x;\nend M;\n")
expect_fail(1 "bad_dist.mo:2:22: error: Uniform of parameter 'k': Uniform needs min < max" check ${D}/bad_dist.mo)
file(WRITE ${D}/bad_norm.mo "model M\n  parameter Real k[2] = {1, Normal(0, -1)};\n  Real x(start = 1);\nequation\n  der(x) = -k[1] * x;\nend M;\n")
expect_fail(1 "bad_norm.mo:2:29: error: Normal of parameter 'k[2]': Normal needs" check ${D}/bad_norm.mo)
file(WRITE ${D}/bad_size.mo "model M\n  parameter Integer n = Poisson(3);\n  Real x[n](each start = 1);\nequation\n  der(x) = -x;\nend M;\n")
expect_fail(1 "bad_size.mo:3:10: error: 'n' is drawn from a distribution (line 2), so it changes from one replication to the next: it cannot be used in an array's size"
            check ${D}/bad_size.mo)
file(WRITE ${D}/bad_loop.mo "model M\n  parameter Real k = Uniform(2, 3);\n  parameter Integer m = integer(k);\n  Real x[3](each start = 1);\nequation\n  for i in 1:m loop\n    der(x[i]) = -x[i];\n  end for;\n  der(x[3]) = 0;\nend M;\n")
expect_fail(1 "bad_loop.mo:6:14: error: 'm' is drawn from a distribution (line 3)" check ${D}/bad_loop.mo)
file(WRITE ${D}/bad_start.mo "model M\n  Real x(start = Uniform(0, 1));\nequation\n  der(x) = -x;\nend M;\n")
expect_fail(1 "bad_start.mo:2:18: error: Uniform() draws a parameter's value" check ${D}/bad_start.mo)
file(WRITE ${D}/bad_const.mo "model M\n  parameter Real k = Uniform(1, 2);\n  constant Real c = 2 * k;\n  Real x(start = 1);\nequation\n  der(x) = -c * x;\nend M;\n")
expect_fail(1 "bad_const.mo:3:25: error: 'k' is drawn from a distribution (line 2), so it changes from one replication to the next: it cannot be used in a constant's value"
            check ${D}/bad_const.mo)
expect_fail(2 "--warmup is for models with process blocks" run ${EX}/decay.mo --reps 3 --warmup 1)
expect_fail(2 "--out writes one run's variables; with --reps, --report has every replication's" run ${EX}/decay.mo
            --reps 3 --out ${D}/x.csv)
expect_fail(2 "--seed is for models with process blocks (cdevs.Create, cdevs.Process, ...) or parameters drawn from distributions"
            run ${SRC}/examples/bball/bball.mo --seed 3)

# ---- MPI: the replications split across ranks, merged at rank 0 --------------------
execute_process(COMMAND ${CDEVS} run --help OUTPUT_VARIABLE help)
if(NOT help MATCHES "MPI: built in")
  message(FATAL_ERROR "reps_cli: this cdevs was built without MPI, so `mpirun -np N cdevs run M.mo --reps K` cannot "
                      "be tested: install Debian openmpi-bin and libopenmpi-dev (tools/deps.sh does) and configure again")
endif()
find_program(MPIRUN mpirun)
if(NOT MPIRUN)
  message(FATAL_ERROR "reps_cli: no mpirun: install Debian openmpi-bin (tools/deps.sh does)")
endif()
# Containers run the tests as root, which mpirun refuses unless told; a machine of one
# core has one slot.
set(ENV{OMPI_ALLOW_RUN_AS_ROOT} 1)
set(ENV{OMPI_ALLOW_RUN_AS_ROOT_CONFIRM} 1)
# The sanitizer build: OpenMPI's components, unloaded by MPI_Finalize, leave
# allocations LeakSanitizer reports with no frame left to suppress them by. Leaks are
# not checked under mpirun (the same code runs above without it, checked); the rest
# of AddressSanitizer's checks are.
set(ENV{LSAN_OPTIONS} "detect_leaks=0")
set(MPI ${MPIRUN} -np 2 --oversubscribe ${CDEVS})

function(mpi_ok)
  execute_process(COMMAND ${MPI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${D})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mpirun -np 2 cdevs ${ARGN}: exit ${rc}\n${out}${err}")
  endif()
  set(ERR "${err}" PARENT_SCOPE)
endfunction()

# The issue's determinism check: M/M/1's report from 2 ranks, 1 and 2 workers.
set(mm1 ${SRC}/examples/proc/mm1.mo --reps 6 --seed 5)
mpi_ok(run ${mm1} --report ${D}/A.csv)
string(REGEX REPLACE "summary:[^\n]*\n" "" textA "${ERR}")
if(NOT ERR MATCHES "summary: model=[^ ]*mm1.mo replications=6 jobs=1 ranks=2 ")
  message(FATAL_ERROR "mpirun -np 2: the summary does not say 2 ranks:\n${ERR}")
endif()
run_ok(run ${mm1} --jobs 1 --report ${D}/B.csv)
string(REGEX REPLACE "summary:[^\n]*\n" "" textB "${ERR}")
string(REPLACE "B.csv" "A.csv" textB "${textB}")
run_ok(run ${mm1} --jobs 2 --report ${D}/C.csv)
mpi_ok(run ${mm1} --jobs 2 --report ${D}/D.csv) # 2 ranks of 2 workers
foreach(f B C D)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${D}/A.csv ${D}/${f}.csv RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "mm1.mo --reps 6 --seed 5: the report of mpirun -np 2 (A.csv) and ${f}.csv differ")
  endif()
endforeach()
if(NOT textA STREQUAL textB)
  message(FATAL_ERROR "mpirun -np 2 and --jobs 1 print different reports:\n${textA}\n---\n${textB}")
endif()
# An equation model's, on 2 ranks (7 replications: 4 and 3) and on 2 ranks of 2 workers.
mpi_ok(run ${EX}/decay.mo --reps 7 --report ${D}/m1.csv)
mpi_ok(run ${EX}/decay.mo --reps 7 --jobs 2 --report ${D}/m2.csv)
run_ok(run ${EX}/decay.mo --reps 7 --report ${D}/m0.csv)
file(READ ${D}/m0.csv m0)
file(READ ${D}/m1.csv m1)
file(READ ${D}/m2.csv m2)
if(NOT m0 STREQUAL m1 OR NOT m0 STREQUAL m2)
  message(FATAL_ERROR "decay.mo --reps 7: mpirun -np 2 and one process write different reports")
endif()
# Rank 0 alone writes: the default report, nothing else.
file(MAKE_DIRECTORY ${D}/mpi_default)
execute_process(COMMAND ${MPI} run ${EX}/decay.mo --reps 4 --quiet RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${D}/mpi_default)
file(GLOB_RECURSE written RELATIVE ${D}/mpi_default ${D}/mpi_default/*)
if(NOT rc EQUAL 0 OR NOT written STREQUAL "results/decay.report.csv")
  message(FATAL_ERROR "mpirun -np 2 cdevs run decay.mo --reps 4: exit ${rc}, wrote '${written}'\n${err}")
endif()

# A bad model: every rank fails; the located error said once; mpirun exits non-zero.
execute_process(COMMAND ${MPI} run ${D}/bad_dist.mo --reps 4 RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
string(REGEX MATCHALL "bad_dist.mo:2:22: error: Uniform of parameter 'k'" said "${err}")
list(LENGTH said nsaid)
if(rc EQUAL 0 OR NOT nsaid EQUAL 1)
  message(FATAL_ERROR "mpirun -np 2 cdevs run bad_dist.mo: exit ${rc}, the located error said ${nsaid} times\n${out}${err}")
endif()
# A replication that fails on one rank (its draw makes a start value undefined) fails
# the run, with the replications that ran reported.
file(WRITE ${D}/some.mo "model M\n  parameter Real k = Normal(0, 1);\n  Real x(start = sqrt(k + 1.5));\nequation\n  der(x) = -x;\nend M;\n")
execute_process(COMMAND ${MPI} run ${D}/some.mo --reps 40 --report ${D}/some.csv RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err WORKING_DIRECTORY ${D} TIMEOUT 60)
if(rc EQUAL 0 OR NOT err MATCHES "some.mo:3:18: error: sqrt\\(-[0-9.]+\\) is outside the function's domain"
   OR NOT err MATCHES "the model does not compile with its parameters drawn")
  message(FATAL_ERROR "mpirun -np 2 cdevs run some.mo --reps 40: exit ${rc}\n${out}${err}")
endif()

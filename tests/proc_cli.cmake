# SPDX-License-Identifier: MIT
# Process models from model files (issue 19): M/M/1, M/M/3 and a Jackson network run
# as replications and checked against queueing theory by tests/proc_check.py; the same
# report byte for byte for --jobs 1 and 2; bad flags and bad models refused with a
# message; a deadlock is an error; an interrupted set of replications keeps those that
# ran.
set(EX ${SRC}/examples/proc)

function(run_ok)
  execute_process(COMMAND ${CDEVS} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cdevs ${ARGN}: exit ${rc}\n${err}")
  endif()
  set(ERR "${err}" PARENT_SCOPE)
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/expect.cmake)

# A model run, its report checked by tests/proc_check.py (STOP: the model's StopTime).
function(check_model name mo)
  file(STRINGS ${mo} stop_line REGEX "StopTime = [0-9]+")
  string(REGEX REPLACE ".*StopTime = ([0-9]+).*" "\\1" stop "${stop_line}")
  run_ok(run ${mo} ${ARGN} --quiet --report ${WORK}/proc_${name}.csv)
  execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/proc_check.py ${name} ${WORK}/proc_${name}.csv ${stop}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "proc_check ${name}: ${out}${err}")
  endif()
endfunction()

# Queueing theory, within the replications' half-widths.
foreach(m mm1 mm3 jackson batch line)
  check_model(${m} ${EX}/${m}.mo --reps 30 --jobs 2)
endforeach()

# Deterministic models checked exactly: a capacity schedule against a simulation by
# hand, a variable, permanent batches and duplicates against counts worked out in the
# model files.
foreach(m shift_det stock dup)
  check_model(${m} ${SRC}/tests/proc_models/${m}.mo)
endforeach()

# The same seed: the same report, whatever the number of workers (the summary line,
# with its wall time, aside); another seed, another report.
set(short --stop 2000 --reps 7)
run_ok(run ${EX}/mm1.mo ${short} --jobs 1 --report ${WORK}/proc_j1.csv)
string(REGEX REPLACE "summary:[^\n]*\n" "" text1 "${ERR}")
run_ok(run ${EX}/mm1.mo ${short} --jobs 3 --report ${WORK}/proc_j3.csv)
string(REGEX REPLACE "summary:[^\n]*\n" "" text3 "${ERR}")
string(REPLACE "proc_j3.csv" "proc_j1.csv" text3 "${text3}")
file(READ ${WORK}/proc_j1.csv csv1)
file(READ ${WORK}/proc_j3.csv csv3)
if(NOT csv1 STREQUAL csv3 OR NOT text1 STREQUAL text3)
  message(FATAL_ERROR "--jobs 1 and --jobs 3 differ:\n${text1}\n---\n${text3}")
endif()
if(NOT text1 MATCHES "Process statistics over 7 replications to t = 2000, seed 0" OR
   NOT csv1 MATCHES "\nall,Entity,\"Customer\",WIP,time,")
  message(FATAL_ERROR "the report of 7 replications:\n${text1}\n${csv1}")
endif()
run_ok(run ${EX}/mm1.mo ${short} --seed 2 --report ${WORK}/proc_s2.csv)
file(READ ${WORK}/proc_s2.csv csv2)
if(csv2 STREQUAL csv1)
  message(FATAL_ERROR "--seed 2 gave the report of seed 0")
endif()

# JSON for scripts: read back by Python's parser, with every replication's values.
run_ok(run ${EX}/mm1.mo ${short} --jobs 2 --report ${WORK}/proc.json)
execute_process(COMMAND /usr/bin/python3 -c
  "import json,sys; d=json.load(open(sys.argv[1])); s=[x for x in d['statistics'] if x['owner']=='Customer' and x['name']=='WIP'][0]; assert d['replications']==list(range(1,8)) and len(s['runs'])==7 and abs(s['mean']-sum(r['avg'] for r in s['runs'])/7)<1e-12, d"
  ${WORK}/proc.json RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the JSON report: ${err}")
endif()

# A single run: Arena's report on stderr, the default report file, MSER-5's suggestion.
file(MAKE_DIRECTORY ${WORK}/proc_single)
execute_process(COMMAND ${CDEVS} run ${EX}/mm1.mo --stop 5000 RESULT_VARIABLE rc ERROR_VARIABLE err
                WORKING_DIRECTORY ${WORK}/proc_single)
if(NOT rc EQUAL 0 OR NOT err MATCHES "Process statistics at t = 5000, replication 1" OR
   NOT err MATCHES "server.Utilization" OR NOT err MATCHES "MSER-5 \\(White 1997\\) on the tallies suggests --warmup" OR
   NOT EXISTS ${WORK}/proc_single/results/mm1.report.csv OR EXISTS ${WORK}/proc_single/results/mm1.csv)
  message(FATAL_ERROR "a single run of mm1: exit ${rc}\n${err}")
endif()

# Bad flags.
expect_fail(2 "--reps needs a whole number from 1 to 10^8, got '0'" run ${EX}/mm1.mo --reps 0)
expect_fail(2 "--jobs needs a whole number from 1 to 1024, got '0'" run ${EX}/mm1.mo --jobs 0)
expect_fail(2 "--seed needs a whole number >= 0, got '-1'" run ${EX}/mm1.mo --seed -1)
expect_fail(2 "--seed needs a whole number >= 0, got '1e3'" run ${EX}/mm1.mo --seed 1e3)
expect_fail(2 "--report needs a .csv or .json file, got 'r.txt'" run ${EX}/mm1.mo --report r.txt)
expect_fail(2 "--warmup needs a time >= 0, got '-5'" run ${EX}/mm1.mo --warmup -5)
expect_fail(2 "--warmup 200000 leaves nothing of the run" run ${EX}/mm1.mo --warmup 200000)
expect_fail(2 "--out writes one run's variables; with --reps" run ${EX}/mm1.mo --reps 2 --out x.csv)
expect_fail(2 "--reps is for models with process blocks" run ${SRC}/examples/bball/bball.mo --reps 3)
expect_fail(2 "--plot draws one run's variables; ${EX}/mm1.mo has none" run ${EX}/mm1.mo --plot x.svg)
expect_fail(2 "--plot draws one run's variables; ${EX}/beverage.mo runs replications" run ${EX}/beverage.mo --reps 2
            --plot x.svg)
expect_fail(1 "--vars: 'serve.out' is neither a variable of the model nor a statistic" run ${EX}/mm1.mo --vars serve.out)
expect_fail(1 "cannot write /nonexistent-dir/r.csv" run ${EX}/mm1.mo --stop 10 --report /nonexistent-dir/r.csv)

# A deadlock: an entity holds the one drill and waits for a second unit, the others
# wait for the drill; nothing is scheduled any more. An error, with where they wait.
file(WRITE ${WORK}/proc_dead.mo "model Dead
  cdevs.Create arrive(interarrival = 1, max_arrivals = 3);
  cdevs.Resource drill;
  cdevs.Process first(resource = drill, action = SeizeDelay, delay = 0.5);
  cdevs.Process second(resource = drill, action = SeizeDelayRelease, delay = 0.5);
  cdevs.Dispose leave;
equation
  connect(arrive.out, first.in);
  connect(first.out, second.in);
  connect(second.out, leave.in);
  annotation(experiment(StopTime = 100));
end Dead;
")
expect_fail(1 "deadlock at t=100: nothing is scheduled, yet 2 entities in queue 'first.Queue' wait for resource 'drill'"
            run ${WORK}/proc_dead.mo --quiet)
expect_fail(1 "replication 1: deadlock: nothing is scheduled" run ${WORK}/proc_dead.mo --reps 2)

# Model errors at check time, located.
file(WRITE ${WORK}/proc_bad.mo "model Bad
  cdevs.Create arrive(interarrival = Exponential(-2));
  cdevs.Process serve(resource = drill);
  cdevs.Decide d(chance = {70, 40});
  cdevs.Dispose leave;
equation
  connect(arrive.out, d.in);
  connect(d.out1, serve.in);
  connect(d.out2, leave.in);
  connect(serve.out, leave.in);
end Bad;
")
expect_fail(1 "proc_bad.mo:2:38: error: interarrival of arrive: Exponential needs mean > 0 (got -2)" check ${WORK}/proc_bad.mo)
expect_fail(1 "proc_bad.mo:3:34: error: resource of serve: 'drill' is not a component of this model" check ${WORK}/proc_bad.mo)
expect_fail(1 "proc_bad.mo:4:16: error: d: the chances add up to 110%, more than 100" check ${WORK}/proc_bad.mo)
file(WRITE ${WORK}/proc_open.mo "model Open\n  cdevs.Create a;\n  cdevs.Decide d(chance = {30, 30});\n  cdevs.Dispose x;\nequation\n  connect(a.out, d.in);\n  connect(d.out1, x.in);\n  connect(d.out2, x.in);\nend Open;\n")
expect_fail(1 "proc_open.mo:3:16: error: 'd.out3' is connected to nothing" check ${WORK}/proc_open.mo)

# SIGINT to the command (not to its workers) in the middle of 1000 replications: the
# workers are told, and the replications that ran are reported; exit status 130.
execute_process(COMMAND timeout --preserve-status -s INT 1 ${CDEVS} run ${EX}/jackson.mo --reps 1000 --jobs 2
                        --report ${WORK}/proc_int.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 130 OR NOT err MATCHES "interrupted \\(SIGINT\\): [0-9]+ of 1000 replications ran and are reported")
  message(FATAL_ERROR "SIGINT during replications: exit ${rc}\n${err}")
endif()

# The beverage plant (hybrid): a tank in equations, bottles as entities. What the tank
# lost (the integral of the block's rate signal) is what the bottles took (the block's
# tally), the level never below zero; starved of beverage, the bottles wait and each
# fill starts at the level's crossing of its quantity.
run_ok(run ${EX}/beverage.mo --quiet --vars level,poured,drawn,pump --out ${WORK}/bev.csv --report ${WORK}/bev_report.csv)
file(READ ${EX}/beverage.mo bev)
string(REPLACE "pump_rate = 0.6" "pump_rate = 0.45" bev "${bev}")
file(WRITE ${WORK}/bev_starved.mo "${bev}")
run_ok(run ${WORK}/bev_starved.mo --quiet --vars level,poured,drawn,pump --out ${WORK}/bev_starved.csv
       --report ${WORK}/bev_starved_report.csv)
foreach(v beverage:bev beverage_starved:bev_starved)
  string(REPLACE ":" ";" v "${v}")
  list(GET v 0 mode)
  list(GET v 1 f)
  execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/proc_check.py ${mode} ${WORK}/${f}_report.csv 2000
                          ${WORK}/${f}.csv
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "proc_check ${mode}: ${out}${err}")
  endif()
endforeach()

# Replications of a hybrid model take the run's settings (the method, here CVODE for
# the tank's equations; they were left out, and the replications refused CVODE) and
# say nothing of a result file they do not write (they said they wrote one).
run_ok(run ${EX}/beverage.mo --reps 2 --method CVODE_BDF --stop 200 --report ${WORK}/bev_cvode.csv)
if(ERR MATCHES "writing the results" OR NOT ERR MATCHES "Process statistics over 2 replications")
  message(FATAL_ERROR "replications of the beverage plant under CVODE_BDF:\n${ERR}")
endif()

# Batches, schedules, variables and SIMAN's blocks in model files: bad input is a
# located error at check time, or a run-time error naming the entity.
file(WRITE ${WORK}/proc_bad2.mo "model Bad2
  cdevs.Resource r(schedule = {{0, 8}, {0, 16}});
  cdevs.Branch b(branches = {With(30), With(30)});
  cdevs.Assign a(variable = b, value = 1);
  cdevs.Separate s(mode = Duplicate, attributes = Take);
end Bad2;
")
expect_fail(1 "proc_bad2.mo:2:31: error: schedule of r: the schedule never has a unit" check ${WORK}/proc_bad2.mo)
expect_fail(1 "proc_bad2.mo:3:16: error: b: the With chances add up to 60%: at most 100, and 100 without an Else"
            check ${WORK}/proc_bad2.mo)
expect_fail(1 "proc_bad2.mo:4:29: error: variable of a: 'b' is a cdevs.Branch, not a cdevs.Variable" check ${WORK}/proc_bad2.mo)
expect_fail(1 "proc_bad2.mo:5:18: error: s: attributes = Take is for splitting batches" check ${WORK}/proc_bad2.mo)
# A batch split while it holds the resource it seized: its units would be lost.
file(WRITE ${WORK}/proc_hold.mo "model Hold
  cdevs.Create a(interarrival = 1, max_arrivals = 4);
  cdevs.Batch b(size = 2);
  cdevs.Resource r;
  cdevs.Process p(resource = r, action = SeizeDelay, delay = 0.5);
  cdevs.Separate s;
  cdevs.Dispose x;
equation
  connect(a.out, b.in); connect(b.out, p.in); connect(p.out, s.in); connect(s.out, x.in);
  annotation(experiment(StopTime = 10));
end Hold;
")
expect_fail(1 "is split while it holds 1 units of 'r' (release them before the Separate)"
            run ${WORK}/proc_hold.mo --quiet)
# A member holding units disposed inside its batch.
file(WRITE ${WORK}/proc_hold2.mo "model Hold2
  cdevs.Create a(interarrival = 1, max_arrivals = 4);
  cdevs.Resource r(capacity = 4);
  cdevs.Process p(resource = r, action = SeizeDelay, delay = 0.5);
  cdevs.Batch b(size = 2);
  cdevs.Dispose x;
equation
  connect(a.out, p.in); connect(p.out, b.in); connect(b.out, x.in);
  annotation(experiment(StopTime = 10));
end Hold2;
")
expect_fail(1 "is disposed while it holds 1 units of 'r'" run ${WORK}/proc_hold2.mo --quiet)
# Replications report every category the single run does (the variables too).
run_ok(run ${SRC}/tests/proc_models/stock.mo --reps 2 --report ${WORK}/proc_stock2.csv)
if(NOT ERR MATCHES "\nVariable\n[^\n]*\n  stock.Value +1 ")
  message(FATAL_ERROR "the report over replications lacks the variable:\n${ERR}")
endif()

# Trajectories of statistics (the cashier-queue system's views): every row obeys
# WIP = arrivals - departures = NQ + busy, and the steps integrate to the report's time
# averages; plotted. Names that are no count or time-persistent statistic are refused.
# (In a directory of their own: cli_errors looks for temporary files left in WORK.)
set(TW ${WORK}/proc_traj)
file(MAKE_DIRECTORY ${TW})
run_ok(run ${EX}/cashier.mo --quiet --out ${TW}/cashier.csv --report ${TW}/cashier_report.csv
       --vars System.NumberIn,System.NumberOut,Customer.WIP,line.Queue.NQ,cashier.NumberBusy)
execute_process(COMMAND /usr/bin/python3 ${SRC}/tests/proc_check.py cashier ${TW}/cashier_report.csv 480
                        ${TW}/cashier.csv
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "proc_check cashier: ${out}${err}")
endif()
expect_fail(1 "--vars: 'line.Queue.NQQ' is neither a variable of the model nor a statistic" run ${EX}/cashier.mo
            --quiet --vars line.Queue.NQ,line.Queue.NQQ --out ${TW}/c2.csv)
expect_fail(1 "--vars: 'line.Queue.WaitTime' is a tally (observations, not a trajectory)" run ${EX}/cashier.mo
            --quiet --vars line.Queue.WaitTime --out ${TW}/c3.csv)
file(GLOB c2_parts ${TW}/.c2.csv.*.part)
if(EXISTS ${TW}/c2.csv OR c2_parts)
  message(FATAL_ERROR "a refused --vars left a results file")
endif()

# A schedule whose durations are lost in the rounding of large times: an error, not a
# capacity frozen without a word (it looped for ever inside one instant).
file(WRITE ${WORK}/proc_stuck.mo "model Stuck
  cdevs.Create arrive(interarrival = 1000);
  cdevs.Resource clerk(schedule = {{1, 1}, {0, 1}});
  cdevs.Process serve(resource = clerk, delay = 0.25);
  cdevs.Dispose leave;
equation
  connect(arrive.out, serve.in); connect(serve.out, leave.in);
  annotation(experiment(StartTime = 1e16, StopTime = 1.0000000000001e16));
end Stuck;
")
expect_fail(1 "the schedule of resource 'clerk' cannot go on past t=10000000000000000" run ${WORK}/proc_stuck.mo --quiet)

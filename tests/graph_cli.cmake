# SPDX-License-Identifier: MIT
# DEVS graphs from the command line: the seed's Fig. 1 (examples/graph/fig1.mo) checks,
# runs, and gives the trace worked out by hand (fig1.trace.csv, GGADLib's confluence
# rule; fig1_both.trace.csv, the kernel's) and the drawing (fig1.dot); the checks of
# graph sections are located errors; two external transitions firing together stop
# the run naming both.
include(${SRC}/tests/expect.cmake)
set(EX ${SRC}/examples/graph)

function(run_ok out_var)
  execute_process(COMMAND ${CDEVS} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err
                  WORKING_DIRECTORY ${WORK})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cdevs ${ARGN}: exit ${rc}\n${out}${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
  set(${out_var}_err "${err}" PARENT_SCOPE)
endfunction()

function(same_file got expected)
  file(READ ${got} a)
  file(READ ${expected} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${got} differs from ${expected}:\n--- got\n${a}--- expected\n${b}")
  endif()
endfunction()

# 1. Fig. 1: check, trace (both confluence rules), DOT, and a run's results.
run_ok(out check ${EX}/fig1.mo)
if(NOT out MATCHES "fig1.mo: ok")
  message(FATAL_ERROR "cdevs check fig1.mo: ${out}")
endif()
run_ok(out graph ${EX}/fig1.mo --trace --out ${WORK}/fig1.trace.csv)
same_file(${WORK}/fig1.trace.csv ${EX}/fig1.trace.csv)
file(READ ${EX}/fig1.mo text)
string(REPLACE "    output pO;\n" "    output pO;\n    confluence internal external;\n" text "${text}")
file(WRITE ${WORK}/fig1_both.mo "${text}")
run_ok(out graph ${WORK}/fig1_both.mo --trace --out ${WORK}/fig1_both.trace.csv)
same_file(${WORK}/fig1_both.trace.csv ${EX}/fig1_both.trace.csv)
run_ok(out graph ${EX}/fig1.mo --dot --out ${WORK}/fig1.dot)
same_file(${WORK}/fig1.dot ${EX}/fig1.dot)
run_ok(out graph ${EX}/fig1.mo)
if(NOT out MATCHES "ctl: graph Ctl, 2 phases, 1 internal and 2 external transitions, confluence internal \\(GGADLib\\)")
  message(FATAL_ERROR "cdevs graph fig1.mo: ${out}")
endif()
# cdevs run writes the graphs' outputs: pO is 2 from t = 5.5 (the only internal
# transition of Ctl before 9.5).
run_ok(out run ${EX}/fig1.mo --vars ctl.pO --raw --quiet --out ${WORK}/fig1.csv)
file(READ ${WORK}/fig1.csv csv)
if(NOT csv MATCHES "^time,ctl.pO\n5.5,2\n")
  message(FATAL_ERROR "cdevs run fig1.mo: ${csv}")
endif()

# 2. Rendering with Graphviz's dot when it is there; a clear message when it is not.
find_program(DOT dot)
if(DOT)
  run_ok(out graph ${EX}/fig1.mo --dot --out ${WORK}/fig1r.dot --render ${WORK}/fig1.svg)
  file(READ ${WORK}/fig1.svg svg)
  if(NOT svg MATCHES "<svg" OR NOT svg MATCHES "S2")
    message(FATAL_ERROR "dot drew no Fig. 1")
  endif()
else()
  expect_fail(1 "Graphviz's dot is not installed" graph ${EX}/fig1.mo --dot --out ${WORK}/fig1r.dot
              --render ${WORK}/fig1.svg)
endif()

# 3. The checks, each a located error (or warning) at cdevs check.
function(check_graph name body rc needle)
  file(WRITE ${WORK}/${name}.mo "model M\n  graph G\n    input u;\n    output y;\n${body}  end G;\n  G g;\nend M;\n")
  if(rc EQUAL 0)
    run_ok(out check ${WORK}/${name}.mo)
    string(FIND "${out_err}" "${needle}" pos)
    if(pos EQUAL -1)
      message(FATAL_ERROR "cdevs check ${name}.mo: no '${needle}' in:\n${out_err}")
    endif()
  else()
    expect_fail(${rc} "${needle}" check ${WORK}/${name}.mo)
  endif()
endfunction()
check_graph(g_noinit "    phase A;\n" 1 "g_noinit.mo:2:9: error: graph 'G' has no initial phase")
check_graph(g_twoinit "    initial phase A;\n    initial phase B;\n" 1 "g_twoinit.mo:6:19: error: a second initial phase")
check_graph(g_twoint "    initial phase A(lifetime = 1);\n    internal A -> A;\n    internal A -> A output y!1;\n" 1
            "g_twoint.mo:7:5: error: phase 'A' has a second internal transition")
check_graph(g_noway "    initial phase A(lifetime = 1);\n" 1
            "g_noway.mo:5:19: error: phase 'A' has a finite lifetime and no internal transition")
check_graph(g_zero "    initial phase A(lifetime = 0);\n    internal A -> A;\n" 1
            "g_zero.mo:5:19: error: a cycle of internal transitions through phases of lifetime 0 (A -> A)")
check_graph(g_amb "    initial phase A;\n    external A -> A when u?1;\n    external A -> A when u?1 and true;\n    external A -> A when u?1;\n" 1
            "g_amb.mo:8:5: error: phase 'A' has two external transitions with the same guard")
check_graph(g_port "    initial phase A;\n    external A -> A when w?1;\n" 1 "g_port.mo:6:26: error: 'w?…' needs an input port")
check_graph(g_type "    Boolean b = false;\n    initial phase A;\n    external A -> A when u?1 then b := 2;\n" 1
            "g_type.mo:7:40: error: the value assigned to Boolean 'b' is Integer")
check_graph(g_dead "    initial phase A;\n    phase B;\n    external B -> A when u?1;\n" 0
            "g_dead.mo:5:19: warning: phase 'A' is a dead end")
check_graph(g_lost "    initial phase A;\n    phase B;\n    external A -> A when u?1;\n" 0
            "g_lost.mo:6:11: warning: phase 'B' is unreachable")

# 4. Two external transitions that fire on the same input: the run stops, naming both.
file(WRITE ${WORK}/g_runamb.mo
"model M
  graph G
    input u;
    initial phase S;
    phase A, B;
    external S -> A when u > 0;
    external S -> B when u < 5;
    external A -> S when u?9;
    external B -> S when u?9;
  end G;
  cdevs.Step st(t_step = 1, before = 2, after = 3);
  G g;
equation
  connect(st.y, g.u);
end M;
")
expect_fail(1 "external transitions u > 0 (g_runamb.mo:6:5) and u < 5 (g_runamb.mo:7:5) fire on the same input"
            run g_runamb.mo --quiet --no-out)

# 5. The command line.
expect_fail(2 "usage: cdevs graph" graph)
expect_fail(2 "--dot or --trace" graph ${EX}/fig1.mo --dot --trace)
file(WRITE ${WORK}/g_none.mo "model M\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend M;\n")
expect_fail(1 "no DEVS graph in this model" graph ${WORK}/g_none.mo --dot)
expect_fail(1 "g_noinit.mo: 1 error" graph ${WORK}/g_noinit.mo --dot)

# 6. --verify on the untimed abstraction: the controlled vessel (examples/graph/vessel.mo)
# keeps its heater off below full (Empty_On, Partial_On unreachable) and can always
# drain back to Empty_Off; its controller can always return to Idle.
run_ok(out graph ${EX}/vessel.mo --verify --never vessel.Empty_On --never vessel.Partial_On
       --always-reaches vessel.Empty_Off --always-reaches ctl.Idle)
foreach(needle "vessel: never Empty_On: holds: unreachable in the abstraction, so no run enters it"
               "vessel: never Partial_On: holds" "vessel: always reaches Empty_Off: holds"
               "ctl: always reaches Idle: holds"
               "vessel: graph VesselFSA, untimed abstraction: 4 of 6 phases reachable from Empty_Off; unreachable, so entered in no run: Partial_On, Empty_On")
  string(FIND "${out}" "${needle}" pos)
  if(pos EQUAL -1)
    message(FATAL_ERROR "cdevs graph vessel.mo --verify: no '${needle}' in:\n${out}")
  endif()
endforeach()
# A wrong vessel abstraction: the level may drop while heating (Full_On -> Partial_On).
# By hand, the shortest path into Empty_On is then Empty_Off -low?0-> Partial_Off
# -high?1-> Full_On -high?0-> Partial_On -low?1-> Empty_On.
file(READ ${EX}/vessel.mo text)
string(REPLACE "    external Full_Off -> Partial_Off when high?0;\n"
       "    external Full_Off -> Partial_Off when high?0;\n    external Full_On -> Partial_On when high?0;\n" text "${text}")
file(WRITE ${WORK}/vessel_wrong.mo "${text}")
execute_process(COMMAND ${CDEVS} graph ${WORK}/vessel_wrong.mo --never vessel.Empty_On RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_QUIET)
string(FIND "${out}" "vessel: never Empty_On: VIOLATED in the abstraction: Empty_Off -> Partial_Off -> Full_On -> Partial_On -> Empty_On" pos)
if(NOT rc EQUAL 1 OR pos EQUAL -1)
  message(FATAL_ERROR "cdevs graph vessel_wrong.mo --never vessel.Empty_On: exit ${rc}\n${out}")
endif()
expect_fail(2 "--never Nope: no graph instance has that phase" graph ${EX}/vessel.mo --never Nope)
expect_fail(2 "--dot or --trace or --verify" graph ${EX}/vessel.mo --dot --verify)
# The simulated run enters only phases the abstraction reaches: every phase in the
# trace of both graphs is outside the unreachable list above (Partial_On, Empty_On),
# and the controller runs its batch (Heating, Draining) at least twice in 100 s.
run_ok(out run ${EX}/vessel.mo --quiet --no-out)
run_ok(trace graph ${EX}/vessel.mo --trace)
string(REGEX MATCHALL "\n[^,\n]*,(ctl|vessel),[a-z]+,[A-Za-z_]*,[A-Za-z_]*" rows "${trace}")
set(seen "")
foreach(row IN LISTS rows)
  string(REGEX REPLACE "^\n[^,]*,([a-z]+),[a-z]+,([A-Za-z_]*),([A-Za-z_]*)$" "\\1.\\2;\\1.\\3" pair "${row}")
  list(APPEND seen ${pair})
endforeach()
list(REMOVE_ITEM seen "ctl." "vessel.")
list(REMOVE_DUPLICATES seen)
foreach(bad vessel.Partial_On vessel.Empty_On)
  list(FIND seen ${bad} at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the run of vessel.mo entered ${bad}, which --verify found unreachable:\n${trace}")
  endif()
endforeach()
foreach(good ctl.Heating ctl.Draining vessel.Full_On vessel.Full_Off)
  list(FIND seen ${good} at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the run of vessel.mo never entered ${good}: ${seen}")
  endif()
endforeach()
string(REGEX MATCHALL ",ctl,external,Heating,StartDrain," batches "${trace}")
list(LENGTH batches nb)
if(nb LESS 2)
  message(FATAL_ERROR "vessel.mo: ${nb} heating batches in 100 s, expected at least 2")
endif()

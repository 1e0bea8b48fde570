// ARGESIM C5 (see c5.mo), formulation 3: two instances of a model class, one per
// state of the system, switched by the mode variable of the model around them, as
// Mosilab's statechart connects one submodel and freezes the other (SNE 18/2, Zauner,
// Judex & Schwarz §3; the C5 comparison of §2.2). The stage that is switched off
// keeps its states (its derivatives are 0); at a switch the stage switched on takes
// over the states of the other (reinit), so y1 and y2 go on continuously.
model Stage
  parameter Real c1 = 2.7e6, c3 = 3.5651205;
  parameter Real c2, c4;
  input Real on; // 1: this stage integrates; 0: it is frozen
  Real y1(start = 4.2), y2(start = 0.3);
equation
  der(y1) = on * c1 * (y2 + c2 - y1);
  der(y2) = on * c3 * (c4 - y2);
end Stage;

model c5_classes
  discrete Real mode(start = 1);
  Stage s1(c2 = 0.4, c4 = 5.5, on = if mode < 1.5 then 1 else 0);
  Stage s2(c2 = -0.3, c4 = 2.73, on = if mode > 1.5 then 1 else 0);
  Real y1, y2;
equation
  y1 = if mode < 1.5 then s1.y1 else s2.y1;
  y2 = if mode < 1.5 then s1.y2 else s2.y2;
algorithm
  // (A crossing in the mode already in force hands nothing over: y1 falls through
  // 2.5 at the start, in state 1.)
  when y1 >= 5.8 then
    if mode < 1.5 then
      reinit(s2.y1, s1.y1);
      reinit(s2.y2, s1.y2);
    end if;
    mode := 2;
  end when;
  when y1 <= 2.5 then
    if mode > 1.5 then
      reinit(s1.y1, s2.y1);
      reinit(s1.y2, s2.y2);
    end if;
    mode := 1;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 5, Tolerance = 1e-10, AbsTolerance = 1e-10,
                        MMO_Solver = LIQSS3, MMO_Output = {y1, y2}));
end c5_classes;

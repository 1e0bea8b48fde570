// ARGESIM comparison C5 (SNE 18/2): a stiff two-state system switching between two
// sets of parameters. y1' = c1 (y2 + c2 - y1), y2' = c3 (c4 - y2); state 1:
// c2 = 0.4, c4 = 5.5, until y1 rises to 5.8; state 2: c2 = -0.3, c4 = 2.73, until y1
// falls to 2.5. Published: the last event before t = 5 at 4.999999646, y1(5) ~ 5.3693.
// Formulation 1: when clauses setting discrete parameters (c5_if.mo: an if equation
// on a mode variable; both give the same events).
model c5
  parameter Real c1 = 2.7e6, c3 = 3.5651205;
  discrete Real c2(start = 0.4), c4(start = 5.5);
  Real y1(start = 4.2), y2(start = 0.3);
equation
  der(y1) = c1 * (y2 + c2 - y1);
  der(y2) = c3 * (c4 - y2);
algorithm
  when y1 >= 5.8 then
    c2 := -0.3;
    c4 := 2.73;
  end when;
  when y1 <= 2.5 then
    c2 := 0.4;
    c4 := 5.5;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 5, Tolerance = 1e-10, AbsTolerance = 1e-10,
                        MMO_Solver = LIQSS3, MMO_Output = {y1, y2}));
end c5;

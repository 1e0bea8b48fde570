// ARGESIM C5 (see c5.mo), formulation 2: an if equation on a mode variable that the
// when clauses switch.
model c5_if
  parameter Real c1 = 2.7e6, c3 = 3.5651205;
  discrete Real mode(start = 1);
  Real y1(start = 4.2), y2(start = 0.3);
equation
  if mode > 1.5 then
    der(y1) = c1 * (y2 - 0.3 - y1);
    der(y2) = c3 * (2.73 - y2);
  else
    der(y1) = c1 * (y2 + 0.4 - y1);
    der(y2) = c3 * (5.5 - y2);
  end if;
algorithm
  when y1 >= 5.8 then
    mode := 2;
  end when;
  when y1 <= 2.5 then
    mode := 1;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 5, Tolerance = 1e-10, AbsTolerance = 1e-10,
                        MMO_Solver = LIQSS3, MMO_Output = {y1, y2}));
end c5_if;

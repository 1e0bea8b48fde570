// An LC transmission line of N sections driven by a unit pulse of length 1.
model lcline
  constant Integer N = 200;
  Real x[N];
  discrete Real d(start = 1);
equation
  der(x[1]) = d - x[2];
  for i in 2:N-1 loop
    der(x[i]) = x[i-1] - x[i+1];
  end for;
  der(x[N]) = x[N-1];
algorithm
  when time > 1 then
    d := 0;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 200, Tolerance = 1e-3, AbsTolerance = 1e-6,
                        MMO_Solver = QSS3, MMO_Output = {x[1], x[100], x[N]}));
end lcline;

// A ball dropped from 10 m; each impact keeps 80 % of the speed.
model bball
  parameter Real g = 9.81, e = 0.8;
  Real y(start = 10), v(start = 0);
equation
  der(y) = v;
  der(v) = -g;
algorithm
  when y < 0 then
    reinit(v, -e * v);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 12, Tolerance = 1e-6, AbsTolerance = 1e-9,
                        MMO_Solver = QSS3, MMO_Output = {y, v}));
end bball;

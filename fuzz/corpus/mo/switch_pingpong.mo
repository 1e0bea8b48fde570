model Free
  Real x(start = 0), v(start = 0);
equation
  der(x) = v;
  der(v) = -1;
algorithm
  when x < -1 then
    switch to m(x = x + 2);
  end when;
end Free;
model m
  Real x(start = 1), v(start = 0);
equation
  der(x) = -x;
  der(v) = 0;
algorithm
  when x < 0.5 then
    switch to Free(x = x, v = -x);
  end when;
  annotation(experiment(StopTime = 5, Tolerance = 1e-3, MMO_Output = {x}));
end m;

model m
  Real x(start = 1);
equation
  der(x) = -x;
algorithm
  when x < 0.5 then
    switch to m(x = 1);
  end when;
  annotation(experiment(StopTime = 3, MMO_Output = {x}));
end m;

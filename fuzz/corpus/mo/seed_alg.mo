model alg
  Real x(start = 1), y, z;
algorithm
  y := 2;
  if x > 0.5 then
    y := -1;
    z := y * 3;
  else
    z := 0;
  end if;
equation
  der(x) = y;
  annotation(experiment(StopTime = 2, MMO_Output = {x, y, z}));
end alg;

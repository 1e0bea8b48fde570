model many
  Real x[20](each start = 1);
equation
  for i in 1:20 loop
    der(x[i]) = -i * x[i];
  end for;
  annotation(experiment(StopTime = 1));
end many;

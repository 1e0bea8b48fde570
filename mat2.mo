model mat2
  Real m[2,2](each start = 1);
equation
  der(m[1,1]) = -m[1,1];
  der(m[1,2]) = -2*m[1,2];
  der(m[2,1]) = m[1,1];
  der(m[2,2]) = -m[2,2];
  annotation(experiment(StopTime = 2));
end mat2;

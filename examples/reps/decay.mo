// x' = -k·x, x(0) = 1, its rate k drawn from Uniform(1, 2) anew for each replication:
// E[x(1)] = ∫₁² e^(-k) dk = e^-1 - e^-2 = 0.2325441579, and x(1)'s variance
// (e^-2 - e^-4)/2 - (e^-1 - e^-2)² = 0.0044329 gives a standard deviation of 0.06658.
//   cdevs run examples/reps/decay.mo --reps 100 --jobs 2
model Decay "exponential decay at a random rate"
  parameter Real k = Uniform(1, 2) "decay rate";
  Real x(start = 1);
equation
  der(x) = -k * x;
  annotation(experiment(StopTime = 1, Tolerance = 1e-6, AbsTolerance = 1e-9));
end Decay;

// A mass on a spring of uncertain stiffness: x'' = -w²·x, x(0) = 1, x'(0) = 0, the
// angular frequency w drawn from Uniform(1, 2); to t = 2, x = cos(w·t). So x(2) =
// cos(2w), and x's minimum over the run is cos(2w) for w < pi/2 and -1 beyond (the
// first trough, at t = pi/w, comes before the end): the report's "Minimum over each
// run" follows the trajectory between events, not only the events.
//   cdevs run examples/reps/spring.mo --reps 100 --jobs 2
model Spring "an oscillator at a random frequency"
  parameter Real w = Uniform(1, 2) "angular frequency";
  Real x(start = 1), v(start = 0);
equation
  der(x) = v;
  der(v) = -w ^ 2 * x;
  annotation(experiment(StopTime = 2, Tolerance = 1e-6, AbsTolerance = 1e-9, MMO_Output = {x}));
end Spring;

// Two decays x[i]' = -k[i]·x[i], x[i](0) = 1, each rate drawn from Normal(1, 0.2) on a
// stream of its own ("k[1]", "k[2]"): x[i](1) = e^(-k[i]) is lognormal, with mean
// E[e^(-k)] = e^(-mu + sigma²/2) = e^(-0.98) = 0.3753111 (the normal's moment
// generating function) and variance e^(-2mu + 2sigma²) - e^(-2mu + sigma²).
//   cdevs run examples/reps/decay_normal.mo --reps 100
model DecayNormal "two decays at normally distributed rates"
  parameter Real mu = 1, sigma = 0.2;
  parameter Real k[2] = Normal(mu, sigma) "each element drawn on its own";
  Real x[2](each start = 1);
equation
  for i in 1:2 loop
    der(x[i]) = -k[i] * x[i];
  end for;
  annotation(experiment(StopTime = 1, Tolerance = 1e-6, AbsTolerance = 1e-9));
end DecayNormal;

// M/M/1: Poisson arrivals at rate lambda, one server with exponential service at rate
// mu. With rho = lambda/mu = 0.8 queueing theory gives L = rho/(1 - rho) = 4 in the
// system, Lq = rho^2/(1 - rho) = 3.2 waiting, W = 1/(mu - lambda) = 5 and Wq = 4.
//   cdevs run examples/proc/mm1.mo --reps 30 --jobs 2
model MM1 "M/M/1 queue"
  parameter Real lambda = 0.8 "arrival rate";
  parameter Real mu = 1 "service rate";
  cdevs.Create arrive(interarrival = Exponential(1 / lambda), entity_type = "Customer");
  cdevs.Resource server(capacity = 1);
  cdevs.Process serve(resource = server, delay = Exponential(1 / mu));
  cdevs.Dispose leave;
equation
  connect(arrive.out, serve.in);
  connect(serve.out, leave.in);
  annotation(experiment(StopTime = 100000));
end MM1;

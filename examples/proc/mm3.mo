// M/M/3: arrivals at rate 2, three servers of rate 1 sharing one queue. Erlang's C
// formula with a = lambda/mu = 2, c = 3: P(wait) = 4/9, Wq = P(wait)/(c mu - lambda)
// = 4/9, Lq = lambda Wq = 8/9, L = Lq + a = 26/9, utilization a/c = 2/3.
model MM3 "M/M/3 queue"
  parameter Real lambda = 2, mu = 1;
  cdevs.Create arrive(interarrival = Exponential(1 / lambda), entity_type = "Customer");
  cdevs.Resource clerks(capacity = 3);
  cdevs.Process serve(resource = clerks, delay = Exponential(1 / mu));
  cdevs.Dispose leave;
equation
  connect(arrive.out, serve.in);
  connect(serve.out, leave.in);
  annotation(experiment(StopTime = 50000));
end MM3;

// A counter with shifts (Arena's Resource with a capacity schedule): customers arrive
// Poisson (rate 1.5 per hour) all day; two clerks work for 8 hours, one for the next 8,
// none for the night's 8, over again every day. A clerk serving when the shift ends
// finishes that customer (Arena's Ignore rule). The report gives the clerks' scheduled
// capacity (time average 1) beside their utilization.
model Shifts "a counter staffed in shifts"
  cdevs.Create arrive(interarrival = Exponential(1 / 1.5), entity_type = "Customer");
  cdevs.Resource clerks(schedule = {{2, 8}, {1, 8}, {0, 8}});
  cdevs.Process serve(resource = clerks, delay = Exponential(0.5));
  cdevs.Dispose leave;
equation
  connect(arrive.out, serve.in);
  connect(serve.out, leave.in);
  annotation(experiment(StopTime = 2400));
end Shifts;

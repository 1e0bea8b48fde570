// Deterministic: an arrival every 1 from t = 0, service 1.2, one clerk on [0, 10),
// none on [10, 20), and so on: the service started at 9.6 ends at 10.8, in the break
// (Arena's Ignore rule); tests/proc_check.py simulates the same by hand.
model ShiftDet
  cdevs.Create arrive(interarrival = 1);
  cdevs.Resource clerk(schedule = {{1, 10}, {0, 10}});
  cdevs.Process serve(resource = clerk, delay = 1.2);
  cdevs.Dispose leave;
equation
  connect(arrive.out, serve.in); connect(serve.out, leave.in);
  annotation(experiment(StopTime = 40));
end ShiftDet;

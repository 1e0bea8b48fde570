// SIMANLib's manufacturing line (SNE 18/2, Fig. 4) with SIMAN's separate blocks:
// pieces arrive Poisson (mean gap 5), wait for the machine (Queue, Seize), are machined
// (Uniform(2, 4)), release it, are inspected (Uniform(0.5, 1.5), no resource) and are
// found Good (70%), Reject (10%) or in need of Repair (20%): repaired pieces
// (Exponential(10)) go back to the machine's queue. Traffic equations: the machine sees
// lambda / (1 - 0.2) = 0.25 pieces per unit of time, so its utilization is 0.25 * 3 =
// 0.75; a piece ends Good with chance 0.7 / 0.8 = 0.875.
model Line "SIMAN's manufacturing line with repairs"
  cdevs.Create arrive(interarrival = Exponential(5), entity_type = "Piece");
  cdevs.Resource machine(capacity = 1);
  cdevs.Queue machineQ;
  cdevs.Seize seize(resource = machine);
  cdevs.Delay machining(delay = Uniform(2, 4));
  cdevs.Release release(resource = machine);
  cdevs.Delay inspect(delay = Uniform(0.5, 1.5), allocation = NonValueAdded);
  cdevs.Branch classify(branches = {With(70), With(10), With(20)});
  cdevs.Count countGood(name = "Good");
  cdevs.Count countReject(name = "Reject");
  cdevs.Count countRepair(name = "Repair");
  cdevs.Tally tallyGood(name = "TimeInSystem");
  cdevs.Tally tallyReject(name = "TimeInSystem");
  cdevs.Delay repair(delay = Exponential(10), allocation = NonValueAdded);
  cdevs.Dispose good;
  cdevs.Dispose reject;
equation
  connect(arrive.out, machineQ.in);
  connect(machineQ.out, seize.in);
  connect(seize.out, machining.in);
  connect(machining.out, release.in);
  connect(release.out, inspect.in);
  connect(inspect.out, classify.in);
  connect(classify.out1, countGood.in);
  connect(classify.out2, countReject.in);
  connect(classify.out3, countRepair.in);
  connect(countGood.out, tallyGood.in);
  connect(countReject.out, tallyReject.in);
  connect(tallyGood.out, good.in);
  connect(tallyReject.out, reject.in);
  connect(countRepair.out, repair.in);
  connect(repair.out, machineQ.in);
  annotation(experiment(StopTime = 20000));
end Line;

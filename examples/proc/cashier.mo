// The cashier-queue system (Vangheluwe, "Foundations of Modelling and Simulation"):
// customers ARRIVE (Poisson, one every 2 minutes on average), wait in one queue, are
// served by one cashier (Exponential, 1.5 minutes) and DEPART. The physical view is the
// queue and the cashier; the abstract view is one state, the number of customers in
// the system, which each ARRIVAL raises and each DEPARTURE lowers. Their trajectories:
//   cdevs run examples/proc/cashier.mo \
//     --vars System.NumberIn,System.NumberOut,Customer.WIP,line.Queue.NQ,cashier.NumberBusy \
//     --out cashier.csv --plot cashier.svg
// (the arrivals and departures counted, the abstract state, and the physical view's
// queue and cashier: at every instant WIP = arrivals - departures = NQ + NumberBusy).
model Cashier "one cashier, one queue"
  cdevs.Create arrive(interarrival = Exponential(2), entity_type = "Customer");
  cdevs.Resource cashier(capacity = 1);
  cdevs.Process line(resource = cashier, delay = Exponential(1.5));
  cdevs.Dispose depart;
equation
  connect(arrive.out, line.in);
  connect(line.out, depart.in);
  annotation(experiment(StopTime = 480));
end Cashier;

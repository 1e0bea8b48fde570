// Batching (Arena's Batch and Separate): parts arrive Poisson (rate 1) and wait until
// three of them fill a tray; the oven bakes one tray at a time (Exponential, mean 2);
// the trays are split and the parts leave. Independent figures:
//  - a part's wait for its tray: the i-th of three waits for 3 - i more arrivals, each
//    1/lambda on average: (0 + 1 + 2)/3 = 1, so the tray queue holds lambda * 1 = 1;
//  - trays reach the oven as a renewal process with Erlang-3 gaps (mean 3): the oven is
//    an E3/M/1 queue, whose wait is sigma/(mu (1 - sigma)) with sigma the root in (0, 1)
//    of sigma = (lambda / (lambda + mu (1 - sigma)))^3 (GI/M/1): 2.27804;
//  - each part spends its tray's baking time as value-added time: 2 on average.
model Batching "parts batched into trays for an oven"
  parameter Real lambda = 1, bake_mean = 2;
  cdevs.Create arrive(interarrival = Exponential(1 / lambda), entity_type = "Part");
  cdevs.Batch tray(size = 3, kind = Temporary, entity_type = "Tray");
  cdevs.Resource oven(capacity = 1);
  cdevs.Process bake(resource = oven, delay = Exponential(bake_mean));
  cdevs.Separate unload(mode = Split);
  cdevs.Dispose leave;
equation
  connect(arrive.out, tray.in);
  connect(tray.out, bake.in);
  connect(bake.out, unload.in);
  connect(unload.out, leave.in);
  annotation(experiment(StopTime = 20000));
end Batching;

// The beverage plant of the SNE 18/2 seed (ARENALib, Fig. 1): a continuous tank fills
// bottles; filled bottles are labelled and quality-controlled; those that fail are
// cleaned and relabelled and checked again; they leave as first- or second-class.
// The tank is an equation model: a pump refills it between two levels (a hysteresis,
// state events), and the filling station empties it at its rate while a bottle fills.
// A bottle waits until the tank holds its quantity: the crossing of the level's
// polynomial starts the fill, exactly.
//   cdevs run examples/proc/beverage.mo --plot tank.svg
model Beverage "a tank filling bottles, with labelling and quality control"
  parameter Real pump_rate = 0.6 "litres per second while the pump runs";
  parameter Real low = 2, high = 8 "the pump starts below low, stops above high";
  Real level(start = 5) "litres in the tank";
  Real poured(start = 0) "litres the pump delivered";
  Real drawn(start = 0) "litres the bottles took";
  discrete Real pump(start = 1);
  cdevs.Create bottles(interarrival = Exponential(2), entity_type = "Bottle");
  cdevs.Fill filling(quantity = Uniform(0.9, 1.1), rate = 2);
  cdevs.Resource labeller(capacity = 1), cleaner(capacity = 1);
  cdevs.Process labelling(resource = labeller, delay = Triangular(0.5, 1, 1.5));
  cdevs.Decide quality_control(chance = {85});
  cdevs.Process cleaning(resource = cleaner, delay = Triangular(1, 2, 4));
  cdevs.Process relabelling(resource = labeller, delay = Triangular(0.5, 1, 1.5), priority = 1);
  cdevs.Decide quality_control_2(chance = {70});
  cdevs.Dispose first_class, second_class;
equation
  der(level) = pump * pump_rate - filling.rate;
  der(poured) = pump * pump_rate;
  der(drawn) = filling.rate;
  connect(level, filling.level);
  when level > high then
    pump = 0;
  elsewhen level < low then
    pump = 1;
  end when;
  connect(bottles.out, filling.in);
  connect(filling.out, labelling.in);
  connect(labelling.out, quality_control.in);
  connect(quality_control.out1, first_class.in);
  connect(quality_control.out2, cleaning.in);
  connect(cleaning.out, relabelling.in);
  connect(relabelling.out, quality_control_2.in);
  connect(quality_control_2.out1, second_class.in);
  connect(quality_control_2.out2, cleaning.in);
  annotation(experiment(StopTime = 2000, MMO_Output = {level, pump}));
end Beverage;

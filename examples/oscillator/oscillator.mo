// x'' = -x as a block diagram of library blocks, written in a model file.
model oscillator
  cdevs.Integrator x(x0 = 1);
  cdevs.Integrator v(x0 = 0);
  cdevs.Gain k(k = -1);
equation
  connect(v.y, x.u);
  connect(x.y, k.u);
  connect(k.y, v.u);
  annotation(experiment(StartTime = 0, StopTime = 10, Tolerance = 1e-4, AbsTolerance = 1e-8,
                        MMO_Solver = QSS3, MMO_Output = {x.y, v.y}));
end oscillator;

// The stiff system of Migoni, Bortolotto, Kofman & Cellier (2013): eigenvalues
// -0.01 and -99.99. LIQSS2 needs a few hundred steps where QSS2 needs tens of thousands.
model stiff
  Real x1(start = 0), x2(start = 20);
equation
  der(x1) = 0.01 * x2;
  der(x2) = 2020 - 100 * x1 - 100 * x2;
  annotation(experiment(StartTime = 0, StopTime = 500, Tolerance = 1e-3,
                        AbsTolerance = 1e-3, MMO_Solver = LIQSS2, MMO_Output = {x1, x2}));
end stiff;

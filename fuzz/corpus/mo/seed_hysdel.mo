// The two-mode example of the HYSDEL paper (SNE 18/2, Kvasnica et al., "Modelling
// structural-dynamic systems with HYSDEL", §3.2, eqs. (8)-(9), Figs. 2-3), in
// continuous time instead of discretised at Ts = 0.1 s:
//   mode 1, while y < 0.5:  y' + 0.5 y = 0.5 u       (one state, x1 = y)
//   mode 2, while y > 0.5:  y'' + 2 y' + y = u        (two states, x1 = y, x2 = y')
// Entering mode 2, x2 is set to the y' of mode 1 there, so y and y' are continuous
// (the paper's extra mode, which predicts the switch one sample ahead, does this in
// discrete time); leaving it, x2 is set to 0, not needed any more. Both states exist
// throughout (the maximal state space, as the paper's DHA): mode 1 holds x2 at 0.
// The input is a periodic pulse of amplitude 1, as the paper's; its period is not
// given there: 20 s here, high for the first 10 s of each (a block of the library,
// read by the equations).
model hysdel
  parameter Real limit = 0.5;
  cdevs.Pulse u(low = 0, high = 1, period = 20, duty = 0.5);
  discrete Real mode(start = 1);
  Real y(start = 0), x2(start = 0);
equation
  der(y) = if mode < 1.5 then 0.5 * (u.y - y) else x2;
  der(x2) = if mode < 1.5 then 0 else u.y - y - 2 * x2;
algorithm
  when y > limit then
    mode := 2;
    reinit(x2, 0.5 * (u.y - y));
  elsewhen y < limit then
    mode := 1;
    reinit(x2, 0);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 60, Tolerance = 1e-6, AbsTolerance = 1e-8,
                        MMO_Solver = QSS3, MMO_Output = {y, x2, mode, u.y}));
end hysdel;

// The machine of SNE 18/2 (Sol et al., the run-time model swap): a flywheel F
// (inertia J = 1) driven through a gear (ratio 1.8: the engine turns 1.8 times as
// fast as the flywheel and the gear multiplies the torque by 1.8) by Engine2, whose
// torque depends on its shaft's position, until the flywheel's speed passes 40;
// then Engine2 is swapped for Engine1, of constant torque 10. The seed does not give
// Engine2's torque law; here it is that of a single cylinder's power stroke once a
// revolution, T2 = meanT * (1 + sin(theta_e)) with theta_e = 1.8 * theta the engine's
// angle: mean meanT = 10, as the seed's Engine2 (README.md). Engine2's class needs
// the position (2 states: theta, w); Engine1's does not (1 state: w): the swap
// changes the number of states. After it, w grows linearly: w = 40 + 18 (t - t_swap).
model Engine1
  parameter Real J = 1, ratio = 1.8, T = 10;
  Real w(start = 0);
equation
  der(w) = ratio * T / J;
end Engine1;

model machine
  parameter Real J = 1, ratio = 1.8, meanT = 10;
  Real theta(start = 0), w(start = 0);
  Real torque;
equation
  torque = meanT * (1 + sin(ratio * theta));
  der(theta) = w;
  der(w) = ratio * torque / J;
algorithm
  when w > 40 then
    switch to Engine1(w = w);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 5, Tolerance = 1e-8, AbsTolerance = 1e-10,
                        MMO_Solver = QSS3, MMO_Output = {w}));
end machine;

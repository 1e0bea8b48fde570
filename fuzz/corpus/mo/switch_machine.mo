// The machine of SNE 18/2 (Sol et al., the run-time model swap): a flywheel F
// (inertia J = 1) driven through a gear G (ratio 1.8: the engine turns 1.8 times as
// fast as the flywheel, and the gear multiplies the engine's torque by 1.8) by an
// engine E: Engine2 until the flywheel's speed passes 40, then Engine1, of constant
// torque 10, in its place. The seed does not give Engine2's torque law; here it is
// that of one power stroke a revolution, T2 = meanT * (1 + sin(phi)) with phi the
// engine shaft's angle (mean meanT = 10, the seed's Engine2; README.md). Engine2
// needs the angle of the shaft, Engine1 does not: the swap removes a state.
// Each machine is a class of components (FlyWheel, Gear, an engine); the swap is a
// switch from one to the other, F's speed handed over: w = 40 + 18 (t - t_swap) after it.
model FlyWheel
  parameter Real J = 1;
  input Real tau;            // the torque on the flywheel
  Real w(start = 0);         // its speed
equation
  der(w) = tau / J;
end FlyWheel;

model Gear
  parameter Real ratio = 1.8;
  input Real tau_in, w_out;  // the engine's torque; the flywheel's speed
  output Real tau_out, w_in; // the torque on the flywheel; the engine's speed
equation
  tau_out = ratio * tau_in;
  w_in = ratio * w_out;
end Gear;

model Engine2
  parameter Real meanT = 10;
  input Real w;              // its shaft's speed
  Real phi(start = 0);       // its shaft's angle
  output Real tau;
equation
  der(phi) = w;
  tau = meanT * (1 + sin(phi));
end Engine2;

model Engine1
  parameter Real T = 10;
  input Real w;
  output Real tau;
equation
  tau = T;
end Engine1;

model Machine1 // the machine after the swap
  FlyWheel F;
  Gear G;
  Engine1 E;
equation
  connect(E.tau, G.tau_in);
  connect(G.tau_out, F.tau);
  connect(F.w, G.w_out);
  connect(G.w_in, E.w);
end Machine1;

model machine
  FlyWheel F;
  Gear G;
  Engine2 E;
equation
  connect(E.tau, G.tau_in);
  connect(G.tau_out, F.tau);
  connect(F.w, G.w_out);
  connect(G.w_in, E.w);
algorithm
  when F.w > 40 then
    switch to Machine1(F.w = F.w);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 5, Tolerance = 1e-8, AbsTolerance = 1e-10,
                        MMO_Solver = QSS3, MMO_Output = {F.w}));
end machine;

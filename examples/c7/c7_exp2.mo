// ARGESIM C7, experiment 2 (Leitner et al., SNE 18/2, eqs. (3)-(5)): the pendulum of
// c7.mo started at phi = -pi/6 with the damping d = 0.1. The start is past the pin
// (phi < phip = -pi/12), so the rope starts wrapped on it: the length starts short.
// The model is c7.mo's class, instantiated with these modifiers (c7.mo is found
// beside this file).
model c7_exp2
  c7 p(phi(start = -pi / 6), d = 0.1, len(start = p.ls));
  annotation(experiment(StartTime = 0, StopTime = 10, Tolerance = 1e-6, AbsTolerance = 1e-8,
                        MMO_Solver = QSS2, MMO_Output = {p.phi, p.v, p.len}));
end c7_exp2;

// ARGESIM comparison C7, the constrained pendulum, experiment 1 (SNE 18/2: Leitner et
// al. eqs. (1)-(5); Zauner, Judex & Schwarz §2.1 and §3). A damped pendulum of length
// l whose rope wraps round a pin at angle phip, distance lp from the pivot: while
// phi < phip it swings round the pin with the short length ls = l - lp.
//
// The state is the tangential velocity v = len·der(phi), as in the seed's Table 1
// models, so only the length jumps at a contact: v (the bob's speed) is continuous
// there, the angular velocity v/len is not. m·len·phi'' = -m·g·sin(phi) - d·len·phi'
// becomes, with len constant between contacts (examples/c7/README.md):
//   der(phi) = v/len,  der(v) = -g·sin(phi) - (d/m)·v.
// Eight contacts in [0, 10] (four shortenings, four lengthenings); the last, the rope
// leaving the pin for the fourth time, at about 6.7199 / 6.7204 (the seed's Table 1).
model c7
  parameter Real pi = 3.14159265358979323846;
  parameter Real m = 1.02, l = 1, lp = 0.7, g = 9.81;
  parameter Real d = 0.2, phip = -pi / 12;
  parameter Real ls = l - lp;
  Real phi(start = pi / 6), v(start = 0);
  discrete Real len(start = l);
equation
  der(phi) = v / len;
  der(v) = -g * sin(phi) - d / m * v;
algorithm
  when phi < phip then
    len := ls;
  elsewhen phi > phip then
    len := l;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 10, Tolerance = 1e-6, AbsTolerance = 1e-8,
                        MMO_Solver = QSS2, MMO_Output = {phi, v, len}));
end c7;

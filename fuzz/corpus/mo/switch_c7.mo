// ARGESIM C7, experiment 1 (see c7.mo and README.md), by model switching: two model
// classes, the long pendulum and the short one (the rope wrapped on the pin), each
// with the angle and the angular velocity as its states, and a switch at each
// contact from one class to the other (SNE 18/2, Leitner et al. §3.2, "switching
// models"; Zauner et al. §3, Mosilab's remove(L); add(K)). At a contact the angle
// and the bob's speed go on: the angular velocity is handed over scaled by the ratio
// of the lengths (w_short = w_long * l / ls), so the same 8 events as c7.mo's
// parameter switching.
model Short
  parameter Real m = 1.02, l = 1, lp = 0.7, g = 9.81, d = 0.2, phip = -3.14159265358979323846 / 12;
  parameter Real ls = l - lp;
  Real phi, w;
  Real len;
equation
  der(phi) = w;
  der(w) = -g / ls * sin(phi) - d / m * w;
  len = ls;
algorithm
  when phi > phip then
    switch to c7_switch(phi = phi, w = w * ls / l);
  end when;
end Short;

model c7_switch
  parameter Real m = 1.02, l = 1, lp = 0.7, g = 9.81, d = 0.2, phip = -3.14159265358979323846 / 12;
  parameter Real ls = l - lp;
  Real phi(start = 3.14159265358979323846 / 6), w(start = 0);
  Real len;
equation
  der(phi) = w;
  der(w) = -g / l * sin(phi) - d / m * w;
  len = l;
algorithm
  when phi < phip then
    switch to Short(phi = phi, w = w * l / ls);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 10, Tolerance = 1e-8, AbsTolerance = 1e-10,
                        MMO_Solver = QSS3, MMO_Output = {phi, len}));
end c7_switch;

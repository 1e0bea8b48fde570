// The string pendulum of SNE 18/2 (Nytsch-Geusen et al., "Continuous systems with
// structural dynamics", §5, Figs. 9-15; Leitner et al. §4): a point mass on a thread
// of length L, which is either stretched (class Pendulum: 2 states, the angle and the
// angular velocity) or slack (class Free: 4 states, the position and the velocity),
// the model switching between the two classes as the thread goes slack (its force
// drops below 0) and is stretched again (the distance reaches L). The maps between
// the state spaces are the seed's, corrected (examples/structure/README.md): the
// thread is stretched at x^2 + y^2 >= L^2, and the angular velocity handed over is
// (x*vy - y*vx)/L^2 - the tangential part of the velocity over L (the radial part is
// lost in the jerk of the thread; energy is not conserved there, as the seed says).
// Coordinates: pivot at the origin, y up; phi from the downward vertical,
// counter-clockwise; k: a linear damping of the velocity (per unit mass).

model Free
  parameter Real L = 1, g = 9.81, k = 0.1;
  Real x(start = 0), y(start = -1), vx(start = 0), vy(start = 0);
  discrete Real bound(start = 0);
equation
  der(x) = vx;
  der(y) = vy;
  der(vx) = -k * vx;
  der(vy) = -g - k * vy;
algorithm
  // Taut again where the distance reaches L moving outward: the thread jerks only
  // then. (Right after it goes slack the bob grazes the circle, x^2 + y^2 - L^2
  // leaving 0 at third order; QSS2's straight-line q crosses it at second order, and
  // the distance alone would find the thread taut a microsecond after it went
  // slack.)
  when x^2 + y^2 >= L^2 and x * vx + y * vy > 0 then
    switch to string_pendulum(phi = atan2(x, -y), w = (x * vy - y * vx) / L^2);
  end when;
end Free;

model string_pendulum
  parameter Real L = 1, g = 9.81, k = 0.1;
  Real phi(start = 0), w(start = 7);
  Real x, y, F;
  discrete Real bound(start = 1);
equation
  der(phi) = w;
  der(w) = -g / L * sin(phi) - k * w;
  x = L * sin(phi);
  y = -L * cos(phi);
  F = L * w^2 + g * cos(phi); // the thread's force per unit mass
algorithm
  when F < 0 then
    switch to Free(x = L * sin(phi), y = -L * cos(phi), vx = L * w * cos(phi), vy = L * w * sin(phi));
  end when;
  annotation(experiment(StartTime = 0, StopTime = 10, Tolerance = 1e-8, AbsTolerance = 1e-10,
                        MMO_Solver = QSS3, MMO_Output = {x, y, bound}));
end string_pendulum;

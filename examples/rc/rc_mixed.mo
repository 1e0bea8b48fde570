// Beltrame & Cellier §4.2 (Figs. 9-11): a source-resistor-capacitor circuit with a
// DEVS capacitor inside a classically integrated circuit. The capacitor is the
// seed's Fig. 10: Gain(1/C) -> Integrator (QSS), v = (1/C) integral of i; the rest
// of the circuit is Kirchhoff's law for the current, computed by the equations,
// which CVODE integrates (MMO_Solver = CVODE_BDF). The bridges of the seed's figures
// are the equations' ports: the capacitor's voltage reaches them as a series
// (the Interpolator), the current leaves them as series CVODE's interpolant gives
// (the sampler, without numerical differentiation). rc.mo is the same circuit all
// classical; `--method QSS3` runs this one all QSS.
model rc_mixed
  parameter Real R = 1000, C = 1e-6, V = 10, f = 50;
  cdevs.Gain invC(k = 1 / C);
  cdevs.Integrator cap(x0 = 0);
  Real i;
equation
  i = (V * sin(2 * pi * f * time) - cap.y) / R;
  connect(i, invC.u);
  connect(invC.y, cap.u);
  annotation(experiment(StartTime = 0, StopTime = 0.1, Tolerance = 1e-6, AbsTolerance = 1e-9,
                        MMO_Solver = CVODE_BDF, MMO_Output = {i, cap.y}));
end rc_mixed;

// The circuit of rc_mixed.mo all classical: the capacitor as der(v) = i/C, the whole
// model integrated by CVODE.
model rc
  parameter Real R = 1000, C = 1e-6, V = 10, f = 50;
  Real v(start = 0), i;
equation
  i = (V * sin(2 * pi * f * time) - v) / R;
  der(v) = i / C;
  annotation(experiment(StartTime = 0, StopTime = 0.1, Tolerance = 1e-6, AbsTolerance = 1e-9,
                        MMO_Solver = CVODE_BDF, MMO_Output = {i, v}));
end rc;

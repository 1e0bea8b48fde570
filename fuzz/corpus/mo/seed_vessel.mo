// The controlled liquid vessel of Vangheluwe's "Foundations of modelling and
// simulation" (the seed's detailed continuous view): temperature T and level l of
// a liquid in a vessel of cross-section A, filled or emptied at the rate phi and
// heated at the rate W, with the sensors is_low, is_high, is_cold, is_hot:
//   dT/dt = (1/l) [W/(c rho A) - phi (T - Tin)],   dl/dt = phi.
// The seed's phi (T - Tin) is the influent mixing in at Tin; emptying (phi < 0)
// takes liquid at T and leaves T alone, so that term counts only while filling
// (taken literally, the equation would heat the liquid as it drains).
// A controller (the when clauses, a discrete phase) cycles: fill to l_high with the
// heater off, heat until hot, drain to l_low, fill again. Each phase has a closed
// form (tests/test_hybrid.c): while filling, l (T - Tin) stays constant; while
// heating, T rises by W/(c rho A l) per second.
model vessel
  parameter Real A = 1, c = 4186, rho = 1000, Tin = 15;
  parameter Real l_low = 0.2, l_high = 1, T_cold = 20, T_hot = 60;
  parameter Real phi_fill = 0.01, phi_drain = 0.02, W_heat = 1e6;
  discrete Real phase(start = 1); // 1 fill, 2 heat, 3 drain
  Real T(start = 60), l(start = 0.2);
  Real phi, W, is_low, is_high, is_cold, is_hot;
equation
  phi = if phase < 1.5 then phi_fill else if phase > 2.5 then -phi_drain else 0;
  W = if phase > 1.5 and phase < 2.5 then W_heat else 0;
  der(T) = (W / (c * rho * A) - max(phi, 0) * (T - Tin)) / l;
  der(l) = phi;
  is_low = if l < l_low then 1 else 0;
  is_high = if l > l_high then 1 else 0;
  is_cold = if T < T_cold then 1 else 0;
  is_hot = if T > T_hot then 1 else 0;
algorithm
  when is_high > 0.5 and phase < 1.5 then
    phase := 2;
  end when;
  when is_hot > 0.5 and phase > 1.5 and phase < 2.5 then
    phase := 3;
  end when;
  when is_low > 0.5 and phase > 2.5 then
    phase := 1;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 1000, Tolerance = 1e-8, AbsTolerance = 1e-10,
                        MMO_Solver = QSS3, MMO_Output = {T, l, phase, is_cold}));
end vessel;

// A buck converter in discontinuous conduction: source U, a switch driven at
// f = 1/T with duty D, a free-wheeling diode, the inductor L, and the output
// capacitor C across the load R. Switch and diode are resistances that take Ron or
// Roff, so each mode is a linear circuit; their changes are events.
//
// With L < (1 - D)·R·T/2 the inductor current falls to 0 every period, and the
// steady output is U·2/(1 + sqrt(1 + 4K/D²)) with K = 2L/(R·T): 15.74 V here.
// The diode is what makes it hard: when it turns off, the inductor current has a
// time constant L/Roff of a nanosecond. LIQSS2 handles it in about 2,000 steps.
model buck
  parameter Real U = 24, L = 1e-4, C = 1e-4, R = 10;
  parameter Real T = 1e-4, D = 0.5, Ron = 1e-5, Roff = 1e5;
  Real iL(start = 0), vC(start = 0);
  Real vn;   // the node between switch, diode and inductor
  Real g;    // the diode's mode change: its current when on, its voltage when off
  discrete Real Rs(start = 1e-5), Rd(start = 1e5), on(start = 0);
  discrete Real period_start(start = 0), next_period(start = 1e-4);
equation
  vn = (U * Rd - iL * Rs * Rd) / (Rs + Rd);
  g = on * (-vn / Rd) + (1 - on) * (-vn);
  der(iL) = (vn - vC) / L;
  der(vC) = (iL - vC / R) / C;
algorithm
  when time > next_period then
    period_start := next_period;
    next_period := next_period + T;
    Rs := Ron;
  end when;
  when time - period_start - D * T > 0 then
    Rs := Roff;
  end when;
  when g > 0 then
    Rd := Ron;
    on := 1;
  elsewhen g < 0 then
    Rd := Roff;
    on := 0;
  end when;
  annotation(experiment(StartTime = 0, StopTime = 0.01, Tolerance = 1e-3,
                        AbsTolerance = 1e-3, MMO_Solver = LIQSS2, MMO_Output = {vC, iL}));
end buck;

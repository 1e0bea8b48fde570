// The flyback converter of flyback.mo as Beltrame & Cellier's hybrid system (§4.3,
// Fig. 12): the secondary capacitor is a DEVS capacitor, Gain(1/C) -> Integrator
// (QSS), and the rest -- the magnetizing inductance, the switch, the diode, the
// load -- is integrated classically by CVODE (MMO_Solver = CVODE_BDF). The
// capacitor's current, diode current minus load current, leaves the equations; its
// voltage comes back to them from the integrator.
model flyback_mixed
  parameter Real Vin = 12, Lm = 100e-6, N = 0.5, C = 20e-6, R = 20;
  parameter Real T = 20e-6, D = 0.4;
  cdevs.Gain invC(k = 1 / C);
  cdevs.Integrator cap(x0 = 0);
  Real iL(start = 0), ic;
  discrete Real s(start = 1), d(start = 0);
  discrete Real nextOff(start = 8e-6), nextOn(start = 20e-6);
equation
  der(iL) = s * Vin / Lm - d * cap.y / (N * Lm);
  ic = d * iL / N - cap.y / R;
  connect(ic, invC.u);
  connect(invC.y, cap.u);
algorithm
  when time > nextOff then
    s := 0;
    d := if iL > 0 then 1 else 0;
    nextOff := nextOff + T;
  end when;
  when time > nextOn then
    s := 1;
    d := 0;
    nextOn := nextOn + T;
  end when;
  when iL < 0 then
    d := 0;
    reinit(iL, 0);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 2e-3, Tolerance = 1e-6, AbsTolerance = 1e-8,
                        MMO_Solver = CVODE_BDF, MMO_Output = {cap.y, iL}));
end flyback_mixed;

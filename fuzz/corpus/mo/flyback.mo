// The flyback converter of Beltrame & Cellier (section 4.1), written as equations.
// README.md in this folder derives the three modes; here the switch s and the diode
// d are discrete variables set by time events and by the diode's current reaching 0.
model flyback
  parameter Real Vin = 12;       // input voltage (V)
  parameter Real Lm = 100e-6;    // magnetizing inductance, primary side (H)
  parameter Real N = 0.5;        // turns ratio Ns/Np
  parameter Real C = 20e-6;      // output capacitor (F)
  parameter Real R = 20;         // load (ohm)
  parameter Real T = 20e-6;      // switching period (s): 50 kHz
  parameter Real D = 0.4;        // duty cycle
  Real iL(start = 0), vC(start = 0);
  discrete Real s(start = 1), d(start = 0);
  discrete Real nextOff(start = 8e-6), nextOn(start = 20e-6);
equation
  der(iL) = s * Vin / Lm - d * vC / (N * Lm);
  der(vC) = d * iL / (N * C) - vC / (R * C);
algorithm
  when time > nextOff then      // the switch opens: the diode takes the current
    s := 0;
    d := if iL > 0 then 1 else 0;
    nextOff := nextOff + T;
  end when;
  when time > nextOn then       // the switch closes: the diode blocks
    s := 1;
    d := 0;
    nextOn := nextOn + T;
  end when;
  when iL < 0 then              // the transformer is empty: the diode blocks
    d := 0;
    reinit(iL, 0);
  end when;
  annotation(experiment(StartTime = 0, StopTime = 2e-3, Tolerance = 1e-3, AbsTolerance = 1e-5,
                        MMO_Solver = QSS3, MMO_Output = {vC, iL}));
end flyback;

// The pendulum clock of DEVSLib (SNE 18/2, Sanz, Urquia & Dormido, Fig. 5b): a
// continuous pendulum is the motor of a discrete-event clock. Each swing through the
// vertical is a tic (a second); sixty make a minute, sixty minutes an hour; MinValue and
// HourValue pass the minutes and hours on to the displays and to an alarm that rings
// at a set hour:minute. examples/hybrid/README.md derives the numbers.
//
// The pendulum swings at a large amplitude, theta0 = 0.5 rad (29 degrees), where its
// period is not the small-angle 2*pi*sqrt(l/g) but 4*sqrt(l/g)*K(sin(theta0/2)^2) (K the
// complete elliptic integral of the first kind, parameter m = k^2). Its length is set
// so that this is 2 s: a tic every second exactly,
//   l = g * (1 s / (2*K(sin(0.25)^2)))^2 = 0.9631810465010512 m  (scipy.special.ellipk),
// 3.1 % shorter than the small-angle seconds pendulum g/pi^2 = 0.9940 m, which at this
// amplitude would lose 56 s an hour (a clockmaker's "circular error").
// Released at rest from -theta0, it crosses the vertical first at T/4 = 0.5 s, then
// every T/2 = 1 s: tic k at t = k - 0.5 s, so the clock reads 01:01 at t = 3659.5 s.
//
// cdevs run examples/hybrid/pendulum_clock.mo --format long --out clock.csv
// cdevs run examples/hybrid/pendulum_clock.mo --stop 10 --vars p.theta,p.tic --out swing.csv

model Pendulum "a rigid pendulum released at rest from -theta0; tic toggles at each swing through the vertical"
  parameter Real g = 9.81, l = 1, theta0 = 0.5;
  output Real tic;
  Real theta(start = -theta0), omega(start = 0);
  // The escapement: a DEVS block that finds the zero crossings of theta as roots of its
  // polynomial and switches its output 0 -> 1 -> 0 at each one.
  cdevs.Comparator escapement(level = 0, low = 0, high = 1);
equation
  der(theta) = omega;
  der(omega) = -g / l * sin(theta);
  connect(theta, escapement.u);
  connect(escapement.y, tic);
end Pendulum;

model Counter "counts the events of ev (each change of its value) modulo n; carry counts the wraps"
  parameter Real n = 60;
  input Real ev;
  output Real value, carry;
  discrete Real v(start = 0), c(start = 0), seen(start = 0);
equation
  value = v;
  carry = c;
algorithm
  when ev > seen + 0.5 or ev < seen - 0.5 then
    seen := ev;
    v := if pre(v) + 1 > n - 0.5 then 0 else pre(v) + 1;
    c := if pre(v) + 1 > n - 0.5 then pre(c) + 1 else pre(c);
  end when;
end Counter;

// DEVSLib's MinValue and HourValue: a DEVSLib port could feed only one receiver, so a
// value going to two places went through a duplicator. cdevs connects one output to any
// number of inputs; they are kept to show the figure's structure.
model Duplicator "passes its input on to two outputs"
  input Real u;
  output Real y1, y2;
equation
  y1 = u;
  y2 = u;
end Duplicator;

model Display "shows the last value received"
  input Real u;
  discrete Real shown(start = 0);
algorithm
  when u > shown + 0.5 or u < shown - 0.5 then
    shown := u;
  end when;
end Display;

model Alarm "rings when the clock reads hour:minute; `at` is when"
  parameter Real hour = 7, minute = 0;
  input Real h, m;
  discrete Real ring(start = 0), at(start = -1);
algorithm
  when h > hour - 0.5 and h < hour + 0.5 and m > minute - 0.5 and m < minute + 0.5 then
    ring := 1;
    at := time;
  end when;
end Alarm;

model pendulum_clock
  Pendulum p(theta0 = 0.5, l = 0.9631810465010512, g = 9.81);
  Counter seconds(n = 60), minutes(n = 60), hours(n = 24);
  Duplicator minValue, hourValue;
  Display minDisplay, hourDisplay;
  Alarm alarm(hour = 1, minute = 1);
equation
  connect(p.tic, seconds.ev);
  connect(seconds.carry, minutes.ev);
  connect(minutes.carry, hours.ev);
  connect(minutes.value, minValue.u);
  connect(hours.value, hourValue.u);
  connect(minValue.y1, minDisplay.u);
  connect(minValue.y2, alarm.m);
  connect(hourValue.y1, hourDisplay.u);
  connect(hourValue.y2, alarm.h);
  // Tolerance 1e-7: the tic times stay within 0.17 s of the exact ones to the end
  // (examples/hybrid/README.md bounds the drift), so every count is exact.
  annotation(experiment(StartTime = 0, StopTime = 3690, Tolerance = 1e-7, AbsTolerance = 1e-10,
                        MMO_Solver = QSS3,
                        MMO_Output = {seconds.v, minutes.v, hours.v, minDisplay.shown, hourDisplay.shown,
                                      alarm.ring, alarm.at}));
end pendulum_clock;

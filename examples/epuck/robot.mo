// SPDX-License-Identifier: MIT
// The e-puck robot (Urquia et al., Fig. 4-5): a differential-drive robot in a walled
// box of L x H cm, driven by motor commands that arrive over UDP (port 50941: 1 Stop,
// 2 Forward, 3 TurnLeft, 4 TurnRight; see controller.mo), sending its eight infrared
// distances every 0.05 s to the controller (port 50942).
//   x' = v cos(theta), y' = v sin(theta), theta' = w;
//   v = V forward, else 0; w = +W turning left, -W turning right, else 0.
// Sensor i looks along theta + a[i] (the e-puck's IR0..IR7, IR0 front right at -17
// degrees, IR7 front left at +17); it reads the distance from the robot's rim (radius r)
// to the first wall along that ray, at most `range`.
model robot "the e-puck: kinematics, infrared sensors, UDP in and out"
  parameter Real L = 100, H = 60 "the box, cm";
  parameter Real r = 3.5 "the robot's radius, cm";
  parameter Real V = 10 "cm/s", W = 1.5 "rad/s";
  parameter Real range = 10 "cm: what an infrared sensor sees at most";
  parameter Real period = 0.05 "s between sensor datagrams";
  parameter Real a[8] = {-0.3, -0.8, -1.5708, -2.64, 2.64, 1.5708, 0.8, 0.3};
  cdevs.UDPReceive cmd(host = "127.0.0.1", port = 50941, n = 1);
  cdevs.UDPSend sense(host = "127.0.0.1", port = 50942, n = 8);
  Real x(start = 20), y(start = 30), theta(start = 0.3);
  Real motor, v, w;
  Real cx[8], cy[8], ir[8];
  discrete Real s[8], c(start = 0);
equation
  connect(cmd.y1, motor);
  v = if motor > 1.5 and motor < 2.5 then V else 0;
  w = if motor > 2.5 and motor < 3.5 then W elseif motor > 3.5 and motor < 4.5 then -W else 0;
  der(x) = v * cos(theta);
  der(y) = v * sin(theta);
  der(theta) = w;
  for i in 1:8 loop
    cx[i] = cos(theta + a[i]);
    cy[i] = sin(theta + a[i]);
    ir[i] = min(range, min(if cx[i] > 1e-9 then (L - x) / cx[i] elseif cx[i] < -1e-9 then -x / cx[i] else 1e9,
                           if cy[i] > 1e-9 then (H - y) / cy[i] elseif cy[i] < -1e-9 then -y / cy[i] else 1e9) - r);
  end for;
  connect(c, sense.c);
  connect(s[1], sense.u1); connect(s[2], sense.u2); connect(s[3], sense.u3); connect(s[4], sense.u4);
  connect(s[5], sense.u5); connect(s[6], sense.u6); connect(s[7], sense.u7); connect(s[8], sense.u8);
algorithm
  when sample(0, period) then
    for i in 1:8 loop
      s[i] := ir[i];
    end for;
    c := 1 - pre(c);
  end when;
  annotation(experiment(StopTime = 40, MMO_Output = {x, y, theta, motor}));
end robot;

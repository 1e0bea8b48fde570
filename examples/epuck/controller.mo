// SPDX-License-Identifier: MIT
// The e-puck's obstacle-avoiding controller (Urquia et al., Fig. 5): a DEVS graph that
// reacts to the robot's sensor data (UDP port 50942, eight infrared distances in cm)
// and sends motor commands (UDP port 50941, one value). Run it beside robot.mo:
//   cdevs run examples/epuck/robot.mo --realtime=10 &
//   cdevs run examples/epuck/controller.mo --realtime=10
//
// Motor commands, the mapping the seed leaves open (its values 1..6):
//   1 Stop, 2 Forward, 3 TurnLeft, 4 TurnRight; 5 and 6 are not sent (the robot takes
//   them, and anything else, as Stop).
// The trigger (UDPLib's ExternalTransition_Trigger on the sensor data): clearSpace =
// min(IR0, IR1, IR6, IR7) > delta, the four front sensors. Blocked, the robot turns to
// the side whose front sensors see more room (IR6 + IR7 left, IR0 + IR1 right), and a
// turn ends only when the front is clear: then a short stop, then forward again.

graph Avoid
  input s;   // 0: the front is clear; 1: blocked, more room on the left; 2: on the right
  input n;   // sensor datagrams received so far
  output motor;
  initial phase Start;   // until the robot is heard from (its command port is open then)
  phase Begin(lifetime = 0);
  phase Forward;
  phase GoL(lifetime = 0);
  phase GoR(lifetime = 0);
  phase TurnL;
  phase TurnR;
  phase Halt(lifetime = 0);
  phase Stop(lifetime = 0.2);
  external Start -> Begin when n > 0;
  internal Begin -> Forward output motor!2;
  external Forward -> GoL when s?1;
  external Forward -> GoR when s?2;
  internal GoL -> TurnL output motor!3;
  internal GoR -> TurnR output motor!4;
  external TurnL -> Halt when s?0;
  external TurnR -> Halt when s?0;
  internal Halt -> Stop output motor!1;
  internal Stop -> Forward output motor!2;
end Avoid;

model controller "the e-puck's controller: a DEVS graph between two UDP ports"
  parameter Real delta = 4 "cm: the front is clear when its four sensors see farther";
  cdevs.UDPReceive sense(host = "127.0.0.1", port = 50942, n = 8);
  cdevs.UDPSend cmd(host = "127.0.0.1", port = 50941, n = 1);
  Avoid ctl;
  discrete Real seen(start = 0), front(start = 0), code(start = 0);
equation
  connect(code, ctl.s);
  connect(seen, ctl.n);
  connect(ctl.motor, cmd.u1);
  connect(ctl.motor, cmd.c);   // a datagram at each new command
algorithm
  when sense.count > seen + 0.5 then   // each sensor datagram
    seen := sense.count;
    front := min(min(sense.y1, sense.y2), min(sense.y7, sense.y8));
    code := if front > delta then 0 elseif sense.y7 + sense.y8 > sense.y1 + sense.y2 then 1 else 2;
  end when;
  annotation(experiment(StopTime = 40, MMO_Output = {ctl.motor, code, front, seen}));
end controller;

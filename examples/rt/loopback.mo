// SPDX-License-Identifier: MIT
// UDPLib's example (Urquia et al., Fig. 3): c = sin(w t) > 0 toggles at t = k pi / w,
// and at each toggle v = {t, 2t, 3t} is sent over UDP to 127.0.0.1; a receiving block
// in the same model gets each datagram as an event (rx.y1..rx.y3, rx.count).
//   cdevs run examples/rt/loopback.mo --realtime=20
// (The seed uses port 5000; this one is less likely to be taken.)
model loopback "UDPLib's loopback: sin(w t) > 0 sends {t, 2t, 3t} to itself"
  parameter Real w = 10;
  discrete Real c(start = 0) "sin(w t) > 0";
  discrete Real v1, v2, v3 "the values sent: t, 2t, 3t at the toggle";
  cdevs.UDPSend tx(host = "127.0.0.1", port = 50917, n = 3);
  cdevs.UDPReceive rx(host = "127.0.0.1", port = 50917, n = 3);
equation
  connect(c, tx.c);
  connect(v1, tx.u1);
  connect(v2, tx.u2);
  connect(v3, tx.u3);
algorithm
  when sin(w * time) > 0 then
    c := 1;
    v1 := time;
    v2 := 2 * time;
    v3 := 3 * time;
  elsewhen sin(w * time) < 0 then
    c := 0;
    v1 := time;
    v2 := 2 * time;
    v3 := 3 * time;
  end when;
  annotation(experiment(StopTime = 2, MMO_Output = {c, v1, rx.count, rx.y1, rx.y2, rx.y3}));
end loopback;

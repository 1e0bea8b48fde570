// SPDX-License-Identifier: MIT
// Vangheluwe's controlled liquid vessel (Foundations of Modelling and Simulation, the
// "System under study: T, h controlled liquid"): the detailed continuous view
//   dT/dt = (1/l) [W/(c rho A) - phi (T - Tin)],  dl/dt = phi,
// its four sensors is_low = (l < l_low), is_high = (l > l_high), is_cold = (T < T_cold),
// is_hot = (T > T_hot) as discrete variables set by when clauses, a controller graph
// driven by them, and the high-abstraction-level (FSA) view of the controlled vessel as
// a DEVS graph driven by the same sensor events, on which properties are verified:
//   cdevs graph vessel.mo --verify --never vessel.Empty_On --never vessel.Partial_On \
//     --always-reaches vessel.Empty_Off --always-reaches ctl.Idle
//
// Parameters (ours, in scaled units so that a batch takes tens of seconds): A = 1,
// c = 1, rho = 1, Tin = 20, l_low = 1, l_high = 4, T_cold = 30, T_hot = 60; the
// controller fills and drains at 0.5 and heats with W = 8 (2 degrees per second at
// l = 4). The liquid starts at l = 0.5, T = 20. phi = fill - drain: the mixing term
// uses the inflow only (fill), since liquid leaving at T does not change T; with
// drain = 0 this is the seed's equation.
//
// A batch: Idle 5 s; Filling until is_high; Heating (fill = drain = 0) until is_hot;
// Draining until is_low; Idle again.
model Vessel
  graph Controller
    input low, high, hot;
    output fill, drain, w;
    initial phase Idle(lifetime = 5);
    phase Filling, Heating, Draining;
    phase StartHeat(lifetime = 0), StartDrain(lifetime = 0), StopDrain(lifetime = 0);
    internal Idle -> Filling output fill!0.5;
    external Filling -> StartHeat when high?1;
    internal StartHeat -> Heating output fill!0, w!8;
    external Heating -> StartDrain when hot?1;
    internal StartDrain -> Draining output w!0, drain!0.5;
    external Draining -> StopDrain when low?1;
    internal StopDrain -> Idle output drain!0;
  end Controller;

  // The FSA view of the controlled vessel: level region (Empty: l < l_low, Partial,
  // Full: l > l_high) x heater (On, Off), moved by the sensor events. It is derived
  // from the equations under the controller's law: the heater goes on as the level
  // crosses l_high (Partial_Off -> Full_On) and off at is_hot; while heating
  // fill = drain = 0, so dl/dt = 0 and Full_On has no level event. Empty_On and
  // Partial_On (the heater on below full) are drawn with the moves the physics allows
  // in them; the verification shows no transition leads into them from Empty_Off.
  graph VesselFSA
    input low, high, hot;
    initial phase Empty_Off;
    phase Partial_Off, Full_On, Full_Off, Partial_On, Empty_On;
    external Empty_Off -> Partial_Off when low?0;
    external Partial_Off -> Empty_Off when low?1;
    external Partial_Off -> Full_On when high?1;
    external Full_On -> Full_Off when hot?1;
    external Full_Off -> Partial_Off when high?0;
    external Empty_On -> Partial_On when low?0;
    external Partial_On -> Empty_On when low?1;
    external Partial_On -> Full_On when high?1;
    external Empty_On -> Empty_Off when hot?1;
    external Partial_On -> Partial_Off when hot?1;
  end VesselFSA;

  parameter Real A = 1, c = 1, rho = 1, Tin = 20;
  parameter Real l_low = 1, l_high = 4, T_cold = 30, T_hot = 60;
  Controller ctl;
  VesselFSA vessel;
  Real T(start = 20), l(start = 0.5);
  discrete Real is_low(start = 1), is_high(start = 0), is_cold(start = 1), is_hot(start = 0);
equation
  der(T) = (ctl.w / (c * rho * A) - ctl.fill * (T - Tin)) / l;
  der(l) = ctl.fill - ctl.drain;
  connect(is_low, ctl.low);
  connect(is_high, ctl.high);
  connect(is_hot, ctl.hot);
  connect(is_low, vessel.low);
  connect(is_high, vessel.high);
  connect(is_hot, vessel.hot);
algorithm
  when l < l_low then
    is_low := 1;
  end when;
  when l > l_low then
    is_low := 0;
  end when;
  when l > l_high then
    is_high := 1;
  end when;
  when l < l_high then
    is_high := 0;
  end when;
  when T < T_cold then
    is_cold := 1;
  end when;
  when T > T_cold then
    is_cold := 0;
  end when;
  when T > T_hot then
    is_hot := 1;
  end when;
  when T < T_hot then
    is_hot := 0;
  end when;
  annotation(experiment(StopTime = 100));
end Vessel;

model Tank
  graph Pump
    input level;
    output q;
    parameter Real delay = 0.5;
    Integer starts = 0;
    initial phase Off;
    phase Starting(lifetime = delay), On, Stopping(lifetime = 0);
    internal Starting -> On output q!1 then starts := starts + 1;
    internal Stopping -> Off output q!0;
    external Off -> Starting when level?1 and starts < 10;
    external On -> Stopping when level?0 or elapsed > 3;
    confluence internal external;
  end Pump;
  Pump pump(delay = 0.25);
  Real h(start = 1);
  discrete Real low(start = 0);
equation
  der(h) = pump.q - 0.5;
  connect(low, pump.level);
algorithm
  when h < 0.5 then
    low := 1;
  end when;
  when h > 1.5 then
    low := 0;
  end when;
end Tank;

model Tank
  parameter Real area = 1, k = 0.5;
  input Real qin;
  output Real qout;
  Real h(start = 1);
equation
  der(h) = (qin - qout) / area;
  qout = k * sqrt(h);
end Tank;
model Cascade
  parameter Real a = 1;
  input Real qin;
  output Real qout;
  Tank upper(area = a, h(start = 2));
  Tank lower(k = 0.25);
equation
  connect(qin, upper.qin);
  connect(upper.qout, lower.qin);
  connect(lower.qout, qout);
end Cascade;

model plant
  Cascade c(a = 2, upper(k = 1), lower(h(start = 3)));
  cdevs.Constant src(value = 0.3);
  Real total;
equation
  connect(src.y, c.qin);
  total = c.upper.h + c.lower.h;
  annotation(experiment(StopTime = 200, MMO_Output = {c.upper.h, c.lower.h, c.qout, total}));
end plant;

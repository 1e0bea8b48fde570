model LinTank
  parameter Real area = 1, k = 0.5;
  input Real qin;
  output Real qout;
  Real h(start = 1);
equation
  der(h) = (qin - qout) / area;
  qout = k * h;
end LinTank;

model arr
  parameter Integer N = 3;
  LinTank t[N](area = {1, 2, 4}, h(start = 0));
  cdevs.Constant src(value = 1);
equation
  connect(src.y, t[1].qin);
  for i in 1:N - 1 loop
    connect(t[i].qout, t[i + 1].qin);
  end for;
  annotation(experiment(StopTime = 50, MMO_Output = {t.h}));
end arr;

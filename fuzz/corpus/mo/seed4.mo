model diagram
  cdevs.Integrator x(method = QSS3, x0 = 1);
  cdevs.Gain k(k = -1);
equation
  connect(x.y, k.u);
  connect(k.y, x.u);
end diagram;

// An open Jackson network of three single-server stations. Jobs arrive at station 1
// (rate gamma = 1), go on to station 2 or 3 with probability 1/2 each; from station 2
// a quarter return to station 1, the rest leave; station 3's leave.
// Traffic equations: l1 = gamma + l2/4, l2 = l3 = l1/2, so l1 = 8/7, l2 = l3 = 4/7.
// Jackson's theorem: each station is an M/M/1 queue, rho_i = l_i/mu_i, L_i =
// rho_i/(1 - rho_i): with mu = (2, 1.5, 1), L = (4/3, 8/13, 4/3), 128/39 in all, and
// by Little's law a job spends W = L/gamma = 128/39 in the network.
model Jackson "three-station open Jackson network"
  parameter Real gamma = 1, mu1 = 2, mu2 = 1.5, mu3 = 1;
  cdevs.Create arrive(interarrival = Exponential(1 / gamma), entity_type = "Job");
  cdevs.Resource m1, m2, m3;
  cdevs.Process s1(resource = m1, delay = Exponential(1 / mu1));
  cdevs.Process s2(resource = m2, delay = Exponential(1 / mu2));
  cdevs.Process s3(resource = m3, delay = Exponential(1 / mu3));
  cdevs.Decide after1(chance = {50});
  cdevs.Decide after2(chance = {25});
  cdevs.Dispose leave;
equation
  connect(arrive.out, s1.in);
  connect(s1.out, after1.in);
  connect(after1.out1, s2.in);
  connect(after1.out2, s3.in);
  connect(s2.out, after2.in);
  connect(after2.out1, s1.in);
  connect(after2.out2, leave.in);
  connect(s3.out, leave.in);
  annotation(experiment(StopTime = 50000));
end Jackson;

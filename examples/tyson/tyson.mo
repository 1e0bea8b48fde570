// Tyson's cell-cycle model (J. J. Tyson, "Modeling the cell division cycle: cdc2 and
// cyclin interactions", PNAS 88, 1991): cdc2 (C2), its phosphorylated form (CP), the
// cyclin-cdc2 dimers, inactive (pM) and active MPF (M), cyclin (Y) and its
// phosphorylated form (YP). The paper's rate constants, with k2 = k5 = 0 and the
// amino-acid pool folded into k1; total cdc2 (C2 + CP + pM + M) is conserved.
//
// C2 and CP exchange a millionfold faster than anything else moves (k8 = 1e6, k9 = 1e3):
// a stiff pair whose stiffness lies off the diagonal. LIQSS, placing one q at a time,
// resolves it only by alternating steps of the two; mLIQSS2 places them together.
model tyson
  parameter Real k1 = 0.015, k3 = 200, k4 = 180, k4prim = 0.018;
  parameter Real k6 = 1, k7 = 0.6, k8 = 1e6, k9 = 1e3;
  Real C2(start = 0), CP(start = 0.75), pM(start = 0.25), M(start = 0);
  Real Y(start = 0), YP(start = 0);
  Real CT, F;
equation
  CT = C2 + CP + pM + M;
  F = k4prim + k4 * (M / CT)^2;
  der(C2) = k6 * M - k8 * C2 + k9 * CP;
  der(CP) = -k3 * CP * Y + k8 * C2 - k9 * CP;
  der(pM) = k3 * CP * Y - pM * F;
  der(M) = pM * F - k6 * M;
  der(Y) = k1 - k3 * CP * Y;
  der(YP) = k6 * M - k7 * YP;
  annotation(experiment(StartTime = 0, StopTime = 100, Tolerance = 1e-3, AbsTolerance = 1e-6,
                        MMO_Solver = mLIQSS2, MMO_Output = {C2, CP, pM, M, Y, YP}));
end tyson;

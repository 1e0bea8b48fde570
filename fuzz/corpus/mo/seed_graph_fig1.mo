// SPDX-License-Identifier: MIT
// Fig. 1 of Urquia, Martin-Villalba, Moallemi & Wainer, "DEVS graph in Modelica for
// real-time simulation": S1 is the initial phase; an event pI = 1 in S1 returns to S1,
// pI = 2 goes to S2; when S2's lifetime ends the graph sends pO = 2 and goes back to S1.
// The figure's lifetimes are not in the text: S1 waits for input (lifetime = inf; a
// finite one would need an internal transition out of S1, which the figure does not
// draw) and S2 lasts 2.5. The counter n (how often pI = 1 was taken) is ours.
//
// Src drives pI: 1 at t = 1, 3 at 2, 2 at 3, 1 at 4, 2 at 5.5, 1 at 7, then again from
// t = 8. The 2 at 5.5 arrives as S2's lifetime ends (3 + 2.5): GGADLib's confluence rule
// runs only the internal transition and drops it. fig1.trace.csv is the trace
// (cdevs graph fig1.mo --trace) derived by hand from these rules.
model Fig1
  graph Ctl
    input pI;
    output pO;
    Integer n = 0;
    initial phase S1(lifetime = inf);
    phase S2(lifetime = 2.5);
    internal S2 -> S1 output pO!2;
    external S1 -> S1 when pI?1 then n := n + 1;
    external S1 -> S2 when pI?2;
  end Ctl;

  graph Src
    output y;
    initial phase W0(lifetime = 1);
    phase W1(lifetime = 1), W2(lifetime = 1), W3(lifetime = 1), W4(lifetime = 1.5), W5(lifetime = 1.5);
    internal W0 -> W1 output y!1;
    internal W1 -> W2 output y!3;
    internal W2 -> W3 output y!2;
    internal W3 -> W4 output y!1;
    internal W4 -> W5 output y!2;
    internal W5 -> W0 output y!1;
  end Src;

  Src src;
  Ctl ctl;
equation
  connect(src.y, ctl.pI);
  annotation(experiment(StopTime = 9.5));
end Fig1;

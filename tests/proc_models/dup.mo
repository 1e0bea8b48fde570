// Six parts (t = 0..5) batched in pairs for good (Permanent): each pair leaves the
// system and a new "Pair" entity goes on, which a Separate copies twice. In: 6 parts,
// 3 pairs, 6 copies = 15, all out; a part waits 1 or 0 for its partner: 0.5 on average.
// Each part's w is set to 1 and then 1 is added: the pairs' w, the Sum, is 2 + 2 = 4.
model Dup
  cdevs.Entity Pair;  // declared first: reported before Part
  cdevs.Create arrive(interarrival = 1, max_arrivals = 6, entity_type = "Part");
  cdevs.Assign mark(attr = w, value = 1);
  cdevs.Assign more(attr = w, value = 1, mode = Add);
  cdevs.Batch pair(size = 2, kind = Permanent, save = Sum, entity_type = "Pair");
  cdevs.Separate copy(mode = Duplicate, duplicates = 2);
  cdevs.Record wsum(kind = Attribute, attr = w);
  cdevs.Dispose leave;
equation
  connect(arrive.out, mark.in); connect(mark.out, more.in); connect(more.out, pair.in);
  connect(pair.out, copy.in); connect(copy.out, wsum.in); connect(copy.dup, wsum.in); connect(wsum.out, leave.in);
  annotation(experiment(StopTime = 10));
end Dup;

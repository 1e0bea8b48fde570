// A variable: five in stock, one taken per arrival (t = 0, 1, ..., 7) while stock > 0:
// 5 sold, 3 refused; the stock is 4, 3, 2, 1 on [0,1), ..., [3,4) and 0 after: its time
// average over [0, 10] is (4 + 3 + 2 + 1)/10 = 1.
model Stock
  cdevs.Variable stock(value = 5);
  cdevs.Create arrive(interarrival = 1, max_arrivals = 8);
  cdevs.Decide has(condition = {stock > 0});
  cdevs.Assign take(variable = stock, value = -1, mode = Add);
  cdevs.Record sold;
  cdevs.Record refused;
  cdevs.Dispose d1;
  cdevs.Dispose d2;
equation
  connect(arrive.out, has.in); connect(has.out1, take.in); connect(take.out, sold.in); connect(sold.out, d1.in);
  connect(has.out2, refused.in); connect(refused.out, d2.in);
  annotation(experiment(StopTime = 10));
end Stock;

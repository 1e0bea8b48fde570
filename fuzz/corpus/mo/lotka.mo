// Predator and prey. V = c·x - d·ln x + b·y - a·ln y stays constant along exact solutions.
model lotka
  parameter Real a = 0.1, b = 0.1, c = 0.1, d = 0.1;
  Real x(start = 0.5), y(start = 0.5);
equation
  der(x) = a * x - b * x * y;
  der(y) = c * x * y - d * y;
  annotation(experiment(StartTime = 0, StopTime = 300, Tolerance = 1e-6, AbsTolerance = 1e-9,
                        MMO_Solver = QSS3, MMO_Output = {x, y}));
end lotka;

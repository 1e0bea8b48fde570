model m /* c */
  constant Integer N = 3;
  Real u[N, N], 'q r';
  parameter Real k = if N > 2 then 1.5 else -2;
  discrete Real d(start = 1);
equation
  for i in 1:N, j in 1:N loop
    der(u[i, j]) = -k * u[i, j] + (if time > 1 and not (i == j) then 1 else 0);
  end for;
  der('q r') = sin(time)^2 - 'q r'; // tail
algorithm
  for i in 1:N loop
    when u[i, 1] > 30 then
      reinit(u[i, 1], 0);
      d := pre(d) + 1;
    end when;
  end for;
  if d > 2 then d := 0; elseif d < 0 then d := 1; else d := d; end if;
end m;

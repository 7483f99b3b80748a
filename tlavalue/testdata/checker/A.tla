---- MODULE A ----
EXTENDS Naturals, Sequences
CONSTANT M
VARIABLES b, i, s, mv, t, st, r, f, e, es, ef, neg, nested, sq
Init ==
  /\ b = TRUE
  /\ i = 42
  /\ neg = -3
  /\ s = "hello"
  /\ mv = M
  /\ t = <<1, "x", FALSE>>
  /\ st = {3, 1, 2}
  /\ r = [a |-> 1, b |-> "two"]
  /\ f = [x \in {"k", "j"} |-> x]
  /\ e = <<>>
  /\ es = {}
  /\ ef = (2 :> "a" @@ 5 :> "b")
  /\ nested = {<<1, [q |-> {M}]>>}
  /\ sq = [n \in 1..3 |-> n * n]
Next == UNCHANGED <<b, i, s, mv, t, st, r, f, e, es, ef, neg, nested, sq>>
====

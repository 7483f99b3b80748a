---- MODULE Values ----
\* Variables of every kind TLC prints, long enough to be wrapped.
EXTENDS Integers, Sequences, TLC
CONSTANTS a, b, c
VARIABLES n, str, mv, seq, set, rec, fn, sfn, nested, empty, intv, step

Init ==
  /\ n = -7
  /\ str = "q\"uote \\ back\nnl\ttab"
  /\ mv = a
  /\ seq = <<1, "two", a, <<>>, {}>>
  /\ set = {b, a, c}
  /\ rec = [name |-> "resume", count |-> 0, flags |-> {TRUE, FALSE}, owner |-> a]
  /\ fn = (2 :> "x" @@ 5 :> "y" @@ 0 :> "z")
  /\ sfn = ("a b" :> 1 @@ "c" :> 2)
  /\ nested = [p \in {a, b, c} |-> [q \in 1..3 |-> <<p, q, "some padding text">>]]
  /\ empty = [x \in {} |-> x]
  /\ intv = 1..3
  /\ step = 0

Send(m) == /\ step < 3
           /\ step' = step + 1
           /\ n' = n + 1
           /\ set' = set \ {m}
           /\ UNCHANGED <<str, mv, seq, rec, fn, sfn, nested, empty, intv>>

Next == \E m \in {a, b} : Send(m)

Small == step < 2
====

---- MODULE Eval ----
EXTENDS Naturals, TLC
VARIABLE x
f == [i \in 1..2 |-> i]
Init == x = 1
Next == x' = f[x + 1]
====

---- MODULE Lasso ----
\* A cycle 0 -> 1 -> 2 -> 1 that never reaches 3: a lasso counterexample.
EXTENDS Naturals
VARIABLE x
Init == x = 0
Up == x < 2 /\ x' = x + 1
Down == x = 2 /\ x' = 1
Next == Up \/ Down
Spec == Init /\ [][Next]_x /\ WF_x(Next)
Reach == <>(x = 3)
====

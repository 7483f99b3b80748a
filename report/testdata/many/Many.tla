-------------------------------- MODULE Many --------------------------------
(* A counter with nine actions, each a step up that records which one     *)
(* took it: more actions than the seven looks a graph's legend starts     *)
(* with, so that a test sees each action still drawn its own way.         *)
EXTENDS Naturals

CONSTANT Max

VARIABLES
    x,     \* the counter
    last   \* which action took the last step (0 before any)

vars == <<x, last>>

\* Every variable holds a value of its type.
TypeOK == x \in 0..Max /\ last \in 0..9

Init == x = 0 /\ last = 0

A1 == x < Max /\ x' = x + 1 /\ last' = 1
A2 == x < Max /\ x' = x + 1 /\ last' = 2
A3 == x < Max /\ x' = x + 1 /\ last' = 3
A4 == x < Max /\ x' = x + 1 /\ last' = 4
A5 == x < Max /\ x' = x + 1 /\ last' = 5
A6 == x < Max /\ x' = x + 1 /\ last' = 6
A7 == x < Max /\ x' = x + 1 /\ last' = 7
A8 == x < Max /\ x' = x + 1 /\ last' = 8
A9 == x < Max /\ x' = x + 1 /\ last' = 9

Next == A1 \/ A2 \/ A3 \/ A4 \/ A5 \/ A6 \/ A7 \/ A8 \/ A9

Spec == Init /\ [][Next]_vars
=============================================================================

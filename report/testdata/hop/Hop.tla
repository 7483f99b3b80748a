-------------------------------- MODULE Hop ---------------------------------
(* A counter that climbs to Max, and may fall into a trap at 1 from which *)
(* it never gets there: a small spec for the explorer of any spec, with   *)
(* two initial states, an invariant that the top violates, and a         *)
(* liveness goal that the trap makes unreachable.                         *)
EXTENDS Naturals

CONSTANT Max

VARIABLES
    x,        \* the counter
    trapped   \* whether it fell into the trap

vars == <<x, trapped>>

Init == x \in {0, 1} /\ trapped = FALSE

Up ==
    /\ ~trapped
    /\ x < Max
    /\ x' = x + 1
    /\ UNCHANGED trapped

Trap ==
    /\ ~trapped
    /\ x = 1
    /\ trapped' = TRUE
    /\ UNCHANGED x

Next == Up \/ Trap

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)

BelowTop == x < Max

Done == x = Max

Liveness == <>Done
=============================================================================

------------------------------- MODULE Spin --------------------------------
(* A counter that climbs to 2 and may fall back to 1 for ever instead of   *)
(* finishing: its liveness counterexample is a lasso (a loop, not a state  *)
(* with no successor), for the tests of the pages' lasso and their         *)
(* changes inside a record.                                                *)
EXTENDS Naturals

VARIABLES
    x,   \* the counter
    r    \* where it is and whether it ever fell back

vars == <<x, r>>

Init == x = 0 /\ r = [pos |-> 0, back |-> FALSE]

Up ==
    /\ x < 2
    /\ x' = x + 1
    /\ r' = [r EXCEPT !.pos = x + 1]

Down ==
    /\ x = 2
    /\ x' = 1
    /\ r' = [r EXCEPT !.pos = 1, !.back = TRUE]

Finish ==
    /\ x = 2
    /\ x' = 3
    /\ UNCHANGED r

Next == Up \/ Down \/ Finish

Spec == Init /\ [][Next]_vars /\ WF_vars(Next)

Done == x = 3

Liveness == <>Done
=============================================================================

-------------------------------- MODULE Ring --------------------------------
(***************************************************************************)
(* A token passed around a ring of N processes, at most MaxPasses times   *)
(* before the ring resets.  A small spec with no Go mirror, for           *)
(* tracecheck --spec: its traces are replayed by the TLA+ interpreter.    *)
(***************************************************************************)
EXTENDS Naturals

CONSTANTS
    N,          \* the processes are 1..N
    MaxPasses   \* passes before the ring must reset

ASSUME N \in Nat \ {0} /\ MaxPasses \in Nat

VARIABLES
    holder,     \* the process holding the token
    passes      \* passes since the last reset

vars == <<holder, passes>>

TypeOK == holder \in 1..N /\ passes \in 0..MaxPasses

Init == holder = 1 /\ passes = 0

(* Process i hands the token to its right neighbour. *)
Pass(i) ==
    /\ holder = i
    /\ passes < MaxPasses
    /\ holder' = (i % N) + 1
    /\ passes' = passes + 1

(* After MaxPasses passes the token goes back to process 1. *)
Reset ==
    /\ passes = MaxPasses
    /\ holder' = 1
    /\ passes' = 0

Next == (\E i \in 1..N : Pass(i)) \/ Reset

Spec == Init /\ [][Next]_vars

(* Deliberately too strong: at most two passes between resets. *)
FewPasses == passes <= 2
=============================================================================

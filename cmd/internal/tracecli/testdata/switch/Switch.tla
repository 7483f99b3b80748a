------------------------------- MODULE Switch -------------------------------
(* A switch with no behaviour spec named Spec: tracecheck --spec without a *)
(* cfg reads INIT Init and NEXT Next.                                      *)
VARIABLE on

Init == on = FALSE

Flip == on' = ~on

Next == Flip
=============================================================================

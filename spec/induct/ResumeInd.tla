---------------------------- MODULE ResumeInd ----------------------------
(* Candidates between the bare obligations and IndInv, for teaching which  *)
(* fact each obligation relies on (docs/induct.md). A module of its own,   *)
(* so that Resume.tla, the text model/ mirrors, stays as it is.            *)
EXTENDS Resume

(* EO with the log and the program counter pinned to the frontier, but     *)
(* nothing said about the effects of the tasks past it: not inductive,     *)
(* since a task past the frontier may already have fired (IndEffects).     *)
EOWithLog ==
    /\ IndPC
    /\ IndLog
    /\ EO

=============================================================================

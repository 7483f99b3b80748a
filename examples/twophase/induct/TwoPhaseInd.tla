----------------------------- MODULE TwoPhaseInd -----------------------------
(***************************************************************************)
(* An inductive invariant for the two-phase commit of ../TwoPhase.tla,   *)
(* checked by tlcrun induct (docs/induct.md).  Consistent holds in every *)
(* reachable state, but it is not inductive: a state where one RM has    *)
(* committed while another is still working satisfies it, and the       *)
(* working RM may then abort.  IndInv adds what the protocol keeps true  *)
(* about the messages, and that is enough for one step to preserve it.  *)
(*                                                                         *)
(* A module of its own, beside the spec rather than in it: TwoPhase.tla  *)
(* is the text the Go mirror of examples/twophase mirrors (mirror.json). *)
(***************************************************************************)
EXTENDS TwoPhase

Prepared(r) == [type |-> "Prepared", rm |-> r]
Commit == [type |-> "Commit"]
Abort == [type |-> "Abort"]

(* An RM that still works has not told the TM it is prepared. *)
WorkingSilent == \A r \in RM : rmState[r] = "working" => Prepared(r) \notin msgs

(* The TM counts an RM as prepared only once it has read its message. *)
PreparedRead == \A r \in tmPrepared : Prepared(r) \in msgs

(* A commit message means the TM committed, and no RM is working or aborted. *)
CommitSent ==
    Commit \in msgs =>
        /\ tmState = "committed"
        /\ \A r \in RM : rmState[r] \in {"prepared", "committed"}

(* An abort message means the TM aborted. *)
AbortSent == Abort \in msgs => tmState = "aborted"

(* An RM commits only after the TM's commit message. *)
CommittedTold == \A r \in RM : rmState[r] = "committed" => Commit \in msgs

(* An RM that prepared aborts only after the TM's abort message. *)
PreparedAbortsTold ==
    \A r \in RM : rmState[r] = "aborted" /\ Prepared(r) \in msgs => Abort \in msgs

IndInv ==
    /\ TypeOK
    /\ Consistent
    /\ WorkingSilent
    /\ PreparedRead
    /\ CommitSent
    /\ AbortSent
    /\ CommittedTold
    /\ PreparedAbortsTold

(* IndInv less one conjunct, for the tests: each is needed. *)
NoPreparedAbortsTold ==
    /\ TypeOK
    /\ Consistent
    /\ WorkingSilent
    /\ PreparedRead
    /\ CommitSent
    /\ AbortSent
    /\ CommittedTold
=============================================================================

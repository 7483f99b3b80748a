------------------------------ MODULE TwoPhase ------------------------------
(***************************************************************************)
(* Two-phase commit: a transaction manager (TM) and a set of resource     *)
(* managers (RMs) agree to commit or abort one transaction.  Each RM      *)
(* either prepares (promises it can commit) or gives up on its own; the   *)
(* TM commits only once every RM has told it "Prepared", and aborts       *)
(* otherwise; the RMs then follow the TM's decision.  Messages are never  *)
(* lost and may be read any number of times, so the network is a set.   *)
(*                                                                         *)
(* This is the second spec of the repository (the first is spec/Resume):  *)
(* a classic protocol, small enough to read in a minute, checked by the   *)
(* same commands through the same Go seam (docs/spec.md, "A second        *)
(* spec").  EarlyCommit is a one-switch fault in the manner of Resume's   *)
(* faults: the TM commits as soon as one RM has prepared, which breaks    *)
(* Consistent.                                                            *)
(***************************************************************************)
EXTENDS FiniteSets

CONSTANTS
    RM,          \* the resource managers (model values, e.g. {r1, r2, r3})
    EarlyCommit  \* the fault switch: TRUE lets the TM commit too early

ASSUME RM # {} /\ IsFiniteSet(RM)
ASSUME EarlyCommit \in BOOLEAN

VARIABLES
    rmState,     \* rmState[r]: "working", "prepared", "committed" or "aborted"
    tmState,     \* the TM's decision: "init", "committed" or "aborted"
    tmPrepared,  \* the RMs whose "Prepared" message the TM has read
    msgs         \* every message sent so far

vars == <<rmState, tmState, tmPrepared, msgs>>

Message ==
    [type : {"Prepared"}, rm : RM] \cup [type : {"Commit", "Abort"}]

TypeOK ==
    /\ rmState \in [RM -> {"working", "prepared", "committed", "aborted"}]
    /\ tmState \in {"init", "committed", "aborted"}
    /\ tmPrepared \subseteq RM
    /\ msgs \subseteq Message

Init ==
    /\ rmState = [r \in RM |-> "working"]
    /\ tmState = "init"
    /\ tmPrepared = {}
    /\ msgs = {}

(* The TM reads r's "Prepared" message. *)
TMRcvPrepared(r) ==
    /\ tmState = "init"
    /\ r \notin tmPrepared
    /\ [type |-> "Prepared", rm |-> r] \in msgs
    /\ tmPrepared' = tmPrepared \cup {r}
    /\ UNCHANGED <<rmState, tmState, msgs>>

(* The TM decides to commit: every RM has prepared (or, under the fault, *)
(* one has).                                                            *)
TMCommit ==
    /\ tmState = "init"
    /\ IF EarlyCommit THEN tmPrepared # {} ELSE tmPrepared = RM
    /\ tmState' = "committed"
    /\ msgs' = msgs \cup {[type |-> "Commit"]}
    /\ UNCHANGED <<rmState, tmPrepared>>

(* The TM decides to abort, which it may do at any time before deciding. *)
TMAbort ==
    /\ tmState = "init"
    /\ tmState' = "aborted"
    /\ msgs' = msgs \cup {[type |-> "Abort"]}
    /\ UNCHANGED <<rmState, tmPrepared>>

(* RM r prepares and tells the TM. *)
RMPrepare(r) ==
    /\ rmState[r] = "working"
    /\ rmState' = [rmState EXCEPT ![r] = "prepared"]
    /\ msgs' = msgs \cup {[type |-> "Prepared", rm |-> r]}
    /\ UNCHANGED <<tmState, tmPrepared>>

(* RM r gives up on its own, before preparing. *)
RMChooseToAbort(r) ==
    /\ rmState[r] = "working"
    /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
    /\ UNCHANGED <<tmState, tmPrepared, msgs>>

(* RM r reads the TM's decision.  Reading a decision it already follows *)
(* would change nothing, so it is not a step.                            *)
RMRcvCommitMsg(r) ==
    /\ [type |-> "Commit"] \in msgs
    /\ rmState[r] # "committed"
    /\ rmState' = [rmState EXCEPT ![r] = "committed"]
    /\ UNCHANGED <<tmState, tmPrepared, msgs>>

RMRcvAbortMsg(r) ==
    /\ [type |-> "Abort"] \in msgs
    /\ rmState[r] # "aborted"
    /\ rmState' = [rmState EXCEPT ![r] = "aborted"]
    /\ UNCHANGED <<tmState, tmPrepared, msgs>>

Next ==
    \/ TMCommit
    \/ TMAbort
    \/ \E r \in RM :
        \/ TMRcvPrepared(r)
        \/ RMPrepare(r)
        \/ RMChooseToAbort(r)
        \/ RMRcvCommitMsg(r)
        \/ RMRcvAbortMsg(r)

Spec == Init /\ [][Next]_vars

(* Every step changes some variable, so weak fairness of Next means: the *)
(* protocol keeps moving while it can.                                   *)
FairSpec == Spec /\ WF_vars(Next)

(* No RM has committed while another has aborted. *)
Consistent ==
    \A r1, r2 \in RM : ~(rmState[r1] = "aborted" /\ rmState[r2] = "committed")

(* Every RM ends committed or aborted. *)
Decided == \A r \in RM : rmState[r] \in {"committed", "aborted"}

Liveness == <>Decided
=============================================================================

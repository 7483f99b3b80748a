------------------------------ MODULE IndTLC ------------------------------
(***************************************************************************)
(* IndInv's consecution at R0 as TLC checks it: the IndCheck style, whose  *)
(* initial states are IndTypeOK /\ IndInv and whose successors are checked *)
(* and never expanded (IndOneStep). TLC enumerates an initial predicate    *)
(* conjunct by conjunct; IndTypeOK written first would make it bind all    *)
(* 3.4E10 states of the type before testing a fact, so IndInit binds each  *)
(* variable next to the facts about it, then conjoins IndTypeOK /\ IndInv  *)
(* whole: the same set of states, pruned as TLC binds. TLC's distinct     *)
(* initial states are then tlcrun induct's states of IndTypeOK /\ IndInv,  *)
(* and its states generated past them the successors checked              *)
(* (check/induct_resume_test.go, TestInductResumeAgainstTLC).              *)
(***************************************************************************)
EXTENDS Resume

IndInit ==
    /\ pc \in 1..Done /\ frontier \in 0..NTasks /\ IndPC
    /\ effects \in [Tasks -> 0..2] /\ IndEffects
    /\ crashes \in 0..MaxCrashes
    /\ recoveries \in SeqUpTo([frontier : 0..NTasks, decision : Decisions], MaxCrashes)
    /\ IndCrashes /\ IndSkips
    /\ log \in SeqUpTo([task : Tasks, valid : BOOLEAN], NTasks) /\ IndLog
    /\ waiting \in BOOLEAN /\ consumed \in Values \cup {NoVal} /\ IndParked
    /\ consumes \in 0..2 /\ IndConsumes
    /\ resumes \in SeqUpTo([value : Values, observed : {Out(v) : v \in Values}],
                           MaxResumes)
    /\ strays \in 0..MaxExtraResumes
    /\ reentered \in BOOLEAN /\ rebuilt \in BOOLEAN
    /\ raced \in 0..(Racers - 1) /\ lost \in BOOLEAN
    /\ IndTypeOK /\ IndInv

IndOneStep == TLCGet("level") = 1
=============================================================================

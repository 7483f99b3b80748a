------------------------------- MODULE Resume -------------------------------
(***************************************************************************)
(* What happens to the effects that already fired when a workflow run is   *)
(* interrupted, crashes, or is resumed twice?                              *)
(*                                                                         *)
(* A run executes tasks 1..NTasks in order; every task fires one external, *)
(* non-idempotent effect, counted in effects. Task IP is gated by an       *)
(* interrupt: the run parks before it and fires the gated effect only once *)
(* a resume value has been consumed. Every completed task appends a record *)
(* to the durable log and advances the durable frontier. A crash loses the *)
(* volatile program counter; recovery continues from what is durable.      *)
(*                                                                         *)
(* The obligations are the invariants EO, PC, FD, CV, CO and RD below, and *)
(* the liveness property Liveness under FairSpec. The faults of the        *)
(* contract are one-switch mutations chosen by the constant Faults; the    *)
(* extensions (racing resumers, crashes while parked) are off by constant  *)
(* (Racers = 1, CrashWhileParked = FALSE), and with them off the reachable *)
(* states are exactly those of the reference semantics.                    *)
(*                                                                         *)
(* Vocabulary: each action's name is also the name of the Go function in   *)
(* model/ and of the trace event; keep the three in step.                  *)
(*                                                                         *)
(* Bounds live only in the .cfg files beside this module.                  *)
(*                                                                         *)
(* Guards are written without a top-level disjunction (~(A /\ B) rather   *)
(* than ~A \/ ~B): TLC explores every true disjunct of an action          *)
(* separately, and would count the same successor twice in "states         *)
(* generated". One successor per action and parameter keeps TLC's counts  *)
(* equal to the Go engine's.                                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    NTasks,           \* number of tasks in the run
    IP,               \* the interrupt-gated task
    Values,           \* resume values a human may supply (model values)
    NoVal,            \* "nothing consumed yet" (a model value not in Values)
    MaxResumes,       \* bound on resumes aimed at the interrupt checkpoint
    MaxCrashes,       \* bound on crashes
    MaxExtraResumes,  \* bound on stray resumes after completion
    Faults,           \* the fault switches that are on: a subset of FaultNames
    Racers,           \* processes resuming the parked interrupt; 1 = no race
    CrashWhileParked  \* may the process crash while parked? FALSE = no

(* The faults of docs/resume-contract.md. Each is a one-switch mutation.   *)
FaultNames == {"replay", "forkignore", "invalidpersist", "nondetrec",
               "doubleconsume", "prefixreplay", "regate", "rebuild",
               "redeliver", "raceconsume", "raceeffect", "volatilepark",
               "nointent"}


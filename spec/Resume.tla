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
EXTENDS Naturals, Sequences, FiniteSets, TLC

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

(* Faults that change how recovery continues; at most one may be on.      *)
RecoveryFaults == {"replay", "nondetrec", "prefixreplay", "regate",
                   "rebuild", "redeliver"}

ASSUME NTasks \in Nat /\ NTasks >= 2
ASSUME IP \in 2..NTasks
ASSUME IsFiniteSet(Values) /\ Values # {} /\ NoVal \notin Values
ASSUME MaxResumes \in Nat /\ MaxResumes >= 1
ASSUME MaxCrashes \in Nat /\ MaxExtraResumes \in Nat
ASSUME Faults \subseteq FaultNames
ASSUME Cardinality(Faults \cap RecoveryFaults) <= 1
ASSUME Racers \in Nat /\ Racers >= 1
ASSUME CrashWhileParked \in BOOLEAN
\* A fault that needs an extension is only meaningful with it on.
ASSUME ({"raceconsume", "raceeffect"} \cap Faults # {}) => Racers >= 2
ASSUME ("volatilepark" \in Faults) => CrashWhileParked

Tasks == 1..NTasks
Done == NTasks + 1

(* out(v): the outcome a resume with value v must observe. Injective and  *)
(* not the identity, so that fork determinism is a routing property.      *)
Out(v) == <<v>>

Max(a, b) == IF a >= b THEN a ELSE b

(* The resume values are interchangeable: no action, invariant or property *)
(* names one. A cfg may say SYMMETRY Symmetry to explore one state of each *)
(* set of states equal up to a renaming of Values (docs/spec.md, Symmetry). *)
Symmetry == Permutations(Values)

VARIABLES
    pc,          \* next task to execute (volatile); Done when complete
    effects,     \* effects[t]: times task t's external effect fired
    log,         \* durable checkpoint log: sequence of [task, valid]
    frontier,    \* highest task with a durable record; 0 if none
    waiting,     \* parked at the interrupt, awaiting a resume value
    consumed,    \* the resume value consumed by the gate, or NoVal
    resumes,     \* resumes aimed at the interrupt checkpoint, in order:
                 \*   [value |-> supplied v, observed |-> outcome seen]
    crashes,     \* crashes so far
    recoveries,  \* recovery history: [frontier |-> f, decision |-> d]
    strays,      \* stray resumes after completion so far
    reentered,   \* latch: a task at or below the frontier was executed
    rebuilt,     \* latch: a recovery rebuilt state from the initial input
    consumes,    \* consumptions of the parked interrupt (CO count clause)
    raced,       \* losing racers that reached the consumed gate
    lost         \* the parked interrupt was lost by a crash

vars == <<pc, effects, log, frontier, waiting, consumed, resumes, crashes,
          recoveries, strays, reentered, rebuilt, consumes, raced, lost>>

Decisions == {"skip", "replay", "reexec", "regate", "rebuild", "redeliver"}

TypeOK ==
    /\ pc \in 1..Done
    /\ effects \in [Tasks -> Nat]
    /\ \A i \in DOMAIN log : log[i] \in [task : Tasks, valid : BOOLEAN]
    /\ frontier \in 0..NTasks
    /\ waiting \in BOOLEAN
    /\ consumed \in Values \cup {NoVal}
    /\ \A i \in DOMAIN resumes :
           resumes[i] \in [value : Values, observed : {Out(v) : v \in Values}]
    /\ crashes \in 0..MaxCrashes
    /\ \A i \in DOMAIN recoveries :
           recoveries[i] \in [frontier : 0..NTasks, decision : Decisions]
    /\ strays \in 0..MaxExtraResumes
    /\ reentered \in BOOLEAN
    /\ rebuilt \in BOOLEAN
    /\ consumes \in Nat
    /\ raced \in 0..(Racers - 1)
    /\ lost \in BOOLEAN

Init ==
    /\ pc = 1
    /\ effects = [t \in Tasks |-> 0]
    /\ log = << >>
    /\ frontier = 0
    /\ waiting = FALSE
    /\ consumed = NoVal
    /\ resumes = << >>
    /\ crashes = 0
    /\ recoveries = << >>
    /\ strays = 0
    /\ reentered = FALSE
    /\ rebuilt = FALSE
    /\ consumes = 0
    /\ raced = 0
    /\ lost = FALSE

-----------------------------------------------------------------------------
(* Actions                                                                 *)

(* Execute task pc: fire its effect and make its completion durable. The  *)
(* gated task runs here only when re-executed after a consumption; with   *)
(* prefixreplay its effect is then served from the durable record.        *)
ExecTask ==
    /\ pc \in Tasks
    /\ ~waiting
    /\ ~(pc = IP /\ consumed = NoVal)
    /\ effects' = [effects EXCEPT ![pc] =
                     @ + IF pc = IP /\ "prefixreplay" \in Faults THEN 0 ELSE 1]
    /\ log' = Append(log, [task |-> pc,
                           valid |-> ~("invalidpersist" \in Faults /\ pc = NTasks)])
    /\ frontier' = Max(frontier, pc)
    /\ reentered' = (reentered \/ pc <= frontier)
    /\ pc' = pc + 1
    /\ UNCHANGED <<waiting, consumed, resumes, crashes, recoveries, strays,
                   rebuilt, consumes, raced, lost>>

(* Reach the gate with nothing consumed: park, awaiting a human. *)
EmitInterrupt ==
    /\ pc = IP
    /\ ~waiting
    /\ consumed = NoVal
    /\ ~lost
    /\ waiting' = TRUE
    /\ UNCHANGED <<pc, effects, log, frontier, consumed, resumes, crashes,
                   recoveries, strays, reentered, rebuilt, consumes, raced, lost>>

(* A resume with value v consumes the parked interrupt and fires the      *)
(* gated effect once.                                                     *)
Consume(v) ==
    /\ waiting
    /\ Len(resumes) < MaxResumes
    /\ waiting' = FALSE
    /\ consumed' = v
    /\ effects' = [effects EXCEPT ![IP] = @ + 1]
    /\ log' = Append(log, [task |-> IP, valid |-> TRUE])
    /\ frontier' = Max(frontier, IP)
    /\ pc' = IP + 1
    /\ resumes' = Append(resumes, [value |-> v, observed |-> Out(v)])
    /\ consumes' = consumes + 1
    /\ UNCHANGED <<crashes, recoveries, strays, reentered, rebuilt, raced, lost>>

(* Another resume aimed at the same interrupt checkpoint, with fork       *)
(* intent: it must observe its own value's outcome and change nothing     *)
(* else. With forkignore it is served the first resume's outcome. With    *)
(* nointent the interface has no fork intent, cannot tell a fork from a   *)
(* retry, and serves every second delivery as a fresh consumption of its  *)
(* value: FD holds, the consume-once count does not.                      *)
ForkResume(v) ==
    /\ consumed # NoVal
    /\ Len(resumes) < MaxResumes
    /\ resumes' = Append(resumes,
                    [value |-> v,
                     observed |-> IF "forkignore" \in Faults
                                  THEN Out(consumed) ELSE Out(v)])
    /\ consumes' = consumes + IF "nointent" \in Faults THEN 1 ELSE 0
    /\ UNCHANGED <<pc, effects, log, frontier, waiting, consumed, crashes,
                   recoveries, strays, reentered, rebuilt, raced, lost>>

(* The decisions recovery may take from the durable state, per fault.     *)
RecoveryChoices ==
    IF "replay" \in Faults \/ "prefixreplay" \in Faults THEN {"replay"}
    ELSE IF "nondetrec" \in Faults THEN {"skip", "reexec"}
    ELSE IF "regate" \in Faults /\ consumed # NoVal THEN {"skip", "regate"}
    ELSE IF "rebuild" \in Faults THEN {"rebuild"}
    ELSE IF "redeliver" \in Faults THEN {"redeliver"}
    ELSE {"skip"}

(* Where execution continues after decision d. *)
ResumeAt(d) ==
    CASE d = "replay" -> 1
      [] d = "reexec" -> frontier
      [] OTHER        -> frontier + 1

(* Recover from a crash that happened while not parked. "skip" continues  *)
(* past the frontier; "regate" re-parks the consumed gate and is released *)
(* at once by the durable consumption, so it differs from "skip" only in  *)
(* the decision taken; "rebuild" rebuilds the state from the initial      *)
(* input and memo-replays the durable prefix without effects; "redeliver" *)
(* re-fires the frontier task's effect (never the gate's, which the       *)
(* consume gate guards).                                                  *)
RecoverRunning ==
    \E d \in RecoveryChoices :
        /\ pc' = ResumeAt(d)
        /\ recoveries' = Append(recoveries, [frontier |-> frontier, decision |-> d])
        /\ effects' = IF d = "redeliver" /\ frontier \in Tasks \ {IP}
                      THEN [effects EXCEPT ![frontier] = @ + 1]
                      ELSE effects
        /\ rebuilt' = (rebuilt \/ d = "rebuild")
        /\ UNCHANGED <<waiting, lost>>

(* Recover from a crash while parked. The park is durable, so the run is  *)
(* parked again; with volatilepark the interrupt is lost and nothing can  *)
(* raise it again.                                                        *)
RecoverParked ==
    /\ pc' = frontier + 1
    /\ recoveries' = Append(recoveries, [frontier |-> frontier, decision |-> "skip"])
    /\ waiting' = ("volatilepark" \notin Faults)
    /\ lost' = ("volatilepark" \in Faults)
    /\ UNCHANGED <<effects, rebuilt>>

CrashRecover ==
    /\ crashes < MaxCrashes
    /\ pc \in 2..NTasks
    /\ ~(waiting /\ ~CrashWhileParked)
    /\ crashes' = crashes + 1
    /\ IF waiting THEN RecoverParked ELSE RecoverRunning
    /\ UNCHANGED <<log, frontier, consumed, resumes, strays, reentered,
                   consumes, raced>>

(* A stray resume after the run completed: must be inert. With            *)
(* doubleconsume it consumes again and re-fires the gated effect.         *)
ExtraResume ==
    /\ pc = Done
    /\ strays < MaxExtraResumes
    /\ strays' = strays + 1
    /\ IF "doubleconsume" \in Faults
       THEN /\ effects' = [effects EXCEPT ![IP] = @ + 1]
            /\ consumes' = consumes + 1
       ELSE UNCHANGED <<effects, consumes>>
    /\ UNCHANGED <<pc, log, frontier, waiting, consumed, resumes, crashes,
                   recoveries, reentered, rebuilt, raced, lost>>

(* Extension (Racers > 1): another process that loaded the same parked    *)
(* interrupt reaches the gate after the winner consumed it. The consume   *)
(* gate refuses it (a conflict); raceconsume lets it consume too, and     *)
(* raceeffect also fires the gated effect.                                *)
RaceResume(v) ==
    /\ raced < Racers - 1
    /\ consumed # NoVal
    /\ raced' = raced + 1
    /\ consumes' = consumes +
                   IF {"raceconsume", "raceeffect"} \cap Faults # {} THEN 1 ELSE 0
    /\ effects' = IF "raceeffect" \in Faults
                  THEN [effects EXCEPT ![IP] = @ + 1] ELSE effects
    /\ UNCHANGED <<pc, log, frontier, waiting, consumed, resumes, crashes,
                   recoveries, strays, reentered, rebuilt, lost>>

Next ==
    \/ ExecTask
    \/ EmitInterrupt
    \/ \E v \in Values : Consume(v)
    \/ \E v \in Values : ForkResume(v)
    \/ CrashRecover
    \/ ExtraResume
    \/ \E v \in Values : RaceResume(v)

Spec == Init /\ [][Next]_vars

(* Weak fairness: a run that can take a step eventually does. *)
FairSpec == Spec /\ WF_vars(Next)

-----------------------------------------------------------------------------
(* Obligations                                                             *)

(* EO: every task's effect fired at most once. *)
EO == \A t \in Tasks : effects[t] <= 1

(* PC, prefix clause: execution never re-enters the durable prefix. *)
PCPrefix == ~reentered

(* PC, lineage clause: recovery continues from the durable log, never from *)
(* a rebuild of the initial state.                                        *)
PCLineage == ~rebuilt

PC == PCPrefix /\ PCLineage

(* FD: every resume aimed at the interrupt checkpoint observed its own    *)
(* value's outcome.                                                       *)
FD == \A i \in DOMAIN resumes : resumes[i].observed = Out(resumes[i].value)

(* CV: every durable record is valid. *)
CV == \A i \in DOMAIN log : log[i].valid

(* CO, effect clause: the gated effect fired at most once (implied by EO). *)
COEffect == effects[IP] <= 1

(* CO, count clause: the parked interrupt was consumed at most once. *)
COCount == consumes <= 1

CO == COEffect /\ COCount

(* RD: recoveries at the same durable frontier made the same decision. *)
RD == \A i, j \in DOMAIN recoveries :
        recoveries[i].frontier = recoveries[j].frontier
            => recoveries[i].decision = recoveries[j].decision

Safety == EO /\ PC /\ FD /\ CV /\ CO /\ RD

(* LV: every fair behaviour completes the run. *)
Completed == pc = Done
Liveness == <>Completed


-----------------------------------------------------------------------------
(* Induction (docs/contract.md, "Why the obligations hold")                *)

(* The six obligations hold in every reachable state, but none alone is    *)
(* inductive: each silently relies on facts about the frontier, the log    *)
(* and the recovery history that a step preserves only together. IndInv   *)
(* states those facts for the reference semantics (Faults = {},           *)
(* Racers = 1, CrashWhileParked = FALSE) and is inductive relative to      *)
(* IndTypeOK there (tlcrun induct, spec/induct/). Under a fault or an      *)
(* extension it is not an invariant at all.                                *)

(* Sequences of at most n elements of S. *)
SeqUpTo(S, n) == UNION {[1..k -> S] : k \in 0..n}

(* TypeOK with every set finite, for induct to enumerate: the log holds at *)
(* most one record per task, resumes and recoveries at most their bounds,  *)
(* and effects and consumes one more than EO and COCount allow, so that a  *)
(* step that breaks either stays in the type. Every state reachable in the *)
(* reference semantics is in it.                                           *)
IndTypeOK ==
    /\ pc \in 1..Done
    /\ effects \in [Tasks -> 0..2]
    /\ log \in SeqUpTo([task : Tasks, valid : BOOLEAN], NTasks)
    /\ frontier \in 0..NTasks
    /\ waiting \in BOOLEAN
    /\ consumed \in Values \cup {NoVal}
    /\ resumes \in SeqUpTo([value : Values, observed : {Out(v) : v \in Values}],
                           MaxResumes)
    /\ crashes \in 0..MaxCrashes
    /\ recoveries \in SeqUpTo([frontier : 0..NTasks, decision : Decisions],
                              MaxCrashes)
    /\ strays \in 0..MaxExtraResumes
    /\ reentered \in BOOLEAN
    /\ rebuilt \in BOOLEAN
    /\ consumes \in 0..2
    /\ raced \in 0..(Racers - 1)
    /\ lost \in BOOLEAN

(* The volatile program counter is just past the durable frontier. *)
IndPC == pc = frontier + 1

(* The log is exactly one valid record per task up to the frontier, in order. *)
IndLog == log = [i \in 1..frontier |-> [task |-> i, valid |-> TRUE]]

(* The effects of the tasks up to the frontier fired once, the others never. *)
IndEffects == effects = [t \in Tasks |-> IF t <= frontier THEN 1 ELSE 0]

(* A parked run is at the gate, with nothing consumed. *)
IndParked == waiting => (pc = IP /\ consumed = NoVal)

(* The interrupt was consumed once if a value was consumed, else never. *)
IndConsumes == consumes = IF consumed = NoVal THEN 0 ELSE 1

(* Each crash left one recovery. *)
IndCrashes == Len(recoveries) = crashes

(* Every recovery decided "skip". *)
IndSkips == \A i \in DOMAIN recoveries : recoveries[i].decision = "skip"

(* The strengthening: the facts, then the obligations they imply or keep. *)
(* The conjuncts over few variables come first, so that induct tests them *)
(* on partial states; IndLog, over the log (the largest set of values),   *)
(* after those it would otherwise hold back until the log is bound.        *)
IndInv ==
    /\ PCPrefix
    /\ PCLineage
    /\ IndPC
    /\ IndEffects
    /\ IndParked
    /\ IndConsumes
    /\ IndCrashes
    /\ IndSkips
    /\ IndLog
    /\ Safety

=============================================================================

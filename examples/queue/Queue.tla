------------------------------- MODULE Queue -------------------------------
(***************************************************************************)
(* A bounded FIFO queue between one producer and one consumer.             *)
(*                                                                         *)
(* The producer sends the messages 1, 2, ..., NMsgs in that order, each    *)
(* when the queue has room (it holds at most Capacity); the consumer takes *)
(* the oldest message out. What must hold: the queue never holds more than *)
(* its capacity, nothing is lost on the way, the consumer receives the     *)
(* messages in the order they were sent, and under fairness it eventually  *)
(* receives them all.                                                      *)
(*                                                                         *)
(* Overtake is a deliberate fault, off in the design: with it the consumer *)
(* may also take the newest message, and InOrder fails.                    *)
(*                                                                         *)
(* It is the third spec of this repository, written to show that a spec   *)
(* joins the tools by one folder (docs/spec.md, "A third spec in one       *)
(* folder"): it has no Go mirror, so the TLA+ interpreter reads it.        *)
(***************************************************************************)
EXTENDS Naturals, Sequences

CONSTANTS
    Capacity,  \* how many messages the queue holds at most
    NMsgs,     \* how many messages the producer sends
    Overtake   \* the fault switch: the consumer may take the newest message

ASSUME Capacity \in Nat \ {0} /\ NMsgs \in Nat /\ Overtake \in BOOLEAN

VARIABLES
    queue,     \* the messages sent and not yet received, oldest first
    sent,      \* how many messages the producer has sent
    received   \* the messages the consumer has received, in that order

vars == <<queue, sent, received>>

\* A sequence of messages, each one of 1..NMsgs, no longer than n.
Msgs(s, n) == Len(s) <= n /\ \A i \in 1..Len(s) : s[i] \in 1..NMsgs

\* Every variable holds a value of its type.
TypeOK ==
    /\ Msgs(queue, Capacity)
    /\ sent \in 0..NMsgs
    /\ Msgs(received, NMsgs)

Init ==
    /\ queue = <<>>
    /\ sent = 0
    /\ received = <<>>

\* The producer sends the next message when the queue has room.
Send ==
    /\ sent < NMsgs
    /\ Len(queue) < Capacity
    /\ queue' = Append(queue, sent + 1)
    /\ sent' = sent + 1
    /\ UNCHANGED received

\* The consumer takes the oldest message out.
Receive ==
    /\ queue # <<>>
    /\ received' = Append(received, Head(queue))
    /\ queue' = Tail(queue)
    /\ UNCHANGED sent

\* The fault: the consumer takes the newest message out, overtaking the
\* older ones.
ReceiveNewest ==
    /\ Overtake
    /\ Len(queue) > 1
    /\ received' = Append(received, queue[Len(queue)])
    /\ queue' = [i \in 1..Len(queue) - 1 |-> queue[i]]
    /\ UNCHANGED sent

Next == Send \/ Receive \/ ReceiveNewest

Spec == Init /\ [][Next]_vars

FairSpec == Spec /\ WF_vars(Next)

\* The queue never holds more than its capacity.
Bounded == Len(queue) <= Capacity

\* Nothing is lost: every message sent is in the queue or received.
NoLoss == sent = Len(queue) + Len(received)

\* FIFO: the consumer has received 1, 2, ..., k, in that order.
InOrder == \A i \in 1..Len(received) : received[i] = i

\* Under fairness the consumer eventually receives every message.
AllDelivered == <>(Len(received) = NMsgs)

=============================================================================

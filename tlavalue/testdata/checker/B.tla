---- MODULE B ----
EXTENDS Naturals, Sequences
CONSTANTS M, N, S
VARIABLES tk, mk, mixed, zero, big, emptyf, ss, sr, strk, x
Init ==
  /\ tk = [p \in {<<1, 2>>, <<3, 4>>} |-> p[1]]
  /\ mk = [p \in {M, N} |-> 7]
  /\ mixed = (1 :> "i" @@ "k" :> "s")
  /\ zero = [n \in 0..2 |-> n]
  /\ big = 9007199254740993
  /\ emptyf = [n \in {} |-> n]
  /\ ss = {{1}, {}, {2, 3}}
  /\ sr = {[a |-> 1], [a |-> 2, b |-> 3]}
  /\ strk = S
  /\ x = 0
Next == x < 1 /\ x' = x + 1 /\ mk' = [mk EXCEPT ![M] = 8] /\ UNCHANGED <<tk, mixed, zero, big, emptyf, ss, sr, strk>>
====

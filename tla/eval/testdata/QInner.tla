---- MODULE QInner ----
\* Used by TestQualifiedOverrides: the cfg replaces Ballot in this module
\* only (Ballot <-[QInner] MCBallot).
EXTENDS Naturals, FiniteSets
Ballot == 0..9
Count == Cardinality(Ballot)
====

---- MODULE A ----
EXTENDS Sequences
Twice(n) == LET B == INSTANCE B IN B!Double(n)
====

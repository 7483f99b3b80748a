---- MODULE Root ----
EXTENDS Naturals, A
VARIABLE x
M == INSTANCE Lib WITH k <- 1
Init == x = 0
====

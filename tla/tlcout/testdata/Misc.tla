---- MODULE Misc ----
EXTENDS Naturals, TLC
CONSTANT N
VARIABLE x
ASSUME N > 5
Init == x = 0
Next == x' = x + 1
Mono == [][x' > x + 1]_x
Pos == x > 0
Bounded == x < 3
====

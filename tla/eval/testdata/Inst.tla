---- MODULE Inst ----
\* A module instantiated by the tests, with a constant and a variable
\* to substitute.
EXTENDS Naturals
CONSTANT c
VARIABLE y
Plus(x) == x + c
Twice == 2 * c
Read == y + c
LOCAL Secret == 42
UsesSecret == Secret + c
====

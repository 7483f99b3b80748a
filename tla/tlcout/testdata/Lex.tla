---- MODULE Lex ----
VARIABLE x
Init == x = "unterminated
Next == x' = x
====

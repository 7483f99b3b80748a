---- MODULE C ----
VARIABLES sp, amb, bools
Init == /\ sp = ("a b" :> 1 @@ "" :> 2)
        /\ amb = [__tuple |-> 1]
        /\ bools = BOOLEAN
Next == UNCHANGED <<sp, amb, bools>>
====

---- MODULE C2 ----
INSTANCE C1
====

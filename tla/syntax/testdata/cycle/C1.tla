---- MODULE C1 ----
EXTENDS C2
====

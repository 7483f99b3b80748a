---- MODULE Lib ----
CONSTANT k
K == k
====

---- MODULE B ----
Double(n) == n + n
====

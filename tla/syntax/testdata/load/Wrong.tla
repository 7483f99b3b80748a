---- MODULE NotWrong ----
====

---- MODULE Missing ----
EXTENDS Nowhere
====

---- MODULE Lib ----
\* A module extended by the tests: Double and Scaled are exported,
\* Hidden is LOCAL and is not.
EXTENDS Naturals
LOCAL Hidden(x) == x * 100
Double(x) == 2 * x
Scaled(x) == Hidden(x) + 1
====

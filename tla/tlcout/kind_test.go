package tlcout

import "testing"

// TestViolationKind: the check report's three kinds of violation, and no
// violation for the issues that are not one.
func TestViolationKind(t *testing.T) {
	want := map[Kind]string{
		KindInvariant: "invariant", KindAssert: "invariant", KindPostcondition: "invariant",
		KindTemporal: "liveness", KindActionProperty: "liveness", KindDeadlock: "deadlock",
	}
	for k := KindOther; k <= KindBug; k++ {
		got, ok := k.ViolationKind()
		if w, is := want[k]; got != w || ok != is {
			t.Errorf("%s: got %q, %v; want %q, %v", k, got, ok, w, is)
		}
	}
}

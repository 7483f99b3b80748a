package interp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPropertyTexts: a property's text is the first sentence of the
// spec's comment on its definition, its first word lowered unless it is
// an acronym; a property the spec does not comment says which it is.
func TestPropertyTexts(t *testing.T) {
	got := map[string]string{}
	for _, p := range load(t, "../../examples/queue/Queue.tla", "../../examples/queue/Queue.cfg").Properties() {
		got[p.Name] = p.Text
	}
	want := map[string]string{
		"TypeOK":       "every variable holds a value of its type",
		"Bounded":      "the queue never holds more than its capacity",
		"NoLoss":       "nothing is lost: every message sent is in the queue or received",
		"InOrder":      "FIFO: the consumer has received 1, 2, ..., k, in that order",
		"AllDelivered": "under fairness the consumer eventually receives every message",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Queue's property texts (-want +got):\n%s", d)
	}
	for _, p := range load(t, "../../examples/twophase/TwoPhase.tla", "../../examples/twophase/TwoPhase.cfg").Properties() {
		if p.Name == "TypeOK" && p.Text != "the invariant TypeOK of TwoPhase" {
			t.Errorf("TwoPhase's TypeOK, which has no comment: %q", p.Text)
		}
		if p.Name == "Consistent" && p.Text != "no RM has committed while another has aborted" {
			t.Errorf("TwoPhase's Consistent: %q", p.Text)
		}
	}
}

package interp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPropertyTexts: a property's text is the first sentence of the
// spec's comment on its definition, its first word lowered unless it is
// an acronym; a property the spec does not comment says which it is,
// unless it is <>P and P is commented.
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
	got = map[string]string{}
	for _, p := range load(t, "../../examples/twophase/TwoPhase.tla", "../../examples/twophase/TwoPhase.cfg").Properties() {
		got[p.Name] = p.Text
	}
	want = map[string]string{
		// TypeOK has no comment.
		"TypeOK":     "the invariant TypeOK of TwoPhase",
		"Consistent": "no RM has committed while another has aborted",
		// Liveness == <>Decided has no comment; Decided's says what it
		// reaches.
		"Liveness": "eventually, every RM ends committed or aborted",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("TwoPhase's property texts through the interpreter (-want +got):\n%s", d)
	}
}

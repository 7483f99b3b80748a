package interp

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/resumecontract/resumecheck/tla/eval"
)

// TestNextInPlaceIsNext explores R8-small breadth-first to a few
// thousand states and checks that NextInPlace (what the engine explores)
// emits what Next emits, in order, with the same numbers known, encoded
// through the worker's cache as without it (checked by making
// walker.id trust any cached entry: this test fails), and that
// the copies Keep makes still hold them once the next state is explored;
// and that plain copies of the slot do not (the evaluator's buffer
// changes under them), so that the check would catch a Keep that copied
// too little.
func TestNextInPlaceIsNext(t *testing.T) {
	sp := load(t, "../../spec/Resume.tla", "../../spec/bench/R8-small.cfg")
	enc := make([]byte, sp.Width())
	seen := map[string]bool{}
	var queue []State
	for _, s := range sp.Init() {
		sp.Encode(enc, s)
		seen[string(enc)] = true
		queue = append(queue, sp.Decode(enc))
	}
	type succ struct {
		l Label
		s State
	}
	var slot State
	cached, plainEnc := make([]byte, sp.Width()), make([]byte, sp.Width())
	ids := func(b []byte) []uint32 {
		var out []uint32
		for i := 0; i < len(b); i += 4 {
			out = append(out, binary.LittleEndian.Uint32(b[i:]))
		}
		return out
	}
	var kept, plain []State
	var want []succ
	for n := 0; len(queue) > 0 && n < 3000; n++ {
		s := queue[0]
		queue = queue[1:]
		var got []succ
		sp.Next(s, func(l Label, x State) {
			want = append(want, succ{l, x})
		})
		sp.NextInPlace(s, &slot, func(l Label) {
			// Encoded through the worker's cache of numbers by address,
			// then without it: the same numbers.
			sp.EncodeFrom(cached, &slot)
			if !slices.Equal(slot.ids, ids(cached)) {
				t.Fatalf("%v: EncodeFrom recorded numbers %v, wrote %v", sp.Vars(slot), slot.ids, ids(cached))
			}
			sp.Encode(plainEnc, State{Vals: slot.Vals})
			if string(cached) != string(plainEnc) {
				t.Fatalf("%v: encoded %x through the cache, %x without", sp.Vars(slot), cached, plainEnc)
			}
			got = append(got, succ{l, slot})
			var k State
			sp.Keep(&k, &slot)
			kept = append(kept, k)
			plain = append(plain, slot)
		})
		if len(got) != len(want[len(want)-len(got):]) {
			t.Fatalf("%v: NextInPlace emits %d successors, Next %d", sp.Vars(s), len(got), len(want))
		}
		for i, g := range got {
			w := want[len(want)-len(got)+i]
			if sp.Label(g.l) != sp.Label(w.l) {
				t.Fatalf("%v: successor %d is %s in place, %s by Next", sp.Vars(s), i, sp.Label(g.l), sp.Label(w.l))
			}
		}
		for _, w := range want[len(want)-len(got):] {
			sp.Encode(enc, w.s)
			if !seen[string(enc)] {
				seen[string(enc)] = true
				queue = append(queue, sp.Decode(enc))
			}
		}
	}
	if len(want) < 3000 || len(kept) != len(want) {
		t.Fatalf("%d successors by Next, %d kept", len(want), len(kept))
	}
	same := func(a, b State) bool {
		for i := range a.Vals {
			if a.Vals[i] == nil || !eval.Equal(a.Vals[i], b.Vals[i]) || (a.ids[i] != eval.NoID && b.ids[i] != eval.NoID && a.ids[i] != b.ids[i]) {
				return false
			}
		}
		return len(a.Vals) == len(b.Vals) && slices.Equal(a.changed, b.changed)
	}
	differ := 0
	for i, w := range want {
		if !same(kept[i], w.s) {
			t.Fatalf("successor %d: kept %v, Next %v", i, sp.Vars(kept[i]), sp.Vars(w.s))
		}
		if !same(plain[i], w.s) {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("every plain copy of the slot still holds its successor: the test cannot tell a Keep that copies from one that does not")
	}
}

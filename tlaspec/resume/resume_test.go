package resume

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resumecontract/resumecheck/model"
)

// TestEncodeDecode round-trips random states of one, two and five words
// through Encode and Decode, and checks Decode against decodeWords, its
// readable form (Decode copies two words at once on a little-endian
// machine).
func TestEncodeDecode(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 3))
	for _, words := range []int{1, 2, 5} {
		sp := &Spec{words: words}
		buf := make([]byte, sp.Width())
		for range 1000 {
			var p model.Packed
			for i := range words {
				p[i] = r.Uint64()
			}
			sp.Encode(buf, p)
			if got := sp.Decode(buf); got != p {
				t.Fatalf("%d words: Decode(Encode(%x)) = %x", words, p, got)
			}
			if got := decodeWords(buf, words); got != p {
				t.Fatalf("%d words: decodeWords(Encode(%x)) = %x", words, p, got)
			}
		}
	}
	if !littleEndian {
		t.Log("a big-endian machine: Decode reads word by word")
	}
}

// TestNextInPlaceIsNext explores R0 and R8 breadth-first to a few
// thousand states and checks that NextInPlace (what the engine explores)
// emits what Next emits (what it replays counterexamples with): the same
// labelled successors in the same order, for the model's step and for a
// step replaced with WithNext (here: every other successor of Next, last
// first), which NextInPlace must follow too.
func TestNextInPlaceIsNext(t *testing.T) {
	for _, p := range []model.Params{model.R0(), model.R8()} {
		m, err := model.New(p)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := New(m, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		replaced := plain.WithNext(func(s model.Packed, emit func(model.Label, model.Packed)) {
			type step struct {
				l model.Label
				t model.Packed
			}
			var all []step
			m.NextPacked(s, func(l model.Label, t model.Packed) { all = append(all, step{l, t}) })
			for i := len(all) - 1; i >= 0; i -= 2 {
				emit(all[i].l, all[i].t)
			}
		})
		for _, sp := range []*Spec{plain, replaced} {
			seen := map[model.Packed]bool{}
			queue := sp.Init()
			var slot model.Packed
			for len(queue) > 0 && len(seen) < 5000 {
				s := queue[0]
				queue = queue[1:]
				var want []string
				sp.Next(s, func(l model.Label, u model.Packed) {
					want = append(want, sp.Label(l)+fmt.Sprint(u))
					if !seen[u] {
						seen[u] = true
						queue = append(queue, u)
					}
				})
				var got []string
				sp.NextInPlace(s, &slot, func(l model.Label) { got = append(got, sp.Label(l)+fmt.Sprint(slot)) })
				if !slices.Equal(got, want) {
					t.Fatalf("%v (replaced %v): NextInPlace emits %q, Next %q", p, sp.next != nil, got, want)
				}
			}
		}
	}
}

// TestViolatedFunc checks ViolatedFunc (what the engine calls) against
// Violated on the states of R8 and of R0 under faults that violate
// invariants, breadth-first to a few thousand states, with every
// invariant open and with random subsets open; some states must violate
// something, so that the comparison is not of zeros only.
func TestViolatedFunc(t *testing.T) {
	names := []string{"TypeOK", "EO", "PC", "FD", "CV", "CO", "RD"}
	r := rand.New(rand.NewPCG(23, 1))
	r0 := func(fs ...model.Fault) model.Params {
		p := model.R0()
		p.Faults = p.Faults.With(fs...)
		return p
	}
	violating := 0
	for _, p := range []model.Params{model.R8(), r0(model.Replay), r0(model.ForkIgnore), r0(model.NondetRec)} {
		m, err := model.New(p)
		if err != nil {
			t.Fatal(err)
		}
		sp, err := New(m, names, false)
		if err != nil {
			t.Fatal(err)
		}
		f := sp.ViolatedFunc()
		seen := map[model.Packed]bool{}
		queue := sp.Init()
		for len(queue) > 0 && len(seen) < 5000 {
			s := queue[0]
			queue = queue[1:]
			for _, open := range []uint64{1<<len(names) - 1, r.Uint64N(1 << len(names))} {
				want := sp.Violated(s, open)
				if got := f(s, open); got != want {
					t.Fatalf("%v: ViolatedFunc %b, Violated %b, open %b", p, got, want, open)
				}
				if want != 0 {
					violating++
				}
			}
			sp.Next(s, func(_ model.Label, u model.Packed) {
				if !seen[u] {
					seen[u] = true
					queue = append(queue, u)
				}
			})
		}
	}
	if violating == 0 {
		t.Fatal("no state violated an invariant")
	}
}

package model

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// layoutFields are every field of l, named, with the most it may be set
// to in a test: a sequence's length at most its slots (more is no state
// at all), any other field all it holds.
func layoutFields(l *layout) []struct {
	name string
	f    field
	max  uint64
} {
	var out []struct {
		name string
		f    field
		max  uint64
	}
	add := func(name string, f field, max uint64) {
		if f.mask != 0 {
			out = append(out, struct {
				name string
				f    field
				max  uint64
			}{name, f, max})
		}
	}
	for name, f := range map[string]field{"pc": l.pc, "frontier": l.frontier, "consumed": l.consumed,
		"waiting": l.waiting, "reentered": l.reentered, "rebuilt": l.rebuilt, "lost": l.lost,
		"crashes": l.crashes, "strays": l.strays, "consumes": l.consumes, "raced": l.raced} {
		add(name, f, f.mask)
	}
	for t, f := range l.effects {
		add(fmt.Sprintf("effects[%d]", t+1), f, f.mask)
	}
	add("len(log)", l.logLen, min(l.logLen.mask, uint64(len(l.log))))
	add("len(resumes)", l.resLen, min(l.resLen.mask, uint64(len(l.resumes))))
	add("len(recoveries)", l.recLen, min(l.recLen.mask, uint64(len(l.recoveries))))
	for i, sl := range l.log {
		add(fmt.Sprintf("log[%d].task", i), sl.a, sl.a.mask)
		add(fmt.Sprintf("log[%d].valid", i), sl.b, sl.b.mask)
	}
	for i, sl := range l.resumes {
		add(fmt.Sprintf("resumes[%d].value", i), sl.a, sl.a.mask)
		add(fmt.Sprintf("resumes[%d].observed", i), sl.b, sl.b.mask)
	}
	for i, sl := range l.recoveries {
		add(fmt.Sprintf("recoveries[%d].frontier", i), sl.a, sl.a.mask)
		add(fmt.Sprintf("recoveries[%d].decision", i), sl.b, sl.b.mask)
	}
	return out
}

// TestTypeCheckIsTypeOK compares the word-at-a-time TypeOK HoldPacked
// runs (typeCheck) with contract.go's typeOK on the readable state: on
// every reachable state of every faultParams model with each field of the
// layout (lengths included) set to every value it holds (300 states of
// the larger models), and on random
// states of those models and of many layouts of rangeLayouts' bounds
// (fields at a word's top, sequences over several words). A type range
// that is off by one, a field left out, a group that lets a carry reach
// the next field or a top field read as the others fail here.
func TestTypeCheckIsTypeOK(t *testing.T) {
	check := func(name string, m *Model, q Packed, what string) bool {
		t.Helper()
		want := m.TypeOK(m.Unpack(q))
		if got := m.lay.typeOK.holds(&q); got != want {
			t.Fatalf("%s: %s: typeCheck says %v, TypeOK on the readable state %v on\n%s", name, what, got, want, m.Format(m.Unpack(q)))
		}
		if got := m.HoldPacked(&q, typeOKSet); got != want {
			t.Fatalf("%s: %s: HoldPacked(TypeOK) says %v, TypeOK %v", name, what, got, want)
		}
		// Without the table by lengths (bounds too large for it), the
		// sum over each word's sequences.
		summed := m.lay.typeOK
		summed.byLens = nil
		if got := summed.holds(&q); got != want {
			t.Fatalf("%s: %s: typeCheck without byLens says %v, TypeOK %v", name, what, got, want)
		}
		return want
	}
	// clamp keeps a random state's lengths within the slots.
	clamp := func(m *Model, q *Packed) {
		l := &m.lay
		for _, sq := range []struct {
			f     field
			slots int
		}{{l.logLen, len(l.log)}, {l.resLen, len(l.resumes)}, {l.recLen, len(l.recoveries)}} {
			if sq.f.get(q) > uint64(sq.slots) {
				sq.f.set(q, uint64(sq.slots))
			}
		}
	}
	failing := 0
	for name, p := range faultParams() {
		m, states := reachable(t, p)
		fields := layoutFields(&m.lay)
		// Every state of the small models, an even spread of 300 of the
		// larger ones (their layouts are the point, not their states).
		stride := max(1, len(states)/300)
		for i := 0; i < len(states); i += stride {
			s := states[i]
			q, err := m.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			check(name, m, q, "reachable")
			for _, fd := range fields {
				for v := uint64(0); v <= fd.max; v++ {
					bad := q
					fd.f.set(&bad, v)
					if !check(name, m, bad, fd.name) {
						failing++
					}
				}
			}
		}
	}
	if failing == 0 {
		t.Fatal("no state outside the type was tried")
	}
	tabled := 0
	r := rand.New(rand.NewPCG(19, 1))
	models := faultParams()
	for n := 2; n <= 15; n += 2 {
		for crashes := 0; crashes <= 4; crashes++ {
			for _, f := range [][]Fault{nil, {Replay}, {InvalidPersist}, {NondetRec}, {DoubleConsume}} {
				p := Params{NTasks: n, IP: max(2, (n+1)/2), Values: []string{"a", "b", "c"}, NoVal: "none",
					MaxResumes: 2, MaxCrashes: crashes, MaxExtraResumes: 1, Racers: 1}
				p.Faults = p.Faults.With(f...)
				models[fmt.Sprintf("N%d-C%d-%v", n, crashes, f)] = p
			}
		}
	}
	for name, p := range models {
		m, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		if m.Packable() != nil {
			continue
		}
		if m.lay.typeOK.byLens != nil {
			tabled++
		}
		for range 300 {
			q := randomPacked(r, m)
			clamp(m, &q)
			check(name, m, q, fmt.Sprintf("random %x", q[:m.PackedWords()]))
			// Mostly typed, one field off: where a carry goes wrong.
			good := m.InitPacked()
			for _, fd := range layoutFields(&m.lay) {
				if r.IntN(3) == 0 {
					fd.f.set(&good, r.Uint64N(fd.max+1))
				}
			}
			check(name, m, good, fmt.Sprintf("random %x", good[:m.PackedWords()]))
		}
	}
	if tabled == 0 {
		t.Fatal("no model had the table by lengths")
	}
	// The table by lengths is what a state's lengths select: a table
	// that gives every combination the groups of empty sequences (so
	// checks no element) is caught.
	m, err := New(R8())
	if err != nil {
		t.Fatal(err)
	}
	// Each mutation of the word-wide comparison is caught as well: the
	// groups without their low bounds, without their high bounds, without
	// the top bits' comparison (the subtraction's verdict alone).
	mutations := map[string]func(tc *typeCheck){
		"a table that checks no element": func(tc *typeCheck) { tc.byLens = make([]uint16, len(tc.byLens)) },
		"no low bounds": func(tc *typeCheck) {
			for i := range tc.flat {
				tc.flat[i].notLo, tc.flat[i].loLow = ^uint64(0), 0
			}
		},
		"no high bounds": func(tc *typeCheck) {
			for i := range tc.flat {
				g := &tc.flat[i]
				g.hi, g.notHi, g.hiTop = g.mask, ^g.mask, g.mask|g.top
			}
		},
		"the subtraction alone": func(tc *typeCheck) {
			for i := range tc.flat {
				tc.flat[i].notLo = 0
			}
		},
	}
	for name, mutate := range mutations {
		mut := *m
		mut.lay.typeOK.flat = slices.Clone(m.lay.typeOK.flat)
		mutate(&mut.lay.typeOK)
		caught := false
		for range 5000 {
			q := m.InitPacked()
			for _, fd := range layoutFields(&m.lay) {
				if r.IntN(2) == 0 {
					fd.f.set(&q, r.Uint64N(fd.max+1))
				}
			}
			if mut.lay.typeOK.holds(&q) != m.TypeOK(m.Unpack(q)) {
				caught = true
				break
			}
		}
		if !caught {
			t.Fatalf("the mutation %q of typeCheck went unnoticed", name)
		}
	}
}

// TestFDCheckIsFD compares the word-at-a-time FD HoldPacked runs (fdCheck)
// with contract.go's fd on the readable state: on every reachable state of
// every faultParams model (forkignore's violate FD) with each resume field
// and the resumes' length set to every value they hold, and on random
// states of many layouts, among them resumes whose two fields are in
// different words (compared one by one; the test says so if none is).
func TestFDCheckIsFD(t *testing.T) {
	ones := 0
	check := func(name string, m *Model, q Packed, what string) bool {
		t.Helper()
		want := m.FD(m.Unpack(q))
		if got := m.lay.fd.holds(&q); got != want {
			t.Fatalf("%s: %s: fdCheck says %v, FD on the readable state %v on\n%s", name, what, got, want, m.Format(m.Unpack(q)))
		}
		if got := m.HoldPacked(&q, fdSet); got != want {
			t.Fatalf("%s: %s: HoldPacked(FD) says %v, FD %v", name, what, got, want)
		}
		// The loop over the comparisons, which holds reads directly when
		// there is one per length (fdCheck.one).
		loop := m.lay.fd
		loop.one = false
		if got := loop.holds(&q); got != want {
			t.Fatalf("%s: %s: fdCheck's loop says %v, FD %v", name, what, got, want)
		}
		if m.lay.fd.one {
			ones++
		}
		return want
	}
	failing := 0
	for name, p := range faultParams() {
		m, states := reachable(t, p)
		var fields []struct {
			f   field
			max uint64
		}
		fields = append(fields, struct {
			f   field
			max uint64
		}{m.lay.resLen, uint64(len(m.lay.resumes))})
		for _, sl := range m.lay.resumes {
			fields = append(fields, struct {
				f   field
				max uint64
			}{sl.a, sl.a.mask}, struct {
				f   field
				max uint64
			}{sl.b, sl.b.mask})
		}
		for _, s := range states {
			q, err := m.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			if !check(name, m, q, "reachable") {
				failing++
			}
			for _, fd := range fields {
				for v := uint64(0); v <= fd.max; v++ {
					bad := q
					fd.f.set(&bad, v)
					if !check(name, m, bad, fmt.Sprintf("a field set to %d", v)) {
						failing++
					}
				}
			}
		}
	}
	if failing == 0 {
		t.Fatal("no state violating FD was tried")
	}
	r := rand.New(rand.NewPCG(19, 2))
	pairs, words := 0, 0
	for n := 2; n <= 15; n++ {
		for resumes := 1; resumes <= 6; resumes++ {
			for _, values := range [][]string{{"a"}, {"a", "b"}, {"a", "b", "c"}, {"a", "b", "c", "d", "e"}} {
				p := Params{NTasks: n, IP: max(2, (n+1)/2), Values: values, NoVal: "none",
					MaxResumes: resumes, MaxCrashes: 2, MaxExtraResumes: 1, Racers: 1}
				m, err := New(p)
				if err != nil || m.Packable() != nil {
					continue
				}
				for _, w := range m.lay.fd.byLen[len(m.lay.resumes)] {
					if w.pair {
						pairs++
					} else {
						words++
					}
				}
				for range 50 {
					q := m.InitPacked()
					m.lay.resLen.set(&q, r.Uint64N(uint64(len(m.lay.resumes))+1))
					for _, sl := range m.lay.resumes {
						v := r.Uint64N(sl.a.mask + 1)
						sl.a.set(&q, v)
						if r.IntN(4) == 0 {
							v = r.Uint64N(sl.b.mask + 1)
						}
						sl.b.set(&q, v)
					}
					check(fmt.Sprint(p.NTasks, p.MaxResumes, len(values)), m, q, fmt.Sprintf("random %x", q[:m.PackedWords()]))
				}
			}
		}
	}
	if pairs == 0 || words == 0 {
		t.Fatalf("the layouts never split a resume over two words (%d) or keep one in a word (%d)", pairs, words)
	}
	if ones == 0 {
		t.Fatal("no layout had one comparison per length (fdCheck.one)")
	}
	// The mutation: R8's comparison for its longest resumes missing the
	// last resume is caught.
	m, err := New(R8())
	if err != nil {
		t.Fatal(err)
	}
	k := len(m.lay.resumes)
	if !m.lay.fd.one {
		t.Fatal("R8's resumes are not compared in one word")
	}
	mut := *m
	mut.lay.fd.oneMask = slices.Clone(m.lay.fd.oneMask)
	mut.lay.fd.oneMask[k] = m.lay.fd.oneMask[k-1]
	q := m.InitPacked()
	m.lay.resLen.set(&q, uint64(k))
	m.lay.resumes[k-1].a.set(&q, 1)
	if mut.lay.fd.holds(&q) == m.FD(m.Unpack(q)) {
		t.Fatal("a comparison missing a resume went unnoticed")
	}
}

// TestProgressFieldsAreProgress compares ProgressPacked and ProgressFunc
// (the layout's list of fields, newProgress) with contract.go's progress,
// generated for Packed, on random packed states of every faultParams model and of many
// layouts (every field holding anything it can, so that a field left out
// of the list or counted twice shows), and on every reachable state of
// the faultParams models. A mutation of the list fails it (below).
func TestProgressFieldsAreProgress(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 8))
	models := faultParams()
	for n := 2; n <= 12; n += 5 {
		for crashes := 0; crashes <= 3; crashes++ {
			for _, f := range [][]Fault{nil, {Replay}, {VolatilePark}, {DoubleConsume}, {RaceConsume}} {
				p := Params{NTasks: n, IP: max(2, (n+1)/2), Values: []string{"a", "b", "c"}, NoVal: "none",
					MaxResumes: 3, MaxCrashes: crashes, MaxExtraResumes: 2, Racers: 3, CrashWhileParked: true}
				p.Faults = p.Faults.With(f...)
				models[fmt.Sprintf("N%d-C%d-%v", n, crashes, f)] = p
			}
		}
	}
	differs := func(m *Model, q Packed) bool {
		return m.ProgressPacked(q) != progressPacked(m, m.packed(&q)) || m.ProgressFunc()(q) != m.ProgressPacked(q)
	}
	tried := 0
	for name, p := range models {
		m, err := New(p)
		if err != nil {
			t.Fatal(err)
		}
		if m.Packable() != nil {
			continue
		}
		for range 200 {
			q := randomPacked(r, m)
			if differs(m, q) {
				t.Fatalf("%s: ProgressPacked %d (ProgressFunc %d), progress %d on %x", name, m.ProgressPacked(q), m.ProgressFunc()(q), progressPacked(m, m.packed(&q)), q[:m.PackedWords()])
			}
			tried++
		}
		// The mutation: each field of the list left out in turn is seen.
		for drop := range m.lay.progress.n {
			mut := *m
			mut.lay.progress.fields[drop] = field{}
			seen := false
			for range 200 {
				q := randomPacked(r, m)
				if differs(&mut, q) {
					seen = true
					break
				}
			}
			if !seen {
				t.Fatalf("%s: leaving field %d out of the progress list went unnoticed", name, drop)
			}
		}
	}
	if tried == 0 {
		t.Fatal("no model was tried")
	}
	for name, p := range faultParams() {
		m, states := reachable(t, p)
		for _, s := range states {
			q, err := m.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := m.ProgressPacked(q), progressState(m, stateVars{&s}); got != want {
				t.Fatalf("%s: ProgressPacked %d, progress on the readable state %d", name, got, want)
			}
		}
	}
}

// TestFlagsOffAreTheInvariants compares the flag masks HoldPacked decides
// PCPrefix, PCLineage and PC with (flagsOffInvariants) with those
// invariants as generated from contract.go: on every reachable state of
// every faultParams model with each flag set and clear, and on random
// states; and shows that a mask missing a flag is caught.
func TestFlagsOffAreTheInvariants(t *testing.T) {
	flags := func(l *layout) []field { return []field{l.waiting, l.reentered, l.rebuilt, l.lost} }
	r := rand.New(rand.NewPCG(22, 9))
	for name, p := range faultParams() {
		m, states := reachable(t, p)
		check := func(m *Model, q Packed) bool {
			for inv := range flagsOffInvariants {
				i := bits.TrailingZeros32(uint32(invariantBit(inv)))
				if m.lay.flagsOff[i].holds(&q) != m.holdsPacked(i, &q) || m.HoldPacked(&q, 1<<i) != m.holdsPacked(i, &q) {
					return false
				}
			}
			return true
		}
		var tries []Packed
		for _, s := range states {
			q, err := m.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range flags(&m.lay) {
				for v := range uint64(2) {
					bad := q
					f.set(&bad, v)
					tries = append(tries, bad)
				}
			}
		}
		for range 300 {
			q := randomPacked(r, m)
			tries = append(tries, q)
		}
		for _, q := range tries {
			if !check(m, q) {
				t.Fatalf("%s: flagsOff and the generated invariants disagree on %x", name, q[:m.PackedWords()])
			}
		}
		// The mutation: PC's mask without one of its flags.
		for _, drop := range []field{m.lay.reentered, m.lay.rebuilt} {
			mut := *m
			i := bits.TrailingZeros32(uint32(invariantBit("PC")))
			z := &mut.lay.flagsOff[i]
			z.mask[0] &^= drop.mask << drop.shift
			z.mask[1] &^= drop.mask << drop.shift
			caught := false
			for _, q := range tries {
				if !check(&mut, q) {
					caught = true
					break
				}
			}
			if !caught {
				t.Fatalf("%s: PC without a flag went unnoticed", name)
			}
		}
	}
}

// TestCompletedIsPCDone compares CompletedPacked and CompletedFunc (the pc
// field's bits against Done's, layout.done) with completedPacked, generated from
// contract.go's completed, on every reachable state of every faultParams
// model with pc set to every value its field holds, and on random states;
// a comparison with Done - 1 is caught.
func TestCompletedIsPCDone(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 10))
	for name, p := range faultParams() {
		m, states := reachable(t, p)
		var tries []Packed
		for _, s := range states {
			q, err := m.Pack(s)
			if err != nil {
				t.Fatal(err)
			}
			for v := range m.lay.pc.mask + 1 {
				m.lay.pc.set(&q, v)
				tries = append(tries, q)
			}
		}
		for range 200 {
			q := randomPacked(r, m)
			tries = append(tries, q)
		}
		mut := *m
		mut.lay.done.bits = uint64(m.done-1) << m.lay.pc.shift
		caught, done := false, 0
		for _, q := range tries {
			want := completedPacked(m, m.packed(&q))
			if m.CompletedPacked(q) != want || m.CompletedFunc()(q) != want {
				t.Fatalf("%s: CompletedPacked %v (CompletedFunc %v), completed %v on %x", name, m.CompletedPacked(q), m.CompletedFunc()(q), want, q[:m.PackedWords()])
			}
			if want {
				done++
			}
			if mut.CompletedPacked(q) != want {
				caught = true
			}
		}
		if done == 0 || !caught {
			t.Fatalf("%s: no completed state tried (%d), or Done - 1 went unnoticed", name, done)
		}
	}
}

// randomPacked is a packed word array of m's width with every word
// random: mostly not a state of the model, and the fast paths must agree
// with the generated definitions there too.
func randomPacked(r *rand.Rand, m *Model) Packed {
	var q Packed
	for w := range m.PackedWords() {
		q[w] = r.Uint64()
	}
	return q
}

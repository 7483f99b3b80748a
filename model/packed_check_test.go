package model

import (
	"fmt"
	"math/rand/v2"
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
		for range 300 {
			var q Packed
			for w := range m.PackedWords() {
				q[w] = r.Uint64()
			}
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
}

// TestFDCheckIsFD compares the word-at-a-time FD HoldPacked runs (fdCheck)
// with contract.go's fd on the readable state: on every reachable state of
// every faultParams model (forkignore's violate FD) with each resume field
// and the resumes' length set to every value they hold, and on random
// states of many layouts, among them resumes whose two fields are in
// different words (compared one by one; the test says so if none is).
func TestFDCheckIsFD(t *testing.T) {
	check := func(name string, m *Model, q Packed, what string) bool {
		t.Helper()
		want := m.FD(m.Unpack(q))
		if got := m.lay.fd.holds(&q); got != want {
			t.Fatalf("%s: %s: fdCheck says %v, FD on the readable state %v on\n%s", name, what, got, want, m.Format(m.Unpack(q)))
		}
		if got := m.HoldPacked(&q, fdSet); got != want {
			t.Fatalf("%s: %s: HoldPacked(FD) says %v, FD %v", name, what, got, want)
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
}

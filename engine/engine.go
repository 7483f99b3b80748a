// Package engine is an explicit-state model checker for any model that
// offers initial states, labelled successors, named invariants and a
// canonical byte encoding. It knows nothing about the Resume contract.
//
// It explores breadth-first, so the first violation found has a shortest
// counterexample, and it counts the way TLC counts: "generated" is the
// number of initial states plus every successor computed (duplicates
// included), "distinct" the number of different states, and "depth" the
// number of breadth-first levels (a lone initial state has depth 1).
package engine

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"time"
)

// Model is what the engine explores. S is a state, L a transition label.
// Next must be deterministic: the same state yields the same successors in
// the same order.
type Model[S, L any] interface {
	Init() []S
	Next(s S, emit func(L, S))
	// Encode appends s's canonical encoding: equal states, equal bytes.
	Encode(dst []byte, s S) []byte
	Decode(b []byte) (S, error)
}

// Invariant is a named state predicate.
type Invariant[S any] struct {
	Name  string
	Holds func(S) bool
}

// Options configure a run. The zero value checks no invariant, with
// deadlock checking off, and stops at the first violation.
type Options[S any] struct {
	Invariants []Invariant[S]
	// CheckDeadlock reports a state without successors as a violation.
	CheckDeadlock bool
	// Continue goes on after violations (like TLC's -continue), recording
	// the first counterexample of each violated property, so that the
	// counts describe the whole reachable state space.
	Continue bool
	// Eventually, when set, checks the liveness property <>Eventually under
	// weak fairness of the whole next-state relation: every behaviour that
	// keeps taking steps while it can must reach such a state.
	Eventually *Invariant[S]
	// Progress, when set, is called about every ProgressEvery with the
	// figures so far (from the exploring goroutine).
	Progress      func(Stats)
	ProgressEvery time.Duration
}

// Verdict is the outcome of a run.
type Verdict int

// The verdicts.
const (
	Ok        Verdict = iota // every checked property holds
	Violation                // some property is violated; see Result.Violations
	Unknown                  // the run stopped early (cancelled)
)

func (v Verdict) String() string {
	return [...]string{"ok", "violation", "unknown"}[v]
}

// Kind says which sort of property a violation breaks.
type Kind string

// The kinds of violations.
const (
	KindInvariant Kind = "invariant"
	KindDeadlock  Kind = "deadlock"
	KindLiveness  Kind = "liveness"
)

// Step is one state of a counterexample and the label of the transition
// that reached it (the zero label for the initial state).
type Step[S, L any] struct {
	Label L
	State S
	// Initial is true for the first step.
	Initial bool
}

// ViolationInfo is one violated property and a shortest behaviour showing it.
type ViolationInfo[S, L any] struct {
	Kind Kind
	// Name is the invariant's name (empty for a deadlock).
	Name  string
	Trace []Step[S, L]
	// LoopTo, for a liveness lasso, is the index in Trace where the cycle
	// re-enters; -1 when the behaviour ends by stuttering forever.
	LoopTo int
}

// Stats are the counts of a run so far.
type Stats struct {
	Generated uint64
	Distinct  uint64
	Queue     uint64
	Depth     int
	Elapsed   time.Duration
}

// Result is the outcome of a run.
type Result[S, L any] struct {
	Verdict    Verdict
	Violations []ViolationInfo[S, L]
	Stats
}

// node is one distinct state: its encoding and how it was first reached.
type node[L any] struct {
	enc    string
	parent int32 // -1 for an initial state
	label  L
}

// Check explores m from its initial states.
func Check[S, L any](ctx context.Context, m Model[S, L], opt Options[S]) (*Result[S, L], error) {
	start := time.Now()
	res := &Result[S, L]{}
	seed := maphash.MakeSeed()
	seen := map[uint64]int32{} // fingerprint -> node index
	var nodes []node[L]
	violated := map[string]bool{}

	var buf []byte
	add := func(s S, parent int32, l L) (int32, bool, error) {
		buf = m.Encode(buf[:0], s)
		fp := maphash.Bytes(seed, buf)
		if i, ok := seen[fp]; ok {
			if nodes[i].enc != string(buf) {
				return 0, false, fmt.Errorf("engine: 64-bit fingerprint collision after %d states", len(nodes))
			}
			return i, false, nil
		}
		if len(nodes) >= 1<<31-1 {
			return 0, false, errors.New("engine: more than 2^31 states; use a larger engine")
		}
		i := int32(len(nodes))
		seen[fp] = i
		nodes = append(nodes, node[L]{enc: string(buf), parent: parent, label: l})
		return i, true, nil
	}
	trace := func(i int32) ([]Step[S, L], error) {
		var rev []int32
		for ; i >= 0; i = nodes[i].parent {
			rev = append(rev, i)
		}
		out := make([]Step[S, L], 0, len(rev))
		for k := len(rev) - 1; k >= 0; k-- {
			n := nodes[rev[k]]
			s, err := m.Decode([]byte(n.enc))
			if err != nil {
				return nil, err
			}
			out = append(out, Step[S, L]{Label: n.label, State: s, Initial: n.parent < 0})
		}
		return out, nil
	}
	// check records violations of s (node i); it reports whether to stop.
	check := func(s S, i int32) (bool, error) {
		for _, inv := range opt.Invariants {
			if violated[inv.Name] || inv.Holds(s) {
				continue
			}
			violated[inv.Name] = true
			tr, err := trace(i)
			if err != nil {
				return true, err
			}
			res.Violations = append(res.Violations, ViolationInfo[S, L]{
				Kind: KindInvariant, Name: inv.Name, Trace: tr, LoopTo: -1})
			if !opt.Continue {
				return true, nil
			}
		}
		return false, nil
	}

	var zero L
	var level []int32
	stop := false
	for _, s := range m.Init() {
		res.Generated++
		i, isNew, err := add(s, -1, zero)
		if err != nil {
			return nil, err
		}
		if isNew {
			level = append(level, i)
			if stop, err = check(s, i); err != nil {
				return nil, err
			}
			if stop {
				break
			}
		}
	}
	if len(level) > 0 {
		res.Depth = 1
	}
	lastReport := start
	every := opt.ProgressEvery
	if every <= 0 {
		every = 3 * time.Second
	}
	stats := func(queue int) Stats {
		st := res.Stats
		st.Distinct = uint64(len(nodes))
		st.Queue = uint64(queue)
		st.Elapsed = time.Since(start)
		return st
	}
	cancelled := false
	for len(level) > 0 && !stop {
		var next []int32
		for k, i := range level {
			if k&1023 == 0 {
				if ctx.Err() != nil {
					cancelled = true
					stop = true
					break
				}
				if opt.Progress != nil && time.Since(lastReport) >= every {
					lastReport = time.Now()
					opt.Progress(stats(len(level) - k + len(next)))
				}
			}
			s, err := m.Decode([]byte(nodes[i].enc))
			if err != nil {
				return nil, err
			}
			successors := 0
			var innerErr error
			m.Next(s, func(l L, t S) {
				if stop || innerErr != nil {
					return
				}
				successors++
				res.Generated++
				j, isNew, err := add(t, i, l)
				if err != nil {
					innerErr = err
					return
				}
				if isNew {
					next = append(next, j)
					stop, innerErr = check(t, j)
				}
			})
			if innerErr != nil {
				return nil, innerErr
			}
			if stop {
				break
			}
			if successors == 0 && opt.CheckDeadlock && !violated[string(KindDeadlock)] {
				violated[string(KindDeadlock)] = true
				tr, err := trace(i)
				if err != nil {
					return nil, err
				}
				res.Violations = append(res.Violations, ViolationInfo[S, L]{Kind: KindDeadlock, Trace: tr, LoopTo: -1})
				if !opt.Continue {
					stop = true
					break
				}
			}
		}
		if len(next) > 0 && !cancelled {
			res.Depth++
		}
		level = next
	}
	res.Stats = stats(len(level))
	if cancelled {
		res.Verdict = Unknown
		return res, nil
	}
	if opt.Eventually != nil && (len(res.Violations) == 0 || opt.Continue) {
		v, err := checkEventually(ctx, m, *opt.Eventually)
		if err != nil {
			return nil, err
		}
		if v != nil {
			res.Violations = append(res.Violations, *v)
		}
	}
	if len(res.Violations) > 0 {
		res.Verdict = Violation
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

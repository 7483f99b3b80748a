package check

import (
	"context"
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// StateDiff compares TLC's distinct states with the Go engine's.
type StateDiff struct {
	TLC int `json:"tlc"` // distinct states in TLC's dump
	Go  int `json:"go"`  // states the Go model reaches
	// OnlyTLC and OnlyGo are the first states (in each checker's order of
	// discovery) that the other one does not have, up to the limit asked
	// for; the counts are of all of them.
	OnlyTLC      []DiffState `json:"only_tlc,omitempty"`
	OnlyGo       []DiffState `json:"only_go,omitempty"`
	OnlyTLCCount int         `json:"only_tlc_count"`
	OnlyGoCount  int         `json:"only_go_count"`
}

// Equal reports whether the two sets are the same.
func (d *StateDiff) Equal() bool { return d.OnlyTLCCount == 0 && d.OnlyGoCount == 0 }

// DiffState is a state one checker found and the other did not.
type DiffState struct {
	// Index is the state's number in its checker's order, from 1 (TLC's
	// "State N:" in the dump).
	Index int `json:"index"`
	// Text is the state as TLC prints it.
	Text string `json:"state"`
	// Problem says why a TLC state is not a state of the Go model at all
	// (a variable it does not have, a value out of its bounds).
	Problem string `json:"problem,omitempty"`
}

// Write prints the comparison for people.
func (d *StateDiff) Write(sb *strings.Builder) {
	if d.Equal() {
		fmt.Fprintf(sb, "States: the same %s in TLC's dump and in the Go engine's search.\n", english.Count(d.Go, "state"))
		return
	}
	fmt.Fprintf(sb, "States differ: TLC has %d, the Go engine %d; %d only in TLC's dump, %d only in the Go engine's search.\n",
		d.TLC, d.Go, d.OnlyTLCCount, d.OnlyGoCount)
	for _, s := range d.OnlyTLC {
		fmt.Fprintf(sb, "Only TLC (state %d of its dump):\n", s.Index)
		if s.Problem != "" {
			fmt.Fprintf(sb, "(not a state of the Go model: %s)\n", s.Problem)
		}
		sb.WriteString(s.Text + "\n")
	}
	for _, s := range d.OnlyGo {
		fmt.Fprintf(sb, "Only Go (state %d of its breadth-first search):\n%s\n", s.Index, s.Text)
	}
}

// SetDiff compares the states a compiled mirror reaches with those the
// TLA+ interpreter reaches on the same spec and cfg, as TLA+ values.
type SetDiff struct {
	Mirror int `json:"mirror"` // states the compiled mirror reaches
	Interp int `json:"interpreter"`
	// OnlyMirror and OnlyInterp are the first states (breadth-first) the
	// other side does not reach, up to the limit asked for; the counts
	// are of all of them.
	OnlyMirror      []DiffState `json:"only_mirror,omitempty"`
	OnlyInterp      []DiffState `json:"only_interpreter,omitempty"`
	OnlyMirrorCount int         `json:"only_mirror_count"`
	OnlyInterpCount int         `json:"only_interpreter_count"`
}

// Equal reports whether the two sets are the same.
func (d *SetDiff) Equal() bool { return d.OnlyMirrorCount == 0 && d.OnlyInterpCount == 0 }

// Write prints the comparison for people.
func (d *SetDiff) Write(sb *strings.Builder) {
	if d.Equal() {
		fmt.Fprintf(sb, "States: the same %s in the Go mirror's search and in the interpreter's.\n", english.Count(d.Mirror, "state"))
		return
	}
	fmt.Fprintf(sb, "States differ: the Go mirror reaches %d, the interpreter %d; %d only the mirror's, %d only the interpreter's.\n",
		d.Mirror, d.Interp, d.OnlyMirrorCount, d.OnlyInterpCount)
	for _, s := range d.OnlyMirror {
		fmt.Fprintf(sb, "Only the Go mirror (state %d of its breadth-first search):\n%s\n", s.Index, s.Text)
	}
	for _, s := range d.OnlyInterp {
		fmt.Fprintf(sb, "Only the interpreter (state %d of its breadth-first search):\n", s.Index)
		if s.Problem != "" {
			fmt.Fprintf(sb, "(not a state of the Go mirror: %s)\n", s.Problem)
		}
		sb.WriteString(s.Text + "\n")
	}
}

// CompareMirrorStates compares the states the job's compiled mirror
// reaches (with its Mutate) with those ij, the same spec and cfg on the
// interpreter, reaches, keeping up to max differing states on each side
// (0 means 3).
func CompareMirrorStates(ctx context.Context, job, ij *Job, max int) (*SetDiff, error) {
	if max <= 0 {
		max = 3
	}
	key := func(vs tlavalue.State) (string, error) { return strings.TrimRight(vs.Sorted().String(), "\n"), nil }
	if job.Symmetry != "" && job.other == nil {
		// One state per orbit on both sides: compare the orbits, by the
		// mirror's representative.
		mm, err := job.Machine()
		if err != nil {
			return nil, err
		}
		key = func(vs tlavalue.State) (string, error) {
			s, err := mm.StateFromVars(vs.Map())
			if err != nil {
				return "", err
			}
			p, err := mm.Pack(s)
			if err != nil {
				return "", err
			}
			return strings.TrimRight(mm.Format(mm.Unpack(mm.CanonicalPacked(p))), "\n"), nil
		}
	}
	mirror := map[string]int{}
	var order []string
	add := func(vs tlavalue.State) error {
		k, err := key(vs)
		if err != nil {
			return err
		}
		if _, dup := mirror[k]; !dup {
			mirror[k] = len(order) + 1
			order = append(order, k)
		}
		return nil
	}
	var err error
	if job.other == nil {
		var mm Machine
		if mm, err = job.Machine(); err != nil {
			return nil, err
		}
		err = job.States(ctx, func(s model.State) error { return add(mm.VarState(s)) })
	} else {
		err = job.VarStates(ctx, add)
	}
	if err != nil {
		return nil, err
	}
	d := &SetDiff{Mirror: len(order)}
	matched := map[string]bool{}
	err = ij.VarStates(ctx, func(vs tlavalue.State) error {
		k, err := key(vs)
		if err != nil {
			d.Interp++
			d.OnlyInterpCount++
			if len(d.OnlyInterp) < max {
				d.OnlyInterp = append(d.OnlyInterp, DiffState{Index: d.Interp, Text: strings.TrimRight(vs.Sorted().String(), "\n"), Problem: err.Error()})
			}
			return nil
		}
		if matched[k] {
			return nil
		}
		matched[k] = true
		d.Interp++
		if _, ok := mirror[k]; ok {
			return nil
		}
		d.OnlyInterpCount++
		if len(d.OnlyInterp) < max {
			d.OnlyInterp = append(d.OnlyInterp, DiffState{Index: d.Interp, Text: k})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range order {
		if !matched[k] {
			d.OnlyMirrorCount++
			if len(d.OnlyMirror) < max {
				d.OnlyMirror = append(d.OnlyMirror, DiffState{Index: mirror[k], Text: k})
			}
		}
	}
	return d, nil
}

package crosscheck

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/resumecontract/resumecheck/check"
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

// CompareStates reads TLC's dump of every distinct state and compares it
// with the states the job's Go model reaches, keeping up to max differing
// states on each side (0 means 3).
func CompareStates(ctx context.Context, job *check.Job, dump string, max int) (*StateDiff, error) {
	if max <= 0 {
		max = 3
	}
	if job.Other() != nil {
		return compareVarStates(ctx, job, dump, max)
	}
	m, err := model.New(job.Params)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(dump)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &StateDiff{}
	// TLC's dump may list a state twice (it does when it checks liveness):
	// the comparison is of sets.
	tlcStates := map[model.Packed]int{} // state -> its first index in the dump
	var order []model.Packed
	index := 0
	err = tlavalue.ReadDump(f, func(s tlavalue.State) error {
		index++
		ms, err := m.StateFromVars(s.Map())
		var p model.Packed
		if err == nil {
			p, err = m.Pack(ms)
		}
		if err != nil {
			d.TLC++
			d.OnlyTLCCount++
			if len(d.OnlyTLC) < max {
				d.OnlyTLC = append(d.OnlyTLC, DiffState{Index: index, Text: strings.TrimRight(s.Sorted().String(), "\n"), Problem: err.Error()})
			}
			return nil
		}
		if _, dup := tlcStates[p]; !dup {
			d.TLC++
			tlcStates[p] = index
			order = append(order, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading TLC's dump %s: %w", dump, err)
	}
	matched := make(map[model.Packed]bool, len(tlcStates))
	err = job.States(ctx, func(s model.State) error {
		d.Go++
		p, err := m.Pack(s)
		if err != nil {
			return err
		}
		if _, ok := tlcStates[p]; ok {
			matched[p] = true
			return nil
		}
		d.OnlyGoCount++
		if len(d.OnlyGo) < max {
			d.OnlyGo = append(d.OnlyGo, DiffState{Index: d.Go, Text: m.Format(s)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range order {
		if matched[p] {
			continue
		}
		d.OnlyTLCCount++
		if len(d.OnlyTLC) < max {
			d.OnlyTLC = append(d.OnlyTLC, DiffState{Index: tlcStates[p], Text: m.Format(m.Unpack(p))})
		}
	}
	return d, nil
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

// compareVarStates is CompareStates for a spec other than Resume, through
// the seam: each state as TLA+ values, keyed by the spec's encoding.
func compareVarStates(ctx context.Context, job *check.Job, dump string, max int) (*StateDiff, error) {
	sp := job.Other()
	f, err := os.Open(dump)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := &StateDiff{}
	tlcStates := map[string]int{} // state key -> its first index in the dump
	texts := map[string]string{}
	var order []string
	index := 0
	err = tlavalue.ReadDump(f, func(s tlavalue.State) error {
		index++
		text := strings.TrimRight(s.Sorted().String(), "\n")
		key, err := sp.Key(s)
		if err != nil {
			d.TLC++
			d.OnlyTLCCount++
			if len(d.OnlyTLC) < max {
				d.OnlyTLC = append(d.OnlyTLC, DiffState{Index: index, Text: text, Problem: err.Error()})
			}
			return nil
		}
		if _, dup := tlcStates[key]; !dup {
			d.TLC++
			tlcStates[key] = index
			texts[key] = text
			order = append(order, key)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading TLC's dump %s: %w", dump, err)
	}
	matched := make(map[string]bool, len(tlcStates))
	err = job.VarStates(ctx, func(s tlavalue.State) error {
		d.Go++
		key, err := sp.Key(s)
		if err != nil {
			return err
		}
		if _, ok := tlcStates[key]; ok {
			matched[key] = true
			return nil
		}
		d.OnlyGoCount++
		if len(d.OnlyGo) < max {
			d.OnlyGo = append(d.OnlyGo, DiffState{Index: d.Go, Text: strings.TrimRight(s.Sorted().String(), "\n")})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, k := range order {
		if matched[k] {
			continue
		}
		d.OnlyTLCCount++
		if len(d.OnlyTLC) < max {
			d.OnlyTLC = append(d.OnlyTLC, DiffState{Index: tlcStates[k], Text: texts[k]})
		}
	}
	return d, nil
}

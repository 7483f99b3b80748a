package crosscheck

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// StateDiff and DiffState are check's: the comparison's result is data
// that renderers (the matrix, verify) use without running TLC.
type (
	StateDiff = check.StateDiff
	DiffState = check.DiffState
)

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
		if err == nil && job.Symmetry != "" {
			// Under SYMMETRY each engine keeps the state of an orbit it
			// found first: compare the orbits.
			p = m.CanonicalPacked(p)
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
		if job.Symmetry != "" {
			p = m.CanonicalPacked(p)
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

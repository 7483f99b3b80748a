package check

import (
	"fmt"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
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

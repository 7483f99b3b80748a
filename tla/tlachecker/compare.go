package tlachecker

import (
	"fmt"
	"slices"
	"strings"
)

// DiffKind says what two graphs disagree about.
type DiffKind string

// The kinds of disagreement, in the order Compare looks for them.
const (
	DiffVars       DiffKind = "variables"
	DiffIdentity   DiffKind = "identity"
	DiffCount      DiffKind = "distinct states"
	DiffInit       DiffKind = "initial states"
	DiffSuccessors DiffKind = "successors"
	DiffActions    DiffKind = "actions"
	DiffReach      DiffKind = "reachable states"
)

// Diff is one disagreement between graph A and graph B of a Comparison.
type Diff struct {
	Kind DiffKind
	// State is the state whose successors (DiffSuccessors) or whose
	// transitions' actions (DiffActions) differ.
	State string
	// OnlyA and OnlyB are what one side has and the other lacks: edges
	// for successors and actions, targets only (Action "") for initial
	// and reachable states.
	OnlyA, OnlyB []Edge
	// Msg describes count, variable and identity differences.
	Msg string
}

// Comparison is the verdict of Compare: equal graphs have no Diffs.
type Comparison struct {
	A, B  *Graph
	Diffs []Diff
}

// Equal reports whether the graphs agree.
func (c *Comparison) Equal() bool { return len(c.Diffs) == 0 }

// Compare checks that a and b are the same state graph: the same
// variables, the same number of distinct states (each by its source's own
// identity, and that identity agreeing with the canonical encoding), the
// same initial states, and for every state reachable in both, the same set
// of successors. Where both sides name the actions of transitions, the
// operator names (the label up to any parameter) must agree too, allowing
// for a side that keeps one transition per target (see actionsAgree). States
// are visited in a's order, so with breadth-first sources the first
// successor difference is the one closest to the initial states.
func Compare(a, b *Graph) *Comparison {
	c := &Comparison{A: a, B: b}
	if !slices.Equal(a.Vars, b.Vars) {
		c.Diffs = append(c.Diffs, Diff{Kind: DiffVars,
			Msg: fmt.Sprintf("%s has variables %v, %s has %v", a.Source, a.Vars, b.Source, b.Vars)})
	}
	for _, g := range []*Graph{a, b} {
		if g.Distinct != len(g.States) {
			c.Diffs = append(c.Diffs, Diff{Kind: DiffIdentity,
				Msg: fmt.Sprintf("%s tells %d states apart, the canonical encoding %d", g.Source, g.Distinct, len(g.States))})
		}
	}
	if a.Distinct != b.Distinct {
		c.Diffs = append(c.Diffs, Diff{Kind: DiffCount,
			Msg: fmt.Sprintf("%s finds %d distinct states, %s %d", a.Source, a.Distinct, b.Source, b.Distinct)})
	}
	if onlyA, onlyB := setDiff(a.Init, b.Init); len(onlyA)+len(onlyB) > 0 {
		c.Diffs = append(c.Diffs, Diff{Kind: DiffInit, OnlyA: onlyA, OnlyB: onlyB})
	}
	var actionDiffs []Diff
	var onlyA []Edge
	for _, s := range a.States {
		bNext, ok := b.Next[s]
		if !ok {
			onlyA = append(onlyA, Edge{To: s})
			continue
		}
		aNext := a.Next[s]
		if ea, eb := edgeDiff(aNext, bNext); len(ea)+len(eb) > 0 {
			c.Diffs = append(c.Diffs, Diff{Kind: DiffSuccessors, State: s, OnlyA: ea, OnlyB: eb})
		}
		if ea, eb := actionDiff(a, b, s); len(ea)+len(eb) > 0 {
			actionDiffs = append(actionDiffs, Diff{Kind: DiffActions, State: s, OnlyA: ea, OnlyB: eb})
		}
	}
	var onlyB []Edge
	for _, s := range b.States {
		if _, ok := a.Next[s]; !ok {
			onlyB = append(onlyB, Edge{To: s})
		}
	}
	c.Diffs = append(c.Diffs, actionDiffs...)
	if len(onlyA)+len(onlyB) > 0 {
		c.Diffs = append(c.Diffs, Diff{Kind: DiffReach, OnlyA: onlyA, OnlyB: onlyB})
	}
	return c
}

// setDiff returns the elements of sorted sets a and b that the other lacks.
func setDiff(a, b []string) (onlyA, onlyB []Edge) {
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			onlyA = append(onlyA, Edge{To: s})
		}
	}
	for _, s := range b {
		if _, found := slices.BinarySearch(a, s); !found {
			onlyB = append(onlyB, Edge{To: s})
		}
	}
	return onlyA, onlyB
}

// edgeDiff returns the transitions of a whose target b does not reach,
// and the other way round.
func edgeDiff(a, b []Edge) (onlyA, onlyB []Edge) {
	reaches := func(es []Edge, to string) bool {
		return slices.ContainsFunc(es, func(e Edge) bool { return e.To == to })
	}
	for _, e := range a {
		if !reaches(b, e.To) {
			onlyA = append(onlyA, e)
		}
	}
	for _, e := range b {
		if !reaches(a, e.To) {
			onlyB = append(onlyB, e)
		}
	}
	return onlyA, onlyB
}

// actionDiff compares, for every target both sides reach, the operators
// that take each side there (see actionsAgree), and returns the
// transitions whose operator the other side lacks.
func actionDiff(a, b *Graph, from string) (onlyA, onlyB []Edge) {
	ops := func(g *Graph, to string) []string {
		var out []string
		for _, e := range g.Next[from] {
			if e.To == to && e.Action != "" {
				out = append(out, Operator(e.Action))
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, e := range a.Next[from] {
		opsA, opsB := ops(a, e.To), ops(b, e.To)
		if !actionsAgree(opsA, opsB, a.OneActionPerTarget, b.OneActionPerTarget) &&
			!slices.Contains(opsB, Operator(e.Action)) {
			onlyA = append(onlyA, e)
		}
	}
	for _, e := range b.Next[from] {
		opsA, opsB := ops(a, e.To), ops(b, e.To)
		if !actionsAgree(opsA, opsB, a.OneActionPerTarget, b.OneActionPerTarget) &&
			!slices.Contains(opsA, Operator(e.Action)) {
			onlyB = append(onlyB, e)
		}
	}
	return onlyA, onlyB
}

// actionsAgree decides whether the operators two sides name for one
// transition target agree. A side that names none is not compared. A side
// that keeps one transition per target must name only operators the other
// names; two such sides must share one; otherwise the sets must be equal.
func actionsAgree(opsA, opsB []string, oneA, oneB bool) bool {
	subset := func(xs, ys []string) bool {
		for _, x := range xs {
			if !slices.Contains(ys, x) {
				return false
			}
		}
		return true
	}
	switch {
	case len(opsA) == 0 || len(opsB) == 0:
		return true
	case oneA && oneB:
		return slices.ContainsFunc(opsA, func(op string) bool { return slices.Contains(opsB, op) })
	case oneA:
		return subset(opsA, opsB)
	case oneB:
		return subset(opsB, opsA)
	}
	return slices.Equal(opsA, opsB)
}

// Operator is the spec operator an action label names: "Consume(va)" and
// "Consume" are both Consume.
func Operator(label string) string {
	op, _, _ := strings.Cut(label, "(")
	return strings.TrimSpace(op)
}

// maxShown bounds how many successor differences a report prints in full.
const maxShown = 5

// String prints every difference, each state with a shortest path to it,
// its successor sets on both sides, and what changes along the edges only
// one side has.
func (c *Comparison) String() string {
	if c.Equal() {
		return fmt.Sprintf("%s and %s agree: %d distinct states", c.A.Source, c.B.Source, c.A.Distinct)
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s and %s disagree; differences: %d\n", c.A.Source, c.B.Source, len(c.Diffs))
	shown := 0
	for _, d := range c.Diffs {
		if d.State != "" {
			if shown == maxShown {
				fmt.Fprintf(&sb, "... and more states whose transitions differ (%d differences in all)\n", len(c.Diffs))
				break
			}
			shown++
		}
		c.writeDiff(&sb, d)
	}
	return strings.TrimRight(sb.String(), "\n")
}

func (c *Comparison) writeDiff(sb *strings.Builder, d Diff) {
	switch d.Kind {
	case DiffVars, DiffIdentity, DiffCount:
		fmt.Fprintf(sb, "%s: %s\n", d.Kind, d.Msg)
	case DiffInit, DiffReach:
		fmt.Fprintf(sb, "%s:\n", d.Kind)
		c.writeStates(sb, c.A, d.OnlyA)
		c.writeStates(sb, c.B, d.OnlyB)
	case DiffSuccessors, DiffActions:
		fmt.Fprintf(sb, "%s differ at state\n    %s\n", d.Kind, d.State)
		fmt.Fprintf(sb, "  reached by: %s\n", c.path(d.State))
		for _, g := range []*Graph{c.A, c.B} {
			fmt.Fprintf(sb, "  %s successors (%d):\n", g.Source, len(g.Next[d.State]))
			for _, e := range g.Next[d.State] {
				fmt.Fprintf(sb, "    %s -> %s\n", actionName(e), e.To)
			}
		}
		c.writeOnly(sb, c.A, d.State, d.OnlyA)
		c.writeOnly(sb, c.B, d.State, d.OnlyB)
	}
}

// writeStates lists states only g has, at most maxShown of them.
func (c *Comparison) writeStates(sb *strings.Builder, g *Graph, only []Edge) {
	if len(only) == 0 {
		return
	}
	fmt.Fprintf(sb, "  only %s (%d):\n", g.Source, len(only))
	for i, e := range only {
		if i == maxShown {
			fmt.Fprintf(sb, "    ...\n")
			break
		}
		fmt.Fprintf(sb, "    %s\n", e.To)
	}
}

// writeOnly lists the transitions only g has, with what each changes.
func (c *Comparison) writeOnly(sb *strings.Builder, g *Graph, from string, only []Edge) {
	if len(only) == 0 {
		fmt.Fprintf(sb, "  only %s: none\n", g.Source)
		return
	}
	fmt.Fprintf(sb, "  only %s (%d):\n", g.Source, len(only))
	for _, e := range only {
		fmt.Fprintf(sb, "    %s -> %s\n      changes: %s\n", actionName(e), e.To, changes(g.Values[from], g.Values[e.To]))
	}
}

func actionName(e Edge) string {
	if e.Action == "" {
		return "(unnamed)"
	}
	return e.Action
}

// path prints a shortest way to state, in B's labels if B reaches it
// (the Go model's labels carry parameters), else in A's.
func (c *Comparison) path(state string) string {
	for _, g := range []*Graph{c.B, c.A} {
		if p, ok := g.Path(state); ok {
			if len(p) == 0 {
				return "an initial state"
			}
			labels := make([]string, len(p))
			for i, e := range p {
				labels[i] = actionName(e)
			}
			return fmt.Sprintf("%s (in %s)", strings.Join(labels, ", "), g.Source)
		}
	}
	return "(unreachable)"
}

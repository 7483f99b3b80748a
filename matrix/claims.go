package matrix

import (
	"github.com/resumecontract/resumecheck/model"

	"fmt"
	"slices"
	"strings"
)

// Claim is one statement about the matrix, checked against it.
type Claim struct {
	ID        string `json:"id"`
	Statement string `json:"statement"`
	Holds     bool   `json:"holds"`
	// Witnesses are the rows that make the claim true (or, for a claim
	// that fails, the rows that break it).
	Witnesses []string `json:"witnesses"`
}

// others returns the names in all that are not in except.
func others(all []string, except ...string) []string {
	return slices.DeleteFunc(slices.Clone(all), func(s string) bool { return slices.Contains(except, s) })
}

// faultRows are the rows with a fault on.
func (r *Result) faultRows() []RowResult {
	return slices.DeleteFunc(slices.Clone(r.Rows), func(rr RowResult) bool { return rr.Fault == "" })
}

// Claims evaluates the contract's independence claims on a matrix.
func Claims(r *Result) []Claim {
	var out []Claim
	obligations := append(slices.Clone(Safety), model.Liveness)

	// Each safety obligation is violated, alone, by some fault.
	for _, o := range Safety {
		c := Claim{ID: "independent-" + o,
			Statement: fmt.Sprintf("%s is independent: some fault violates %s and no other obligation", o, o)}
		for _, rr := range r.faultRows() {
			if slices.Equal(rr.Violated(obligations...), []string{o}) {
				c.Witnesses = append(c.Witnesses, rr.Name)
			}
		}
		c.Holds = len(c.Witnesses) > 0
		out = append(out, c)
	}

	// The count clause of CO is independent of the other six and of CO's
	// effect clause.
	{
		c := Claim{ID: "independent-COCount",
			Statement: "CO's count clause is independent: some fault violates COCount while EO, PC, FD, CV, RD, Liveness and CO's effect clause hold"}
		for _, rr := range r.faultRows() {
			if rr.Cells[model.COCount].Violated && len(rr.Violated(append(others(obligations, model.CO), model.COEffect)...)) == 0 {
				c.Witnesses = append(c.Witnesses, rr.Name)
			}
		}
		c.Holds = len(c.Witnesses) > 0
		out = append(out, c)
	}

	// The lineage clause of PC is independent of its prefix clause.
	{
		c := Claim{ID: "independent-PCLineage",
			Statement: "PC's lineage clause is independent: some fault violates PCLineage while PC's prefix clause and every other obligation hold"}
		for _, rr := range r.faultRows() {
			if rr.Cells[model.PCLineage].Violated && len(rr.Violated(append(others(obligations, model.PC), model.PCPrefix)...)) == 0 {
				c.Witnesses = append(c.Witnesses, rr.Name)
			}
		}
		c.Holds = len(c.Witnesses) > 0
		out = append(out, c)
	}

	// Liveness is separated from every safety property.
	{
		c := Claim{ID: "independent-Liveness",
			Statement: "Liveness is independent of safety: some fault violates Liveness while every safety obligation and clause holds"}
		for _, rr := range r.faultRows() {
			if rr.Cells[model.Liveness].Violated && len(rr.Violated(others(columnNames(), model.Liveness)...)) == 0 {
				c.Witnesses = append(c.Witnesses, rr.Name)
			}
		}
		c.Holds = len(c.Witnesses) > 0
		out = append(out, c)
	}

	// CO's effect clause is implied by EO: it never fails alone.
	{
		c := Claim{ID: "implied-COEffect",
			Statement: "CO's effect clause follows from EO: no model violates COEffect while EO holds"}
		c.Holds = true
		for _, rr := range r.Rows {
			if rr.Cells[model.COEffect].Violated && !rr.Cells[model.EO].Violated {
				c.Holds = false
				c.Witnesses = append(c.Witnesses, rr.Name)
			}
		}
		out = append(out, c)
	}

	// Fork intent: without the discriminator, a second delivery to the
	// consumed checkpoint is either served its own value (a fresh
	// consumption: CO fails) or treated as inert (the first outcome: FD
	// fails).
	{
		c := Claim{ID: "fork-intent",
			Statement: "Fork intent is needed: without it, serving a second delivery its own value breaks CO (nointent) and serving it the first outcome breaks FD (forkignore), so FD and CO cannot both hold"}
		serve, ok1 := r.Row("nointent")
		inert, ok2 := r.Row("forkignore")
		c.Holds = ok1 && ok2 &&
			serve.Cells[model.CO].Violated && !serve.Cells[model.FD].Violated &&
			inert.Cells[model.FD].Violated && !inert.Cells[model.CO].Violated
		if ok1 {
			c.Witnesses = append(c.Witnesses, "nointent")
		}
		if ok2 {
			c.Witnesses = append(c.Witnesses, "forkignore")
		}
		out = append(out, c)
	}

	// The reference semantics satisfies everything.
	{
		c := Claim{ID: "reference",
			Statement: "The reference semantics satisfies every obligation, with and without the extensions"}
		c.Holds = true
		for _, rr := range r.Rows {
			if rr.Fault != "" {
				continue
			}
			if v := rr.Violated(); len(v) > 0 {
				c.Holds = false
				c.Witnesses = append(c.Witnesses, rr.Name+" violates "+strings.Join(v, ", "))
			} else {
				c.Witnesses = append(c.Witnesses, rr.Name)
			}
		}
		out = append(out, c)
	}
	return out
}

func columnNames() []string {
	names := make([]string, len(Columns))
	for i, c := range Columns {
		names[i] = c.Name
	}
	return names
}

// AllHold reports whether every claim holds.
func (r *Result) AllHold() bool {
	for _, c := range r.Claims {
		if !c.Holds {
			return false
		}
	}
	return true
}

package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/internal/tlacfg"
	"github.com/resumecontract/resumecheck/internal/tlc"
)

// IndCheck is the TLC run that checks the same induction step as an
// InductJob (docs/induct.md): a module IndCheck extending the spec, with
//
//	IndInit    == Type /\ Inv
//	IndOneStep == TLCGet("level") = 1
//
// and a cfg with INIT IndInit, the spec's NEXT, INVARIANTS Type Inv,
// CONSTRAINT IndOneStep and no deadlock checking. TLC enumerates IndInit
// as it enumerates any initial predicate, so its distinct initial states
// are the states of Type /\ Inv; it checks the invariants on each
// successor; and the constraint, true of the initial states (level 1)
// only, keeps it from exploring past one step: a successor not already an
// initial state is checked, never expanded. (TLC's -depth bounds
// simulation, not breadth-first search; a level bound in the constraint
// is exact.)
type IndCheck struct {
	// Distinct is TLC's distinct initial states, Successors the states
	// it generated from them (all generated, less the initial ones).
	Distinct, Successors int64
	// Violated is set when TLC found an invariant violated; Properties
	// are those it found violated (TLC's order of exploration is not
	// induct's: the first may differ).
	Violated   bool
	Properties []string
	// Wall is TLC's whole run, JVM start and parsing included; Elapsed
	// is TLC's own "Finished in".
	Wall    time.Duration
	Elapsed string
}

// WriteIndCheck writes the IndCheck module and cfg into dir and returns
// their paths. It needs the spec's next-state relation to be a
// definition (NEXT Next, or [][Next]_v).
func (j *InductJob) WriteIndCheck(dir string) (spec, cfgPath string, err error) {
	m := j.sp.M
	if m.NextName == "" {
		return "", "", inputf("%s: the next-state relation is a formula, not a definition: TLC's IndCheck run needs its name (NEXT Next)", j.SpecPath)
	}
	cfg, err := tlacfg.ParseFileAny(j.CfgPath)
	if err != nil {
		return "", "", inputf("%v", err)
	}
	const mod = "IndCheck"
	src := fmt.Sprintf("---- MODULE %s ----\n"+
		"\\* Written by tlcrun induct --compare-tlc: one induction step of %s for TLC.\n"+
		"EXTENDS %s, TLC\n"+
		"IndInit == %s /\\ %s\n"+
		"IndOneStep == TLCGet(\"level\") = 1\n"+
		"====\n", mod, j.Inv, m.Module, j.Type, j.Inv)
	no := false
	cfg.Specification, cfg.Init, cfg.Next = "", "IndInit", m.NextName
	cfg.Invariants = slices.Compact([]string{j.Type, j.Inv})
	cfg.Properties = nil
	cfg.Constraints = []string{"IndOneStep"}
	cfg.CheckDeadlock = &no
	delete(cfg.Other, "ALIAS")
	spec, cfgPath = filepath.Join(dir, mod+".tla"), filepath.Join(dir, mod+".cfg")
	if err := os.WriteFile(spec, []byte(src), 0o644); err != nil {
		return "", "", err
	}
	var sb strings.Builder
	if err := cfg.Write(&sb); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(cfgPath, []byte(sb.String()), 0o644); err != nil {
		return "", "", err
	}
	return spec, cfgPath, nil
}

// RunIndCheck runs TLC's IndCheck for the job in a temporary folder
// (-continue, so that its counts are complete), the spec's folder and lib
// its TLA-Library.
func (j *InductJob) RunIndCheck(ctx context.Context, lib []string, opt tlc.Options) (*IndCheck, error) {
	dir, err := os.MkdirTemp("", "indcheck-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spec, cfg, err := j.WriteIndCheck(dir)
	if err != nil {
		return nil, err
	}
	path := []string{filepath.Dir(j.SpecPath), filepath.Dir(j.CfgPath)}
	path = append(path, lib...)
	for i, p := range path {
		if a, err := filepath.Abs(p); err == nil {
			path[i] = a
		}
	}
	opt.Spec, opt.Cfg, opt.Continue = spec, cfg, true
	opt.JavaOptions = append(opt.JavaOptions, "-DTLA-Library="+strings.Join(slices.Compact(path), string(os.PathListSeparator)))
	res, err := tlc.Run(ctx, opt)
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	if res.Stats == nil {
		return nil, errors.New("TLC's IndCheck run reported no counts")
	}
	out := &IndCheck{Distinct: res.InitialDistinct, Successors: res.Stats.Generated - res.InitialGenerated,
		Wall: res.Wall, Elapsed: res.Elapsed}
	for _, v := range res.Violations {
		out.Violated = true
		for _, n := range v.Names {
			if !slices.Contains(out.Properties, n) {
				out.Properties = append(out.Properties, n)
			}
		}
	}
	return out, nil
}

// Disagreements are where an induct report (run with Continue) and TLC's
// IndCheck run differ: the consecution verdict and the counts.
func (r *InductReport) Disagreements(t *IndCheck) []string {
	var out []string
	if fails := r.Consecution == "fails"; fails != t.Violated {
		out = append(out, fmt.Sprintf("consecution %s here, TLC: violated %v", r.Consecution, t.Violated))
	}
	if r.Complete && int64(r.States) != t.Distinct {
		out = append(out, fmt.Sprintf("states of %s /\\ %s: %d here, TLC's distinct initial states: %d", r.Type, r.Inv, r.States, t.Distinct))
	}
	if r.Complete && int64(r.Successors) != t.Successors {
		out = append(out, fmt.Sprintf("successors: %d here, TLC: %d", r.Successors, t.Successors))
	}
	if !r.Complete {
		out = append(out, "the run here was not complete: the counts cannot be compared")
	}
	return out
}

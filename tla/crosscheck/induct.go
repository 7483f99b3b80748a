package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// IndCheck is TLC's run of the same induction step as a tlcrun induct
// job: the module and cfg check.InductJob.WriteIndCheck writes.
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

// RunIndCheck runs TLC's IndCheck for the job in a temporary folder
// (-continue, so that its counts are complete), with the spec's folder
// and lib as its TLA-Library.
func RunIndCheck(ctx context.Context, j *check.InductJob, lib []string, opt tlc.Options) (*IndCheck, error) {
	dir, err := os.MkdirTemp("", "indcheck-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	spec, cfg, err := j.WriteIndCheck(dir)
	if err != nil {
		return nil, err
	}
	opt.Spec, opt.Cfg, opt.Continue = spec, cfg, true
	opt.JavaOptions = append(opt.JavaOptions, "-DTLA-Library="+strings.Join(j.Lib(lib), string(os.PathListSeparator)))
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

// IndDisagreements are where an induct report (run with Continue) and
// TLC's IndCheck run differ: the consecution verdict and the counts.
func IndDisagreements(r *check.InductReport, t *IndCheck) []string {
	var out []string
	if fails := r.Consecution == "fails"; fails != t.Violated {
		out = append(out, fmt.Sprintf("consecution %s here, TLC: violated %v", r.Consecution, t.Violated))
	}
	if !r.Complete {
		return append(out, "the run here was not complete: the counts cannot be compared")
	}
	if int64(r.States) != t.Distinct {
		out = append(out, fmt.Sprintf("states of %s /\\ %s: %d here, TLC's distinct initial states: %d", r.Type, r.Inv, r.States, t.Distinct))
	}
	if int64(r.Successors) != t.Successors {
		out = append(out, fmt.Sprintf("successors: %d here, TLC: %d", r.Successors, t.Successors))
	}
	return out
}

package crosscheck

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/resumecontract/resumecheck/check"
)

// VerifyOptions say how a manifest is verified: with which engines, and
// how each runs.
type VerifyOptions struct {
	// Go and TLC are the engines to measure each model with: one of them,
	// or both, which must then agree with each other as well.
	Go, TLC bool
	// Options are how the engines run (TLC's jar, java, workers) and,
	// with both, whether the state sets are compared (CompareStates).
	Options
	// Load loads a model for the Go engine; nil means check.Load (a
	// test puts a mutated model in its place).
	Load func(cfg, spec string) (*check.Job, error)
	// Outcome, if set, receives each model's outcome as soon as it is
	// measured, in the manifest's order (to print progress).
	Outcome func(ModelOutcome)
}

// ModelOutcome is what each engine found for one model of the manifest.
type ModelOutcome struct {
	Cfg string         `json:"cfg"`
	Go  *check.Outcome `json:"go,omitempty"`
	TLC *check.Outcome `json:"tlc,omitempty"`
	// EnginesDiffer lists what the two engines disagree on, the state
	// sets included.
	EnginesDiffer []string `json:"engines_differ,omitempty"`
	// States compares the state sets (both engines, CompareStates).
	States *StateDiff `json:"states,omitempty"`
	// Index is the model's place in the manifest's Models.
	Index int `json:"-"`
}

// First is the Go engine's outcome, or TLC's without it.
func (o *ModelOutcome) First() *check.Outcome {
	if o.Go != nil {
		return o.Go
	}
	return o.TLC
}

// Mismatched reports whether an engine found something other than the
// manifest records.
func (o *ModelOutcome) Mismatched() bool {
	return o.Go != nil && len(o.Go.Mismatches) > 0 || o.TLC != nil && len(o.TLC.Mismatches) > 0
}

// Select returns the indexes of the manifest's models in tier ("quick",
// "long" or "all") and, when only is not empty, named in it.
func Select(man *check.Manifest, tier string, only []string) []int {
	var out []int
	for i, e := range man.Models {
		// "all" leaves the bench tier out: those models need a machine
		// of their own (check.Entry).
		if (tier == "all" && e.Tier != "bench" || e.Tier == tier) && (len(only) == 0 || slices.Contains(only, e.Cfg)) {
			out = append(out, i)
		}
	}
	return out
}

// VerifyManifest measures the manifest's models at the indexes given
// (Select) the way the manifest records them (check.MeasureJob;
// MeasureTLC), compares what each engine found with the record and, with
// both engines, the engines with each other: every figure and, with
// CompareStates, the state sets (TLC's dump against the Go engine's
// search). It stops at the first error (a model that does not load, TLC
// that cannot run, ctx done), returning the outcomes so far.
func VerifyManifest(ctx context.Context, man *check.Manifest, models []int, opt VerifyOptions) ([]ModelOutcome, error) {
	if !opt.Go && !opt.TLC {
		return nil, fmt.Errorf("crosscheck: verify with no engine")
	}
	load := opt.Load
	if load == nil {
		load = check.Load
	}
	dumps := ""
	if opt.Go && opt.TLC && opt.CompareStates {
		var err error
		if dumps, err = os.MkdirTemp("", "tlcrun-verify-"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(dumps)
	}
	var outcomes []ModelOutcome
	for _, i := range models {
		e := man.Models[i]
		o := ModelOutcome{Cfg: e.Cfg, Index: i}
		var job *check.Job
		if opt.Go {
			var err error
			if job, err = load(man.CfgPath(e), man.SpecPath()); err != nil {
				return outcomes, fmt.Errorf("%s: %w", e.Cfg, err)
			}
			found, secs, err := check.MeasureJob(ctx, job, check.RunOptions{})
			if err != nil {
				return outcomes, fmt.Errorf("%s: %w", e.Cfg, err)
			}
			o.Go = &check.Outcome{Cfg: e.Cfg, Expect: found, Mismatches: check.Diff(e.Expect, found), Seconds: secs}
		}
		dump := ""
		if dumps != "" {
			dump = filepath.Join(dumps, fmt.Sprintf("model-%d.dump", i+1))
		}
		if opt.TLC {
			m, err := MeasureTLC(ctx, man.CfgPath(e), man.SpecPath(), opt.Options, dump)
			if err != nil {
				return outcomes, fmt.Errorf("%s: %w", e.Cfg, err)
			}
			o.TLC = &check.Outcome{Cfg: e.Cfg, Expect: m.Found, Mismatches: check.Diff(e.Expect, m.Found), Seconds: m.Seconds}
		}
		if o.Go != nil && o.TLC != nil {
			o.EnginesDiffer = Differences(&Measurement{Engine: "go", Found: o.Go.Expect}, &Measurement{Engine: "tlc", Found: o.TLC.Expect})
			if dump != "" {
				var err error
				if o.States, err = CompareStates(ctx, job, dump, opt.States); err != nil {
					return outcomes, fmt.Errorf("%s: %w", e.Cfg, err)
				}
				os.Remove(dump)
				if !o.States.Equal() {
					o.EnginesDiffer = append(o.EnginesDiffer, fmt.Sprintf("state sets: %d states only in TLC's dump, %d only in the Go engine's search (TLC %d, Go %d)",
						o.States.OnlyTLCCount, o.States.OnlyGoCount, o.States.TLC, o.States.Go))
				}
			}
		}
		outcomes = append(outcomes, o)
		if opt.Outcome != nil {
			opt.Outcome(o)
		}
	}
	return outcomes, nil
}

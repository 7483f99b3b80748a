// Package matrixtlc builds rows of the fault matrix with TLC: the runner
// that finds and runs TLC, kept out of package matrix so that reading and
// rendering a matrix (the HTML report) does not pull it in.
package matrixtlc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// Checker is matrix.Options.Check for TLC, run as opt says; with states,
// each row's state set is compared with the Go model's too.
func Checker(opt tlc.Options, states bool) matrix.RowChecker {
	return func(ctx context.Context, row matrix.Row, cfg *tlacfg.Config, spec string) (matrix.RowResult, error) {
		return checkRow(ctx, row, cfg, spec, opt, states)
	}
}

// CheckRow checks one row with TLC. TLC's -continue reports only the
// first invariant each violating state breaks, so every column is its own
// run that stops at the first violation (one worker: a fixed exploration
// order and a shortest counterexample): a violated cell gets that
// counterexample's length, a holding cell the whole state space's count.
// With states, one more run explores the whole space with -dump, and its
// states are compared with the Go model's (RowResult.States).
func checkRow(ctx context.Context, row matrix.Row, cfg *tlacfg.Config, spec string, opt tlc.Options, states bool) (matrix.RowResult, error) {
	work, err := os.MkdirTemp("", "tlcrun-matrix-")
	if err != nil {
		return matrix.RowResult{}, err
	}
	defer os.RemoveAll(work)
	job, err := check.FromConfig(matrix.WithColumns(cfg), spec)
	if err != nil {
		return matrix.RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, err)
	}
	m, err := model.New(job.Params)
	if err != nil {
		return matrix.RowResult{}, err
	}
	start := time.Now()
	rr := matrix.RowResult{Row: row, Cells: map[string]matrix.Cell{}, Params: job.Params}
	for i, c := range matrix.Columns {
		variant := *cfg
		variant.Path = filepath.Join(work, fmt.Sprintf("%s-%s.cfg", row.Name, c.Name))
		variant.Specification, variant.Init, variant.Next = "FairSpec", "", ""
		variant.Invariants, variant.Properties = nil, nil
		if c.Name == model.Liveness {
			variant.Properties = []string{model.Liveness}
		} else {
			variant.Invariants = []string{c.Name}
		}
		if err := writeVariant(&variant); err != nil {
			return matrix.RowResult{}, err
		}
		o := opt
		o.Spec, o.Cfg, o.Continue, o.Workers = spec, variant.Path, false, 1
		o.WorkDir = filepath.Join(work, fmt.Sprint("run", i))
		res, err := tlc.Run(ctx, o)
		if err != nil {
			return matrix.RowResult{}, fmt.Errorf("matrix: %s, %s with TLC: %w", row.Name, c.Name, err)
		}
		if res.Err() != nil {
			return matrix.RowResult{}, fmt.Errorf("matrix: %s, %s with TLC: %w", row.Name, c.Name, res.Err())
		}
		rep := crosscheck.Report(res, &variant, spec, m)
		cell := matrix.Cell{Distinct: rep.Distinct}
		if v := rep.FirstViolation(); v != nil {
			cell = matrix.Cell{Violated: true, Length: len(v.Trace), Distinct: rep.Distinct, Trace: v}
		}
		rr.Cells[c.Name] = cell
	}
	if states {
		variant := *cfg
		variant.Path = filepath.Join(work, row.Name+"-states.cfg")
		variant.Invariants, variant.Properties, variant.CheckDeadlock = nil, nil, new(false)
		if err := writeVariant(&variant); err != nil {
			return matrix.RowResult{}, err
		}
		o := opt
		o.Spec, o.Cfg, o.Continue, o.Workers = spec, variant.Path, true, 1
		o.Dump = filepath.Join(work, row.Name+".dump")
		o.WorkDir = filepath.Join(work, "states")
		res, err := tlc.Run(ctx, o)
		if err == nil {
			err = res.Err()
		}
		if err != nil {
			return matrix.RowResult{}, fmt.Errorf("matrix: %s, its states with TLC: %w", row.Name, err)
		}
		if rr.States, err = crosscheck.CompareStates(ctx, job, o.Dump, 1); err != nil {
			return matrix.RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, err)
		}
	}
	rr.Seconds = time.Since(start).Seconds()
	return rr, nil
}

func writeVariant(c *tlacfg.Config) error {
	f, err := os.Create(c.Path)
	if err != nil {
		return err
	}
	err = c.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

package matrix

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/crosscheck"
	"github.com/resumecontract/resumecheck/internal/tlacfg"
	"github.com/resumecontract/resumecheck/internal/tlc"
	"github.com/resumecontract/resumecheck/model"
)

// checkRowTLC checks one row with TLC. TLC's -continue reports only the
// first invariant each violating state breaks, so every column is its own
// run that stops at the first violation (one worker: a fixed exploration
// order and a shortest counterexample): a violated cell gets that
// counterexample's length, a holding cell the whole state space's count.
// With states, one more run explores the whole space with -dump, and its
// states are compared with the Go model's (RowResult.States).
func checkRowTLC(ctx context.Context, row Row, cfg *tlacfg.Config, spec string, opt tlc.Options, states bool) (RowResult, error) {
	work, err := os.MkdirTemp("", "tlcrun-matrix-")
	if err != nil {
		return RowResult{}, err
	}
	defer os.RemoveAll(work)
	job, err := check.FromConfig(withColumns(cfg), spec)
	if err != nil {
		return RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, err)
	}
	m, err := model.New(job.Params)
	if err != nil {
		return RowResult{}, err
	}
	start := time.Now()
	rr := RowResult{Row: row, Cells: map[string]Cell{}, Params: job.Params}
	for i, c := range Columns {
		variant := *cfg
		variant.Path = filepath.Join(work, fmt.Sprintf("%s-%s.cfg", row.Name, c.Name))
		variant.Specification, variant.Init, variant.Next = "FairSpec", "", ""
		variant.Invariants, variant.Properties = nil, nil
		if c.Name == "Liveness" {
			variant.Properties = []string{"Liveness"}
		} else {
			variant.Invariants = []string{c.Name}
		}
		if err := writeVariant(&variant); err != nil {
			return RowResult{}, err
		}
		o := opt
		o.Spec, o.Cfg, o.Continue, o.Workers = spec, variant.Path, false, 1
		o.WorkDir = filepath.Join(work, fmt.Sprint("run", i))
		res, err := tlc.Run(ctx, o)
		if err != nil {
			return RowResult{}, fmt.Errorf("matrix: %s, %s with TLC: %w", row.Name, c.Name, err)
		}
		if res.Err() != nil {
			return RowResult{}, fmt.Errorf("matrix: %s, %s with TLC: %w", row.Name, c.Name, res.Err())
		}
		rep := crosscheck.Report(res, &variant, spec, m)
		cell := Cell{Distinct: rep.Distinct}
		if v := rep.FirstViolation(); v != nil {
			cell = Cell{Violated: true, Length: len(v.Trace), Distinct: rep.Distinct, Trace: v}
		}
		rr.Cells[c.Name] = cell
	}
	if states {
		variant := *cfg
		variant.Path = filepath.Join(work, row.Name+"-states.cfg")
		variant.Invariants, variant.Properties, variant.CheckDeadlock = nil, nil, new(false)
		if err := writeVariant(&variant); err != nil {
			return RowResult{}, err
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
			return RowResult{}, fmt.Errorf("matrix: %s, its states with TLC: %w", row.Name, err)
		}
		if rr.States, err = crosscheck.CompareStates(ctx, job, o.Dump, 1); err != nil {
			return RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, err)
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

// Differences lists the cells where two matrices disagree: a verdict, a
// counterexample length, or (for a holding cell) the state count.
func Differences(a, b *Result) []string {
	var out []string
	for _, ra := range a.Rows {
		rb, ok := b.Row(ra.Name)
		if !ok {
			out = append(out, fmt.Sprintf("%s: only in the %s matrix", ra.Name, a.Engine))
			continue
		}
		for _, st := range []*crosscheck.StateDiff{ra.States, rb.States} {
			if st != nil && !st.Equal() {
				out = append(out, fmt.Sprintf("%s: the state sets differ: TLC has %d, the Go model %d; %d only in TLC's dump, %d only in the Go model's search",
					ra.Name, st.TLC, st.Go, st.OnlyTLCCount, st.OnlyGoCount))
				var sb strings.Builder
				st.Write(&sb)
				out = append(out, strings.TrimRight(sb.String(), "\n"))
			}
		}
		for _, c := range Columns {
			ca, cb := ra.Cells[c.Name], rb.Cells[c.Name]
			same := ca.Violated == cb.Violated &&
				(ca.Violated && ca.Length == cb.Length || !ca.Violated && ca.Distinct == cb.Distinct)
			if !same {
				out = append(out, fmt.Sprintf("%s, %s: %s says %s, %s says %s", ra.Name, c.Name, a.Engine, ca, b.Engine, cb))
			}
		}
	}
	for _, rb := range b.Rows {
		if _, ok := a.Row(rb.Name); !ok {
			out = append(out, fmt.Sprintf("%s: only in the %s matrix", rb.Name, b.Engine))
		}
	}
	return out
}

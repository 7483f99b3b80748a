// Package matrix builds the fault matrix of the resume contract: every
// fault model against every obligation, each obligation judged on its own,
// and from it the independence claims the contract makes (for each
// obligation a fault that violates it and nothing else).
package matrix

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

// Column is one property of the matrix.
type Column struct {
	Name string
	// Clause names the obligation a clause column belongs to ("" for an
	// obligation).
	Clause string
	Doc    string
}

// Columns are the six safety obligations, liveness, then the named
// clauses of CO and PC: model.Terms, in their order.
var Columns = columns()

func columns() []Column {
	out := make([]Column, len(model.Terms))
	for i, t := range model.Terms {
		out[i] = Column{Name: t.Property, Doc: t.Gloss}
		if t.Clause {
			out[i].Clause = t.Obligation
		}
	}
	return out
}

// Safety are the six safety obligations.
var Safety = model.SafetyObligations()

// Row is one model of the matrix: the reference semantics (possibly with
// an extension on) or one fault.
type Row struct {
	Name string `json:"name"`
	// Fault is the fault switched on ("" for a reference row).
	Fault string `json:"fault,omitempty"`
	Cfg   string `json:"cfg"`
}

// Rows lists the matrix's models in a spec folder: the reference, the
// reference with each extension on, and one row per fault.
func Rows(specDir string) []Row {
	rows := []Row{
		{Name: "reference", Cfg: filepath.Join(specDir, "R0.cfg")},
		{Name: "reference+race", Cfg: filepath.Join(specDir, "R0-race.cfg")},
		{Name: "reference+parked", Cfg: filepath.Join(specDir, "R0-parked.cfg")},
	}
	for _, f := range model.AllFaults {
		rows = append(rows, Row{Name: string(f), Fault: string(f), Cfg: filepath.Join(specDir, "fault-"+string(f)+".cfg")})
	}
	return rows
}

// Cell is one (model, property) verdict.
type Cell struct {
	// Violated is false when the property holds in every reachable state.
	Violated bool `json:"violated"`
	// Length is the number of states of the shortest counterexample.
	Length int `json:"length,omitempty"`
	// Distinct is the number of distinct states explored (for a holding
	// cell: the whole reachable state space).
	Distinct uint64 `json:"distinct"`
	// Trace is the counterexample (not in the golden JSON; see Result.Traces).
	Trace *check.Violation `json:"-"`
}

// String is the cell as the text and Markdown tables show it.
func (c Cell) String() string {
	if c.Violated {
		return fmt.Sprintf("violated (%d)", c.Length)
	}
	return fmt.Sprintf("holds (%d)", c.Distinct)
}

// RowResult is one row's cells, by column name.
type RowResult struct {
	Row
	Cells   map[string]Cell `json:"cells"`
	Seconds float64         `json:"-"`
	// Params are the constants the row was checked at.
	Params model.Params `json:"-"`
	// States compares TLC's states of the row with the Go model's
	// (Options.States, engine tlc).
	States *check.StateDiff `json:"-"`
	// Spilled is what the Go engine's run of the row wrote to disk under
	// Options.MemoryBudget, in bytes.
	Spilled int64 `json:"-"`
}

// Result is the whole matrix.
type Result struct {
	Bounds string `json:"bounds"`
	// BoundsCfg is Options.Bounds, the cfg whose bounds replaced every
	// row's ("" when the rows kept their own).
	BoundsCfg string `json:"bounds_cfg,omitempty"`
	Engine    string `json:"engine"`
	// Symmetry is Options.Symmetry's symmetry ("" for none): each row's
	// distinct states are then orbits.
	Symmetry string      `json:"symmetry,omitempty"`
	Rows     []RowResult `json:"rows"`
	Claims   []Claim     `json:"claims"`
}

// Options configure Build. The zero value checks the cfgs as they are.
type Options struct {
	// Bounds, when set, is a cfg whose bound constants (NTasks, IP,
	// Values, MaxResumes, MaxCrashes, MaxExtraResumes) replace every row's;
	// its name labels the result. The fault switches and extensions of
	// each row stay.
	Bounds string
	// Workers for the Go engine (0 = all cores).
	Workers int
	// Only, when not empty, restricts the matrix to the rows of these names.
	Only []string
	// Engine is "go" (the default) or another engine's name, such as
	// "tlc", whose rows Check builds.
	Engine string
	// Check builds a row with an engine other than the Go engine (for
	// TLC: cmd/internal/tlcruncli/matrixtlc.Checker, which can also compare each row's
	// state set with the Go model's, RowResult.States). Package matrix
	// itself never runs TLC: rendering a matrix does not depend on it.
	Check RowChecker
	// Progress, when set, is told when each row starts.
	Progress func(row Row, i, n int)
	// Symmetry checks every row under the spec's symmetry (SYMMETRY
	// Symmetry: the values are interchangeable), one state per orbit: the
	// same verdicts and counterexample lengths, far fewer states
	// (docs/spec.md, Symmetry).
	Symmetry bool
	// MemoryBudget and SpillDir are the Go engine's, for each row's run
	// (check.RunOptions): past the budget, the row's frontier, trace
	// links and fingerprints go to files in SpillDir.
	MemoryBudget int64
	SpillDir     string
}

// RowChecker builds one row's cells: cfg is the row's model with its
// bounds, spec the spec it belongs to.
type RowChecker func(ctx context.Context, row Row, cfg *tlacfg.Config, spec string) (RowResult, error)

// boundConstants are the constants Options.Bounds replaces.
var boundConstants = []string{"NTasks", "IP", "Values", "MaxResumes", "MaxCrashes", "MaxExtraResumes"}

// Build checks every row against every column with the Go engine (or the
// engine of opt.Check).
func Build(ctx context.Context, specDir string, opt Options) (*Result, error) {
	res := &Result{Bounds: "R0", Engine: "go"}
	if opt.Symmetry {
		res.Symmetry = check.Symmetry
	}
	switch {
	case opt.Engine == "" || opt.Engine == "go":
	case opt.Check != nil:
		res.Engine = opt.Engine
	default:
		return nil, fmt.Errorf("matrix: engine %q: no Options.Check to build its rows", opt.Engine)
	}
	var bounds *tlacfg.Config
	if opt.Bounds != "" {
		var err error
		if bounds, err = tlacfg.ParseFile(opt.Bounds); err != nil {
			return nil, fmt.Errorf("matrix: bounds: %w", err)
		}
		res.BoundsCfg = opt.Bounds
		res.Bounds = filepath.Base(opt.Bounds)
		res.Bounds = res.Bounds[:len(res.Bounds)-len(filepath.Ext(res.Bounds))]
	}
	rows := Rows(specDir)
	if len(opt.Only) > 0 {
		rows = slices.DeleteFunc(rows, func(r Row) bool { return !slices.Contains(opt.Only, r.Name) })
	}
	spec := filepath.Join(specDir, check.Module+".tla")
	for i, row := range rows {
		if opt.Progress != nil {
			opt.Progress(row, i, len(rows))
		}
		cfg, err := tlacfg.ParseFile(row.Cfg)
		if err != nil {
			return nil, fmt.Errorf("matrix: %s: %w", row.Name, err)
		}
		if bounds != nil {
			Rebound(cfg, bounds)
		}
		if opt.Symmetry {
			WithSymmetry(cfg)
		}
		var rr RowResult
		if res.Engine != "go" {
			rr, err = opt.Check(ctx, row, cfg, spec)
		} else {
			rr, err = checkRow(ctx, row, cfg, spec, opt)
		}
		if err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rr)
	}
	res.Claims = Claims(res)
	return res, nil
}

// Rebound replaces cfg's bound constants by those of bounds. Rows that need
// two crashes (to meet one frontier twice) keep at least their own count.
func Rebound(cfg, bounds *tlacfg.Config) {
	for _, name := range boundConstants {
		b, ok := bounds.Constant(name)
		if !ok {
			continue
		}
		for i, k := range cfg.Constants {
			if k.Name != name {
				continue
			}
			if name == "MaxCrashes" {
				bi, _ := b.Value.AsInt()
				ki, _ := k.Value.AsInt()
				if ki > bi {
					break
				}
			}
			cfg.Constants[i].Value = b.Value
		}
	}
}

// checkRow runs one model with every column's property, continuing past
// violations so that each property gets its own verdict and its own
// shortest counterexample.
func checkRow(ctx context.Context, row Row, cfg *tlacfg.Config, spec string, opt Options) (RowResult, error) {
	job, err := check.FromConfig(WithColumns(cfg), spec)
	if err != nil {
		return RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, err)
	}
	start := time.Now()
	rep, err := job.Run(ctx, check.RunOptions{Continue: true, Workers: opt.Workers, MemoryBudget: opt.MemoryBudget, SpillDir: opt.SpillDir})
	if err != nil {
		return RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, err)
	}
	if rep.Verdict == "unknown" {
		return RowResult{}, fmt.Errorf("matrix: %s: %w", row.Name, context.Cause(ctx))
	}
	rr := RowResult{Row: row, Cells: map[string]Cell{}, Seconds: time.Since(start).Seconds(), Params: job.Params, Spilled: rep.Perf.Spilled}
	// Every column's verdict and shortest counterexample come from the one
	// exploration (the engine's per-property results).
	for _, c := range Columns {
		p, ok := rep.Property(c.Name)
		switch {
		case !ok || p.Status == "undecided":
			return RowResult{}, fmt.Errorf("matrix: %s: no verdict for %s", row.Name, c.Name)
		case p.Status == "violated":
			rr.Cells[c.Name] = Cell{Violated: true, Length: len(p.Violation.Trace), Distinct: rep.Distinct, Trace: p.Violation}
		default:
			rr.Cells[c.Name] = Cell{Distinct: rep.Distinct}
		}
	}
	return rr, nil
}

// WithSymmetry makes cfg reduce by the spec's symmetry (SYMMETRY
// Symmetry).
func WithSymmetry(cfg *tlacfg.Config) {
	other := map[string][]string{}
	for k, v := range cfg.Other {
		other[k] = v
	}
	other["SYMMETRY"] = []string{check.Symmetry}
	cfg.Other = other
}

// WithColumns returns a copy of cfg that checks every column under FairSpec.
func WithColumns(cfg *tlacfg.Config) *tlacfg.Config {
	c := *cfg
	c.Invariants = nil
	for _, col := range Columns {
		if col.Name != model.Liveness {
			c.Invariants = append(c.Invariants, col.Name)
		}
	}
	c.Properties = []string{model.Liveness}
	c.Specification, c.Init, c.Next = "FairSpec", "", ""
	return &c
}

// Violated lists the columns a row violates, in column order.
func (r RowResult) Violated(names ...string) []string {
	if len(names) == 0 {
		for _, c := range Columns {
			names = append(names, c.Name)
		}
	}
	var out []string
	for _, n := range names {
		if r.Cells[n].Violated {
			out = append(out, n)
		}
	}
	return out
}

// Row returns the row with the given name.
func (r *Result) Row(name string) (RowResult, bool) {
	i := slices.IndexFunc(r.Rows, func(rr RowResult) bool { return rr.Name == name })
	if i < 0 {
		return RowResult{}, false
	}
	return r.Rows[i], true
}

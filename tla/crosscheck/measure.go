package crosscheck

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tla/tlc"
	"github.com/resumecontract/resumecheck/tla/tlcout"
)

// Options tune the runs of both engines. The zero value runs TLC with one
// worker and the Go engine on every core.
type Options struct {
	// TLC is how TLC runs: Jar, Java, Workers, JavaOptions, Progress.
	// Spec, Cfg, Continue, Dump and WorkDir are set per run.
	TLC tlc.Options
	// Go is how the Go engine runs: Workers, MemoryBudget, Progress.
	// Continue is set per run.
	Go check.RunOptions
	// CompareStates has TLC dump its states so that Both can compare the
	// state sets.
	CompareStates bool
	// WorkDir receives the cfg variants, the dump and TLC's metadirs; ""
	// means a temporary folder, removed when the measurement is done.
	WorkDir string
	// States is how many differing states a state comparison keeps on each
	// side; 0 means 3.
	States int
	// Interpreter, for a job the compiled mirror runs, also measures the
	// same spec and cfg with the TLA+ interpreter and compares its
	// figures (and, with CompareStates, its state set) with the mirror's:
	// the spec's text against the Go written from it.
	Interpreter bool
}

// Measurement is one engine's account of a model, in the manifest's terms.
type Measurement struct {
	Engine string       `json:"engine"`
	Found  check.Expect `json:"found"`
	// Seconds is the wall time of all the runs the measurement took.
	Seconds float64 `json:"seconds"`
	Runs    int     `json:"runs"`
}

// MeasureGo measures a job with the Go engine: a run of the whole state
// space and, when something is violated, a run that stops at the first
// violation (check.MeasureJob).
func MeasureGo(ctx context.Context, job *check.Job, opt Options) (*Measurement, error) {
	found, secs, err := check.MeasureJob(ctx, job, opt.Go)
	if err != nil {
		return nil, err
	}
	runs := 1
	if found.First != "" {
		runs = 2
	}
	return &Measurement{Engine: "go", Found: found, Seconds: secs, Runs: runs}, nil
}

// InputError is an error of TLC about the user's files: the spec does not
// parse, the cfg is wrong, an ASSUME is false.
type InputError struct{ Err *tlcout.Error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// MeasureTLC measures a model with TLC. TLC's -continue reports, for each
// violating state, only the first invariant of the cfg that it violates,
// and stops at a deadlock all the same; so the measurement is a series of
// runs (with one worker unless opt.TLC.Workers says otherwise):
//
//  1. the whole state space with deadlock checking off: the counts, the
//     violated invariants and temporal properties, and the first violation;
//  2. while the previous run found violated invariants, a run with only
//     the invariants not yet found violated (no temporal properties);
//  3. with deadlock checking on, the cfg as it is, stopping at the first
//     violation (deadlock or other), and, if that was not a deadlock, a
//     run checking deadlock alone.
//
// Every run's files go to the work folder; nothing is written beside the
// spec or the cfg. dump, when not empty, is where run 1 writes its states.
func MeasureTLC(ctx context.Context, cfgPath, specPath string, opt Options, dump string) (*Measurement, error) {
	cfg, err := tlacfg.ParseFile(cfgPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &InputError{&tlcout.Error{Kind: tlcout.KindConfig, Msg: fmt.Sprintf("cfg %s does not exist", cfgPath)}}
		}
		var ce *tlacfg.Error
		if errors.As(err, &ce) {
			return nil, &InputError{&tlcout.Error{Kind: tlcout.KindConfig, File: ce.Path, Line: ce.Line, Col: ce.Col, Msg: ce.Msg}}
		}
		return nil, err
	}
	work, done, err := workDir(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	defer done()
	meas := &Measurement{Engine: "tlc"}
	n := 0
	// run runs TLC on cfg (the user's file when variant is nil).
	run := func(variant *tlacfg.Config, cont bool, dump string) (*check.Report, error) {
		n++
		path := cfgPath
		if variant != nil {
			path = filepath.Join(work, fmt.Sprintf("run%d.cfg", n))
			if err := writeCfg(path, variant, "\\* "+cfgPath+", as run "+fmt.Sprint(n)+" of tlcrun's TLC measurement\n"); err != nil {
				return nil, err
			}
		}
		o := opt.TLC
		o.Spec, o.Cfg, o.Continue, o.Dump = specPath, path, cont, dump
		o.WorkDir = filepath.Join(work, fmt.Sprintf("run%d", n))
		res, err := tlc.Run(ctx, o)
		os.RemoveAll(o.WorkDir) // TLC's states: large, and of no use now
		if res != nil {
			meas.Seconds += res.Wall.Seconds()
		}
		meas.Runs++
		if err != nil {
			return nil, err
		}
		if err := res.Err(); err != nil {
			te := err.(*tlcout.Error)
			if te.File == path {
				te.File = cfgPath
			}
			if te.IsInput() {
				return nil, &InputError{te}
			}
			return nil, te
		}
		rep := Report(res, cfg, specPath, nil)
		if rep.Verdict == "unknown" {
			return nil, fmt.Errorf("tlc: TLC did not finish checking %s (exit %d: %s)", cfgPath, res.ExitCode, tlcout.Meaning(res.ExitCode))
		}
		return rep, nil
	}

	// 1. The whole space.
	var variant *tlacfg.Config
	if cfg.DeadlockChecked() {
		variant = clone(cfg)
		variant.CheckDeadlock = new(false)
	}
	full, err := run(variant, true, dump)
	if err != nil {
		return nil, err
	}
	found := check.Expect{Generated: full.Generated, Distinct: full.Distinct, Depth: full.Depth}
	violated := map[string]bool{}
	newInvariants := 0
	for _, v := range full.Violated {
		violated[v.Name()] = true
		if v.Kind == "invariant" {
			newInvariants++
		}
	}
	if v := full.FirstViolation(); v != nil {
		found.First, found.FirstKind, found.TraceLength = v.Name(), v.Kind, len(v.Trace)
	}

	// 2. The invariants that violating states hid behind earlier ones.
	for newInvariants > 0 {
		rest := slices.DeleteFunc(slices.Clone(cfg.Invariants), func(name string) bool { return violated[name] })
		if len(rest) == 0 {
			break
		}
		variant = clone(cfg)
		variant.Invariants, variant.Properties, variant.CheckDeadlock = rest, nil, new(false)
		rep, err := run(variant, true, "")
		if err != nil {
			return nil, err
		}
		newInvariants = 0
		for _, v := range rep.Violated {
			if v.Kind == "invariant" && !violated[v.Name()] {
				violated[v.Name()] = true
				newInvariants++
			}
		}
	}

	// 3. Deadlock, which the runs above did not check.
	if cfg.DeadlockChecked() {
		first, err := run(nil, false, "")
		if err != nil {
			return nil, err
		}
		v := first.FirstViolation()
		if v != nil {
			found.First, found.FirstKind, found.TraceLength = v.Name(), v.Kind, len(v.Trace)
		}
		if v == nil || v.Kind != "deadlock" {
			variant = clone(cfg)
			variant.Invariants, variant.Properties = nil, nil
			rep, err := run(variant, false, "")
			if err != nil {
				return nil, err
			}
			if d := rep.FirstViolation(); d != nil && d.Kind == "deadlock" {
				violated["deadlock"] = true
			}
		} else {
			violated["deadlock"] = true
		}
	}

	found.Violated = []string{}
	for _, name := range Checked(cfg) {
		if violated[name] {
			found.Violated = append(found.Violated, name)
		}
	}
	found.Result = "ok"
	if len(found.Violated) > 0 {
		found.Result = "violation"
	}
	meas.Found = found
	return meas, nil
}

// Differences lists what two measurements disagree on, as "distinct: go
// 59, tlc 60".
func Differences(a, b *Measurement) []string {
	var out []string
	cmp := func(field string, x, y any) {
		if fmt.Sprint(x) != fmt.Sprint(y) {
			out = append(out, fmt.Sprintf("%s: %s %v, %s %v", field, a.Engine, x, b.Engine, y))
		}
	}
	fa, fb := a.Found, b.Found
	cmp("result", fa.Result, fb.Result)
	cmp("first", fa.First, fb.First)
	cmp("first_kind", fa.FirstKind, fb.FirstKind)
	cmp("trace_length", fa.TraceLength, fb.TraceLength)
	cmp("violated", strings.Join(fa.Violated, " "), strings.Join(fb.Violated, " "))
	cmp("generated", fa.Generated, fb.Generated)
	cmp("distinct", fa.Distinct, fb.Distinct)
	cmp("depth", fa.Depth, fb.Depth)
	return out
}

func clone(c *tlacfg.Config) *tlacfg.Config {
	d := *c
	d.Constants = slices.Clone(c.Constants)
	d.Invariants = slices.Clone(c.Invariants)
	d.Properties = slices.Clone(c.Properties)
	return &d
}

// writeCfg writes a cfg with a comment saying where it came from.
func writeCfg(path string, c *tlacfg.Config, header string) error {
	var sb strings.Builder
	sb.WriteString(header)
	if err := c.Write(&sb); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(sb.String()), 0o644)
}

// workDir returns dir, or a new temporary folder and its removal.
func workDir(dir string) (string, func(), error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	tmp, err := os.MkdirTemp("", "tlcrun-")
	if err != nil {
		return "", nil, err
	}
	return tmp, func() { os.RemoveAll(tmp) }, nil
}

// Comparison is what the two engines (three with the interpreter) found
// for one model.
type Comparison struct {
	Cfg string       `json:"cfg"`
	Go  *Measurement `json:"go"`
	TLC *Measurement `json:"tlc"`
	// Interp is the interpreter's measurement of a mirrored spec, when
	// Options.Interpreter asked.
	Interp *Measurement `json:"interpreter,omitempty"`
	// Differences lists every figure the engines disagree on.
	Differences []string `json:"differences"`
	// States compares the state sets, when Options.CompareStates asked;
	// InterpStates the mirror's with the interpreter's.
	States       *StateDiff     `json:"states,omitempty"`
	InterpStates *check.SetDiff `json:"interpreter_states,omitempty"`
}

// Agree reports whether the engines found the same.
func (c *Comparison) Agree() bool {
	return len(c.Differences) == 0 && (c.States == nil || c.States.Equal()) && (c.InterpStates == nil || c.InterpStates.Equal())
}

// Both measures a job with the Go engine and then with TLC, and compares.
func Both(ctx context.Context, job *check.Job, opt Options) (*Comparison, error) {
	work, done, err := workDir(opt.WorkDir)
	if err != nil {
		return nil, err
	}
	defer done()
	opt.WorkDir = work
	// Without TLC the Go engine's run would be wasted.
	if _, err := tlc.Find(ctx, opt.TLC.Jar, opt.TLC.Java); err != nil {
		return nil, err
	}
	c := &Comparison{Cfg: job.CfgPath}
	if c.Go, err = MeasureGo(ctx, job, opt); err != nil {
		return nil, err
	}
	if opt.Interpreter && !job.Interpreted() {
		c.Go.Engine = "go mirror"
	}
	dump := ""
	if opt.CompareStates {
		dump = filepath.Join(work, "states.dump")
	}
	if c.TLC, err = MeasureTLC(ctx, job.CfgPath, job.SpecPath, opt, dump); err != nil {
		return nil, err
	}
	c.Differences = Differences(c.Go, c.TLC)
	if opt.CompareStates {
		if c.States, err = CompareStates(ctx, job, dump, opt.States); err != nil {
			return nil, err
		}
	}
	if opt.Interpreter && !job.Interpreted() {
		ij, err := check.FromConfigInterpreted(job.Cfg, job.SpecPath)
		if err != nil {
			return nil, fmt.Errorf("the interpreter: %w", err)
		}
		if c.Interp, err = MeasureGo(ctx, ij, opt); err != nil {
			return nil, fmt.Errorf("the interpreter: %w", err)
		}
		c.Interp.Engine = check.EngineInterpreter
		c.Differences = append(c.Differences, Differences(c.Go, c.Interp)...)
		if opt.CompareStates {
			if c.InterpStates, err = check.CompareMirrorStates(ctx, job, ij, opt.States); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec/resume"
)

// symmetryJobs are the quick models of spec/ under SYMMETRY Symmetry, as
// they are and with a third value (and a third resume), so that orbits
// have up to six states.
func symmetryJobs(t *testing.T) map[string]*Job {
	t.Helper()
	out := map[string]*Job{}
	for _, path := range quickCfgs(t) {
		cfg, err := tlacfg.ParseFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Other = map[string][]string{"SYMMETRY": {Symmetry}}
		job, err := FromConfig(cfg, "../spec/Resume.tla")
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(path)] = job
		three := *job
		three.Params.Values = append(slices.Clone(job.Params.Values), "vc")
		three.Params.MaxResumes = 3
		out[filepath.Base(path)+"+vc"] = &three
	}
	return out
}

// orbitKey names s's orbit without the canonicaliser: the least encoding
// over every renaming of the values.
func orbitKey(m *model.Model, s model.State) string {
	var least string
	for _, perm := range model.Permutations(len(m.P.Values)) {
		if k := m.Key(model.RenameValues(s, perm)); least == "" || k < least {
			least = k
		}
	}
	return least
}

// orbits counts the orbits of the job's reachable states, found by a
// search without symmetry, and what a search keeping one state per orbit
// generates (the initial state and the successors of one state of each
// orbit, which has as many as every other).
func orbits(t *testing.T, job *Job) (n, generated uint64) {
	t.Helper()
	full := *job
	full.Symmetry = ""
	mm, err := full.Machine()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	generated = 1
	err = full.States(context.Background(), func(s model.State) error {
		if k := orbitKey(mm.Model, s); !seen[k] {
			seen[k] = true
			generated += uint64(len(mm.Successors(s)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return uint64(len(seen)), generated
}

// reduced runs the job as the engine does under its SYMMETRY, with canon
// as the canonicaliser (nil: the model's, through Job.Run).
func reduced(t *testing.T, job *Job, canon func(*model.Model, model.Packed) model.Packed) *Report {
	t.Helper()
	if canon == nil {
		return run(t, job, RunOptions{Continue: true})
	}
	mm, err := job.Machine()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, inv := range job.Invariants {
		names = append(names, inv.Name)
	}
	sp, err := resume.New(mm.Model, names, job.Liveness)
	if err != nil {
		t.Fatal(err)
	}
	m := mm.Model
	rep, err := explore(context.Background(), sp, &Report{Engine: "go"}, exploreOptions[model.Packed]{
		deadlock: job.CheckDeadlock, fair: job.Fair, violated: sp.ViolatedFunc(), symmetry: job.Symmetry,
		canonical: func(dst, src []byte) { sp.Encode(dst, canon(m, sp.Decode(src))) },
		fill:      func(p model.Packed, ts *TraceState) { ts.State = m.Unpack(p) },
	}, RunOptions{Continue: true})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// symmetryProblem says how a run under the job's SYMMETRY (red) differs
// from what symmetry reduction must give, or "": one state per orbit, the
// successors of one state per orbit generated, the depth, the verdict and
// every property's verdict and counterexample length of the run without
// it (full), and counterexamples that are behaviours of the model ending
// in a violation.
func symmetryProblem(job *Job, full, red *Report, n, generated uint64) string {
	switch {
	case red.Distinct != n:
		return fmt.Sprintf("%d distinct states, %d orbits", red.Distinct, n)
	case red.Generated != generated:
		return fmt.Sprintf("%d states generated, want %d", red.Generated, generated)
	case red.Depth != full.Depth || red.Verdict != full.Verdict:
		return fmt.Sprintf("%s at depth %d, without symmetry %s at depth %d", red.Verdict, red.Depth, full.Verdict, full.Depth)
	}
	m, err := model.New(job.Params)
	if err != nil {
		return err.Error()
	}
	for _, p := range full.Properties {
		q, ok := red.Property(p.Name)
		switch {
		case !ok || q.Status != p.Status:
			return fmt.Sprintf("%s: %s, without symmetry %s", p.Name, q.Status, p.Status)
		case p.Violation == nil:
			continue
		case len(q.Violation.Trace) != len(p.Violation.Trace):
			return fmt.Sprintf("%s: a counterexample of %d states, without symmetry %d", p.Name, len(q.Violation.Trace), len(p.Violation.Trace))
		}
		tr := q.Violation.Trace
		if !tr[0].State.Equal(m.Init()) {
			return fmt.Sprintf("%s: the counterexample does not start in the initial state", p.Name)
		}
		for i := 1; i < len(tr); i++ {
			if !slices.ContainsFunc(m.Successors(tr[i-1].State), func(st model.Step) bool {
				return st.State.Equal(tr[i].State) && m.LabelString(st.Label) == tr[i].Label
			}) {
				return fmt.Sprintf("%s: step %d of the counterexample, %s, is not a transition of the model", p.Name, i, tr[i].Label)
			}
		}
		if inv, ok := model.LookupInvariant(p.Name); ok == nil && inv.Holds(m, tr[len(tr)-1].State) {
			return fmt.Sprintf("%s: the counterexample's last state satisfies it", p.Name)
		}
	}
	return ""
}

// TestSymmetryExploresOneStatePerOrbit: under SYMMETRY Symmetry the
// engine finds as many states as there are orbits (counted by brute force
// over every renaming, not by the canonicaliser), generates the
// successors of one state per orbit, and gives every verdict and
// counterexample length of the run without it, on every quick model with
// two values and with three.
func TestSymmetryExploresOneStatePerOrbit(t *testing.T) {
	jobs := symmetryJobs(t)
	names := make([]string, 0, len(jobs))
	for name := range jobs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		job := jobs[name]
		plain := *job
		plain.Symmetry = ""
		full := run(t, &plain, RunOptions{Continue: true})
		red := reduced(t, job, nil)
		n, generated := orbits(t, job)
		if msg := symmetryProblem(job, full, red, n, generated); msg != "" {
			t.Errorf("%s: %s", name, msg)
		}
		if red.Symmetry != Symmetry || (n < full.Distinct) != (red.Distinct < full.Distinct) {
			t.Errorf("%s: symmetry %q, %d of %d states", name, red.Symmetry, red.Distinct, full.Distinct)
		}
		t.Logf("%s: %d/%d/%d, without symmetry %d/%d/%d", name, red.Generated, red.Distinct, red.Depth, full.Generated, full.Distinct, full.Depth)
	}
}

// TestBrokenCanonicalisersAreCaught: the check above fails for
// canonicalisers that are wrong in the ways one could write them wrong:
// none (no reduction), one that merges orbits (forgets the order of the
// resumes), one that forgets to rename the outcomes, and one that keeps
// consumed as it is. Each is caught on some model.
func TestBrokenCanonicalisersAreCaught(t *testing.T) {
	repack := func(m *model.Model, s model.State) model.Packed {
		p, err := m.Pack(s)
		if err != nil {
			panic(err)
		}
		return p
	}
	broken := map[string]func(*model.Model, model.Packed) model.Packed{
		"identity": func(_ *model.Model, p model.Packed) model.Packed { return p },
		"merges orbits": func(m *model.Model, p model.Packed) model.Packed {
			c := m.Canonical(m.Unpack(p))
			slices.SortFunc(c.Resumes, func(a, b model.ResumeObs) int { return int(a.Value) - int(b.Value) })
			return repack(m, c)
		},
		"outcomes kept": func(m *model.Model, p model.Packed) model.Packed {
			s := m.Unpack(p)
			c := m.Canonical(s)
			for i := range c.Resumes {
				c.Resumes[i].Observed = s.Resumes[i].Observed
			}
			return repack(m, c)
		},
		"consumed kept": func(m *model.Model, p model.Packed) model.Packed {
			s := m.Unpack(p)
			c := m.Canonical(s)
			c.Consumed = s.Consumed
			return repack(m, c)
		},
	}
	type want struct {
		full         *Report
		n, generated uint64
	}
	jobs := symmetryJobs(t)
	wants := map[string]want{}
	for jn, job := range jobs {
		plain := *job
		plain.Symmetry = ""
		n, generated := orbits(t, job)
		wants[jn] = want{run(t, &plain, RunOptions{Continue: true}), n, generated}
	}
	for name, canon := range broken {
		var caught []string
		for jn, job := range jobs {
			w := wants[jn]
			if msg := symmetryProblem(job, w.full, reduced(t, job, canon), w.n, w.generated); msg != "" {
				caught = append(caught, jn+": "+msg)
			}
		}
		if len(caught) == 0 {
			t.Errorf("%s: passed on every model", name)
			continue
		}
		sort.Strings(caught)
		t.Logf("%s: caught on %d models, e.g. %s", name, len(caught), caught[0])
	}
}

// TestUninterpretedSectionsAreRefused: a cfg section the Go engine does
// not interpret (it would check another model than TLC) is refused by
// Run and States with its file and line, and SYMMETRY where the module
// has none; TLC's own sections load (tlcrun check --engine tlc reads
// them).
func TestUninterpretedSectionsAreRefused(t *testing.T) {
	r0, err := os.ReadFile("../spec/R0.cfg")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, extra := range []string{"CONSTRAINT Small", "ACTION_CONSTRAINT Step", "VIEW vars", "POSTCONDITION Done"} {
		path := filepath.Join(dir, "x.cfg")
		if err := os.WriteFile(path, append(slices.Clone(r0), "\n"+extra+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		job, err := Load(path, "../spec/Resume.tla")
		if err != nil {
			t.Fatalf("%s: %v", extra, err)
		}
		lines := strings.Count(string(r0), "\n") + 2
		want := fmt.Sprintf("%s:%d: ", path, lines)
		_, err = job.Run(context.Background(), RunOptions{})
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Run: %v, want an input error naming %s", extra, err, want)
		}
		if err := job.States(context.Background(), func(model.State) error { return nil }); !errors.Is(err, ErrInput) {
			t.Errorf("%s: States: %v", extra, err)
		}
	}
	for _, bad := range []string{"SYMMETRY Perms", "SYMMETRY Symmetry\nSYMMETRY Symmetry"} {
		cfg, err := tlacfg.Parse("x.cfg", string(r0)+"\n"+bad+"\n")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := FromConfig(cfg, "../spec/Resume.tla"); !errors.Is(err, ErrInput) {
			t.Errorf("%q: %v, want an input error", bad, err)
		}
	}
	tp, err := os.ReadFile("../examples/twophase/TwoPhase.cfg")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "TwoPhase.cfg")
	if err := os.WriteFile(path, append(tp, "\nSYMMETRY Symmetry\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	job, err := Load(path, "../examples/twophase/TwoPhase.tla")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := job.Run(context.Background(), RunOptions{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "SYMMETRY Symmetry") {
		t.Errorf("TwoPhase with SYMMETRY: %v", err)
	}
}

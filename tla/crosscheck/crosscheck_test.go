package crosscheck

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlcout"
	"github.com/resumecontract/resumecheck/tla/tlcout/tlcsample"
)

// recording parses a recorded TLC run of tla/tlcout/testdata.
func recording(t *testing.T, name string) *tlcout.Result {
	t.Helper()
	b, err := os.ReadFile(tlcsample.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimRight(string(b), "\n")
	out = out[:strings.LastIndex(out, "\n")+1] // the "exit N" line
	res, err := tlcout.Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func load(t *testing.T, cfg string) *check.Job {
	t.Helper()
	job, err := check.Load(filepath.Join("..", "..", "spec", cfg), "")
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// TestReportOnRecordings reads TLC's runs of the project's cfgs as
// reports and checks them against the Go model: every state of TLC's
// counterexamples is a model state, every step of them is a transition of
// the model under the action TLC names, and the first violation is the
// Go engine's (property, kind, length).
func TestReportOnRecordings(t *testing.T) {
	tests := []struct {
		file, cfg string
		deadlock  bool
		verdict   string
		first     string // property of the first violation
		length    int
		stutters  bool
	}{
		{"resume_r0_tool.out", "R0.cfg", false, "ok", "", 0, false},
		{"resume_replay_tool.out", "fault-replay.cfg", false, "violation", "EO", 4, false},
		{"resume_doubleconsume_continue_tool.out", "fault-doubleconsume.cfg", false, "violation", "EO", 6, false},
		{"resume_deadlock_tool.out", "R0.cfg", true, "violation", "deadlock", 7, false},
		{"resume_volatilepark_tool.out", "fault-volatilepark.cfg", false, "violation", "Liveness", 4, true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			job := load(t, tt.cfg)
			if tt.deadlock {
				job.CheckDeadlock = true
				job.Cfg.CheckDeadlock = new(true)
			}
			m, err := model.New(job.Params)
			if err != nil {
				t.Fatal(err)
			}
			rep := Report(recording(t, tt.file), job.Cfg, job.SpecPath, m)
			if rep.Verdict != tt.verdict || rep.Engine != "tlc" {
				t.Fatalf("verdict %s (engine %s), want %s", rep.Verdict, rep.Engine, tt.verdict)
			}
			if tt.file == "resume_doubleconsume_continue_tool.out" && len(rep.Violated) != 1 {
				t.Errorf("%d violations, want the 18 violating states as one (EO)", len(rep.Violated))
			}
			v := rep.FirstViolation()
			if v == nil {
				return
			}
			if v.Name() != tt.first || len(v.Trace) != tt.length || v.Stutters != tt.stutters {
				t.Errorf("first violation %s in %d states (stutters %v), want %s in %d", v.Name(), len(v.Trace), v.Stutters, tt.first, tt.length)
			}
			for i, st := range v.Trace {
				if got, want := m.Format(st.State), check.FormatVars(st.Vars); got != want {
					t.Fatalf("state %d did not convert to a model state:\n%s\nwant\n%s", i+1, got, want)
				}
				if i == 0 {
					continue
				}
				found := false
				m.Next(v.Trace[i-1].State, func(l model.Label, s model.State) {
					if l.Action.String() == st.Action && m.Format(s) == m.Format(st.State) {
						found = true
					}
				})
				if !found {
					t.Errorf("state %d: no %s step of the Go model leads there from state %d", i+1, st.Label, i)
				}
			}
			goRep, err := job.Run(context.Background(), check.RunOptions{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			g := goRep.FirstViolation()
			if g == nil || g.Name() != v.Name() || g.Kind != v.Kind || len(g.Trace) != len(v.Trace) {
				t.Errorf("the Go engine's first violation is %+v", g)
			}
		})
	}
}

// TestCompareStatesOnRecording compares TLC's recorded dump of R0 with
// the Go engine's states: the same 59. Against the states of other
// constants it finds the difference and names it.
func TestCompareStatesOnRecording(t *testing.T) {
	dump := tlcsample.Path("resume_r0.dump")
	ctx := context.Background()
	d, err := CompareStates(ctx, load(t, "R0.cfg"), dump, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal() || d.TLC != 59 || d.Go != 59 {
		t.Errorf("R0: %+v", d)
	}

	// A crash while parked reaches one more state (volatilepark).
	d, err = CompareStates(ctx, load(t, "fault-volatilepark.cfg"), dump, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Equal() || d.OnlyGoCount != 1 || d.OnlyTLCCount != 0 || len(d.OnlyGo) != 1 || !strings.Contains(d.OnlyGo[0].Text, `/\ lost = TRUE`) {
		t.Errorf("volatilepark against R0's dump: %+v", d)
	}
	var sb strings.Builder
	d.Write(&sb)
	if !strings.HasPrefix(sb.String(), "States differ: TLC has 59, the Go engine 60; 0 only in TLC's dump, 1 only in the Go engine's search.\nOnly Go (state ") {
		t.Errorf("Write:\n%s", sb.String())
	}

	// A state the Go model cannot hold (a variable it does not have).
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	odd := filepath.Join(t.TempDir(), "odd.dump")
	text := strings.Replace(string(b), "State 2:\n", "State 2:\n/\\ extra = 1\n", 1)
	os.WriteFile(odd, []byte(text), 0o644)
	d, err = CompareStates(ctx, load(t, "R0.cfg"), odd, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.OnlyTLCCount != 1 || d.OnlyGoCount != 0 || d.OnlyTLC[0].Index != 2 || !strings.Contains(d.OnlyTLC[0].Problem, "extra") {
		t.Errorf("a dump with an extra variable: %+v", d)
	}
}

func TestDifferences(t *testing.T) {
	a := &Measurement{Engine: "go", Found: check.Expect{Result: "ok", Violated: []string{}, Generated: 87, Distinct: 59, Depth: 8}}
	b := &Measurement{Engine: "tlc", Found: check.Expect{Result: "ok", Violated: []string{}, Generated: 105, Distinct: 59, Depth: 8}}
	got := Differences(a, b)
	if len(got) != 1 || got[0] != "generated: go 87, tlc 105" {
		t.Errorf("Differences = %q", got)
	}
	if d := Differences(a, a); len(d) != 0 {
		t.Errorf("Differences(a, a) = %q", d)
	}
}

// TestStatesCatchRebuildAsSkip is issue 14's hole in the mirror guard: a
// mutation of the Go model that records a rebuild recovery as "skip"
// keeps every figure the engines compare (verdict, first violation and
// its length, violated properties, counts) under fault-rebuild.cfg, so
// only the state sets tell it from the spec. Against TLC's recorded dump
// of that cfg (resume_rebuild.dump) the comparison of the state sets must
// fail and name a state on each side; the model as it is must match.
func TestStatesCatchRebuildAsSkip(t *testing.T) {
	dump := tlcsample.Path("resume_rebuild.dump")
	ctx := context.Background()
	d, err := CompareStates(ctx, load(t, "fault-rebuild.cfg"), dump, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Equal() || d.TLC != 59 || d.Go != 59 {
		t.Fatalf("the model as it is against TLC's dump of fault-rebuild: %+v", d)
	}

	mutant := load(t, "fault-rebuild.cfg")
	mutant.Mutate = mirrortest.RebuildAsSkip
	man, err := check.LoadManifest(filepath.Join("..", "..", "spec", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(man.Models, func(e check.Entry) bool { return e.Cfg == "fault-rebuild.cfg" })
	if i < 0 {
		t.Fatal("fault-rebuild.cfg is not in the manifest")
	}
	m, err := MeasureGo(ctx, mutant, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := check.Diff(man.Models[i].Expect, m.Found); len(diff) > 0 {
		t.Fatalf("the mutant no longer keeps the manifest's figures (the test needs one that does): %q", diff)
	}

	d, err = CompareStates(ctx, mutant, dump, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d.Equal() || d.OnlyGoCount == 0 || d.OnlyTLCCount == 0 {
		t.Fatalf("the state comparison did not catch the mutant: %+v", d)
	}
	if !strings.Contains(d.OnlyGo[0].Text, `decision |-> "skip"`) || !strings.Contains(d.OnlyTLC[0].Text, `decision |-> "rebuild"`) {
		t.Errorf("the differing states do not show the recorded decision:\nonly Go:\n%s\nonly TLC:\n%s", d.OnlyGo[0].Text, d.OnlyTLC[0].Text)
	}
	var sb strings.Builder
	d.Write(&sb)
	t.Logf("the mutant's state comparison:\n%s", sb.String())
}

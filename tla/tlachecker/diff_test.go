package tlachecker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/testing/mirrortest"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

const (
	manifestPath = "../../spec/manifest.json"
	// requireEnv makes a missing node or tla-checker a failure instead of
	// a skip; CI sets it so that the differential test cannot silently
	// stop running.
	requireEnv = "RESUMECHECK_REQUIRE_TLA_CHECKER"
	// perCfgTimeout bounds one cfg's exploration by tla-checker.
	perCfgTimeout = 5 * time.Minute
)

var checkerOptions = Options{Dir: "js"}

// needChecker skips the test when node or the pinned package is missing,
// unless requireEnv is set.
func needChecker(t *testing.T) {
	t.Helper()
	err := Available(checkerOptions)
	if err == nil {
		return
	}
	if errors.Is(err, ErrNotInstalled) && os.Getenv(requireEnv) != "1" {
		t.Skipf("tla-checker not installed: run npm ci --prefix tla/tlachecker/js (%v; set %s=1 to make this a failure)", err, requireEnv)
	}
	t.Fatalf("%v (%s=%q)", err, requireEnv, os.Getenv(requireEnv))
}

// TestDifferential explores every manifest cfg marked tla_checker with
// both tla-checker and the Go model, and requires the same graph.
func TestDifferential(t *testing.T) {
	needChecker(t)
	man, err := check.LoadManifest(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, e := range man.Models {
		if !e.TLAChecker {
			continue
		}
		if testing.Short() && strings.HasPrefix(e.Cfg, "fault-") {
			continue // -short: the reference and its extensions only (make test runs every fault)
		}
		ran++
		t.Run(strings.TrimSuffix(e.Cfg, ".cfg"), func(t *testing.T) {
			t.Parallel()
			x := explored(man, e)
			if x.err != nil {
				t.Fatal(x.err)
			}
			run := x.run
			t.Logf("%s: %d distinct states, %d distinct transitions; tla-checker explored in %v (%v with node start-up and decoding; node CPU %v)",
				e.Cfg, run.Graph.Distinct, run.Graph.Transitions, run.Explore.Round(time.Millisecond),
				run.Wall.Round(time.Millisecond), run.CPU.Round(time.Millisecond))
			if c := Compare(run.Graph, x.goGraph); !c.Equal() {
				t.Errorf("%s: the Go model does not match the spec as tla-checker reads it\n%s\nderived cfg given to tla-checker:\n%s", x.cfgPath, c, x.cfg)
			}
		})
	}
	if ran == 0 {
		t.Fatalf("%s marks no model tla_checker: true", manifestPath)
	}
}

// exploration is one manifest model explored by both sides, as
// TestDifferential compares them: tla-checker's run of the derived cfg
// and the Go model's graph.
type exploration struct {
	cfgPath, cfg string // the model file, and the cfg tla-checker was given
	job          *check.Job
	run          *Run
	goGraph      *Graph
	err          error
}

// explorations holds each model's exploration, computed once per test
// binary by whichever test asks first (TestDifferential, and
// TestDifferentialCatchesRebuildAsSkip for fault-rebuild, which used to
// run tla-checker on it a second time). Every test gets the same graphs
// it would have computed itself; none may change them.
var explorations sync.Map // cfg name -> func() *exploration

func explored(man *check.Manifest, e check.Entry) *exploration {
	f, _ := explorations.LoadOrStore(e.Cfg, sync.OnceValue(func() *exploration { return explore(man, e) }))
	return f.(func() *exploration)()
}

func explore(man *check.Manifest, e check.Entry) *exploration {
	x := &exploration{cfgPath: man.CfgPath(e)}
	fail := func(err error) *exploration {
		x.err = fmt.Errorf("%s: %w", x.cfgPath, err)
		return x
	}
	job, err := check.Load(x.cfgPath, man.SpecPath())
	if err != nil {
		return fail(err)
	}
	x.job = job
	m, err := model.New(job.Params)
	if err != nil {
		return fail(err)
	}
	if x.goGraph, err = ExploreModel(m, 0); err != nil {
		return fail(err)
	}
	if x.cfg, err = StepCfg(job.Cfg); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), perCfgTimeout)
	defer cancel()
	if x.run, err = Explore(ctx, man.SpecPath(), x.cfg, checkerOptions); err != nil {
		return fail(fmt.Errorf("%w\nderived cfg:\n%s", err, x.cfg))
	}
	return x
}

// r0 is the Go model at the reference bounds.
func r0(t *testing.T) *model.Model {
	t.Helper()
	job, err := check.Load("../../spec/R0.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.New(job.Params)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// mutant is the Go model with the successors of one state edited.
type mutant struct {
	*model.Model
	at   string // Encode of the state whose successors are edited
	edit func([]model.Step) []model.Step
}

func (m mutant) Next(s model.State, emit func(model.Label, model.State)) {
	steps := m.Successors(s)
	if string(m.Encode(nil, s)) == m.at {
		steps = m.edit(steps)
	}
	for _, st := range steps {
		emit(st.Label, st.State)
	}
}

// branching returns the first state, breadth-first, with at least two
// successors.
func branching(t *testing.T, m *model.Model) model.State {
	t.Helper()
	queue := []model.State{m.Init()}
	seen := map[string]bool{string(m.Encode(nil, m.Init())): true}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		steps := m.Successors(s)
		if len(steps) >= 2 {
			return s
		}
		for _, st := range steps {
			if k := string(m.Encode(nil, st.State)); !seen[k] {
				seen[k] = true
				queue = append(queue, st.State)
			}
		}
	}
	t.Fatal("no state of R0 has two successors")
	return model.State{}
}

// TestMutantsDisagree feeds deliberately wrong successor functions through
// the comparison the differential test uses, and requires it to name the
// state and the transition that differ.
func TestMutantsDisagree(t *testing.T) {
	m := r0(t)
	reference, err := ExploreModel(m, 0)
	if err != nil {
		t.Fatal(err)
	}
	if c := Compare(reference, reference); !c.Equal() {
		t.Fatalf("a graph differs from itself:\n%s", c)
	}
	at := branching(t, m)
	atName := Canonical(m.Vars(at))
	steps := m.Successors(at)
	last := steps[len(steps)-1]
	lastEdge := Edge{Action: m.LabelString(last.Label), To: Canonical(m.Vars(last.State))}
	altered := last.State.Clone()
	altered.Strays++
	alteredEdge := Edge{Action: lastEdge.Action, To: Canonical(m.Vars(altered))}
	relabelled := model.Label{Action: model.RaceResume}
	if last.Label.Action == model.RaceResume {
		relabelled.Action = model.ExtraResume
	}
	relabelledEdge := Edge{Action: m.LabelString(relabelled), To: lastEdge.To}

	tests := []struct {
		name        string
		edit        func([]model.Step) []model.Step
		kind        DiffKind
		onlyA       []Edge // what the reference has and the mutant lacks
		onlyB       []Edge
		countDiffer bool
	}{
		{
			name: "drop",
			edit: func(s []model.Step) []model.Step { return s[:len(s)-1] },
			kind: DiffSuccessors, onlyA: []Edge{lastEdge}, countDiffer: true,
		},
		{
			name: "alter",
			edit: func(s []model.Step) []model.Step {
				s = slices.Clone(s)
				s[len(s)-1].State = altered
				return s
			},
			kind: DiffSuccessors, onlyA: []Edge{lastEdge}, onlyB: []Edge{alteredEdge}, countDiffer: true,
		},
		{
			name: "relabel",
			edit: func(s []model.Step) []model.Step {
				s = slices.Clone(s)
				s[len(s)-1].Label = relabelled
				return s
			},
			kind: DiffActions, onlyA: []Edge{lastEdge}, onlyB: []Edge{relabelledEdge},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := ExploreModel(mutant{Model: m, at: string(m.Encode(nil, at)), edit: tt.edit}, 0)
			if err != nil {
				t.Fatal(err)
			}
			g.Source = "mutant"
			c := Compare(reference, g)
			if c.Equal() {
				t.Fatalf("the comparison found no difference with the %s mutant", tt.name)
			}
			i := slices.IndexFunc(c.Diffs, func(d Diff) bool { return d.Kind == tt.kind })
			if i < 0 {
				t.Fatalf("no %s difference:\n%s", tt.kind, c)
			}
			d := c.Diffs[i]
			if d.State != atName || !slices.Equal(d.OnlyA, tt.onlyA) || !slices.Equal(d.OnlyB, tt.onlyB) {
				t.Errorf("first %s difference:\n  state %s\n  only reference %v\n  only mutant %v\nwant:\n  state %s\n  only reference %v\n  only mutant %v",
					tt.kind, d.State, d.OnlyA, d.OnlyB, atName, tt.onlyA, tt.onlyB)
			}
			counted := slices.ContainsFunc(c.Diffs, func(d Diff) bool { return d.Kind == DiffCount })
			if counted != tt.countDiffer {
				t.Errorf("count difference reported: %v, want %v\n%s", counted, tt.countDiffer, c)
			}
			report := c.String()
			for _, want := range []string{atName, tt.onlyA[0].To, "only mutant", "reached by:"} {
				if !strings.Contains(report, want) {
					t.Errorf("report does not mention %q:\n%s", want, report)
				}
			}
			t.Logf("the %s mutant's report:\n%s", tt.name, report)
		})
	}
}

// TestCheckerStateDecoding checks, without node, that a state as
// tla-checker writes it (copied from its output at R0) has the canonical
// string of the same Go state.
func TestCheckerStateDecoding(t *testing.T) {
	m := r0(t)
	va := int8(0)
	tests := []struct {
		json string
		want model.State
	}{
		{
			json: `{"consumed":{"__model":"NoVal"},"consumes":0,"crashes":0,"effects":{"__tuple":[0,0,0]},"frontier":0,"log":{"__tuple":[]},"lost":false,"pc":1,"raced":0,"rebuilt":false,"recoveries":{"__tuple":[]},"reentered":false,"resumes":{"__tuple":[]},"strays":0,"waiting":false}`,
			want: m.Init(),
		},
		{
			json: `{"consumed": {"__model": "va"}, "consumes": 1, "crashes": 1, "effects": {"__tuple": [1, 1, 0]}, "frontier": 2, "log": {"__tuple": [{"task": 1, "valid": true}, {"task": 2, "valid": true}]}, "lost": false, "pc": 3, "raced": 0, "rebuilt": false, "recoveries": {"__tuple": [{"decision": "skip", "frontier": 2}]}, "reentered": false, "resumes": {"__tuple": [{"observed": {"__tuple": [{"__model": "va"}]}, "value": {"__model": "va"}}, {"observed": {"__tuple": [{"__model": "va"}]}, "value": {"__model": "va"}}]}, "strays": 0, "waiting": false}`,
			want: model.State{
				PC: 3, Effects: []uint8{1, 1, 0}, Frontier: 2, Consumed: va, Crashes: 1, Consumes: 1,
				Log:        []model.Record{{Task: 1, Valid: true}, {Task: 2, Valid: true}},
				Resumes:    []model.ResumeObs{{Value: va, Observed: va}, {Value: va, Observed: va}},
				Recoveries: []model.Recovery{{Frontier: 2, Decision: model.Skip}},
			},
		},
	}
	for i, tt := range tests {
		vars, err := DecodeCheckerState(json.RawMessage(tt.json))
		if err != nil {
			t.Fatalf("state %d: %v", i, err)
		}
		if got, want := Canonical(vars), Canonical(m.Vars(tt.want)); got != want {
			t.Errorf("state %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestTwoFormsOfOneState checks that driver output listing one state
// under two JSON texts is reported, not merged away.
func TestTwoFormsOfOneState(t *testing.T) {
	var raw rawGraph
	doc := `{"vars":["x"],"init":[0],"states":[
		{"json":{"x":[1,2]},"next":[{"action":"A","to":1}]},
		{"json":{"x":[2,1]},"next":[]}],"millis":0}`
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		t.Fatal(err)
	}
	g, err := raw.graph()
	if err != nil {
		t.Fatal(err)
	}
	if g.Distinct != 2 || len(g.States) != 1 {
		t.Fatalf("distinct %d, canonical states %d; want 2 and 1", g.Distinct, len(g.States))
	}
	c := Compare(g, g)
	if !slices.ContainsFunc(c.Diffs, func(d Diff) bool { return d.Kind == DiffIdentity }) {
		t.Errorf("no identity difference reported:\n%s", c)
	}
}

// TestStepCfg checks the derived cfg: INIT/NEXT instead of FairSpec, no
// PROPERTIES, and the same constants.
func TestStepCfg(t *testing.T) {
	job, err := check.Load("../../spec/R0-race.cfg", "")
	if err != nil {
		t.Fatal(err)
	}
	text, err := StepCfg(job.Cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlacfg.Parse("derived.cfg", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if cfg.Specification != "" || cfg.Init != "Init" || cfg.Next != "Next" || len(cfg.Properties) != 0 {
		t.Errorf("derived cfg keeps SPECIFICATION or PROPERTIES, or lacks INIT/NEXT:\n%s", text)
	}
	if job.Cfg.Specification != "FairSpec" || len(job.Cfg.Properties) == 0 {
		t.Errorf("StepCfg changed the cfg it was given")
	}
	derived, err := check.FromConfig(cfg, job.SpecPath)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if got, want := derived.Params, job.Params; !reflect.DeepEqual(got, want) {
		t.Errorf("constants changed:\n got %+v\nwant %+v", got, want)
	}
}

// TestOneActionPerTarget checks the action comparison against a side that,
// like tla-checker, keeps one transition per successor state.
func TestOneActionPerTarget(t *testing.T) {
	graph := func(source string, one bool, edges ...Edge) *Graph {
		g := newGraph(source, []string{"x"})
		g.OneActionPerTarget = one
		g.Init = []string{"s"}
		g.States = []string{"s", "t"}
		g.Next = map[string][]Edge{"s": edges, "t": nil}
		g.Distinct = 2
		return g
	}
	full := graph("full", false, Edge{"RaceResume(va)", "t"}, Edge{"RaceResume(vb)", "t"}, Edge{"ForkResume(va)", "t"})
	tests := []struct {
		name  string
		other *Graph
		equal bool
	}{
		{"collapsed, named among", graph("collapsed", true, Edge{"RaceResume", "t"}), true},
		{"collapsed, other first", graph("collapsed", true, Edge{"ForkResume", "t"}), true},
		{"collapsed, named elsewhere", graph("collapsed", true, Edge{"Consume", "t"}), false},
		{"full, one missing", graph("full2", false, Edge{"RaceResume(va)", "t"}), false},
	}
	for _, tt := range tests {
		c := Compare(tt.other, full)
		if c.Equal() != tt.equal {
			t.Errorf("%s: equal %v, want %v\n%s", tt.name, c.Equal(), tt.equal, c)
		}
	}
}

// TestAvailable checks what counts as missing (a skip) and what as broken
// (a failure even without RESUMECHECK_REQUIRE_TLA_CHECKER).
func TestAvailable(t *testing.T) {
	install := func(t *testing.T, pinned, installed string) string {
		dir := t.TempDir()
		write := func(path, text string) {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		write(filepath.Join(dir, "package.json"), `{"dependencies": {"tla-checker": "`+pinned+`"}}`)
		if installed != "" {
			write(filepath.Join(dir, "node_modules", "tla-checker", "package.json"), `{"version": "`+installed+`"}`)
		}
		return dir
	}
	node, err := exec.LookPath("node")
	if err != nil {
		node = os.Args[0] // any executable will do: Available only looks it up
	}
	tests := []struct {
		name       string
		opt        Options
		ok, absent bool
	}{
		{"installed", Options{Dir: install(t, "0.9.0", "0.9.0"), Node: node}, true, false},
		{"no module", Options{Dir: install(t, "0.9.0", ""), Node: node}, false, true},
		{"no node", Options{Dir: install(t, "0.9.0", "0.9.0"), Node: "no-such-node-executable"}, false, true},
		{"stale module", Options{Dir: install(t, "0.9.0", "0.8.1"), Node: node}, false, false},
		{"no dir", Options{Node: node}, false, false},
	}
	for _, tt := range tests {
		err := Available(tt.opt)
		if (err == nil) != tt.ok || errors.Is(err, ErrNotInstalled) != tt.absent {
			t.Errorf("%s: Available = %v; want ok %v, ErrNotInstalled %v", tt.name, err, tt.ok, tt.absent)
		}
	}
}

// TestDifferentialCatchesRebuildAsSkip: the mutation of issue 14 (a
// rebuild recovery recorded as "skip"), which keeps every figure the
// engines compare under fault-rebuild.cfg, is caught by the differential
// comparison with tla-checker, naming the state whose successors differ.
func TestDifferentialCatchesRebuildAsSkip(t *testing.T) {
	needChecker(t)
	man, err := check.LoadManifest(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	at := slices.IndexFunc(man.Models, func(e check.Entry) bool { return e.Cfg == "fault-rebuild.cfg" })
	if at < 0 {
		t.Fatalf("%s has no model fault-rebuild.cfg", manifestPath)
	}
	// tla-checker's graph and the Go model's as it is: TestDifferential's
	// exploration of fault-rebuild (computed here under -short).
	x := explored(man, man.Models[at])
	if x.err != nil {
		t.Fatal(x.err)
	}
	run := x.run
	if c := Compare(run.Graph, x.goGraph); !c.Equal() {
		t.Fatalf("the model as it is differs from the spec:\n%s", c)
	}
	job := *x.job // the shared job is not changed
	job.Mutate = mirrortest.RebuildAsSkip
	mutant, err := job.Machine()
	if err != nil {
		t.Fatal(err)
	}
	g, err := ExploreModel(mutant, 0)
	if err != nil {
		t.Fatal(err)
	}
	c := Compare(run.Graph, g)
	if c.Equal() {
		t.Fatal("the differential comparison did not catch the mutant")
	}
	i := slices.IndexFunc(c.Diffs, func(d Diff) bool { return d.Kind == DiffSuccessors })
	if i < 0 {
		t.Fatalf("no successor difference:\n%s", c)
	}
	if d := c.Diffs[i]; len(d.OnlyA) == 0 || !strings.Contains(d.OnlyA[0].To, `decision |-> "rebuild"`) ||
		len(d.OnlyB) == 0 || !strings.Contains(d.OnlyB[0].To, `decision |-> "skip"`) {
		t.Errorf("the difference does not show the decisions: %+v", d)
	}
	report := c.String()
	t.Logf("the mutant's comparison (%d differences), first lines:\n%s", len(c.Diffs), report[:min(len(report), 1200)])
}

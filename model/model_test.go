package model

import (
	"errors"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// reachable explores p breadth-first and returns every distinct state.
func reachable(t testing.TB, p Params) (*Model, []State) {
	t.Helper()
	m, err := New(p)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	seen := map[string]bool{}
	var states []State
	add := func(s State) {
		k := string(m.Encode(nil, s))
		if !seen[k] {
			seen[k] = true
			states = append(states, s)
		}
	}
	add(m.Init())
	for i := 0; i < len(states); i++ {
		m.Next(states[i], func(_ Label, s State) { add(s) })
	}
	return m, states
}

// variants are the reference bounds with each fault (and the extension it
// needs) switched on.
func variants() map[string]Params {
	out := map[string]Params{"reference": R0()}
	race := R0()
	race.Racers = 2
	out["race"] = race
	parked := R0()
	parked.CrashWhileParked = true
	out["parked"] = parked
	for _, f := range AllFaults {
		p := R0()
		p.Faults = p.Faults.With(f)
		switch f {
		case RaceConsume, RaceEffect:
			p.Racers = 2
		case VolatilePark:
			p.CrashWhileParked = true
		case NondetRec, Regate:
			p.MaxCrashes = 2
		}
		out[string(f)] = p
	}
	return out
}

func TestReferenceCounts(t *testing.T) {
	_, states := reachable(t, R0())
	// docs/resume-contract.md: the reference semantics has 59 distinct
	// states at R0.
	if want := 59; len(states) != want {
		t.Errorf("%d distinct states at R0, want %d", len(states), want)
	}
}

func TestEncodingRoundTrips(t *testing.T) {
	for name, p := range variants() {
		m, states := reachable(t, p)
		for _, s := range states {
			enc := m.Encode(nil, s)
			back, err := m.Decode(enc)
			if err != nil {
				t.Fatalf("%s: Decode(Encode(s)): %v for\n%s", name, err, m.Format(s))
			}
			if !s.Equal(back) {
				t.Fatalf("%s: Decode(Encode(s)) != s for\n%s", name, m.Format(s))
			}
			fromTLA, err := m.StateFromVars(m.Vars(s))
			if err != nil {
				t.Fatalf("%s: StateFromVars(Vars(s)): %v for\n%s", name, err, m.Format(s))
			}
			if !s.Equal(fromTLA) {
				t.Fatalf("%s: StateFromVars(Vars(s)) != s for\n%s", name, m.Format(s))
			}
			if !m.TypeOK(s) {
				t.Fatalf("%s: TypeOK fails in a reachable state\n%s", name, m.Format(s))
			}
		}
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	m, err := New(R0())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	enc := m.Encode(nil, m.Init())
	for _, b := range [][]byte{nil, enc[:5], append(slices.Clone(enc), 7), append(enc[:len(enc)-1:len(enc)-1], 200)} {
		if _, err := m.Decode(b); err == nil {
			t.Errorf("Decode(%v): no error, want one", b)
		}
	}
}

func TestStateFromVarsNamesProblems(t *testing.T) {
	m, err := New(R0())
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	vars := m.Vars(m.Init())
	delete(vars, "pc")
	vars["bogus"] = vars["waiting"]
	vars["consumed"] = vars["frontier"]
	_, err = m.StateFromVars(vars)
	if err == nil {
		t.Fatal("StateFromVars: no error, want one naming pc, bogus and consumed")
	}
	for _, want := range []string{"pc: missing", "bogus: not a variable", "consumed: want one of the model values"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("StateFromVars: got %q, want it to say %q", err, want)
		}
	}
}

// step applies a sequence of labels from the initial state, failing if one
// is disabled.
func step(t *testing.T, m *Model, ls ...Label) State {
	t.Helper()
	s := m.Init()
	for i, l := range ls {
		var ok bool
		s, ok = m.Apply(s, l)
		if !ok {
			t.Fatalf("step %d (%s) is disabled", i+1, m.LabelString(l))
		}
	}
	return s
}

var (
	exec   = Label{Action: ExecTask}
	emit   = Label{Action: EmitInterrupt}
	crash  = Label{Action: CrashRecover, Decision: Skip}
	stray  = Label{Action: ExtraResume}
	va, vb = int8(0), int8(1)
)

func consumeOf(v int8) Label { return Label{Action: Consume, Value: v} }
func forkOf(v int8) Label    { return Label{Action: ForkResume, Value: v} }

func TestReferenceActions(t *testing.T) {
	m, err := New(R0())
	if err != nil {
		t.Fatalf("New: %v", err)
	}

	s := step(t, m, exec)
	if _, ok := m.ExecTask(s); ok {
		t.Errorf("ExecTask is enabled, want it disabled: the gated task cannot run before a value is consumed")
	}

	s = step(t, m, exec, emit)
	if _, ok := m.CrashRecover(s, Skip); ok {
		t.Errorf("CrashRecover is enabled, want it disabled: without the parked-crash extension a parked run does not crash")
	}

	s = step(t, m, exec, emit, consumeOf(vb))
	if d := cmp.Diff([]uint8{1, 1, 0}, s.Effects); d != "" {
		t.Errorf("effects after consuming vb (-want +got):\n%s", d)
	}
	if s.Consumed != vb {
		t.Errorf("consumed: got %d, want vb (%d)", s.Consumed, vb)
	}
	if s.PC != 3 {
		t.Errorf("pc after consuming vb: got %d, want 3", s.PC)
	}
	if s.Frontier != 2 {
		t.Errorf("frontier after consuming vb: got %d, want 2", s.Frontier)
	}

	s = step(t, m, exec, emit, consumeOf(vb), crash)
	if s.PC != 3 {
		t.Errorf("pc after the crash: got %d, want 3: recovery continues at frontier+1", s.PC)
	}
	if d := cmp.Diff([]Recovery{{Frontier: 2, Decision: Skip}}, s.Recoveries); d != "" {
		t.Errorf("recoveries (-want +got):\n%s", d)
	}

	s = step(t, m, exec, emit, consumeOf(va), exec, forkOf(vb), stray)
	if d := cmp.Diff([]uint8{1, 1, 1}, s.Effects); d != "" {
		t.Errorf("effects: a stray resume and a fork fire nothing (-want +got):\n%s", d)
	}
	if !m.Safety(s) {
		t.Errorf("Safety fails, want it to hold in\n%s", m.Format(s))
	}
	if !m.Completed(s) {
		t.Errorf("the run is not completed, want it completed in\n%s", m.Format(s))
	}
	if _, ok := m.ForkResume(s, va); ok {
		t.Errorf("ForkResume is enabled, want it disabled: MaxResumes = 2 bounds the resumes")
	}
}

func TestEachFaultBreaksWhatItShould(t *testing.T) {
	// Each case drives the fault's model along a path and names the
	// invariants that must then fail (and that the rest still hold).
	cases := []struct {
		fault  Fault
		path   []Label
		broken []string
	}{
		{Replay, []Label{exec, {Action: CrashRecover, Decision: ReplayFromStart}, exec}, []string{"EO", "PCPrefix", "PC", "Safety"}},
		{ForkIgnore, []Label{exec, emit, consumeOf(va), forkOf(vb)}, []string{"FD", "Safety"}},
		{InvalidPersist, []Label{exec, emit, consumeOf(va), exec}, []string{"CV", "Safety"}},
		{Rebuild, []Label{exec, {Action: CrashRecover, Decision: Rebuilt}}, []string{"PCLineage", "PC", "Safety"}},
		{Redeliver, []Label{exec, {Action: CrashRecover, Decision: Redelivered}}, []string{"EO", "Safety"}},
		{DoubleConsume, []Label{exec, emit, consumeOf(va), exec, stray}, []string{"EO", "COEffect", "COCount", "CO", "Safety"}},
		{RaceConsume, []Label{exec, emit, consumeOf(va), {Action: RaceResume, Value: vb}}, []string{"COCount", "CO", "Safety"}},
		{Regate, []Label{exec, emit, consumeOf(va), {Action: CrashRecover, Decision: Skip}, {Action: CrashRecover, Decision: Regated}}, []string{"RD", "Safety"}},
	}
	for _, c := range cases {
		t.Run(string(c.fault), func(t *testing.T) {
			p := variants()[string(c.fault)]
			m, err := New(p)
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			s := step(t, m, c.path...)
			for _, inv := range Invariants {
				if strings.HasPrefix(inv.Name, "Ind") {
					continue // the induction's predicates are the reference semantics' only
				}
				want := !slices.Contains(c.broken, inv.Name)
				if got := inv.Holds(m, s); got != want {
					t.Errorf("%s after %d steps: holds %t, want %t:\n%s", inv.Name, len(c.path), got, want, m.Format(s))
				}
			}
		})
	}
}

func TestVolatileParkLosesTheInterrupt(t *testing.T) {
	m, err := New(variants()[string(VolatilePark)])
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s := step(t, m, exec, emit, crash)
	if !s.Lost {
		t.Errorf("the interrupt is not lost after the crash, want it lost:\n%s", m.Format(s))
	}
	if succ := m.Successors(s); len(succ) != 0 {
		t.Errorf("%d successors, want none: nothing can raise the lost interrupt again", len(succ))
	}
	if m.Completed(s) {
		t.Errorf("the run is completed, want it not to be: its interrupt is lost")
	}

	durable, err := New(variants()["parked"])
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	s = step(t, durable, exec, emit, crash)
	if !s.Waiting {
		t.Errorf("not waiting after the crash, want waiting: a durable park survives the crash")
	}
}

func TestParamsValidate(t *testing.T) {
	cases := map[string]func(*Params){
		"NTasks":           func(p *Params) { p.NTasks = 1 },
		"IP":               func(p *Params) { p.IP = 4 },
		"Values":           func(p *Params) { p.Values = []string{"va", "va"} },
		"NoVal":            func(p *Params) { p.NoVal = "va" },
		"MaxResumes":       func(p *Params) { p.MaxResumes = 0 },
		"Faults":           func(p *Params) { p.Faults = p.Faults.With(Replay, Rebuild) },
		"Racers":           func(p *Params) { p.Faults = p.Faults.With(RaceEffect) },
		"CrashWhileParked": func(p *Params) { p.Faults = p.Faults.With(VolatilePark) },
		// A counted bound past MaxCount (the counters are 32 bits wide).
		"MaxCrashes": func(p *Params) { p.MaxCrashes = MaxCount + 1 },
	}
	for constant, mutate := range cases {
		p := R0()
		mutate(&p)
		err := p.Validate()
		var pe *ParamError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: Validate: got %v, want a *ParamError", constant, err)
		}
		if pe.Constant != constant {
			t.Errorf("%s: the error names %s, want %s", constant, pe.Constant, constant)
		}
		if !errors.Is(err, ErrParams) {
			t.Errorf("%s: Validate: got %v, want an error that is ErrParams", constant, err)
		}
	}
	if err := R0().Validate(); err != nil {
		t.Errorf("R0: %v", err)
	}
	if err := R8().Validate(); err != nil {
		t.Errorf("R8: %v", err)
	}
	// The bounds of a long run (many recoveries, racers and strays) are
	// constants too, far past a byte (TestLongRunBounds goes further).
	long := R0()
	long.MaxCrashes, long.MaxExtraResumes, long.Racers = 100, 100, 53
	if err := long.Validate(); err != nil {
		t.Errorf("a long run's bounds: %v", err)
	}
}

// TestVocabularyMatchesSpec keeps spec/Resume.tla and this package in one
// language: the same constants, variables, actions, invariants and faults.
func TestVocabularyMatchesSpec(t *testing.T) {
	src, err := os.ReadFile("../spec/Resume.tla")
	if err != nil {
		t.Fatal(err)
	}
	spec := stripComments(string(src))

	if d := cmp.Diff(ConstantNames, declared(t, spec, "CONSTANTS")); d != "" {
		t.Errorf("CONSTANTS (-Go +spec):\n%s", d)
	}
	if d := cmp.Diff(VarNames, declared(t, spec, "VARIABLES")); d != "" {
		t.Errorf("VARIABLES (-Go +spec):\n%s", d)
	}
	for _, a := range Actions {
		if !regexp.MustCompile(`(?m)^` + a.String() + `(\(\w+\))? ==`).MatchString(spec) {
			t.Errorf("action %s is not defined in the spec", a)
		}
	}
	for _, inv := range Invariants {
		if !regexp.MustCompile(`(?m)^` + inv.Name + ` ==`).MatchString(spec) {
			t.Errorf("invariant %s is not defined in the spec", inv.Name)
		}
	}
	for _, f := range AllFaults {
		if !strings.Contains(spec, `"`+string(f)+`"`) {
			t.Errorf("fault %s is not named in the spec", f)
		}
	}
	for _, d := range decisionNames {
		if !strings.Contains(spec, `"`+d+`"`) {
			t.Errorf("decision %s is not named in the spec", d)
		}
	}
}

var commentRE = regexp.MustCompile(`(?s)\(\*.*?\*\)|\\\*[^\n]*`)

func stripComments(s string) string { return commentRE.ReplaceAllString(s, "") }

// declared returns the names in the spec's CONSTANTS or VARIABLES block.
func declared(t *testing.T, spec, keyword string) []string {
	t.Helper()
	re := regexp.MustCompile(`\n` + keyword + `\s+((?:\w+\s*,\s*)*\w+)`)
	m := re.FindStringSubmatch(spec)
	if m == nil {
		t.Fatalf("no %s block in the spec", keyword)
	}
	var names []string
	for _, f := range strings.Split(m[1], ",") {
		if n := strings.TrimSpace(f); n != "" {
			names = append(names, n)
		}
	}
	return names
}

// Every state reachable at R0 is in IndTypeOK and satisfies IndInv (the
// strengthening tlcrun induct checks inductive, spec/induct/R0.cfg); a
// state one step off it (a task's effect fired twice) does not.
func TestIndInvHoldsAtR0(t *testing.T) {
	m, err := New(R0())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	n := 0
	for queue := []State{m.Init()}; len(queue) > 0; queue = queue[1:] {
		s := queue[0]
		if k := string(m.Encode(nil, s)); seen[k] {
			continue
		} else {
			seen[k] = true
		}
		n++
		if !m.IndTypeOK(s) {
			t.Fatalf("IndTypeOK fails on a reachable state:\n%s", m.Format(s))
		}
		if !m.IndInv(s) {
			t.Fatalf("IndInv fails on a reachable state:\n%s", m.Format(s))
		}
		m.Next(s, func(_ Label, u State) { queue = append(queue, u) })
	}
	if n != 59 {
		t.Errorf("reachable states at R0: got %d, want 59", n)
	}
	s := step(t, m, exec)
	s.Effects[0] = 2
	if !m.IndTypeOK(s) {
		t.Errorf("effects[1] = 2: IndTypeOK false, want true (the type allows one more than EO)")
	}
	if m.IndInv(s) {
		t.Errorf("effects[1] = 2: IndInv true, want false (it breaks IndEffects and EO)")
	}
	s.Effects[0] = 3
	if m.IndTypeOK(s) {
		t.Errorf("effects[1] = 3: IndTypeOK true, want false (outside 0..2)")
	}
}

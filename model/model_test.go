package model

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reachable explores p breadth-first and returns every distinct state.
func reachable(t testing.TB, p Params) (*Model, []State) {
	t.Helper()
	m, err := New(p)
	require.NoError(t, err)
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
	assert.Len(t, states, 59, "docs/resume-contract.md: the reference semantics has 59 distinct states at R0")
}

func TestEncodingRoundTrips(t *testing.T) {
	for name, p := range variants() {
		m, states := reachable(t, p)
		for _, s := range states {
			enc := m.Encode(nil, s)
			back, err := m.Decode(enc)
			require.NoError(t, err, name)
			require.True(t, s.Equal(back), "%s: Decode(Encode(s)) != s for\n%s", name, m.Format(s))
			fromTLA, err := m.StateFromVars(m.Vars(s))
			require.NoError(t, err, name)
			require.True(t, s.Equal(fromTLA), "%s: StateFromVars(Vars(s)) != s for\n%s", name, m.Format(s))
			require.True(t, m.TypeOK(s), "%s: TypeOK fails in a reachable state\n%s", name, m.Format(s))
		}
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	m, err := New(R0())
	require.NoError(t, err)
	enc := m.Encode(nil, m.Init())
	for _, b := range [][]byte{nil, enc[:5], append(slices.Clone(enc), 7), append(enc[:len(enc)-1:len(enc)-1], 200)} {
		_, err := m.Decode(b)
		assert.Error(t, err, "Decode(%v)", b)
	}
}

func TestStateFromVarsNamesProblems(t *testing.T) {
	m, err := New(R0())
	require.NoError(t, err)
	vars := m.Vars(m.Init())
	delete(vars, "pc")
	vars["bogus"] = vars["waiting"]
	vars["consumed"] = vars["frontier"]
	_, err = m.StateFromVars(vars)
	require.Error(t, err)
	for _, want := range []string{"pc: missing", "bogus: not a variable", "consumed: want one of the model values"} {
		assert.Contains(t, err.Error(), want)
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
		require.True(t, ok, "step %d (%s) is disabled", i+1, m.LabelString(l))
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
	require.NoError(t, err)

	s := step(t, m, exec)
	_, ok := m.ExecTask(s)
	assert.False(t, ok, "the gated task cannot run before a value is consumed")

	s = step(t, m, exec, emit)
	_, ok = m.CrashRecover(s, Skip)
	assert.False(t, ok, "without the parked-crash extension a parked run does not crash")

	s = step(t, m, exec, emit, consumeOf(vb))
	assert.Equal(t, []uint8{1, 1, 0}, s.Effects)
	assert.Equal(t, vb, s.Consumed)
	assert.Equal(t, int8(3), s.PC)
	assert.Equal(t, int8(2), s.Frontier)

	s = step(t, m, exec, emit, consumeOf(vb), crash)
	assert.Equal(t, int8(3), s.PC, "recovery continues at frontier+1")
	assert.Equal(t, []Recovery{{Frontier: 2, Decision: Skip}}, s.Recoveries)

	s = step(t, m, exec, emit, consumeOf(va), exec, forkOf(vb), stray)
	assert.Equal(t, []uint8{1, 1, 1}, s.Effects, "a stray resume and a fork fire nothing")
	assert.True(t, m.Safety(s))
	assert.True(t, m.Completed(s))
	_, ok = m.ForkResume(s, va)
	assert.False(t, ok, "MaxResumes = 2 bounds the resumes")
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
			require.NoError(t, err)
			s := step(t, m, c.path...)
			for _, inv := range Invariants {
				want := !slices.Contains(c.broken, inv.Name)
				assert.Equal(t, want, inv.Holds(m, s), "%s after %d steps:\n%s", inv.Name, len(c.path), m.Format(s))
			}
		})
	}
}

func TestVolatileParkLosesTheInterrupt(t *testing.T) {
	m, err := New(variants()[string(VolatilePark)])
	require.NoError(t, err)
	s := step(t, m, exec, emit, crash)
	assert.True(t, s.Lost)
	assert.Empty(t, m.Successors(s), "nothing can raise the lost interrupt again")
	assert.False(t, m.Completed(s))

	durable, err := New(variants()["parked"])
	require.NoError(t, err)
	s = step(t, durable, exec, emit, crash)
	assert.True(t, s.Waiting, "a durable park survives the crash")
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
		require.ErrorAs(t, err, &pe, constant)
		assert.Equal(t, constant, pe.Constant)
		assert.ErrorIs(t, err, ErrParams)
	}
	assert.NoError(t, R0().Validate())
	assert.NoError(t, R8().Validate())
	// The bounds of a long run (many recoveries, racers and strays) are
	// constants too, far past a byte (TestLongRunBounds goes further).
	long := R0()
	long.MaxCrashes, long.MaxExtraResumes, long.Racers = 100, 100, 53
	assert.NoError(t, long.Validate())
}

// TestVocabularyMatchesSpec keeps spec/Resume.tla and this package in one
// language: the same constants, variables, actions, invariants and faults.
func TestVocabularyMatchesSpec(t *testing.T) {
	src, err := os.ReadFile("../spec/Resume.tla")
	require.NoError(t, err)
	spec := stripComments(string(src))

	assert.Equal(t, ConstantNames, declared(t, spec, "CONSTANTS"), "CONSTANTS")
	assert.Equal(t, VarNames, declared(t, spec, "VARIABLES"), "VARIABLES")
	for _, a := range Actions {
		assert.Regexp(t, `(?m)^`+a.String()+`(\(\w+\))? ==`, spec, "action %s is defined in the spec", a)
	}
	for _, inv := range Invariants {
		assert.Regexp(t, `(?m)^`+inv.Name+` ==`, spec, "invariant %s is defined in the spec", inv.Name)
	}
	for _, f := range AllFaults {
		assert.Contains(t, spec, `"`+string(f)+`"`, "fault %s is named in the spec", f)
	}
	for _, d := range decisionNames {
		assert.Contains(t, spec, `"`+d+`"`, "decision %s is named in the spec", d)
	}
}

var commentRE = regexp.MustCompile(`(?s)\(\*.*?\*\)|\\\*[^\n]*`)

func stripComments(s string) string { return commentRE.ReplaceAllString(s, "") }

// declared returns the names in the spec's CONSTANTS or VARIABLES block.
func declared(t *testing.T, spec, keyword string) []string {
	t.Helper()
	re := regexp.MustCompile(`\n` + keyword + `\s+((?:\w+\s*,\s*)*\w+)`)
	m := re.FindStringSubmatch(spec)
	require.NotNil(t, m, "no %s block in the spec", keyword)
	var names []string
	for _, f := range strings.Split(m[1], ",") {
		if n := strings.TrimSpace(f); n != "" {
			names = append(names, n)
		}
	}
	return names
}

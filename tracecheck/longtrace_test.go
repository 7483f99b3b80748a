package tracecheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resumecontract/resumecheck/internal/longtrace"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// longRejected writes longtrace.CrashesInvalid's trace of n events and
// returns it with its header's constants.
func longRejected(t testing.TB, n int) ([]byte, model.Params) {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, longtrace.CrashesInvalid(&buf, n))
	return buf.Bytes(), longtrace.CrashesHeader(n)
}

// checkBytes replays a trace held as NDJSON, streaming, as tracecheck
// does, and returns the checker after it stopped.
func checkBytes(t testing.TB, b []byte) *Checker {
	t.Helper()
	d := trace.NewDecoder(bytes.NewReader(b))
	h, err := d.Header()
	require.NoError(t, err)
	p, err := h.Params()
	require.NoError(t, err)
	c, err := New(p, Options{})
	require.NoError(t, err)
	_, err = Replay(d, c)
	require.NoError(t, err)
	return c
}

func openBytes(b []byte) Source {
	return func() (EventReader, error) {
		d := trace.NewDecoder(bytes.NewReader(b))
		if _, err := d.Header(); err != nil {
			return nil, err
		}
		return d, nil
	}
}

// TestLongRejectedDiagnosis: a trace rejected at its last event after a
// hundred thousand crash recoveries gets its whole report (the nearest
// successor, why each transition failed, the explaining fault), and the
// report builds as many TLA+ values for it as for a trace of a hundred
// events: it is linear in the trace (the replay) and constant in the
// length of the recovery history it shows. Building the candidate's
// recoveries whole, as the report did before, makes elems grow with n
// and fails the test.
func TestLongRejectedDiagnosis(t *testing.T) {
	work := map[int]diagWork{}
	for _, n := range []int{100, 100_000} {
		b, p := longRejected(t, n)
		c := checkBytes(t, b)
		r := c.Result()
		require.Equal(t, Rejected, r.Verdict, "n = %d", n)
		assert.Equal(t, n-1, r.Matched)
		f := r.Failure
		require.NotNil(t, f)
		assert.Equal(t, n, f.Event.Index)
		assert.Equal(t, "ExecTask", f.Event.Label)
		assert.True(t, f.NamedEnabled)
		require.NotNil(t, f.Nearest)
		assert.Equal(t, "ExecTask", f.Nearest.Label)
		require.Len(t, f.Nearest.Diff, 1)
		assert.Equal(t, "log", f.Nearest.Diff[0].Var)
		assert.Equal(t, []string{"log[3].valid: observed FALSE, spec TRUE"}, f.Nearest.Diff[0].Details)
		require.Len(t, f.Candidates, 1)
		recs := n - 4
		var shown string
		for _, v := range f.Candidates[0].State {
			if v.Var == "recoveries" {
				shown = v.Value
			}
		}
		want := `<<[decision |-> "skip", frontier |-> 2]>>`
		if recs > 1 {
			want = "<<" + strings.Repeat(`[decision |-> "skip", frontier |-> 2], `, recs-1) + `[decision |-> "skip", frontier |-> 2]>>`
		}
		if recs > maxShownElems {
			want = "<<" + strings.Repeat(`[decision |-> "skip", frontier |-> 2], `, maxShownElems/2) +
				fmt.Sprintf("... %d more ..., ", recs-maxShownElems*3/4) +
				strings.Repeat(`[decision |-> "skip", frontier |-> 2], `, maxShownElems/4-1) +
				`[decision |-> "skip", frontier |-> 2]>> (` + strconv.Itoa(recs) + " elements)"
		}
		assert.Equal(t, want, shown, "n = %d", n)
		var why []string
		for _, a := range f.Candidates[0].Actions {
			why = append(why, a.Label+": "+a.Disabled+diffVars(a.Diff))
		}
		assert.Equal(t, []string{
			"ExecTask: log",
			"EmitInterrupt: pc = 3 # IP = 2",
			"Consume(va): waiting = FALSE: nothing is parked to consume",
			"Consume(vb): waiting = FALSE: nothing is parked to consume",
			"ForkResume(va): pc effects log frontier resumes",
			"ForkResume(vb): pc effects log frontier resumes",
			"CrashRecover(skip): pc effects log frontier crashes",
			"ExtraResume: pc = 3 # Done = 4: the run is not complete",
		}, why)
		work[n] = c.diagWork

		accepting, _, err := ExplainSource(p, openBytes(b), Options{})
		require.NoError(t, err)
		assert.Equal(t, "explained by the invalidpersist model", Summary(accepting))
	}
	t.Logf("report work: %+v", work)
	assert.Equal(t, work[100], work[100_000], "the report of a long history builds no more than a short one's")
	assert.Less(t, work[100_000].elems, 200)
}

func diffVars(ds []VarDiff) string {
	var vs []string
	for _, d := range ds {
		vs = append(vs, d.Var)
	}
	return strings.Join(vs, " ")
}

// TestLongRejectedExplainAllocations: trying the fault models on the long
// trace allocates a number of objects that does not grow with it (the
// models' rejections record their verdicts, not a report; a sequence
// grows by doubling), where building a report per model allocated
// several objects per recovery per model.
func TestLongRejectedExplainAllocations(t *testing.T) {
	mallocs := map[int]uint64{}
	for _, n := range []int{10_000, 100_000} {
		b, p := longRejected(t, n)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		accepting, _, err := ExplainSource(p, openBytes(b), Options{})
		runtime.ReadMemStats(&after)
		require.NoError(t, err)
		require.Len(t, accepting, 1)
		mallocs[n] = after.Mallocs - before.Mallocs
	}
	t.Logf("allocations: %v", mallocs)
	assert.Less(t, mallocs[100_000], mallocs[10_000]+2000, "allocations grow with the trace: %v", mallocs)
}

// refShow and refDiffObserved are the report's printing and comparison
// done the plain way, on whole TLA+ values (model.Vars): what the
// diagnoser must say, element by element.
func refShow(v tlavalue.Value) string {
	if v.Kind() != tlavalue.KindTuple || v.Len() <= maxShownElems {
		return v.String()
	}
	es := v.Elems()
	var parts []string
	for _, e := range es[:maxShownElems/2] {
		parts = append(parts, e.String())
	}
	parts = append(parts, fmt.Sprintf("... %d more ...", len(es)-maxShownElems*3/4))
	for _, e := range es[len(es)-maxShownElems/4:] {
		parts = append(parts, e.String())
	}
	return "<<" + strings.Join(parts, ", ") + ">> (" + strconv.Itoa(len(es)) + " elements)"
}

func refDiffObserved(m *model.Model, ev *trace.Event, t *model.State) []VarDiff {
	obs, spec := m.Vars(ev.State), m.Vars(*t)
	var out []VarDiff
	for _, v := range ev.Observed.List() {
		name := v.String()
		if tlavalue.Equal(obs[name], spec[name]) {
			continue
		}
		d := VarDiff{Var: name, Observed: refShow(obs[name]), Spec: refShow(spec[name])}
		diffValue(name, obs[name], spec[name], &d.Details)
		if len(d.Details) == 1 && d.Details[0] == fmt.Sprintf("%s: observed %s, spec %s", name, d.Observed, d.Spec) {
			d.Details = nil
		}
		out = append(out, d)
	}
	return out
}

// randomLong is a state with random variables and sequences up to n
// long (not necessarily reachable: the report prints whatever it gets).
func randomLong(r *rand.Rand, n int) model.State {
	s := model.State{PC: int8(r.IntN(4) + 1), Frontier: int8(r.IntN(4)), Waiting: r.IntN(2) == 0,
		Consumed: int8(r.IntN(3) - 1), Crashes: uint32(r.IntN(3)), Strays: uint32(r.IntN(2)), Lost: r.IntN(2) == 0}
	s.Effects = make([]uint8, 3)
	for i := range s.Effects {
		s.Effects[i] = uint8(r.IntN(2))
	}
	for range r.IntN(n + 1) {
		s.Log = append(s.Log, model.Record{Task: int8(r.IntN(2) + 1), Valid: r.IntN(8) != 0})
	}
	for range r.IntN(n + 1) {
		s.Resumes = append(s.Resumes, model.ResumeObs{Value: int8(r.IntN(2)), Observed: int8(r.IntN(2))})
	}
	for range r.IntN(n + 1) {
		s.Recoveries = append(s.Recoveries, model.Recovery{Frontier: int8(r.IntN(2)), Decision: model.Decision(r.IntN(2))})
	}
	return s
}

// TestDiagnoserMatchesWholeValues: the report printed and compared
// element by element says exactly what printing and comparing the whole
// TLA+ values says, on short and long sequences, equal, nearly equal
// (one element or the length changed: differences far from the start)
// and unrelated.
func TestDiagnoserMatchesWholeValues(t *testing.T) {
	m, err := model.New(model.R0())
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		n := []int{3, 40, 400}[i%3]
		a := randomLong(r, n)
		b := a.Clone()
		switch i % 4 {
		case 0:
			b = randomLong(r, n)
		case 1:
			if len(b.Recoveries) > 0 {
				b.Recoveries[r.IntN(len(b.Recoveries))].Decision ^= 1
			}
			if len(b.Log) > 0 {
				k := r.IntN(len(b.Log))
				b.Log[k].Valid = !b.Log[k].Valid
			}
		case 2:
			b.Resumes = append(b.Resumes, model.ResumeObs{Value: 1, Observed: 0})
			b.Recoveries = b.Recoveries[:len(b.Recoveries)/2]
		}
		ev := trace.Event{Observed: trace.AllVars, State: a}
		if i%5 == 0 {
			ev.Observed = trace.Vars(trace.VarRecoveries, trace.VarPC)
		}
		d := &diagnoser{m: m}
		require.Equal(t, refDiffObserved(m, &ev, &b), d.diffObserved(&ev, &b), "case %d", i)
		for _, name := range model.VarNames {
			require.Equal(t, refShow(m.Vars(a)[name]), d.show(&a, name), "case %d, %s", i, name)
		}
	}
}

// TestSeqDiffs: trace.SeqDiffs finds the differing elements a plain loop
// finds, across the blocks it skips.
func TestSeqDiffs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		a := randomLong(r, 10000)
		b := a.Clone()
		for range r.IntN(6) {
			if len(b.Recoveries) > 0 {
				b.Recoveries[r.IntN(len(b.Recoveries))].Frontier ^= 1
			}
		}
		if i%3 == 0 {
			b.Recoveries = b.Recoveries[:r.IntN(len(b.Recoveries)+1)]
		}
		var want []int
		for k := range min(len(a.Recoveries), len(b.Recoveries)) {
			if a.Recoveries[k] != b.Recoveries[k] && len(want) < 4 {
				want = append(want, k)
			}
		}
		assert.Equal(t, want, trace.SeqDiffs(trace.VarRecoveries, &a, &b, 4), "case %d", i)
	}
}

// BenchmarkRejectedLongTrace checks longtrace's rejected trace of a
// million events from a file, as tracecheck does: the replay, the report
// of the rejection, and the fault models tried on it (docs/trace.md,
// "Diagnosing a long rejected trace", has the whole command's figures).
//
//	go test ./tracecheck -run '^$' -bench RejectedLongTrace -benchtime 3x
func BenchmarkRejectedLongTrace(b *testing.B) {
	const n = 1_000_000
	path := filepath.Join(b.TempDir(), "long.ndjson")
	f, err := os.Create(path)
	require.NoError(b, err)
	require.NoError(b, longtrace.CrashesInvalid(f, n))
	require.NoError(b, f.Close())
	p := longtrace.CrashesHeader(n)
	open := func() (EventReader, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		b.Cleanup(func() { f.Close() })
		d := trace.NewDecoder(f)
		_, err = d.Header()
		return d, err
	}
	b.ReportAllocs()
	for b.Loop() {
		r, err := open()
		require.NoError(b, err)
		c, err := New(p, Options{})
		require.NoError(b, err)
		if _, err := Replay(r, c); err != nil {
			b.Fatal(err)
		}
		if c.Result().Verdict != Rejected {
			b.Fatal("not rejected")
		}
		accepting, _, err := ExplainSource(p, open, Options{})
		if err != nil || len(accepting) != 1 {
			b.Fatal(err, accepting)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestExplainMemorySplitsPasses: the fault models replayed a few at a
// time (here one at a time: every pass is over the memory bound) say
// what they say all together, on the corpus's rejected traces and on the
// long one.
func TestExplainMemorySplitsPasses(t *testing.T) {
	paths, err := filepath.Glob("../testdata/traces/*/*.ndjson")
	require.NoError(t, err)
	type input struct {
		name string
		b    []byte
	}
	var inputs []input
	for _, p := range paths {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		inputs = append(inputs, input{p, b})
	}
	long, _ := longRejected(t, 5000)
	inputs = append(inputs, input{"longtrace 5000", long})
	tried := 0
	for _, in := range inputs {
		d := trace.NewDecoder(bytes.NewReader(in.b))
		h, err := d.Header()
		if err != nil {
			continue
		}
		p, err := h.Params()
		if err != nil {
			continue
		}
		acc1, all1, err1 := ExplainSource(p, openBytes(in.b), Options{})
		acc2, all2, err2 := ExplainSource(p, openBytes(in.b), Options{ExplainMemory: 1, ExplainPasses: -1})
		require.Equal(t, err1, err2, in.name)
		assert.Equal(t, acc1, acc2, in.name)
		assert.Equal(t, all1, all2, in.name)
		tried++
	}
	assert.Greater(t, tried, 30)
}

// TestExplainPassesCut: when the passes run out, the models left are
// listed as not tried, the note says so and how to try them all, and
// what the tried ones say is what they say uncut.
func TestExplainPassesCut(t *testing.T) {
	b, p := longRejected(t, 5000)
	full, fullTried, err := ExplainSource(p, openBytes(b), Options{})
	require.NoError(t, err)
	assert.Empty(t, CutNote(fullTried, Options{}))
	opt := Options{ExplainMemory: 1, ExplainPasses: 3}
	acc, tried, err := ExplainSource(p, openBytes(b), opt)
	require.NoError(t, err)
	byName := map[string]Explanation{}
	for _, e := range fullTried {
		byName[e.Name()+e.Extension] = e
	}
	notTried := 0
	for _, e := range tried {
		if e.NotTried {
			notTried++
			assert.Equal(t, Unknown, e.Verdict)
			continue
		}
		assert.Equal(t, byName[e.Name()+e.Extension], e, "model %s", e.Name())
	}
	assert.Equal(t, len(tried)-3, notTried, "one model a pass, three passes")
	assert.Subset(t, full, acc)
	note := CutNote(tried, opt)
	assert.Contains(t, note, fmt.Sprintf("%d of the %d fault models were not tried", notTried, len(tried)))
	assert.Contains(t, note, "--explain-passes -1")
	assert.Equal(t, "explained by the invalidpersist model", SummaryTried(acc, tried), "what the tried models say")

	// Cut before invalidpersist: no model tried accepts the trace, which
	// the summary must not make a claim about every model.
	acc, tried, err = ExplainSource(p, openBytes(b), Options{ExplainMemory: 1, ExplainPasses: 1})
	require.NoError(t, err)
	assert.Empty(t, acc)
	assert.Equal(t, "none of the fault models tried (1 of 46) accepts it", SummaryTried(acc, tried))
	assert.Equal(t, "no fault model (one fault switch, or two) accepts it", SummaryTried(nil, fullTried[:0]))
}

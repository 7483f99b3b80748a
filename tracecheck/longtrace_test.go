package tracecheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/resumecontract/resumecheck/internal/testing/longtrace"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlavalue"
	"github.com/resumecontract/resumecheck/trace"
)

// longRejected writes longtrace.CrashesInvalid's trace of n events and
// returns it with its header's constants.
func longRejected(t testing.TB, n int) ([]byte, model.Params) {
	t.Helper()
	var buf bytes.Buffer
	if err := longtrace.CrashesInvalid(&buf, n); err != nil {
		t.Fatalf("longtrace.CrashesInvalid(%d): %v", n, err)
	}
	return buf.Bytes(), longtrace.CrashesHeader(n)
}

// checkBytes replays a trace held as NDJSON, streaming, as tracecheck
// does, and returns the checker after it stopped.
func checkBytes(t testing.TB, b []byte) *Checker {
	t.Helper()
	d := trace.NewDecoder(bytes.NewReader(b))
	h, err := d.Header()
	if err != nil {
		t.Fatalf("header: %v", err)
	}
	p, err := h.Params()
	if err != nil {
		t.Fatalf("header's constants: %v", err)
	}
	c, err := New(p, Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := Stream(d, c); err != nil {
		t.Fatalf("Replay: %v", err)
	}
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
		if r.Verdict != Rejected {
			t.Fatalf("n = %d: verdict: got %s, want %s", n, r.Verdict, Rejected)
		}
		if r.Matched != n-1 {
			t.Errorf("n = %d: matched events: got %d, want %d", n, r.Matched, n-1)
		}
		f := r.Failure
		if f == nil {
			t.Fatalf("n = %d: the rejected result has no failure report, want one", n)
		}
		if f.Event.Index != n {
			t.Errorf("n = %d: failing event's index: got %d, want %d", n, f.Event.Index, n)
		}
		if f.Event.Label != "ExecTask" {
			t.Errorf("n = %d: failing event's label: got %q, want %q", n, f.Event.Label, "ExecTask")
		}
		if !f.NamedEnabled {
			t.Errorf("n = %d: NamedEnabled: got false, want true (ExecTask is enabled)", n)
		}
		if f.Nearest == nil {
			t.Fatalf("n = %d: the failure has no nearest successor, want one", n)
		}
		if f.Nearest.Label != "ExecTask" {
			t.Errorf("n = %d: nearest successor's label: got %q, want %q", n, f.Nearest.Label, "ExecTask")
		}
		if len(f.Nearest.Diff) != 1 {
			t.Fatalf("n = %d: nearest successor differs in %d variables (%+v), want 1", n, len(f.Nearest.Diff), f.Nearest.Diff)
		}
		if v := f.Nearest.Diff[0].Var; v != "log" {
			t.Errorf("n = %d: nearest successor's differing variable: got %q, want %q", n, v, "log")
		}
		if d := cmp.Diff([]string{"log[3].valid: observed FALSE, spec TRUE"}, f.Nearest.Diff[0].Details); d != "" {
			t.Errorf("n = %d: nearest successor's difference details (-want +got):\n%s", n, d)
		}
		if len(f.Candidates) != 1 {
			t.Fatalf("n = %d: candidates shown: got %d, want 1", n, len(f.Candidates))
		}
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
		if shown != want {
			t.Errorf("n = %d: candidate's recoveries shown:\ngot  %s\nwant %s", n, shown, want)
		}
		var why []string
		for _, a := range f.Candidates[0].Actions {
			why = append(why, a.Label+": "+a.Disabled+diffVars(a.Diff))
		}
		if d := cmp.Diff([]string{
			"ExecTask: log",
			"EmitInterrupt: pc = 3 # IP = 2",
			"Consume(va): waiting = FALSE: nothing is parked to consume",
			"Consume(vb): waiting = FALSE: nothing is parked to consume",
			"ForkResume(va): pc effects log frontier resumes",
			"ForkResume(vb): pc effects log frontier resumes",
			"CrashRecover(skip): pc effects log frontier crashes",
			"ExtraResume: pc = 3 # Done = 4: the run is not complete",
		}, why); d != "" {
			t.Errorf("n = %d: why each transition fails (-want +got):\n%s", n, d)
		}
		work[n] = c.re.diagWork

		accepting, _, err := ExplainSource(p, openBytes(b), Options{})
		if err != nil {
			t.Fatalf("n = %d: ExplainSource: %v", n, err)
		}
		if got, want := Summary(accepting), "explained by the invalidpersist model"; got != want {
			t.Errorf("n = %d: summary: got %q, want %q", n, got, want)
		}
	}
	t.Logf("report work: %+v", work)
	if work[100] != work[100_000] {
		t.Errorf("report work for n = 100000: got %+v, want %+v as for n = 100 (the report of a long history builds no more than a short one's)", work[100_000], work[100])
	}
	if e := work[100_000].elems; e >= 200 {
		t.Errorf("TLA+ values the report builds for n = 100000: got %d, want fewer than 200", e)
	}
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
		if err != nil {
			t.Fatalf("n = %d: ExplainSource: %v", n, err)
		}
		if len(accepting) != 1 {
			t.Fatalf("n = %d: accepting fault models: got %d (%+v), want 1", n, len(accepting), accepting)
		}
		mallocs[n] = after.Mallocs - before.Mallocs
	}
	t.Logf("allocations: %v", mallocs)
	if mallocs[100_000] >= mallocs[10_000]+2000 {
		t.Errorf("allocations grow with the trace: got %d for n = 100000, want fewer than %d (n = 10000's %d + 2000)", mallocs[100_000], mallocs[10_000]+2000, mallocs[10_000])
	}
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
	if err != nil {
		t.Fatalf("model.New(R0): %v", err)
	}
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
		if diff := cmp.Diff(refDiffObserved(m, &ev, &b), d.diffObserved(&ev, &b)); diff != "" {
			t.Fatalf("case %d: diffObserved against the whole values' differences (-want +got):\n%s", i, diff)
		}
		for _, name := range model.VarNames {
			if got, want := d.show(&a, name), refShow(m.Vars(a)[name]); got != want {
				t.Fatalf("case %d: show(%s):\ngot  %s\nwant %s", i, name, got, want)
			}
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
		if d := cmp.Diff(want, trace.SeqDiffs(trace.VarRecoveries, &a, &b, 4)); d != "" {
			t.Errorf("case %d: SeqDiffs of the recoveries against a plain loop's (-want +got):\n%s", i, d)
		}
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
	if err != nil {
		b.Fatalf("create the trace file: %v", err)
	}
	if err := longtrace.CrashesInvalid(f, n); err != nil {
		b.Fatalf("longtrace.CrashesInvalid(%d): %v", n, err)
	}
	if err := f.Close(); err != nil {
		b.Fatalf("close the trace file: %v", err)
	}
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
		if err != nil {
			b.Fatalf("open the trace: %v", err)
		}
		c, err := New(p, Options{})
		if err != nil {
			b.Fatalf("New: %v", err)
		}
		if _, err := Stream(r, c); err != nil {
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
// time (here one at a time, each on its own checker: every pass is over
// the memory bound) say what they say all together, sharing checkers
// where they step alike, on the corpus's rejected traces and on the long
// ones. It is the test of the sharing too: a model kept on a shared
// checker after its step for an event differed (split finding every
// step alike) makes invalidpersist reject the long trace with the
// reference semantics and fails it.
func TestExplainMemorySplitsPasses(t *testing.T) {
	paths, err := filepath.Glob("../testdata/traces/*/*.ndjson")
	if err != nil {
		t.Fatalf("glob the trace corpus: %v", err)
	}
	type input struct {
		name string
		b    []byte
	}
	var inputs []input
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, input{p, b})
	}
	long, _ := longRejected(t, 5000)
	inputs = append(inputs, input{"longtrace 5000", long})
	var unexplained bytes.Buffer
	if err := longtrace.CrashesUnexplained(&unexplained, 5000); err != nil {
		t.Fatalf("longtrace.CrashesUnexplained: %v", err)
	}
	inputs = append(inputs, input{"longtrace unexplained 5000", unexplained.Bytes()})
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
		acc2, all2, err2 := explainSource(p, openBytes(in.b), Options{ExplainMemory: 1, ExplainPasses: -1}, false)
		// reflect.DeepEqual, not cmp: errors hold unexported fields.
		if !reflect.DeepEqual(err1, err2) {
			t.Fatalf("%s: ExplainSource's error one pass a model: got %v, want %v as in one pass", in.name, err2, err1)
		}
		if d := cmp.Diff(acc1, acc2); d != "" {
			t.Errorf("%s: accepting fault models, one pass against one pass a model (-one pass +split):\n%s", in.name, d)
		}
		if d := cmp.Diff(all1, all2); d != "" {
			t.Errorf("%s: fault models tried, one pass against one pass a model (-one pass +split):\n%s", in.name, d)
		}
		// Shared checkers over the memory bound: every checker split off
		// is dropped from the pass, its models replayed in the next.
		acc3, all3, err3 := ExplainSource(p, openBytes(in.b), Options{ExplainMemory: 1, ExplainPasses: -1})
		if !reflect.DeepEqual(err1, err3) {
			t.Fatalf("%s: ExplainSource's error with one checker a pass: got %v, want %v as in one pass", in.name, err3, err1)
		}
		if d := cmp.Diff(all1, all3); d != "" || !cmp.Equal(acc1, acc3) {
			t.Errorf("%s: fault models tried, one pass against one shared checker a pass (-one pass +split):\n%s", in.name, d)
		}
		tried++
	}
	if tried <= 30 {
		t.Errorf("traces tried: got %d, want more than 30", tried)
	}
}

// TestExplainPassesCut: when the passes run out, the models left are
// listed as not tried, the note says so and how to try them all, and
// what the tried ones say is what they say uncut.
func TestExplainPassesCut(t *testing.T) {
	b, p := longRejected(t, 5000)
	full, fullTried, err := ExplainSource(p, openBytes(b), Options{})
	if err != nil {
		t.Fatalf("ExplainSource uncut: %v", err)
	}
	if note := CutNote(fullTried, Options{}); note != "" {
		t.Errorf("cut note with every model tried: got %q, want none", note)
	}
	// One model a pass: each on its own checker.
	opt := Options{ExplainMemory: 1, ExplainPasses: 3}
	acc, tried, err := explainSource(p, openBytes(b), opt, false)
	if err != nil {
		t.Fatalf("ExplainSource with three passes: %v", err)
	}
	byName := map[string]Explanation{}
	for _, e := range fullTried {
		byName[e.Name()+e.Extension] = e
	}
	notTried := 0
	for _, e := range tried {
		if e.NotTried {
			notTried++
			if e.Verdict != Unknown {
				t.Errorf("model %s, not tried: verdict: got %s, want %s", e.Name(), e.Verdict, Unknown)
			}
			continue
		}
		if d := cmp.Diff(byName[e.Name()+e.Extension], e); d != "" {
			t.Errorf("model %s: cut against uncut (-uncut +cut):\n%s", e.Name(), d)
		}
	}
	if want := len(tried) - 3; notTried != want {
		t.Errorf("models not tried: got %d, want %d (one model a pass, three passes, %d models)", notTried, want, len(tried))
	}
	for _, e := range acc {
		if !slices.ContainsFunc(full, func(f Explanation) bool { return cmp.Equal(f, e) }) {
			t.Errorf("model %s accepts the trace cut, not uncut: got %+v, want one of the uncut accepting %+v", e.Name(), e, full)
		}
	}
	note := CutNote(tried, opt)
	for _, want := range []string{fmt.Sprintf("%d of the %d fault models were not tried", notTried, len(tried)), "--explain-passes -1"} {
		if !strings.Contains(note, want) {
			t.Errorf("cut note: got %q, want it to contain %q", note, want)
		}
	}
	if got, want := SummaryTried(acc, tried), "explained by the invalidpersist model"; got != want {
		t.Errorf("summary of what the tried models say: got %q, want %q", got, want)
	}

	// Cut before invalidpersist: no model tried accepts the trace, which
	// the summary must not make a claim about every model.
	acc, tried, err = explainSource(p, openBytes(b), Options{ExplainMemory: 1, ExplainPasses: 1}, false)
	if err != nil {
		t.Fatalf("ExplainSource with one pass: %v", err)
	}
	if len(acc) != 0 {
		t.Errorf("accepting fault models with one pass: got %+v, want none", acc)
	}
	if got, want := SummaryTried(acc, tried), "none of the fault models tried (1 of 46) accepts it"; got != want {
		t.Errorf("summary with one pass: got %q, want %q", got, want)
	}
	if got, want := SummaryTried(nil, fullTried[:0]), "no fault model (one fault switch, or two) accepts it"; got != want {
		t.Errorf("summary with no model tried: got %q, want %q", got, want)
	}
}

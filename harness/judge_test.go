package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/resumecontract/resumecheck/internal/jsonfile"
	"github.com/resumecontract/resumecheck/model"
)

// The logs in testdata/logs are observation logs of real runs (LangGraph
// 1.2.9 on SQLite, one run of each scenario, recorded by
// `conformance run`), compacted, and sealed afterwards with the end mark
// the runner writes since (RunLog.Seal); verdicts.json holds the verdict
// the runner gave each at the time.
const logsDir = "testdata/logs"

type recordedVerdict struct {
	Verdict     string            `json:"verdict"`
	Obligations map[string]Status `json:"obligations"`
	Explained   []string          `json:"explained_by"`
}

func recordedLogs(t testing.TB) map[string]recordedVerdict {
	t.Helper()
	var want map[string]recordedVerdict
	if err := jsonfile.Read(filepath.Join(logsDir, "verdicts.json"), &want, jsonfile.Options{Strict: true}); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatalf("%s/verdicts.json records no verdicts, want the recorded logs'", logsDir)
	}
	return want
}

// TestJudgeRecordedLogs: judging a real run's log again gives the verdict
// it was given when it ran: the trace builder and the checker are a pure
// function of the log.
func TestJudgeRecordedLogs(t *testing.T) {
	for name, want := range recordedLogs(t) {
		t.Run(strings.TrimSuffix(name, ".json"), func(t *testing.T) {
			l, err := ReadRunLog(filepath.Join(logsDir, name))
			if err != nil {
				t.Fatal(err)
			}
			rv, built, err := Judge(l)
			if err != nil {
				t.Fatalf("Judge: %v", err)
			}
			if built == nil {
				t.Fatalf("Judge gave no trace, want the trace it judged")
			}
			if rv.Verdict != want.Verdict {
				t.Errorf("verdict: got %s, want %s", rv.Verdict, want.Verdict)
			}
			if d := cmp.Diff(want.Obligations, rv.Obligations); d != "" {
				t.Errorf("obligations (-want +got):\n%s", d)
			}
			// In any order; no fault model and an empty list are the same.
			if d := cmp.Diff(want.Explained, rv.Explained, cmpopts.SortSlices(func(a, b string) bool { return a < b }), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("explained by (-want +got):\n%s", d)
			}
			if rv.Events != len(built.Trace.Events) {
				t.Errorf("events: the verdict counts %d, the trace has %d", rv.Events, len(built.Trace.Events))
			}
		})
	}
}

// TestCutLogRefused (issue 24): a log cut after any complete entry is a
// valid, shorter log, and judges as another run: every proper prefix (by
// entries) of each recorded log is refused by its end mark, naming the
// file and the end mark's position, and the whole log is read and judged
// with its recorded verdict (TestJudgeRecordedLogs). Without the end
// mark, some prefix of a rejected run judges as accepted.
func TestCutLogRefused(t *testing.T) {
	flipped := 0
	for name, want := range recordedLogs(t) {
		path := filepath.Join(logsDir, name)
		whole, err := ReadRunLog(path)
		if err != nil {
			t.Fatalf("%s: the whole log: %v", name, err)
		}
		if whole.End == nil || whole.End.Entries != len(whole.Entries) {
			t.Fatalf("%s: end mark %+v, want one counting its %d entries", name, whole.End, len(whole.Entries))
		}
		for k := range len(whole.Entries) {
			cut := *whole
			cut.Entries = whole.Entries[:k]
			data, err := json.Marshal(&cut)
			if err != nil {
				t.Fatal(err)
			}
			_, err = DecodeRunLog(path, data)
			if !errors.Is(err, ErrLogCut) || !strings.HasPrefix(err.Error(), path+":1:") {
				t.Errorf("%s cut to %d of %d entries: got error %v, want %v naming %s:1:COL", name, k, len(whole.Entries), err, ErrLogCut, path)
			}
			// Without the end mark, what would it judge as?
			if rv, _, err := Judge(&cut); err == nil && want.Verdict == "rejected" && rv.Verdict == "accepted" {
				flipped++
			}
		}
	}
	if flipped == 0 {
		t.Errorf("no prefix of a rejected recorded log judges as accepted: the test no longer shows what the end mark stops")
	}
}

// TestLogEndCatches: the end mark refuses a log without it, one with
// rows removed, and one with an entry changed in place (same counts);
// the error says what differs.
func TestLogEndCatches(t *testing.T) {
	path := filepath.Join(logsDir, "langgraph-1.2.9-sqlite-cv.json")
	whole, err := ReadRunLog(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(l *RunLog)
		want string
	}{
		{"no end mark", func(l *RunLog) { l.End = nil }, "it has no end mark"},
		{"rows removed", func(l *RunLog) { l.Rows = l.Rows[:len(l.Rows)-1] }, "2 ledger rows, its end mark records 3"},
		{"entry changed", func(l *RunLog) {
			l.Entries = slices.Clone(l.Entries)
			l.Entries[0].Role = RoleResume
		}, "the log was changed after the run"},
		{"problems added", func(l *RunLog) { l.Problems = []string{"adapter died"} }, "the log was changed after the run"},
	} {
		l := *whole
		tc.edit(&l)
		data, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeRunLog(path, data); !errors.Is(err, ErrLogCut) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got error %v, want %v saying %q", tc.name, err, ErrLogCut, tc.want)
		}
	}
	// Sealing again is what the runner does: the mark then fits.
	l := *whole
	l.Rows = nil
	l.Seal()
	data, err := json.Marshal(&l)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeRunLog(path, data); err != nil {
		t.Errorf("a log sealed after its change: %v", err)
	}
}

// TestJudgeRefusesBadWorkflow: a log whose workflow is not the contract's
// shape is an error naming the run, not a panic (a negative task count
// once reached make).
func TestJudgeRefusesBadWorkflow(t *testing.T) {
	for _, w := range []Workflow{
		{Tasks: -1, Gate: 2, Values: []string{"va"}},
		{Tasks: 1 << 40, Gate: 2, Values: []string{"va"}},
		{Tasks: 3, Gate: 4, Values: []string{"va"}},
		{Tasks: 3, Gate: 2},
	} {
		l := RunLog{Run: "r", Workflow: w, Problems: []string{"adapter died"}}
		rv, built, err := Judge(&l)
		if want := `run "r": harness: workflow:`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Judge(workflow %+v): got error %v, want one containing %q", w, err, want)
		}
		if rv != nil {
			t.Errorf("Judge(workflow %+v): got verdict %+v, want none", w, rv)
		}
		if built != nil {
			t.Errorf("Judge(workflow %+v): got a trace, want none", w)
		}
	}
}

// TestJudgeRefusesBadCounts: ledger counts with fewer (or more) entries
// than tasks, or a negative count, are an error naming the entry. The
// first log is the crasher of issue 14 (an empty counts object on a note
// after a kill: index out of range in the builder).
func TestJudgeRefusesBadCounts(t *testing.T) {
	for _, tt := range []struct{ log, err string }{
		{`{"workflow":{"tasks":7,"gate":2,"values":["va"]},"entries":[{"kind":"note","msg":{"kind":"effect","task":3}},{"kind":"kill"},{"kind":"reply","role":"report","msg":{"ok":true}},{"kind":"note","msg":{"kind":"effect","task":3},"counts":{}}]}`,
			`entry 4 (note): counts.applied has 0 entries, want one per task (7)`},
		{`{"run":"r","workflow":{"tasks":2,"gate":2,"values":["va"]},"entries":[{"kind":"kill","counts":{"applied":[0,0],"delivered":[0]}}]}`,
			`run "r": entry 1 (kill): counts.delivered has 1 entries, want one per task (2)`},
		{`{"run":"r","workflow":{"tasks":2,"gate":2,"values":["va"]},"entries":[{"kind":"note","msg":{"kind":"effect","task":1},"counts":{"applied":[-1,0],"delivered":[0,0]}}]}`,
			`counts.applied of task 1 is -1`},
	} {
		var l RunLog
		if err := jsonfile.Decode("log.json", []byte(tt.log), &l, jsonfile.Options{}); err != nil {
			t.Fatal(err)
		}
		rv, built, err := Judge(&l)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("Judge(%s): got error %v, want one containing %q", tt.log, err, tt.err)
		}
		if rv != nil {
			t.Errorf("Judge(%s): got verdict %+v, want none", tt.log, rv)
		}
		if built != nil {
			t.Errorf("Judge(%s): got a trace, want none", tt.log)
		}
	}
}

// FuzzJudge: whatever a log.json holds (it is a file a user can edit or
// truncate), judging it returns a verdict or an error; it never panics,
// and a verdict it returns is one of the checker's.
func FuzzJudge(f *testing.F) {
	for name := range recordedLogs(f) {
		b, err := os.ReadFile(filepath.Join(logsDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"scenario":"fd","run":"r","workflow":{"tasks":3,"gate":2,"values":["va","vb"]},"entries":[{"kind":"note","proc":1,"msg":{"type":"note","n":1,"kind":"effect","task":7}}]}`))
	f.Add([]byte(`{"scenario":"cv","run":"r","workflow":{"tasks":-1,"gate":2,"values":["va"]},"rows":[{"task":1,"branch":"main"}]}`))
	f.Add([]byte(`{"scenario":"race","run":"r","racers":-1,"workflow":{"tasks":0,"gate":9},"entries":[{"kind":"kill","proc":3,"note":-2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var l RunLog
		if jsonfile.Decode("log.json", data, &l, jsonfile.Options{}) != nil {
			return
		}
		rv, built, err := Judge(&l)
		if err != nil {
			return
		}
		switch rv.Verdict {
		case "accepted", "rejected", "unknown":
			if built == nil {
				t.Fatalf("verdict %s without a trace", rv.Verdict)
			}
		case "error":
			if len(l.Problems) == 0 {
				t.Fatalf("verdict error without problems")
			}
		default:
			t.Fatalf("verdict %q", rv.Verdict)
		}
		for o, s := range rv.Obligations {
			switch s {
			case Holds, Violated, Undetermined, NA:
			default:
				t.Fatalf("obligation %s: status %q", o, s)
			}
		}
	})
}

// TestUnreachedKillPoint: a crash run that never got to its kill point
// is inconclusive, not a run that held. The stray log (LangGraph 1.2.9,
// no kill) stands for a crash run whose kill point was never reached:
// judged with a kill point and no kill, nothing it held stays holds;
// judged with the kill entry it reached, its verdict is unchanged.
func TestUnreachedKillPoint(t *testing.T) {
	var l RunLog
	if err := jsonfile.Read(filepath.Join(logsDir, "langgraph-1.2.9-sqlite-stray.json"), &l, jsonfile.Options{Strict: true}); err != nil {
		t.Fatal(err)
	}
	plain, _, err := Judge(&l)
	if err != nil {
		t.Fatalf("Judge: %v", err)
	}
	if got := plain.Obligations["EO"]; got != Holds {
		t.Fatalf("the stray run's EO: got %s, want %s: the test needs a run that holds something", got, Holds)
	}

	l.KillAt = KillPointName(CrashKillWhat, 1)
	rv, _, err := Judge(&l)
	if err != nil {
		t.Fatalf("Judge with kill point %q: %v", l.KillAt, err)
	}
	if !rv.Unreached {
		t.Errorf("a run that never reached its kill point is not marked unreached")
	}
	if rv.KillPoint != l.KillAt {
		t.Errorf("kill point: got %q, want %q", rv.KillPoint, l.KillAt)
	}
	for o, st := range rv.Obligations {
		if st == Holds {
			t.Errorf("%s holds in a run whose kill point was not reached", o)
		}
		if plain.Obligations[o] == Violated && st != Violated {
			t.Errorf("%s: got %s, want %s: a violation seen stays one", o, st, Violated)
		}
	}
	if notes, want := strings.Join(rv.Notes, "\n"), "kill point was not reached"; !strings.Contains(notes, want) {
		t.Errorf("notes: got %q, want them to say %q", notes, want)
	}

	l.Entries = append(l.Entries, Entry{Kind: EntryKill, Proc: 1})
	reached, _, err := Judge(&l)
	if err != nil {
		t.Fatalf("Judge with the kill entry: %v", err)
	}
	if reached.Unreached {
		t.Errorf("a run with its kill entry is marked unreached")
	}

	// A cell of one unreached run cannot hold.
	sc, _ := ScenarioByName("crash")
	c := Cell{Name: "crash/resume", Scenario: "crash", Measures: sc.Measures, Runs: []RunVerdict{*rv}}
	c.Finish(sc, Features{})
	for _, o := range sc.Measures {
		if c.Status[o] == Holds {
			t.Errorf("cell %s holds with one unreached run, want it not to", o)
		}
	}
}

// TestLegacyKillPoint reads the kill point out of the notes of runs
// recorded before the kill_point field.
func TestLegacyKillPoint(t *testing.T) {
	for _, tc := range []struct {
		scenario, note, want string
		unreached            bool
	}{
		{"killsweep", "kill at note 8: inside task 2, before its effect (occurrence 1; the dry run's note 9)", "inside task 2, before its effect (occurrence 1)", false},
		{"killsweep", "kill at note 3: after persistence operation put (task 1) (occurrence 2; the dry run's note 3)", "after persistence operation put (task 1) (occurrence 2)", false},
		{"killsweep", "kill point after persistence operation checkpoint (occurrence 2) was not reached", "after persistence operation checkpoint (occurrence 2)", true},
		{"killsweep", "the dry run (no kill) sent 12 notes: the sweep's kill points", "", false},
		{"crash", "", "inside task 3, after its effect (occurrence 1)", false},
	} {
		got, unreached := LegacyKillPoint(tc.scenario, &RunVerdict{Notes: []string{tc.note}})
		if got != tc.want {
			t.Errorf("%s %q: kill point got %q, want %q", tc.scenario, tc.note, got, tc.want)
		}
		if unreached != tc.unreached {
			t.Errorf("%s %q: unreached got %t, want %t", tc.scenario, tc.note, unreached, tc.unreached)
		}
	}
}

// TestLVOverEveryRun: liveness is judged over every run of every cell,
// not the parked cell alone: a killsweep run that did not complete makes
// the profile's LV violated though the parked cell held.
func TestLVOverEveryRun(t *testing.T) {
	mk := func(scenario, name string, lv Status) Cell {
		sc, _ := ScenarioByName(scenario)
		st := map[string]Status{"LV": lv}
		for _, o := range sc.Measures {
			if o != "LV" {
				st[o] = Holds
			}
		}
		c := Cell{Name: name, Scenario: scenario, Measures: sc.Measures, Runs: []RunVerdict{{Run: "r", Obligations: st}}}
		c.Finish(sc, Features{Fork: true})
		return c
	}
	for _, tc := range []struct {
		sweep Status
		want  Status
	}{{Violated, Violated}, {Undetermined, Undetermined}, {Holds, Holds}} {
		p := &Profile{Features: Features{Fork: true}, Cells: []Cell{mk("parked", "parked", Holds), mk("killsweep", "killsweep/resume", tc.sweep)}}
		p.Finish()
		if got := p.Obligations["LV"].Status; got != tc.want {
			t.Errorf("a sweep run with LV %s: the profile's LV got %s, want %s", tc.sweep, got, tc.want)
		}
	}
}

// TestForkHalfOfFIIsThreeValued: the fork cell's half of FI follows FD
// over its runs. A run the adapter could not drive (no obligations, the
// CrewAI panic CI met) leaves it undetermined; only a fork that was not
// served its own value makes it violated.
func TestForkHalfOfFIIsThreeValued(t *testing.T) {
	sc, _ := ScenarioByName("fork")
	held := RunVerdict{Run: "fork", Verdict: "accepted", Obligations: map[string]Status{"FD": Holds, "LV": Holds}}
	undriven := RunVerdict{Run: "fork", Verdict: "error", Problems: []string{"start did not park"}}
	refired := RunVerdict{Run: "fork", Verdict: "rejected", Obligations: map[string]Status{"FD": Violated, "LV": Holds}}
	for _, tc := range []struct {
		name string
		runs []RunVerdict
		want Status
	}{
		{"served", []RunVerdict{held}, Holds},
		{"undriven", []RunVerdict{undriven}, Undetermined},
		{"served and undriven", []RunVerdict{held, undriven}, Undetermined},
		{"not served", []RunVerdict{refired, undriven}, Violated},
		{"no runs", nil, Undetermined},
	} {
		c := Cell{Name: "fork", Scenario: "fork", Measures: sc.Measures, Runs: tc.runs}
		c.Finish(sc, Features{Fork: true})
		if got := c.Status["FI"]; got != tc.want {
			t.Errorf("%s: the fork cell's FI is %s, want %s", tc.name, got, tc.want)
		}
	}
	// The gate, given CI's case: the baseline's fork served, this run's
	// fork could not be driven. FI moves to undetermined for want of a
	// run, which is not a confirmed change (the undriven run itself is
	// judged by the RunsNotMeasured finding).
	cell := func(r RunVerdict) Cell {
		c := Cell{Name: "fork", Scenario: "fork", Store: StoreSQLite, Measures: sc.Measures, Runs: []RunVerdict{r}}
		c.Finish(sc, Features{Fork: true})
		return c
	}
	found := false
	for _, f := range Gate([]*Profile{profileOf(cell(held))}, []*Profile{profileOf(cell(undriven))}) {
		if f.Obligation != "FI" {
			continue
		}
		found = true
		if f.Kind != FindingUnmeasured || f.Now != Undetermined {
			t.Errorf("an undriven fork: %s (%s), want FI undetermined and unmeasured", f, f.Kind)
		}
	}
	if !found {
		t.Error("an undriven fork: no FI finding, want holds -> undetermined reported")
	}
}

// TestUndrivenRunsNeverViolate: in every scenario, a run the adapter
// could not drive beside one where every obligation held, and a crash
// run whose kill point was not reached, leave each cell and profile
// verdict holds or undetermined, never violated. The fork cell's FI once
// came out violated this way (TestForkHalfOfFIIsThreeValued).
func TestUndrivenRunsNeverViolate(t *testing.T) {
	for _, f := range []Features{{Fork: true, CheckpointAddress: true}, {}} {
		p := &Profile{Features: f}
		for _, sc := range Scenarios {
			name := func(i int) string {
				if sc.Name == "race" {
					return RaceLabel(4, 1, i)
				}
				return fmt.Sprintf("%s-%d", sc.Name, i)
			}
			held := map[string]Status{}
			for _, o := range sc.Measures {
				held[o] = Holds
			}
			unreached := RunVerdict{Run: name(3), Verdict: "accepted", Unreached: true, Obligations: maps.Clone(held)}
			unreached.Inconclusive()
			c := Cell{Name: sc.Name, Scenario: sc.Name, Measures: sc.Measures, Runs: []RunVerdict{
				{Run: name(1), Verdict: "accepted", Obligations: held, Consumers: 1, Counts: Counts{Applied: []int{1, 1, 1}}},
				{Run: name(2), Verdict: "error", Obligations: map[string]Status{}, Problems: []string{"start did not park"}},
				unreached,
			}}
			c.Finish(sc, f)
			for o, st := range c.Status {
				if st == Violated && !(o == model.FI && !f.Fork) {
					t.Errorf("fork=%v: cell %s: %s violated by runs that held or said nothing", f.Fork, sc.Name, o)
				}
			}
			p.Cells = append(p.Cells, c)
		}
		p.Finish()
		for o, v := range p.Obligations {
			if v.Status == Violated && !(o == model.FI && !f.Fork) {
				t.Errorf("fork=%v: the profile's %s is violated by runs that held or said nothing (%s)", f.Fork, o, v.Evidence)
			}
		}
	}
}

package tlcout

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/tla/tlcout/tlcsample"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// readSample returns a sample's output and the exit status recorded on
// its last line.
func readSample(t *testing.T, name string) (string, ExitStatus) {
	t.Helper()
	out, status := tlcsample.Read(t, name)
	return out, ExitStatus(status)
}

func parseSample(t *testing.T, name string) (*Result, ExitStatus) {
	t.Helper()
	out, status := readSample(t, name)
	r, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r, status
}

// get returns a trace state's variable, printed.
func get(t *testing.T, s TraceState, name string) string {
	t.Helper()
	v, ok := s.Vars.Get(name)
	if !ok {
		t.Fatalf("state %d has no variable %s", s.Number, name)
	}
	return v.String()
}

func loc(module string, bl, bc, el, ec int) Location {
	return Location{Module: module, BeginLine: bl, BeginCol: bc, EndLine: el, EndCol: ec}
}

func onlyIssue(t *testing.T, list []Issue, kind Kind, code Code) Issue {
	t.Helper()
	if len(list) != 1 {
		t.Fatalf("%d issues, want 1: %+v", len(list), list)
	}
	if list[0].Kind != kind || list[0].Code != code {
		t.Fatalf("issue is %s %s, want %s %s", list[0].Kind, list[0].Code, kind, code)
	}
	return list[0]
}

// TestSamples drives every recorded TLC run through Parse and checks what
// each reported. Every run must end in the exit status TLC gave it.
func TestSamples(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, r *Result)
	}{
		{"diehard_ok_tool.out", func(t *testing.T, r *Result) {
			if r.Version != "2026.04.29.170100" || r.Revision != "cc6b616" {
				t.Errorf("version %q rev %q", r.Version, r.Revision)
			}
			if r.Mode != "breadth-first search Model-Checking" || r.Workers != 1 || r.Seed != -4121470252922544943 {
				t.Errorf("mode %q, %d workers, seed %d", r.Mode, r.Workers, r.Seed)
			}
			if r.Started != "2026-12-02 13:11:48" || r.Elapsed != "579ms" || !r.Finished {
				t.Errorf("started %q, elapsed %q, finished %v", r.Started, r.Elapsed, r.Finished)
			}
			if r.InitialGenerated != 1 || r.InitialDistinct != 1 {
				t.Errorf("initial %d/%d", r.InitialGenerated, r.InitialDistinct)
			}
			if r.Success == nil || r.Success.CollisionProbability != 7.0e-17 || r.Success.ActualCollisionProbability != 0 {
				t.Errorf("success %+v", r.Success)
			}
			if *r.Stats != (Stats{Generated: 97, Distinct: 16, Queue: 0}) || r.Depth != 8 {
				t.Errorf("stats %+v depth %d", r.Stats, r.Depth)
			}
			if *r.Outdegree != (Outdegree{Min: 0, Max: 2, Average: 1, Percentile95: 2}) {
				t.Errorf("outdegree %+v", r.Outdegree)
			}
			want := Progress{Depth: 8, Time: "2026-12-02 13:11:48", Generated: 97, GeneratedPerMinute: 10121,
				Distinct: 16, DistinctPerMinute: 1669, Queue: 0, InputLine: 33}
			if len(r.Progress) != 1 || r.Progress[0] != want {
				t.Errorf("progress %+v", r.Progress)
			}
			if len(r.Violations)+len(r.Errors)+len(r.SpecErrors) != 0 || r.Trace() != nil {
				t.Errorf("issues in a clean run: %+v %+v %+v", r.Violations, r.Errors, r.SpecErrors)
			}
			if len(r.Output) != 5 || r.Output[0] != "Parsing file /home/user/specs/DieHard.tla" {
				t.Errorf("output %q", r.Output)
			}
		}},
		{"diehard_violation_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindInvariant, CodeInvariantViolatedBehavior)
			if !reflect.DeepEqual(v.Names, []string{"NotSolved"}) || v.Message != "Invariant NotSolved is violated." || v.InputLine != 27 {
				t.Errorf("violation %+v", v)
			}
			tr := r.Trace()
			if tr != v.Trace || len(tr.States) != 7 || tr.Stuttering || tr.LoopTo != 0 {
				t.Fatalf("trace %+v", tr)
			}
			last := tr.Last()
			if get(t, *last, "big") != "4" || get(t, *last, "small") != "3" || last.Number != 7 {
				t.Errorf("last state %d: %v", last.Number, last.Vars)
			}
			if a := tr.States[0].Action; !a.IsInitial() || a.Location != (Location{}) {
				t.Errorf("first action %+v", a)
			}
			a := tr.States[2].Action
			if a.Name != "BigToSmall" || a.Location != loc("DieHard", 18, 15, 20, 59) || len(a.Params) != 0 ||
				a.Label != "BigToSmall line 18, col 15 to line 20, col 59 of module DieHard" {
				t.Errorf("action of state 3: %+v", a)
			}
			if tr.States[2].InputLine != 45 {
				t.Errorf("state 3 at input line %d", tr.States[2].InputLine)
			}
			if *r.Stats != (Stats{Generated: 73, Distinct: 14, Queue: 1}) || r.Depth != 7 || r.Success != nil {
				t.Errorf("stats %+v depth %d success %v", r.Stats, r.Depth, r.Success)
			}
		}},
		{"counter_deadlock_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindDeadlock, CodeDeadlockReached)
			if v.Names != nil || len(v.Trace.States) != 4 || get(t, *v.Trace.Last(), "x") != "3" {
				t.Errorf("deadlock %+v", v)
			}
			if n := v.Trace.States[3].Vars.Names(); !reflect.DeepEqual(n, []string{"x"}) {
				t.Errorf("variables %v", n)
			}
		}},
		{"counter_liveness_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindTemporal, CodeTemporalPropertyViolated)
			if !reflect.DeepEqual(v.Names, []string{"Done"}) || v.Trace == nil {
				t.Fatalf("violation %+v", v)
			}
			if tr := v.Trace; len(tr.States) != 3 || !tr.Stuttering || tr.LoopTo != 0 || get(t, *tr.Last(), "x") != "2" {
				t.Errorf("trace %+v", tr)
			}
			if !reflect.DeepEqual(r.TemporalChecks, []TemporalCheck{{Complete: true, Distinct: 4, InputLine: 33}}) {
				t.Errorf("temporal checks %+v", r.TemporalChecks)
			}
			if len(r.Progress) != 2 || r.Progress[0].GeneratedPerMinute != 0 || r.Progress[1].GeneratedPerMinute != 340 {
				t.Errorf("progress %+v", r.Progress)
			}
		}},
		{"lasso_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindTemporal, CodeTemporalPropertyViolated)
			tr := v.Trace
			if len(tr.States) != 3 || tr.Stuttering || tr.LoopTo != 2 {
				t.Fatalf("trace %+v", tr)
			}
			if a := tr.LoopAction; a.Name != "Down" || a.Location != loc("Lasso", 7, 9, 7, 23) {
				t.Errorf("loop action %+v", a)
			}
			if !reflect.DeepEqual(r.Output[len(r.Output)-1], `"CounterExample written: lasso_trace.json"`) {
				t.Errorf("output %q", r.Output)
			}
		}},
		{"broken_parse_tool.out", func(t *testing.T, r *Result) {
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			want := []SpecError{{File: "/home/user/specs/Broken.tla", Location: loc("Broken", 5, 1, 5, 1),
				Message: `Encountered "====" at line 5, column 1 and token "+"`, InputLine: 11}}
			if !reflect.DeepEqual(r.SpecErrors, want) {
				t.Errorf("spec errors %+v", r.SpecErrors)
			}
			if s := r.SpecErrors[0].String(); s != `line 5, col 1 to line 5, col 1 of module Broken: Encountered "====" at line 5, column 1 and token "+"` {
				t.Errorf("String = %s", s)
			}
		}},
		{"lex_tool.out", func(t *testing.T, r *Result) {
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			want := []SpecError{{File: "/home/user/specs/Lex.tla", Location: loc("Lex", 3, 26, 3, 26),
				Message: `Lexical error: Encountered: "\n" (10), after : "\"unterminated"`, InputLine: 11}}
			if !reflect.DeepEqual(r.SpecErrors, want) {
				t.Errorf("spec errors %+v", r.SpecErrors)
			}
		}},
		{"semantic_tool.out", func(t *testing.T, r *Result) {
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			if len(r.SpecErrors) != 6 {
				t.Fatalf("%d spec errors: %+v", len(r.SpecErrors), r.SpecErrors)
			}
			want := SpecError{File: "/home/user/specs/Values.tla", Location: loc("Values", 8, 10, 8, 10),
				Message: "Could not find declaration or definition of symbol '-.'.", InputLine: 32}
			if r.SpecErrors[0] != want {
				t.Errorf("first spec error %+v", r.SpecErrors[0])
			}
			if e := r.SpecErrors[5]; e.Location != loc("Values", 15, 13, 15, 34) || e.Message != "Couldn't resolve infix operator symbol `@@'." || e.Warning {
				t.Errorf("last spec error %+v", e)
			}
		}},
		{"values_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindInvariant, CodeInvariantViolatedBehavior)
			tr := v.Trace
			if len(tr.States) != 3 {
				t.Fatalf("%d states", len(tr.States))
			}
			s := tr.States[0]
			for name, want := range map[string]string{
				"str":    `"q\"uote \\ back\nnl\ttab"`,
				"fn":     `(0 :> "z" @@ 2 :> "x" @@ 5 :> "y")`,
				"intv":   `{1, 2, 3}`,
				"empty":  `<<>>`,
				"mv":     `a`,
				"nested": `(a :> <<<<a, 1, "some padding text">>, <<a, 2, "some padding text">>, <<a, 3, "some padding text">>>> @@ b :> <<<<b, 1, "some padding text">>, <<b, 2, "some padding text">>, <<b, 3, "some padding text">>>> @@ c :> <<<<c, 1, "some padding text">>, <<c, 2, "some padding text">>, <<c, 3, "some padding text">>>>)`,
				"rec":    `[count |-> 0, flags |-> {FALSE, TRUE}, name |-> "resume", owner |-> a]`,
				"sfn":    `("a b" :> 1 @@ "c" :> 2)`,
			} {
				if got := get(t, s, name); got != want {
					t.Errorf("%s = %s, want %s", name, got, want)
				}
			}
			if got := strings.Join(s.Vars.Names(), ","); got != "str,fn,intv,empty,mv,nested,rec,n,seq,set,step,sfn" {
				t.Errorf("variable order %s", got)
			}
			a := tr.States[1].Action
			if a.Name != "Send" || len(a.Params) != 1 || !tlavalue.Equal(a.Params[0], tlavalue.Model("a")) ||
				a.Location != loc("Values", 21, 12, 25, 75) {
				t.Errorf("action %+v", a)
			}
			if get(t, *tr.Last(), "set") != "{b, c}" || get(t, *tr.Last(), "step") != "2" {
				t.Errorf("last state %v", tr.Last().Vars)
			}
		}},
		{"assume_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindAssumption, CodeAssumptionFalse)
			if !reflect.DeepEqual(v.Names, []string{"line 5, col 8 to line 5, col 12 of module Misc"}) ||
				!reflect.DeepEqual(v.Locations, []Location{loc("Misc", 5, 8, 5, 12)}) || v.Trace != nil {
				t.Errorf("violation %+v", v)
			}
		}},
		{"action_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindActionProperty, CodeActionPropertyViolatedBehavior)
			if !reflect.DeepEqual(v.Names, []string{"Mono"}) || len(v.Trace.States) != 2 {
				t.Errorf("violation %+v", v)
			}
		}},
		{"initinv_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindInvariant, CodeInvariantViolatedInitial)
			if !reflect.DeepEqual(v.Names, []string{"Pos"}) || len(v.Trace.States) != 1 ||
				!v.Trace.States[0].Action.IsInitial() || get(t, v.Trace.States[0], "x") != "0" {
				t.Errorf("violation %+v", v)
			}
		}},
		{"badcfg_tool.out", func(t *testing.T, r *Result) {
			e := onlyIssue(t, r.Errors, KindConfig, CodeConfigSpecifiedNotDefined)
			if e.Message != "The next state action Nxt specified in the configuration file\nis not defined in the specification." {
				t.Errorf("message %q", e.Message)
			}
		}},
		{"eval_tool.out", func(t *testing.T, r *Result) {
			e := onlyIssue(t, r.Errors, KindEvaluation, CodeGeneral)
			if !strings.Contains(e.Message, "to argument 3, which is not in the domain of the function.") {
				t.Errorf("message %q", e.Message)
			}
			if !reflect.DeepEqual(e.Locations, []Location{loc("Eval", 6, 9, 6, 21), loc("Eval", 6, 14, 6, 21)}) {
				t.Errorf("locations %v", e.Locations)
			}
			if len(e.Trace.States) != 2 || get(t, *e.Trace.Last(), "x") != "2" {
				t.Errorf("trace %+v", e.Trace)
			}
		}},
		{"assert_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindAssert, CodeValueAssertFailed)
			if !strings.HasSuffix(v.Message, "\n<<\"x too big\", 2>>") || len(v.Locations) != 2 || len(v.Trace.States) != 3 {
				t.Errorf("violation %+v", v)
			}
		}},
		// Runs of this project's spec (see testdata/README.md).
		{"resume_r0_tool.out", func(t *testing.T, r *Result) {
			if *r.Stats != (Stats{Generated: 87, Distinct: 59, Queue: 0}) || r.Depth != 8 {
				t.Errorf("stats %+v depth %d", r.Stats, r.Depth)
			}
			if r.Success == nil || r.Success.CollisionProbability != 9.0e-17 || len(r.Violations) != 0 || r.Err() != nil {
				t.Errorf("success %+v, violations %+v, err %v", r.Success, r.Violations, r.Err())
			}
			if len(r.TemporalChecks) != 1 || !r.TemporalChecks[0].Complete || r.TemporalChecks[0].Distinct != 59 {
				t.Errorf("temporal checks %+v", r.TemporalChecks)
			}
			if r.ModuleFiles["Resume"] != "/home/user/specs/Resume.tla" {
				t.Errorf("module files %v", r.ModuleFiles)
			}
		}},
		{"resume_replay_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindInvariant, CodeInvariantViolatedBehavior)
			if !reflect.DeepEqual(v.Names, []string{"EO"}) || len(v.Trace.States) != 4 {
				t.Fatalf("violation %+v", v)
			}
			var actions []string
			for _, s := range v.Trace.States {
				actions = append(actions, s.Action.Name)
			}
			if want := []string{"Initial predicate", "ExecTask", "CrashRecover", "ExecTask"}; !reflect.DeepEqual(actions, want) {
				t.Errorf("actions %q, want %q", actions, want)
			}
			if a := v.Trace.States[1].Action; a.Location != loc("Resume", 142, 5, 153, 51) {
				t.Errorf("action %+v", a)
			}
			last := *v.Trace.Last()
			if get(t, last, "effects") != "<<2, 0, 0>>" || get(t, last, "recoveries") != `<<[decision |-> "replay", frontier |-> 1]>>` {
				t.Errorf("last state\n%s", last.Vars)
			}
		}},
		{"resume_doubleconsume_continue_tool.out", func(t *testing.T, r *Result) {
			// With -continue TLC reports every violating state, each under
			// the first invariant of the cfg it violates, and exits 0.
			if len(r.Violations) != 18 || r.Violations[0].Names[0] != "EO" || len(r.Violations[0].Trace.States) != 6 {
				t.Fatalf("%d violations, first %+v", len(r.Violations), r.Violations[0])
			}
			if *r.Stats != (Stats{Generated: 87, Distinct: 59, Queue: 0}) || r.Depth != 8 {
				t.Errorf("stats %+v depth %d", r.Stats, r.Depth)
			}
		}},
		{"resume_deadlock_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindDeadlock, CodeDeadlockReached)
			last := v.Trace.Last()
			if len(v.Trace.States) != 7 || last.Action.Name != "ExtraResume" || get(t, *last, "pc") != "4" {
				t.Errorf("deadlock trace of %d states ending %+v", len(v.Trace.States), last.Action)
			}
			if a := v.Trace.States[3].Action; a.Name != "Consume" || len(a.Params) != 1 || a.Params[0].String() != "va" {
				t.Errorf("state 4 after %+v, want Consume(va)", a)
			}
		}},
		{"resume_volatilepark_tool.out", func(t *testing.T, r *Result) {
			v := onlyIssue(t, r.Violations, KindTemporal, CodeTemporalPropertyViolated)
			if !reflect.DeepEqual(v.Names, []string{"Liveness"}) || len(v.Trace.States) != 4 || !v.Trace.Stuttering {
				t.Errorf("violation %+v", v)
			}
			if get(t, *v.Trace.Last(), "lost") != "TRUE" {
				t.Errorf("last state\n%s", v.Trace.Last().Vars)
			}
		}},
		{"resume_parse_tool.out", func(t *testing.T, r *Result) {
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			want := `/home/user/specs/broken/Resume.tla:173:5: Encountered "/\" at line 173, column 5 and token "1"`
			if err := r.Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %s", err, want)
			}
		}},
		{"resume_semantic_tool.out", func(t *testing.T, r *Result) {
			want := "/home/user/specs/semantic/Resume.tla:171:8: Unknown operator: `consumd'."
			if err := r.Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %s", err, want)
			}
		}},
		{"resume_modulename_tool.out", func(t *testing.T, r *Result) {
			// SANY places this error nowhere ("Unknown location"): the
			// file and SANY's words, not TLC's "Parsing or semantic
			// analysis failed."
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			want := "/home/user/specs/modulename/Other.tla: File name 'Other' does not match the name 'Resume' of the top level module it contains."
			if err := r.Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %s", err, want)
			}
		}},
		{"extends_tool.out", func(t *testing.T, r *Result) {
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			want := "/home/user/specs/Ext.tla: Cannot find source file for module NoSuchModule imported in module Ext."
			if err := r.Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %s", err, want)
			}
		}},
		{"probe_ok_tool.out", func(t *testing.T, r *Result) {
			// doctor's probe with a whole jar: its 3 states, no error.
			if r.Err() != nil || r.Success == nil || *r.Stats != (Stats{Generated: 3, Distinct: 3, Queue: 0}) || len(r.Violations) > 0 {
				t.Errorf("Err %v, success %v, stats %+v, violations %d", r.Err(), r.Success, r.Stats, len(r.Violations))
			}
		}},
		{"probe_nostdlib_tool.out", func(t *testing.T, r *Result) {
			// The probe with a jar without tla2sany/StandardModules/.
			onlyIssue(t, r.Errors, KindParse, CodeParsingFailed)
			want := "/home/user/specs/Probe.tla: Cannot find source file for module Naturals imported in module Probe."
			if err := r.Err(); err == nil || err.Error() != want {
				t.Errorf("Err() = %v, want %s", err, want)
			}
		}},
		{"resume_noconst_tool.out", func(t *testing.T, r *Result) {
			onlyIssue(t, r.Errors, KindConfig, CodeConfigValueNotAssignedToConstantParam)
			var e *Error
			if err := r.Err(); !errors.As(err, &e) || !e.IsInput() ||
				e.Error() != "The constant parameter MaxCrashes is not assigned a value by the configuration file." {
				t.Errorf("Err() = %v", err)
			}
		}},
		{"sim_tool.out", func(t *testing.T, r *Result) {
			if r.Mode != "Random Simulation" || r.Seed != 1 {
				t.Errorf("mode %q seed %d", r.Mode, r.Seed)
			}
			if *r.Stats != (Stats{Generated: 16, Distinct: -1, Queue: -1}) {
				t.Errorf("stats %+v", r.Stats)
			}
			if len(r.Progress) != 2 || r.Progress[1].Depth != 3 || r.Progress[1].Distinct != -1 || r.Progress[1].Queue != -1 {
				t.Errorf("progress %+v", r.Progress)
			}
		}},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(tt.file, func(t *testing.T) {
			r, status := parseSample(t, tt.file)
			if got := r.ExpectedExit(strings.Contains(tt.file, "_continue_")); got != status {
				t.Errorf("ExitStatus = %d (%s), TLC exited with %d (%s)", got, got, status, status)
			}
			if !r.Finished {
				t.Errorf("no final message")
			}
			tt.check(t, r)
		})
	}
	files, _ := filepath.Glob("testdata/*_tool.out")
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s is not in the table", f)
		}
	}
}

func TestPlainOutput(t *testing.T) {
	out, _ := readSample(t, "diehard_violation_text.out")
	r, err := Parse(strings.NewReader(out))
	if !errors.Is(err, ErrNoMessages) {
		t.Fatalf("Parse of output without -tool: %v", err)
	}
	if len(r.Output) != 43 || r.ExitStatus() != ExitSuccess {
		t.Errorf("%d output lines, exit %d", len(r.Output), r.ExitStatus())
	}
}

// msg builds a tagged message as TLC prints it.
func msg(code Code, sev Severity, body string) string {
	return "@!@!@STARTMSG " + strconv.Itoa(int(code)) + ":" + strconv.Itoa(int(sev)) + " @!@!@\n" +
		body + "\n@!@!@ENDMSG " + strconv.Itoa(int(code)) + " @!@!@\n"
}

func TestProgressReports(t *testing.T) {
	out := msg(CodeProgressStats, 0, "Progress(3) at 2026-12-02 13:11:49: 1,234,567 states generated (1,234 s/min), 99,999 distinct states found (88 ds/min), 12,345 states left on queue.") +
		msg(CodeProgressStats, 0, "Progress(9) at 2026-12-02 13:12:49: 2.345.678 states generated, 123.456 distinct states found, 0 states left on queue.") +
		msg(CodeInitGenerated2, 0, "Finished computing initial states: 3 states generated, with 2 of them distinct at 2026-12-02 13:11:49.") +
		msg(CodeStats, 0, "5 states generated, 4 distinct states found, 0 states left on queue.") +
		msg(CodeStatsDFID, 0, "7 states generated, 6 distinct states found.") +
		msg(CodeSuccess, 0, "Model checking completed. No error has been found.\n  Estimates of the probability that TLC did not check all reachable states\n  because two distinct states had the same fingerprint:\n  calculated (optimistic):  val = 1.2E-10\n  based on the actual fingerprints:  val = 3.4E-12")
	r, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []Progress{
		{Depth: 3, Time: "2026-12-02 13:11:49", Generated: 1234567, GeneratedPerMinute: 1234, Distinct: 99999, DistinctPerMinute: 88, Queue: 12345, InputLine: 1},
		{Depth: 9, Time: "2026-12-02 13:12:49", Generated: 2345678, Distinct: 123456, Queue: 0, InputLine: 4},
	}
	if !reflect.DeepEqual(r.Progress, want) {
		t.Errorf("progress %+v", r.Progress)
	}
	if r.InitialGenerated != 3 || r.InitialDistinct != 2 {
		t.Errorf("initial %d/%d", r.InitialGenerated, r.InitialDistinct)
	}
	if *r.Stats != (Stats{Generated: 7, Distinct: 6, Queue: -1}) {
		t.Errorf("stats %+v", r.Stats)
	}
	if r.Success.CollisionProbability != 1.2e-10 || r.Success.ActualCollisionProbability != 3.4e-12 {
		t.Errorf("success %+v", r.Success)
	}
}

func TestTemporalNames(t *testing.T) {
	for body, want := range map[string][]string{
		"Temporal property Done was violated.\n":                {"Done"},
		"Temporal properties A and B were violated.\n":          {"A", "B"},
		"Temporal properties A, B, and C were violated.\n":      {"A", "B", "C"},
		"Temporal properties were violated.\n":                  nil,
		"Temporal properties Live!P, Q_1, and R were violated.": {"Live!P", "Q_1", "R"},
	} {
		r, err := Parse(strings.NewReader(msg(CodeTemporalPropertyViolated, SeverityError, body)))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Violations[0].Names; !reflect.DeepEqual(got, want) {
			t.Errorf("%q: names %q, want %q", body, got, want)
		}
	}
}

// TLC names a property it cannot name otherwise (a conjunct of a
// formula, an instance's Spec) by its location, and says how many
// branches of a disjunctive property it checks: both were "malformed
// output" before (internal/tools/mutants met them on mutants of
// tlaplus/Examples' EWD840 and Barrier).
func TestPropertiesNamedByLocation(t *testing.T) {
	loc := "line 28, col 6 to line 28, col 33 of module SyncTerminationDetection"
	out := msg(CodeCheckingTemporalProps, 0, "Checking 2 branches of temporal properties for the complete state space with 536 total distinct states at (2026-12-06 05:35:41)") +
		msg(CodePropertyViolatedInitial, SeverityError, "Property "+loc+" is violated by the initial state:\n/\\ x = 1") +
		msg(CodeActionPropertyViolatedBehavior, SeverityError, "Action property "+loc+" is violated.")
	r, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if want := []TemporalCheck{{Complete: true, Distinct: 536, InputLine: 1}}; !reflect.DeepEqual(r.TemporalChecks, want) {
		t.Errorf("temporal checks %+v, want %+v", r.TemporalChecks, want)
	}
	if len(r.Violations) != 2 {
		t.Fatalf("%d violations, want 2", len(r.Violations))
	}
	for _, v := range r.Violations {
		if !reflect.DeepEqual(v.Names, []string{loc}) {
			t.Errorf("%s: names %q, want the location", v.Kind, v.Names)
		}
	}
}

func TestMalformedBodies(t *testing.T) {
	tests := []struct{ out, want string }{
		{msg(CodeProgressStats, 0, "Progress at some time"),
			`tlc: malformed output: line 1: unexpected text of message 2200: "Progress at some time"`},
		{msg(CodeInvariantViolatedBehavior, 1, "Invariant is violated."),
			`tlc: malformed output: line 1: unexpected text of message 2110: "Invariant is violated."`},
		{msg(CodeStatePrint2, 4, "1: <Initial predicate>\n/\\ x = 1\n/\\ y = <<1,\n  2"),
			"tlc: malformed output: line 5, col 4: expected '>>', found end of input"},
		{msg(CodeStatePrint2, 4, "one: <Initial predicate>\nx = 1"),
			`tlc: malformed output: line 2: expected "N: <action>" to start a state, found "one: <Initial predicate>"`},
		{msg(CodeBackToState, 4, "2: Back to state: <Down>"),
			"tlc: malformed output: line 1: back-to-state marker without a trace"},
		{msg(CodeStatePrint3, 4, "4: Stuttering"),
			"tlc: malformed output: line 1: stuttering marker without a trace"},
	}
	for _, tt := range tests {
		_, err := Parse(strings.NewReader(tt.out))
		if err == nil || err.Error() != tt.want || !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q) error = %v, want %s", tt.out, err, tt.want)
		}
	}
	// A bad message does not hide the rest.
	out := msg(CodeProgressStats, 0, "garbled") + msg(CodeSearchDepth, 0, "The depth of the complete state graph search is 8.")
	r, err := Parse(strings.NewReader(out))
	if err == nil || r.Depth != 8 {
		t.Errorf("partial result: depth %d, error %v", r.Depth, err)
	}
}

func TestActionLabels(t *testing.T) {
	tests := []struct {
		label  string
		name   string
		params string // the parameters as a tuple
		loc    Location
	}{
		{"<Initial predicate>", "Initial predicate", "<<>>", Location{}},
		{"<Inc line 7, col 8 to line 7, col 28 of module Counter>", "Inc", "<<>>", loc("Counter", 7, 8, 7, 28)},
		{"<Send(a) line 21, col 12 to line 25, col 75 of module Values>", "Send", "<<a>>", loc("Values", 21, 12, 25, 75)},
		{`<Put(p1,"k, v",<<1, 2>>) line 3, col 1 to line 4, col 2 of module M>`, "Put", `<<p1, "k, v", <<1, 2>>>>`, loc("M", 3, 1, 4, 2)},
		{"<Action line 9, col 1 to line 9, col 9 of module M>", "Action", "<<>>", loc("M", 9, 1, 9, 9)},
		// Parameters that are not values stay in the name.
		{"<Lazy(SUBSET {1}) line 1, col 1 to line 1, col 2 of module M>", "Lazy(SUBSET {1})", "<<>>", loc("M", 1, 1, 1, 2)},
		{"<Next>", "Next", "<<>>", Location{}},
	}
	for _, tt := range tests {
		a := parseAction(tt.label)
		if a.Name != tt.name || tlavalue.Tuple(a.Params...).String() != tt.params || a.Location != tt.loc ||
			a.Label != tt.label[1:len(tt.label)-1] {
			t.Errorf("parseAction(%q) = %+v", tt.label, a)
		}
	}
}

func TestLocations(t *testing.T) {
	l, ok := ParseLocation("line 7, col 8 to line 7, col 28 of module Counter")
	if !ok || l != loc("Counter", 7, 8, 7, 28) || l.String() != "line 7, col 8 to line 7, col 28 of module Counter" {
		t.Errorf("ParseLocation = %+v, %v", l, ok)
	}
	if _, ok := ParseLocation("at line 7, col 8 to line 7, col 28 of module Counter"); ok {
		t.Errorf("ParseLocation accepted a prefix")
	}
	got := FindLocations("0. Line 6, column 9 to line 6, column 21 in Eval\n1. Line 6, column 14 to line 6, column 21 in Eval")
	if !reflect.DeepEqual(got, []Location{loc("Eval", 6, 9, 6, 21), loc("Eval", 6, 14, 6, 21)}) {
		t.Errorf("FindLocations = %v", got)
	}
	if (Location{Module: "M"}).String() != "In module M" || (Location{}).String() != "" {
		t.Errorf("String of locations without positions")
	}
}

func TestCodesAndExitStatuses(t *testing.T) {
	if CodeInvariantViolatedBehavior.String() != "TLC_INVARIANT_VIOLATED_BEHAVIOR" || Code(42).String() != "Code(42)" {
		t.Errorf("Code.String")
	}
	for code, want := range map[Code]ExitStatus{
		CodeInvariantViolatedBehavior: ExitViolationSafety, CodeDeadlockReached: ExitViolationDeadlock,
		CodeTemporalPropertyViolated: ExitViolationLiveness, CodeActionPropertyViolatedBehavior: ExitViolationLiveness,
		CodeAssumptionFalse: ExitViolationAssumption, CodeValueAssertFailed: ExitViolationAssert,
		CodeNestedExpression: ExitFailureSpecEval, CodeInvariantEvaluationFailed: ExitFailureSafetyEval,
		CodeLiveFormulaTautology: ExitFailureLivenessEval, CodeParsingFailed: ExitErrorSpecParse,
		CodeConfigMissingInit: ExitErrorConfigParse, CodeGeneral: ExitError, CodeBehaviorUpToThisPoint: ExitError,
	} {
		if got := ExitStatusFor(code); got != want {
			t.Errorf("ExitStatusFor(%s) = %d, want %d", code, got, want)
		}
	}
	if Meaning(11) != "violation: deadlock reached" || Meaning(150) != "error: the spec could not be parsed" ||
		Meaning(1) != "unknown exit status 1: TLC crashed" {
		t.Errorf("Meaning: %q %q %q", Meaning(11), Meaning(150), Meaning(1))
	}
	if !ExitViolationAssert.IsViolation() || ExitFailureSpecEval.IsViolation() {
		t.Errorf("IsViolation")
	}
	if ExitErrorConfigParse.Crashed() || !ExitErrorSystem.Crashed() || !ExitStatus(3).Crashed() {
		t.Errorf("Crashed")
	}
	if SeverityState.String() != "state" || KindDeadlock.String() != "deadlock" {
		t.Errorf("String of Severity or Kind")
	}
}

// TestSANYFallback: a fatal SANY error in a form the reader does not know
// is passed on in SANY's words, with the file, rather than as TLC's
// "Parsing or semantic analysis failed."
func TestSANYFallback(t *testing.T) {
	b, err := os.ReadFile("testdata/resume_modulename_tool.out")
	if err != nil {
		t.Fatal(err)
	}
	// The same run, had SANY worded its error another way.
	out := strings.ReplaceAll(string(b), "Unknown location\n\nFile name 'Other' does not match the name 'Resume' of the top level module it contains.",
		"Something new went wrong\nwith module Resume.")
	if out == string(b) {
		t.Fatal("the fixture did not change")
	}
	r, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	want := "/home/user/specs/modulename/Other.tla: Something new went wrong with module Resume."
	if err := r.Err(); err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %s", err, want)
	}
}

package conformcli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
	"github.com/resumecontract/resumecheck/trace"
)

func committed(t *testing.T, id string) *harness.Profile {
	t.Helper()
	ps, err := baseline.Read(baselines)
	if err != nil {
		t.Fatal(err)
	}
	p := baseline.Find(ps, id)
	if p == nil {
		t.Fatalf("no committed profile %s", id)
	}
	return p
}

// TestREMITValidityNotRepaired checks the doc's finding 9 from the
// committed runs and traces: on both stores REMIT's reply says nothing was
// persisted, yet the run's final checkpoint report reads task 3's invalid
// state back (the trace observes it), and the cell's CV is violated,
// explained by invalidpersist.
func TestREMITValidityNotRepaired(t *testing.T) {
	for _, id := range []string{"remit-contract@0.1.2/sqlite", "remit-contract@0.1.2/postgres"} {
		p := committed(t, id)
		c := p.Cell("cv")
		if c == nil || len(c.Runs) != 1 {
			t.Fatalf("%s: no cv run", id)
		}
		r := c.Runs[0]
		refused := false
		for _, o := range r.Outcomes {
			refused = refused || strings.Contains(o.Error, "nothing persisted")
		}
		if !refused {
			t.Errorf("%s: the resume was not refused with \"nothing persisted\": %+v", id, r.Outcomes)
		}
		if c.Status["CV"] != harness.Violated || strings.Join(r.Explained, ",") != "invalidpersist" {
			t.Errorf("%s: CV %s explained by %v", id, c.Status["CV"], r.Explained)
		}
		tr, err := trace.ReadFile(filepath.Join(baselines, strings.Replace(id, "/", "-", 1), r.Trace))
		if err != nil {
			t.Fatal(err)
		}
		last := tr.Events[len(tr.Events)-1]
		invalid := false
		for _, rec := range last.State.Log {
			if int(rec.Task) == 3 && !rec.Valid {
				invalid = true
			}
		}
		if !invalid {
			t.Errorf("%s: the trace's last event does not observe task 3's invalid record: %+v", id, last.State.Log)
		}
	}
}

// TestSharedProfile checks the doc's finding 8: CrewAI 1.15.2 and
// LlamaIndex Workflows 2.22.2 agree on the six safety obligations and
// differ in FI (CrewAI's Flow.fork is a fork intent) and LV.
func TestSharedProfile(t *testing.T) {
	a, b := committed(t, "crewai@1.15.2/sqlite"), committed(t, "llama-index-workflows@2.22.2/sqlite")
	for _, o := range []string{"EO", "PC", "FD", "CV", "CO", "RD"} {
		if x, y := a.Obligations[o].Status, b.Obligations[o].Status; x != y {
			t.Errorf("%s: CrewAI %s, LlamaIndex %s: the doc's finding 8 no longer holds", o, x, y)
		}
	}
	if a.Obligations["FI"].Status != harness.Holds || b.Obligations["FI"].Status != harness.Violated {
		t.Errorf("FI: CrewAI %s, LlamaIndex %s: the doc's finding 8 says holds and violated", a.Obligations["FI"].Status, b.Obligations["FI"].Status)
	}
	if a.Obligations["LV"].Status == b.Obligations["LV"].Status {
		t.Errorf("LV: both %s: the doc's finding 8 says they differ", a.Obligations["LV"].Status)
	}
}

// TestSharedSafetyProfiles: the doc's finding 8 names every pair of
// different frameworks equal on the six safety obligations, CrewAI =
// LlamaIndex and pydantic-graph = REMIT (both stores), with the FI side
// of each pair a fork=false declaration.
func TestSharedSafetyProfiles(t *testing.T) {
	ps, err := baseline.Read(baselines)
	if err != nil {
		t.Fatal(err)
	}
	got := sharedProfiles(ps)
	for _, want := range []string{
		"crewai@1.15.2/sqlite (adapter-interpreted store: PC, RD) = llama-index-workflows@2.22.2/sqlite (every cell adapter-built), apart from FI (holds vs " + harness.NoForkAPI + ")",
		"pydantic-graph@1.107.10/sqlite (adapter-built: fd, stray, race, parked, fork) = remit-contract@0.1.2/postgres, apart from FI (" + harness.NoForkAPI + " vs holds)",
		"pydantic-graph@1.107.10/sqlite (adapter-built: fd, stray, race, parked, fork) = remit-contract@0.1.2/sqlite",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("finding 8 does not say %q:\n%s", want, got)
		}
	}
	if strings.Count(got, " = ") != 3 {
		t.Errorf("finding 8 names other pairs than the three: %s", got)
	}
}

// TestMarksEverywhere: every view of the verdicts (the table, the
// paper's findings, a subject's cells) marks what the adapter decided.
// FI decided by a fork=false declaration is "no fork API", never
// **violated**; a real FI violation (Eino: a stray resume re-fired, with
// fork=true) stays **violated**. The findings table marks each profile
// whose counted cell is adapter-built, and CrewAI's PC and RD carry the
// adapter-interpreted store mark. Undeclaring the marks (a profile with no
// Interpreted, a fork=true declaration) removes them: the marks come
// from the declarations, not from the subject's name.
func TestMarksEverywhere(t *testing.T) {
	ps, err := baseline.Read(baselines)
	if err != nil {
		t.Fatal(err)
	}
	var tb strings.Builder
	harness.Table(&tb, ps)
	row := func(id string) []string {
		for _, l := range strings.Split(tb.String(), "\n") {
			if strings.HasPrefix(l, "| "+id+" |") {
				return strings.Split(strings.Trim(l, "| "), " | ")
			}
		}
		t.Fatalf("no row %s", id)
		return nil
	}
	fi := 1 + slices.Index(harness.Obligations, "FI")
	for _, id := range []string{"langgraph@1.2.9/sqlite", "langgraph@1.2.24/postgres", "langgraphjs@1.7.3/sqlite", "go-workflows@1.4.2/sqlite", "pydantic-graph@1.107.10/sqlite", "llama-index-workflows@2.22.2/sqlite"} {
		if c := row(id)[fi]; !strings.Contains(c, harness.NoForkAPI) || strings.Contains(c, "violated") {
			t.Errorf("%s FI: %q, want %q", id, c, harness.NoForkAPI)
		}
	}
	if c := row("eino@0.9.13/sqlite")[fi]; c != "**violated**" {
		t.Errorf("Eino's FI (a stray resume re-fired, fork=true): %q", c)
	}
	crew := row("crewai@1.15.2/sqlite")
	for i, o := range harness.Obligations {
		if has := strings.HasSuffix(crew[i+1], harness.InterpretedMark); has != (o == "PC" || o == "RD") {
			t.Errorf("CrewAI %s: %q (the mark is for PC and RD)", o, crew[i+1])
		}
	}
	f := renderFindings(ps)
	for _, want := range []string{
		"llama-index-workflows@2.22.2/sqlite (adapter-built), pydantic-graph", // finding 2: LlamaIndex's cv cell
		"eino@0.9.13/sqlite (adapter-built) 20/20 duplicated",                 // finding 6: Eino's race
		"llama-index-workflows@2.22.2/sqlite (adapter-built) 20/20 duplicated",
		"go-workflows@1.4.2/sqlite, pydantic-graph@1.107.10/sqlite (adapter-built), remit", // finding 7
		"PC" + harness.InterpretedMark + " 10/10",                                          // finding 4: CrewAI
		"LangGraph 1.2.9 per store: postgres 9 of 20 [0.26, 0.66]; sqlite 13 of 20 [0.43, 0.82]",
		"1-minute load under 1",
	} {
		if !strings.Contains(f, want) {
			t.Errorf("the findings table does not say %q", want)
		}
	}
	var cells strings.Builder
	harness.ProfileCells(&cells, committed(t, "crewai@1.15.2/sqlite"))
	if !strings.Contains(cells.String(), "RD holds"+harness.InterpretedMark) || !strings.Contains(cells.String(), "Adapter-interpreted store (PC, RD): ") {
		t.Errorf("CrewAI's cells do not mark PC and RD:\n%s", cells.String())
	}

	// The marks follow the declarations.
	lg := committed(t, "langgraph@1.2.9/sqlite")
	lg.Features.Fork = true
	if c := lg.TableCell("FI"); c != "**violated**" {
		t.Errorf("FI violated with fork=true declared: %q", c)
	}
	cr := committed(t, "crewai@1.15.2/sqlite")
	cr.Interpreted = nil
	if c := cr.TableCell("PC"); strings.Contains(c, harness.InterpretedMark) {
		t.Errorf("PC with nothing declared interpreted: %q", c)
	}
}

const measurements = "../../../testdata/conformance-measurements"

// TestLoadTableIsCurrent: the doc's table of race saturation against load
// is what the committed measurements give, and their traces re-check.
func TestLoadTableIsCurrent(t *testing.T) {
	want, err := loadTable(baselines, measurements, []string{"langgraph@1.2.9/sqlite", "langgraph@1.2.9/postgres"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- load measurements: checked by TestLoadTableIsCurrent -->\n", "<!-- end of the load measurements -->"
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("docs/conformance.md has no load measurement markers")
	}
	if got := string(doc[i+len(begin) : j]); got != "\n"+want+"\n" {
		t.Errorf("docs/conformance.md: the load table is not what the measurements give; want:\n\n%s", want)
	}
	dirs, err := filepath.Glob(filepath.Join(measurements, "*", "*", "profile.json"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no measurements: %v", err)
	}
	for _, d := range dirs {
		problems, err := RecheckBaselines(filepath.Dir(filepath.Dir(d)), testRegistry(t))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Errorf("%s: %s", d, p)
		}
	}
}

// TestStrandedRunIsUndetermined: REMIT on SQLite, killed at the sweep's
// note 11 just after task 2's effect, its recovery refused by the claim
// its dead predecessor took. The trace is rejected (an effect while the
// run is parked), so the run is decided from the ledger, and the direct
// check must give a conflict-refused run that did not complete LV
// undetermined, as tracecheck does when the same refusal comes a moment
// earlier and the trace is accepted. Without the refusal the same run is
// LV violated: the check is not blind to runs that never complete.
func TestStrandedRunIsUndetermined(t *testing.T) {
	const id = "remit-contract@0.1.2/sqlite"
	c := committed(t, id).Cell("killsweep/resume")
	var rv *harness.RunVerdict
	for i := range c.Runs {
		if c.Runs[i].Run == "note-11" {
			rv = &c.Runs[i]
		}
	}
	if rv == nil || rv.Verdict != "rejected" || !rv.Direct || !rv.RecoveryRefusedAsConflict() {
		t.Fatalf("%s killsweep/resume note-11 is not the stranded, rejected run: %+v", id, rv)
	}
	tr, err := trace.ReadFile(filepath.Join(baselines, strings.Replace(id, "/", "-", 1), rv.Trace))
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := harness.ScenarioByName("killsweep")
	got, err := harness.Redecide(tr, rv, sc.Workflow)
	if err != nil {
		t.Fatal(err)
	}
	if got.Obligations["LV"] != harness.Undetermined || rv.Obligations["LV"] != harness.Undetermined {
		t.Errorf("LV: decided again %s, recorded %s; want undetermined (a recovery refused as a conflict)", got.Obligations["LV"], rv.Obligations["LV"])
	}
	bare := *rv
	bare.Notes = slices.DeleteFunc(slices.Clone(rv.Notes), func(n string) bool { return strings.Contains(n, "refused: conflict") })
	if bare.RecoveryRefusedAsConflict() {
		t.Fatal("the refusal note is still there")
	}
	got, err = harness.Redecide(tr, &bare, sc.Workflow)
	if err != nil {
		t.Fatal(err)
	}
	if got.Obligations["LV"] != harness.Violated {
		t.Errorf("the same run without its refusal: LV %s, want violated (it did not complete)", got.Obligations["LV"])
	}
}

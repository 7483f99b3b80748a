package conformcli

import (
	"os"
	"path/filepath"
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

const measurements = "../../testdata/conformance-measurements"

// TestLoadTableIsCurrent: the doc's table of race saturation against load
// is what the committed measurements give, and their traces re-check.
func TestLoadTableIsCurrent(t *testing.T) {
	want, err := loadTable(baselines, measurements, []string{"langgraph@1.2.9/sqlite", "langgraph@1.2.9/postgres"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("../../docs/conformance.md")
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

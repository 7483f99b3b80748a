package conformcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/harness/baseline"
)

func writeProfile(t *testing.T, dir string, st harness.Status) {
	t.Helper()
	p := &harness.Profile{Subject: "s", Version: "1", Store: "sqlite", Cells: []harness.Cell{{
		Name: "fd", Scenario: "fd", Measures: []string{"FD"},
		Runs: []harness.RunVerdict{{Run: "fd", Verdict: "accepted", Obligations: map[string]harness.Status{"FD": st}}},
	}}}
	p.Cells[0].Aggregate()
	p.Finish()
	d := filepath.Join(dir, "s@1-sqlite")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d, "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.WriteJSON(f); err != nil {
		t.Fatal(err)
	}
}

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Program.Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestTableAndDiff(t *testing.T) {
	base, now := t.TempDir(), t.TempDir()
	writeProfile(t, base, harness.Holds)
	writeProfile(t, now, harness.Violated)

	code, out, _ := run("table", base)
	if code != ExitOK || !strings.Contains(out, "| s@1/sqlite | n/a | n/a | holds |") {
		t.Errorf("table: exit %d\n%s", code, out)
	}
	code, out, _ = run("diff", "--baseline", base, base)
	if code != ExitOK || !strings.Contains(out, "no confirmed change") {
		t.Errorf("diff of equal profiles: exit %d\n%s", code, out)
	}
	code, out, _ = run("diff", "--baseline", base, now)
	if code != ExitChanged || !strings.Contains(out, "s@1/sqlite cell fd FD: holds -> violated") {
		t.Errorf("diff of a changed verdict: exit %d\n%s", code, out)
	}
	// --json: the same gate, the same exit, the findings as data.
	code, out, _ = run("diff", "--json", "--baseline", base, now)
	var got struct {
		Baseline            string
		Confirmed           []harness.Finding
		Samples, Unmeasured []harness.Finding
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("diff --json: %v:\n%s", err, out)
	}
	if code != ExitChanged || got.Baseline != base || len(got.Confirmed) != 1 || got.Samples == nil || got.Unmeasured == nil {
		t.Fatalf("diff --json of a changed verdict: exit %d, %+v", code, got)
	}
	if f := got.Confirmed[0]; f.Profile != "s@1/sqlite" || f.Cell != "fd" || f.Obligation != "FD" || f.Was != harness.Holds ||
		f.Now != harness.Violated || f.Kind != harness.FindingConfirmed || f.Why == "" {
		t.Errorf("diff --json: confirmed finding %+v", f)
	}
	code, out, _ = run("diff", "--json", "--baseline", base, base)
	if code != ExitOK || !strings.Contains(out, `"confirmed": []`) {
		t.Errorf("diff --json of equal profiles: exit %d\n%s", code, out)
	}
	if code, _, errs := run("run", "--grid", "huge", "--registry", "../../adapters/subjects.json"); code != ExitUsage {
		t.Errorf("run --grid huge: exit %d, want %d (%s)", code, ExitUsage, errs)
	}
	if code, _, _ := run("nosuch"); code != ExitUsage {
		t.Errorf("unknown command: exit %d", code)
	}
}

// TestJudge rebuilds a run's trace from a recorded log: a happy path of
// the control subject.
func TestJudge(t *testing.T) {
	dir := t.TempDir()
	log := judgeLog
	path := filepath.Join(dir, "log.json")
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run("judge", path)
	if code != ExitOK || !strings.Contains(out, `"verdict": "accepted"`) {
		t.Errorf("judge: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run("judge", "--trace", path)
	want := `{"seq":3,"action":"Consume","params":{"value":"va"},"vars":{"pc":3,"effects":[1,1,0],"waiting":false,"consumed":"va","resumes":[{"value":"va","observed":["va"]}]}}`
	if code != ExitOK || !strings.Contains(out, want) {
		t.Errorf("judge --trace: exit %d\n%s\nwant the line %s", code, out, want)
	}
}

// judgeLog is the log of a stray run of the control subject: accepted.
const judgeLog = `{"scenario":"stray","run":"r","store":"sqlite","workflow":{"tasks":3,"gate":2,"values":["va","vb"],"invalid_task":0},
"entries":[
{"kind":"request","proc":1,"role":"start","request":{"id":2,"op":"start"}},
{"kind":"note","proc":1,"role":"start","msg":{"type":"note","n":1,"kind":"task","task":1,"branch":"main"},"counts":{"applied":[0,0,0],"delivered":[0,0,0]}},
{"kind":"note","proc":1,"role":"start","msg":{"type":"note","n":2,"kind":"effect","task":1,"branch":"main"},"counts":{"applied":[1,0,0],"delivered":[1,0,0]}},
{"kind":"reply","proc":1,"role":"start","msg":{"type":"reply","id":2,"ok":true,"status":"parked"},"counts":{"applied":[1,0,0],"delivered":[1,0,0]}},
{"kind":"request","proc":1,"role":"resume","request":{"id":3,"op":"resume","value":"va"}},
{"kind":"note","proc":1,"role":"resume","msg":{"type":"note","n":3,"kind":"task","task":2,"value":"va","branch":"main"},"counts":{"applied":[1,0,0],"delivered":[1,0,0]}},
{"kind":"note","proc":1,"role":"resume","msg":{"type":"note","n":4,"kind":"effect","task":2,"branch":"main"},"counts":{"applied":[1,1,0],"delivered":[1,1,0]}},
{"kind":"note","proc":1,"role":"resume","msg":{"type":"note","n":5,"kind":"effect","task":3,"branch":"main"},"counts":{"applied":[1,1,1],"delivered":[1,1,1]}},
{"kind":"reply","proc":1,"role":"resume","msg":{"type":"reply","id":3,"ok":true,"status":"completed","outcome":["va"]},"counts":{"applied":[1,1,1],"delivered":[1,1,1]}}
],
"rows":[{"seq":1,"task":1,"branch":"main","pid":1},{"seq":2,"task":2,"branch":"main","value":"va","pid":1},{"seq":3,"task":3,"branch":"main","pid":1}]}`

// TestJudgeRefuses (issue 24): judge refuses, with exit 2 and the file and
// line, a log that is empty, cut, has an entry or note of a kind the
// builder does not know, a number out of its range, or a key twice. The
// old judge accepted an emptied log (CV holds on LangGraph's CV run), and
// skipped or used the rest.
func TestJudgeRefuses(t *testing.T) {
	cv, err := os.ReadFile(filepath.Join("..", "..", "harness", "testdata", "logs", "langgraph-1.2.9-sqlite-cv.json"))
	if err != nil {
		t.Fatal(err)
	}
	withEntries := func(entries string) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cv, &m); err != nil {
			t.Fatal(err)
		}
		m["entries"] = json.RawMessage(entries)
		b, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	replace := func(old, new string) string {
		if !strings.Contains(judgeLog, old) {
			t.Fatalf("%s is not in the log", old)
		}
		return strings.Replace(judgeLog, old, new, 1)
	}
	for _, tc := range []struct {
		name, log, want string
	}{
		{"cv entries empty", withEntries("[]"), "no entries"},
		{"cv entries null", withEntries("null"), "no entries"},
		{"cut", judgeLog[:len(judgeLog)/2], "cut short"},
		{"cut after an entry", judgeLog[:strings.Index(judgeLog, "\n{\"kind\":\"request\",\"proc\":1,\"role\":\"resume\"")], "cut short"},
		{"entry kind", replace(`{"kind":"request","proc":1,"role":"resume"`, `{"kind":"requests","proc":1,"role":"resume"`), `entry 5: unknown kind "requests"`},
		{"note kind", replace(`"kind":"effect","task":2`, `"kind":"effects","task":2`), `entry 7: note 4: unknown kind "effects"`},
		{"task 2^40", replace(`"kind":"effect","task":2`, `"kind":"effect","task":1099511627776`), "entry 7: note 4 (effect): task 1099511627776, want 1..3"},
		{"n -1", replace(`"n":3,`, `"n":-1,`), "entry 6: note n -1, want 1 or more"},
		{"duplicate key", replace(`{"scenario":"stray","run":"r"`, `{"scenario":"stray","run":"r","run":"s"`), `"run"`},
		{"duplicate key in an entry", replace(`"n":3,`, `"n":3,"n":4,`), `"n"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.json")
			if err := os.WriteFile(path, []byte(tc.log), 0o644); err != nil {
				t.Fatal(err)
			}
			code, out, errs := run("judge", path)
			if code != 2 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, want 2 and %q\n%s%s", code, tc.want, out, errs)
			}
			if tc.name != "cv entries null" && tc.name != "cv entries empty" && !strings.Contains(errs, path+":") {
				t.Errorf("no position in %q", errs)
			}
		})
	}
}

// TestCommittedDocsAreCurrent: the generated parts of docs/conformance.md
// and testdata/conformance/table.md are what the committed profiles give.
// After re-recording or a change of the tables' format:
// `go run ./cmd/conformance rejudge --profiles testdata/conformance --update`.
func TestCommittedDocsAreCurrent(t *testing.T) {
	ps, err := baseline.Read(filepath.Join("..", "..", "testdata", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no committed profiles")
	}
	docPath := filepath.Join("..", "..", "docs", "conformance.md")
	doc, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := renderDoc(string(doc), ps)
	if err != nil {
		t.Fatalf("%s: %v", docPath, err)
	}
	if want != string(doc) {
		t.Errorf("%s is not what the committed profiles give (a generated table is stale): run the command in this test's comment", docPath)
	}
	if n := strings.Count(string(doc), cellsPrefix); n < 7 {
		t.Errorf("%s has %d generated cell tables, want at least 7", docPath, n)
	}
	tablePath := filepath.Join("..", "..", "testdata", "conformance", "table.md")
	got, err := os.ReadFile(tablePath)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	harness.Table(&b, ps)
	b.WriteString("\n")
	harness.CellTable(&b, ps)
	if b.String() != string(got) {
		t.Errorf("%s is stale: run the command in this test's comment", tablePath)
	}
}

// TestRenderDocMarkers: a malformed generated block is an error naming
// its line; text outside the markers is kept.
func TestRenderDocMarkers(t *testing.T) {
	p := &harness.Profile{Subject: "s", Version: "1", Store: "sqlite", Cells: []harness.Cell{{
		Name: "cv", Scenario: "cv", Status: map[string]harness.Status{"CV": harness.Holds}, Summary: "1 run, every trace accepted"}}}
	p.Finish()
	table := tableBegin + "\n" + tableEnd + "\n"
	good := "intro\n" + table + "text\n" + cellsPrefix + "s@1/sqlite" + cellsSuffix + "\nold\n" + cellsEnd + "\nafter\n"
	got, err := renderDoc(good, []*harness.Profile{p})
	if err != nil {
		t.Fatal(err)
	}
	wantCells := cellsPrefix + "s@1/sqlite" + cellsSuffix + "\n\n| cell | verdicts | runs |\n|---|---|---|\n| `cv` | CV holds | 1 run, every trace accepted |\n\n" + cellsEnd + "\nafter\n"
	if !strings.HasPrefix(got, "intro\n") || !strings.HasSuffix(got, wantCells) || strings.Contains(got, "\nold\n") {
		t.Errorf("rendered:\n%s", got)
	}
	for _, tc := range []struct{ doc, want string }{
		{"no markers\n", "no table markers"},
		{table + "a\n" + cellsPrefix + "s@1/sqlite -->\n" + cellsEnd, "line 4: a cells marker is"},
		{table + cellsPrefix + "s@1/sqlite" + cellsSuffix + "\nno end\n", "line 3: the cells of s@1/sqlite have no"},
		{table + cellsPrefix + "x@2/sqlite" + cellsSuffix + "\n" + cellsEnd, "line 3: cells of x@2/sqlite: no such profile"},
		{table + cellsPrefix + "s@1/sqlite" + cellsSuffix + "\n" + cellsPrefix + "s@1/sqlite" + cellsSuffix + "\n" + cellsEnd, "line 3: the cells of s@1/sqlite end after the next cells marker"},
	} {
		if _, err := renderDoc(tc.doc, []*harness.Profile{p}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.doc, err, tc.want)
		}
	}
}

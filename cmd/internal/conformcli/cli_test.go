package conformcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
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
	if code, _, errs := run("run", "--grid", "huge", "--registry", "../../../adapters/subjects.json"); code != ExitUsage {
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
	log := sealed(t, judgeLog)
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

// sealed is the log text with the end mark the runner writes over its
// content (as decoded: a key given twice counts once, last wins), added at
// its end, where the runner writes it; the text before is kept byte for
// byte, and with it the positions of its entries.
func sealed(t *testing.T, text string) string {
	t.Helper()
	var l harness.RunLog
	if err := json.Unmarshal([]byte(text), &l); err != nil {
		t.Fatalf("sealed: %v", err)
	}
	l.Seal()
	end, err := json.Marshal(l.End)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndex(text, "}")
	return text[:i] + `,"end":` + string(end) + text[i:]
}

// judgeLog is the log of a stray run of the control subject: accepted.
// Its end mark is added by sealed.
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
// line, a log that is empty, cut (in the middle of the text, after a
// complete entry, or by entries removed from a valid log, its end mark
// kept or dropped), has an entry or note of a kind the builder does not
// know, a number out of its range, or a key twice. The old judge accepted
// an emptied log (CV holds on LangGraph's CV run) and a log cut by
// entries, and skipped or used the rest. Each edited log but the cut ones
// is sealed again, so that what refuses it is the check it is about.
func TestJudgeRefuses(t *testing.T) {
	cvPath := filepath.Join("..", "..", "..", "harness", "testdata", "logs", "langgraph-1.2.9-sqlite-cv.json")
	cv, err := os.ReadFile(cvPath)
	if err != nil {
		t.Fatal(err)
	}
	// The whole CV log judges as it did when it ran: rejected, CV
	// violated.
	code, out, errs := run("judge", cvPath)
	if code != ExitOK || !strings.Contains(out, `"verdict": "rejected"`) || !strings.Contains(out, `"CV": "violated"`) {
		t.Fatalf("judge of the whole CV log: exit %d, want 0 and rejected with CV violated\n%s%s", code, out, errs)
	}
	var cvLog harness.RunLog
	if err := json.Unmarshal(cv, &cvLog); err != nil {
		t.Fatal(err)
	}
	withEntries := func(entries string, seal bool) string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cv, &m); err != nil {
			t.Fatal(err)
		}
		m["entries"] = json.RawMessage(entries)
		if seal {
			delete(m, "end")
		}
		b, err := json.MarshalIndent(m, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if seal {
			return sealed(t, string(b))
		}
		return string(b)
	}
	cvCut := func(k int, withEnd bool) string {
		l := cvLog
		l.Entries = l.Entries[:k]
		if !withEnd {
			l.End = nil
		}
		b, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	whole := sealed(t, judgeLog)
	replace := func(old, new string) string {
		if !strings.Contains(judgeLog, old) {
			t.Fatalf("%s is not in the log", old)
		}
		return sealed(t, strings.Replace(judgeLog, old, new, 1))
	}
	for _, tc := range []struct {
		name, log, want string
	}{
		{"cv entries empty", withEntries("[]", true), "no entries"},
		{"cv entries null", withEntries("null", true), "no entries"},
		{"cv entries empty, end mark kept", withEntries("[]", false), "it has 0 entries, its end mark records 23"},
		{"cv cut by entries", cvCut(len(cvLog.Entries)-1, true), "it has 22 entries, its end mark records 23"},
		{"cv cut by entries, end mark dropped", cvCut(len(cvLog.Entries)-1, false), "it has no end mark"},
		{"no end mark", judgeLog, "it has no end mark"},
		{"cut", whole[:len(whole)/2], "cut short"},
		{"cut after an entry", whole[:strings.Index(whole, "\n{\"kind\":\"request\",\"proc\":1,\"role\":\"resume\"")], "cut short"},
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
			if !regexp.MustCompile(regexp.QuoteMeta(path) + `:\d+:\d+: `).MatchString(errs) {
				t.Errorf("no position (%s:LINE:COL) in %q", path, errs)
			}
		})
	}
}

// TestCommittedDocsAreCurrent: the generated parts of docs/conformance.md
// and testdata/conformance/table.md are what the committed profiles give.
// After re-recording or a change of the tables' format:
// `go run ./cmd/conformance rejudge --profiles testdata/conformance --update`.
func TestCommittedDocsAreCurrent(t *testing.T) {
	ps, err := baseline.Read(filepath.Join("..", "..", "..", "testdata", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 {
		t.Fatal("no committed profiles")
	}
	docPath := filepath.Join("..", "..", "..", "docs", "conformance.md")
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
	tablePath := filepath.Join("..", "..", "..", "testdata", "conformance", "table.md")
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

// TestKillPointRefusals: --kill-point runs chosen sweep points again; it
// records no baseline and does not mix with a stride, each refused as a
// usage error before anything runs.
func TestKillPointRefusals(t *testing.T) {
	const point = "after persistence operation put_writes (occurrence 4)"
	for _, args := range [][]string{
		{"run", "--kill-point", point, "--update"},
		{"run", "--kill-point", point, "--sweep-stride", "3"},
	} {
		code, out, errs := run(args...)
		if code != 2 || !strings.Contains(errs, "--kill-point runs chosen points of the sweep again") {
			t.Errorf("%q: exit %d, want 2 and the reason\n%s%s", args, code, out, errs)
		}
	}
}

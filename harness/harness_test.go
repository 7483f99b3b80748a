package harness

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidateState(t *testing.T) {
	w := Workflow{Tasks: 3, Gate: 2, Values: []string{"va", "vb"}}
	for _, tc := range []struct {
		state string
		bad   string // "" when valid
	}{
		{`{"input":"r-1","last":1}`, ""},
		{`{"input":"r-1","last":2,"approval":"va","outcome":["va"]}`, ""},
		{`{"input":"r-1","last":3,"approval":null,"outcome":null}`, ""},
		{`{"input":"r-1","last":"invalid"}`, "last"},
		{`{"input":"r-1","last":4}`, "last"},
		{`{"input":"R 1","last":1}`, "input"},
		{`{"input":"r","last":2,"approval":"vc"}`, "approval"},
		{`{"input":"r","last":2,"outcome":"va"}`, "outcome"},
		{`{"input":"r","last":2,"outcome":["vc"]}`, "outcome"},
		{`{"input":"r","last":2,"extra":1}`, "extra"},
		{`[1]`, "object"},
	} {
		err := w.ValidateState(json.RawMessage(tc.state))
		switch {
		case tc.bad == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.state, err)
		case tc.bad != "" && (err == nil || !strings.Contains(err.Error(), tc.bad)):
			t.Errorf("%s: error %v, want one about %s", tc.state, err, tc.bad)
		}
	}
}

func TestCount(t *testing.T) {
	k := func(s string) *string { return &s }
	rows := []Effect{
		{Task: 1, Branch: MainBranch},
		{Task: 2, Branch: MainBranch, Key: k("a")},
		{Task: 2, Branch: MainBranch, Key: k("a")}, // a re-delivery under the same key
		{Task: 2, Branch: MainBranch},              // no key: applied again
		{Task: 3, Branch: "r2"},
	}
	c := Count(rows, 3)
	if got, want := c.Applied, []int{1, 2, 0}; !equal(got, want) {
		t.Errorf("applied %v, want %v", got, want)
	}
	if got, want := c.Delivered, []int{1, 3, 0}; !equal(got, want) {
		t.Errorf("delivered %v, want %v", got, want)
	}
	if c.Other["r2"] != 1 {
		t.Errorf("other %v", c.Other)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseMessage(t *testing.T) {
	for _, tc := range []struct{ line, err string }{
		{`{"type":"hello","protocol":1,"subject":"x","version":"1","features":{}}`, ""},
		{`{"type":"hello","protocol":2,"subject":"x","version":"1","features":{}}`, "protocol 2"},
		{`{"type":"reply","id":3,"ok":true,"status":"parked"}`, ""},
		{`{"type":"reply","id":3,"ok":false}`, "no error"},
		{`{"type":"note","n":1,"kind":"effect"}`, "without a task"},
		{`{"type":"note","n":1,"kind":"persist","op":"put"}`, ""},
		{`{"type":"note","n":1,"kind":"oops"}`, "unknown kind"},
		{`hello`, "not a JSON object"},
		{`{"type":"log"}`, "unknown message type"},
	} {
		_, err := ParseMessage([]byte(tc.line))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.line, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.line, err, tc.err)
		}
	}
}

// TestRegistry: the committed registry is valid, and a bad one says
// which entry.
func TestRegistry(t *testing.T) {
	r, err := ReadRegistry("../adapters/subjects.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Find("sequencer")) != 1 || !r.Find("sequencer")[0].Control {
		t.Errorf("the registry has no control subject named sequencer")
	}
	bad := Registry{Subjects: []Subject{{Name: "x", Version: "latest", Command: []string{"x"}, Stores: []string{"sqlite"}}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "exact version") {
		t.Errorf("a version 'latest': %v", err)
	}
	bad = Registry{Subjects: []Subject{{Name: "x", Version: "1", Command: []string{"x"}, Stores: []string{"sqlite"}, Interpreted: map[string]string{"XX": "a guess"}}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "interpreted names an obligation that does not exist") {
		t.Errorf("an interpreted obligation XX: %v", err)
	}
}

func TestDiffAndTable(t *testing.T) {
	mk := func(st Status) *Profile {
		p := &Profile{Subject: "s", Version: "1", Store: "sqlite", Cells: []Cell{{Name: "fd", Measures: []string{"FD"}, Runs: []RunVerdict{{Obligations: map[string]Status{"FD": st}}}}}}
		p.Cells[0].Aggregate()
		p.Finish()
		return p
	}
	base, now := mk(Holds), mk(Violated)
	ch := Diff([]*Profile{base}, []*Profile{now})
	var lines []string
	for _, c := range ch {
		lines = append(lines, c.String())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"s@1/sqlite FD: holds -> violated", "s@1/sqlite cell fd FD: holds -> violated"} {
		if !strings.Contains(got, want) {
			t.Errorf("diff %q lacks %q", got, want)
		}
	}
	if d := Diff([]*Profile{base}, []*Profile{mk(Holds)}); len(d) != 0 {
		t.Errorf("equal profiles differ: %v", d)
	}
	var b strings.Builder
	Table(&b, []*Profile{now})
	if !strings.Contains(b.String(), "| s@1/sqlite | n/a | n/a | **violated** |") {
		t.Errorf("table:\n%s", b.String())
	}
}

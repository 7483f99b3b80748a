package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateExplorer = flag.Bool("update-explorer", false, "rewrite docs/explorer.html")

func explorerData(t *testing.T) *explorer {
	t.Helper()
	p, err := Explore(ExploreOptions{SpecDir: "../spec"})
	if err != nil {
		t.Fatal(err)
	}
	return p.v.Data.(*explorer)
}

// walkTo follows labels from model name's initial state as the page's
// script does; it returns the states visited, or the index of the first
// label that is not enabled.
func walkTo(ex *explorer, name string, labels []string) (states []exploreState, stuckAt int) {
	i := slices.IndexFunc(ex.Models, func(m exploreModel) bool { return m.Name == name })
	if i < 0 {
		return nil, 0
	}
	m := ex.Models[i]
	cur := 0
	states = append(states, m.States[0])
	for k, l := range labels {
		next := -1
		for _, t := range m.States[cur].T {
			if ex.Strs[t[0]] == l {
				next = t[1]
				break
			}
		}
		if next < 0 {
			return states, k
		}
		cur = next
		states = append(states, m.States[cur])
	}
	return states, -1
}

func badNames(ex *explorer, s exploreState) []string {
	var out []string
	for _, b := range s.Bad {
		out = append(out, ex.Strs[b[0]])
	}
	return out
}

// TestExplorerLinks follows every explorer link of docs/contract.md
// through the page's data: each step must be enabled, and the walk must end
// in a state that violates the obligation of the section it is in; the
// same steps in the reference model must not.
func TestExplorerLinks(t *testing.T) {
	ex := explorerData(t)
	doc, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(explorer\.html#([^)\s]+)\)`)
	section := ""
	links := 0
	for _, line := range strings.Split(string(doc), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			section = strings.TrimSuffix(strings.Fields(h)[0], ",")
			if section == "The" { // "The clauses, and fork intent": nointent breaks CO
				section = "CO"
			}
			continue
		}
		for _, m := range link.FindAllStringSubmatch(line, -1) {
			links++
			q, err := url.ParseQuery(m[1])
			if err != nil {
				t.Errorf("%s: %v", m[1], err)
				continue
			}
			labels := strings.Split(q.Get("steps"), ",")
			states, stuck := walkTo(ex, q.Get("fault"), labels)
			if states == nil {
				t.Errorf("%s: no model %q in the explorer", m[1], q.Get("fault"))
				continue
			}
			if stuck >= 0 {
				t.Errorf("%s: step %d, %s, is not enabled in %s", m[1], stuck+1, labels[stuck], q.Get("fault"))
				continue
			}
			if got := badNames(ex, states[len(states)-1]); !slices.Contains(got, section) {
				t.Errorf("%s (section %s): the walk ends violating %v, want %s", m[1], section, got, section)
			}
			if ref, stuck := walkTo(ex, "reference", labels); stuck < 0 && len(badNames(ex, ref[len(ref)-1])) > 0 {
				t.Errorf("%s: the same steps violate %v in the reference model", m[1], badNames(ex, ref[len(ref)-1]))
			}
		}
	}
	if links < 8 {
		t.Errorf("docs/contract.md has %d explorer links, want one per obligation's story (8)", links)
	}
}

// TestExplorerPage checks the explorer's data: every model of the matrix,
// each state's enabled and disabled actions together covering what the
// spec could do, and a model too large to embed refused with the reason.
func TestExplorerPage(t *testing.T) {
	ex := explorerData(t)
	if len(ex.Models) != 16 {
		t.Errorf("%d models, want the matrix's 16", len(ex.Models))
	}
	for _, m := range ex.Models {
		for id, s := range m.States {
			if len(s.T) == 0 && !s.Done && !s.Stuck {
				t.Errorf("%s state %d: no transition, not complete, not stuck", m.Name, id)
			}
			for _, d := range s.D {
				if ex.Strs[d[1]] == "" {
					t.Errorf("%s state %d: %s is disabled without a reason", m.Name, id, ex.Strs[d[0]])
				}
			}
		}
	}
	if _, err := Explore(ExploreOptions{SpecDir: "../spec", MaxStates: 100}); err == nil || !strings.Contains(err.Error(), "more than 100 states") {
		t.Errorf("a model over the limit: %v", err)
	}
}

// TestExplorerDocIsCurrent keeps docs/explorer.html what tlcrun explore
// writes (go test ./report -run TestExplorerDocIsCurrent -args
// -update-explorer rewrites it).
func TestExplorerDocIsCurrent(t *testing.T) {
	p, err := Explore(ExploreOptions{SpecDir: "../spec"})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if *updateExplorer {
		if err := os.WriteFile("../docs/explorer.html", buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("../docs/explorer.html")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, buf.Bytes()) {
		t.Error("docs/explorer.html is stale; regenerate: go run ./cmd/tlcrun explore --html docs/explorer.html")
	}
}

// TestExplorerDeadEnds checks that a state with no enabled action (every
// completed run, every stuck one) reaches the page as an empty list of
// transitions: null made the page's script throw there, and the walk
// stopped a step short of the Liveness counterexample docs/contract.md
// links.
func TestExplorerDeadEnds(t *testing.T) {
	ex := explorerData(t)
	dead := 0
	for _, m := range ex.Models {
		for _, s := range m.States {
			if len(s.T) == 0 {
				dead++
			}
		}
	}
	if dead == 0 {
		t.Fatal("no state without an enabled action: the test shows nothing")
	}
	b, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte(`"t":null`)); n > 0 {
		t.Errorf("%d of the %d dead ends are written \"t\":null", n, dead)
	}
	states, stuckAt := walkTo(ex, "volatilepark", []string{"ExecTask", "EmitInterrupt", "CrashRecover(skip)"})
	if stuckAt >= 0 {
		t.Fatalf("the Liveness walk of docs/contract.md stops at its step %d", stuckAt)
	}
	if last := states[len(states)-1]; !last.Stuck || len(last.T) != 0 {
		t.Errorf("the Liveness walk ends in a state stuck=%v with %d transitions, want a dead end that can never complete", last.Stuck, len(last.T))
	}
}

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tlaspec"
)

// specPage writes the explorer of the model of cfg (through the Go
// mirror when mirror is set, else the TLA+ interpreter) and reads its
// data back from the page, as the page's script does.
func specPage(t *testing.T, cfg string, mirror bool, opt SpecExploreOptions) (*specExplorer, []byte) {
	t.Helper()
	sp, n := specAny(t, cfg, mirror)
	p, err := ExploreSpec(sp, opt)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="report-data">(.*?)</script>`).FindSubmatch(buf.Bytes())
	if m == nil {
		t.Fatal("the page has no data")
	}
	var ex specExplorer
	if err := json.Unmarshal(m[1], &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.States) != n {
		t.Errorf("%s: the page has %d states, the checker finds %d", cfg, len(ex.States), n)
	}
	return &ex, buf.Bytes()
}

// specAny loads cfg's model and counts its distinct states with the
// engine (independently of the explorer's own search).
func specAny(t *testing.T, cfg string, mirror bool) (tlaspec.Any, int) {
	t.Helper()
	var job *check.Job
	var err error
	if mirror {
		job, err = check.Load(cfg, "")
	} else {
		job, err = check.LoadInterpreted(cfg, "")
	}
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(context.Background(), check.RunOptions{Workers: 1, Continue: true})
	if err != nil {
		t.Fatal(err)
	}
	if mirror {
		return job.Other().Any(), int(rep.Distinct)
	}
	return job.InterpretedAny(), int(rep.Distinct)
}

// vals is a state's variables as "name = value" lines.
func (ex *specExplorer) vals(id int) string {
	var sb strings.Builder
	for i, v := range ex.States[id].V {
		fmt.Fprintf(&sb, "%s = %s\n", ex.Vars[i], ex.Strs[v])
	}
	return sb.String()
}

// step is the target of the transition labelled label from state id (-1:
// none is enabled).
func (ex *specExplorer) step(id int, label string) int {
	for _, t := range ex.States[id].T {
		if ex.Strs[t[0]] == label {
			return t[1]
		}
	}
	return -1
}

// disabled is why label is not enabled in state id ("": it is, or it is
// not listed).
func (ex *specExplorer) disabled(id int, label string) string {
	for _, d := range ex.States[id].D {
		if ex.Strs[d[0]] == label {
			return ex.Strs[d[1]]
		}
	}
	return ""
}

// graph is the page's whole graph in terms of values, for comparing two
// pages whose states are numbered differently: each state with its
// violated invariants, goal and stuck marks, and each transition.
func (ex *specExplorer) graph() []string {
	var out []string
	for id, s := range ex.States {
		var bad []string
		for _, b := range s.Bad {
			bad = append(bad, ex.Strs[b])
		}
		out = append(out, fmt.Sprintf("state %q bad %v goal %v stuck %v", ex.vals(id), bad, s.Goal, s.Stuck))
		for _, t := range s.T {
			out = append(out, fmt.Sprintf("step %q -%s-> %q", ex.vals(id), ex.Strs[t[0]], ex.vals(t[1])))
		}
	}
	slices.Sort(out)
	return out
}

// TestExploreSpecTwoPhase: the explorer of examples/twophase/TwoPhase.cfg
// through its Go mirror, walked as the page's script walks it, and the
// same page through the interpreter: the same graph, the same violations
// and liveness marks.
func TestExploreSpecTwoPhase(t *testing.T) {
	cfg := "../examples/twophase/TwoPhase.cfg"
	ex, page := specPage(t, cfg, true, SpecExploreOptions{Cfg: cfg, Engine: "the Go mirror"})
	if ex.Module != "TwoPhase" || len(ex.Init) != 1 || ex.Liveness == nil || ex.Liveness.Name != "Liveness" {
		t.Fatalf("module %s, initial states %v, liveness %v", ex.Module, ex.Init, ex.Liveness)
	}
	if got := strings.Join(ex.Vars, " "); got != "rmState tmState tmPrepared msgs" {
		t.Errorf("vars %s", got)
	}
	init := ex.Init[0]
	want := "rmState = (r1 :> \"working\" @@ r2 :> \"working\" @@ r3 :> \"working\")\ntmState = \"init\"\ntmPrepared = {}\nmsgs = {}\n"
	if got := ex.vals(init); got != want {
		t.Errorf("the initial state:\n%s\nwant\n%s", got, want)
	}
	// TMCommit is not enabled before every RM has prepared: the guard's
	// words, from the mirror.
	if why := ex.disabled(init, "TMCommit"); !strings.Contains(why, "tmPrepared # RM") {
		t.Errorf("TMCommit at the start: %q", why)
	}
	// Walk to a commit.
	cur := init
	for _, l := range []string{"RMPrepare(r1)", "RMPrepare(r2)", "RMPrepare(r3)", "TMRcvPrepared(r1)", "TMRcvPrepared(r2)", "TMRcvPrepared(r3)", "TMCommit", "RMRcvCommitMsg(r1)", "RMRcvCommitMsg(r2)"} {
		next := ex.step(cur, l)
		if next < 0 {
			t.Fatalf("%s is not enabled in\n%s(disabled: %q)", l, ex.vals(cur), ex.disabled(cur, l))
		}
		cur = next
	}
	if !strings.Contains(ex.vals(cur), `tmState = "committed"`) || ex.States[cur].Goal || ex.States[cur].Stuck {
		t.Errorf("after the commit and two RMs:\n%s goal %v stuck %v", ex.vals(cur), ex.States[cur].Goal, ex.States[cur].Stuck)
	}
	if ex.step(cur, "RMRcvAbortMsg(r3)") >= 0 || ex.disabled(cur, "RMRcvAbortMsg(r3)") == "" {
		t.Errorf("RMRcvAbortMsg(r3) after a commit: not said to be disabled")
	}
	last := ex.step(cur, "RMRcvCommitMsg(r3)")
	if last < 0 || !ex.States[last].Goal || len(ex.States[last].T) != 0 {
		t.Errorf("every RM committed: goal %v, transitions %v", last >= 0 && ex.States[last].Goal, ex.States[max(last, 0)].T)
	}
	for id, s := range ex.States {
		if len(s.Bad) > 0 || s.Stuck {
			t.Errorf("TwoPhase as designed: state %d violates %v, stuck %v", id, s.Bad, s.Stuck)
		}
	}
	for _, w := range []string{`id="explorer"`, `id="ex-enabled"`, "Explore TwoPhase", "specexplorer", "the Go mirror"} {
		if w == "specexplorer" {
			w = "The explorer of any spec"
		}
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("the page lacks %q", w)
		}
	}
	if bytes.Contains(page, []byte("http://")) || bytes.Contains(page, []byte("https://")) {
		t.Error("the page names a URL: it must load nothing")
	}

	iex, _ := specPage(t, cfg, false, SpecExploreOptions{Cfg: cfg})
	if a, b := ex.graph(), iex.graph(); !slices.Equal(a, b) {
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("the mirror's and the interpreter's pages differ (%d and %d lines); first:\n%s\n%s", len(a), len(b), a[i], b[i])
			}
		}
		t.Fatalf("the mirror's and the interpreter's pages differ: %d and %d lines", len(a), len(b))
	}
	if why := iex.disabled(iex.Init[0], "TMCommit"); !strings.Contains(why, "TMCommit is not enabled") {
		t.Errorf("TMCommit at the start, through the interpreter: %q", why)
	}

	// The fault: the early commit breaks Consistent, and a state that
	// violates it says so.
	early, _ := specPage(t, "../examples/twophase/TwoPhase-early.cfg", true, SpecExploreOptions{})
	broken := 0
	for _, s := range early.States {
		for _, b := range s.Bad {
			if early.Strs[b] == "Consistent" {
				broken++
			}
		}
	}
	if broken == 0 {
		t.Error("TwoPhase-early: no state violates Consistent")
	}
}

// TestExploreSpecInterpreted: a small spec with no mirror (testdata/hop):
// two initial states, the invariant the top violates, the goal, the trap
// from which it is unreachable, and the constraint applied.
func TestExploreSpecInterpreted(t *testing.T) {
	cfg := "testdata/hop/Hop.cfg"
	ex, _ := specPage(t, cfg, false, SpecExploreOptions{Cfg: cfg})
	if len(ex.Init) != 2 || len(ex.States) != 5 {
		t.Fatalf("initial states %v, %d states", ex.Init, len(ex.States))
	}
	if got := ex.vals(ex.Init[0]) + ex.vals(ex.Init[1]); got != "x = 0\ntrapped = FALSE\nx = 1\ntrapped = FALSE\n" {
		t.Errorf("the initial states:\n%s", got)
	}
	one := ex.Init[1]
	trap := ex.step(one, "Trap")
	if trap < 0 || !ex.States[trap].Stuck || ex.States[trap].Goal || len(ex.States[trap].T) != 0 {
		t.Fatalf("the trap: %+v", ex.States[max(trap, 0)])
	}
	if why := ex.disabled(trap, "Up"); !strings.Contains(why, "Up is not enabled") {
		t.Errorf("Up in the trap: %q", why)
	}
	if why := ex.disabled(ex.Init[0], "Trap"); why == "" {
		t.Error("Trap at x = 0 is not said to be disabled")
	}
	top := ex.step(ex.step(one, "Up"), "Up")
	if top < 0 || !ex.States[top].Goal || ex.States[top].Stuck || len(ex.States[top].Bad) != 1 || ex.Strs[ex.States[top].Bad[0]] != "BelowTop" {
		t.Errorf("the top: %+v", ex.States[max(top, 0)])
	}
	for _, id := range []int{ex.Init[0], one} {
		if ex.States[id].Stuck || len(ex.States[id].Bad) > 0 {
			t.Errorf("initial state %d: %+v", id, ex.States[id])
		}
	}

	// The constraint keeps x below 2: three states, the transitions to the
	// others left out, and Up at x = 1 said to lead outside.
	sp, _ := specAny(t, cfg, false)
	below2 := func(s tlaspec.State) bool {
		x, ok := s.(interp.State).Vals[0].(eval.Int)
		return ok && x < 2
	}
	p, err := ExploreSpec(sp, SpecExploreOptions{Keep: below2})
	if err != nil {
		t.Fatal(err)
	}
	cex := p.v.Data.(*specExplorer)
	if len(cex.States) != 3 || cex.disabled(cex.Init[1], "Up") != "its successors are outside the model's constraint" {
		t.Errorf("under the constraint: %d states, Up at 1: %q", len(cex.States), cex.disabled(cex.Init[1], "Up"))
	}
}

// TestExploreSpecTooLarge: a model with more states than MaxStates is
// refused with ErrExploreTooLarge.
func TestExploreSpecTooLarge(t *testing.T) {
	sp, _ := specAny(t, "../examples/twophase/TwoPhase.cfg", true)
	_, err := ExploreSpec(sp, SpecExploreOptions{MaxStates: 100})
	if !errors.Is(err, ErrExploreTooLarge) || !strings.Contains(err.Error(), "more than 100 reachable states") {
		t.Errorf("err = %v", err)
	}
	if _, err := ExploreSpec(sp, SpecExploreOptions{MaxStates: 288}); err != nil {
		t.Errorf("288 states at most 288: %v", err)
	}
}

// TestSpecExplorerStories: every transition of another spec's explorer
// says in words what it does (the walk's "what happened" column, which
// the Resume explorer had and this one lacked): its label, then each
// place the variables change, down to a function's entries and a set's
// elements; the same change reads the same wherever it is taken.
func TestSpecExplorerStories(t *testing.T) {
	ex, _ := specPage(t, "../examples/twophase/TwoPhase.cfg", true, SpecExploreOptions{})
	n := 0
	for id, st := range ex.States {
		for _, tr := range st.T {
			n++
			label, story := ex.Strs[tr[0]], ex.Strs[tr[2]]
			if !strings.HasPrefix(story, label+": ") || !strings.HasSuffix(story, ".") || len(story) < len(label)+12 {
				t.Fatalf("state %d, %s: the story is %q", id, label, story)
			}
		}
	}
	if n == 0 {
		t.Fatal("no transition")
	}
	const want = `RMPrepare(r1): rmState[r1] goes from "working" to "prepared"; msgs gains [rm |-> r1, type |-> "Prepared"].`
	if to := ex.step(ex.Init[0], "RMPrepare(r1)"); to < 0 {
		t.Fatal("RMPrepare(r1) is not enabled initially")
	}
	for _, tr := range ex.States[ex.Init[0]].T {
		if got := ex.Strs[tr[2]]; ex.Strs[tr[0]] == "RMPrepare(r1)" && got != want {
			t.Errorf("RMPrepare(r1) from the initial state: %q, want %q", got, want)
		}
	}
}

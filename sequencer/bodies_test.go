package sequencer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// rememberedRun is the facts of a run with a fact of every kind:
// started, recovered while parked, resumed, forked, resumed after
// completion (a stray).
func rememberedRun(t *testing.T) (*Workflow, []Fact, *Sequencer) {
	t.Helper()
	ctx := context.Background()
	wf := &Workflow{Name: "w", Gate: 2, Values: []string{"va", "vb"}, Schema: Schema{"n": `[0-9]+`}}
	for range 3 {
		wf.Tasks = append(wf.Tasks, Task{Name: "t", Run: func(ctx context.Context, in TaskInput) (TaskOutput, error) {
			return TaskOutput{State: State{"n": "1"}, Outcome: []string{in.Value}}, nil
		}})
	}
	st := NewMemStore()
	s, err := New(st, wf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Start(ctx, "r", State{"n": "0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Recover(ctx, "r"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resume(ctx, "r", "va", Ordinary); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resume(ctx, "r", "vb", Fork); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resume(ctx, "r", "vb", Ordinary); !errors.Is(err, ErrCompleted) {
		t.Fatalf("a resume after completion: %v, want ErrCompleted", err)
	}
	facts, err := st.Load(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	return wf, facts, s
}

// viewOpts compare two durable views by what decisions read.
var viewOpts = cmpopts.IgnoreUnexported(Durable{}, EventHead{})

// TestRememberedBodies: a view built from remembered bodies is the view
// decoding builds, whichever view was changed in between, and a body
// that changed after it was remembered is decoded again (a damaged row
// is still caught).
func TestRememberedBodies(t *testing.T) {
	wf, facts, s := rememberedRun(t)
	// What the sequencer remembered while it ran (events it encoded
	// itself among them) is what decoding gives.
	for body, v := range s.bodies.m {
		want, err := decodeBody(v.kind, []byte(body), wf.Schema)
		if err != nil {
			t.Fatalf("remembered %s body %s does not decode: %v", v.kind, body, err)
		}
		if diff := cmp.Diff(want, v.v, cmp.AllowUnexported(validRecord{}), cmpopts.IgnoreUnexported(EventHead{})); diff != "" {
			t.Fatalf("remembered %s body %s (-decoded +remembered):\n%s", v.kind, body, diff)
		}
	}
	kinds := map[string]bool{}
	for _, f := range facts {
		kinds[f.Kind] = true
	}
	for _, k := range []string{kindRun, kindRecord, kindClaim, kindPark, kindGrant, kindResume, kindFork, kindRefusal, kindRecovery, kindOwner, kindEvent} {
		if !kinds[k] {
			t.Errorf("the run has no %s fact", k)
		}
	}
	want, err := parseFacts("r", facts, wf.Schema)
	if err != nil {
		t.Fatal(err)
	}
	m := newBodies(wf.Schema)
	for i := range 3 {
		got, err := parseFactsWith("r", facts, wf.Schema, m)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, viewOpts); diff != "" {
			t.Fatalf("parse %d through remembered bodies (-decoded +remembered):\n%s", i+1, diff)
		}
		// What a caller may do with a view it was given (Status.State,
		// History): the next view must not see it.
		got.Def.Input["n"] = "changed"
		got.Def.Values[0] = "changed"
		got.Records[0][0].State["n"] = "changed"
		got.Records[0][1].Outcome[0] = "changed"
		got.Resumes[0].Observed[0] = "changed"
	}
	if len(m.m) == 0 {
		t.Fatal("nothing was remembered")
	}

	// A record rewritten after it was remembered: the new body is read.
	i := slices.IndexFunc(facts, func(f Fact) bool { return f.Kind == kindRecord })
	changed := slices.Clone(facts)
	changed[i].Body = []byte(`{"task":1,"state":{"n":"not a number"}}`)
	d, err := parseFactsWith("r", changed, wf.Schema, m)
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Records[0][0]; r.Valid || r.State["n"] != "not a number" {
		t.Errorf("rewritten record read as %+v, want its new state, invalid", r)
	}
	for _, body := range []string{`{"action":`, `{"task":"one"}`} {
		changed[i].Body = []byte(body)
		if _, err := parseFactsWith("r", changed, wf.Schema, m); !errors.Is(err, ErrCorrupt) {
			t.Errorf("record body %s: %v, want ErrCorrupt", body, err)
		}
	}
	// The same body under another kind is decoded as that kind.
	j := slices.IndexFunc(facts, func(f Fact) bool { return f.Kind == kindPark })
	changed = slices.Clone(facts)
	changed[j].Body = facts[i].Body
	if d, err := parseFactsWith("r", changed, wf.Schema, m); err != nil || d.Parks[int(changed[j].K1)] != 1 {
		t.Errorf("a park with a record's body (task 1): %v, parks %v", err, d.Parks)
	}
	changed[j] = Fact{Kind: kindOwner, K1: 7, K2: 1, Body: facts[i].Body}
	if d, err := parseFactsWith("r", changed, wf.Schema, m); err != nil || !slices.ContainsFunc(d.Owners, func(o Owner) bool { return o.Branch == 7 }) {
		t.Errorf("an owner of branch 7 with a record's body: %v", err)
	}
}

// TestRememberedBodiesBounded: the memory of bodies starts again when
// it holds too many bodies or too many bytes, and does not hold a body
// above maxBodyBytes.
func TestRememberedBodiesBounded(t *testing.T) {
	m := newBodies(nil)
	for n := range maxBodies + 10 {
		if _, err := m.decode(kindPark, fmt.Appendf(nil, `{"task":%d}`, n)); err != nil {
			t.Fatal(err)
		}
		if len(m.m) > maxBodies {
			t.Fatalf("%d bodies remembered, at most %d", len(m.m), maxBodies)
		}
	}
	pad := strings.Repeat(" ", maxBodyBytes-20)
	for n := range 2 * maxBodiesSize / maxBodyBytes {
		if _, err := m.decode(kindPark, fmt.Appendf(nil, `{"task":%d}%s`, n, pad)); err != nil {
			t.Fatal(err)
		}
		size := 0
		for body := range m.m {
			size += len(body)
		}
		if size != m.bytes || size > maxBodiesSize {
			t.Fatalf("%d bytes of bodies remembered (counted %d), at most %d", size, m.bytes, maxBodiesSize)
		}
	}
	big := fmt.Appendf(nil, `{"task":1}%s`, strings.Repeat(" ", maxBodyBytes))
	if _, err := m.decode(kindPark, big); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.m[string(big)]; ok {
		t.Fatalf("a body of %d bytes was remembered, above %d", len(big), maxBodyBytes)
	}
}

package interp

import (
	"context"
	"testing"

	"github.com/resumecontract/resumecheck/engine"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
)

func load(t *testing.T, spec, cfgPath string) *Spec { return loadB(t, spec, cfgPath) }

func loadB(t testing.TB, spec, cfgPath string) *Spec {
	t.Helper()
	cfg, err := tlacfg.ParseFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := Load(spec, nil, Config(cfg))
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestResumeR0(t *testing.T) {
	sp := load(t, "../../spec/Resume.tla", "../../spec/R0.cfg")
	var inv []engine.Invariant[State]
	for _, p := range sp.Properties() {
		if p.Holds != nil {
			inv = append(inv, engine.Invariant[State]{Name: p.Name, Holds: p.Holds})
		}
	}
	res, err := engine.Check[State, Label](context.Background(), sp, engine.Options[State]{Invariants: inv, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%v generated %d distinct %d depth %d", res.Verdict, res.Generated, res.Distinct, res.Depth)
	if res.Generated != 87 || res.Distinct != 59 || res.Depth != 8 {
		t.Errorf("R0: %d/%d/%d, want 87/59/8", res.Generated, res.Distinct, res.Depth)
	}
	// A state is 4 bytes a variable, 15 variables: wider than the 16
	// bytes the engine stores as they are, so it keeps a 128-bit
	// fingerprint of each.
	if sp.Width() <= 16 || res.Lossless || res.Fingerprints() != "128-bit fingerprints" || res.CollisionProbability() > 1e-30 {
		t.Errorf("R0: width %d, %s, collision probability %g; want 128-bit fingerprints", sp.Width(), res.Fingerprints(), res.CollisionProbability())
	}
}

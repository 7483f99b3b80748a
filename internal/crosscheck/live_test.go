package crosscheck

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/internal/tlc"
)

// needTLC skips the test, saying why, unless TLC can run here (see tlcrun
// doctor). Nothing is downloaded.
func needTLC(t *testing.T) {
	t.Helper()
	if _, err := tlc.Find(context.Background(), "", ""); err != nil {
		if errors.Is(err, tlc.ErrUnavailable) {
			t.Skipf("TLC not found, so not compared with it (set TLA2TOOLS_JAR to tla2tools.jar; see tlcrun doctor):\n%v", err)
		}
		t.Fatal(err)
	}
}

// TestManifestWithTLC measures every quick model of spec/manifest.json
// with TLC and compares it with what the manifest records (which the Go
// engine is checked against by tlcrun verify): the verdict, the first
// violation and its length, every violated property, and the counts of
// the whole state space.
func TestManifestWithTLC(t *testing.T) {
	needTLC(t)
	if testing.Short() {
		t.Skip("-short: the manifest with TLC takes minutes")
	}
	man, err := check.LoadManifest(filepath.Join("..", "..", "spec", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range man.Models {
		if e.Tier != "quick" {
			continue
		}
		t.Run(e.Cfg, func(t *testing.T) {
			t.Parallel()
			m, err := MeasureTLC(context.Background(), man.CfgPath(e), man.SpecPath(), Options{}, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range check.Diff(e.Expect, m.Found) {
				t.Errorf("%s: %s (TLC, %d runs)", e.Cfg, d, m.Runs)
			}
		})
	}
}

// TestBothLive runs both engines on the reference bounds and the liveness
// fault, comparing the state sets too.
func TestBothLive(t *testing.T) {
	needTLC(t)
	for _, cfg := range []string{"R0.cfg", "fault-volatilepark.cfg"} {
		t.Run(cfg, func(t *testing.T) {
			c, err := Both(context.Background(), load(t, cfg), Options{CompareStates: true})
			if err != nil {
				t.Fatal(err)
			}
			if !c.Agree() {
				t.Errorf("the engines disagree: %q, states %+v", c.Differences, c.States)
			}
			if c.States == nil || c.States.Go != int(c.Go.Found.Distinct) {
				t.Errorf("states %+v, distinct %d", c.States, c.Go.Found.Distinct)
			}
		})
	}
}

package matrixtlc

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

// TestTLCAgrees builds part of the matrix with TLC, where TLC is found, and
// requires every cell to equal the Go engine's, and each row's state set
// (compared as tlcrun matrix --engine both does by default). The rebuild
// row is the one where a model that records a rebuild recovery as "skip"
// keeps every figure and differs only in its states.
func TestTLCAgrees(t *testing.T) {
	if os.Getenv("TLA2TOOLS_JAR") == "" {
		t.Skip("TLC not found: set TLA2TOOLS_JAR to a tla2tools.jar to compare the matrix with TLC's")
	}
	if testing.Short() {
		t.Skip("runs TLC once per cell")
	}
	only := []string{"reference", "redeliver", "volatilepark", "rebuild"}
	tlcRes, err := matrix.Build(context.Background(), "../../../../spec", matrix.Options{Engine: "tlc", Only: only, Check: Checker(tlc.Options{}, true)})
	if err != nil {
		t.Fatalf("matrix with TLC: %v", err)
	}
	for _, r := range tlcRes.Rows {
		if r.States == nil {
			t.Errorf("%s: state sets not compared", r.Name)
			continue
		}
		if !r.States.Equal() {
			t.Errorf("%s: state sets differ: %+v", r.Name, r.States)
		}
		if r.States.Go <= 0 {
			t.Errorf("%s: no states compared: the Go model has %d, want more than 0", r.Name, r.States.Go)
		}
		if r.States.Go != r.States.TLC {
			t.Errorf("%s: state counts: Go has %d, TLC %d", r.Name, r.States.Go, r.States.TLC)
		}
		t.Logf("%s: %d states in both (TLC %d, Go %d)", r.Name, r.States.Go, r.States.TLC, r.States.Go)
	}
	goRes, err := matrix.Build(context.Background(), "../../../../spec", matrix.Options{Only: only})
	if err != nil {
		t.Fatalf("matrix with the Go engine: %v", err)
	}
	if len(tlcRes.Rows) != len(only) {
		t.Fatalf("TLC's matrix has %d rows, want %d (%v)", len(tlcRes.Rows), len(only), only)
	}
	if d := matrix.Differences(goRes, tlcRes); len(d) != 0 {
		t.Errorf("the Go and TLC matrices differ, want no differences:\n%s", strings.Join(d, "\n"))
	}
}

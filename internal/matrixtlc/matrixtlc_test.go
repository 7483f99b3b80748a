package matrixtlc

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/resumecontract/resumecheck/internal/tlc"
	"github.com/resumecontract/resumecheck/matrix"
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
	tlcRes, err := matrix.Build(context.Background(), "../../spec", matrix.Options{Engine: "tlc", Only: only, Check: Checker(tlc.Options{}, true)})
	require.NoError(t, err)
	for _, r := range tlcRes.Rows {
		if assert.NotNil(t, r.States, "%s: state sets not compared", r.Name) {
			assert.True(t, r.States.Equal(), "%s: state sets differ: %+v", r.Name, r.States)
			assert.Positive(t, r.States.Go, "%s: no states compared", r.Name)
			assert.Equal(t, r.States.TLC, r.States.Go, "%s: state counts", r.Name)
			t.Logf("%s: %d states in both (TLC %d, Go %d)", r.Name, r.States.Go, r.States.TLC, r.States.Go)
		}
	}
	goRes, err := matrix.Build(context.Background(), "../../spec", matrix.Options{Only: only})
	require.NoError(t, err)
	require.Len(t, tlcRes.Rows, len(only))
	assert.Empty(t, matrix.Differences(goRes, tlcRes))
}

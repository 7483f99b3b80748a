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
// requires every cell to equal the Go engine's.
func TestTLCAgrees(t *testing.T) {
	if os.Getenv("TLA2TOOLS_JAR") == "" {
		t.Skip("TLC not found: set TLA2TOOLS_JAR to a tla2tools.jar to compare the matrix with TLC's")
	}
	if testing.Short() {
		t.Skip("runs TLC once per cell")
	}
	only := []string{"reference", "redeliver", "volatilepark"}
	tlcRes, err := matrix.Build(context.Background(), "../../spec", matrix.Options{Engine: "tlc", Only: only, Check: Checker(tlc.Options{}, false)})
	require.NoError(t, err)
	goRes, err := matrix.Build(context.Background(), "../../spec", matrix.Options{Only: only})
	require.NoError(t, err)
	require.Len(t, tlcRes.Rows, len(only))
	assert.Empty(t, matrix.Differences(goRes, tlcRes))
}

package tlcruncli

import (
	"strings"
	"testing"
)

// TestSymmetryHint: matrix points to --symmetry exactly when it is about
// to check other bounds state by state with the Go engine.
func TestSymmetryHint(t *testing.T) {
	for _, tc := range []struct {
		bounds   string
		symmetry bool
		engine   string
		want     bool
	}{
		{"spec/R8.cfg", false, "go", true},
		{"spec/R8.cfg", false, "both", true},
		{"spec/R8.cfg", true, "go", false},
		{"spec/R8.cfg", false, "tlc", false},
		{"", false, "go", false},
	} {
		got := symmetryHint(tc.bounds, tc.symmetry, tc.engine)
		if (got != "") != tc.want || tc.want && !strings.Contains(got, "--symmetry") {
			t.Errorf("bounds %q, symmetry %v, engine %s: hint %q", tc.bounds, tc.symmetry, tc.engine, got)
		}
	}
}

package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/resumecontract/resumecheck/check"
)

// TestSummarySaysHowStatesWereKept checks the summary's last figures: the
// bytes per state the fingerprint set held, and how the states were kept
// with the collision probability that goes with it (0 when lossless).
func TestSummarySaysHowStatesWereKept(t *testing.T) {
	p := 3.2e-20
	for _, c := range []struct {
		fps  string
		coll *float64
		want string
	}{
		{"lossless", new(float64), "States stored losslessly: collision probability 0."},
		{"128-bit fingerprints", &p, "States stored as 128-bit fingerprints: collision probability (optimistic, TLC's formula over 2^128) 3.2E-20."},
		{"", nil, "Collision probability unknown."},
	} {
		rep := &check.Report{Generated: 87, Distinct: 59, Fingerprints: c.fps, Collision: c.coll,
			Perf: check.Perf{Workers: 1, FingerprintMemory: 32 << 20, FingerprintsHeld: 974816}}
		var b bytes.Buffer
		writeSummary(&b, rep, time.Second)
		out := b.String()
		if !strings.Contains(out, c.want) || !strings.Contains(out, "fingerprints 32.0 MiB for at most 974,816 states, 34.4 bytes each") {
			t.Errorf("%q: summary %q, want %q and the bytes per state", c.fps, out, c.want)
		}
	}
	// A few states: the tables' first size would be the figure.
	rep := &check.Report{Generated: 87, Distinct: 59, Fingerprints: "lossless", Collision: new(float64),
		Perf: check.Perf{Workers: 1, FingerprintMemory: 8 << 20, FingerprintsHeld: 18}}
	var b bytes.Buffer
	writeSummary(&b, rep, time.Second)
	if out := b.String(); strings.Contains(out, "bytes each") || !strings.Contains(out, "fingerprints 8.0 MiB).") {
		t.Errorf("18 states held: summary %q, want no bytes per state", out)
	}
}

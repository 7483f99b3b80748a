package tlcruncli

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
		fps, store string
		coll       *float64
		want, mem  string
	}{
		{"lossless", "16-byte keys", new(float64), "States stored losslessly: collision probability 0.",
			"fingerprints 32.0 MiB as 16-byte keys for at most 974,816 states, 34.4 bytes each"},
		{"lossless", "compact", new(float64), "States stored losslessly: collision probability 0.",
			"fingerprints 32.0 MiB as compact for at most 974,816 states, 34.4 bytes each"},
		{"128-bit fingerprints", "128-bit fingerprints", &p, "States stored as 128-bit fingerprints: collision probability (optimistic, TLC's formula over 2^128) 3.2E-20.",
			"fingerprints 32.0 MiB as 128-bit fingerprints for at most 974,816 states, 34.4 bytes each"},
		{"", "", nil, "Collision probability unknown.", "fingerprints 32.0 MiB for at most 974,816 states, 34.4 bytes each"},
	} {
		rep := &check.Report{Generated: 87, Distinct: 59, Fingerprints: c.fps, Collision: c.coll, Store: c.store,
			Perf: check.Perf{Workers: 1, FingerprintMemory: 32 << 20, FingerprintsHeld: 974816}}
		var b bytes.Buffer
		writeSummary(&b, rep, time.Second)
		out := b.String()
		if !strings.Contains(out, c.want) || !strings.Contains(out, c.mem) {
			t.Errorf("%q: summary %q, want %q and %q", c.store, out, c.want, c.mem)
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

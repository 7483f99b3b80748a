package check

import "testing"

// TestResumeStoredLosslessly checks that R0 and R8 (16-byte states) are
// explored with every state kept as it is, so that the report gives a
// collision probability of 0, and that their counts are TLC's: R0 87 / 59
// / 8, R8 14,753,520 / 7,435,360 / 24 (R8 is skipped under -short), with
// 16-byte keys and with the compact set (at most 10 bytes a state at R8).
func TestResumeStoredLosslessly(t *testing.T) {
	for _, c := range []struct {
		cfg                 string
		generated, distinct uint64
		depth               int
	}{
		{"../spec/R0.cfg", 87, 59, 8},
		{"../spec/R8.cfg", 14753520, 7435360, 24},
	} {
		if testing.Short() && c.distinct > 1000 {
			t.Logf("-short: %s skipped", c.cfg)
			continue
		}
		job, err := Load(c.cfg, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{1, 2} {
			for _, compact := range []bool{false, true} {
				rep := run(t, job, RunOptions{Workers: w, Compact: compact})
				if rep.Generated != c.generated || rep.Distinct != c.distinct || rep.Depth != c.depth {
					t.Errorf("%s, %d workers, compact %v: %d/%d/%d, want %d/%d/%d", c.cfg, w, compact, rep.Generated, rep.Distinct, rep.Depth, c.generated, c.distinct, c.depth)
				}
				if rep.Fingerprints != "lossless" || rep.Collision == nil || *rep.Collision != 0 {
					t.Errorf("%s, %d workers, compact %v: fingerprints %q, collision %v; want lossless, 0", c.cfg, w, compact, rep.Fingerprints, rep.Collision)
				}
				if want := map[bool]string{false: "16-byte keys", true: "compact"}[compact]; rep.Store != want {
					t.Errorf("%s, %d workers: store %q, want %q", c.cfg, w, rep.Store, want)
				}
				if c.distinct > 1000 && (rep.BytesPerState <= 0 || compact && rep.BytesPerState > 10) {
					t.Errorf("%s, %d workers, compact %v: %.1f bytes per state", c.cfg, w, compact, rep.BytesPerState)
				}
			}
		}
	}
}

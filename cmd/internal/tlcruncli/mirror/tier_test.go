package mirror

import (
	"testing"

	"github.com/resumecontract/resumecheck/check"
)

// TestInTierLeavesBenchOut: --tier all is the quick and the long models,
// never the bench tier's billion states; --tier bench is those alone.
func TestInTierLeavesBenchOut(t *testing.T) {
	for _, c := range []struct {
		model, asked string
		want         bool
	}{
		{"quick", "", true}, {"long", "", false}, {"bench", "", false},
		{"quick", "all", true}, {"long", "all", true}, {"bench", "all", false},
		{"bench", "bench", true}, {"quick", "bench", false},
	} {
		if got := inTier(check.Entry{Tier: c.model}, c.asked); got != c.want {
			t.Errorf("a %s model under --tier %q: %v, want %v", c.model, c.asked, got, c.want)
		}
	}
}

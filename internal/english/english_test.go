package english

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Count(0, "run"), "0 runs"},
		{Count(1, "run"), "1 run"},
		{Count(2, "run"), "2 runs"},
		{Count(-1, "state"), "-1 states"},
		{Forms(1, "process", "processes"), "1 process"},
		{Forms(4, "process", "processes"), "4 processes"},
		{Noun(1, "was", "were"), "was"},
		{Noun(7, "was", "were"), "were"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

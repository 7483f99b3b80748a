package recovery

import "testing"

func TestRecover(t *testing.T) {
	for _, tc := range []struct {
		v    View
		want Plan
	}{
		{View{Frontier: 0}, Plan{Next: 1}},
		{View{Frontier: 1}, Plan{Next: 2}},
		{View{Frontier: 1, Parked: true}, Plan{Next: 2, Parked: true}},
		// A gate claimed by a resume whose task did not commit: the run
		// continues at the gate with the durable value, not parked.
		{View{Frontier: 1, Parked: true, Consumed: true}, Plan{Next: 2}},
		{View{Frontier: 3, Consumed: true}, Plan{Next: 4}},
	} {
		if got := Recover(tc.v); got != tc.want {
			t.Errorf("Recover(%+v) = %+v, want %+v", tc.v, got, tc.want)
		}
	}
}

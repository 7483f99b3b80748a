package tlaspec_test

import (
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// counter counts up to a bound: Inc(k) adds k (k = 1, 2) below the bound,
// Reset takes no parameter and is enabled above zero.
type counter struct{ bound int }

type move struct {
	reset bool
	k     int
}

func (c counter) Init() []int              { return []int{0} }
func (c counter) Width() int               { return 1 }
func (c counter) Encode(dst []byte, s int) { dst[0] = byte(s) }
func (c counter) Decode(src []byte) int    { return int(src[0]) }
func (c counter) Vars(s int) tlavalue.State {
	return tlavalue.State{{Name: "n", Value: tlavalue.Int(int64(s))}}
}
func (c counter) FromVars(tlavalue.State) (int, error) { return 0, nil }
func (c counter) Properties() []tlaspec.Property[int]  { return nil }
func (c counter) Labels(int) []move                    { return []move{{k: 1}, {k: 2}, {reset: true}} }

func (c counter) Step(s int, m move) (int, string) {
	switch {
	case m.reset && s == 0:
		return s, "n = 0"
	case m.reset:
		return 0, ""
	case s+m.k > c.bound:
		return s, "n + " + strconv.Itoa(m.k) + " > bound"
	}
	return s + m.k, ""
}

func (c counter) Action(m move) string {
	if m.reset {
		return "Reset"
	}
	return "Inc"
}

func (c counter) Params(m move) []string {
	if m.reset {
		return nil
	}
	return []string{strconv.Itoa(m.k)}
}

func TestDerive(t *testing.T) {
	sp := tlaspec.Derive[int, move]("Counter", counter{bound: 2})
	if sp.Module() != "Counter" || !cmp.Equal(sp.Variables(), []string{"n"}) {
		t.Errorf("Module %q, Variables %v", sp.Module(), sp.Variables())
	}
	var got []string
	for _, s := range []int{0, 1, 2} {
		sp.Next(s, func(l move, t int) { got = append(got, strconv.Itoa(s)+" "+sp.Label(l)+" "+strconv.Itoa(t)) })
	}
	want := []string{"0 Inc(1) 1", "0 Inc(2) 2", "1 Inc(1) 2", "1 Reset 0", "2 Reset 0"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Next (-want +got):\n%s", d)
	}
	if got := sp.Disabled(1, move{k: 2}); got != "n + 2 > bound" {
		t.Errorf("Disabled(1, Inc(2)) = %q", got)
	}
	if got := sp.Disabled(1, move{k: 1}); got != "" {
		t.Errorf("Disabled(1, Inc(1)) = %q, want enabled", got)
	}
}

func TestLabelOf(t *testing.T) {
	for _, c := range []struct {
		params []string
		want   string
	}{{nil, "A"}, {[]string{"r1"}, "A(r1)"}, {[]string{"r1", "2"}, "A(r1, 2)"}} {
		if got := tlaspec.LabelOf("A", c.params...); got != c.want {
			t.Errorf("LabelOf(A, %q) = %q, want %q", c.params, got, c.want)
		}
	}
}

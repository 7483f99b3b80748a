package harness

import (
	"fmt"
	"math"

	"github.com/resumecontract/resumecheck/internal/english"
)

// FindingRetest is a change at a crash cell's kill point that the gate
// does not take on the word of the run that showed it: a crash's outcome
// can turn on timing, and ten baseline runs that all agreed say only that
// a rarer outcome was not drawn. CrewAI 1.15.2 on SQLite completed its
// crash/resubmit run in all ten baseline runs, and an idle CI run drew
// one that did not (a PanicException in CrewAI's recovery, seen in 2 of
// 20 runs when measured again): one run was a confirmed change, and CI
// failed on a draw. The run command answers a retest finding by running
// the point again (Retested); a command that cannot run subjects (diff)
// keeps the run's word (Unretested).
const FindingRetest = "retest"

// RetestRuns is how many times the run command runs a retest finding's
// point again, unless told otherwise: enough that a change seen in four
// of five re-runs is confirmed against ten baseline runs that all
// agreed, and a draw of one in ten is confirmed with probability below
// 1 in 2,000.
const RetestRuns = 5

// RetestMaxRuns is the most re-runs the gate spends on testing one point
// against the baseline's runs there (RunsNeeded).
const RetestMaxRuns = 20

// RetestThinRuns is how many re-runs, at least, a point gets whose
// baseline runs all agreed but are too few for RetestMaxRuns re-runs to
// test against (a kill sweep keeps one run per point): such a point is
// decided by its re-runs alone (Thin).
const RetestThinRuns = 10

// Retest is what a retest finding needs run again and counted: the
// point, the status counted (Outcome) and which way the change went
// (Rising: the outcome is new or more frequent, a new violation or a new
// undetermined run; otherwise it was lost), with the baseline's covering
// runs at the point (N) of which K had the outcome. Once re-run, Runs is
// how many re-runs reached the point, Reproduced how many of them showed
// the change, and P the one-sided Fisher exact p-value of the re-runs
// against the baseline's runs. Thin says the baseline's runs at the
// point, though unanimous, are too few to test against (Unanimous,
// RunsNeeded): the re-runs alone decide.
type Retest struct {
	Scenario   string  `json:"scenario"`
	Point      string  `json:"point"`
	Outcome    Status  `json:"outcome"`
	Rising     bool    `json:"rising"`
	K          int     `json:"baseline_k"`
	N          int     `json:"baseline_n"`
	Runs       int     `json:"runs,omitempty"`
	Reproduced int     `json:"reproduced,omitempty"`
	P          float64 `json:"p,omitempty"`
	Thin       bool    `json:"thin,omitempty"`
}

// Unanimous reports whether every baseline run at the point agreed on
// the side the change left: none had a rising outcome, or all had a lost
// one.
func (rt *Retest) Unanimous() bool {
	if rt.Rising {
		return rt.K == 0
	}
	return rt.K == rt.N
}

// has reports whether run r shows the retest's outcome: for a rising
// change, a status at least as severe (a new undetermined verdict is
// reproduced by a violation too); for a lost one, that status exactly.
func (rt *Retest) has(r *RunVerdict, o string) bool {
	if rt.Rising {
		return severity(r.Obligations[o]) >= severity(rt.Outcome)
	}
	return r.Obligations[o] == rt.Outcome
}

// reproduces reports whether re-run r showed the change: the outcome
// for a rising change, its absence for a lost one.
func (rt *Retest) reproduces(r *RunVerdict, o string) bool { return rt.has(r, o) == rt.Rising }

// tail is the one-sided Fisher exact p-value of k of m re-runs having
// the outcome against the baseline's K of N: the probability, were the
// re-runs and the baseline's runs one population, that m runs drawn from
// it have k or more (rising) or k or fewer (lost) with the outcome.
func (rt *Retest) tail(k, m int) float64 {
	return FisherTail(rt.K, rt.N, k, m, rt.Rising)
}

// RunsNeeded is how many re-runs the point needs, at least want: the
// fewest with which a change reproduced in every re-run would be
// significant at GateAlpha (a baseline of two runs needs more than the
// default five), at most RetestMaxRuns. ok is false when no count up to
// that could confirm the change: a unanimous baseline is then thin (its
// one sweep run needs 100 re-runs, 1/101 < 0.01), and otherwise
// re-running is no help and the run's word stands.
func (rt *Retest) RunsNeeded(want int) (m int, ok bool) {
	for m = max(want, 1); m <= RetestMaxRuns; m++ {
		all := 0
		if rt.Rising {
			all = m
		}
		if rt.tail(all, m) < GateAlpha {
			return m, true
		}
	}
	return 0, false
}

// Plan is how many times the point is run again, at least want, and the
// retest those re-runs decide: RunsNeeded where a count up to
// RetestMaxRuns can test against the baseline; for a unanimous baseline
// too thin for that (a sweep's one run at the point) a copy marked Thin,
// run at least RetestThinRuns times. ok is false when re-running is no
// help and the run's word stands.
func (rt Retest) Plan(want int) (plan Retest, m int, ok bool) {
	if m, ok = rt.RunsNeeded(want); ok || !rt.Unanimous() {
		return rt, m, ok
	}
	rt.Thin = true
	return rt, max(want, RetestThinRuns), true
}

// FisherTail is the one-sided p-value of Fisher's exact test on two
// samples: k1 of n1 (the baseline) and k2 of n2 (the re-runs) with an
// outcome. upper asks whether the second sample has the outcome more
// often (P(X >= k2)), otherwise less often (P(X <= k2)), X being the
// hypergeometric count of the outcome in n2 runs drawn from all n1+n2.
func FisherTail(k1, n1, k2, n2 int, upper bool) float64 {
	total, hits := n1+n2, k1+k2
	lo, hi := max(0, n2-(total-hits)), min(n2, hits)
	p := 0.0
	for x := lo; x <= hi; x++ {
		if upper && x < k2 || !upper && x > k2 {
			continue
		}
		p += math.Exp(logChoose(hits, x) + logChoose(total-hits, n2-x) - logChoose(total, n2))
	}
	return math.Min(1, p)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Retested decides a retest finding from the re-runs of its cell: the
// change is confirmed when the re-runs that reached the point differ
// from the baseline's runs there at GateAlpha (one-sided Fisher exact
// test; the run that raised the finding is left out, since it was chosen
// for being different), and is otherwise a sample, reported with the
// counts. When too few re-runs reached the point for any answer to be
// significant (the adapter failed in the others), the first run's word
// stands: confirmed. The re-runs that reproduced the change join the
// evidence.
func Retested(f Finding, reruns []RunVerdict) Finding {
	rt := *f.Retest
	f.Retest = &rt
	var covering, reproduced []*RunVerdict
	for i := range reruns {
		r := &reruns[i]
		if !covers(r) || pointOf(rt.Scenario, r) != rt.Point {
			continue
		}
		covering = append(covering, r)
		if rt.reproduces(r, f.Obligation) {
			reproduced = append(reproduced, r)
		}
	}
	rt.Runs, rt.Reproduced = len(covering), len(reproduced)
	if len(covering) == 0 {
		f.Kind = FindingConfirmed
		f.Why += fmt.Sprintf("; none of its %d re-runs reached %s, so the first run's word stands", len(reruns), rt.Point)
		return f
	}
	if rt.Thin {
		return retestedThin(f, &rt, len(reruns), reproduced)
	}
	best := 0 // the count of the outcome that would confirm most strongly
	if rt.Rising {
		best = rt.Runs
	}
	if rt.tail(best, rt.Runs) >= GateAlpha {
		// Too few re-runs were driven to the point for any answer to be
		// significant: they cannot clear the first run.
		f.Kind = FindingConfirmed
		f.Why += fmt.Sprintf("; only %d of its %d re-runs reached %s, too few to decide, so the first run's word stands", rt.Runs, len(reruns), rt.Point)
		return f
	}
	k := rt.Reproduced
	if !rt.Rising {
		k = rt.Runs - rt.Reproduced // the re-runs that kept the lost outcome
	}
	rt.P = rt.tail(k, rt.Runs)
	missed := ""
	if undriven := len(reruns) - rt.Runs; undriven > 0 {
		missed = fmt.Sprintf(" (%d more did not reach it)", undriven)
	}
	counts := fmt.Sprintf("%d of %d re-runs at the point %s %s%s, against %d of the baseline's %d (one-sided Fisher exact p = %.2g",
		k, rt.Runs, english.Noun(k, "was", "were"), rt.Outcome, missed, rt.K, rt.N, rt.P)
	if rt.P < GateAlpha {
		f.Kind = FindingConfirmed
		addEvidence(&f, reproduced)
		f.Why += "; reproduced: " + counts + fmt.Sprintf(" < %.2g)", GateAlpha)
		return f
	}
	f.Kind = FindingSample
	f.Why += "; not reproduced: " + counts + fmt.Sprintf(", not below %.2g): a draw of a nondeterministic outcome", GateAlpha)
	return f
}

// retestedThin decides a change at a point whose baseline is too thin to
// test against (Retest.Thin) by its re-runs alone: reproduced in every
// one of at least RetestRuns re-runs that reached the point, the change
// is no draw and is confirmed (a regression that shows in every run still
// fails the gate); reproduced in some and not others, the point's
// outcome varies from run to run and the baseline's runs drew one side:
// a sample, reported with the counts. With fewer re-runs at the point
// the first run's word stands.
func retestedThin(f Finding, rt *Retest, all int, reproduced []*RunVerdict) Finding {
	thin := fmt.Sprintf("the baseline's %s at the point %s too few to test against", english.Count(rt.N, "run"), english.Noun(rt.N, "is", "are"))
	if rt.Runs < RetestRuns {
		f.Kind = FindingConfirmed
		f.Why += fmt.Sprintf("; only %d of its %d re-runs reached %s (%s), so the first run's word stands", rt.Runs, all, rt.Point, thin)
		return f
	}
	counts := fmt.Sprintf("%d of %d re-runs at the point showed the change (%s)", rt.Reproduced, rt.Runs, thin)
	if rt.Reproduced == rt.Runs {
		f.Kind = FindingConfirmed
		addEvidence(&f, reproduced)
		f.Why += "; reproduced: " + counts + ": a change in every run is no draw"
		return f
	}
	f.Kind = FindingSample
	f.Why += "; not reproduced in every re-run: " + counts + ": the point's outcome varies from run to run, and the baseline's drew the other side"
	return f
}

// Unretested decides a retest finding that is not run again (why says
// why: conformance diff drives no subject, --retest-runs 0): the run's
// word stands.
func Unretested(f Finding, why string) Finding {
	f.Kind = FindingConfirmed
	f.Why += "; not re-run (" + why + "), so the run's word stands"
	return f
}

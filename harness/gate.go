package harness

import (
	"github.com/resumecontract/resumecheck/model"

	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
)

// The regression gate (docs/conformance.md, "The regression gate"): a
// fresh measurement, whole or bounded, compared with the baselines cell by
// cell. Every cell verdict that differs is a Finding of one of three
// kinds, and only a confirmed one fails a run:
//
//   - a violation the baseline's cell did not have is always confirmed:
//     the fresh run that violated is the evidence (its trace is checked
//     again by tracecheck before the gate reports it);
//   - a baseline value the fresh cell lost (a violation, or an
//     undetermined run) is confirmed when the fresh run covered a point
//     (the same kill point, the same single-run scenario) where every
//     baseline run had that value: the outcome was deterministic there
//     and now it is not. A race is tested pooled over the cell
//     (gateRaceLost: a one-sided Fisher exact test of the fresh runs'
//     count against the baseline's). Where the baseline's runs at the
//     point varied (a crash whose outcome is a draw), or a
//     recovery there was refused as a conflict (a race with the killed
//     process's hold: RecoveryRefusedAsConflict), the fresh runs are a
//     sample: the loss is confirmed only when a baseline
//     outcome of that frequency would have been missed with probability
//     below GateAlpha (at the lower end of its Wilson interval), and
//     otherwise reported with those statistics;
//   - a change at a point the fresh run did not cover (a bounded run's
//     stride, a kill point it did not reach, a cell it did not run, a
//     store it skipped) is unmeasured, and reported as such; but a run
//     that could not be driven, or did not reach its kill point, where a
//     baseline run did, fails the gate by itself (uncoveredRuns).
//
// A change that the first two rules confirm on the word of one run at a
// crash or sweep cell's kill point (a new violation or undetermined run,
// a lost outcome every baseline run there had) is a retest instead
// (FindingRetest, retest.go): a crash's outcome can turn on timing, so
// the run command runs the point again and confirms the change only when
// the re-runs differ from the baseline's runs at GateAlpha, or, where
// the baseline is one run (a sweep's point), when every re-run shows it
// (Retested).
//
// A change of the adapter's declared features is confirmed (it changes
// what the cells measure: fork=false makes FI violated by definition).

// Finding kinds (and FindingRetest, a change to run again first).
const (
	FindingConfirmed  = "confirmed"
	FindingSample     = "sample"
	FindingUnmeasured = "unmeasured"
)

// GateAlpha bounds the probability that a bounded run misses, by chance,
// a sampled baseline outcome the gate then calls lost.
const GateAlpha = 0.01

// Finding is one cell verdict that differs from the baseline, and what the
// gate makes of it.
type Finding struct {
	Profile    string `json:"profile"`
	Cell       string `json:"cell,omitempty"`
	Obligation string `json:"obligation"`
	Was        Status `json:"was,omitempty"`
	Now        Status `json:"now,omitempty"`
	Kind       string `json:"kind"`
	// Runs are the fresh runs that are the evidence, and Traces their
	// trace files (relative to the fresh profile's directory).
	Runs   []string `json:"runs,omitempty"`
	Traces []string `json:"traces,omitempty"`
	Why    string   `json:"why"`
	// Retest is set on a change at a crash point that is run again
	// before it is confirmed (FindingRetest, Retested).
	Retest *Retest `json:"retest,omitempty"`
}

func (f Finding) String() string {
	if f.Obligation == "features" || f.Obligation == RunsNotMeasured {
		return f.Profile + ": " + f.Why
	}
	where := f.Profile
	if f.Cell != "" {
		where += " cell " + f.Cell
	}
	s := fmt.Sprintf("%s %s: %s -> %s", where, f.Obligation, orAbsentStatus(f.Was), orAbsentStatus(f.Now))
	if len(f.Runs) > 0 {
		s += " (run " + strings.Join(f.Runs, ", ") + ")"
	}
	return s + ": " + f.Why
}

func orAbsentStatus(s Status) string {
	if s == "" {
		return "(absent)"
	}
	return string(s)
}

// Gate compares fresh profiles with the baselines of the same ids (a
// fresh profile with no baseline is a confirmed finding; a baseline with
// no fresh profile is not compared).
func Gate(baseline, fresh []*Profile) []Finding {
	var out []Finding
	for _, p := range fresh {
		b := findByID(baseline, p.ID())
		if b == nil {
			out = append(out, Finding{Profile: p.ID(), Obligation: "*", Now: "new profile", Kind: FindingConfirmed, Why: "no baseline: record one (run --update)"})
			continue
		}
		out = append(out, gateProfile(b, p)...)
	}
	return out
}

func findByID(ps []*Profile, id string) *Profile {
	for _, p := range ps {
		if p.ID() == id {
			return p
		}
	}
	return nil
}

func gateProfile(b, p *Profile) []Finding {
	var out []Finding
	// A baseline that records no features (a hand-written one) is not
	// compared on them.
	if fd := featureDiff(b.Features, p.Features); fd != "" && len(b.Features.Stores) > 0 {
		out = append(out, Finding{Profile: p.ID(), Obligation: "features", Kind: FindingConfirmed,
			Why: "the adapter declares other features (" + fd + "): what the cells measure changed"})
	}
	for i := range b.Cells {
		bc := &b.Cells[i]
		fc := p.cellNamed(bc.Name)
		for _, o := range Obligations {
			was := bc.Status[o]
			if was == "" {
				continue
			}
			f := Finding{Profile: p.ID(), Cell: bc.Name, Obligation: o, Was: was}
			switch {
			case fc == nil:
				continue // a run of some scenarios: not this one
			case fc.Status[o] == was:
				continue
			}
			f.Now = fc.Status[o]
			gateCell(&f, bc, fc)
			out = append(out, f)
		}
	}
	if f, ok := uncoveredRuns(b, p); ok {
		out = append(out, f)
	}
	for i := range p.Cells {
		if b.cellNamed(p.Cells[i].Name) == nil {
			out = append(out, Finding{Profile: p.ID(), Cell: p.Cells[i].Name, Obligation: "*", Now: "new cell", Kind: FindingConfirmed, Why: "the baseline has no such cell"})
		}
	}
	return out
}

// RunsNotMeasured is the obligation of the finding that names the fresh
// runs which could not be driven or did not reach their kill point, at
// points where the baseline has a run that did (uncoveredRuns).
const RunsNotMeasured = "runs"

// uncoveredRuns is a finding naming every fresh run that did not measure
// its point (the adapter failed, or the kill did not land) where some
// baseline run at the same point did. Such a run hides the point's
// verdicts: a pydantic-graph adapter made to exit on every recover turned
// its crash cells undetermined, and the gate reported their lost
// violations as unmeasured and passed.
//
// It is confirmed (the gate fails) when the fresh runs miss their points
// significantly more often than the baseline's runs at the same points
// did, pooled over the profile (one-sided Fisher exact test at
// GateAlpha): a broken adapter, or many kill points that moved; and when
// no run of the baseline ever missed its point, since a miss is then no
// draw the subject is known for (one moved kill point, one crash run
// that no longer reaches it). Where the baseline's own runs missed too
// and the test is not significant, the miss is a draw, reported with the
// counts and not failed: CrewAI 1.15.2's recovery raises its own
// PanicException in about one run in fourteen, and a run it ends is
// undriven; failing CI on it would fail most CI runs. A run at a point the baseline never reached is not named:
// nothing was lost there.
func uncoveredRuns(b, p *Profile) (Finding, bool) {
	var named []string
	var ev []*RunVerdict
	freshN, baseN, baseMissed := 0, 0, 0
	for i := range p.Cells {
		fc := &p.Cells[i]
		bc := b.cellNamed(fc.Name)
		if bc == nil || fc.Skipped != "" || bc.Skipped != "" {
			continue
		}
		counted := map[string]bool{}
		for j := range fc.Runs {
			r := &fc.Runs[j]
			pt := pointOf(fc.Scenario, r)
			base, missed := 0, 0
			for _, br := range runsAt(bc, pt) {
				if covers(br) {
					base++
				} else {
					missed++
				}
			}
			if base == 0 {
				continue
			}
			freshN++
			if !counted[pt] {
				counted[pt] = true
				baseN += base + missed
				baseMissed += missed
			}
			if covers(r) {
				continue
			}
			why := "could not be driven"
			if r.Verdict != "error" {
				why = "did not reach its kill point"
			}
			if len(r.Problems) > 0 {
				why += ": " + r.Problems[0]
			}
			named = append(named, fmt.Sprintf("cell %s run %s at %s (%s; the baseline measured it in %s)", fc.Name, r.Run, pt, why, english.Count(base, "run")))
			ev = append(ev, r)
		}
	}
	if len(named) == 0 {
		return Finding{}, false
	}
	ever, all := baselineMisses(b)
	pv := FisherTail(baseMissed, baseN, len(named), freshN, true)
	stats := fmt.Sprintf("%d of %d fresh runs at points the baseline measured missed them, against %d of the baseline's %d runs there (one-sided Fisher exact p = %.2g", len(named), freshN, baseMissed, baseN, pv)
	// A subject known to miss points (CrewAI's PanicException stops its
	// adapter wherever it strikes) is tested against its whole
	// baseline's rate too: the few baseline runs at the points a bounded
	// run measured may have drawn no miss (0 of 43 in one CI run, where
	// 3 of 25 fresh runs missed), and a miss that strikes anywhere is
	// not evidence about those points. Both tests must reject.
	if ever > 0 && pv < GateAlpha {
		whole := FisherTail(ever, all, len(named), freshN, true)
		stats += fmt.Sprintf("; against the %d misses in all the baseline's %s, p = %.2g", ever, english.Count(all, "run"), whole)
		pv = max(pv, whole)
	}
	f := Finding{Profile: p.ID(), Obligation: RunsNotMeasured, Kind: FindingConfirmed}
	switch {
	case pv < GateAlpha:
		stats += fmt.Sprintf(" < %g: a failing adapter or kill points that no longer land hide their verdicts)", GateAlpha)
	case ever == 0:
		stats += fmt.Sprintf("; none of the baseline's %s missed its point, so a miss is not a draw this subject is known for)", english.Count(all, "run"))
	default:
		f.Kind = FindingSample
		stats += fmt.Sprintf(" >= %g, and %d of the baseline's %s missed their points: a draw; reported, not failed)", GateAlpha, ever, english.Count(all, "run"))
	}
	f.Why = stats + ": " + strings.Join(named, "; ")
	for _, r := range ev {
		f.Runs = append(f.Runs, r.Run)
	}
	return f, true
}

// baselineMisses counts the baseline's runs, in cells it did not skip,
// that did not measure their point (missed), of all its runs there.
func baselineMisses(b *Profile) (missed, all int) {
	for i := range b.Cells {
		c := &b.Cells[i]
		if c.Skipped != "" {
			continue
		}
		for j := range c.Runs {
			all++
			if !covers(&c.Runs[j]) {
				missed++
			}
		}
	}
	return missed, all
}

// Cell returns the profile's cell of that name, or nil.
func (p *Profile) Cell(name string) *Cell { return p.cellNamed(name) }

func (p *Profile) cellNamed(name string) *Cell {
	for i := range p.Cells {
		if p.Cells[i].Name == name {
			return &p.Cells[i]
		}
	}
	return nil
}

func featureDiff(a, b Features) string {
	var d []string
	flag := func(name string, x, y bool) {
		if x != y {
			d = append(d, fmt.Sprintf("%s %t -> %t", name, x, y))
		}
	}
	flag("fork", a.Fork, b.Fork)
	flag("checkpoint_address", a.CheckpointAddress, b.CheckpointAddress)
	flag("idempotency_key", a.IdempotencyKey, b.IdempotencyKey)
	flag("invalid_state", a.InvalidState, b.InvalidState)
	flag("resubmit", a.Resubmit, b.Resubmit)
	if !slices.Equal(a.Stores, b.Stores) {
		d = append(d, fmt.Sprintf("stores %v -> %v", a.Stores, b.Stores))
	}
	return strings.Join(d, ", ")
}

// severity orders the statuses a cell can move between: a move up is a
// new observation (its runs are the evidence), a move down a lost one.
func severity(s Status) int {
	switch s {
	case Holds:
		return 1
	case Undetermined:
		return 2
	case Violated:
		return 3
	}
	return 0
}

// gateCell decides one differing cell verdict.
func gateCell(f *Finding, bc, fc *Cell) {
	o := f.Obligation
	switch {
	case fc.Skipped != "" || f.Now == NA:
		f.Kind, f.Why = FindingUnmeasured, "the cell did not run here"
		if fc.Skipped != "" {
			f.Why += ": " + fc.Skipped
		}
		return
	case f.Was == NA:
		f.Kind, f.Why = FindingConfirmed, "the baseline could not measure it, this run did"
		return
	case o == model.RD:
		gateRD(f, bc, fc)
		return
	case o == model.FI && len(fc.Runs) == 0:
		f.Kind, f.Why = FindingConfirmed, "FI follows from the adapter's fork feature: "+fc.Summary
		return
	}
	if severity(f.Now) > severity(f.Was) {
		gateNew(f, bc, fc)
		return
	}
	gateLost(f, bc, fc)
}

// pointOf is where in its cell a run measured: its kill point (crash and
// sweep), its race grid point, or the cell itself (one scenario, one
// run shape).
func pointOf(scenario string, r *RunVerdict) string {
	switch scenario {
	case "crash", "killsweep":
		if r.KillPoint == "" {
			if r.Run == "dry" {
				return "the dry run"
			}
			return "kill point of " + r.Run
		}
		return r.KillPoint
	case "race":
		if len(r.Run) >= 7 {
			return r.Run[:7]
		}
	}
	return scenario
}

// covers reports whether a run measured its point: it was driven, and a
// crash run reached its kill point.
func covers(r *RunVerdict) bool { return r.Verdict != "error" && !r.Unreached }

// gateNew: the fresh cell has a more severe verdict than the baseline's.
// The fresh runs with that status are the evidence. A new violation is
// always confirmed; a new undetermined run is confirmed where the
// baseline's runs at its point all held, and otherwise a sample or
// unmeasured.
func gateNew(f *Finding, bc, fc *Cell) {
	o := f.Obligation
	var ev []*RunVerdict
	for i := range fc.Runs {
		if r := &fc.Runs[i]; severity(r.Obligations[o]) > severity(f.Was) || r.Obligations[o] == "" && covers(r) {
			ev = append(ev, r)
		}
	}
	addEvidence(f, ev)
	if f.Now == Violated {
		f.Kind = FindingConfirmed
		f.Why = "a violation the baseline's cell did not have"
		if len(bc.Runs) > 0 {
			f.Why = fmt.Sprintf("a violation none of the baseline's %s of the cell had", english.Count(len(bc.Runs), "run"))
		}
		retestAt(f, bc, fc.Scenario, ev, Violated, true)
		return
	}
	// A new undetermined verdict.
	var unreached, confirmed, sampled []string
	for _, r := range ev {
		if !covers(r) {
			unreached = append(unreached, r.Run)
			continue
		}
		pt := pointOf(fc.Scenario, r)
		base := runsAt(bc, pt)
		switch {
		case len(base) == 0:
			unreached = append(unreached, r.Run+" (a point the baseline has no run at)")
		case r.RecoveryRefusedAsConflict():
			sampled = append(sampled, fmt.Sprintf("%s (its recovery was refused as a conflict, a race with the killed process's hold)", r.Run))
		case fc.Scenario != "race" && len(base) >= 2 && allHave(base, o, f.Was):
			confirmed = append(confirmed, fmt.Sprintf("%s at %s, where the baseline's %d runs all %s", r.Run, pt, len(base), f.Was))
		default:
			sampled = append(sampled, fmt.Sprintf("%s (the baseline's %s at %s)", r.Run, english.Count(len(base), "run"), pt))
		}
	}
	if len(ev) == 0 {
		// No run decided it: the cell is undetermined because its runs
		// could not be driven or did not reach their kill point.
		for i := range fc.Runs {
			switch r := &fc.Runs[i]; {
			case r.Verdict == "error":
				unreached = append(unreached, r.Run+" (could not be driven)")
			case r.Unreached:
				unreached = append(unreached, r.Run+" (did not reach its kill point)")
			}
		}
	}
	switch {
	case len(confirmed) > 0:
		f.Kind, f.Why = FindingConfirmed, "undetermined: "+strings.Join(confirmed, "; ")
		retestAt(f, bc, fc.Scenario, ev, Undetermined, true)
	case len(sampled) > 0:
		f.Kind, f.Why = FindingSample, "undetermined where the baseline's runs varied, raced or were one run (an inconclusive outcome confirms nothing alone): "+strings.Join(sampled, ", ")
	default:
		f.Kind, f.Why = FindingUnmeasured, "undetermined only where the run is inconclusive: "+strings.Join(unreached, ", ")
	}
}

// gateLost: the fresh cell lost the baseline's verdict (a violation, or
// an undetermined run): was it there at a point the fresh run covered?
func gateLost(f *Finding, bc, fc *Cell) {
	o := f.Obligation
	if len(bc.Runs) == 0 {
		// A hand-written or by-definition baseline cell: no runs to
		// compare point by point; the fresh cell's own runs decide.
		if slices.ContainsFunc(fc.Runs, func(r RunVerdict) bool { return covers(&r) }) {
			f.Kind, f.Why = FindingConfirmed, "the baseline's cell keeps no runs; this run measured the cell"
		} else {
			f.Kind, f.Why = FindingUnmeasured, "no run of the cell reached its point"
		}
		return
	}
	lost := f.Was
	// The baseline's points where some run had the lost value.
	var points []string
	seen := map[string]bool{}
	for i := range bc.Runs {
		r := &bc.Runs[i]
		if r.Obligations[o] == lost && covers(r) {
			if pt := pointOf(bc.Scenario, r); !seen[pt] {
				seen[pt] = true
				points = append(points, pt)
			}
		}
	}
	if len(points) == 0 {
		f.Kind, f.Why = FindingConfirmed, fmt.Sprintf("no baseline run of the cell has %s %s: the baseline's verdict has no run behind it", o, lost)
		return
	}
	if bc.Scenario == "race" {
		gateRaceLost(f, bc, fc)
		return
	}
	var confirmed, samples, uncovered []string
	var ev []*RunVerdict
	sampled := false // some point was confirmed by its statistics, not on one run's word
	for _, pt := range points {
		base := runsAt(bc, pt)
		var now []*RunVerdict
		for _, r := range runsAt(fc, pt) {
			if covers(r) {
				now = append(now, r)
			}
		}
		if len(now) == 0 {
			uncovered = append(uncovered, pt)
			continue
		}
		k := 0
		for _, r := range base {
			if r.Obligations[o] == lost {
				k++
			}
		}
		n, m := len(base), len(now)
		// An undetermined outcome is inconclusive: one such run at a
		// point is no evidence that the point is deterministic. Nor is
		// a point where a recovery, in the baseline or now, was refused
		// as a conflict: its outcome depends on when the killed
		// process's hold ended (RecoveryRefusedAsConflict).
		// A kill point's one baseline run is no evidence either: a
		// crash's outcome can turn on timing (LangGraph 1.2.24 on
		// PostgreSQL lost two one-run sweep violations in an idle CI run).
		oneRunCrash := n < 2 && (bc.Scenario == "crash" || bc.Scenario == "killsweep")
		if bc.Scenario != "race" && k == n && (lost != Undetermined || n >= 2) && !oneRunCrash && !anyRefusedAsConflict(base) && !anyRefusedAsConflict(now) {
			ev = append(ev, now...)
			confirmed = append(confirmed, fmt.Sprintf("at %s the baseline's %d of %s %s %s (deterministic), this run's %d %s not", pt, k, english.Count(n, "run"), english.Noun(k, "was", "were"), lost, m, english.Noun(m, "was", "were")))
			continue
		}
		s := SampleStats(k, n, m)
		line := fmt.Sprintf("at %s: baseline %s %d/%d (95%% Wilson [%.2f, %.2f]); this run 0/%d; chance of missing it by sampling %.3g (at most %.3g)",
			pt, lost, k, n, s.Lo, s.Hi, m, s.Miss, s.MissMax)
		if s.MissMax < GateAlpha {
			ev = append(ev, now...)
			sampled = true
			confirmed = append(confirmed, line+fmt.Sprintf(" < %.2g", GateAlpha))
		} else {
			samples = append(samples, line)
		}
	}
	switch {
	case len(confirmed) > 0:
		addEvidence(f, ev)
		f.Kind, f.Why = FindingConfirmed, strings.Join(confirmed, "; ")
		if !sampled {
			retestAt(f, bc, bc.Scenario, ev, lost, false)
		}
	case len(samples) > 0:
		f.Kind, f.Why = FindingSample, strings.Join(samples, "; ")
	default:
		f.Kind, f.Why = FindingUnmeasured, "this run did not cover the points where the baseline had it: "+strings.Join(uncovered, "; ")
	}
}

// gateRD: RD is a judgement across a cell's recoveries. A new conflict
// is confirmed (its runs are the evidence); a lost one is confirmed when
// the fresh cell reached every kill point the baseline's did.
func gateRD(f *Finding, bc, fc *Cell) {
	if f.Now == Violated {
		var ev []*RunVerdict
		conflicts := strings.Join(fc.rdConflicts(), " ")
		for i := range fc.Runs {
			if strings.Contains(conflicts, "e.g. "+fc.Runs[i].Run+")") {
				ev = append(ev, &fc.Runs[i])
			}
		}
		addEvidence(f, ev)
		f.Kind, f.Why = FindingConfirmed, "recoveries from one durable state decided differently: "+conflicts
		return
	}
	var missing []string
	for i := range bc.Runs {
		r := &bc.Runs[i]
		if !covers(r) {
			continue
		}
		pt := pointOf(bc.Scenario, r)
		if !slices.ContainsFunc(runsAt(fc, pt), covers) {
			missing = append(missing, pt)
		}
	}
	if len(missing) > 0 {
		f.Kind, f.Why = FindingUnmeasured, fmt.Sprintf("RD compares recoveries across the sweep; this run did not reach %d of the baseline's kill points", len(missing))
		return
	}
	f.Kind, f.Why = FindingConfirmed, "this run reached every kill point of the baseline and its recoveries agree"
}

// retestAt turns a confirmed finding of a crash or sweep cell into a
// retest (FindingRetest) when its evidence ev is at one kill point where
// the baseline has covering runs: the point is run again before the
// change is confirmed (Retested). A sweep keeps one baseline run per
// point, too few to test against: its re-runs decide alone (Retest.Thin;
// REMIT on PostgreSQL drew a new LV verdict at one sweep point in about
// 1 run in 15, and one CI run's word failed the gate). Evidence at
// several points is not re-run (a change at many kill points is no
// draw), nor are the other scenarios' single runs, whose outcome does not
// turn on where a kill lands.
func retestAt(f *Finding, bc *Cell, scenario string, ev []*RunVerdict, outcome Status, rising bool) {
	if scenario != "crash" && scenario != "killsweep" {
		return
	}
	pt := ""
	for _, r := range ev {
		if !covers(r) {
			continue
		}
		if p := pointOf(scenario, r); pt == "" {
			pt = p
		} else if p != pt {
			return
		}
	}
	if pt == "" {
		return
	}
	rt := &Retest{Scenario: scenario, Point: pt, Outcome: outcome, Rising: rising}
	for _, r := range runsAt(bc, pt) {
		if covers(r) {
			rt.N++
			if rt.has(r, f.Obligation) {
				rt.K++
			}
		}
	}
	if rt.N == 0 {
		return
	}
	f.Kind, f.Retest = FindingRetest, rt
}

// gateRaceLost: the fresh race cell lost the baseline's outcome (CO
// violated, mostly: the gated effect fired more than once). A grid point
// holds one run per repetition, too few to say anything alone, so the
// gate pools the cell: it tests the fresh runs' count of the outcome (0
// of m: the cell lost it) against the baseline's k of n with a one-sided
// Fisher exact test (RacePooled). The baseline's pool is its whole grid
// when every point the fresh run measured had the outcome in all its
// baseline runs (CI's points are chosen so: CIGrid), since those points'
// rate is then at least the grid's and the grid's larger n only makes the
// test harder to pass; otherwise it is the points both runs measured.
// Below GateAlpha the loss is confirmed, and otherwise reported with the
// p-value and the fresh runs that would have been needed.
func gateRaceLost(f *Finding, bc, fc *Cell) {
	o, lost := f.Obligation, f.Was
	var now []*RunVerdict
	for i := range fc.Runs {
		if r := &fc.Runs[i]; covers(r) {
			now = append(now, r)
		}
	}
	var common []string
	for _, r := range now {
		if pt := pointOf(fc.Scenario, r); len(runsAt(bc, pt)) > 0 && !slices.Contains(common, pt) {
			common = append(common, pt)
		}
	}
	if len(common) == 0 {
		f.Kind, f.Why = FindingUnmeasured, "this run measured no grid point the baseline has"
		return
	}
	pool := bc
	saturated := true
	for _, pt := range common {
		for _, r := range runsAt(bc, pt) {
			saturated = saturated && covers(r) && r.Obligations[o] == lost
		}
	}
	var base []*RunVerdict
	for i := range pool.Runs {
		r := &pool.Runs[i]
		if covers(r) && (saturated || slices.Contains(common, pointOf(bc.Scenario, r))) {
			base = append(base, r)
		}
	}
	k, kNow := 0, 0
	for _, r := range base {
		if r.Obligations[o] == lost {
			k++
		}
	}
	var m int
	for _, r := range now {
		if slices.Contains(common, pointOf(fc.Scenario, r)) {
			m++
			if r.Obligations[o] == lost {
				kNow++
			}
		}
	}
	st := RacePooled(k, len(base), kNow, m)
	over := fmt.Sprintf("the baseline's whole grid (%s; every point this run measured, %s, had it in all its baseline runs)",
		english.Count(len(base), "run"), strings.Join(common, ", "))
	if !saturated {
		over = fmt.Sprintf("the grid points both runs measured (%s; not every one had it in all its baseline runs)", strings.Join(common, ", "))
	}
	line := fmt.Sprintf("pooled over %s: baseline %s %d/%d, this run %d/%d; one-sided Fisher exact p = %.3g", over, lost, k, len(base), kNow, m, st.P)
	if st.P < GateAlpha {
		addEvidence(f, now)
		f.Kind, f.Why = FindingConfirmed, line+fmt.Sprintf(" < %.2g", GateAlpha)
		return
	}
	f.Kind = FindingSample
	f.Why = line + fmt.Sprintf(", not below %.2g", GateAlpha)
	if st.Needed > 0 {
		f.Why += fmt.Sprintf(" (%d runs without it would have been needed)", st.Needed)
	} else {
		f.Why += " (no number of runs could confirm it against this baseline)"
	}
}

// Pooled is the race's pooled test: k of n baseline runs had an outcome,
// kNow of m fresh runs; P is the one-sided Fisher exact p-value of so few
// fresh runs having it were both one population, and Needed the fewest
// fresh runs, all without the outcome, that would make P < GateAlpha (0
// when none up to 1,000 would).
type Pooled struct {
	K, N, KNow, M int
	P             float64
	Needed        int
}

// RacePooled computes Pooled.
func RacePooled(k, n, kNow, m int) Pooled {
	s := Pooled{K: k, N: n, KNow: kNow, M: m, P: 1}
	if n == 0 || m == 0 {
		return s
	}
	s.P = FisherTail(k, n, kNow, m, false)
	for x := 1; x <= 1000; x++ {
		if FisherTail(k, n, 0, x, false) < GateAlpha {
			s.Needed = x
			break
		}
	}
	return s
}

// anyRefusedAsConflict reports whether a recovery of one of rs was
// refused as a conflict.
func anyRefusedAsConflict(rs []*RunVerdict) bool {
	return slices.ContainsFunc(rs, (*RunVerdict).RecoveryRefusedAsConflict)
}

func runsAt(c *Cell, pt string) []*RunVerdict {
	var out []*RunVerdict
	for i := range c.Runs {
		if pointOf(c.Scenario, &c.Runs[i]) == pt {
			out = append(out, &c.Runs[i])
		}
	}
	return out
}

func allHave(rs []*RunVerdict, o string, st Status) bool {
	for _, r := range rs {
		if r.Obligations[o] != st {
			return false
		}
	}
	return len(rs) > 0
}

func addEvidence(f *Finding, rs []*RunVerdict) {
	for _, r := range rs {
		if !slices.Contains(f.Runs, r.Run) {
			f.Runs = append(f.Runs, r.Run)
			if r.Trace != "" {
				f.Traces = append(f.Traces, r.Trace)
			}
		}
	}
}

// Stats is a sampled outcome: observed k times in n baseline runs, its
// 95% Wilson interval [Lo, Hi], and the probability that m fresh runs
// all miss an outcome of that frequency: Miss at the estimate k/n,
// MissMax at the interval's lower end.
type Stats struct {
	K, N, M       int
	P, Lo, Hi     float64
	Miss, MissMax float64
}

// SampleStats computes Stats (z = 1.96).
func SampleStats(k, n, m int) Stats {
	s := Stats{K: k, N: n, M: m}
	if n == 0 {
		s.Hi, s.Miss, s.MissMax = 1, 1, 1
		return s
	}
	s.P = float64(k) / float64(n)
	s.Lo, s.Hi = Wilson(k, n)
	s.Miss = math.Pow(1-s.P, float64(m))
	s.MissMax = math.Pow(1-s.Lo, float64(m))
	return s
}

// Wilson is the 95% Wilson score interval of k successes in n trials.
func Wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.96
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	center := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return math.Max(0, center-half), math.Min(1, center+half)
}

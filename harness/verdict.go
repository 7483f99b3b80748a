package harness

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// Status is an obligation's verdict in a run, a cell or a profile.
type Status string

// The statuses.
const (
	Holds        Status = "holds"
	Violated     Status = "violated"
	Undetermined Status = "undetermined"
	NA           Status = "n/a"
)

// Obligations are the contract's obligations, in the profile's order.
var Obligations = model.ObligationIDs()

// RunVerdict is one run's verdict and its evidence.
type RunVerdict struct {
	Run string `json:"run"`
	// KillPoint names the kill point of a crash run (KillPointName): the
	// same point in two runs is the same place in the subject's work.
	KillPoint string `json:"kill_point,omitempty"`
	// Unreached: the run never got to its kill point (it ran to its end
	// without a crash), so it says nothing about the crash it was for:
	// every obligation it would have held is undetermined.
	Unreached bool `json:"unreached,omitempty"`
	// Trace is the trace file, relative to the profile's directory.
	Trace string `json:"trace,omitempty"`
	// Verdict is tracecheck's on the reference semantics: accepted,
	// rejected, unknown; or "error" when the run could not be driven.
	Verdict string `json:"verdict"`
	Events  int    `json:"events"`
	Matched int    `json:"matched"`
	// Explained lists the fault models that accept a rejected trace.
	Explained []string `json:"explained_by,omitempty"`
	// Direct: no fault model explains the trace; the obligations were
	// decided from the ledger and the replies.
	Direct      bool              `json:"direct,omitempty"`
	Divergence  string            `json:"divergence,omitempty"`
	Obligations map[string]Status `json:"obligations"`
	Counts      Counts            `json:"counts"`
	Outcomes    []OutcomeObs      `json:"outcomes,omitempty"`
	Recoveries  []RecoveryObs     `json:"recoveries,omitempty"`
	Consumers   int               `json:"consumers,omitempty"`
	Notes       []string          `json:"notes,omitempty"`
	Problems    []string          `json:"problems,omitempty"`
	// Excerpt is the trace around the first divergent event.
	Excerpt []string `json:"excerpt,omitempty"`
}

// Judge builds a run's trace, checks it against the reference semantics
// and, when it is rejected, finds the fault models that explain it.
func Judge(l *RunLog) (*RunVerdict, *Built, error) {
	// A log is a file a user can edit: its workflow is checked before
	// anything is sized by it.
	if err := l.Workflow.Validate(); err != nil {
		if l.Run == "" {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("run %q: %w", l.Run, err)
	}
	rv := &RunVerdict{Run: l.Run, Obligations: map[string]Status{}, Counts: Count(l.Rows, l.Workflow.Tasks), Problems: l.Problems}
	if len(l.Problems) > 0 {
		// The kill point it was aimed at is kept: the gate names an
		// undriven run at a point the baseline measured (uncoveredRuns).
		rv.Verdict, rv.KillPoint = "error", l.KillAt
		return rv, nil, nil
	}
	b, err := BuildTrace(l)
	if err != nil {
		return nil, nil, err
	}
	rv.Events = len(b.Trace.Events)
	rv.Outcomes, rv.Recoveries, rv.Notes, rv.Consumers = b.Outcomes, b.Recoveries, b.Notes, b.Consumers
	res, err := tracecheck.Check(b.Trace, tracecheck.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("harness: run %s: built an invalid trace: %w", l.Run, err)
	}
	if err := rv.decide(b.Trace, res, directChecks(l, b)); err != nil {
		return nil, nil, err
	}
	if res.Failure != nil {
		rv.Excerpt = excerpt(b, res.Failure.Event.Index)
	}
	if l.KillAt != "" {
		rv.KillPoint = l.KillAt
		rv.Unreached = !slices.ContainsFunc(l.Entries, func(e Entry) bool { return e.Kind == EntryKill })
	}
	rv.Inconclusive()
	return rv, b, nil
}

// KillPointName names a kill point by what the adapter was doing there
// (describeNote's words) and the how-many-th such note it was, e.g.
// "inside task 3, after its effect (occurrence 1)". Crash cells and the
// sweep use it; the regression gate compares runs at equal names.
func KillPointName(what string, occurrence int) string {
	return fmt.Sprintf("%s (occurrence %d)", what, occurrence)
}

// Inconclusive applies the rule for a crash run that never reached its
// kill point: what it held, it held without the crash it was for, so
// each such obligation is undetermined; a violation it saw stays one.
func (rv *RunVerdict) Inconclusive() {
	if !rv.Unreached {
		return
	}
	changed := false
	for o, st := range rv.Obligations {
		if st == Holds {
			rv.Obligations[o] = Undetermined
			changed = true
		}
	}
	const note = "the kill point was not reached: the run is inconclusive for the crash it was for"
	if changed && !slices.Contains(rv.Notes, note) {
		rv.Notes = append(rv.Notes, note)
	}
}

// LegacyKillPoint reads a crash run's kill point from the notes a
// runner of before the kill_point field wrote ("kill at note 7: inside
// task 2, after its effect (occurrence 1; the dry run's note 8)", "kill
// point ... (occurrence 2) was not reached"); a crash cell's run
// (scenario crash) is killed inside task 3 after its effect. It returns
// "" for a run that is no crash run.
func LegacyKillPoint(scenario string, rv *RunVerdict) (point string, unreached bool) {
	if scenario == "crash" {
		return KillPointName(CrashKillWhat, 1), false
	}
	for _, n := range rv.Notes {
		if rest, ok := strings.CutPrefix(n, "kill at note "); ok {
			_, rest, _ = strings.Cut(rest, ": ")
			what, occ, ok := strings.Cut(rest, " (occurrence ")
			if !ok {
				continue
			}
			var k int
			if _, err := fmt.Sscanf(occ, "%d", &k); err == nil {
				return KillPointName(what, k), false
			}
		}
		if rest, ok := strings.CutPrefix(n, "kill point "); ok && strings.HasSuffix(rest, " was not reached") {
			what, occ, ok := strings.Cut(strings.TrimSuffix(rest, " was not reached"), " (occurrence ")
			var k int
			if _, err := fmt.Sscanf(occ, "%d", &k); ok && err == nil {
				return KillPointName(what, k), true
			}
		}
	}
	return "", false
}

// CrashKillWhat is where the crash cells kill: the effect note of task 3.
const CrashKillWhat = "inside task 3, after its effect"

// decide sets the run's verdict and obligations from tracecheck's result
// on its trace and the direct checks (the ledger, the replies, the
// reports): an accepted trace's obligations are tracecheck's; a rejected
// one's are those every explaining fault model agrees on, or, when none
// explains it, the direct checks'; and a violation the direct checks see
// is never overruled. Judge and Recheck share it.
func (rv *RunVerdict) decide(tr *trace.Trace, res *tracecheck.Result, direct map[string]Status) error {
	rv.Verdict = res.Verdict.String()
	rv.Matched = res.Matched
	switch res.Verdict {
	case tracecheck.Accepted:
		for _, o := range res.Obligations {
			rv.Obligations[o.Name] = Status(o.Status)
		}
	default:
		if res.Failure != nil {
			rv.Divergence = fmt.Sprintf("%s: matches no behaviour of the reference semantics", res.Failure.Event)
		} else if res.Reason != "" {
			rv.Divergence = res.Reason
		}
		acc, _, err := tracecheck.Explain(tr, tracecheck.Options{})
		if err != nil {
			return err
		}
		if len(acc) == 0 {
			rv.Direct = true
			for k, v := range direct {
				rv.Obligations[k] = v
			}
			break
		}
		count := map[string]int{}
		for _, e := range acc {
			rv.Explained = append(rv.Explained, e.Name())
			for _, o := range e.Violates {
				count[o]++
			}
		}
		for _, o := range model.SafetyObligations() {
			switch count[o] {
			case len(acc):
				rv.Obligations[o] = Violated
			case 0:
				rv.Obligations[o] = Holds
			default:
				rv.Obligations[o] = Undetermined
			}
		}
		rv.Obligations[model.LV] = direct[model.LV]
	}
	// What the ledger shows directly is never overruled: a duplicate
	// effect is a violation of EO whatever model explains the trace.
	for _, o := range []string{model.EO, model.CO, model.CV, model.FD} {
		if direct[o] == Violated && rv.Obligations[o] != Violated {
			rv.Obligations[o] = Violated
			rv.Notes = append(rv.Notes, o+" violated by direct evidence")
		}
	}
	return nil
}

// directChecks decides the obligations from the ledger, the replies and
// the reports, without the model.
func directChecks(l *RunLog, b *Built) map[string]Status {
	w := l.Workflow
	cv := Undetermined
	if b.Final != nil {
		cv = Holds
		for _, r := range b.Final.Records {
			if w.ValidateState(r.State) != nil {
				cv = Violated
			}
		}
	}
	return directFrom(w, Count(l.Rows, w.Tasks), b.Consumers, b.Outcomes, b.Recoveries, cv, b.Completed, refusedAsConflict(b.Notes))
}

// directFrom is directChecks over the evidence a run verdict keeps: the
// ledger's counts, the racers served, the resumes' outcomes, the
// recoveries' decisions; and what only the run's last checkpoint report
// and replies say: whether the durable records validate (cv), whether a
// reply said completed, and whether a recovery was refused as a conflict
// (held: the killed process's hold, RecoveryRefusedAsConflict).
//
// LV is violated when the run did not complete, except where a recovery
// was refused as a conflict: the harness stopped at a hold that may end
// (a lease, a session the store has not yet seen die), so whether the run
// could still complete is not decided, exactly as an accepted trace that
// ends at such a refusal has LV undetermined. REMIT on PostgreSQL showed
// the difference: killed after task 2's effect with its claim durable, its
// recovery refused, the trace rejected (an effect while parked); the
// direct check said LV violated where the same refusal with the kill a
// moment earlier said undetermined.
func directFrom(w Workflow, c Counts, consumers int, outcomes []OutcomeObs, recoveries []RecoveryObs, cv Status, completed, held bool) map[string]Status {
	st := map[string]Status{model.EO: Holds, model.CO: Holds, model.FD: Holds, model.CV: cv, model.PC: Holds, model.RD: Holds, model.LV: Violated}
	for _, n := range c.Applied {
		if n > 1 {
			st[model.EO] = Violated
		}
	}
	if w.Gate-1 < len(c.Applied) && c.Applied[w.Gate-1] > 1 || consumers > 1 {
		st[model.CO] = Violated
	}
	for _, o := range outcomes {
		if o.Error == "" && o.Role != RoleStray && o.Role != RoleRacer && !o.OwnValue() {
			st[model.FD] = Violated
		}
	}
	for _, r := range recoveries {
		if r.Decision == "replay" || r.Decision == "reexec" {
			st[model.PC] = Violated
		}
	}
	switch {
	case completed:
		st[model.LV] = Holds
	case held:
		st[model.LV] = Undetermined
	}
	return st
}

// excerpt returns the trace's lines around event i (1-based): the event
// before it, it and the one after.
func excerpt(b *Built, i int) []string {
	var buf bytes.Buffer
	if err := b.Trace.Encode(&buf); err != nil {
		return nil
	}
	lines := strings.Split(strings.TrimRight(buf.String(), "\n"), "\n")
	// lines[0] is the header; event i is lines[i]
	lo, hi := max(1, i-1), min(len(lines), i+2)
	if lo >= hi {
		return nil
	}
	return slices.Clone(lines[lo:hi])
}

// Cell is one cell of the study: a scenario on a store, its runs and its
// verdicts for the obligations it measures.
type Cell struct {
	Name     string            `json:"name"`
	Scenario string            `json:"scenario"`
	Store    string            `json:"store"`
	Measures []string          `json:"measures"`
	Status   map[string]Status `json:"status"`
	Summary  string            `json:"summary"`
	// Skipped says why the cell did not run (the status is then n/a).
	Skipped string       `json:"skipped,omitempty"`
	Runs    []RunVerdict `json:"runs,omitempty"`
	// Grid holds the race grid's points (k, jitter, saturation).
	Grid []RacePoint `json:"grid,omitempty"`
	// Constructed says what the adapter builds that the cell's verdict
	// rests on, because the framework lacks it ("" when the verdict is
	// the framework's own): Subject.Constructed.
	Constructed string `json:"constructed,omitempty"`
}

// RacePoint is one point of the race grid.
type RacePoint struct {
	K          int     `json:"k"`
	JitterMS   int     `json:"jitter_ms"`
	Reps       int     `json:"reps"`
	Gated      int     `json:"gated_effects"` // summed over the repetitions
	Served     int     `json:"served"`        // racers whose value reached the gate, summed
	Saturation float64 `json:"saturation"`    // mean of (gated-1)/(k-1)
	CO         Status  `json:"co"`
}

// Aggregate sets a cell's status from its runs: violated if a run
// violated the obligation, holds if every run held it, undetermined
// otherwise. RD is decided across the runs' recoveries.
func (c *Cell) Aggregate() {
	c.Status = map[string]Status{}
	if c.Skipped != "" {
		for _, o := range c.Measures {
			c.Status[o] = NA
		}
		c.Summary = c.Skipped
		return
	}
	for _, o := range c.Measures {
		if o == model.RD {
			continue
		}
		st := Holds
		if len(c.Runs) == 0 {
			st = Undetermined
		}
		for _, r := range c.Runs {
			switch r.Obligations[o] {
			case Violated:
				st = Violated
			case Holds:
			default:
				if st != Violated {
					st = Undetermined
				}
			}
		}
		c.Status[o] = st
	}
	if slices.Contains(c.Measures, model.RD) {
		c.Status[model.RD] = Holds
		if pairs := c.rdConflicts(); len(pairs) > 0 {
			c.Status[model.RD] = Violated
		}
	}
	c.Summary = c.summarize()
}

// rdConflicts lists the durable states from which recoveries decided
// differently.
func (c *Cell) rdConflicts() []string {
	by := map[string]map[string][]string{}
	for _, r := range c.Runs {
		for _, rec := range r.Recoveries {
			if rec.Decision == "" {
				continue
			}
			k := rec.Key()
			if by[k] == nil {
				by[k] = map[string][]string{}
			}
			by[k][rec.Decision] = append(by[k][rec.Decision], r.Run)
		}
	}
	var out []string
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if len(by[k]) < 2 {
			continue
		}
		ds := make([]string, 0, len(by[k]))
		for d, runs := range by[k] {
			ds = append(ds, fmt.Sprintf("%s (%s, e.g. %s)", d, english.Count(len(runs), "run"), runs[0]))
		}
		sort.Strings(ds)
		out = append(out, fmt.Sprintf("from %s: %s", k, strings.Join(ds, " vs ")))
	}
	return out
}

func (c *Cell) summarize() string {
	var parts []string
	viol := map[string]int{}
	explained := map[string]int{}
	direct, undriven, unreached, accepted := 0, 0, 0, 0
	for _, r := range c.Runs {
		for o, s := range r.Obligations {
			if s == Violated {
				viol[o]++
			}
		}
		for _, e := range r.Explained {
			explained[e]++
		}
		if r.Direct {
			direct++
		}
		switch {
		case r.Verdict == "error":
			undriven++
		case r.Unreached:
			unreached++
		case r.Verdict == "accepted":
			accepted++
		}
	}
	for _, o := range c.Measures {
		if c.Status[o] == Violated && o != model.RD {
			parts = append(parts, fmt.Sprintf("%s violated in %d/%s", o, viol[o], english.Count(len(c.Runs), "run")))
		}
	}
	if pairs := c.rdConflicts(); len(pairs) > 0 && slices.Contains(c.Measures, model.RD) {
		parts = append(parts, "RD violated: "+strings.Join(pairs, "; "))
	}
	if len(explained) > 0 {
		names := make([]string, 0, len(explained))
		for e, n := range explained {
			names = append(names, fmt.Sprintf("%s (%d)", e, n))
		}
		sort.Strings(names)
		parts = append(parts, "explained by "+strings.Join(names, ", "))
	}
	if direct > 0 {
		parts = append(parts, fmt.Sprintf("%s outside every fault model (decided from the ledger)", english.Count(direct, "run")))
	}
	if undriven > 0 {
		parts = append(parts, fmt.Sprintf("%s could not be driven (the adapter failed: see the run's problems)", english.Count(undriven, "run")))
	}
	if unreached > 0 {
		parts = append(parts, fmt.Sprintf("%s did not reach the kill point", english.Count(unreached, "run")))
	}
	if len(parts) == 0 && accepted == len(c.Runs) {
		return fmt.Sprintf("%s, every trace accepted", english.Count(len(c.Runs), "run"))
	}
	if len(parts) == 0 {
		parts = append(parts, fmt.Sprintf("%d of %s accepted", accepted, english.Count(len(c.Runs), "trace")))
	}
	return fmt.Sprintf("%s: %s", english.Count(len(c.Runs), "run"), strings.Join(parts, "; "))
}

// Finish decides a cell from its runs: the race grid, the statuses, and
// for the fork cell its half of FI (violated by definition without an
// intent discriminator; with one, it holds when every fork was served its
// own value). The profile's FI also needs the stray cell: see
// Profile.Finish.
func (c *Cell) Finish(sc Scenario, f Features) {
	if sc.Name == "race" && c.Skipped == "" {
		c.Grid = RaceGridOf(c.Runs, sc.Workflow.Gate)
	}
	if sc.Name == "fork" && !f.Fork {
		c.Skipped = ""
		c.Status = map[string]Status{model.FI: Violated, model.FD: NA, model.LV: NA}
		c.Summary = "the subject's resume interface has no fork intent (adapter feature fork=false): a second delivery to a consumed checkpoint cannot be told from a retry (see the fd cell for which of FD and CO it gives up)"
		return
	}
	c.Aggregate()
	if sc.Name == "fork" && c.Skipped == "" {
		// A fork was served its own value exactly where FD holds in its
		// run, so the fork cell's half of FI is its FD over the runs,
		// three-valued: a run that could not be driven, or did not
		// reach its fork, says nothing, and leaves FI undetermined
		// rather than violated.
		c.Status[model.FI] = c.Status[model.FD]
	}
}

// RaceLabel names a race run: k, jitter and repetition.
func RaceLabel(k, jitterMS, rep int) string { return fmt.Sprintf("k%02d-j%02d-r%d", k, jitterMS, rep) }

// RaceGridOf sums a race cell's runs by grid point.
func RaceGridOf(runs []RunVerdict, gate int) []RacePoint {
	var out []RacePoint
	at := map[[2]int]int{}
	for _, r := range runs {
		var k, j, rep int
		if _, err := fmt.Sscanf(r.Run, "k%02d-j%02d-r%d", &k, &j, &rep); err != nil || k < 2 {
			continue
		}
		i, ok := at[[2]int{k, j}]
		if !ok {
			i = len(out)
			at[[2]int{k, j}] = i
			out = append(out, RacePoint{K: k, JitterMS: j, CO: Holds})
		}
		pt := &out[i]
		gated := 0
		if gate-1 < len(r.Counts.Applied) {
			gated = r.Counts.Applied[gate-1]
		}
		pt.Reps++
		pt.Gated += gated
		pt.Served += r.Consumers
		pt.Saturation += float64(max(0, gated-1)) / float64(k-1)
		switch st := r.Obligations[model.CO]; {
		case st == Violated:
			pt.CO = Violated
		case st != Holds && pt.CO == Holds:
			pt.CO = Undetermined
		}
	}
	for i := range out {
		if out[i].Reps > 0 {
			out[i].Saturation /= float64(out[i].Reps)
		}
	}
	return out
}

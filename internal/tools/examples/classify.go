package main

import (
	"fmt"
	"regexp"
	"strings"
)

// Kind is how a model's run compares with the manifest.
type Kind int

const (
	// Skipped: the engine did not run (disabled).
	Skipped Kind = iota
	// Identical: the recorded verdict and counts, all of them.
	Identical
	// Refused: the interpreter declined the spec (a construct it does not
	// support, a name it does not know, a parse error).
	Refused
	// Error: the run failed otherwise (a crash, a missing module, a spec error).
	Error
	// Timeout: the run outlived -timeout.
	Timeout
	// Wrong: the run finished with other counts or another verdict than
	// the manifest's; the worst outcome, since a checker that answers
	// wrongly is worse than one that declines.
	Wrong
)

// Outcome is a Kind and what explains it (the refusal's first line, the
// counts that differ).
type Outcome struct {
	Kind   Kind
	Detail string
}

func (o Outcome) String() string {
	switch o.Kind {
	case Skipped:
		return "-"
	case Identical:
		if o.Detail != "" {
			return "identical (" + o.Detail + ")"
		}
		return "identical"
	case Refused:
		return "refused: " + o.Detail
	case Error:
		return "error: " + o.Detail
	case Timeout:
		return "timeout"
	case Wrong:
		return "WRONG: " + o.Detail
	}
	return fmt.Sprintf("Kind(%d)", int(o.Kind))
}

// Counts are a finished run's figures, in TLC's terms.
type Counts struct {
	Verdict   string // "ok" or "violation"
	Distinct  int64
	Generated int64
	Depth     int64
}

// Observed is what one engine's run gave, before it is judged: the edge
// (run.go) fills it, Classify judges it.
type Observed struct {
	// Ran is false when the engine was not run.
	Ran bool
	// StartErr says why the command could not be started; "" when it was.
	StartErr string
	TimedOut bool
	Exit     int
	// Counts are nil when the run reported none (it failed before the end).
	Counts *Counts
	// Message is what the run said about a failure (the interpreter's
	// stderr, TLC's output), kept for the first line.
	Message string
	Seconds float64
}

// refusal matches the interpreter's messages for a spec it declines
// rather than fails on: "FILE:LINE:COL: ... not supported: CONSTRUCT",
// an undefined name, a parse error.
var refusal = regexp.MustCompile(`(?i)not supported|not defined|neither a constant nor a definition|undefined|unknown operator|parse error|syntax error|unexpected token`)

// ExpectedVerdict is the verdict a manifest result calls for.
func ExpectedVerdict(result string) string {
	if result == "success" {
		return "ok"
	}
	return "violation"
}

// Classify judges one engine's run of m against the manifest. interp
// says the run was the interpreter's (only it can refuse).
func Classify(m Model, o Observed, interp bool) Outcome {
	switch {
	case !o.Ran:
		return Outcome{Kind: Skipped}
	case o.TimedOut:
		return Outcome{Kind: Timeout}
	case o.StartErr != "":
		return Outcome{Kind: Error, Detail: o.StartErr}
	case o.Counts != nil:
		if diff := compare(m, *o.Counts); diff != "" {
			return Outcome{Kind: Wrong, Detail: diff}
		}
		return Outcome{Kind: Identical}
	}
	// tlcrun prefixes its messages with its name; the table needs it not.
	line := strings.TrimPrefix(firstLine(o.Message), "tlcrun: ")
	if interp && o.Exit == 2 && refusal.MatchString(line) {
		return Outcome{Kind: Refused, Detail: line}
	}
	if line == "" {
		return Outcome{Kind: Error, Detail: fmt.Sprintf("exit %d and no message", o.Exit)}
	}
	return Outcome{Kind: Error, Detail: fmt.Sprintf("exit %d: %s", o.Exit, line)}
}

// Judge classifies both runs of m. The interpreter's run is judged
// against the manifest, except where TLC, run here, departs from the
// manifest itself and the interpreter's figures are TLC's to the last
// one: then the interpreter is identical to TLC, and the detail says how
// the manifest differs (TLC at HEAD reports some depths one less than the
// manifests record, for one).
func Judge(m Model, interp, tlc Observed) (interpOutcome, tlcOutcome Outcome) {
	interpOutcome = Classify(m, interp, true)
	tlcOutcome = Classify(m, tlc, false)
	if interpOutcome.Kind == Wrong && tlcOutcome.Kind == Wrong && *interp.Counts == *tlc.Counts {
		interpOutcome = Outcome{Kind: Identical, Detail: "as TLC here, unlike the manifest: " + tlcOutcome.Detail}
	}
	// A figure the manifest does not record (often the states generated)
	// is still TLC's to match: where both searches were complete, any
	// departure from TLC run here is wrong too.
	if interpOutcome.Kind == Identical && interp.Counts != nil && tlc.Counts != nil &&
		interp.Counts.Verdict == "ok" && tlc.Counts.Verdict == "ok" && *interp.Counts != *tlc.Counts {
		i, t := *interp.Counts, *tlc.Counts
		interpOutcome = Outcome{Kind: Wrong, Detail: fmt.Sprintf("unlike TLC here: distinct %d / generated %d / depth %d, TLC %d / %d / %d",
			i.Distinct, i.Generated, i.Depth, t.Distinct, t.Generated, t.Depth)}
	}
	return interpOutcome, tlcOutcome
}

// compare lists where c departs from the manifest's record; "" when it
// does not.
func compare(m Model, c Counts) string {
	var d []string
	if want := ExpectedVerdict(m.Result); c.Verdict != want {
		d = append(d, fmt.Sprintf("verdict %s, manifest %s (%s)", c.Verdict, want, m.Result))
	}
	if m.Distinct != nil && c.Distinct != *m.Distinct {
		d = append(d, fmt.Sprintf("distinct %d, manifest %d", c.Distinct, *m.Distinct))
	}
	if m.Generated != nil && c.Generated != *m.Generated {
		d = append(d, fmt.Sprintf("generated %d, manifest %d", c.Generated, *m.Generated))
	}
	if m.Depth != nil && c.Depth != *m.Depth {
		d = append(d, fmt.Sprintf("depth %d, manifest %d", c.Depth, *m.Depth))
	}
	return strings.Join(d, "; ")
}

// firstLine is the first non-blank line of s, trimmed and shortened to
// fit a table cell.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return ""
}

// Tally counts outcomes by kind.
type Tally struct {
	Models, Identical, Refused, Errors, Timeouts, Wrong int
}

// Add counts one outcome.
func (t *Tally) Add(o Outcome) {
	t.Models++
	switch o.Kind {
	case Identical:
		t.Identical++
	case Refused:
		t.Refused++
	case Error:
		t.Errors++
	case Timeout:
		t.Timeouts++
	case Wrong:
		t.Wrong++
	}
}

func (t Tally) String() string {
	pct := 0.0
	if t.Models > 0 {
		pct = 100 * float64(t.Identical) / float64(t.Models)
	}
	return fmt.Sprintf("%d models: identical %d (%.1f%%), refused %d, errors %d, timeouts %d, WRONG %d",
		t.Models, t.Identical, pct, t.Refused, t.Errors, t.Timeouts, t.Wrong)
}

package tlcout

import (
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Result is what one TLC run reported. Build it with Parse, or feed it the
// messages of a Reader one by one with Add to show progress as TLC runs.
// Fields stay zero for what the run did not report.
type Result struct {
	Version  string // e.g. "2026.04.29.170100"
	Revision string // e.g. "cc6b616"
	// Mode is how TLC explores: "breadth-first search Model-Checking",
	// "depth-first search Model-Checking" or e.g. "Random Simulation".
	Mode    string
	Workers int
	Seed    int64
	Started string // as TLC printed it, e.g. "2026-12-02 13:11:48"

	InitialGenerated int64 // initial states generated (2190/2191)
	InitialDistinct  int64 // of which distinct

	Progress       []Progress      // 2200 (and 2206/2209) reports, in order
	Stats          *Stats          // final counts (2199, 2204, 2210)
	Depth          int             // depth of the state graph search (2194)
	Outdegree      *Outdegree      // 2268
	TemporalChecks []TemporalCheck // 2192: liveness checking runs
	Success        *Success        // 2193: no error found

	// Violations are the properties found false: invariants, action and
	// temporal properties, deadlock, assumptions, Assert, postconditions.
	Violations []Issue
	// Errors are what kept TLC from checking: evaluation errors, bad
	// configurations, parse failures, system errors, TLC bugs.
	Errors []Issue
	// SpecErrors are SANY's parse and semantic errors and warnings, with
	// their positions in the spec.
	SpecErrors []SpecError
	Warnings   []Issue // messages of warning class
	// Output holds the lines outside any message: SANY's log and the
	// spec's Print output.
	Output []string

	Finished bool   // TLC reached its final message (2186)
	Elapsed  string // as TLC printed it, e.g. "579ms" or "01min 02s"

	// ModuleFiles maps each module SANY parsed to the file it read, as
	// printed (so that positions in a module can name the file).
	ModuleFiles map[string]string

	// Set by the code that ran TLC (tla/tlc's Run): the process's
	// exit code, its wall time, its CPU time (user and system), its peak
	// resident memory in bytes (0 where the system does not say), the
	// command line, the end of what it wrote to stderr, and the model
	// file TLC read (named by configuration errors). PeakRSSAtMost: the
	// peak is only an upper bound (package childmem).
	ExitCode      int
	Wall          time.Duration
	CPU           time.Duration
	PeakRSS       int64
	PeakRSSAtMost bool
	Command       []string
	Stderr        string
	Cfg           string
	// assumptions holds the spec's text of each false ASSUME
	// (ReadAssumptions).
	assumptions map[Location]string

	// The issue that traces and nested-expression messages belong to, as
	// an index: pointers into the slices would go stale as they grow.
	haveLast    bool
	lastIsViol  bool
	lastIndex   int
	trace       *Trace // the trace being printed
	sany        []Message
	sanyDone    bool
	seenMessage bool
	sawError    bool       // a message of error or bug class arrived
	status      ExitStatus // of the first error message that has one
}

// ProgressSoFar says in one sentence how far TLC had got, for a run
// that was stopped before its end: its last progress report, else the
// initial states it had computed, else the phase it was in.
func (r *Result) ProgressSoFar() string {
	if n := len(r.Progress); n > 0 {
		p := r.Progress[n-1]
		return fmt.Sprintf("TLC's last progress report (%s): %s states generated, %s distinct states found, %s states left on queue; depth %d.",
			p.Time, commas(p.Generated), commas(p.Distinct), commas(p.Queue), p.Depth)
	}
	switch {
	case r.InitialDistinct > 0:
		return fmt.Sprintf("TLC had computed %s distinct initial %s and had not reported progress yet (it reports once a minute).",
			commas(r.InitialDistinct), pluralWord(r.InitialDistinct, "state", "states"))
	case r.sanyDone:
		return "TLC had parsed the spec and was computing the initial states."
	case r.seenMessage:
		return "TLC was starting: it had not finished parsing the spec."
	}
	return "TLC had not started: Java was still starting."
}

// commas writes n with thousands separators, as TLC does.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func pluralWord(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Progress is one progress report.
type Progress struct {
	Depth     int    // the N of "Progress(N)", -1 where not applicable
	Time      string // as TLC printed it
	Generated int64
	Distinct  int64 // -1 where not applicable (simulation)
	Queue     int64 // -1 where not applicable
	// Rates per minute, when TLC printed them (0 otherwise).
	GeneratedPerMinute, DistinctPerMinute int64
	InputLine                             int
}

// Stats are the final state counts. Queue and Distinct are -1 where the
// mode has none (depth-first search has no queue, simulation neither).
type Stats struct {
	Generated, Distinct, Queue int64
}

// Outdegree summarises the state graph's outdegrees (2268).
type Outdegree struct {
	Min, Max, Average, Percentile95 int64
}

// TemporalCheck is one run of liveness checking (2192).
type TemporalCheck struct {
	Complete  bool  // over the complete state space, not the current one
	Distinct  int64 // states in the space checked
	InputLine int
}

// Success carries the fingerprint collision estimates of a successful run.
type Success struct {
	// CollisionProbability is TLC's "calculated (optimistic)" estimate.
	CollisionProbability float64
	// ActualCollisionProbability is the estimate "based on the actual
	// fingerprints", which TLC prints only sometimes (0 otherwise).
	ActualCollisionProbability float64
	InputLine                  int
}

// Kind classifies an Issue.
type Kind int

// The kinds of issue.
const (
	KindOther          Kind = iota
	KindInvariant           // 2107, 2110
	KindActionProperty      // 2112
	KindTemporal            // 2108, 2116
	KindDeadlock            // 2114
	KindAssumption          // 2104, 2105
	KindAssert              // 2132
	KindPostcondition       // 2404, 2405
	KindEvaluation          // the spec could not be evaluated (1000, 2111, ...)
	KindConfig              // the configuration is wrong
	KindParse               // SANY failed (see SpecErrors)
	KindSystem              // memory, disk or other trouble of the machine
	KindBug                 // TLC reports a bug of its own
)

var kindNames = [...]string{"other", "invariant", "action property", "temporal property", "deadlock",
	"assumption", "assert", "postcondition", "evaluation", "configuration", "parse", "system", "TLC bug"}

// ViolationKind is the kind a check report gives a violation of this
// kind ("invariant", "liveness" or "deadlock", as check.Violation.Kind);
// ok is false for an issue that is not a violation of the spec.
func (k Kind) ViolationKind() (kind string, ok bool) {
	switch k {
	case KindInvariant, KindAssert, KindPostcondition:
		return "invariant", true
	case KindTemporal, KindActionProperty:
		return "liveness", true
	case KindDeadlock:
		return "deadlock", true
	}
	return "", false
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Issue is a violation or error that TLC reported.
type Issue struct {
	Kind     Kind
	Code     Code
	Severity Severity
	// Names are the violated invariants or properties; for an assumption,
	// its location as TLC prints it.
	Names   []string
	Message string // the message's text
	// Locations are the spec positions the message names, followed by
	// those of a nested-expression message (2103) that TLC printed after
	// it, innermost last.
	Locations []Location
	Trace     *Trace // the error trace TLC printed for it, if any
	InputLine int
}

// SpecError is an error or warning of SANY, TLA+'s parser.
type SpecError struct {
	// File is the file SANY was parsing, as printed ("" if unknown).
	File string
	// Location is where in which module; BeginLine is 0 when SANY named
	// no position. Parse errors name a point, so End equals Begin.
	Location
	Message   string
	Warning   bool
	InputLine int
}

func (e SpecError) String() string {
	return e.Location.String() + ": " + e.Message
}

// Parse reads TLC's -tool output (a whole run, or as much as there is) and
// returns what it reported. Messages whose bodies cannot be read are
// reported in the error, which wraps ErrMalformed and names their lines,
// and skipped; the Result holds everything else. Output without a single
// message gives ErrNoMessages.
func Parse(r io.Reader) (*Result, error) {
	res := &Result{}
	err := res.Read(r, nil)
	return res, err
}

// Read adds TLC's messages from in to r as they come, and gives each to
// progress when it is not nil; errors are Parse's. After a marker it
// cannot read it drains in, so that a TLC writing into a pipe is not
// blocked on a full one.
func (r *Result) Read(in io.Reader, progress func(Message)) error {
	rd := NewReader(in)
	var errs []error
	for {
		m, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, err)
			_, _ = io.Copy(io.Discard, in)
			break
		}
		if err := r.Add(m); err != nil {
			errs = append(errs, err)
		}
		if progress != nil {
			progress(m)
		}
	}
	r.finishSANY()
	if !r.seenMessage && len(errs) == 0 {
		errs = append(errs, ErrNoMessages)
	}
	return errors.Join(errs...)
}

// ErrNoMessages says the input held no -tool message at all: TLC ran
// without -tool, or did not start.
var ErrNoMessages = errors.New("tlc: no -tool messages in the output (was TLC run with -tool?)")

// ExitStatus is the exit status TLC gives a run that printed the messages
// added to r: that of the first error message with a status of its own
// (ExitStatusFor), ExitError if error messages had none, ExitSuccess
// without error messages. Comparing it with the process's real status
// tells whether the output was read in full.
func (r *Result) ExitStatus() ExitStatus {
	switch {
	case r.status != ExitSuccess:
		return r.status
	case r.sawError:
		return ExitError
	}
	return ExitSuccess
}

// Trace returns the first error trace TLC printed, or nil.
func (r *Result) Trace() *Trace {
	var first *Issue
	for _, list := range [][]Issue{r.Violations, r.Errors} {
		for i := range list {
			if is := &list[i]; is.Trace != nil && (first == nil || is.InputLine < first.InputLine) {
				first = is
			}
		}
	}
	if first == nil {
		return nil
	}
	return first.Trace
}

// Add updates r with one message. An error names the line of a message
// whose body is not as TLC writes it; r is still usable.
func (r *Result) Add(m Message) error {
	if m.Code == Untagged {
		text := strings.Join(m.Lines, "\n")
		r.Output = append(r.Output, text)
		if !r.sanyDone {
			r.sany = append(r.sany, m)
		}
		return nil
	}
	if r.Finished {
		// TLC's distributed server has its fingerprint set say goodbye
		// after its end.
		if m.Code == CodeFPCompleted {
			return nil
		}
		// TLC's last message is its end (2186): more is another run's
		// output appended, which would overwrite this one's figures.
		return fmt.Errorf("tlc: malformed output: line %d: message %d after TLC's final message (the output of two runs in one?)", m.InputLine, m.Code)
	}
	r.seenMessage = true
	if m.Severity == SeverityError || m.Severity == SeverityBug {
		r.sawError = true
		if r.status == ExitSuccess && hasExitStatus(m.Code) {
			r.status = ExitStatusFor(m.Code)
		}
	}
	text := m.Text()
	switch m.Code {
	case CodeVersion:
		v := strings.TrimPrefix(text, "TLC2 Version ")
		r.Version, r.Revision, _ = strings.Cut(v, " (rev: ")
		r.Revision = strings.TrimSuffix(r.Revision, ")")
	case CodeModeMC, CodeModeMCDFS, CodeModeSimulation:
		return r.mode(m, text)
	case CodeSANYEnd:
		r.finishSANY()
	case CodeStarting:
		r.Started = between(text, "(", ")")
	case CodeInitGenerated1, CodeInitGenerated2, CodeInitGenerated4:
		return r.initial(m, text)
	case CodeProgressStats, CodeProgressStatsDFID, CodeProgressSimulation:
		return r.progress(m, text)
	case CodeStats, CodeStatsDFID, CodeStatsSimulation:
		return r.stats(m, text)
	case CodeSearchDepth:
		n, err := r.ints(m, text, searchDepthRE)
		if err == nil {
			r.Depth = int(n[0])
		}
		return err
	case CodeStateGraphOutdegree:
		n, err := r.ints(m, text, outdegreeRE)
		if err == nil {
			r.Outdegree = &Outdegree{Average: n[0], Min: n[1], Max: n[2], Percentile95: n[3]}
		}
		return err
	case CodeCheckingTemporalProps:
		mm := temporalRE.FindStringSubmatch(text)
		if mm == nil {
			return malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
		}
		if err := inRange(m, mm); err != nil {
			return err
		}
		r.TemporalChecks = append(r.TemporalChecks, TemporalCheck{Complete: mm[1] == "complete", Distinct: number(mm[2]), InputLine: m.InputLine})
	case CodeSuccess:
		return r.success(m, text)
	case CodeFinished:
		r.Finished = true
		r.Elapsed = between(text, "Finished in ", " at")
	case CodeBehaviorUpToThisPoint, CodeCounterExample, CodeErrorState:
		r.startTrace(m)
	case CodeStatePrint1, CodeStatePrint2:
		ts, err := parseStateMessage(m)
		if err != nil {
			return err
		}
		if r.trace == nil || ts.Number == 1 && len(r.trace.States) > 0 {
			r.startTrace(m)
		}
		r.trace.States = append(r.trace.States, ts)
	case CodeStatePrint3:
		if r.trace == nil {
			return malformed(m.InputLine, "stuttering marker without a trace")
		}
		r.trace.Stuttering = true
		r.trace = nil
	case CodeBackToState:
		return r.backTo(m, text)
	case CodeNestedExpression:
		if last := r.lastIssue(); last != nil {
			last.Locations = append(last.Locations, FindLocations(text)...)
		}
	case CodeParsingFailed, CodeParsingFailed2:
		r.finishSANY()
		r.issue(m, KindParse, nil, false)
	default:
		switch m.Severity {
		case SeverityError, SeverityBug:
			kind, violation := classify(m.Code)
			if m.Severity == SeverityBug {
				kind = KindBug
			}
			names, err := r.names(m, text)
			r.issue(m, kind, names, violation)
			if err == nil && (m.Code == CodeInvariantViolatedInitial || m.Code == CodePropertyViolatedInitial) {
				err = r.initialState(m)
			}
			return err
		case SeverityWarning:
			r.Warnings = append(r.Warnings, Issue{Kind: KindOther, Code: m.Code, Severity: m.Severity, Message: text, Locations: FindLocations(text), InputLine: m.InputLine})
		}
	}
	return nil
}

// issue records a violation or error and makes it the one that later
// traces belong to.
func (r *Result) issue(m Message, kind Kind, names []string, violation bool) {
	text := m.Text()
	is := Issue{Kind: kind, Code: m.Code, Severity: m.Severity, Names: names,
		Message: text, Locations: FindLocations(text), InputLine: m.InputLine}
	r.haveLast, r.lastIsViol = true, violation
	if violation {
		r.Violations = append(r.Violations, is)
		r.lastIndex = len(r.Violations) - 1
	} else {
		r.Errors = append(r.Errors, is)
		r.lastIndex = len(r.Errors) - 1
	}
	r.trace = nil
}

// lastIssue returns the latest issue, or nil. The pointer is good until
// the next issue is added.
func (r *Result) lastIssue() *Issue {
	switch {
	case !r.haveLast:
		return nil
	case r.lastIsViol:
		return &r.Violations[r.lastIndex]
	}
	return &r.Errors[r.lastIndex]
}

// classify gives the kind of an error message and whether it says that a
// property is false (rather than that TLC could not check it).
func classify(c Code) (Kind, bool) {
	switch c {
	case CodeInvariantViolatedInitial, CodeInvariantViolatedBehavior:
		return KindInvariant, true
	case CodeActionPropertyViolatedBehavior:
		return KindActionProperty, true
	case CodePropertyViolatedInitial, CodeTemporalPropertyViolated:
		return KindTemporal, true
	case CodeDeadlockReached:
		return KindDeadlock, true
	case CodeAssumptionFalse:
		return KindAssumption, true
	case CodeValueAssertFailed:
		return KindAssert, true
	case CodePostconditionFalse:
		return KindPostcondition, true
	case CodeAssumptionEvaluationError:
		return KindAssumption, false
	case CodePostconditionEvaluationError:
		return KindPostcondition, false
	case CodeSystemOutOfMemory, CodeSystemOutOfMemoryTooManyInit, CodeSystemOutOfMemoryLiveness, CodeSystemStackOverflow,
		CodeMetadirExists, CodeMetadirCanNotBeCreated:
		return KindSystem, false
	case CodeBug, CodeFailedToRecoverInit, CodeFailedToRecoverNext, CodeFingerprintException:
		return KindBug, false
	}
	if ExitStatusFor(c) == ExitErrorConfigParse || 5001 <= c && c <= 5006 ||
		c == CodeConfigNoSpecButProperty || c == CodeConfigNoFairnessButLiveProperty {
		return KindConfig, false
	}
	return KindEvaluation, false
}

var (
	nameInvariantRE = regexp.MustCompile(`^Invariant (\S+) is violated`)
	// A property TLC cannot name (a conjunct of an instantiated
	// module's formula: Spec == I!Spec) is named by its location,
	// "line 28, col 6 to line 28, col 33 of module M".
	nameActionRE   = regexp.MustCompile(`^Action property (\S+|line \d+, col \d+ to line \d+, col \d+ of module \S+) is violated`)
	nameInitPropRE = regexp.MustCompile(`^Property (\S+|line \d+, col \d+ to line \d+, col \d+ of module \S+) is violated by the initial state`)
	nameAssumeRE   = regexp.MustCompile(`^(?:Assumption|Evaluating assumption) (.+?) (?:is false\.|failed\.)`)
	namePostRE     = regexp.MustCompile(`^(?:Postcondition|Evaluating postcondition) (\S+) at `)
	nameEvalRE     = regexp.MustCompile(`^Evaluating (?:invariant|action property) (\S+) failed`)
	nameTemporalRE = regexp.MustCompile(`^Temporal propert(?:y|ies) (.*?) (?:was|were) violated\.`)
)

// names extracts the names of the violated invariants or properties.
func (r *Result) names(m Message, text string) ([]string, error) {
	first, _, _ := strings.Cut(text, "\n")
	var re *regexp.Regexp
	switch m.Code {
	case CodeInvariantViolatedInitial, CodeInvariantViolatedBehavior:
		re = nameInvariantRE
	case CodeActionPropertyViolatedBehavior:
		re = nameActionRE
	case CodePropertyViolatedInitial:
		re = nameInitPropRE
	case CodeAssumptionFalse, CodeAssumptionEvaluationError:
		re = nameAssumeRE
	case CodePostconditionFalse, CodePostconditionEvaluationError:
		re = namePostRE
	case CodeInvariantEvaluationFailed, CodeActionPropertyEvaluationFailed:
		re = nameEvalRE
	case CodeTemporalPropertyViolated:
		if first == "Temporal properties were violated." {
			return nil, nil
		}
		mm := nameTemporalRE.FindStringSubmatch(first)
		if mm == nil {
			return nil, malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, first)
		}
		// "A", "A and B", "A, B, and C"
		list := strings.ReplaceAll(mm[1], ", and ", ", ")
		list = strings.ReplaceAll(list, " and ", ", ")
		return strings.Split(list, ", "), nil
	default:
		return nil, nil
	}
	mm := re.FindStringSubmatch(first)
	if mm == nil {
		return nil, malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, first)
	}
	return []string{mm[1]}, nil
}

// initialState records the state that an initial-state violation prints
// after its first line as a one-state trace.
func (r *Result) initialState(m Message) error {
	if len(m.Lines) == 0 {
		return nil
	}
	body := m.Lines[1:]
	for len(body) > 0 && strings.TrimSpace(body[len(body)-1]) == "" {
		body = body[:len(body)-1]
	}
	vars, err := parseVars(m, 1, body)
	if err != nil {
		return err
	}
	r.lastIssue().Trace = &Trace{States: []TraceState{{Number: 1, Action: Action{Name: initialPredicate, Label: initialPredicate},
		Vars: vars, InputLine: m.InputLine}}}
	return nil
}

// startTrace begins a trace belonging to the latest issue, or to a new
// issue of kind other if TLC printed a trace before any error.
func (r *Result) startTrace(m Message) {
	if last := r.lastIssue(); last == nil || last.Trace != nil {
		r.issue(m, KindOther, nil, false)
	}
	r.trace = &Trace{}
	r.lastIssue().Trace = r.trace
}

// backTo reads "N: Back to state: <action>", which ends a lasso.
func (r *Result) backTo(m Message, text string) error {
	if r.trace == nil {
		return malformed(m.InputLine, "back-to-state marker without a trace")
	}
	numStr, rest, ok := strings.Cut(text, ":")
	n, err := strconv.Atoi(strings.TrimSpace(numStr))
	rest = strings.TrimSpace(rest)
	if !ok || err != nil || n < 1 || !strings.HasPrefix(rest, "Back to state") {
		return malformed(m.InputLine, "expected \"N: Back to state: <action>\", found %q", text)
	}
	r.trace.LoopTo = n
	if label := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(rest, "Back to state"), ":")); label != "" {
		r.trace.LoopAction = parseAction(label)
	}
	r.trace = nil
	return nil
}

var (
	modeRE        = regexp.MustCompile(`^Running (.+?) with (?:fp \d+ and )?seed (-?\d+) with (\d+) workers? on`)
	initialRE1    = regexp.MustCompile(`^Finished computing initial states: ([\d,.']+) distinct state(?:s|\(s\))? generated`)
	initialRE2    = regexp.MustCompile(`^Finished computing initial states: ([\d,.']+) states? generated, with ([\d,.']+) of them distinct`)
	progressRE    = regexp.MustCompile(`^Progress\((-?[\d,.']+)\) at (.+?): (-?[\d,.']+) states generated(?: \((-?[\d,.']+) s/min\))?, (-?[\d,.']+) distinct states found(?: \((-?[\d,.']+) ds/min\))?, (-?[\d,.']+) states left on queue\.`)
	statsRE       = regexp.MustCompile(`^([\d,.']+) states generated, ([\d,.']+) distinct states found(?:, ([\d,.']+) states left on queue)?\.`)
	statsSimRE    = regexp.MustCompile(`^The number of states generated: ([\d,.']+)`)
	searchDepthRE = regexp.MustCompile(`^The depth of the complete state graph search is (-?[\d,.']+)\.`)
	outdegreeRE   = regexp.MustCompile(`^The average outdegree of the complete state graph is ([\d,.']+) \(minimum is ([\d,.']+), the maximum ([\d,.']+) and the 95th percentile is ([\d,.']+)\)`)
	// "Checking temporal properties ...", "Checking 2 branches of
	// temporal properties ..." (a property that is a disjunction).
	temporalRE  = regexp.MustCompile(`^Checking (?:\S+ |\d+ branches of )?temporal properties for the (complete|current) state space with ([\d,.']+) total distinct states`)
	collisionRE = regexp.MustCompile(`(calculated \(optimistic\)|based on the actual fingerprints):\s+val = (\S+)`)
)

// number reads a count as TLC prints it, with the grouping separators of
// Java's DecimalFormat ("10,121").
func number(s string) int64 {
	neg := strings.HasPrefix(s, "-")
	var n int64
	for _, c := range s {
		if '0' <= c && c <= '9' {
			n = n*10 + int64(c-'0')
		}
	}
	if neg {
		return -n
	}
	return n
}

// inRange refuses a message whose numbers do not fit an int64: number
// would wrap them around, and a count of 2^64 + 87 states must not read
// as 87.
func inRange(m Message, groups []string) error {
	for _, g := range groups[1:] {
		digits := strings.TrimLeft(strings.Map(func(c rune) rune {
			if '0' <= c && c <= '9' {
				return c
			}
			return -1
		}, g), "0")
		if len(digits) > 19 || len(digits) == 19 && digits > "9223372036854775807" {
			return malformed(m.InputLine, "message %d: the number %s is out of range", m.Code, g)
		}
	}
	return nil
}

// ints matches text against re and returns its groups as numbers.
func (r *Result) ints(m Message, text string, re *regexp.Regexp) ([]int64, error) {
	mm := re.FindStringSubmatch(text)
	if mm == nil {
		return nil, malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
	}
	if err := inRange(m, mm); err != nil {
		return nil, err
	}
	ns := make([]int64, len(mm)-1)
	for i, g := range mm[1:] {
		ns[i] = number(g)
	}
	return ns, nil
}

func (r *Result) mode(m Message, text string) error {
	mm := modeRE.FindStringSubmatch(text)
	if mm == nil {
		return malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
	}
	r.Mode = mm[1]
	r.Seed, _ = strconv.ParseInt(mm[2], 10, 64)
	r.Workers = int(number(mm[3]))
	return nil
}

func (r *Result) initial(m Message, text string) error {
	if mm := initialRE1.FindStringSubmatch(text); mm != nil {
		if err := inRange(m, mm); err != nil {
			return err
		}
		r.InitialGenerated = number(mm[1])
		r.InitialDistinct = r.InitialGenerated
		return nil
	}
	if mm := initialRE2.FindStringSubmatch(text); mm != nil {
		if err := inRange(m, mm); err != nil {
			return err
		}
		r.InitialGenerated, r.InitialDistinct = number(mm[1]), number(mm[2])
		return nil
	}
	return malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
}

func (r *Result) progress(m Message, text string) error {
	mm := progressRE.FindStringSubmatch(text)
	if mm == nil {
		return malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
	}
	if err := inRange(m, mm); err != nil {
		return err
	}
	r.Progress = append(r.Progress, Progress{
		Depth: int(number(mm[1])), Time: mm[2],
		Generated: number(mm[3]), GeneratedPerMinute: number(mm[4]),
		Distinct: number(mm[5]), DistinctPerMinute: number(mm[6]),
		Queue: number(mm[7]), InputLine: m.InputLine,
	})
	return nil
}

func (r *Result) stats(m Message, text string) error {
	if m.Code == CodeStatsSimulation {
		mm := statsSimRE.FindStringSubmatch(text)
		if mm == nil {
			return malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
		}
		if err := inRange(m, mm); err != nil {
			return err
		}
		r.Stats = &Stats{Generated: number(mm[1]), Distinct: -1, Queue: -1}
		return nil
	}
	mm := statsRE.FindStringSubmatch(text)
	if mm == nil {
		return malformed(m.InputLine, "unexpected text of message %d: %q", m.Code, text)
	}
	if err := inRange(m, mm); err != nil {
		return err
	}
	r.Stats = &Stats{Generated: number(mm[1]), Distinct: number(mm[2]), Queue: -1}
	if mm[3] != "" {
		r.Stats.Queue = number(mm[3])
	}
	return nil
}

func (r *Result) success(m Message, text string) error {
	s := &Success{InputLine: m.InputLine}
	for _, mm := range collisionRE.FindAllStringSubmatch(text, -1) {
		p, err := strconv.ParseFloat(mm[2], 64)
		if err != nil {
			return malformed(m.InputLine, "bad collision probability %q", mm[2])
		}
		if strings.HasPrefix(mm[1], "calculated") {
			s.CollisionProbability = p
		} else {
			s.ActualCollisionProbability = p
		}
	}
	r.Success = s
	return nil
}

// between returns the text between the first open and the following close.
func between(s, open, close string) string {
	_, rest, ok := strings.Cut(s, open)
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(rest, close)
	return in
}

// SANY's messages, which reach the output as untagged lines.
var (
	parsingFileRE  = regexp.MustCompile(`^Parsing file (\S+)`)
	parseAtRE      = regexp.MustCompile(`at line (\d+), column (\d+)`)
	lexicalRE      = regexp.MustCompile(`^Lexical error at line (\d+), column (\d+)\.\s*(.*)$`)
	couldNotParse  = regexp.MustCompile(`^Could not parse module (\S+) from file (\S+)`)
	inModuleRE     = regexp.MustCompile(`^In module ([A-Za-z0-9_]+)$`)
	semanticHeadRE = regexp.MustCompile(`^\*\*\* (Errors|Warnings): \d+$`)
	fatalHeadRE    = regexp.MustCompile(`^Fatal errors while parsing TLA\+ spec in file (\S+)`)
)

// finishSANY reads SANY's log, once, when SANY has finished.
func (r *Result) finishSANY() {
	if r.sanyDone {
		return
	}
	r.sanyDone = true
	lines := r.sany
	r.sany = nil
	files := map[string]string{} // module name -> file parsed for it
	var (
		file      string // the file being parsed
		warning   bool   // inside a "*** Warnings:" section
		semantic  bool   // inside a section of located errors
		cur       *SpecError
		haveFatal bool
		// fallback: the words of a "Fatal errors" section, for an error
		// this reader does not know the form of.
		fatalSection bool
		fallback     *SpecError
	)
	moduleOf := func(f string) string { return strings.TrimSuffix(path.Base(f), ".tla") }
	flush := func() {
		if cur != nil {
			cur.Message = strings.TrimSpace(cur.Message)
			r.SpecErrors = append(r.SpecErrors, *cur)
			cur = nil
		}
	}
	for i := 0; i < len(lines); i++ {
		text := strings.TrimRight(strings.Join(lines[i].Lines, " "), " \t")
		lineNo := lines[i].InputLine
		switch {
		case parsingFileRE.MatchString(text):
			flush()
			file = parsingFileRE.FindStringSubmatch(text)[1]
			files[moduleOf(file)] = file
			if r.ModuleFiles == nil {
				r.ModuleFiles = map[string]string{}
			}
			r.ModuleFiles[moduleOf(file)] = file
			semantic = false
		case text == "***Parse Error***":
			flush()
			// The message runs to the blank line before the stack trace.
			var msg []string
			for i+1 < len(lines) && strings.TrimSpace(strings.Join(lines[i+1].Lines, " ")) != "" {
				i++
				msg = append(msg, strings.TrimSpace(strings.Join(lines[i].Lines, " ")))
			}
			e := SpecError{File: file, Location: Location{Module: moduleOf(file)}, Message: strings.Join(msg, "\n"), InputLine: lineNo}
			if mm := parseAtRE.FindStringSubmatch(e.Message); mm != nil {
				e.BeginLine, e.BeginCol = int(number(mm[1])), int(number(mm[2]))
				e.EndLine, e.EndCol = e.BeginLine, e.BeginCol
			}
			r.SpecErrors = append(r.SpecErrors, e)
			haveFatal = true
		case lexicalRE.MatchString(text):
			flush()
			mm := lexicalRE.FindStringSubmatch(text)
			l, c := int(number(mm[1])), int(number(mm[2]))
			r.SpecErrors = append(r.SpecErrors, SpecError{File: file, Location: Location{Module: moduleOf(file),
				BeginLine: l, BeginCol: c, EndLine: l, EndCol: c}, Message: "Lexical error: " + mm[3], InputLine: lineNo})
			haveFatal = true
		case fatalHeadRE.MatchString(text):
			flush()
			fatalSection = true
		case semanticHeadRE.MatchString(text):
			flush()
			fatalSection = false
			warning = strings.Contains(text, "Warnings")
			semantic = true
		case semantic && text == "Unknown location":
			// An error SANY cannot place, such as a file whose name is not
			// its module's: the file being parsed, no position.
			flush()
			cur = &SpecError{File: file, Location: Location{Module: moduleOf(file)}, Warning: warning, InputLine: lineNo}
		case text == "Semantic errors:":
			flush()
		case semantic && isLocation(text):
			flush()
			loc, _ := ParseLocation(text)
			cur = &SpecError{File: files[loc.Module], Location: loc, Warning: warning, InputLine: lineNo}
		case semantic && inModuleRE.MatchString(text):
			flush()
			if mod := inModuleRE.FindStringSubmatch(text)[1]; !haveFatal {
				cur = &SpecError{File: files[mod], Location: Location{Module: mod}, Warning: warning, InputLine: lineNo}
			}
		case cur != nil:
			if strings.TrimSpace(text) != "" {
				if cur.Message != "" {
					cur.Message += "\n"
				}
				cur.Message += strings.TrimSpace(text)
			}
		case !haveFatal && couldNotParse.MatchString(text):
			mm := couldNotParse.FindStringSubmatch(text)
			r.SpecErrors = append(r.SpecErrors, SpecError{File: file, Location: Location{Module: mm[1]}, Message: text, InputLine: lineNo})
			haveFatal = true
		case fatalSection && strings.TrimSpace(text) != "" && text != "Unknown location" && !inModuleRE.MatchString(text):
			if fallback == nil {
				fallback = &SpecError{File: file, Location: Location{Module: moduleOf(file)}, InputLine: lineNo}
			}
			fallback.Message = strings.TrimSpace(fallback.Message + " " + strings.TrimSpace(text))
		}
	}
	flush()
	if fallback != nil && !slices.ContainsFunc(r.SpecErrors, func(e SpecError) bool { return !e.Warning }) {
		// SANY said why in a form not read above: pass its words on
		// rather than TLC's "Parsing or semantic analysis failed."
		r.SpecErrors = append(r.SpecErrors, *fallback)
	}
}

// isLocation reports whether text is a location and nothing else.
func isLocation(text string) bool {
	_, ok := ParseLocation(text)
	return ok
}

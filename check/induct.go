package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resumecontract/resumecheck/tla/eval"
	"github.com/resumecontract/resumecheck/tla/interp"
	"github.com/resumecontract/resumecheck/tla/syntax"
	"github.com/resumecontract/resumecheck/tla/tlacfg"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/tlavalue"
)

// InductJob is a candidate invariant of an interpreted spec, to be
// checked inductive relative to a type invariant (tlcrun induct): the
// states the type invariant and the candidate allow, enumerated from the
// type's domains rather than reached from Init.
type InductJob struct {
	CfgPath, SpecPath string
	// Type is the type invariant, Inv the candidate.
	Type, Inv string
	sp        *interp.Spec
	// reach is the model as check explores it (Reachable).
	reach *Job
}

// InductInput names what tlcrun induct checks.
type InductInput struct {
	// Cfg is the model's cfg, Spec its spec ("": as SpecFor finds it)
	// and Lib the folders searched for modules after the spec's own.
	Cfg, Spec string
	Lib       []string
	// Type is the type invariant, Inv the candidate ("": the cfg's one
	// invariant other than Type).
	Type, Inv string
	// Late tests the candidate only on complete states of Type's domain
	// (eval.DomainConfig.Late): for the tests that hold the early tests
	// to the plain enumeration.
	Late bool
}

// LoadInduct reads the cfg and the spec as the interpreter does for
// check (LoadInterpreted: what check refuses, this refuses), compiled
// with the enumeration of Type /\ Inv. A cfg whose CONSTRAINT,
// ACTION_CONSTRAINT or SYMMETRY would change which states or steps count
// is refused: the induction is over every state of the type's domain and
// every step of Next.
func LoadInduct(in InductInput) (*InductJob, error) {
	cfgPath, specPath, lib, typ, inv := in.Cfg, in.Spec, in.Lib, in.Type, in.Inv
	if err := CfgArg(cfgPath); err != nil {
		return nil, err
	}
	specPath = SpecFor(cfgPath, specPath)
	cfg, err := tlacfg.ParseFileAny(cfgPath)
	if err != nil {
		return nil, inputf("%v", err)
	}
	// Loaded as check loads it first, so that the same cfg is refused the
	// same way.
	reach, err := FromConfigInterpreted(cfg, specPath, lib...)
	if err != nil {
		return nil, err
	}
	var refused []string
	for _, c := range cfg.Constraints {
		refused = append(refused, fmt.Sprintf("%s:%d: CONSTRAINT %s", cfg.Path, cfg.Line("CONSTRAINTS", c), c))
	}
	for _, section := range []string{"ACTION_CONSTRAINTS", "SYMMETRY"} {
		for _, n := range cfg.Other[section] {
			refused = append(refused, fmt.Sprintf("%s:%d: %s %s", cfg.Path, cfg.Line(section, n), strings.TrimSuffix(section, "S"), n))
		}
	}
	if len(refused) > 0 {
		return nil, inputf("%s: induct checks every state of the type's domain and every step of Next, which this section would restrict; remove it", strings.Join(refused, "; "))
	}
	if inv == "" {
		var others []string
		for _, n := range cfg.Invariants {
			if n != typ {
				others = append(others, n)
			}
		}
		if len(others) != 1 {
			return nil, inputf("%s: name the candidate invariant with --inv (the cfg's invariants other than %s: %s)", cfgPath, typ, listOrNone(others))
		}
		inv = others[0]
	}
	ec := interp.Config(cfg)
	ec.Invariants = []string{inv}
	if typ != inv {
		ec.Invariants = append(ec.Invariants, typ)
	}
	ec.Properties = nil
	ec.Domain = &eval.DomainConfig{Type: typ, Inv: inv, Late: in.Late}
	sp, err := interp.Load(specPath, append([]string{filepath.Dir(cfg.Path)}, lib...), ec)
	if err != nil {
		return nil, interpError(err)
	}
	return &InductJob{CfgPath: cfg.Path, SpecPath: specPath, Type: typ, Inv: inv, sp: sp, reach: reach}, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// InductOptions tune an induct run; the zero value uses every core.
type InductOptions struct {
	Workers int
	// Continue checks every state after a counterexample (the report
	// keeps the first, in enumeration order), and consecution after
	// initiation fails, so that the counts are complete.
	Continue bool
	// Progress, when set, receives the figures every ProgressEvery.
	Progress      func(InductStats)
	ProgressEvery time.Duration
}

// InductStats are an induct run's figures so far.
type InductStats struct {
	Elapsed time.Duration
	// States satisfy Type /\ Inv; Successors are their successors
	// checked.
	States, Successors uint64
}

// InductReport is the outcome of tlcrun induct.
type InductReport struct {
	Engine string `json:"engine"`
	Spec   string `json:"spec"`
	Config string `json:"config"`
	Type   string `json:"type"`
	Inv    string `json:"inv"`
	// Verdict is "inductive", "not inductive" or "unknown" (interrupted);
	// Initiation and Consecution are each "holds", "fails", "unknown" or
	// "unchecked" (consecution, once initiation fails).
	Verdict     string `json:"verdict"`
	Initiation  string `json:"initiation"`
	Consecution string `json:"consecution"`
	// Domain is the number of states of the type's domain when it is a
	// product of finite sets ("" otherwise: not known without
	// enumerating it).
	Domain string `json:"domain,omitempty"`
	// Initial are the initial states checked (initiation), States the
	// states satisfying Type /\ Inv enumerated and Successors their
	// successors checked (consecution). When a counterexample stops the
	// run, States and Successors are those checked before it stopped
	// (Complete is false).
	Initial    uint64  `json:"initial"`
	States     uint64  `json:"states"`
	Successors uint64  `json:"successors"`
	Complete   bool    `json:"complete"`
	Seconds    float64 `json:"seconds"`
	Workers    int     `json:"-"`
	// CTI is the counterexample: an initial state that violates the
	// candidate, or a counterexample to induction.
	CTI *CTI `json:"cti,omitempty"`
}

// CTI is a counterexample to induction: a state satisfying Type /\ Inv
// and a step of Next to a state that violates Invariant (the candidate
// or the type invariant), or, for initiation, an initial state that
// violates the candidate (a trace of one state).
type CTI struct {
	// Kind is "initiation" or "consecution".
	Kind      string `json:"kind"`
	Invariant string `json:"invariant"`
	// Conjunct is the first conjunct of Invariant the last state
	// violates, by its name where it is written as one (CommitSent), and
	// At where it is (TwoPhaseInd.tla:27:5).
	Conjunct string `json:"conjunct,omitempty"`
	At       string `json:"at,omitempty"`
	// Text is the conjunct as its file writes it (conjunctSource).
	Text  string    `json:"text,omitempty"`
	Trace Violation `json:"trace"`
	// Reachable, when asked (InductJob.Reachable), says whether the
	// first state is reachable from Init at the cfg's bounds; Explored
	// is how many reachable states were explored to find out.
	Reachable *bool `json:"reachable,omitempty"`
	Explored  int   `json:"explored,omitempty"`
}

// errFound ends the search of Reachable.
var errFound = errors.New("found")

// Reachable explores the states reachable from Init, as check does, until
// it meets the counterexample's first state, and records in c whether it
// did. A consecution counterexample from a reachable state shows that
// the candidate is not an invariant at all.
func (j *InductJob) Reachable(ctx context.Context, c *CTI) error {
	b := j.reach.Other()
	want, err := b.Key(c.Trace.Trace[0].vars(j))
	if err != nil {
		return err
	}
	n := 0
	err = j.reach.VarStates(ctx, func(vs tlavalue.State) error {
		n++
		k, err := b.Key(vs)
		if err != nil {
			return err
		}
		if k == want {
			return errFound
		}
		return nil
	})
	found := errors.Is(err, errFound)
	if err != nil && !found {
		return err
	}
	c.Reachable, c.Explored = &found, n
	return nil
}

// Job is the model as check loads it from the same cfg: what Reachable
// explores, and where the page finds the cfg's constants.
func (j *InductJob) Job() *Job { return j.reach }

// Conjuncts names the candidate's conjuncts, in order, as ConjunctText
// does ("CommitSent at TwoPhaseInd.tla:27:5"), an unnamed one of one line
// followed by its text.
func (j *InductJob) Conjuncts() []string {
	p := &j.sp.M.Invariants[0]
	var out []string
	for i := range p.Conjuncts() {
		file, pos, name := p.ConjunctAt(i)
		c := CTI{Conjunct: name, At: fmt.Sprintf("%s:%d:%d", filepath.Base(file), pos.Line, pos.Col)}
		text := c.ConjunctText()
		if src := conjunctText(p, i); name == "" && src != "" && !strings.Contains(src, "\n") {
			// An unnamed conjunct of one line: its text says what it is.
			text += ": " + src
		}
		out = append(out, text)
	}
	return out
}

// Any is the spec as induct compiled it, its types hidden: its
// properties are the candidate and the type invariant, and a
// counterexample's states (TraceState.Spec) are its states. The HTML page
// draws a counterexample with it.
func (j *InductJob) Any() tlaspec.Any {
	return tlaspec.Erase[interp.State, interp.Label](j.sp)
}

// vars are the state's values as TLA+ values.
func (ts TraceState) vars(j *InductJob) tlavalue.State {
	return j.sp.Vars(ts.Spec.(interp.State))
}

// ConjunctText names the conjunct that fails: "CommitSent at
// TwoPhaseInd.tla:27:5", or "the conjunct at Spec.tla:12:8".
func (c *CTI) ConjunctText() string {
	switch {
	case c.At == "":
		return "a conjunct"
	case c.Conjunct == "":
		return "the conjunct at " + c.At
	}
	return c.Conjunct + " at " + c.At
}

// Run checks initiation, then consecution.
func (j *InductJob) Run(ctx context.Context, opt InductOptions) (*InductReport, error) {
	start := time.Now()
	m := j.sp.M
	rep := &InductReport{Engine: EngineInterpreter, Spec: j.SpecPath, Config: j.CfgPath, Type: j.Type, Inv: j.Inv}
	if n := m.DomainSize(); n != nil {
		rep.Domain = n.String()
	}
	inv := &m.Invariants[0]
	// Initiation.
	var initErr error
	err := m.Init(func(s []eval.Value) {
		if rep.CTI != nil || initErr != nil {
			return
		}
		rep.Initial++
		ok, err := m.Holds(inv, s)
		if err != nil {
			initErr = err
			return
		}
		if !ok {
			rep.CTI = j.cti("initiation", 0, [][]eval.Value{s}, interp.Label{})
		}
	})
	if err == nil {
		err = initErr
	}
	if err != nil {
		return nil, j.evalError(err)
	}
	rep.Initiation = "holds"
	if rep.CTI != nil {
		rep.Initiation = "fails"
		if !opt.Continue {
			rep.Verdict, rep.Consecution = "not inductive", "unchecked"
			rep.Seconds = time.Since(start).Seconds()
			return rep, nil
		}
	}
	// Consecution.
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rep.Workers = workers
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type found struct {
		prefix uint64
		states [][]eval.Value
		label  interp.Label
		bad    int
	}
	var (
		best    atomic.Uint64
		mu      sync.Mutex
		first   *found
		firstEr error
		states  = make([]atomic.Uint64, workers)
		succs   = make([]atomic.Uint64, workers)
		seen    sync.Map
		wg      sync.WaitGroup
		repeats = m.DomainRepeats()
	)
	best.Store(math.MaxUint64)
	fail := func(err error) {
		mu.Lock()
		if firstEr == nil {
			firstEr = err
		}
		mu.Unlock()
		cancel()
	}
	nInv := len(m.Invariants)
	open := uint64(1)<<nInv - 1
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var prefix uint64
			var mine *found
			var keyBuf []byte
			take := func(i uint64) bool {
				if ctx.Err() != nil || (!opt.Continue && i > best.Load()) || i%uint64(workers) != uint64(w) {
					return false
				}
				prefix = i
				return true
			}
			var cur []eval.Value
			var bad *found
			onSucc := func(act int, args []eval.Value, next []eval.Value) {
				succs[w].Add(1)
				if bad != nil {
					return
				}
				// The state satisfies both invariants (it is one of
				// Type /\ Inv): the conjuncts of the variables the step
				// left alone hold in the successor as well.
				v, err := m.ViolatedSince(next, cur, nil, nil, open)
				if err != nil {
					fail(err)
					return
				}
				if v != 0 {
					i := 0
					for v&(1<<i) == 0 {
						i++
					}
					bad = &found{prefix: prefix, states: [][]eval.Value{slices.Clone(cur), slices.Clone(next)},
						label: interp.Label{Act: act, Args: slices.Clone(args)}, bad: i}
				}
			}
			err := m.EnumDomain(take, func(s []eval.Value) {
				if !opt.Continue && mine != nil && prefix >= mine.prefix {
					return
				}
				if repeats {
					keyBuf = keyBuf[:0]
					for _, v := range s {
						keyBuf = eval.AppendKey(keyBuf, v)
					}
					if _, dup := seen.LoadOrStore(string(keyBuf), struct{}{}); dup {
						return
					}
				}
				states[w].Add(1)
				cur = s
				bad = nil
				if err := m.NextLabelled(s, onSucc); err != nil {
					fail(err)
					return
				}
				if bad != nil && mine == nil {
					mine = bad
					for {
						b := best.Load()
						if b <= mine.prefix || best.CompareAndSwap(b, mine.prefix) {
							break
						}
					}
				}
			})
			if err != nil {
				fail(err)
			}
			if mine != nil {
				mu.Lock()
				if first == nil || mine.prefix < first.prefix {
					first = mine
				}
				mu.Unlock()
			}
		}()
	}
	sum := func() InductStats {
		var s InductStats
		for w := range workers {
			s.States += states[w].Load()
			s.Successors += succs[w].Load()
		}
		s.Elapsed = time.Since(start)
		return s
	}
	done := make(chan struct{})
	if opt.Progress != nil && opt.ProgressEvery > 0 {
		go func() {
			t := time.NewTicker(opt.ProgressEvery)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					opt.Progress(sum())
				}
			}
		}()
	}
	wg.Wait()
	close(done)
	if firstEr != nil {
		return nil, j.evalError(firstEr)
	}
	s := sum()
	rep.States, rep.Successors = s.States, s.Successors
	rep.Seconds = time.Since(start).Seconds()
	rep.Complete = ctx.Err() == nil && (first == nil || opt.Continue)
	switch {
	case first != nil:
		rep.Consecution = "fails"
		if rep.CTI == nil {
			rep.CTI = j.cti("consecution", first.bad, first.states, first.label)
		}
	case ctx.Err() != nil:
		rep.Consecution = "unknown"
	default:
		rep.Consecution = "holds"
	}
	switch {
	case rep.Initiation == "fails" || rep.Consecution == "fails":
		rep.Verdict = "not inductive"
	case rep.Consecution == "unknown":
		rep.Verdict = "unknown"
	default:
		rep.Verdict = "inductive"
	}
	return rep, nil
}

// evalError makes an evaluation error the run's error: a construct refused
// (an infinite domain among them) is about the user's files.
func (j *InductJob) evalError(err error) error {
	var ue *eval.UnsupportedError
	if errors.As(err, &ue) {
		return &inputError{msg: err.Error()}
	}
	return fmt.Errorf("evaluating %s: %w", j.SpecPath, err)
}

// cti builds the counterexample: states (one for initiation, two for a
// step) with the step's label, the invariant violated being
// Invariants[bad].
func (j *InductJob) cti(kind string, bad int, states [][]eval.Value, l interp.Label) *CTI {
	m := j.sp.M
	p := &m.Invariants[bad]
	c := &CTI{Kind: kind, Invariant: p.Name, Trace: Violation{Kind: "invariant", Property: p.Name}}
	last := states[len(states)-1]
	if i, err := m.FirstFailing(p, last); err == nil && i >= 0 {
		file, pos, name := p.ConjunctAt(i)
		where := fmt.Sprintf("%s:%d:%d", filepath.Base(file), pos.Line, pos.Col)
		c.Conjunct, c.At = name, where
		c.Text = conjunctText(p, i)
	}
	for i, s := range states {
		st := interp.StateOf(s)
		ts := TraceState{Vars: map[string]string{}, Spec: st}
		if i > 0 {
			ts.Action, ts.Label = j.sp.Action(l), j.sp.Label(l)
		}
		for _, x := range j.sp.Vars(st) {
			ts.Vars[x.Name] = x.Value.String()
		}
		c.Trace.Trace = append(c.Trace.Trace, ts)
	}
	return c
}

// conjunctText is the text of p's i-th conjunct as written, cut where
// the next one starts (conjunctSource).
func conjunctText(p *eval.Pred, i int) string {
	file, pos, _ := p.ConjunctAt(i)
	var next *syntax.Pos
	if i+1 < len(p.Conjuncts()) {
		if nf, np, _ := p.ConjunctAt(i + 1); nf == file {
			next = &np
		}
	}
	return conjunctSource(file, pos, next)
}

// conjunctSource is the text of the conjunct at pos in file, as written:
// the rest of its line and the lines after it indented past its column
// (TLA+'s layout: an item of a bulleted conjunction ends where a line
// starts at the item's column or left of it), up to a blank line, and
// cut where the next conjunct starts when that is on the same lines (an
// inline A /\ B). "" when the file cannot be read; a page or a message
// shows the position then.
func conjunctSource(file string, pos syntax.Pos, next *syntax.Pos) string {
	src, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(src), "\n")
	if pos.Line < 1 || pos.Line > len(lines) {
		return ""
	}
	// Columns count runes, as the lexer does.
	runes := func(s string) []rune { return []rune(strings.TrimRight(s, "\r")) }
	first := runes(lines[pos.Line-1])
	if pos.Col < 1 || pos.Col > len(first) {
		return ""
	}
	const maxLines = 40
	var out []string
	for ln := pos.Line; ln <= len(lines) && len(out) < maxLines; ln++ {
		r := runes(lines[ln-1])
		from := 0
		if ln == pos.Line {
			from = pos.Col - 1
		} else {
			indent := len(r) - len(strings.TrimLeft(string(r), " \t"))
			if strings.TrimSpace(string(r)) == "" || indent < pos.Col {
				break
			}
		}
		to := len(r)
		cut := next != nil && next.Line == ln && next.Col-1 > from && next.Col-1 <= len(r)
		if cut {
			to = next.Col - 1
		}
		out = append(out, string(r[from:to]))
		if cut {
			break
		}
	}
	text := strings.TrimRight(strings.Join(out, "\n"), " \t\n")
	text = strings.TrimSpace(strings.TrimSuffix(text, "/\\"))
	// Continuation lines keep their indentation relative to the first.
	return dedent(text, pos.Col-1)
}

// dedent removes up to n leading spaces from every line but the first.
func dedent(text string, n int) string {
	lines := strings.Split(text, "\n")
	for i := 1; i < len(lines); i++ {
		k := 0
		for k < n && k < len(lines[i]) && lines[i][k] == ' ' {
			k++
		}
		lines[i] = lines[i][k:]
	}
	return strings.Join(lines, "\n")
}

// WriteText prints the report: the counterexample as TLC prints a
// trace, then the counts.
func (r *InductReport) WriteText(w io.Writer) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Checking that %s is inductive relative to %s: %s (spec %s) with the %s\n", r.Inv, r.Type, r.Config, r.Spec, r.Engine)
	if c := r.CTI; c != nil {
		sb.WriteString("\n")
		if c.Kind == "initiation" {
			fmt.Fprintf(&sb, "Error: Initiation fails: an initial state violates %s; %s is false.\n", c.Invariant, c.ConjunctText())
			sb.WriteString("Error: The initial state is:\n")
		} else {
			fmt.Fprintf(&sb, "Error: Consecution fails: a state satisfying %s /\\ %s has a successor that violates %s; %s is false there.\n", r.Type, r.Inv, c.Invariant, c.ConjunctText())
			sb.WriteString("Error: The counterexample to induction is:\n")
		}
		writeTrace(&sb, &c.Trace)
		switch {
		case c.Reachable == nil:
		case *c.Reachable && c.Kind == "consecution":
			fmt.Fprintf(&sb, "State 1 is reachable from Init (found among %d reachable states): %s is not even an invariant; tlcrun check shows a behaviour that breaks it.\n", c.Explored, c.Invariant)
		case !*c.Reachable:
			fmt.Fprintf(&sb, "State 1 is not reachable from Init at these bounds (all %d reachable states explored).\n", c.Explored)
		}
	}
	sb.WriteString("\n")
	switch r.Verdict {
	case "inductive":
		fmt.Fprintf(&sb, "%s is inductive: every initial state satisfies it, and every successor of every state satisfying %s /\\ %s does.\n", r.Inv, r.Type, r.Inv)
	case "unknown":
		sb.WriteString("The check was interrupted before it was complete. The progress so far:\n")
	}
	fmt.Fprintf(&sb, "%d initial states checked.\n", r.Initial)
	if r.Domain != "" {
		fmt.Fprintf(&sb, "%s states in the domain of %s.\n", r.Domain, r.Type)
	}
	so := ""
	if !r.Complete {
		so = " (so far)"
	}
	if r.Consecution == "unchecked" {
		sb.WriteString("Consecution was not checked (--continue checks it).\n")
	} else {
		fmt.Fprintf(&sb, "%d states satisfying %s /\\ %s%s, %d successors checked.\n", r.States, r.Type, r.Inv, so, r.Successors)
	}
	fmt.Fprintf(&sb, "Finished in %.2fs.\n", r.Seconds)
	_, err := io.WriteString(w, sb.String())
	return err
}

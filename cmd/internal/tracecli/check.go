package tracecli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/tlaspec"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// explainGCPercent is the collector's target (GOGC) while the fault
// models are tried, unless GOGC is set. Their candidate states hold the
// trace's history (a recovery per crash, megabytes at millions of events)
// and grow by appending, which leaves each outgrown array behind as
// garbage; at Go's default of 100 the heap grows to twice what is live
// before a collection, which put the 4 M-event trace that no model
// explains over 100 MB with some 35 MB live when each model held its own
// history (docs/trace.md, "Diagnosing a long rejected trace"; the models
// that step alike now share one, and models whose histories part still
// hold their own). The histories hold no pointers, so a collection marks
// little and costs little: collecting at a quarter more than what is live
// costs no measurable time.
const explainGCPercent = 25

// checkOptions are tracecheck's flags.
type checkOptions struct {
	asJSON        bool
	quiet         bool
	noExplain     bool
	faults        string
	maxCandidates int
	show          int
	explainMemory float64 // MiB
	explainPasses int
	src           specSource
}

func newTracecheck(stdout, stderr io.Writer) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "tracecheck [flags] TRACE...",
		Short: "Replay recorded traces against the Go model of the resume contract",
		Long: `tracecheck replays recorded executions (NDJSON traces, docs/trace.md) against
the Go model of spec/Resume.tla, at the constants and fault switches the
trace's header claims.

A trace is accepted when some behaviour of the spec takes the actions its
events name, in order, and agrees with every variable they observed. For an
accepted trace tracecheck says which obligations the observed behaviour
satisfies; for a rejected one where it left the spec (the last matched event,
the candidate states there, why each action was disabled or how its
successor differs from the observation) and which fault models accept it
instead. "-" reads a trace from standard input.

A trace's header names its spec: "format":"tla-trace", "version":2 and
"module" (docs/trace.md, "One format, version 2"); version 1 reads too,
"resume-trace" being Resume's. A trace of another spec (docs/trace.md,
"Traces of other specs") has its values as TLA+ text. Without --spec it is replayed
against the module's compiled Go mirror (examples/twophase), with the
invariants of that spec and the guards' words for a disabled action. With
--spec FILE.tla it is replayed through the TLA+ interpreter reading that
file: any spec in its fragment. The behaviour spec is then Spec when the
module defines it (else Init and Next), the constants are the header's and
no invariant is checked; --cfg FILE.cfg gives the behaviour spec, the
invariants and the constants the header does not give (a constant the
header gives is always the header's value). The header's module must be
the spec's.

Exit codes (docs/cli.md):
  0  every trace is accepted
  1  a trace could not be read (an I/O error)
  2  bad flags or arguments; a trace is missing, or malformed (not NDJSON,
     no header, a bad event; the error names the line)
  4  a trace is rejected
  5  the check gave up on a trace (too many candidate states)
130  interrupted (Ctrl-C)
With several traces the first of 1, 2, 4, 5 that applies is the exit code.`,
		Example: `  tracecheck run.ndjson
  tracecheck --json testdata/traces/rejected/*.ndjson
  tracecheck --faults replay run.ndjson      # check against the replay model
  seqctl trace --run r1 | tracecheck -
  tracecheck --spec My.tla --cfg My.cfg run.ndjson   # a trace of any spec, through the interpreter`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runCheck(cmd, args, o)
		},
	}
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	f := cmd.Flags()
	f.BoolVar(&o.asJSON, "json", false, "print the report as JSON (an object; an array of them for several traces)")
	f.BoolVarP(&o.quiet, "quiet", "q", false, "print one line per trace")
	f.BoolVar(&o.noExplain, "no-explain", false, "do not try the fault models on a rejected trace")
	f.StringVar(&o.faults, "faults", "", `check against these faults (comma-separated, or "none") instead of the header's claim`)
	f.IntVar(&o.maxCandidates, "max-candidates", 0, "give up when more states than this are candidates (0: 65536)")
	f.IntVar(&o.show, "show", 0, "candidate states to describe in full on rejection (0: 3)")
	f.Float64Var(&o.explainMemory, "explain-memory", 0, "MiB of candidate states the fault models replayed together in one pass over a rejected trace may hold; more models wait for further passes (0: 24)")
	f.IntVar(&o.explainPasses, "explain-passes", 0, "passes over a rejected trace to try the fault models in; the models left are not tried, and a note says so (0: 6; -1: no limit)")
	f.StringVar(&o.src.spec, "spec", "", `replay "tla-trace" traces through the TLA+ interpreter, against this spec (any spec in its fragment)`)
	f.StringVar(&o.src.cfg, "cfg", "", "with --spec: a cfg for the behaviour spec, the invariants and the constants the header does not give (without --spec: its spec is the cfg's)")
	clibase.AddLibFlag(f, &o.src.lib, "with --spec: folders searched for the modules the spec extends or instantiates, after the spec's own")
	cmd.AddCommand(newConvert(stdout, stderr), newBench(stdout, stderr), newGenLong(stdout, stderr))
	return cmd
}

// Report is tracecheck's JSON output for one trace.
type Report struct {
	File string `json:"file"`
	// Module is the spec the trace is of, for every spec (Resume's
	// included): a reader tells the specs apart by it, the result being
	// under one key whatever the spec. Empty when the header was not read.
	Module   string          `json:"module,omitempty"`
	Verdict  string          `json:"verdict"` // accepted, rejected, unknown, or bad-input
	Error    string          `json:"error,omitempty"`
	Producer *trace.Producer `json:"producer,omitempty"`
	Faults   []string        `json:"faults"`
	Events   int             `json:"events"`
	// Result is the replay's outcome, the same type under the same key
	// for every spec.
	Result *tracecheck.Result `json:"result,omitempty"`
	// Diagnosis: the fault models that accept a rejected trace.
	Diagnosis *Diagnosis `json:"diagnosis,omitempty"`
}

// Diagnosis is the fault explanation of a rejected trace.
type Diagnosis = tracecheck.Diagnosis

func parseFaults(s string) (model.FaultSet, error) {
	var fs model.FaultSet
	if s == "none" {
		return 0, nil
	}
	for _, name := range strings.Split(s, ",") {
		f, err := model.ParseFault(strings.TrimSpace(name))
		if err != nil {
			return 0, err
		}
		fs = fs.With(f)
	}
	return fs, nil
}

func runCheck(cmd *cobra.Command, args []string, o checkOptions) error {
	var override *model.FaultSet
	if o.faults != "" {
		fs, err := parseFaults(o.faults)
		if err != nil {
			return clibase.Usage(fmt.Errorf("--faults: %v", err))
		}
		override = &fs
	}
	if err := specUsage(o.src); err != nil {
		return err
	}
	if o.explainMemory < 0 || o.explainPasses < -1 {
		return clibase.Usage(fmt.Errorf("want --explain-memory >= 0 and --explain-passes >= -1"))
	}
	opt := tracecheck.Options{MaxCandidates: o.maxCandidates, MaxShown: o.show,
		ExplainMemory: int(o.explainMemory * (1 << 20)), ExplainPasses: o.explainPasses, NoExplain: o.noExplain}
	if os.Getenv("GOGC") == "" {
		opt.ExplainGCPercent = explainGCPercent
	}
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	var reports []Report
	worst := ExitAccepted
	note := func(code int) {
		rank := map[int]int{ExitAccepted: 0, ExitUnknown: 1, ExitRejected: 2, ExitBadInput: 3, ExitFailure: 4}
		if rank[code] > rank[worst] {
			worst = code
		}
	}
	for _, path := range args {
		rep, code := checkOne(cmd, path, override, o.src, opt)
		note(code)
		if o.asJSON {
			reports = append(reports, rep)
			continue
		}
		prefix := ""
		if len(args) > 1 {
			prefix = path + ": "
		}
		switch {
		case rep.Error != "":
			fmt.Fprintf(errw, "tracecheck: %s\n", rep.Error)
		case o.quiet:
			res := rep.Result
			line := fmt.Sprintf("%s%s", prefix, strings.ToUpper(rep.Verdict))
			if res.Verdict == tracecheck.Rejected {
				line += " at " + res.Where(res.Failure.Event)
			}
			if rep.Diagnosis != nil {
				line += "; " + rep.Diagnosis.Summary
				if rep.Diagnosis.Note != "" {
					line += " (cut: not every fault model was tried)"
				}
			}
			fmt.Fprintln(out, line)
		default:
			if len(args) > 1 {
				fmt.Fprintf(out, "== %s\n", path)
			}
			fmt.Fprint(out, rep.Result.Text())
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // TLA+'s << and >> stay readable
		var v any = reports
		if len(reports) == 1 {
			v = reports[0]
		}
		if err := enc.Encode(v); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
	}
	return clibase.Status(worst)
}

// checkOne checks the trace at path ("-": standard input) on the one
// path every spec takes: the trace is opened by the one reader
// (trace.Open), its spec bound from its header (Resume's model at its
// constants and claimed faults, or another spec's mirror or interpreted
// text), and replayed by tracecheck.Replay, which streams Resume's events
// (reading stops at the event the check stops at) and replays any other
// spec's through ReplaySpec. Explaining a rejected Resume trace reads it
// again from the start, for each round of fault models; standard input is
// kept in a temporary file for that (on disk, not in memory).
func checkOne(cmd *cobra.Command, path string, override *model.FaultSet, src specSource, opt tracecheck.Options) (Report, int) {
	rep := Report{File: path, Faults: []string{}}
	fail := func(err error) (Report, int) {
		code := ExitFailure
		rep.Verdict = "error"
		switch {
		case errors.Is(err, trace.ErrBadInput):
			code, rep.Verdict = ExitBadInput, "bad-input"
		case badInput(err):
			code = ExitBadInput
		}
		rep.Error = err.Error()
		return rep, code
	}
	name := path
	var in io.Reader
	var sp *spool
	if path == "-" {
		name = "standard input"
		if !opt.NoExplain {
			sp = &spool{src: cmd.InOrStdin()}
			defer sp.Close()
			in = sp.Reader()
		} else {
			in = cmd.InOrStdin()
		}
	} else {
		f, err := os.Open(path)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		in = f
	}
	o, err := trace.Open(in, name)
	if err != nil {
		return fail(err)
	}
	input := tracecheck.Input{Name: name}
	var spec tlaspec.Any
	var ls *LoadedSpec
	var closers []io.Closer
	defer func() {
		for _, f := range closers {
			f.Close()
		}
	}()
	switch {
	case o.Spec != nil && override != nil:
		return fail(fmt.Errorf("%s: --faults names Resume's faults; this is a trace of another spec", name))
	case o.Spec != nil:
		ls, err = BindSpecTrace(o.Spec, name, SpecSource{Spec: src.spec, Cfg: src.cfg, Lib: src.lib})
		if err != nil {
			rep.Verdict, rep.Error = "bad-input", err.Error()
			return rep, ExitBadInput
		}
		spec, input.SpecReader = ls.Spec, o.SpecEvents
		rep.Module, rep.Producer = o.Spec.Header.Module, &o.Spec.Header.Producer
	case src.set() && o.Version == trace.OneVersion:
		rep.Verdict = "bad-input"
		rep.Error = fmt.Sprintf("%s: --spec and --cfg are for traces of other specs; this is a trace of module %s, whose events carry its own payload, replayed against the Go model of the resume contract (leave them out)", name, trace.ResumeModule)
		return rep, ExitBadInput
	case src.set():
		rep.Verdict = "bad-input"
		rep.Error = fmt.Sprintf("%s: --spec and --cfg are for traces in the %q format; this is a %q trace, replayed against the Go model of the resume contract (leave them out)", name, trace.SpecFormat, trace.FormatName)
		return rep, ExitBadInput
	default:
		h := o.Header
		if override != nil {
			h.Faults = []string{}
			for _, f := range override.Faults() {
				h.Faults = append(h.Faults, string(f))
			}
		}
		rep.Module, rep.Producer, rep.Faults = trace.ResumeModule, &h.Producer, h.Faults
		p, err := h.Params()
		if err != nil {
			return fail(fmt.Errorf("%s: %w", name, err))
		}
		m, err := model.New(p)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", name, err))
		}
		spec = tracecheck.ResumeSpec(m)
		first := true
		input.Events = func() (tracecheck.EventReader, error) {
			if first {
				first = false
				return o.Resume, nil
			}
			var r io.Reader
			if sp != nil {
				r = sp.Reader()
			} else {
				f, err := os.Open(path)
				if err != nil {
					return nil, err
				}
				r = f
				closers = append(closers, f)
			}
			d := trace.NewDecoder(r)
			if _, err := d.Header(); err != nil {
				return nil, err
			}
			return d, nil
		}
	}
	res, n, err := tracecheck.Replay(spec, input, opt)
	if err != nil && ls == nil {
		err = fmt.Errorf("%s: %w", name, err)
	}
	if err != nil {
		return fail(err) // a SpecDecoder's error names the trace
	}
	if ls != nil {
		// The interpreter stops a transition it cannot evaluate: the
		// verdict would be about a spec that was not evaluated.
		if err := ls.evaluated(); err != nil {
			rep.Verdict, rep.Error = "error", fmt.Sprintf("%s: %v", name, err)
			return rep, ExitFailure
		}
	}
	rep.Events, rep.Verdict, rep.Diagnosis, rep.Result = n, res.Verdict.String(), res.Diagnosis, res
	switch res.Verdict {
	case tracecheck.Accepted:
		return rep, ExitAccepted
	case tracecheck.Unknown:
		return rep, ExitUnknown
	}
	return rep, ExitRejected
}

// spool keeps what is read from a reader (standard input) in a temporary
// file, so that it can be read again from the start (by Explain) without
// being held in memory; every reader of the spool reads the file as far
// as it goes and then the source, adding to the file, so that nothing is
// read from the source before a reader needs it.
type spool struct {
	src  io.Reader
	f    *os.File
	size int64
	err  error // the source's (io.EOF at its end), or the file's
}

// Reader returns a reader of everything the source gives, from its start.
func (s *spool) Reader() io.Reader { return &spoolReader{s: s} }

// Close removes the file.
func (s *spool) Close() {
	if s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
	}
}

type spoolReader struct {
	s   *spool
	off int64
}

func (r *spoolReader) Read(p []byte) (int, error) {
	s := r.s
	if r.off < s.size {
		n, err := s.f.ReadAt(p[:min(int64(len(p)), s.size-r.off)], r.off)
		r.off += int64(n)
		if err == io.EOF {
			err = nil
		}
		return n, err
	}
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.src.Read(p)
	if n > 0 {
		if s.f == nil {
			if s.f, s.err = os.CreateTemp("", "tracecheck-stdin-*"); s.err != nil {
				return 0, fmt.Errorf("keeping standard input: %w", s.err)
			}
		}
		if _, werr := s.f.WriteAt(p[:n], s.size); werr != nil {
			s.err = fmt.Errorf("keeping standard input: %w", werr)
			return 0, s.err
		}
		s.size += int64(n)
		r.off += int64(n)
	}
	if err != nil {
		s.err = err
	}
	return n, err
}

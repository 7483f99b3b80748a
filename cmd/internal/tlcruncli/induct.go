package tlcruncli

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tlcruncli/bench"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/report"
	"github.com/resumecontract/resumecheck/tla/crosscheck"
)

// inductOptions are tlcrun induct's flags.
type inductOptions struct {
	spec     string
	inv      string
	typ      string
	lib      []string
	workers  int
	progress time.Duration
	asJSON   bool
	cont     bool
	compare  bool
	reach    bool
	html     string
	tf       tlcFlags
	// Set by validate: the loaded induction.
	job *check.InductJob
}

func newInductCmd() *cobra.Command {
	o := &inductOptions{}
	cmd := &cobra.Command{
		Use:   "induct CFG",
		Short: "Check that an invariant is inductive (the TLA+ interpreter)",
		Long: `Check that a candidate invariant is inductive relative to a type
invariant, over every state of the type's bounded domain rather than the
states reachable from Init (docs/induct.md):

  initiation   every initial state satisfies the candidate;
  consecution  every successor (by Next) of every state satisfying
               Type /\ Inv satisfies Inv and Type.

The states satisfying Type /\ Inv are enumerated as TLC enumerates an
initial predicate Type /\ Inv, so their number is the distinct initial
states of TLC's IndCheck-style run (Init == TypeOK /\ Inv), with the
candidate's conjuncts tested as soon as the variables they read have
values. The type invariant must give each variable its values from a
finite set (x \in S, x \subseteq S, x = e); an infinite one is refused
with its position (exit 2).

The cfg gives the constants and the behaviour spec, as for check (the
spec beside the cfg unless --spec says otherwise); its CONSTRAINT,
ACTION_CONSTRAINT and SYMMETRY are refused: they would restrict the
induction. --inv defaults to the cfg's one INVARIANT other than --type.

A counterexample to induction is printed as TLC prints a trace: the state
(typically unreachable), the action, and the successor that breaks the
candidate, with the first conjunct it breaks. Exit 0 when the candidate is
inductive, 12 when it is not (as a violated invariant), 2 for bad input,
130 when interrupted. --continue checks every state after a
counterexample, for complete counts (the first counterexample is kept).
--reachable explores the states reachable from Init, as check does, to say
whether the counterexample's first state is one: when it is, the candidate
is not even an invariant.

--html FILE also writes the report as one self-contained HTML page: the
verdict and the counts, and a counterexample told as two states (the
state, the action, the successor and the conjunct it breaks, with what
changed), whether the state is reachable from Init (explored for the
page, as --reachable does), and a drawing of the state and all its
successors.

--compare-tlc also runs TLC's IndCheck-style check of the same step (a
module of its own in a temporary folder: Init == Type /\ Inv, Next the
spec's, Type and Inv as invariants, CONSTRAINT TLCGet("level") = 1 so
that TLC takes one step) and compares the consecution verdict, the states
(TLC's distinct initial states) and the successors, with both times;
exit 15 when they disagree.`,
		Example: `  tlcrun induct --lib examples/twophase examples/twophase/induct/TwoPhaseInd.cfg
  tlcrun induct --html cti.html --inv Consistent --lib examples/twophase examples/twophase/induct/TwoPhaseInd.cfg
  tlcrun induct --inv Consistent --lib examples/twophase examples/twophase/induct/TwoPhaseInd.cfg
  tlcrun induct --json --type TypeOK --inv IndInv MC.cfg`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(args[0]); err != nil {
				return err
			}
			return o.run(cmd)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.spec, "spec", "", "the spec (default: the .tla beside the cfg, as for check)")
	f.StringVar(&o.inv, "inv", "", "the candidate invariant (default: the cfg's one INVARIANT other than --type)")
	f.StringVar(&o.typ, "type", "TypeOK", "the type invariant whose domain is enumerated")
	clibase.AddLibFlag(f, &o.lib, "folders searched for the modules the spec extends or instantiates, after the spec's own")
	f.IntVar(&o.workers, "workers", 0, "checking goroutines (0 = every core)")
	f.DurationVar(&o.progress, "progress", 5*time.Second, "interval between progress lines on stderr (0 = none, and no summary)")
	f.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	f.BoolVar(&o.cont, "continue", false, "check every state after a counterexample, for complete counts")
	f.BoolVar(&o.reach, "reachable", false, "after a counterexample to induction, explore the reachable states (as check does) to say whether its first state is one")
	f.StringVar(&o.html, "html", "", "also write the report as one self-contained HTML page (a counterexample as a story of two states, its reachability explored)")
	f.BoolVar(&o.compare, "compare-tlc", false, "also run TLC's IndCheck-style check of the same step and compare (implies --continue)")
	o.tf.add(f)
	return cmd
}

// validate checks the flags and loads the cfg, the spec and the two
// invariants before anything is checked.
func (o *inductOptions) validate(cfgPath string) error {
	if o.workers < 0 {
		return clibase.Usage(fmt.Errorf("--workers %d: want 1 or more (0: every core)", o.workers))
	}
	job, err := check.LoadInduct(check.InductInput{Cfg: cfgPath, Spec: o.spec, Lib: o.lib, Type: o.typ, Inv: o.inv})
	if err != nil {
		return inputError(err)
	}
	o.job = job
	return nil
}

// run checks initiation and consecution (and TLC's IndCheck with
// --compare-tlc), prints the report, writes --html and gives the exit
// code.
func (o *inductOptions) run(cmd *cobra.Command) error {
	ctx, job := cmd.Context(), o.job
	// Short-lived values, as for check's interpreter.
	debug.SetGCPercent(400)
	opt := check.InductOptions{Workers: o.workers, ProgressEvery: o.progress, Continue: o.cont || o.compare}
	if o.progress > 0 {
		opt.Progress = inductProgress(cmd.ErrOrStderr())
	}
	rep, err := job.Run(ctx, opt)
	if err != nil {
		if errors.Is(err, check.ErrInput) {
			return clibase.Usage(err)
		}
		return clibase.Exit(ExitFailure, err)
	}
	// The page always says whether the counterexample's state is
	// reachable: a reader's first question (reachable, the invariant it
	// breaks is not even an invariant).
	if (o.reach || o.html != "") && rep.CTI != nil && rep.CTI.Kind == "consecution" {
		if err := job.Reachable(ctx, rep.CTI); err != nil {
			return clibase.Exit(ExitFailure, err)
		}
	}
	var ind *crosscheck.IndCheck
	var disagree []string
	if o.compare {
		ind, err = crosscheck.RunIndCheck(ctx, job, o.lib, o.tf.options(nil))
		if err != nil {
			return runError(err)
		}
		disagree = crosscheck.IndDisagreements(rep, ind)
	}
	if err := o.write(cmd, rep, ind, disagree); err != nil {
		return err
	}
	if o.progress > 0 {
		secs := max(rep.Seconds, 1e-9)
		fmt.Fprintf(cmd.ErrOrStderr(), "Summary: %s states, %s successors in %.2fs with %d workers: %s states/s. Peak RSS %s.\n",
			bench.Count(rep.States), bench.Count(rep.Successors), rep.Seconds, rep.Workers,
			bench.Count(uint64(float64(rep.States)/secs)), bench.Bytes(bench.PeakRSS()))
	}
	if len(disagree) > 0 {
		return clibase.Status(ExitDisagree)
	}
	switch rep.Verdict {
	case "inductive":
		return clibase.Status(ExitOK)
	case "unknown":
		return clibase.Status(ExitCancelled)
	}
	return clibase.Status(ExitSafety)
}

// write prints the report (with TLC's beside it under --compare-tlc) as
// text or JSON, and writes --html.
func (o *inductOptions) write(cmd *cobra.Command, rep *check.InductReport, ind *crosscheck.IndCheck, disagree []string) error {
	var err error
	switch {
	case o.asJSON && o.compare:
		err = writeJSON(cmd.OutOrStdout(), struct {
			Induct        *check.InductReport  `json:"induct"`
			TLC           *crosscheck.IndCheck `json:"tlc"`
			Disagreements []string             `json:"disagreements"`
		}{rep, ind, disagree})
	case o.asJSON:
		err = writeJSON(cmd.OutOrStdout(), rep)
	default:
		err = rep.WriteText(cmd.OutOrStdout())
		if err == nil && o.compare {
			writeIndCompare(cmd.OutOrStdout(), rep, ind, disagree)
		}
	}
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	if o.html == "" {
		return nil
	}
	start := time.Now()
	page, err := report.Induct(o.job.Any(), rep, report.InductOptions{Constants: cfgConstants(o.job.Job()), Conjuncts: o.job.Conjuncts()})
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	return writePageSince(cmd, o.html, page, start)
}

// writeIndCompare prints the induct run and TLC's IndCheck run side by
// side.
func writeIndCompare(w io.Writer, rep *check.InductReport, ind *crosscheck.IndCheck, disagree []string) {
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nTLC's IndCheck run (Init == %s /\\ %s, one step):\n", rep.Type, rep.Inv)
	tw := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\tinduct\tTLC\n")
	fmt.Fprintf(tw, "consecution\t%s\t%s\n", rep.Consecution, map[bool]string{true: "fails", false: "holds"}[ind.Violated])
	fmt.Fprintf(tw, "states\t%d\t%d\n", rep.States, ind.Distinct)
	fmt.Fprintf(tw, "successors\t%d\t%d\n", rep.Successors, ind.Successors)
	fmt.Fprintf(tw, "time\t%.2fs\t%.2fs\n", rep.Seconds, ind.Wall.Seconds())
	tw.Flush()
	if len(disagree) == 0 {
		sb.WriteString("They agree.\n")
	} else {
		sb.WriteString("They DISAGREE:\n")
		for _, d := range disagree {
			fmt.Fprintf(&sb, "  %s\n", d)
		}
	}
	io.WriteString(w, sb.String())
}

// inductProgress prints a progress line in the manner of check's.
func inductProgress(w io.Writer) func(check.InductStats) {
	var last check.InductStats
	return func(s check.InductStats) {
		rate := perMinute(s.Elapsed - last.Elapsed)
		fmt.Fprintf(w, "Progress after %s: %s states of the domain checked (%s s/min), %s successors (%s s/min).\n",
			s.Elapsed.Round(time.Second), bench.Count(s.States), rate(s.States, last.States),
			bench.Count(s.Successors), rate(s.Successors, last.Successors))
		last = s
	}
}

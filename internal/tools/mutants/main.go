// Command mutants is a mutation differential between the TLA+ interpreter
// (tlcrun check --engine interp) and TLC: it makes small syntactic
// changes to the specs of a few models (a = b to a # b, a conjunct of an
// action dropped, UNCHANGED missing a variable, ...), runs each mutant
// through both checkers and compares their verdicts. Correct specs only
// exercise the "holds" side of a checker; mutants exercise the other: a
// mutant the interpreter says holds while TLC finds a violation is the
// worst defect the interpreter can have.
//
//	go run ./internal/tools/mutants [-examples PATH] [-tlcrun bin/tlcrun] [-jar tla2tools.jar]
//	    [-seed 1] [-n 25] [-timeout 60s] [-filter REGEXP] [-mutant REGEXP]
//	    [-out docs/mutants.md] [-record testdata/verdicts.tsv] [-list [-dump DIR]]
//
// The models are the repository's spec/R0.cfg, examples/twophase and
// examples/queue, and, with -examples (a tlaplus/Examples checkout made
// elsewhere), a few of its models that TLC checks in about a second.
// Each model's mutants are all those the operators of mutate.go make,
// of which -n are picked by -seed (the same seed picks the same
// mutants). Each mutant is written, with the other modules of its
// folder, into a temporary folder outside the repository, and checked
// there: the interpreter with one worker, TLC with one worker through
// package tla/tlc, each stopping at its first violation. A mutant is
// agree, both refuse (neither checks it: a parse, semantic or
// evaluation error), interp refuses (a construct the interpreter
// declines), timeout or DIFFER (compare.go says how they are told).
//
// One line per mutant goes to stdout, then each model's tally; -out gets
// the markdown table. Exit 1 when a mutant is DIFFER, 2 for a usage
// error, 3 when TLC cannot run here (make mutants then says it skipped),
// else 0.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/tla/tlc"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// repoModels are the repository's own models, from its root.
var repoModels = []Model{
	{Name: "spec/R0.cfg", Spec: "spec/Resume.tla", Cfg: "spec/R0.cfg"},
	{Name: "examples/twophase/TwoPhase.cfg", Spec: "examples/twophase/TwoPhase.tla", Cfg: "examples/twophase/TwoPhase.cfg"},
	{Name: "examples/queue/Queue.cfg", Spec: "examples/queue/Queue.tla", Cfg: "examples/queue/Queue.cfg"},
}

// examplesModels are models of tlaplus/Examples whose root module holds
// the actions (not an MC module over another), that need no module from
// outside the standard ones, and that TLC checks in about a second (their
// manifests: 6 to 34,534 distinct states). Paths are from the checkout's
// root.
var examplesModels = []string{
	"specifications/DiningPhilosophers/DiningPhilosophers",
	"specifications/ewd840/EWD840",
	"specifications/barriers/Barrier",
	"specifications/Chameneos/Chameneos",
	"specifications/Prisoners/Prisoners",
	"specifications/CigaretteSmokers/CigaretteSmokers",
	"specifications/transaction_commit/TCommit",
	"specifications/transaction_commit/TwoPhase",
}

// examplesPrefix starts the names of tlaplus/Examples' models.
const examplesPrefix = "Examples:"

type options struct {
	examples, tlcrun, jar, java, out, filter string
	dump, record, only                       string
	seed                                     uint64
	n                                        int
	timeout                                  time.Duration
	list                                     bool
}

// usageError is a bad command line: exit 2.
type usageError struct{ error }

// errDiffer is the error when some mutant is DIFFER: exit 1.
var errDiffer = errors.New("some mutant is DIFFER: the checkers disagree (see above)")

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("mutants", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.examples, "examples", "", "a tlaplus/Examples checkout: also mutate a few of its models")
	fs.StringVar(&o.tlcrun, "tlcrun", "bin/tlcrun", "the built tlcrun whose interpreter is tested")
	fs.StringVar(&o.jar, "jar", "", "tla2tools.jar (default: $TLA2TOOLS_JAR, else where tlcrun install puts it)")
	fs.StringVar(&o.java, "java", "", "the java that runs TLC (default: $JAVA_HOME/bin/java, else java on PATH)")
	fs.Uint64Var(&o.seed, "seed", 1, "the seed that picks each model's mutants")
	fs.IntVar(&o.n, "n", 25, "mutants per model (0: all of them)")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "limit for each run of each checker")
	fs.StringVar(&o.filter, "filter", "", "only the models whose name matches this regexp")
	fs.StringVar(&o.only, "mutant", "", "of the picked mutants, only those whose ID (eq-neq@75:19[= -> #]) matches this regexp")
	fs.StringVar(&o.out, "out", "", `the markdown table (docs/mutants.md; "" for none)`)
	fs.StringVar(&o.record, "record", "", "write the interpreter's verdicts on the repository's models' mutants here (testdata/verdicts.tsv, which CI checks without TLC)")
	fs.BoolVar(&o.list, "list", false, "list the picked mutants, their change and position, and run nothing")
	fs.StringVar(&o.dump, "dump", "", "with -list, also write each picked mutant's text into this folder (outside the repository)")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err}
	}
	if fs.NArg() > 0 {
		return o, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err == nil {
		err = mutants(o, args, stdout)
	}
	var ue usageError
	var un unavailableError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 2
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "mutants:", err)
		return 2
	case errors.As(err, &un):
		fmt.Fprintln(stderr, "mutants:", err)
		return 3
	}
	fmt.Fprintln(stderr, "mutants:", err)
	return 1
}

// unavailableError: TLC cannot run here (exit 3).
type unavailableError struct{ error }

// models lists the models to mutate.
func (o options) models() ([]Model, error) {
	ms := append([]Model{}, repoModels...)
	if o.examples != "" {
		for _, p := range examplesModels {
			base := filepath.Join(o.examples, filepath.FromSlash(p))
			ms = append(ms, Model{Name: examplesPrefix + p + ".cfg", Spec: base + ".tla", Cfg: base + ".cfg"})
		}
	}
	if o.filter == "" {
		return ms, nil
	}
	re, err := regexp.Compile(o.filter)
	if err != nil {
		return nil, usageError{fmt.Errorf("-filter: %w", err)}
	}
	var out []Model
	for _, m := range ms {
		if re.MatchString(m.Name) {
			out = append(out, m)
		}
	}
	return out, nil
}

func mutants(o options, args []string, stdout io.Writer) error {
	models, err := o.models()
	if err != nil {
		return err
	}
	type picked struct {
		model   Model
		mutants []Mutant
		total   int
	}
	var only *regexp.Regexp
	if o.only != "" {
		if only, err = regexp.Compile(o.only); err != nil {
			return usageError{fmt.Errorf("-mutant: %w", err)}
		}
	}
	var todo []picked
	for _, m := range models {
		src, err := os.ReadFile(m.Spec)
		if err != nil {
			return err
		}
		all, err := Generate(m.Spec, src)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		ms := Pick(all, o.seed, m.Name, o.n)
		if only != nil {
			ms = slices.DeleteFunc(ms, func(mu Mutant) bool { return !only.MatchString(mu.ID()) })
		}
		todo = append(todo, picked{m, ms, len(all)})
	}
	if o.list {
		for _, p := range todo {
			fmt.Fprintf(stdout, "%s: %d of %d mutants\n", p.model.Name, len(p.mutants), p.total)
			for _, mu := range p.mutants {
				fmt.Fprintf(stdout, "  %s in %s\n", mu.ID(), mu.Def)
				if o.dump != "" {
					if err := dump(o.dump, p.model, mu); err != nil {
						return err
					}
				}
			}
		}
		return nil
	}
	ctx := context.Background()
	setup, err := tlc.Find(ctx, o.jar, o.java)
	if err != nil {
		return unavailableError{fmt.Errorf("TLC cannot run here, so nothing is compared: %w", err)}
	}
	r := Runner{Jar: setup.Jar, Java: setup.Java, Timeout: o.timeout}
	if r.Tlcrun, err = filepath.Abs(o.tlcrun); err != nil {
		return err
	}
	if _, err := os.Stat(r.Tlcrun); err != nil {
		return usageError{fmt.Errorf("-tlcrun: %w (go build -o bin/tlcrun ./cmd/tlcrun)", err)}
	}
	meta := Meta{Command: "go run ./internal/tools/mutants " + strings.Join(args, " "), Seed: o.seed, N: o.n,
		Timeout: o.timeout, LoadBefore: loadavg(), Started: time.Now()}
	var reports []ModelReport
	differ := false
	for _, p := range todo {
		mr := ModelReport{Model: p.model, Total: p.total}
		for _, mu := range p.mutants {
			row, err := checkMutant(ctx, r, p.model, mu)
			if err != nil {
				return fmt.Errorf("%s %s: %w", p.model.Name, mu.ID(), err)
			}
			mr.Rows = append(mr.Rows, row)
			mr.Tally.Add(row.Comparison, row.Interp, row.TLC)
			differ = differ || row.Comparison.Class == Differ
			fmt.Fprintln(stdout, rowLine(p.model, row))
		}
		fmt.Fprintf(stdout, "%s: %s\n", p.model.Name, mr.Tally)
		reports = append(reports, mr)
	}
	meta.LoadAfter, meta.Elapsed = loadavg(), time.Since(meta.Started)
	var total Tally
	for _, mr := range reports {
		total = total.Plus(mr.Tally)
	}
	fmt.Fprintf(stdout, "all: %s\n", total)
	if o.out != "" {
		if err := WriteMarkdownPath(o.out, meta, reports); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", o.out)
	}
	if o.record != "" {
		err := atomicfile.WriteFile(o.record, func(w io.Writer) error { return WriteRecord(w, meta, reports) })
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", o.record)
	}
	if differ {
		return errDiffer
	}
	return nil
}

// Row is one mutant's runs and their comparison.
type Row struct {
	Mutant     Mutant
	Interp     Result
	TLC        Result
	Comparison Comparison
}

// checkMutant stages a mutant, runs both checkers and compares them. When
// their first violations differ, the interpreter runs again with
// --continue, so that TLC's first violation can be looked for among all
// of the interpreter's.
func checkMutant(ctx context.Context, r Runner, m Model, mu Mutant) (Row, error) {
	dir, spec, cfg, done, err := Stage(m, mu.Text)
	if err != nil {
		return Row{}, err
	}
	defer done()
	row := Row{Mutant: mu}
	row.Interp = r.Interp(ctx, dir, spec, cfg, false)
	row.TLC = r.TLC(ctx, dir, spec, cfg)
	row.Comparison = Compare(row.Interp, row.TLC)
	if row.Comparison.Class == Differ && row.Interp.Status == Violated && row.TLC.Status == Violated {
		all := r.Interp(ctx, dir, spec, cfg, true)
		if all.Status == Violated {
			row.Interp.All = all.All
			row.Comparison = Compare(row.Interp, row.TLC)
		}
	}
	return row, nil
}

func rowLine(m Model, row Row) string {
	s := fmt.Sprintf("%-14s %s %s: interp %s (%.1fs); TLC %s (%.1fs)", row.Comparison.Class, m.Name, row.Mutant.ID(),
		row.Interp, row.Interp.Seconds, row.TLC, row.TLC.Seconds)
	if row.Comparison.Detail != "" {
		s += "; " + row.Comparison.Detail
	}
	return s
}

// loadavg is the machine's load averages over 1, 5 and 15 minutes, as
// /proc/loadavg says them ("" where there is none).
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// dump writes a mutant's text into dir, named by its model and ID.
func dump(dir string, m Model, mu Mutant) error {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, m.Name+"_"+mu.ID())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, name+".tla"), func(w io.Writer) error {
		_, err := w.Write(mu.Text)
		return err
	})
}

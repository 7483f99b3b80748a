// Command examples measures the TLA+ interpreter (tlcrun check --engine
// interp) on the models of tlaplus/Examples whose manifests record TLC's
// counts, and TLC itself beside it for the time.
//
//	go run ./internal/tools/examples -examples PATH [-tlcrun bin/tlcrun] [-interp=false]
//	    [-jar TLA2TOOLS_JAR [-jars CommunityModules.jar] [-lib DIR:...]] [-tlc=false]
//	    [-timeout 300s] [-out docs/examples.md] [-filter REGEXP]
//
// The suite is every model whose manifest says "exhaustive search", records
// distinctStates and a runtime under five minutes. Each model runs in its
// own folder, one at a time, each checker with one worker so that the
// times compare. A model is identical (the manifest's verdict and counts),
// WRONG (other counts or a violation), refused (the interpreter declined a
// construct), error or timeout. One row per model goes to stdout as it
// finishes, then a summary; -out gets the markdown table. The exit status
// is 1 when a model is WRONG, 2 for a usage error, else 0.
//
// Nothing of tlaplus/Examples, TLC or the community modules is in this
// repository: -examples is a checkout made elsewhere, -jar a TLC built or
// installed elsewhere (make examples EXAMPLES=... EXAMPLES_FLAGS=...).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a bad command line: exit 2.
type usageError struct{ error }

type options struct {
	examples, tlcrun, jar, java, jars, lib, out, filter string
	cache                                               string
	interp, tlc                                         bool
	timeout                                             time.Duration
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("examples", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.examples, "examples", "", "a tlaplus/Examples checkout (required)")
	fs.StringVar(&o.tlcrun, "tlcrun", "bin/tlcrun", "the tlcrun whose --engine interp is measured")
	fs.BoolVar(&o.interp, "interp", true, "run the interpreter (=false: TLC alone, judged against the manifest)")
	fs.StringVar(&o.jar, "jar", "", "tla2tools.jar: also run TLC on each model (for its time)")
	fs.StringVar(&o.java, "java", "java", "the java that runs TLC")
	fs.StringVar(&o.jars, "jars", "", "more jars on TLC's classpath, "+string(os.PathListSeparator)+"-separated (CommunityModules.jar)")
	fs.StringVar(&o.lib, "lib", "", "folders of more modules for TLC and the interpreter (TLAPS.tla, community modules, ...), "+string(os.PathListSeparator)+"-separated: its -DTLA-Library")
	fs.BoolVar(&o.tlc, "tlc", true, "with -jar, run TLC (=false: the interpreter alone)")
	fs.StringVar(&o.cache, "tlc-cache", "", "a table of TLC's figures from earlier runs (tab-separated; see cache.go): models in it are not run on TLC again, the others are run and appended")
	fs.DurationVar(&o.timeout, "timeout", 300*time.Second, "limit for each run of each checker")
	fs.StringVar(&o.out, "out", "docs/examples.md", `the markdown table ("" for none)`)
	fs.StringVar(&o.filter, "filter", "", "only the suite's models whose path (specifications/...cfg) matches this regexp")
	if err := fs.Parse(args); err != nil {
		return o, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return o, usageError{fmt.Errorf("unexpected arguments %q", fs.Args())}
	case o.examples == "":
		return o, usageError{errors.New("-examples PATH is required (a tlaplus/Examples checkout)")}
	case !o.interp && (o.jar == "" || !o.tlc):
		return o, usageError{errors.New("-interp=false leaves nothing to run without -jar (and -tlc)")}
	}
	return o, nil
}

func run(args []string, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "examples:", err)
		}
		return 2
	}
	if err := suite(o, args, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "examples:", err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		return 1
	}
	return 0
}

// errWrong is suite's error when some model is WRONG.
var errWrong = errors.New("some model is WRONG: a run finished with other counts or another verdict than the manifest (see above)")

func suite(o options, args []string, stdout, stderr io.Writer) error {
	var filter *regexp.Regexp
	if o.filter != "" {
		var err error
		if filter, err = regexp.Compile(o.filter); err != nil {
			return usageError{fmt.Errorf("-filter: %w", err)}
		}
	}
	models, err := LoadModels(o.examples)
	if err != nil {
		return err
	}
	sel := Select(models)
	selection := fmt.Sprintf("The suite: %d of the manifests' %d models (exhaustive search, distinctStates recorded, runtime under %v min); left out: %s.",
		len(sel.Suite), sel.Total, maxRuntime.Minutes(), sel.LeftSummary())
	fmt.Fprintln(stdout, selection)
	todo := sel.Suite
	if filter != nil {
		todo = nil
		for _, m := range sel.Suite {
			if filter.MatchString(m.Name) {
				todo = append(todo, m)
			}
		}
		fmt.Fprintf(stdout, "-filter %s: %d of them.\n", o.filter, len(todo))
		selection += fmt.Sprintf(" -filter %s: %d of them.", o.filter, len(todo))
	}

	r := Runner{Examples: o.examples, Java: o.java, Timeout: o.timeout, Lib: splitList(o.lib), Jars: splitList(o.jars)}
	if o.interp {
		if r.Tlcrun, err = filepath.Abs(o.tlcrun); err != nil {
			return err
		}
		if _, err := os.Stat(r.Tlcrun); err != nil {
			return fmt.Errorf("-tlcrun: %w (go build -o bin/tlcrun ./cmd/tlcrun)", err)
		}
	}
	if o.jar != "" && o.tlc {
		if r.Jar, err = filepath.Abs(o.jar); err != nil {
			return err
		}
		for i, j := range r.Jars {
			if r.Jars[i], err = filepath.Abs(j); err != nil {
				return err
			}
		}
		for i, l := range r.Lib {
			if r.Lib[i], err = filepath.Abs(l); err != nil {
				return err
			}
		}
	}

	meta := Meta{When: time.Now(), Arch: machine(), Cores: runtime.NumCPU(),
		Command: "go run ./internal/tools/examples " + quoteArgs(args), Selection: selection}
	ctx := context.Background()
	cache := &tlcCache{rows: map[string]Observed{}}
	if o.cache != "" {
		if cache, err = readCache(o.cache); err != nil {
			return err
		}
		meta.Command += fmt.Sprintf(" (TLC's figures of the models in %s read from it, measured by an earlier run)", filepath.Base(o.cache))
	} else {
		cache = nil
	}
	var rows []Row
	var t Tally
	for i, m := range todo {
		row := Row{Model: m}
		row.Interp = r.Interp(ctx, m)
		if cached, ok := cache.lookup(m.Name); ok {
			row.TLC = cached
			row.TLCCached = true
		} else {
			row.TLC = r.TLC(ctx, m)
			if cache != nil && row.TLC.Ran {
				if err := cache.add(m.Name, row.TLC); err != nil {
					return err
				}
			}
		}
		row.InterpOutcome, row.TLCOutcome = Judge(m, row.Interp, row.TLC)
		rows = append(rows, row)
		t.Add(row.Outcome())
		fmt.Fprintln(stdout, rowLine(i+1, len(todo), row))
		// The table is rewritten after each model: a long run stopped
		// half way still leaves what it measured.
		if o.out != "" {
			if err := WriteMarkdownPath(o.out, meta, rows); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(stdout, t)
	if o.out != "" {
		fmt.Fprintln(stdout, "wrote", o.out)
	}
	if t.Wrong > 0 {
		return errWrong
	}
	return nil
}

// rowLine is a model's line on stdout; a WRONG one is hard to miss.
func rowLine(i, n int, r Row) string {
	var times []string
	if r.Interp.Ran {
		times = append(times, "interp "+seconds(r.Interp))
	}
	if r.TLC.Ran {
		t := "tlc " + seconds(r.TLC)
		if r.Interp.Ran && r.TLCOutcome.Kind != Identical {
			t += ", " + tlcNote(r.TLCOutcome)
		}
		times = append(times, t)
	}
	o := r.Outcome()
	s := fmt.Sprintf("[%*d/%d] %s: %s (%s)", len(fmt.Sprint(n)), i, n, r.Model.Name, o, strings.Join(times, "; "))
	if o.Kind == Wrong {
		s = "*** WRONG *** " + s
	}
	return s
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return filepath.SplitList(s)
}

// machine is uname -m, or Go's name for the architecture without uname.
func machine() string {
	out, err := exec.Command("uname", "-m").Output()
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		return s
	}
	return runtime.GOARCH
}

func quoteArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]|&;<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

package tlcruncli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/resumecontract/resumecheck/check"
	"github.com/resumecontract/resumecheck/cmd/internal/tracecli"
	"github.com/resumecontract/resumecheck/harness"
	"github.com/resumecontract/resumecheck/internal/atomicfile"
	"github.com/resumecontract/resumecheck/internal/clibase"
	"github.com/resumecontract/resumecheck/internal/english"
	"github.com/resumecontract/resumecheck/matrix"
	"github.com/resumecontract/resumecheck/model"
	"github.com/resumecontract/resumecheck/report"
	"github.com/resumecontract/resumecheck/trace"
	"github.com/resumecontract/resumecheck/tracecheck"
)

// The HTML reports (package report): check --html and --dot, matrix
// --html, and the report command for traces and the conformance table.

// addReportFlags gives check its --html and --dot flags. They draw the Go
// engine's report, so they refuse the other engines.
func addReportFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String("html", "", "also write the report as one self-contained HTML page (counterexamples as timelines, the state graph)")
	f.String("dot", "", "also write the model's state graph in Graphviz DOT, the first counterexample's path in red")
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		html, _ := cmd.Flags().GetString("html")
		dot, _ := cmd.Flags().GetString("dot")
		if engine := cmd.Flags().Lookup("engine"); engine != nil && engine.Value.String() != "go" && engine.Value.String() != "interp" && (html != "" || dot != "") {
			return clibase.Usage(fmt.Errorf("--html and --dot draw the Go engine's report: use them with --engine go"))
		}
		return nil
	}
}

// writeCheckReports writes what check's --html and --dot ask for.
func writeCheckReports(cmd *cobra.Command, job *check.Job, rep *check.Report) error {
	html, _ := cmd.Flags().GetString("html")
	dot, _ := cmd.Flags().GetString("dot")
	if html != "" && job.Other() != nil {
		src, err := os.ReadFile(job.SpecPath)
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		page, err := report.CheckSpec(job.Other().Any(), rep, cfgConstants(job), report.Options{
			SpecFile: job.SpecPath, SpecSource: string(src), SpecConstants: cfgConstantMap(job)})
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		if err := writePage(cmd, html, page); err != nil {
			return err
		}
		html = ""
	}
	if html != "" {
		page, err := report.Check(job.Params, rep, report.Options{})
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		if err := writePage(cmd, html, page); err != nil {
			return err
		}
	}
	if dot != "" {
		var g *report.Graph
		var opt report.DOTOptions
		var err error
		if job.Other() != nil {
			g, opt, err = report.SpecGraphOf(job.Other().Any(), rep, report.Options{})
		} else {
			g, opt, err = report.GraphOf(job.Params, rep, report.Options{})
		}
		if errors.Is(err, report.ErrGraphTooLarge) {
			return clibase.Exit(ExitFailure, fmt.Errorf("--dot: %w; draw a model at small bounds such as spec/R0.cfg", err))
		}
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		err = atomicfile.WriteFile(dot, func(w io.Writer) error { return g.WriteDOT(w, opt) })
		if err != nil {
			return clibase.Exit(ExitFailure, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d states, %d transitions)\n", dot, len(g.Nodes), len(g.Edges))
	}
	return nil
}

// writeMatrixHTML is matrix --html. The page costs little beside the
// matrix (graphs are drawn only for models of a few thousand states), and
// the line it prints says how little: its size and the time it took.
func writeMatrixHTML(cmd *cobra.Command, path string, res *matrix.Result) error {
	start := time.Now()
	page, err := report.Matrix(res, report.Options{PageDir: filepath.Dir(path)})
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	return writePageSince(cmd, path, page, start)
}

// matrixWithPages builds the matrix one row at a time (buildRow checks
// row i alone) and, after each row but the last, writes the page of the
// rows so far, the others marked pending; the caller writes the whole
// page. The claims are judged on the whole matrix.
func matrixWithPages(cmd *cobra.Command, path string, rows []matrix.Row, buildRow func(i int, name string) (*matrix.Result, error)) (*matrix.Result, error) {
	var res *matrix.Result
	for i, row := range rows {
		part, err := buildRow(i, row.Name)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = part
		} else {
			res.Rows = append(res.Rows, part.Rows...)
		}
		if i == len(rows)-1 {
			break
		}
		var pending []string
		for _, r := range rows[i+1:] {
			pending = append(pending, r.Name)
		}
		partial := *res
		partial.Claims = nil
		page, err := report.Matrix(&partial, report.Options{PageDir: filepath.Dir(path), Pending: pending})
		if err != nil {
			return nil, clibase.Exit(ExitFailure, err)
		}
		if err := page.WritePath(path); err != nil {
			return nil, clibase.Exit(ExitFailure, err)
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d of %d models so far\n", path, len(res.Rows), len(rows))
	}
	if res == nil {
		return nil, fmt.Errorf("matrix: no model to check")
	}
	res.Claims = matrix.Claims(res)
	return res, nil
}

func writePage(cmd *cobra.Command, path string, page *report.Page) error {
	return writePageSince(cmd, path, page, time.Now())
}

// writePageSince writes the page and says so with its size and the time
// since start (the page's drawing began).
func writePageSince(cmd *cobra.Command, path string, page *report.Page, start time.Time) error {
	// Through a temporary, renamed into place: a page open in a browser,
	// reloaded while the command runs, is the old one or the whole new one.
	if err := atomicfile.WriteFile(path, page.Write); err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	size := ""
	if st, err := os.Stat(path); err == nil {
		size = fmt.Sprintf(" (%d KB, drawn in %s)", (st.Size()+512)/1024, time.Since(start).Round(time.Millisecond))
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s%s\n", path, size)
	return nil
}

func newReportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "HTML reports of a trace's verdict and of the conformance table",
		Long: `Write one self-contained HTML page (no network, no external scripts or
fonts; it works opened as a file).

The fault matrix and a model check have their page through their own
commands: tlcrun matrix --html FILE, tlcrun check --html FILE (and --dot FILE
for Graphviz). The subcommands here draw what other tools produce:

  trace        a recorded trace replayed by tracecheck: the events as a
               timeline of the spec's states, the obligations, and for a
               rejected trace the last matched event, the candidate states
               there, why each transition did not match, and the fault
               models that explain it
  conformance  the conformance harness's profiles as a table; each verdict
               opens its evidence
  site         the example pages of make report, all at once

Exit 0 when the page is written, whatever it shows; 1 when it could not be
written; 2 for bad flags or input.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newReportTraceCmd(), newReportConformanceCmd(), newReportSiteCmd())
	return cmd
}

func newReportTraceCmd() *cobra.Command {
	var (
		html          string
		faults        string
		maxCandidates int
		src           tracecli.SpecSource
	)
	cmd := &cobra.Command{
		Use:   "trace --html FILE [--spec FILE.tla [--cfg FILE.cfg] [--lib DIR]] TRACE",
		Short: "A trace's verdict from tracecheck as an HTML page",
		Long: `Replay a trace (NDJSON, docs/trace.md) as tracecheck does and write the
verdict as an HTML page: the verdict first, the events as a timeline of the
spec's states (one behaviour that matches them, every variable as a TLA+
value), its path through the state graph, the invariants or obligations,
and for a rejected trace the last matched event, the candidate states there
and, for each transition, why it was disabled or how its successor differs
from the observation. A selected step shows its action's TLA+ text; watch
expressions, differences and "export this path as a trace" work on every
timeline.

A trace of the resume contract is replayed against the Go model at the
constants and faults its header claims (or --faults); its page adds the
effect ledger and the fault models that explain a rejected trace, with the
trace drawn under the first of them.

A trace whose header says "format":"tla-trace" is one of another spec
(docs/trace.md, "Traces of other specs"). It is replayed through the Go
mirror when this build has one for its module (and --spec, if given, is
the text it mirrors; no --cfg), and otherwise through the TLA+ interpreter
reading --spec (with --cfg for the behaviour spec, the invariants and the
constants the header does not give, --lib for the modules it extends), as
tracecheck --spec does. --spec also gives the actions' text the page shows.`,
		Example: `  tlcrun report trace --html replay.html testdata/traces/partial/doc-example-replay.ndjson
  tlcrun report trace --html twophase.html --spec examples/twophase/TwoPhase.tla examples/twophase/testdata/early-commit.ndjson
  tlcrun report trace --html queue.html --spec examples/queue/Queue.tla --cfg examples/queue/Queue.cfg examples/queue/testdata/rejected.ndjson`,
		Args: cobra.ExactArgs(1),
		PreRunE: func(cmd *cobra.Command, args []string) error {
			return tracecli.SpecUsage(src)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := isSpecTrace(args[0])
			if err != nil {
				return clibase.Input(err)
			}
			if spec {
				if faults != "" {
					return clibase.Usage(fmt.Errorf("%s: --faults names Resume's faults; this is a trace of another spec", args[0]))
				}
				return reportSpecTrace(cmd, html, args[0], src, tracecheck.Options{MaxCandidates: maxCandidates})
			}
			if src.Spec != "" || src.Cfg != "" {
				return clibase.Usage(fmt.Errorf("%s: --spec and --cfg are for traces in the %q format; this is a %q trace, replayed against the Go model of the resume contract (leave them out)", args[0], trace.SpecFormat, trace.FormatName))
			}
			tr, err := trace.ReadFile(args[0])
			if err != nil {
				return clibase.Input(err)
			}
			if faults != "" {
				fs, err := parseFaultList(faults)
				if err != nil {
					return clibase.Usage(fmt.Errorf("--faults: %w", err))
				}
				tr.Header.Faults = []string{}
				for _, f := range fs.Faults() {
					tr.Header.Faults = append(tr.Header.Faults, string(f))
				}
			}
			in, err := report.CheckTrace(args[0], tr, tracecheck.Options{MaxCandidates: maxCandidates})
			if err != nil {
				return clibase.Usage(fmt.Errorf("%s: %w", args[0], err))
			}
			page, err := report.Trace(in, report.Options{})
			if err != nil {
				return clibase.Usage(fmt.Errorf("%s: %w", args[0], err))
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s after %d of %s\n", args[0], in.Result.Verdict, in.Result.Matched, english.Count(len(tr.Events), "event"))
			return writePage(cmd, html, page)
		},
	}
	f := cmd.Flags()
	f.StringVar(&html, "html", "", "the page to write (required)")
	f.StringVar(&faults, "faults", "", `check against these faults (comma-separated, or "none") instead of the header's claim`)
	f.IntVar(&maxCandidates, "max-candidates", 0, "give up when more states than this are candidates (0: 65536)")
	f.StringVar(&src.Spec, "spec", "", `for "tla-trace" traces: the spec, read by the TLA+ interpreter unless this build mirrors its text; its actions' text is shown`)
	f.StringVar(&src.Cfg, "cfg", "", "with --spec: a cfg for the behaviour spec, the invariants and the constants the header does not give")
	f.StringArrayVar(&src.Lib, "lib", nil, "with --spec: a folder searched for the modules the spec extends or instantiates; repeatable")
	_ = cmd.MarkFlagRequired("html")
	return cmd
}

// isSpecTrace reports whether the trace at path is one of another spec
// than Resume: its first line that is not blank is a "tla-trace" header.
func isSpecTrace(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for sc.Scan() {
		if b := bytes.TrimSpace(sc.Bytes()); len(b) > 0 {
			return trace.IsSpecTrace(b), nil
		}
	}
	return false, sc.Err()
}

// reportSpecTrace is report trace for a trace of another spec than
// Resume: replayed as tracecheck replays it, drawn by report.SpecTrace.
func reportSpecTrace(cmd *cobra.Command, html, path string, src tracecli.SpecSource, opt tracecheck.Options) error {
	f, err := os.Open(path)
	if err != nil {
		return clibase.Input(err)
	}
	defer f.Close()
	src.PreferMirror = true
	ls, err := tracecli.LoadSpecTrace(f, path, src)
	if err != nil {
		return clibase.Input(err)
	}
	opt.Witness = true
	res, err := ls.Replay(opt)
	if err != nil {
		return clibase.Exit(ExitFailure, fmt.Errorf("%s: %w", path, err))
	}
	page, err := report.SpecTrace(report.SpecTraceInput{File: path, Trace: ls.Trace, Spec: ls.Spec, Result: res, Through: ls.Through},
		report.Options{SpecFile: ls.SpecFile, SpecSource: ls.SpecText})
	if err != nil {
		return clibase.Exit(ExitFailure, err)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s after %d of %s, through %s\n", path, res.Verdict, res.Matched, english.Count(len(ls.Trace.Events), "event"), ls.Through)
	return writePage(cmd, html, page)
}

func newReportConformanceCmd() *cobra.Command {
	var html string
	cmd := &cobra.Command{
		Use:   "conformance --html FILE [PROFILE|DIR]...",
		Short: "The conformance harness's profiles as an HTML table",
		Long: `Read conformance profiles (the harness's <subject>@<version>-<store>.json
files; a folder gives its *.json files and the profile.json of its
subfolders) and write them as one table: a row per subject, version and
store, a column per obligation. Selecting a verdict shows its evidence: the
cells that measured it, their runs and tracecheck's verdicts on their traces.
Without arguments the profiles are read from testdata/conformance.`,
		Example: `  tlcrun report conformance --html conformance.html
  tlcrun report conformance --html local.html .conformance`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"testdata/conformance"}
			}
			profiles, err := harness.ReadProfiles(args...)
			if err != nil {
				return clibase.Input(err)
			}
			if len(profiles) == 0 {
				return clibase.Usage(fmt.Errorf("no conformance profiles in %v", args))
			}
			page, err := report.Conformance(profiles, report.Options{PageDir: filepath.Dir(html)})
			if err != nil {
				return clibase.Exit(ExitFailure, err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), english.Count(len(profiles), "profile"))
			return writePage(cmd, html, page)
		},
	}
	cmd.Flags().StringVar(&html, "html", "", "the page to write (required)")
	_ = cmd.MarkFlagRequired("html")
	return cmd
}

// parseFaultList reads a comma-separated list of fault names ("none": no
// fault).
func parseFaultList(s string) (model.FaultSet, error) {
	var fs model.FaultSet
	if s == "none" {
		return fs, nil
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

func newReportSiteCmd() *cobra.Command {
	var (
		dir     string
		workers int
	)
	cmd := &cobra.Command{
		Use:   "site --out DIR",
		Short: "The example pages of make report: matrix, a check, a trace, the conformance table",
		Long: `Write the example pages into the folder DIR, from the repository's root: the fault
matrix at R0 (matrix.html), the check of spec/fault-redeliver.cfg
(redeliver.html and redeliver.dot), the rejected trace
testdata/traces/partial/doc-example-replay.ndjson (trace.html) and the
conformance table of testdata/conformance (conformance.html). make report
runs it, and the report package's browser test reads the same pages.`,
		Example: `  tlcrun report site --out bin/report`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return clibase.Usagef("no folder to write the pages to: give it as --out DIR")
			}
			// The pages are the Go engine's: only for the spec it mirrors.
			if err := mirrorPreflight("go", filepath.Join("spec", check.Module+".tla")); err != nil {
				return err
			}
			err := report.WriteSite(cmd.Context(), dir, report.SiteOptions{Workers: workers,
				Log: func(path string) { fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s\n", path) }})
			if errors.Is(err, check.ErrNotMirrored) {
				return runError(err)
			}
			if err != nil {
				return clibase.Exit(ExitFailure, err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&dir, "out", "o", "", "the folder to write the pages to (required)")
	// --dir was this command's name for what the others call --out; kept
	// for one release (docs/cli.md, "Names changed").
	f.StringVar(&dir, "dir", "", "the folder to write the pages to")
	_ = f.MarkDeprecated("dir", "use --out")
	f.IntVar(&workers, "workers", 0, "Go engine workers (0 = all cores)")
	return cmd
}

// cfgConstants is a cfg's constants as it gives them: "RM = {r1, r2}, ...".
// cfgConstantMap are the cfg's constants as TLA+ text, by name: the
// constants of a spec trace's header.
func cfgConstantMap(job *check.Job) map[string]string {
	out := make(map[string]string, len(job.Cfg.Constants))
	for _, k := range job.Cfg.Constants {
		if k.Subst == "" && k.Module == "" {
			out[k.Name] = k.Value.String()
		}
	}
	return out
}

func cfgConstants(job *check.Job) string {
	parts := make([]string, len(job.Cfg.Constants))
	for i, k := range job.Cfg.Constants {
		parts[i] = k.Name + " = " + k.Value.String()
	}
	return strings.Join(parts, ", ")
}
